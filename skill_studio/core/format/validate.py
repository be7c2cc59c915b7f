"""Skill validation entry points: the strict, lenient and claude-upload profiles plus studio lints."""

# Diagnostic codes. A code never changes meaning; new rules get new codes.
#
# strict (the reference validator's rules and messages; parse failures stand alone)
#   S001 error    SKILL.md must start with YAML frontmatter (---)
#   S002 error    SKILL.md frontmatter not properly closed with ---
#   S003 error    Invalid YAML in frontmatter: ... (includes the strict YAML dialect)
#   S004 error    SKILL.md frontmatter must be a YAML mapping
#   S005 error    Missing required file: SKILL.md (every profile)
#   S006 error    SKILL.md is not readable: invalid UTF-8 or over the size limit
#   S007 error    Path does not exist / Not a directory (every profile)
#   S008 error    SKILL.md is a folder, a fifo, a link out of the skill folder, or cannot be read
#   S010 error    Unexpected fields in frontmatter
#   S011 error    Missing required field in frontmatter: name
#   S012 error    Missing required field in frontmatter: description
#   S013 error    Field 'name' must be a non-empty string
#   S014 error    Skill name exceeds 64 character limit
#   S015 error    Skill name must be lowercase
#   S016 error    Skill name cannot start or end with a hyphen
#   S017 error    Skill name cannot contain consecutive hyphens
#   S018 error    Skill name contains invalid characters
#   S019 error    Directory name must match skill name
#   S020 error    Field 'description' must be a non-empty string
#   S021 error    Description exceeds 1024 character limit
#   S022 error    Field 'compatibility' must be a string
#   S023 error    Compatibility exceeds 500 character limit
#
# lenient (loading as agents do)
#   L001 error    no frontmatter
#   L002 error    frontmatter not closed
#   L003 error    frontmatter is not YAML (hint offers the fix for an unquoted ': ')
#   L004 error    frontmatter is not a mapping
#   L005 error    not readable: invalid UTF-8 or over the size limit
#   L006 error    description missing
#   L007 error    description empty or not text
#   L008 warning  byte-order mark or blank lines before the opening '---'
#   L009 warning  duplicate key (the last value wins)
#   L010 warning  name missing or empty: the folder name is used
#   L011 warning  name is not text
#   L012 warning  name over 64 characters
#   L013 warning  name has characters the strict profile rejects
#   L014 warning  name differs from the folder name
#   L015 warning  description is a number/boolean/date, read as text
#   L016 warning  description over 1024 characters
#   L017 warning  compatibility not text or over 500 characters
#   L018 warning  metadata is not a map of strings
#   L019 info     name has surrounding spaces or characters that NFKC changes
#   L020 info     top-level keys outside the standard set
#
# claude-upload (after the strict diagnostics)
#   C001 error    name contains a reserved word (anthropic, claude)
#   C002 error    name contains an XML tag
#   C003 error    description contains an XML tag
#
# studio lints (any profile; never errors)
#   W001 warning  body over 500 lines
#   W002 warning  relative link or scripts/ path that names no file of the skill
#   W003 info     description does not say when to use the skill
#   W004 warning  name nearly duplicates another skill of the library
#   W005 warning  depends_on names a skill not in the library
#   W006 info     conflicts_with names a skill not in the library
#   W007 warning  parent names a skill not in the library
#   W008 warning  tools.yaml or sources.yaml cannot be read: not UTF-8, not YAML, over the bounds
#   W009 warning  tools.yaml or sources.yaml: not a list of entries, an entry not a mapping, a tool
#                 without a name, a key or name or URL given twice
#   W010 warning  tool name breaks the naming rules (lowercase snake_case, namespaced with '.' or
#                 '__', at most 64 characters)
#   W011 info     tool name does not start with a verb (unless it is the program given as command)
#   W012 warning  tool or parameter without a description, or a tool description that does not say
#                 when to use the tool and when not to
#   W013 warning  tool parameters that are not a valid JSON Schema, or a default its schema refuses
#   W014 warning  sources.yaml entry without a URL, a URL that does not parse, a bad retrieved date
#   W015 info     tool or source entry with keys outside the known set (a misspelling?)
#   (W008-W015 messages start with the file and its line, 'tools.yaml:12: ...')

from __future__ import annotations

import errno
import os
import re
import stat
import unicodedata
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from skill_studio.core.format.diagnostics import Diagnostic, Severity, err, errors, is_valid
from skill_studio.core.format.names import printable
from skill_studio.core.format.skillmd import MAX_SKILL_MD_BYTES, SkillDocument, SkillParseError
from skill_studio.core.format.strict import (
    MAX_COMPATIBILITY_LENGTH,
    MAX_DESCRIPTION_LENGTH,
    MAX_NAME_LENGTH,
    MSG_INVALID_YAML,
    MSG_MISSING_FILE,
    MSG_NO_FRONTMATTER,
    MSG_NOT_CLOSED,
    MSG_NOT_MAPPING,
    check_strict,
)
from skill_studio.core.library.bounded_read import ReadRefused, read_bounded
from skill_studio.core.library.folders import (
    SKIP_IN_SKILL,
    FolderError,
    find_skill_md,
    has_skill_md,
    missing_path_reason,
    read_skill_md,
)

__all__ = [  # noqa: F822 - MAX_BODY_LINES comes from the lints when asked for (see __getattr__)
    "MAX_BODY_LINES", "MAX_COMPATIBILITY_LENGTH", "MAX_DESCRIPTION_LENGTH", "MAX_NAME_LENGTH", "MSG_INVALID_YAML",
    "MSG_MISSING_FILE", "MSG_NOT_CLOSED", "MSG_NOT_MAPPING", "MSG_NO_FRONTMATTER", "PROFILES", "Diagnostic",
    "Severity", "errors", "find_skill_md", "is_valid", "validate_dir", "validate_text",
]

PROFILES = ("strict", "lenient", "claude-upload")

# The lenient profile and the studio lints (with the tool files' checks) are imported when a
# call asks for them: checking a skill as the reference does loads neither.


def __getattr__(name: str) -> Any:
    if name == "MAX_BODY_LINES":
        from skill_studio.core.format.lints import MAX_BODY_LINES

        return MAX_BODY_LINES
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --- claude-upload -------------------------------------------------------------------

_XML_TAG = re.compile(r"</?[A-Za-z_][\w.:-]*(?:\s[^<>]*)?/?>")
_RESERVED = ("anthropic", "claude")


def _claude_upload(data: dict[str, Any], lines: dict[str, int]) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    name = data.get("name")
    if isinstance(name, str) and name.strip():
        norm = unicodedata.normalize("NFKC", name.strip())
        for word in _RESERVED:
            if word in norm.casefold():
                out.append(err("C001", f"Skill name '{norm}' must not contain the reserved word "
                                       f"'{word}'", lines.get("name")))
        if _XML_TAG.search(norm):
            out.append(err("C002", f"Skill name '{norm}' must not contain XML tags", lines.get("name")))
    description = data.get("description")
    if isinstance(description, str):
        m = _XML_TAG.search(description)
        if m:
            out.append(err("C003", f"Description must not contain XML tags (found '{m.group(0)}')",
                           lines.get("description"),
                           "write the text without angle brackets, or describe the tag in words"))
    return out


# --- entry points --------------------------------------------------------------------------


def validate_text(data: bytes | str, folder_name: str | None, profile: str = "strict", *,
                  files: Collection[str] | None = None, library_names: Collection[str] | None = None,
                  path: str | None = None, lints: bool = True,
                  document: SkillDocument | None = None,
                  file_contents: Mapping[str, bytes | str] | None = None) -> list[Diagnostic]:
    """Validate SKILL.md content (bytes as stored, or text) under a profile.

    Returns the diagnostics in order: the profile's own (strict ones in the
    reference validator's order), then, when ``lints`` is true, the studio lints
    (warnings and information only). ``folder_name`` is the skill folder's name
    (None skips the folder checks); ``files`` the skill's file paths relative to
    its folder (enables the link lint); ``library_names`` the names of the
    library's skills (enables the duplicate-name and studio-field lints);
    ``document`` the same content already parsed by ``parse_document`` (lenient
    then does not parse it again); ``file_contents`` the contents of files beside
    SKILL.md by path (enables the tools.yaml and sources.yaml lints).
    """
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; expected one of {', '.join(PROFILES)}")
    if profile == "lenient":
        from skill_studio.core.format.lenient import check_lenient

        diags, parsed = check_lenient(data, folder_name, path, document)
    else:
        diags, parsed = check_strict(data, folder_name)
        if profile == "claude-upload" and parsed is not None and parsed.data is not None:
            diags.extend(_claude_upload(parsed.data, parsed.key_lines))
    if not lints:
        return diags
    from skill_studio.core.format.lints import lint_body, lint_data, lint_tool_files

    if parsed is not None:
        if parsed.body is not None:
            diags.extend(lint_body(parsed.body, parsed.body_line, files))
        if parsed.data is not None:
            diags.extend(lint_data(parsed, folder_name, library_names))
    if file_contents:
        diags.extend(lint_tool_files(file_contents))
    return diags


_MAX_LISTED_FILES = 20_000


def _skill_files(skill_dir: Path) -> list[str]:
    """The paths of the files of a skill folder (links not followed), at most _MAX_LISTED_FILES."""
    out: list[str] = []
    for root, dirs, names in os.walk(skill_dir):
        dirs[:] = [d for d in dirs if d not in SKIP_IN_SKILL]
        rel = Path(root).relative_to(skill_dir)
        for n in names:
            out.append((rel / n).as_posix())
        if len(out) >= _MAX_LISTED_FILES:
            break
    return out


# What Path.exists() takes for "there is nothing there" (any other error is raised).
_MISSING_ERRNOS = frozenset({errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP})
_MISSING_WINERRORS = frozenset({21, 123, 1921})  # not ready, invalid name, cannot be resolved


def _stat(path: Path) -> os.stat_result | None:
    """The path's status, links followed, or None where ``Path.exists()`` says it does not exist
    (one system call where exists() and is_dir() make two)."""
    try:
        return os.stat(path)
    except OSError as e:
        if e.errno not in _MISSING_ERRNOS and getattr(e, "winerror", None) not in _MISSING_WINERRORS:
            raise
        return None
    except ValueError:  # a path holding a NUL character
        return None


def validate_dir(skill_dir: str | os.PathLike[str], profile: str = "strict", *,
                 library_names: Collection[str] | None = None, lints: bool = True) -> list[Diagnostic]:
    """Validate a skill folder under a profile; returns the diagnostics as ``validate_text`` does.

    A missing folder, a path that is not a folder, a folder without SKILL.md
    (or skill.md), or a SKILL.md that cannot be read (over the size limit, a
    folder, a fifo, a link out of the folder, no permission) gives a single error
    in every profile, naming the file.
    """
    directory = skill_dir if isinstance(skill_dir, Path) else Path(skill_dir)
    st = _stat(directory)
    if st is None:
        if directory.is_symlink():
            return [err("S007", f"{printable(str(directory))}: {missing_path_reason(directory)}")]
        return [err("S007", f"Path does not exist: {directory}")]
    if not stat.S_ISDIR(st.st_mode):
        return [err("S007", f"Not a directory: {directory}")]
    data = _plain_skill_md(directory)
    if data is not None:
        skill_md = directory / "SKILL.md" if profile == "lenient" else None   # (only lenient names it)
    else:  # anything but a plain SKILL.md: the library's reader says what is wrong with it
        if not has_skill_md(directory):
            return [err("S005", MSG_MISSING_FILE)]
        try:
            skill_md, data = read_skill_md(directory)
        except SkillParseError as e:  # over the size limit: refused before it is read
            return [err("S006", f"SKILL.md is not readable: {e}", e.line)]
        except FolderError as e:
            return [err("S008", str(e))]
    folder_name = directory.name or directory.resolve().name
    if folder_name in ("..", "."):
        folder_name = directory.resolve().name
    contents, unread = _tool_file_contents(directory) if lints else ({}, [])
    # The files are listed for the link lint only.
    return validate_text(data, folder_name, profile, files=_skill_files(directory) if lints else None,
                         library_names=library_names, path=None if skill_md is None else str(skill_md),
                         lints=lints, file_contents=contents) + unread


_O_PLAIN = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


def _plain_skill_md(directory: Path) -> bytes | None:
    """The bytes of the folder's SKILL.md when it is a plain file within the size limit, read
    in one call (its size known from the open file), or None for anything else: no SKILL.md, a
    link, a fifo, a folder, over the limit, a size that changed while it was read. The library's
    ``read_skill_md`` reads those (it gives a plain file the same bytes, with more calls)."""
    try:
        fd = os.open(os.path.join(directory, "SKILL.md"), _O_PLAIN)
    except (OSError, ValueError):
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_SKILL_MD_BYTES:
            return None
        data = os.read(fd, st.st_size + 1)
        return data if len(data) == st.st_size else None
    except OSError:
        return None
    finally:
        os.close(fd)


def _tool_file_contents(skill_dir: Path) -> tuple[dict[str, bytes | str], list[Diagnostic]]:
    """The tool files of a skill folder by path, and a W008 for each one that is there but cannot
    be read (a link, a fifo, a folder, over the size limit)."""
    from skill_studio.core.format.tool_files import MAX_TOOL_FILE_BYTES, TOOL_FILES, unreadable

    out: dict[str, bytes | str] = {}
    unread: list[Diagnostic] = []
    for name in TOOL_FILES:
        path = skill_dir / name
        if not path.is_symlink() and not path.exists():
            continue
        try:
            out[name], _mode = read_bounded(path, MAX_TOOL_FILE_BYTES, what=name, follow_links=False,
                                            shown=name)
        except ReadRefused as e:
            unread.append(unreadable(name, str(e).removeprefix(f"{e.path}: ")).as_diagnostic())
    return out, unread
