"""``python -m verify.cli``: the same as the ``boolverify`` command."""

import sys

from verify.cli import main

sys.exit(main())
