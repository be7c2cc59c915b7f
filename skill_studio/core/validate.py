"""Skill validation: the strict, lenient and claude-upload profiles plus studio lints."""

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

from __future__ import annotations

import enum
import os
import posixpath
import re
import unicodedata
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import yaml

from .skillmd import (
    MAX_SKILL_MD_BYTES,
    STANDARD_KEYS,
    SkillParseError,
    decode,
    field_location,
    parse_document,
    quote_scalar_double,
    split,
    studio_fields,
)

PROFILES = ("strict", "lenient", "claude-upload")

MAX_NAME_LENGTH = 64
MAX_DESCRIPTION_LENGTH = 1024
MAX_COMPATIBILITY_LENGTH = 500
MAX_BODY_LINES = 500

_ALLOWED_FIELDS = frozenset(STANDARD_KEYS)
_ALLOWED_SORTED = sorted(_ALLOWED_FIELDS)

MSG_NO_FRONTMATTER = "SKILL.md must start with YAML frontmatter (---)"
MSG_NOT_CLOSED = "SKILL.md frontmatter not properly closed with ---"
MSG_NOT_MAPPING = "SKILL.md frontmatter must be a YAML mapping"
MSG_MISSING_FILE = "Missing required file: SKILL.md"
MSG_INVALID_YAML = "Invalid YAML in frontmatter: "


class Severity(str, enum.Enum):
    """How much a diagnostic matters: errors fail the profile, warnings and info do not."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class Diagnostic:
    """One finding: a stable code, its severity, a message, the 1-based SKILL.md line and a fix hint."""

    code: str
    severity: Severity
    message: str
    line: int | None = None
    hint: str | None = None


def errors(diags: Iterable[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics of severity error, in order."""
    return [d for d in diags if d.severity is Severity.ERROR]


def is_valid(diags: Iterable[Diagnostic]) -> bool:
    """True when no diagnostic is an error."""
    return not errors(diags)


def _err(code: str, message: str, line: int | None = None, hint: str | None = None) -> Diagnostic:
    return Diagnostic(code, Severity.ERROR, message, line, hint)


def _warn(code: str, message: str, line: int | None = None, hint: str | None = None) -> Diagnostic:
    return Diagnostic(code, Severity.WARNING, message, line, hint)


def _info(code: str, message: str, line: int | None = None, hint: str | None = None) -> Diagnostic:
    return Diagnostic(code, Severity.INFO, message, line, hint)


def _count_lines(text: str) -> int:
    return text.count("\n") + text.count("\r") - text.count("\r\n")


# --- the strict YAML dialect ---------------------------------------------------
#
# The reference reads frontmatter with StrictYAML (a YAML 1.2 reader built on a
# fork of ruamel.yaml, itself derived from PyYAML's pure-Python parser). We read
# the same dialect with PyYAML's pure-Python reader, scanner and parser (not the
# C parser, whose edge cases differ) and compose the node tree ourselves:
#   * flow collections ([..] / {..}), anchors, aliases and explicit tags are errors;
#   * every scalar is the string it spells (no null/bool/int/float/date typing),
#     so `name: 123` is "123", `name:` and `name: ~` are "" and "~";
#   * keys are compared as strings: duplicate keys are errors (`1` and `'1'` clash);
#   * a mapping's values that are block mappings must share one indentation;
#   * a plain '<<' or '=' value is not text there (a tagged object), so
#     `name: <<` is "not a non-empty string";
#   * merge keys (`<<`) behave as there: the value must be a mapping or a list of
#     mappings, a second `<<` is an error; merged keys are dropped from the
#     top-level mapping and filled into nested ones;
#   * YAML 1.2 reading, as the reference's parser does it: an empty key (a line
#     starting with ': ') is allowed; content after '...' is a second document
#     (an error); only LF and CR end a line for indentation purposes; a top-level
#     '|' or '>' scalar may be unindented; after a blank line, tabs before the
#     next token are skipped like spaces;
#   * a document that is not a mapping or a sequence (a plain scalar, nothing,
#     comments only) is read as text, hence "must be a YAML mapping".


class _DialectError(Exception):
    def __init__(self, message: str, line: int | None, column: int | None = None):
        super().__init__(message)
        self.message = message
        self.line = line        # 0-based, in the YAML text
        self.column = column    # 0-based


_BREAKS = "\r\n\x85\u2028\u2029"
_BREAKS_OR_END = _BREAKS + "\0"


class _DialectLoader(yaml.SafeLoader):
    """PyYAML's pure-Python reader, scanner and parser, adjusted to YAML 1.2 as the reference reads it."""

    def forward(self, length: int = 1) -> None:
        # YAML 1.2 positions: only LF and a lone CR end a line. NEL, LS and PS
        # still break scalars but do not reset the column, which decides
        # indentation (YAML 1.1 readers reset it).
        if self.pointer + length + 1 >= len(self.buffer):
            self.update(length + 1)
        for _ in range(length):
            ch = self.buffer[self.pointer]
            self.pointer += 1
            self.index += 1
            if ch == "\n" or (ch == "\r" and self.buffer[self.pointer] != "\n"):
                self.line += 1
                self.column = 0
            elif ch != "\ufeff":
                self.column += 1

    def scan_to_next_token(self) -> None:
        # Skip spaces, comments and line breaks as the reference's reader does:
        # once a line break is followed by an empty line, it also skips the tabs
        # and spaces that follow (so a tab can indent a line after a blank line).
        if self.index == 0 and self.peek() == "\ufeff":
            self.forward()
        while True:
            while self.peek() == " ":
                self.forward()
            if self.peek() == "#":
                while self.peek() not in _BREAKS_OR_END:
                    self.forward()
                while self.scan_line_break():
                    pass
                if not self.flow_level:
                    self.allow_simple_key = True
                continue
            if not self.scan_line_break():
                return
            if not self.flow_level:
                self.allow_simple_key = True
            if self.peek() == "\n":
                while True:
                    ch = self.peek()
                    if ch in _BREAKS:
                        self.scan_line_break()
                    elif ch in " \t":
                        self.forward()
                    else:
                        break

    def scan_block_scalar(self, style):
        # YAML 1.2: the content of a top-level block scalar may start in column 0;
        # it then runs to a '---' or '...' line or the end. (Only its extent
        # matters: a top-level scalar is never a valid frontmatter mapping.)
        if self.indent >= 0:
            return super().scan_block_scalar(style)
        saved = (self.pointer, self.index, self.line, self.column)
        start_mark = self.get_mark()
        self.forward()
        _, increment = self.scan_block_scalar_indicators(start_mark)
        self.scan_block_scalar_ignored_line(start_mark)
        if increment is None:
            _, max_indent, end_mark = self.scan_block_scalar_indentation()
            if max_indent == 0:
                chunks = []
                first = True
                while self.column == 0 and self.peek() != "\0":
                    if not first and self._at_document_marker():
                        break
                    first = False
                    length = 0
                    while self.peek(length) not in _BREAKS_OR_END:
                        length += 1
                    chunks.append(self.prefix(length))
                    self.forward(length)
                    chunks.append(self.scan_line_break())
                    _, end_mark = self.scan_block_scalar_breaks(0)
                return yaml.ScalarToken("".join(chunks), False, start_mark, end_mark, style)
        self.pointer, self.index, self.line, self.column = saved
        return super().scan_block_scalar(style)

    def _at_document_marker(self) -> bool:
        return self.column == 0 and self.prefix(3) in ("---", "...") and self.peek(3) in _BREAKS_OR_END + " \t"

    def parse_block_mapping_key(self):
        # YAML 1.2: a ':' with no key before it is a mapping entry with an empty key.
        if not self.check_token(yaml.KeyToken, yaml.BlockEndToken) and self.check_token(yaml.ValueToken):
            self.state = self.parse_block_mapping_value
            return self.process_empty_scalar(self.peek_token().start_mark)
        return super().parse_block_mapping_key()

    def parse_document_end(self):
        # YAML 1.2: after '...' any content starts another (implicit) document.
        event = super().parse_document_end()
        if self.state == self.parse_document_start:
            self.state = self.parse_implicit_document_start
        return event


@dataclass
class _Node:
    kind: str            # "scalar", "map" or "seq"
    line: int            # 0-based line of the node's start in the YAML text
    column: int
    value: Any = None    # str for scalars
    plain: bool = False  # a plain (unquoted) scalar
    items: list = field(default_factory=list)   # seq: [_Node]; map: [(_Node, _Node)]


class _Where:
    """Formats 0-based positions of the YAML text as SKILL.md positions."""

    def __init__(self, first_line: int = 1, first_column: int = 1):
        self.first_line = first_line      # SKILL.md line of the YAML text's first line
        self.first_column = first_column  # SKILL.md column of its first character

    def line(self, line0: int) -> int:
        return self.first_line + line0

    def __call__(self, line0: int, column0: int) -> str:
        column = column0 + (self.first_column if line0 == 0 else 1)
        return f"line {self.line(line0)}, column {column}"


def _check_event(event: yaml.Event, _where: _Where) -> None:
    mark = event.start_mark
    if isinstance(event, yaml.AliasEvent):
        raise _DialectError(f"alias '*{event.anchor}' at {_where(mark.line, mark.column)}: anchors and "
                            "aliases are not allowed (quote the value to keep it as text)",
                            mark.line, mark.column)
    anchor = getattr(event, "anchor", None)
    if anchor is not None:
        raise _DialectError(f"anchor '&{anchor}' at {_where(mark.line, mark.column)}: anchors are not "
                            "allowed (quote the value to keep it as text)", mark.line, mark.column)
    tag = getattr(event, "tag", None)
    if tag is not None:
        written = mark.buffer[mark.pointer:].split(None, 1)[0] if mark.buffer else tag
        raise _DialectError(f"explicit tag '{written}' at {_where(mark.line, mark.column)}: tags are not "
                            "allowed (do not give types in the markup; quote the value to keep it as "
                            "text)", mark.line, mark.column)
    if getattr(event, "flow_style", False):
        kind = "list [...]" if isinstance(event, yaml.SequenceStartEvent) else "mapping {...}"
        raise _DialectError(f"flow-style {kind} at {_where(mark.line, mark.column)} is not allowed "
                            "(write it in block style, or quote the value to keep it as text)",
                            mark.line, mark.column)


def _compose_strict(text: str, _where: _Where) -> _Node | None:
    """The node tree of one YAML document in the strict dialect (None when there is none)."""
    loader = _DialectLoader(text)
    try:
        def next_event() -> yaml.Event:
            event = loader.get_event()
            _check_event(event, _where)
            return event

        def compose(event: yaml.Event) -> _Node:
            mark = event.start_mark
            if isinstance(event, yaml.ScalarEvent):
                return _Node("scalar", mark.line, mark.column, event.value, plain=event.style is None)
            if isinstance(event, yaml.SequenceStartEvent):
                node = _Node("seq", mark.line, mark.column)
                while True:
                    child = next_event()
                    if isinstance(child, yaml.SequenceEndEvent):
                        return node
                    node.items.append(compose(child))
            if isinstance(event, yaml.MappingStartEvent):
                node = _Node("map", mark.line, mark.column)
                while True:
                    key = next_event()
                    if isinstance(key, yaml.MappingEndEvent):
                        return node
                    key_node = compose(key)
                    node.items.append((key_node, compose(next_event())))
            raise _DialectError(f"unexpected {type(event).__name__} at {_where(mark.line, mark.column)}",
                                mark.line, mark.column)  # pragma: no cover - the parser prevents it

        next_event()  # StreamStart
        event = next_event()
        if isinstance(event, yaml.StreamEndEvent):
            return None
        root = compose(next_event())  # after DocumentStart
        next_event()  # DocumentEnd
        event = next_event()
        if not isinstance(event, yaml.StreamEndEvent):
            mark = event.start_mark
            raise _DialectError(f"a second YAML document starts at {_where(mark.line, mark.column)}; "
                                "the frontmatter must be one document", mark.line, mark.column)
        return root
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        problem = e.problem or e.context or "cannot parse"
        message = problem
        if e.context and e.problem:
            message = f"{e.problem} ({e.context})"
        if mark is not None:
            message += f" at {_where(mark.line, mark.column)}"
            raise _DialectError(message, mark.line, mark.column) from None
        raise _DialectError(message, None) from None
    except yaml.reader.ReaderError as e:
        before = text[: e.position]
        line = _count_lines(before)
        column = e.position - max(before.rfind("\n"), before.rfind("\r")) - 1
        raise _DialectError(f"character {e.character!r} (U+{ord(e.character):04X}) is not allowed in "
                            f"YAML at {_where(line, column)}", line, column) from None
    finally:
        loader.dispose()


def _check_mappings(root: _Node, _where: _Where) -> None:
    """Merge keys, duplicate keys and indentation, mapping by mapping, outermost first."""
    queue = [root]
    while queue:
        next_level: list[_Node] = []
        for node in queue:
            if node.kind == "seq":
                next_level.extend(node.items)
                continue
            if node.kind != "map":
                continue
            merged = False
            seen: set[str] = set()
            for key, value in node.items:
                next_level.extend((key, value))
                if key.kind == "scalar" and key.plain and key.value == "<<":
                    if merged:
                        raise _DialectError(f"second merge key '<<' at {_where(key.line, key.column)}",
                                            key.line, key.column)
                    merged = True
                    sources = value.items if value.kind == "seq" else [value]
                    for src in sources:
                        if src.kind != "map":
                            raise _DialectError(
                                f"the merge key '<<' at {_where(key.line, key.column)} needs a mapping "
                                f"or a list of mappings, found a {_KIND_NAMES[src.kind]} at "
                                f"{_where(src.line, src.column)}", src.line, src.column)
                    continue
                if key.kind != "scalar":
                    raise _DialectError(f"a {_KIND_NAMES[key.kind]} cannot be a mapping key "
                                        f"({_where(key.line, key.column)})", key.line, key.column)
                if key.value in seen:
                    raise _DialectError(f"duplicate key '{key.value}' at {_where(key.line, key.column)}",
                                        key.line, key.column)
                seen.add(key.value)
            first: _Node | None = None
            for key, value in node.items:
                if value.kind != "map" or (key.kind == "scalar" and key.plain and key.value == "<<"):
                    continue
                if first is None:
                    first = value
                elif value.column != first.column:
                    raise _DialectError(
                        f"the mapping at {_where(value.line, value.column)} is indented differently "
                        f"from the mapping at {_where(first.line, first.column)}; the values of one "
                        "mapping must share one indentation",
                        value.line, value.column)
        queue = next_level


_KIND_NAMES = {"scalar": "scalar", "map": "mapping", "seq": "list"}


class _TaggedScalar:
    """A plain '<<' or '=' used as a value: the reference reads these as tagged objects, not text."""

    def __init__(self, text: str):
        self.text = text

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"_TaggedScalar({self.text!r})"


def _to_data(node: _Node, top: bool = False) -> Any:
    if node.kind == "scalar":
        if node.plain and node.value in ("<<", "="):
            return _TaggedScalar(node.value)
        return node.value
    if node.kind == "seq":
        return [_to_data(item) for item in node.items]
    out: dict[str, Any] = {}
    merges: list[_Node] = []
    for key, value in node.items:
        if key.kind == "scalar" and key.plain and key.value == "<<":
            merges.extend(value.items if value.kind == "seq" else [value])
            continue
        out[key.value] = _to_data(value)
    if not top:
        for src in merges:
            for k, v in _to_data(src).items():
                out.setdefault(k, v)
    return out


def _strict_yaml(text: str, where: _Where) -> tuple[Any, dict[str, int], dict[str, int]]:
    """Frontmatter data in the strict dialect, with 0-based key lines (top level and metadata).

    Raises _DialectError; its message gives positions as ``where`` formats them.
    """
    root = _compose_strict(text, where)
    if root is None or root.kind == "scalar":
        return text, {}, {}
    _check_mappings(root, where)
    if root.kind == "seq":
        return _to_data(root), {}, {}
    lines: dict[str, int] = {}
    meta_lines: dict[str, int] = {}
    for key, value in root.items:
        if key.kind == "scalar" and not (key.plain and key.value == "<<"):
            lines.setdefault(key.value, key.line)
            if key.value == "metadata" and value.kind == "map":
                for k2, _ in value.items:
                    if k2.kind == "scalar":
                        meta_lines.setdefault(k2.value, k2.line)
    return _to_data(root, top=True), lines, meta_lines


# --- strict ----------------------------------------------------------------------

_CLOSE_FENCE = re.compile(r"---[ \t]*")
_LINE_RE = re.compile(r"[^\n]*\n?")


@dataclass
class _Parsed:
    data: dict[str, Any] | None = None
    key_lines: dict[str, int] = field(default_factory=dict)    # 1-based SKILL.md lines
    meta_lines: dict[str, int] = field(default_factory=dict)
    body: str | None = None
    body_line: int = 1


def _colon_hint(text: str, line0: int) -> str | None:
    """For an unquoted value holding ': ', the quoted form of that line."""
    lines = text.splitlines()
    if 0 <= line0 < len(lines):
        m = re.match(r"^(\s*)([A-Za-z0-9_-]+):[ \t]+(.*\S)\s*$", lines[line0])
        if m and ": " in m.group(3) and m.group(3)[0] not in "\"'|>[{":
            return f"the value holds ': ' unquoted; quote it: {m.group(2)}: {quote_scalar_double(m.group(3))}"
    return None


def _strict(raw: bytes | str, folder_name: str | None) -> tuple[list[Diagnostic], _Parsed | None]:
    if isinstance(raw, (bytes, bytearray)):
        try:
            text = decode(bytes(raw))
        except SkillParseError as e:
            return [_err("S006", f"SKILL.md is not readable: {e.message}", e.line)], None
    else:
        text = raw
        if len(text) > MAX_SKILL_MD_BYTES:
            return [_err("S006", f"SKILL.md is not readable: it is over the {MAX_SKILL_MD_BYTES:,}-byte "
                                 "limit", 1)], None
    # The reference reads SKILL.md in text mode: universal newlines, no BOM removal.
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.startswith("---"):
        return [_err("S001", MSG_NO_FRONTMATTER, 1)], None
    # The frontmatter runs from just after the opening '---' to the first later line
    # that is '---' by itself. (The reference splits on the first '---' anywhere,
    # even inside a value or the body; the format says the frontmatter ends at the
    # next '---' line, and that is what we follow.)
    first_end = text.find("\n")
    close_start = close_end = -1
    close_line = 0
    if first_end >= 0:
        pos = first_end + 1
        line_no = 2
        for m in _LINE_RE.finditer(text, pos):
            if m.start() == m.end():
                break
            if _CLOSE_FENCE.fullmatch(m.group(0).rstrip("\n")):
                close_start, close_end, close_line = m.start(), m.end(), line_no
                break
            line_no += 1
    if close_start < 0:
        return [_err("S002", MSG_NOT_CLOSED, 1)], None
    fm_text = text[3:close_start]
    parsed = _Parsed(body=text[close_end:], body_line=close_line + 1)
    try:
        # The YAML text starts on line 1, just after the opening '---'.
        data, key_lines, meta_lines = _strict_yaml(fm_text, _Where(1, 4))
    except _DialectError as e:
        line = None if e.line is None else e.line + 1
        hint = _colon_hint(fm_text, e.line) if e.line is not None and "mapping values" in e.message \
            else None
        return [_err("S003", MSG_INVALID_YAML + e.message, line, hint)], parsed
    if not isinstance(data, dict):
        return [_err("S004", MSG_NOT_MAPPING, 2 if close_line > 2 else 1)], parsed
    parsed.data = data
    parsed.key_lines = {k: v + 1 for k, v in key_lines.items()}
    parsed.meta_lines = {k: v + 1 for k, v in meta_lines.items()}
    return _strict_fields(data, folder_name, parsed.key_lines), parsed


def _strict_fields(data: dict[str, Any], folder_name: str | None,
                   lines: dict[str, int]) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    extra = [k for k in data if k not in _ALLOWED_FIELDS]
    if extra:
        out.append(_err("S010", f"Unexpected fields in frontmatter: {', '.join(sorted(extra))}. "
                                f"Only {_ALLOWED_SORTED} are allowed.", lines.get(extra[0])))
    if "name" not in data:
        out.append(_err("S011", "Missing required field in frontmatter: name", 1))
    else:
        out.extend(_strict_name(data["name"], folder_name, lines.get("name")))
    if "description" not in data:
        out.append(_err("S012", "Missing required field in frontmatter: description", 1))
    else:
        line = lines.get("description")
        description = data["description"]
        if not description or not isinstance(description, str) or not description.strip():
            out.append(_err("S020", "Field 'description' must be a non-empty string", line))
        elif len(description) > MAX_DESCRIPTION_LENGTH:
            out.append(_err("S021", f"Description exceeds {MAX_DESCRIPTION_LENGTH} character limit "
                                    f"({len(description)} chars)", line))
    if "compatibility" in data:
        line = lines.get("compatibility")
        compatibility = data["compatibility"]
        if not isinstance(compatibility, str):
            out.append(_err("S022", "Field 'compatibility' must be a string", line))
        elif len(compatibility) > MAX_COMPATIBILITY_LENGTH:
            out.append(_err("S023", f"Compatibility exceeds {MAX_COMPATIBILITY_LENGTH} character limit "
                                    f"({len(compatibility)} chars)", line))
    return out


def _strict_name(value: Any, folder_name: str | None, line: int | None) -> list[Diagnostic]:
    if not value or not isinstance(value, str) or not value.strip():
        return [_err("S013", "Field 'name' must be a non-empty string", line)]
    name = unicodedata.normalize("NFKC", value.strip())
    out: list[Diagnostic] = []
    if len(name) > MAX_NAME_LENGTH:
        out.append(_err("S014", f"Skill name '{name}' exceeds {MAX_NAME_LENGTH} character limit "
                                f"({len(name)} chars)", line))
    if name != name.lower():
        out.append(_err("S015", f"Skill name '{name}' must be lowercase", line))
    if name.startswith("-") or name.endswith("-"):
        out.append(_err("S016", "Skill name cannot start or end with a hyphen", line))
    if "--" in name:
        out.append(_err("S017", "Skill name cannot contain consecutive hyphens", line))
    if not all(c.isalnum() or c == "-" for c in name):
        out.append(_err("S018", f"Skill name '{name}' contains invalid characters. "
                                "Only letters, digits, and hyphens are allowed.", line))
    if folder_name is not None and unicodedata.normalize("NFKC", folder_name) != name:
        out.append(_err("S019", f"Directory name '{folder_name}' must match skill name '{name}'", line))
    return out


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
                out.append(_err("C001", f"Skill name '{norm}' must not contain the reserved word "
                                        f"'{word}'", lines.get("name")))
        if _XML_TAG.search(norm):
            out.append(_err("C002", f"Skill name '{norm}' must not contain XML tags", lines.get("name")))
    description = data.get("description")
    if isinstance(description, str):
        m = _XML_TAG.search(description)
        if m:
            out.append(_err("C003", f"Description must not contain XML tags (found '{m.group(0)}')",
                            lines.get("description"),
                            "write the text without angle brackets, or describe the tag in words"))
    return out


# --- lenient -------------------------------------------------------------------------

_PARSE_CODES = {
    MSG_NO_FRONTMATTER: "L001",
    MSG_NOT_CLOSED: "L002",
    MSG_NOT_MAPPING: "L004",
}


def _suggest_name(name: str) -> str:
    slug = re.sub(r"[^\w]+|_", "-", unicodedata.normalize("NFKC", name).lower()).strip("-")
    return re.sub(r"-{2,}", "-", slug)[:MAX_NAME_LENGTH].strip("-")


def _key_lines(fm_text: str, first_line: int) -> tuple[dict[str, int], dict[str, int], list[tuple[str, int]]]:
    """Lines of the top-level and metadata keys, and the repeated keys (dotted) with their lines."""
    try:
        root = yaml.compose(fm_text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return {}, {}, []
    lines: dict[str, int] = {}
    meta: dict[str, int] = {}
    repeated: list[tuple[str, int]] = []

    def collect(node: yaml.MappingNode, into: dict[str, int], prefix: str) -> None:
        for k, _ in node.value:
            if isinstance(k, yaml.ScalarNode):
                line = first_line + k.start_mark.line
                if k.value in into:
                    repeated.append((prefix + k.value, line))
                into.setdefault(k.value, line)

    if isinstance(root, yaml.MappingNode):
        collect(root, lines, "")
        for k, v in root.value:
            if isinstance(k, yaml.ScalarNode) and k.value == "metadata" and isinstance(v, yaml.MappingNode):
                collect(v, meta, "metadata.")
    return lines, meta, repeated


def _lenient(raw: bytes | str, folder_name: str | None,
             path: str | None) -> tuple[list[Diagnostic], _Parsed | None]:
    where = path or "SKILL.md"
    try:
        text = decode(bytes(raw), path) if isinstance(raw, (bytes, bytearray)) else raw
        doc = parse_document(text, path)
    except SkillParseError as e:
        code = _PARSE_CODES.get(e.message)
        if code is None:
            code = "L003" if e.message.lower().startswith("invalid yaml") else "L005"
        loc = where
        if e.line is not None:
            loc += f":{e.line}"
            if e.column is not None:
                loc += f":{e.column}"
        parsed = None
        if code in ("L003", "L004"):
            try:
                d = split(text, path)
                parsed = _Parsed(body=d.body, body_line=d.body_line)
            except SkillParseError:  # pragma: no cover - parse_document split it already
                parsed = None
        return [_err(code, f"{loc}: {e.message}", e.line, e.hint)], parsed

    data = doc.data
    lines, meta_lines, repeated = _key_lines(doc.frontmatter_text, doc.frontmatter_line)
    fence_line = doc.frontmatter_line - 1
    parsed = _Parsed(data=data, key_lines=lines, meta_lines=meta_lines, body=doc.body,
                     body_line=doc.body_line)
    out: list[Diagnostic] = []
    if doc.prefix:
        what = "a byte-order mark" if doc.prefix.startswith("\ufeff") and not doc.prefix[1:] else (
            "a byte-order mark and blank lines" if doc.prefix.startswith("\ufeff") else "blank lines")
        out.append(_warn("L008", f"{what} before the opening '---'; the strict profile refuses the file",
                         1, "start the file with '---' on its first line"))
    for key, line in repeated:
        out.append(_warn("L009", f"key '{key}' appears more than once; the last value is used", line,
                         "remove the old line"))

    # name
    name_line = lines.get("name")
    value = data.get("name")
    name: str | None = None
    if value is None or (isinstance(value, str) and not value.strip()):
        used = f"; the folder name '{folder_name}' is used" if folder_name else ""
        what = "has no name" if "name" not in data else "has an empty name"
        out.append(_warn("L010", f"the frontmatter {what}{used}", name_line or fence_line,
                         f"add name: {folder_name}" if folder_name else None))
    elif isinstance(value, (dict, list)):
        used = f"; the folder name '{folder_name}' is used" if folder_name else ""
        out.append(_warn("L011", f"name is not text{used}", name_line))
    else:
        if not isinstance(value, str):
            out.append(_warn("L011", f"name is not text; it is read as '{value}'", name_line,
                             f"quote it: name: {quote_scalar_double(str(value))}"))
        name = unicodedata.normalize("NFKC", str(value).strip())
        if isinstance(value, str) and value != name:
            changes = []
            if value != value.strip():
                changes.append("its surrounding spaces are ignored")
            if value.strip() != name:
                changes.append("it is read in NFKC form")
            out.append(_info("L019", f"name {value!r} is read as '{name}': {' and '.join(changes)}",
                             name_line, f"name: {name}"))
    if name is not None:
        if len(name) > MAX_NAME_LENGTH:
            out.append(_warn("L012", f"name '{name}' is {len(name)} characters, over the "
                                     f"{MAX_NAME_LENGTH}-character limit", name_line))
        problems = []
        if name != name.lower():
            problems.append("uppercase letters")
        if any(c.isspace() for c in name):
            problems.append("spaces")
        if "_" in name:
            problems.append("underscores")
        if any(not (c.isalnum() or c in "-_" or c.isspace()) for c in name):
            problems.append("other characters than letters, digits and hyphens")
        if name.startswith("-") or name.endswith("-"):
            problems.append("a leading or trailing hyphen")
        if "--" in name:
            problems.append("consecutive hyphens")
        if problems:
            suggestion = _suggest_name(name)
            out.append(_warn("L013", f"name '{name}' has {', '.join(problems)}; the strict "
                                     "format wants lowercase letters, digits and single hyphens",
                             name_line, f"name: {suggestion}" if suggestion else None))
        if folder_name is not None and unicodedata.normalize("NFKC", folder_name) != name:
            out.append(_warn("L014", f"name '{name}' differs from its folder '{folder_name}'",
                             name_line, "rename the folder or the skill so that they match"))

    # description
    desc_line = lines.get("description")
    if "description" not in data:
        out.append(_err("L006", f"{where}:{fence_line}: the frontmatter has no description; agents "
                                "cannot tell when to use the skill", fence_line,
                        "add description: <what the skill does and when to use it>"))
    else:
        desc = data["description"]
        if desc is None or (isinstance(desc, str) and not desc.strip()):
            out.append(_err("L007", f"{where}:{desc_line}: description is empty", desc_line,
                            "say what the skill does and when to use it"))
        elif isinstance(desc, (dict, list)):
            out.append(_err("L007", f"{where}:{desc_line}: description must be text, not a "
                                    f"{'mapping' if isinstance(desc, dict) else 'list'}", desc_line,
                            "quote the whole description"))
        else:
            if not isinstance(desc, str):
                out.append(_warn("L015", f"description is not text; it is read as '{desc}'",
                                 desc_line))
            text_desc = str(desc)
            if len(text_desc) > MAX_DESCRIPTION_LENGTH:
                out.append(_warn("L016", f"description is {len(text_desc)} characters, over "
                                         f"the {MAX_DESCRIPTION_LENGTH}-character limit", desc_line))

    # compatibility, metadata
    if "compatibility" in data:
        comp = data["compatibility"]
        line = lines.get("compatibility")
        if not isinstance(comp, str):
            out.append(_warn("L017", "compatibility is not text", line))
        elif len(comp) > MAX_COMPATIBILITY_LENGTH:
            out.append(_warn("L017", f"compatibility is {len(comp)} characters, over the "
                                     f"{MAX_COMPATIBILITY_LENGTH}-character limit", line))
    if "metadata" in data:
        meta = data["metadata"]
        if not isinstance(meta, dict) or any(not isinstance(v, str) for v in meta.values()):
            out.append(_warn("L018", f"metadata should be a map of strings; the strict "
                                     "reader turns its values into text", lines.get("metadata")))

    unknown = [k for k in data if k not in _ALLOWED_FIELDS]
    if unknown:
        out.append(_info("L020", f"keys outside the standard set are kept: "
                                 f"{', '.join(unknown)}", lines.get(unknown[0])))
    return out, parsed


# --- studio lints ----------------------------------------------------------------------

_FENCE_RE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
_MD_LINK = re.compile(
    r"!?\[(?:[^\[\]\n]|\[[^\]\n]*\])*\]\(\s*(<[^>\n]*>|[^)\s]+)(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^)\n]*\)))?\s*\)")
_REF_DEF = re.compile(r"^[ \t]{0,3}\[[^\]\n]+\]:[ \t]*(<[^>\n]*>|\S+)", re.MULTILINE)
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_SCRIPTS = re.compile(r"scripts/[^\s`'\"()\[\]<>{}*,;|]*")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://\S+")
_WHEN = re.compile(
    r"\b(use|uses|used|using|usage|when|whenever|if|for|trigger|triggers|triggered|invoke|invoked|"
    r"before|after|during|while|whether|need|needs|needed|ask|asks|asked|want|wants|request|"
    r"requests|requested|mention|mentions|mentioned|working|handling|dealing)\b")


def _prose_mask(body: str) -> str:
    """The body with fenced code blocks and inline code spans blanked (offsets kept)."""
    out = []
    fence: str | None = None
    for line in body.splitlines(keepends=True):
        m = _FENCE_RE.match(line)
        if fence is None and m:
            fence = m.group(1)[0] * len(m.group(1))
            out.append(" " * len(line.rstrip("\r\n")) + line[len(line.rstrip("\r\n")):])
            continue
        if fence is not None:
            if m and m.group(1).startswith(fence) and not line.strip().strip(fence[0]):
                fence = None
            out.append(" " * len(line.rstrip("\r\n")) + line[len(line.rstrip("\r\n")):])
            continue
        out.append(_CODE_SPAN.sub(lambda c: " " * len(c.group(0)), line))
    return "".join(out)


def _normalise_target(target: str) -> str | None:
    """A link target as a path inside the skill, or None when it is not one to check."""
    target = target.strip()
    if target.startswith("<") and target.endswith(">"):
        target = target[1:-1].strip()
    if not target or target.startswith(("#", "/", "~", "\\")) or _SCHEME.match(target):
        return None
    target = target.split("#", 1)[0].split("?", 1)[0]
    if not target:
        return None
    target = unquote(target).replace("\\", "/")
    if any(c in target for c in "{}<>$*"):
        return None
    norm = posixpath.normpath(target)
    if norm in (".", "") or norm == ".." or norm.startswith("../"):
        return None
    return norm


def _file_index(files: Collection[str]) -> tuple[set[str], set[str]]:
    paths = set()
    dirs = set()
    for f in files:
        p = posixpath.normpath(str(f).replace("\\", "/")).lstrip("/")
        if p.startswith("./"):
            p = p[2:]
        paths.add(p)
        parts = p.split("/")
        for i in range(1, len(parts)):
            dirs.add("/".join(parts[:i]))
    return paths, dirs


def _scripts_mentions(body: str) -> Iterable[tuple[int, str]]:
    cleaned = _URL.sub(lambda m: " " * len(m.group(0)), body)
    for m in _SCRIPTS.finditer(cleaned):
        start = m.start()
        before = cleaned[start - 1] if start else ""
        if before and (before.isalnum() or before in "_.-"):
            continue
        if before == "/":
            # Only paths rooted at the skill: './scripts/x', '{baseDir}/scripts/x', '$DIR/scripts/x'.
            token = re.split(r"[\s`'\"(=]", cleaned[:start - 1])[-1]
            if token not in (".",) and not re.search(r"[}$]", token) and not token.endswith("}"):
                continue
        path = m.group(0).rstrip(".,:;/!?")
        yield start, path


def _lint_body(body: str, body_line: int, files: Collection[str] | None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    n_lines = _count_lines(body) + (1 if body and not body.endswith(("\n", "\r")) else 0)
    if n_lines > MAX_BODY_LINES:
        out.append(_warn("W001", f"the body is {n_lines} lines, over the {MAX_BODY_LINES} that agents "
                                 "load comfortably", body_line,
                         "move detail into referenced files (one level deep)"))
    if files is None:
        return out
    paths, dirs = _file_index(files)
    found: dict[str, int] = {}
    prose = _prose_mask(body)
    for rx in (_MD_LINK, _REF_DEF):
        for m in rx.finditer(prose):
            target = _normalise_target(body[m.start(1):m.end(1)])
            if target is not None:
                found.setdefault(target, m.start(1))
    for pos, path in _scripts_mentions(body):
        norm = posixpath.normpath(path)
        found.setdefault(norm, pos)
    for target, pos in sorted(found.items(), key=lambda kv: kv[1]):
        if target in paths or target in dirs:
            continue
        line = body_line + _count_lines(body[:pos])
        out.append(_warn("W002", f"'{target}' is referenced in the body but the skill has no such file",
                         line, "add the file, or fix the path (relative to the skill folder)"))
    return out


def _fold(name: str) -> str:
    return re.sub(r"[\s_]+", "-", unicodedata.normalize("NFKC", name).strip().casefold())


def _lint_data(parsed: _Parsed, folder_name: str | None,
               library_names: Collection[str] | None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    data = parsed.data or {}
    lines = parsed.key_lines
    desc = data.get("description")
    if isinstance(desc, str) and desc.strip():
        letters = [c for c in desc if c.isalpha()]
        ascii_share = sum(c.isascii() for c in letters) / len(letters) if letters else 0
        if ascii_share >= 0.5 and not _WHEN.search(desc.casefold()):
            out.append(_info("W003", "the description says what the skill does but not when to use it",
                             lines.get("description"),
                             "add a sentence such as 'Use when ...' so agents know when to load it"))
    if library_names is None:
        return out
    value = data.get("name")
    own = unicodedata.normalize("NFKC", value.strip()) if isinstance(value, str) and value.strip() \
        else folder_name
    library = [n for n in library_names if isinstance(n, str)]
    names = set(library)
    itself = {own, folder_name} - {None}
    if own:
        key = _fold(own)
        similar = sorted({n for n in library if n not in itself and _fold(n) == key})
        if similar:
            out.append(_warn("W004", f"'{own}' nearly duplicates {', '.join(repr(s) for s in similar)} in "
                                     "the library (same name once case and '_' are folded)",
                             lines.get("name"), "rename one of them, or merge the skills"))
    folded: dict[str, str] = {}
    for n in library:
        folded.setdefault(_fold(n), n)
    fields = studio_fields(data)
    checks = (("depends_on", "W005", "depends on", _warn),
              ("conflicts_with", "W006", "conflicts with", _info),
              ("parent_skill_id", "W007", "names as its parent", _warn))
    for field_name, code, verb, make in checks:
        value = fields.get(field_name)
        targets = value if isinstance(value, list) else ([value] if value else [])
        loc = field_location(data, field_name)
        line = None
        if loc is not None:
            line = lines.get(loc[1]) if loc[0] is None else (parsed.meta_lines.get(loc[1])
                                                              or lines.get("metadata"))
        for target in targets:
            if target in names or target in itself:
                continue
            near = folded.get(_fold(target))
            out.append(make(code, f"the skill {verb} '{target}', which is not in the library", line,
                            f"did you mean '{near}'?" if near else None))
    return out


# --- entry points --------------------------------------------------------------------------


def validate_text(data: bytes | str, folder_name: str | None, profile: str = "strict", *,
                  files: Collection[str] | None = None, library_names: Collection[str] | None = None,
                  path: str | None = None, lints: bool = True) -> list[Diagnostic]:
    """Validate SKILL.md content (bytes as stored, or text) under a profile.

    Returns the diagnostics in order: the profile's own (strict ones in the
    reference validator's order), then, when ``lints`` is true, the studio lints
    (warnings and information only). ``folder_name`` is the skill folder's name
    (None skips the folder checks); ``files`` the skill's file paths relative to
    its folder (enables the link lint); ``library_names`` the names of the
    library's skills (enables the duplicate-name and studio-field lints).
    """
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; expected one of {', '.join(PROFILES)}")
    if profile == "lenient":
        diags, parsed = _lenient(data, folder_name, path)
    else:
        diags, parsed = _strict(data, folder_name)
        if profile == "claude-upload" and parsed is not None and parsed.data is not None:
            diags.extend(_claude_upload(parsed.data, parsed.key_lines))
    if lints and parsed is not None:
        if parsed.body is not None:
            diags.extend(_lint_body(parsed.body, parsed.body_line, files))
        if parsed.data is not None:
            diags.extend(_lint_data(parsed, folder_name, library_names))
    return diags


_SKIP_DIRS = frozenset({".git", "node_modules", "__pycache__"})


def _skill_files(skill_dir: Path) -> list[str]:
    out: list[str] = []
    for root, dirs, names in os.walk(skill_dir):
        dirs[:] = [d for d in dirs if d not in _SKIP_DIRS]
        rel = Path(root).relative_to(skill_dir)
        for n in names:
            out.append((rel / n).as_posix())
    return out


def find_skill_md(skill_dir: str | os.PathLike[str]) -> Path | None:
    """The skill's SKILL.md (or skill.md) path, or None when it has neither."""
    for name in ("SKILL.md", "skill.md"):
        candidate = Path(skill_dir) / name
        if candidate.is_file():
            return candidate
    return None


def validate_dir(skill_dir: str | os.PathLike[str], profile: str = "strict", *,
                 library_names: Collection[str] | None = None, lints: bool = True) -> list[Diagnostic]:
    """Validate a skill folder under a profile; returns the diagnostics as ``validate_text`` does.

    A missing folder, a path that is not a folder, or a folder without SKILL.md
    (or skill.md) gives a single error in every profile.
    """
    directory = Path(skill_dir)
    if not directory.exists():
        return [_err("S007", f"Path does not exist: {directory}")]
    if not directory.is_dir():
        return [_err("S007", f"Not a directory: {directory}")]
    skill_md = find_skill_md(directory)
    if skill_md is None:
        return [_err("S005", MSG_MISSING_FILE)]
    folder_name = directory.name or directory.resolve().name
    if folder_name in ("..", "."):
        folder_name = directory.resolve().name
    return validate_text(skill_md.read_bytes(), folder_name, profile, files=_skill_files(directory),
                         library_names=library_names, path=str(skill_md), lints=lints)
