"""Where the default store lives and where the bundled resources are."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

STORE_FILENAME = "skills.db"


def default_store_path() -> Path:
    """``$SKILL_STUDIO_HOME/skills.db``, else the platform's user data folder."""
    home = os.environ.get("SKILL_STUDIO_HOME")
    if home:
        return Path(home).expanduser() / STORE_FILENAME
    import platformdirs

    return Path(platformdirs.user_data_dir("skill-studio", appauthor=False)) / STORE_FILENAME


def resource_root():
    """The bundled resources (a Traversable: a folder in a checkout or an installed package)."""
    return resources.files("skill_studio.resources")


def samples_dir() -> Path:
    return Path(str(resource_root() / "samples"))
