"""The strict profile: the reference validator's frontmatter split, field rules and messages."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from skill_studio.core.format.diagnostics import Diagnostic, Parsed, err
from skill_studio.core.format.fields import STANDARD_KEYS
from skill_studio.core.format.skillmd import MAX_SKILL_MD_BYTES, SkillParseError, check_encodable, colon_hint, decode
from skill_studio.core.format.strict_yaml import DialectError, Where, load_strict

__all__ = [
    "ALLOWED_FIELDS", "MAX_COMPATIBILITY_LENGTH", "MAX_DESCRIPTION_LENGTH", "MAX_NAME_LENGTH", "MSG_INVALID_YAML",
    "MSG_MISSING_FILE", "MSG_NOT_CLOSED", "MSG_NOT_MAPPING", "MSG_NO_FRONTMATTER", "check_strict",
]

MAX_NAME_LENGTH = 64
MAX_DESCRIPTION_LENGTH = 1024
MAX_COMPATIBILITY_LENGTH = 500

ALLOWED_FIELDS = frozenset(STANDARD_KEYS)
_ALLOWED_SORTED = sorted(ALLOWED_FIELDS)

MSG_NO_FRONTMATTER = "SKILL.md must start with YAML frontmatter (---)"
MSG_NOT_CLOSED = "SKILL.md frontmatter not properly closed with ---"
MSG_NOT_MAPPING = "SKILL.md frontmatter must be a YAML mapping"
MSG_MISSING_FILE = "Missing required file: SKILL.md"
MSG_INVALID_YAML = "Invalid YAML in frontmatter: "

# A later line that is '---' by itself (trailing blanks allowed); the text's line ends are LF.
_CLOSE_FENCE = re.compile(r"(?<=\n)---[ \t]*(?:\n|\Z)")


def _close_fence(text: str, line_end: int) -> tuple[int, int]:
    """Where ``_CLOSE_FENCE`` first matches after the line ending at ``line_end`` (its LF), as
    (start, end), or (-1, -1); found with a few plain searches, where the pattern's look-behind
    makes the regular expression engine try every position."""
    at = text.find("\n---", line_end)
    while at >= 0:
        end = at + 4
        while end < len(text) and text[end] in " \t":
            end += 1
        if end == len(text):
            return at + 1, end
        if text[end] == "\n":
            return at + 1, end + 1
        at = text.find("\n---", at + 1)
    return -1, -1


def check_strict(raw: bytes | str, folder_name: str | None) -> tuple[list[Diagnostic], Parsed | None]:
    """The strict profile's diagnostics for SKILL.md content, and what it read (None when unsplit)."""
    if isinstance(raw, (bytes, bytearray)):
        try:
            text = decode(bytes(raw))
        except SkillParseError as e:
            at = f" (line {e.line}, column {e.column})" if e.message.startswith("invalid UTF-8") else ""
            return [err("S006", f"SKILL.md is not readable: {e.message}{at}", e.line)], None
    else:
        text = raw
        if len(text) > MAX_SKILL_MD_BYTES:
            return [err("S006", f"SKILL.md is not readable: it is over the {MAX_SKILL_MD_BYTES:,}-byte "
                                "limit", 1)], None
        try:
            check_encodable(text)
        except SkillParseError as e:
            return [err("S006", f"SKILL.md is not readable: {e.message} (line {e.line}, column {e.column})",
                        e.line)], None
    # The reference reads SKILL.md in text mode: universal newlines, no BOM removal.
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.startswith("---"):
        return [err("S001", MSG_NO_FRONTMATTER, 1)], None
    # The frontmatter runs from just after the opening '---' to the first later line
    # that is '---' by itself. (The reference splits on the first '---' anywhere,
    # even inside a value or the body; the format says the frontmatter ends at the
    # next '---' line, and that is what we follow.)
    first_end = text.find("\n")
    close_start = close_end = -1
    close_line = 0
    if first_end >= 0:
        close_start, close_end = _close_fence(text, first_end)
        if close_start >= 0:
            close_line = text.count("\n", 0, close_start) + 1
    if close_start < 0:
        return [err("S002", MSG_NOT_CLOSED, 1)], None
    fm_text = text[3:close_start]
    parsed = Parsed(body=text[close_end:], body_line=close_line + 1)
    try:
        # The YAML text starts on line 1, just after the opening '---'.
        data, key_lines, meta_lines = load_strict(fm_text, Where(1, 4))
    except DialectError as e:
        line = None if e.line is None else e.line + 1
        # The message is the reference's parser's own text; the hint is the studio's advice.
        hint = colon_hint(fm_text, e.line, 1)[0] if e.line is not None and "mapping values" in e.message \
            else None
        hint = hint or e.hint
        return [err("S003", MSG_INVALID_YAML + e.message, line, hint)], parsed
    if not isinstance(data, dict):
        return [err("S004", MSG_NOT_MAPPING, 2 if close_line > 2 else 1)], parsed
    parsed.data = data
    parsed.key_lines = {k: v + 1 for k, v in key_lines.items()}
    parsed.meta_lines = {k: v + 1 for k, v in meta_lines.items()}
    return _strict_fields(data, folder_name, parsed.key_lines), parsed


def _strict_fields(data: dict[str, Any], folder_name: str | None,
                   lines: dict[str, int]) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    extra = [k for k in data if k not in ALLOWED_FIELDS]
    if extra:
        out.append(err("S010", f"Unexpected fields in frontmatter: {', '.join(sorted(extra))}. "
                               f"Only {_ALLOWED_SORTED} are allowed.", lines.get(extra[0])))
    if "name" not in data:
        out.append(err("S011", "Missing required field in frontmatter: name", 1))
    else:
        out.extend(_strict_name(data["name"], folder_name, lines.get("name")))
    if "description" not in data:
        out.append(err("S012", "Missing required field in frontmatter: description", 1))
    else:
        line = lines.get("description")
        description = data["description"]
        if not description or not isinstance(description, str) or not description.strip():
            out.append(err("S020", "Field 'description' must be a non-empty string", line))
        elif len(description) > MAX_DESCRIPTION_LENGTH:
            out.append(err("S021", f"Description exceeds {MAX_DESCRIPTION_LENGTH} character limit "
                                   f"({len(description)} chars)", line))
    if "compatibility" in data:
        line = lines.get("compatibility")
        compatibility = data["compatibility"]
        if not isinstance(compatibility, str):
            out.append(err("S022", "Field 'compatibility' must be a string", line))
        elif len(compatibility) > MAX_COMPATIBILITY_LENGTH:
            out.append(err("S023", f"Compatibility exceeds {MAX_COMPATIBILITY_LENGTH} character limit "
                                   f"({len(compatibility)} chars)", line))
    return out


def _strict_name(value: Any, folder_name: str | None, line: int | None) -> list[Diagnostic]:
    if not value or not isinstance(value, str) or not value.strip():
        return [err("S013", "Field 'name' must be a non-empty string", line)]
    name = unicodedata.normalize("NFKC", value.strip())
    out: list[Diagnostic] = []
    if len(name) > MAX_NAME_LENGTH:
        out.append(err("S014", f"Skill name '{name}' exceeds {MAX_NAME_LENGTH} character limit "
                               f"({len(name)} chars)", line))
    if name != name.lower():
        out.append(err("S015", f"Skill name '{name}' must be lowercase", line))
    if name.startswith("-") or name.endswith("-"):
        out.append(err("S016", "Skill name cannot start or end with a hyphen", line))
    if "--" in name:
        out.append(err("S017", "Skill name cannot contain consecutive hyphens", line))
    if not all(c.isalnum() or c == "-" for c in name):
        out.append(err("S018", f"Skill name '{name}' contains invalid characters. "
                               "Only letters, digits, and hyphens are allowed.", line))
    if folder_name is not None and unicodedata.normalize("NFKC", folder_name) != name:
        out.append(err("S019", f"Directory name '{folder_name}' must match skill name '{name}'", line))
    return out
