"""``python -m judgecal``: the same as the ``judgecal`` command."""

import sys

from judgecal.cli import main

sys.exit(main())
