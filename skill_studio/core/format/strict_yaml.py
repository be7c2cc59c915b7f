"""The reference validator's strict YAML dialect, read from PyYAML's parser events."""

# The reference reads frontmatter with StrictYAML (built on a fork of ruamel.yaml,
# itself derived from PyYAML's pure-Python parser). The pure-Python parser defines
# the dialect here (plain frontmatter takes libyaml's parser, which gives the same
# events); we compose the node tree ourselves:
#   * flow collections ([..] / {..}), anchors, aliases and explicit tags are errors
#     (a flow collection libyaml meets is refused from its own line: ``strict_yaml_flow``);
#   * every refusal is worded as the reference's parser words it (``reference_text``),
#     found in the order it finds them (``DialectLoader`` keeps its token queue and
#     ``_check_mappings`` builds in its order); the studio's advice is the hint;
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
from typing import Any

import yaml

from skill_studio.core.format.strict_yaml_reader import DialectLoader
from skill_studio.core.format.yaml_guard import MAX_DEPTH, MAX_VALUES, disallowed_character
from skill_studio.core.format.yaml_nesting import first_too_deep

try:  # libyaml's parser, when PyYAML was built with it (only its events are used)
    from yaml._yaml import CParser as _CParser
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    _CParser = None  # type: ignore[assignment,misc]

from skill_studio.core.format.strict_yaml_data import _check_mappings, _to_data
from skill_studio.core.format.strict_yaml_flow import flow_refusal
from skill_studio.core.format.strict_yaml_tree import (
    DialectError,
    Where,
    _is_merge_key,
    _Map,
    _Node,
    _refused,
    _Scalar,
    _Seq,
    _start,
    from_marked,
)
from skill_studio.core.format.strict_yaml_worded import property_refusal, scanner_refusal

__all__ = ["DialectError", "Where", "load_strict"]


def _check_event(event: yaml.Event) -> None:
    mark = _start(event)
    if isinstance(event, yaml.AliasEvent):  # no anchor can be defined, so no alias can be resolved
        raise _refused(None, None, f"found undefined alias {event.anchor!r}", mark,
                       "anchors and aliases are not allowed (quote the value to keep it as text)")
    if getattr(event, "anchor", None) is not None or getattr(event, "tag", None) is not None:
        # Only the fast path gets here (the exact one refuses these while scanning,
        # as the reference does): the exact parser words the refusal (``property_refusal``).
        raise _Properties("an anchor or a tag", mark.line, mark.column)
    if getattr(event, "flow_style", False):
        raise _FlowStart("a flow collection", mark.line, mark.column)


_SCALAR, _MAP_START, _MAP_END = yaml.ScalarEvent, yaml.MappingStartEvent, yaml.MappingEndEvent
_SEQ_START, _SEQ_END = yaml.SequenceStartEvent, yaml.SequenceEndEvent


class _FlowStart(DialectError):
    """The fast path met a flow collection (untagged, unanchored): see ``flow_refusal``."""


class _Properties(DialectError):
    """The fast path met an anchor or a tag: see ``property_refusal``."""


# Text the C parser may read differently from the reference's parser: such
# frontmatter always takes the exact (pure-Python) path.
_NEEDS_EXACT = re.compile(r"[\t\x85\u2028\u2029\ufeff\r]|^(?:\.\.\.|---|%)|<<|^[|>]|^: |^[ ]*[?]", re.M)
# The same test in parts, each a quick scan of the text (the pattern above is the definition).
_EXACT_CHARS = re.compile("[\t\x85\u2028\u2029\ufeff\r]")
_EXACT_LINE_STARTS = ("\n...", "\n---", "\n%", "\n|", "\n>", "\n: ")
_QUESTION_KEY = re.compile(r"^[ ]*[?]", re.M)


def _needs_exact(text: str) -> bool:
    """``_NEEDS_EXACT.search(text) is not None``."""
    return _first_needing_exact(text) >= 0


def _first_needing_exact(text: str) -> int:
    """Where ``_NEEDS_EXACT`` first matches in ``text`` (-1: nowhere), found quicker: a few
    scans of the text for a character or a line start, most of which find nothing."""
    found = text.find("<<")
    first = len(text) if found < 0 else found
    char = _EXACT_CHARS.search(text, 0, first)
    if char is not None:
        first = char.start()
    lines = "\n" + text   # (a match of "\n---" at i in it is a line start at i in the text)
    for start in _EXACT_LINE_STARTS:
        found = lines.find(start, 0, first + len(start))
        if found >= 0:
            first = found
    if "?" in text:
        question = _QUESTION_KEY.search(text)
        if question is not None and question.start() < first:
            first = question.start()
    return first if first < len(text) else -1


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
    if fast and _CParser is not None:
        # (before the first feature the parsers read differently, both read alike: a tree is
        # taken only from a text without one, a refusal met before it may be worded from it)
        tricky = _first_needing_exact(text)
        parser = _CParser(text)
        met: DialectError | yaml.YAMLError | None = None
        try:
            root = _compose_events(parser.get_event, _where)
            if tricky < 0:
                return root
        except (DialectError, yaml.YAMLError) as e:
            met = e
        finally:
            parser.dispose()
        refusal = None if met is None else _worded(met, text, tricky, _where)
        if refusal is not None:
            raise refusal
    return _compose_exact(text, _where)


def _worded(met: DialectError | yaml.YAMLError, text: str, tricky: int, _where: Where) -> DialectError | None:
    """The exact parser's refusal where the C parser stopped with ``met``, when it can be told
    without reading the whole text exactly (else None)."""
    if isinstance(met, _FlowStart) and met.line is not None and met.column is not None:
        return flow_refusal(text, met.line, met.column, _where, _compose_exact, tricky)
    if isinstance(met, _Properties) and met.line is not None:
        return property_refusal(text, met.line, tricky, _where, _compose_exact)
    if isinstance(met, yaml.scanner.ScannerError):
        return scanner_refusal(met, text, tricky)
    return None


def _compose_events(get_event: Callable[[], yaml.Event | None], _where: Where) -> _Node | None:
    """The node tree from parser events, built without recursion and within the bounds of
    ``yaml_guard`` (nesting depth, number of values)."""
    def next_event() -> yaml.Event:
        event = get_event()
        if event is None:  # pragma: no cover - reading stops at the stream's end
            raise DialectError("the YAML events ended before the stream's end", None)
        _check_event(event)
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
        # (every frontmatter has a few dozen events: the common kinds are told apart by their
        # exact class, and only an event with an anchor, a tag or a flow style is checked further)
        ev: Any = get_event()
        kind = type(ev)
        node: _Node
        if kind is _SCALAR:
            if ev.anchor is not None or ev.tag is not None:
                _check_event(ev)
            mark = _start(ev)
            # (a plain scalar: style None from the pure-Python parser, "" from the C one)
            node = _Scalar(mark.line, mark.column, ev.value, not ev.style, mark, ev.end_mark)
            count += 1
        elif kind is _MAP_END or kind is _SEQ_END:
            node = stack.pop()[0]
            node.end = ev.end_mark
        elif kind is _MAP_START or kind is _SEQ_START:
            if ev.anchor is not None or ev.tag is not None or ev.flow_style:
                _check_event(ev)
            mark = _start(ev)
            stack.append((_Map(mark.line, mark.column, start=mark) if kind is _MAP_START
                          else _Seq(mark.line, mark.column, start=mark), []))
            if len(stack) > MAX_DEPTH:
                raise DialectError(f"nested more than {MAX_DEPTH} levels deep at {_where(mark.line, mark.column)}",
                                   mark.line, mark.column)
            count += 1
            continue
        else:
            if ev is None:  # pragma: no cover - reading stops at the stream's end
                raise DialectError("the YAML events ended before the stream's end", None)
            _check_event(ev)  # (an alias is refused there)
            mark = _start(ev)
            raise DialectError(f"unexpected {type(ev).__name__} at {_where(mark.line, mark.column)}",
                               mark.line, mark.column)  # pragma: no cover - the parser prevents it
        if count > MAX_VALUES:
            mark = _start(ev)
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
        raise _refused("expected a single document in the stream", root.start, "but found another document",
                       _start(event), "the frontmatter must be one YAML document: remove the '...' line")
    return root


_LONG_ESCAPE = re.compile(r"\\U([0-9A-Fa-f]{8})")

def _compose_exact(text: str, _where: Where) -> _Node | None:
    loader = None
    try:
        loader = DialectLoader(text)
        return _compose_events(loader.get_event, _where)
    except yaml.MarkedYAMLError as e:
        raise from_marked(e) from None
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


def _with_text(root: _Node, text: str) -> None:
    """Give the marks of a tree read by the C parser the text they point into."""
    def marked(mark: Any) -> Any:
        return None if mark is None else yaml.Mark(_LABEL, mark.index, mark.line, mark.column, text, mark.index)

    todo: list[_Node] = [root]
    while todo:
        node = todo.pop()
        node.start, node.end = marked(node.start), marked(node.end)
        if isinstance(node, _Seq):
            todo.extend(node.items)
        elif isinstance(node, _Map):
            todo.extend(n for pair in node.pairs for n in pair)


_LABEL = "<unicode string>"


def load_strict(text: str, where: Where) -> tuple[Any, dict[str, int], dict[str, int]]:
    """Frontmatter data in the strict dialect, with 0-based key lines (top level and metadata).

    Raises DialectError.
    """
    root = _compose_strict(text, where)
    if root is None or root.kind == "scalar":
        return text, {}, {}
    try:
        _check_mappings(root)
    except DialectError:
        if getattr(root.start, "buffer", None) is not None:
            raise
        # The C parser's positions carry no text to quote: the same positions, with the text
        # (both parsers count a position in characters), say it as the exact parser's would.
        _with_text(root, text)
        _check_mappings(root)
        raise
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
