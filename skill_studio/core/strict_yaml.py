"""The reference validator's strict YAML dialect, read from PyYAML's parser events."""

# The reference reads frontmatter with StrictYAML (built on a fork of ruamel.yaml,
# itself derived from PyYAML's pure-Python parser). The pure-Python parser defines
# the dialect here (plain frontmatter takes libyaml's parser, which gives the same
# events); we compose the node tree ourselves:
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

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from .diagnostics import count_lines

try:  # libyaml's parser, when PyYAML was built with it (only its events are used)
    from yaml import CBaseLoader as _CParser
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    _CParser = None  # type: ignore[assignment,misc]

__all__ = ["DialectError", "Where", "load_strict"]


class DialectError(Exception):
    """Frontmatter the strict dialect refuses; the message says where, as a ``Where`` formats it."""

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


class Where:
    """Formats 0-based positions of the YAML text as SKILL.md positions."""

    def __init__(self, first_line: int = 1, first_column: int = 1):
        self.first_line = first_line      # SKILL.md line of the YAML text's first line
        self.first_column = first_column  # SKILL.md column of its first character

    def line(self, line0: int) -> int:
        return self.first_line + line0

    def __call__(self, line0: int, column0: int) -> str:
        column = column0 + (self.first_column if line0 == 0 else 1)
        return f"line {self.line(line0)}, column {column}"


def _check_event(event: yaml.Event, _where: Where) -> None:
    mark = event.start_mark
    if isinstance(event, yaml.AliasEvent):
        raise DialectError(f"alias '*{event.anchor}' at {_where(mark.line, mark.column)}: anchors and "
                           "aliases are not allowed (quote the value to keep it as text)",
                           mark.line, mark.column)
    anchor = getattr(event, "anchor", None)
    if anchor is not None:
        raise DialectError(f"anchor '&{anchor}' at {_where(mark.line, mark.column)}: anchors are not "
                           "allowed (quote the value to keep it as text)", mark.line, mark.column)
    tag = getattr(event, "tag", None)
    if tag is not None:
        written = mark.buffer[mark.pointer:].split(None, 1)[0] if mark.buffer else tag
        raise DialectError(f"explicit tag '{written}' at {_where(mark.line, mark.column)}: tags are not "
                           "allowed (do not give types in the markup; quote the value to keep it as "
                           "text)", mark.line, mark.column)
    if getattr(event, "flow_style", False):
        kind = "list [...]" if isinstance(event, yaml.SequenceStartEvent) else "mapping {...}"
        raise DialectError(f"flow-style {kind} at {_where(mark.line, mark.column)} is not allowed "
                           "(write it in block style, or quote the value to keep it as text)",
                           mark.line, mark.column)


# Text the C parser may read differently from the reference's parser: such
# frontmatter always takes the exact (pure-Python) path.
_NEEDS_EXACT = re.compile(r"[\t\x85\u2028\u2029\ufeff\r]|^(?:\.\.\.|---|%)|<<|^[|>]|^: |^[ ]*[?]", re.M)


def _compose_strict(text: str, _where: Where, *, fast: bool = True) -> _Node | None:
    """The node tree of one YAML document in the strict dialect (None when there is none).

    Plain frontmatter (block style, no anchors, tags or tricky characters) is
    read with the C parser when PyYAML has it: it gives the same events,
    several times faster. Anything unusual, and every error, is read again
    with the pure-Python parser, whose messages and edge cases are the ones
    the dialect is defined by.
    """
    if fast and _CParser is not None and not _NEEDS_EXACT.search(text):
        parser = _CParser(text)
        try:
            return _compose_events(parser.get_event, _where)
        except (DialectError, yaml.YAMLError):
            pass
        finally:
            parser.dispose()
    return _compose_exact(text, _where)


def _compose_events(get_event, _where: Where) -> _Node | None:
    def next_event() -> yaml.Event:
        event = get_event()
        _check_event(event, _where)
        return event

    def compose(event: yaml.Event) -> _Node:
        mark = event.start_mark
        if isinstance(event, yaml.ScalarEvent):
            return _Node("scalar", mark.line, mark.column, event.value, plain=event.style is None)
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            is_map = isinstance(event, yaml.MappingStartEvent)
            node = _Node("map" if is_map else "seq", mark.line, mark.column)
            # A mapping's events alternate key, value; a sequence's are its items.
            while not isinstance(child := next_event(), (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                item = compose(child)
                node.items.append((item, compose(next_event())) if is_map else item)
            return node
        raise DialectError(f"unexpected {type(event).__name__} at {_where(mark.line, mark.column)}",
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
        raise DialectError(f"a second YAML document starts at {_where(mark.line, mark.column)}; "
                           "the frontmatter must be one document", mark.line, mark.column)
    return root


def _compose_exact(text: str, _where: Where) -> _Node | None:
    loader = _DialectLoader(text)
    try:
        return _compose_events(loader.get_event, _where)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        problem = e.problem or e.context or "cannot parse"
        message = problem
        if e.context and e.problem:
            message = f"{e.problem} ({e.context})"
        if mark is not None:
            message += f" at {_where(mark.line, mark.column)}"
            raise DialectError(message, mark.line, mark.column) from None
        raise DialectError(message, None) from None
    except yaml.reader.ReaderError as e:
        before = text[: e.position]
        line = count_lines(before)
        column = e.position - max(before.rfind("\n"), before.rfind("\r")) - 1
        raise DialectError(f"character {e.character!r} (U+{ord(e.character):04X}) is not allowed in "
                           f"YAML at {_where(line, column)}", line, column) from None
    finally:
        loader.dispose()


def _check_mappings(root: _Node, _where: Where) -> None:
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
                        raise DialectError(f"second merge key '<<' at {_where(key.line, key.column)}",
                                           key.line, key.column)
                    merged = True
                    sources = value.items if value.kind == "seq" else [value]
                    for src in sources:
                        if src.kind != "map":
                            raise DialectError(
                                f"the merge key '<<' at {_where(key.line, key.column)} needs a mapping "
                                f"or a list of mappings, found a {_KIND_NAMES[src.kind]} at "
                                f"{_where(src.line, src.column)}", src.line, src.column)
                    continue
                if key.kind != "scalar":
                    raise DialectError(f"a {_KIND_NAMES[key.kind]} cannot be a mapping key "
                                       f"({_where(key.line, key.column)})", key.line, key.column)
                if key.value in seen:
                    raise DialectError(f"duplicate key '{key.value}' at {_where(key.line, key.column)}",
                                       key.line, key.column)
                seen.add(key.value)
            first: _Node | None = None
            for key, value in node.items:
                if value.kind != "map" or (key.kind == "scalar" and key.plain and key.value == "<<"):
                    continue
                if first is None:
                    first = value
                elif value.column != first.column:
                    raise DialectError(
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


def load_strict(text: str, where: Where) -> tuple[Any, dict[str, int], dict[str, int]]:
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
