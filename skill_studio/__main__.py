"""Entry point for ``python -m skill_studio``."""

import sys

from skill_studio.cli import main

if __name__ == "__main__":
    sys.exit(main())
