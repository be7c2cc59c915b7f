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
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Protocol, TypeAlias

import yaml

from skill_studio.core.format.strict_yaml_reader import DialectLoader
from skill_studio.core.format.yaml_guard import MAX_DEPTH, MAX_VALUES, disallowed_character
from skill_studio.core.format.yaml_nesting import first_too_deep

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


# The composed tree: one class per kind of node. Positions are 0-based, of the
# node's start in the YAML text.
@dataclass
class _Scalar:
    kind: ClassVar[Literal["scalar"]] = "scalar"
    line: int
    column: int
    value: str
    plain: bool = False  # a plain (unquoted) scalar


@dataclass
class _Seq:
    kind: ClassVar[Literal["seq"]] = "seq"
    line: int
    column: int
    items: list[_Node] = field(default_factory=list)


@dataclass
class _Map:
    kind: ClassVar[Literal["map"]] = "map"
    line: int
    column: int
    pairs: list[tuple[_Node, _Node]] = field(default_factory=list)  # (key, value), in order


_Node: TypeAlias = _Scalar | _Seq | _Map


def _is_merge_key(key: _Node) -> bool:
    return isinstance(key, _Scalar) and key.plain and key.value == "<<"


class _Mark(Protocol):
    """A parser position (PyYAML's pure-Python ``Mark`` or libyaml's), as far as it is read here."""

    @property
    def line(self) -> int: ...
    @property
    def column(self) -> int: ...
    @property
    def buffer(self) -> str | None: ...  # None from libyaml
    @property
    def pointer(self) -> int: ...


def _start(event: yaml.Event) -> _Mark:
    """Where an event starts; both parsers give every event its position."""
    mark = event.start_mark
    if mark is None:  # pragma: no cover - the parsers mark every event
        raise DialectError(f"{type(event).__name__} without a position", None)
    return mark


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
    mark = _start(event)
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
    the dialect is defined by. Nesting deeper than ``MAX_DEPTH`` is refused before
    either parser reads the text, so that no parser's own limit speaks first.
    """
    deep = first_too_deep(text, MAX_DEPTH)
    if deep is not None:
        raise DialectError(f"nested more than {MAX_DEPTH} levels deep at {_where(*deep)}", *deep)
    if fast and _CParser is not None and not _NEEDS_EXACT.search(text):
        parser = _CParser(text)
        try:
            return _compose_events(parser.get_event, _where)
        except (DialectError, yaml.YAMLError):
            pass
        finally:
            parser.dispose()
    return _compose_exact(text, _where)


def _compose_events(get_event: Callable[[], yaml.Event | None], _where: Where) -> _Node | None:
    """The node tree from parser events, built without recursion and within the bounds of
    ``yaml_guard`` (nesting depth, number of values)."""
    def next_event() -> yaml.Event:
        event = get_event()
        if event is None:  # pragma: no cover - reading stops at the stream's end
            raise DialectError("the YAML events ended before the stream's end", None)
        _check_event(event, _where)
        return event

    next_event()  # StreamStart
    event = next_event()
    if isinstance(event, yaml.StreamEndEvent):
        return None
    # Open collections, each with the key waiting for its value (mappings alternate key, value).
    stack: list[tuple[_Seq | _Map, list[_Node]]] = []
    root: _Node | None = None
    count = 0
    while True:
        event = next_event()
        mark = _start(event)
        node: _Node
        if isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            node = stack.pop()[0]
        elif isinstance(event, yaml.ScalarEvent):
            node = _Scalar(mark.line, mark.column, event.value, plain=event.style is None)
        elif isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            is_map = isinstance(event, yaml.MappingStartEvent)
            stack.append((_Map(mark.line, mark.column) if is_map else _Seq(mark.line, mark.column), []))
            if len(stack) > MAX_DEPTH:
                raise DialectError(f"nested more than {MAX_DEPTH} levels deep at {_where(mark.line, mark.column)}",
                                   mark.line, mark.column)
            count += 1
            continue
        else:
            raise DialectError(f"unexpected {type(event).__name__} at {_where(mark.line, mark.column)}",
                               mark.line, mark.column)  # pragma: no cover - the parser prevents it
        if not isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            count += 1
        if count > MAX_VALUES:
            raise DialectError(f"more than {MAX_VALUES:,} values (at {_where(mark.line, mark.column)})",
                               mark.line, mark.column)
        if not stack:
            root = node
            break
        parent, pending = stack[-1]
        if isinstance(parent, _Seq):
            parent.items.append(node)
        elif pending:
            parent.pairs.append((pending.pop(), node))
        else:
            pending.append(node)
    next_event()  # DocumentEnd
    event = next_event()
    if not isinstance(event, yaml.StreamEndEvent):
        mark = _start(event)
        raise DialectError(f"a second YAML document starts at {_where(mark.line, mark.column)}; "
                           "the frontmatter must be one document", mark.line, mark.column)
    return root


_LONG_ESCAPE = re.compile(r"\\U([0-9A-Fa-f]{8})")

def _compose_exact(text: str, _where: Where) -> _Node | None:
    loader = None
    try:
        loader = DialectLoader(text)
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
    except ValueError:
        # PyYAML's scanner turns a double-quoted \\U escape past U+10FFFF into chr() and fails
        # there: the escape is found again to say where it is, as libyaml does.
        bad = next((m for m in _LONG_ESCAPE.finditer(text) if int(m.group(1), 16) > 0x10FFFF), None)
        if bad is None:
            raise
        line = text.count("\n", 0, bad.start())
        column = bad.start() - (text.rfind("\n", 0, bad.start()) + 1)
        raise DialectError(f"found invalid Unicode character escape code {bad.group(0)} at {_where(line, column)}",
                           line, column) from None
    except yaml.reader.ReaderError as e:
        found = disallowed_character(text)
        if found is None:  # pragma: no cover - the reader refuses only what the pattern finds
            raise DialectError(f"unreadable text ({e.reason})", None) from None
        char, line, column = found
        raise DialectError(f"character {char!r} (U+{ord(char):04X}) is not allowed in "
                           f"YAML at {_where(line, column)}", line, column) from None
    finally:
        if loader is not None:
            loader.dispose()


def _check_mappings(root: _Node, _where: Where) -> None:
    """Merge keys, duplicate keys and indentation, mapping by mapping, outermost first."""
    queue: list[_Node] = [root]
    while queue:
        next_level: list[_Node] = []
        for node in queue:
            if isinstance(node, _Seq):
                next_level.extend(node.items)
                continue
            if not isinstance(node, _Map):
                continue
            merged = False
            seen: set[str] = set()
            for key, value in node.pairs:
                next_level.extend((key, value))
                if _is_merge_key(key):
                    if merged:
                        raise DialectError(f"second merge key '<<' at {_where(key.line, key.column)}",
                                           key.line, key.column)
                    merged = True
                    sources = value.items if isinstance(value, _Seq) else [value]
                    for src in sources:
                        if not isinstance(src, _Map):
                            raise DialectError(
                                f"the merge key '<<' at {_where(key.line, key.column)} needs a mapping "
                                f"or a list of mappings, found a {_KIND_NAMES[src.kind]} at "
                                f"{_where(src.line, src.column)}", src.line, src.column)
                    continue
                if not isinstance(key, _Scalar):
                    raise DialectError(f"a {_KIND_NAMES[key.kind]} cannot be a mapping key "
                                       f"({_where(key.line, key.column)})", key.line, key.column)
                if key.value in seen:
                    raise DialectError(f"duplicate key '{key.value}' at {_where(key.line, key.column)}",
                                       key.line, key.column)
                seen.add(key.value)
            first: _Map | None = None
            for key, value in node.pairs:
                if not isinstance(value, _Map) or _is_merge_key(key):
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


_KIND_NAMES: dict[str, str] = {"scalar": "scalar", "map": "mapping", "seq": "list"}


class _TaggedScalar:
    """A plain '<<' or '=' used as a value: the reference reads these as tagged objects, not text."""

    def __init__(self, text: str):
        self.text = text

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"_TaggedScalar({self.text!r})"


# The data a tree reads as (before ``_check_mappings`` no key is guaranteed to be text).
_Data: TypeAlias = "str | _TaggedScalar | list[_Data] | dict[str, _Data]"


def _to_data(node: _Node, top: bool = False) -> _Data:
    if isinstance(node, _Scalar):
        if node.plain and node.value in ("<<", "="):
            return _TaggedScalar(node.value)
        return node.value
    if isinstance(node, _Seq):
        return [_to_data(item) for item in node.items]
    return _map_to_data(node, top)


def _map_to_data(node: _Map, top: bool = False) -> dict[str, _Data]:
    """A mapping's data; merged keys are filled in unless ``top`` (``_check_mappings`` vetted the tree)."""
    out: dict[str, _Data] = {}
    merges: list[_Node] = []
    for key, value in node.pairs:
        if _is_merge_key(key):
            merges.extend(value.items if isinstance(value, _Seq) else [value])
            continue
        if not isinstance(key, _Scalar):
            raise DialectError(f"a {_KIND_NAMES[key.kind]} cannot be a mapping key", key.line, key.column)
        out[key.value] = _to_data(value)
    if not top:
        for src in merges:
            if not isinstance(src, _Map):
                raise DialectError(f"the merge key '<<' needs a mapping or a list of mappings, found a "
                                   f"{_KIND_NAMES[src.kind]}", src.line, src.column)
            for k, v in _map_to_data(src).items():
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
    for key, value in root.pairs:
        if isinstance(key, _Scalar) and not _is_merge_key(key):
            lines.setdefault(key.value, key.line)
            if key.value == "metadata" and isinstance(value, _Map):
                for k2, _ in value.pairs:
                    if isinstance(k2, _Scalar):
                        meta_lines.setdefault(k2.value, k2.line)
    return _to_data(root, top=True), lines, meta_lines
