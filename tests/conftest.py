# Wiring, not a layer: the harness (claim markers, the `evidence` fixture, Hypothesis profiles)
# is the report layer's pytest plugin, registered here for the tests of this folder; and the
# in-process CLI runner that the CLI tests share.
import pytest

from verify.report.pytest_plugin import (  # noqa: F401
    evidence, pytest_collection_modifyitems, pytest_configure, pytest_runtest_makereport,
)


@pytest.fixture
def cli(capsys):
    """``boolverify ARGV...`` in this process: ``cli(*argv)`` returns ``(exit code, stdout,
    stderr)`` (for a child process, :func:`tests.helpers.run_cli_process`)."""
    from verify.cli import main

    def run(*argv):
        rc = main(list(argv))
        out = capsys.readouterr()
        return rc, out.out, out.err

    return run
