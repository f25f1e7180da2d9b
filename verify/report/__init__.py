"""Report layer: the claims registry, the runner behind ``boolverify check``, the pytest
plugins that record evidence, figures, and the README claims table."""
