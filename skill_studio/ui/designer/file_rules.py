"""The rules of a skill's files as the designer's files panel shows and checks them: sizes, text
or binary, kinds, the paths a file may have, and the problems of the tool files (tools.yaml,
sources.yaml)."""

from __future__ import annotations

import mimetypes
import posixpath
import unicodedata
from collections.abc import Collection

from skill_studio.core.format.tool_files import check_tool_file
from skill_studio.core.format.yaml_lines import FileProblem
from skill_studio.core.library.archive import safe_relative_path
from skill_studio.core.model import SkillFile

MAX_FILE_BYTES = 10 * 1024 * 1024
#: Most problems of one file listed under the files tree (the tooltip lists them all).
MAX_SHOWN_PROBLEMS = 5
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


def file_problems(f: SkillFile) -> list[FileProblem]:
    """The problems of a file the studio checks (tools.yaml and sources.yaml beside SKILL.md), by
    line; [] for any other file."""
    return check_tool_file(f.path, f.data)


class FileChecks:
    """The problems of a skill's files, each file checked again only when its bytes change."""

    def __init__(self) -> None:
        self._checked: dict[str, tuple[bytes, list[FileProblem]]] = {}

    def of(self, f: SkillFile) -> list[FileProblem]:
        """The problems of ``f`` (see ``file_problems``)."""
        checked = self._checked.get(f.path)
        if checked is None or checked[0] != f.data:
            checked = self._checked[f.path] = (f.data, file_problems(f))
        return checked[1]

    def keep(self, paths: Collection[str]) -> None:
        """Forget the files that are not among ``paths`` any more."""
        self._checked = {p: c for p, c in self._checked.items() if p in paths}


def problem_lines(problems: list[FileProblem], limit: int | None = None, *, summary: bool = False) -> list[str]:
    """"line 12: warning: tool 'x' has no description (W012)", one per problem: the first ``limit``
    of them, then how many more there are; with ``summary``, first '2 problems:' ([] for none)."""
    if not problems:
        return []
    shown = problems if limit is None else problems[:limit]
    out = [f"{'line ' + str(p.line) if p.line else 'whole file'}: {p.severity.value}: {p.message} ({p.code})"
           for p in shown]
    if len(problems) > len(shown):
        out.append(f"… and {len(problems) - len(shown)} more (hover the file to see them all)")
    if summary:
        out.insert(0, f"{len(problems)} problem{'s' if len(problems) != 1 else ''}:")
    return out
