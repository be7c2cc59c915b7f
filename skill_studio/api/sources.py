"""Where an import over the local API may read from: never the file system's root, a view of
the running system or one of the system's own folders, and at most so many skills at once (a
larger library is imported where a person sees it happen)."""

from __future__ import annotations

import os
from pathlib import Path

#: Most skills one import over the API may bring; a larger library is imported in parts, or from
#: the command line or the window, where a person sees it happen.
MAX_API_IMPORT_SKILLS = 2000
# The kernel's views of the running system: never a library, nor anything inside them.
_PSEUDO_FOLDERS = ("/proc", "/sys", "/dev", "/run")
# The system's own folders: too large to walk, and never a library themselves.
_SYSTEM_FOLDERS = ("/usr", "/etc", "/var", "/boot", "/bin", "/sbin")


def system_source(path: Path) -> str | None:
    """Why ``path`` (absolute) cannot be the source of an import over the API, or None: the file
    system's root, a pseudo file system or anything in one, or one of the system's folders."""
    real = Path(os.path.realpath(path))
    for where in dict.fromkeys((path, real)):
        if where.parent == where:
            return "is the root of the file system"
        parts = where.parts
        top = "/" + parts[1] if len(parts) > 1 else ""
        if top in _PSEUDO_FOLDERS:
            return f"is in {top}, a view of the running system, not a folder of skills"
        if len(parts) == 2 and (top in _SYSTEM_FOLDERS or parts[1].startswith("lib")):
            return "is a folder of the system itself"
    return None
