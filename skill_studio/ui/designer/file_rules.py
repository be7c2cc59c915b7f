"""The rules of a skill's files as the designer's files panel shows and checks them: sizes, text
or binary, kinds, and the paths a file may have."""

from __future__ import annotations

import mimetypes
import posixpath
import unicodedata

from skill_studio.core.library.archive import safe_relative_path
from skill_studio.core.model import SkillFile

MAX_FILE_BYTES = 10 * 1024 * 1024
#: Kinds mimetypes does not know everywhere, for files skills often carry.
_KINDS = {".md": "text/markdown", ".py": "text/x-python", ".sh": "text/x-shellscript",
          ".yaml": "application/yaml", ".yml": "application/yaml", ".json": "application/json",
          ".toml": "application/toml", ".txt": "text/plain", ".js": "text/javascript",
          ".ts": "text/x-typescript", ".csv": "text/csv", ".html": "text/html", ".svg": "image/svg+xml"}


def human_size(n: int) -> str:
    """'512 bytes', '12.3 KB', '4.0 MB' (1 KB = 1024 bytes)."""
    if n < 1024:
        return f"{n} byte" + ("" if n == 1 else "s")
    size = n / 1024
    return f"{size:.1f} KB" if size < 1024 else f"{size / 1024:.1f} MB"


def is_binary(data: bytes) -> bool:
    """True for data with a NUL byte or that is not UTF-8."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return b"\0" in data


def kind_of(path: str, binary: bool) -> str:
    """A mime-ish kind from the file name ('image/png'), or a generic one."""
    ext = posixpath.splitext(path)[1].lower()
    kind = _KINDS.get(ext) or mimetypes.guess_type(path, strict=False)[0]
    return kind or ("application/octet-stream" if binary else "text/plain")


def describe(f: SkillFile) -> str:
    """'binary, 12.3 KB, image/png' / 'text, 120 bytes, text/x-shellscript, executable'."""
    binary = is_binary(f.data)
    parts = ["binary" if binary else "text", human_size(len(f.data)), kind_of(f.path, binary)]
    if f.executable:
        parts.append("executable")
    return ", ".join(parts)


def check_path(path: str, existing: list[str], *, replacing: str | None = None) -> str:
    """The normalised relative POSIX path for a new or renamed file.

    Raises ValueError naming the path and the reason: absolute, ``..``, backslashes,
    control characters, SKILL.md at the root, or clashing with another file or folder
    (case-insensitively, as some disks are).
    """
    try:
        clean = safe_relative_path(path)
    except ValueError as e:
        raise ValueError(f"'{path}' {e}") from None
    if clean.casefold() == "skill.md":
        raise ValueError(f"'{path}' is the skill's own SKILL.md; edit it in the editor")
    key = unicodedata.normalize("NFC", clean).casefold()
    for other in existing:
        if other == replacing:
            continue
        okey = unicodedata.normalize("NFC", other).casefold()
        if okey == key:
            raise ValueError(f"'{clean}' already exists")
        if okey.startswith(key + "/"):
            raise ValueError(f"'{clean}' is a folder that holds '{other}'")
        if key.startswith(okey + "/"):
            raise ValueError(f"'{other}' is a file, so it cannot hold '{clean}'")
    return clean
