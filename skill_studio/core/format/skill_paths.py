"""Paths inside a skill folder: normalised, never reaching outside it, and the key under which two
of them would be one file on a case-insensitive disk."""

from __future__ import annotations

import re
import unicodedata

#: A Windows drive letter at the start of a path ("C:...").
DRIVE_RE = re.compile(r"^[A-Za-z]:")


#: Folders (or files) of version control that a skill never carries: git runs commands named in
#: them (core.fsmonitor, hooks) when it is used in the folder they are found in, or above; a
#: ``.git`` file points git at another such folder (``gitdir:``). Mercurial runs hooks from ``.hg``.
VCS_NAMES = frozenset({".git", ".hg"})
VCS_REASON = "version-control metadata (git or hg could run commands from it); skills never carry it"


def vcs_part(path: str) -> str | None:
    """The component of ``path`` that is version-control metadata (see VCS_NAMES), in any case
    (``.GIT`` is ``.git`` on a case-insensitive disk), or None."""
    return next((part for part in path.replace("\\", "/").split("/") if part.casefold() in VCS_NAMES), None)


def safe_relative_path(name: str) -> str:
    """Return ``name`` as a normalised relative POSIX path (no ``.``, empty or trailing parts).

    Raises ValueError when the path is empty, absolute, starts with a drive
    letter, uses backslashes, contains NUL or another control character, or
    has a ``..`` component.
    """
    if not isinstance(name, str):
        raise ValueError(f"path must be a string, not {type(name).__name__}")
    if not name:
        raise ValueError("is an empty path")
    if "\x00" in name:
        raise ValueError("has a NUL character in its name")
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in name):
        raise ValueError("has a control character in its name")
    if name.startswith("/"):
        raise ValueError("is an absolute path")
    if DRIVE_RE.match(name):
        raise ValueError("starts with a drive letter")
    if "\\" in name:
        raise ValueError("uses backslashes in its path")
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise ValueError("escapes the skill folder")
    if not parts:
        raise ValueError("is an empty path")
    return "/".join(parts)


def collision_key(path: str) -> str:
    """Key under which two paths would land on the same file on a case-insensitive disk."""
    return unicodedata.normalize("NFC", path).casefold()
