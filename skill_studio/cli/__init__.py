"""The ``skill-studio`` command line: headless commands over the core, one module per area
(shared helpers in :mod:`skill_studio.cli.common`, the parser and ``main`` in :mod:`skill_studio.cli.main`)."""

from skill_studio.cli.main import main

__all__ = ["main"]
