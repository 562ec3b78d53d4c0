"""``python -m mjscope.cli``."""

import sys

from mjscope.cli import main

sys.exit(main())
