"""The bundle's entry point: the skill-studio command, as the wheel's script runs it."""

import multiprocessing
import sys

if __name__ == "__main__":
    # Health checks start worker processes; in a bundle they re-run this executable.
    multiprocessing.freeze_support()
    from skill_studio.cli import main

    sys.exit(main())
