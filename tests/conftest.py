# Claim markers, the `evidence` fixture and the Hypothesis profiles live in one place.
from verify.pytest_plugin import evidence, pytest_collection_modifyitems, pytest_configure  # noqa: F401
