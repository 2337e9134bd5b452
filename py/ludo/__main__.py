"""``python -m ludo``: see :mod:`ludo.cli`."""

import sys

from .cli import main

sys.exit(main())
