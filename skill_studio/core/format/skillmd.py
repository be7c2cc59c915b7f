"""SKILL.md codec: split and parse the file without losing a byte."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.constructor import ConstructorError

from skill_studio.core.format.yaml_guard import YamlBoundError, check_bounds, disallowed_character

try:  # The C loader is several times faster; fall back to pure Python when absent.
    from yaml import CSafeLoader as _BaseLoader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _BaseLoader  # type: ignore[assignment]

MAX_SKILL_MD_BYTES = 5 * 1024 * 1024
#: Longest number the frontmatter may spell; longer ones cannot even be printed back.
MAX_NUMBER_CHARS = 1000


class SkillLoader(_BaseLoader):
    """The safe loader, reporting values it cannot hold (a date that is not one, a number too long to
    print, an explicit tag on text it does not fit) where they are written."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        if isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:int" \
                and len(node.value) > MAX_NUMBER_CHARS:
            raise ConstructorError(None, None, f"a number of {len(node.value):,} characters, over the "
                                   f"{MAX_NUMBER_CHARS:,} allowed (quote it to keep it as text)", node.start_mark)
        try:
            return super().construct_object(node, deep)
        except (ValueError, TypeError, KeyError, AttributeError, IndexError, OverflowError):
            kind = node.tag.rsplit(":", 1)[-1]
            shown = node.value if isinstance(node.value, str) else ""
            what = f"'{shown[:60]}' is not a valid {kind}" if shown else f"this value is not a valid {kind}"
            raise ConstructorError(None, None, f"{what} (quote it to keep it as text)", node.start_mark) from None

_FENCE = re.compile(r"---[ \t]*")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\n|\r)?")
# A line that is '---' by itself (trailing blanks allowed), searched from the start of a line.
_CLOSE_FENCE = re.compile(r"(?:(?<=\n)|(?<=\r))---[ \t]*(?:\r\n|\n|\r|\Z)")


class SkillParseError(ValueError):
    """A SKILL.md that cannot be read: names the file, the 1-based line and column."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None,
                 column: int | None = None, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line
        self.column = column
        self.hint = hint

    def __str__(self) -> str:
        where = self.path or "SKILL.md"
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        text = f"{where}: {self.message}"
        if self.hint:
            text += f" ({self.hint})"
        return text


@dataclass
class SkillDocument:
    """A SKILL.md split into its parts; ``text == prefix + open_fence + frontmatter_text + close_fence + body``."""

    text: str
    prefix: str
    open_fence: str
    frontmatter_text: str
    close_fence: str
    body: str
    data: dict[str, Any] = field(default_factory=dict)
    path: str | None = None
    node: Any = None  # the frontmatter's YAML node tree (with line marks), when parsed

    @property
    def head(self) -> str:
        """Everything before the body."""
        return self.prefix + self.open_fence + self.frontmatter_text + self.close_fence

    @property
    def frontmatter_line(self) -> int:
        """1-based line of SKILL.md where the frontmatter's first line sits."""
        return count_lines(self.prefix + self.open_fence) + 1

    @property
    def body_line(self) -> int:
        return count_lines(self.head) + 1

    @property
    def newline(self) -> str:
        m = re.search(r"\r\n|\n|\r", self.text)
        return m.group(0) if m else "\n"


def count_lines(text: str) -> int:
    """The number of line breaks in ``text`` (LF, CR or CRLF each count once)."""
    return text.count("\n") + text.count("\r") - text.count("\r\n")


def decode(data: bytes, path: str | None = None) -> str:
    """Decode SKILL.md bytes exactly (BOM kept as U+FEFF, line endings untouched).

    Raises SkillParseError for files over the size limit and invalid UTF-8.
    """
    if len(data) > MAX_SKILL_MD_BYTES:
        raise SkillParseError(
            f"file is {len(data):,} bytes, over the {MAX_SKILL_MD_BYTES:,}-byte limit for SKILL.md",
            path, 1, 1)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        before = data[: e.start]
        line = before.count(b"\n") + 1
        column = e.start - (before.rfind(b"\n") + 1) + 1
        raise SkillParseError(
            f"invalid UTF-8 (byte 0x{data[e.start]:02x}); SKILL.md must be UTF-8 text",
            path, line, column) from None


def check_encodable(text: str, path: str | None = None, first_line: int = 1) -> None:
    """Raise SkillParseError (with the line and column) when ``text`` holds a lone surrogate, which
    no UTF-8 file can hold (text decoded with ``surrogateescape`` from bytes that were not UTF-8)."""
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        before = text[: e.start]
        line = count_lines(before) + first_line
        column = e.start - max(before.rfind("\n"), before.rfind("\r"))
        raise SkillParseError(f"character U+{ord(text[e.start]):04X} (a lone surrogate) cannot be written as "
                              "UTF-8; SKILL.md must be UTF-8 text", path, line, column) from None


def split(text: str, path: str | None = None) -> SkillDocument:
    """Split SKILL.md text into prefix, fences, frontmatter and body without parsing YAML.

    Leading BOM and blank lines are tolerated (kept in ``prefix``). The closing
    fence is the first line that is ``---`` by itself (unlike the reference
    validator, which splits on ``---`` anywhere in the text; the format says
    the frontmatter ends at the next ``---`` line).
    Raises SkillParseError when there is no frontmatter or it is not closed, the
    text is over the size limit, or it holds a lone surrogate.
    """
    if len(text) > MAX_SKILL_MD_BYTES:
        raise SkillParseError(f"file is over the {MAX_SKILL_MD_BYTES:,}-byte limit for SKILL.md",
                              path, 1, 1)
    check_encodable(text, path)
    pos = 0
    if text.startswith("\ufeff"):
        pos = 1
    lines = _LINE.finditer(text, pos)
    open_start = open_end = None
    line_no = 0
    for m in lines:
        line_no += 1
        if m.start() == m.end():
            break
        raw = m.group(0).rstrip("\r\n")
        if not raw.strip():
            continue
        if _FENCE.fullmatch(raw):
            open_start, open_end = m.start(), m.end()
        break
    if open_start is None or open_end is None:   # (set together)
        raise SkillParseError("SKILL.md must start with YAML frontmatter (---)", path, max(line_no, 1), 1)
    fm_start = open_end
    if fm_start > open_start and text[fm_start - 1] in "\r\n":  # else the text ends on the fence
        close = _CLOSE_FENCE.search(text, fm_start)
        if close is not None:
            return SkillDocument(
                text=text, prefix=text[:open_start], open_fence=text[open_start:open_end],
                frontmatter_text=text[fm_start:close.start()], close_fence=close.group(0),
                body=text[close.end():], path=path)
    raise SkillParseError("SKILL.md frontmatter not properly closed with ---", path,
                          count_lines(text[:open_start]) + 1, 1)


def load_yaml(text: str, path: str | None = None, first_line: int = 1) -> Any:
    """Load frontmatter YAML with the ordinary (safe) parser; errors carry SKILL.md line numbers.

    Raises SkillParseError for YAML that cannot be read or is over the bounds of
    ``yaml_guard`` (nesting, number of values, alias expansion).
    """
    return _read(text, path, first_line, "get_single_data")


def compose_yaml(text: str, path: str | None = None, first_line: int = 1) -> yaml.Node | None:
    """The YAML node tree of frontmatter text (None when empty); raises SkillParseError as ``load_yaml``."""
    return _read(text, path, first_line, "get_single_node")


def _read(text: str, path: str | None, first_line: int, what: str) -> Any:
    loader = _guarded_loader(text, path, first_line)
    try:
        return getattr(loader, what)()
    except yaml.YAMLError as e:
        raise _yaml_error(e, text, path, first_line) from None
    finally:
        loader.dispose()


def _guarded_loader(text: str, path: str | None, first_line: int) -> SkillLoader:
    """A loader over ``text``, once the text is known to be within the bounds."""
    check_encodable(text, path, first_line)
    try:
        check_bounds(text)
    except YamlBoundError as e:
        raise SkillParseError(e.message, path, first_line + e.line, e.column + 1) from None
    try:
        return SkillLoader(text)
    except yaml.YAMLError as e:  # the pure-Python reader checks the characters up front
        raise _yaml_error(e, text, path, first_line) from None


def _yaml_error(e: yaml.YAMLError, text: str, path: str | None, first_line: int) -> SkillParseError:
    if isinstance(e, yaml.reader.ReaderError):
        # Its position counts characters or bytes depending on the reader: find the character.
        found = disallowed_character(text)
        if found is not None:
            char, line0, column0 = found
            return SkillParseError(f"invalid YAML in frontmatter: character U+{ord(char):04X} is not allowed "
                                   "in YAML (a control character or a non-character)", path,
                                   first_line + line0, column0 + 1, "remove it, or write it as an escape "
                                   "inside double quotes")
    mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
    problem = getattr(e, "problem", None) or str(e)
    context = getattr(e, "context", None)
    message = f"invalid YAML in frontmatter: {problem}"
    if context:
        message += f" ({context})"
    line = column = None
    hint = None
    if mark is not None:
        line = first_line + mark.line
        column = mark.column + 1
        if "mapping values are not allowed" in problem:
            hint, line = colon_hint(text, mark.line, first_line)
    return SkillParseError(message, path, line, column, hint)


_MAX_HINT_VALUE = 300


def colon_hint(text: str, bad_line: int, first_line: int) -> tuple[str | None, int]:
    """The common real mistake: an unquoted value holding ': '. Offer the quoted form.

    ``bad_line`` is 0-based in ``text``, whose first line is SKILL.md line ``first_line``.
    Returns the hint (None when the line is not that mistake) and the SKILL.md line.
    """
    lines = text.splitlines()
    if 0 <= bad_line < len(lines):
        m = re.match(r"^(\s*)([A-Za-z0-9_-]+):[ \t]+(.*\S)\s*$", lines[bad_line])
        if m and ": " in m.group(3) and m.group(3)[0] not in "\"'|>[{":
            if len(m.group(3)) > _MAX_HINT_VALUE:  # too long to repeat in a message
                return f"the value of '{m.group(2)[:60]}' holds ': ' unquoted; quote the whole value", \
                    first_line + bad_line
            fixed = f"{m.group(1)}{m.group(2)}: {quote_scalar_double(m.group(3))}"
            return f"the value holds ': ' unquoted; quote it: {fixed.strip()}", first_line + bad_line
    return None, first_line + bad_line


def parse_document(data: bytes | str, path: str | None = None) -> SkillDocument:
    """Parse SKILL.md (bytes or text) leniently: any YAML the ordinary parser accepts.

    Returns the split document with ``data`` holding the frontmatter mapping.
    Raises SkillParseError (file, line, column) for invalid UTF-8, oversize
    files, missing or unclosed frontmatter, unparseable YAML, YAML over the
    bounds of ``yaml_guard`` (nesting, number of values, alias expansion), or
    frontmatter that is not a mapping.
    """
    text = decode(bytes(data), path) if isinstance(data, (bytes, bytearray)) else data
    doc = split(text, path)
    first = doc.frontmatter_line
    loader = _guarded_loader(doc.frontmatter_text, path, first)
    try:
        node = loader.get_single_node()
        loaded = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as e:
        raise _yaml_error(e, doc.frontmatter_text, path, first) from None
    finally:
        loader.dispose()
    doc.node = node
    if loaded is None:
        loaded = {}
    if not isinstance(loaded, dict):
        raise SkillParseError("SKILL.md frontmatter must be a YAML mapping", path, first, 1)
    doc.data = {str(k): v for k, v in loaded.items()}
    return doc


_DQ_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}


def _yaml_printable(c: str) -> bool:
    """Characters YAML lets stand as themselves in a double-quoted scalar."""
    o = ord(c)
    return (0x20 <= o <= 0x7E or 0xA0 <= o <= 0xD7FF or 0xE000 <= o <= 0xFFFD or o >= 0x10000) \
        and c not in "\u2028\u2029\ufeff"


def quote_scalar_double(value: str) -> str:
    """A double-quoted YAML scalar that reads back as exactly ``value`` (any character)."""
    out = []
    for c in value:
        if c in _DQ_ESCAPES:
            out.append(_DQ_ESCAPES[c])
        elif _yaml_printable(c):
            out.append(c)
        elif ord(c) <= 0xFF:
            out.append(f"\\x{ord(c):02x}")
        elif ord(c) <= 0xFFFF:
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(f"\\U{ord(c):08x}")
    return '"' + "".join(out) + '"'
