"""Entry point for ``python -m skill_studio``."""

import sys

from skill_studio.cli import main

sys.exit(main())
