"""``python -m judgestats``: the same as the ``judgestats`` command."""

import sys

from judgestats.cli import main

sys.exit(main())
