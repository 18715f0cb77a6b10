"""``python -m ruleset``."""

import sys

from ruleset.cli import main

sys.exit(main())
