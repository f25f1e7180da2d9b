# Wiring, not a layer: the harness (claim markers, the `evidence` fixture, Hypothesis profiles)
# is the report layer's pytest plugin, registered here for the tests of this folder.
from verify.report.pytest_plugin import (  # noqa: F401
    evidence, pytest_collection_modifyitems, pytest_configure, pytest_runtest_makereport,
)
