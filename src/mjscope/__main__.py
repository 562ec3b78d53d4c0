"""``python -m mjscope``."""

import sys

from mjscope.cli import main

sys.exit(main())
