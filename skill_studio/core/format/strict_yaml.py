"""The reference validator's strict YAML dialect, read from PyYAML's parser events."""

# The reference reads frontmatter with StrictYAML (built on a fork of ruamel.yaml,
# itself derived from PyYAML's pure-Python parser). The pure-Python parser defines
# the dialect here (plain frontmatter takes libyaml's parser, which gives the same
# events); we compose the node tree ourselves:
#   * flow collections ([..] / {..}), anchors, aliases and explicit tags are errors;
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

from skill_studio.core.format.strict_yaml_reader import DialectLoader, Refusal, reference_text
from skill_studio.core.format.yaml_guard import MAX_DEPTH, MAX_VALUES, disallowed_character
from skill_studio.core.format.yaml_nesting import first_too_deep

try:  # libyaml's parser, when PyYAML was built with it (only its events are used)
    from yaml import CBaseLoader as _CParser
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    _CParser = None  # type: ignore[assignment,misc]

from skill_studio.core.format.strict_yaml_data import _check_mappings, _to_data
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
)

__all__ = ["DialectError", "Where", "load_strict"]


def _check_event(event: yaml.Event) -> None:
    mark = _start(event)
    if isinstance(event, yaml.AliasEvent):  # no anchor can be defined, so no alias can be resolved
        raise _refused(None, None, f"found undefined alias {event.anchor!r}", mark,
                       "anchors and aliases are not allowed (quote the value to keep it as text)")
    if getattr(event, "anchor", None) is not None or getattr(event, "tag", None) is not None \
            or getattr(event, "flow_style", False):
        # Only the fast path gets here (the exact one refuses these while scanning,
        # as the reference does): the text is read again exactly, to word the refusal.
        raise DialectError("an anchor, a tag or a flow collection", mark.line, mark.column)


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
        event = next_event()
        mark = _start(event)
        node: _Node
        if isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            node = stack.pop()[0]
            node.end = event.end_mark
        elif isinstance(event, yaml.ScalarEvent):
            node = _Scalar(mark.line, mark.column, event.value, event.style is None, mark, event.end_mark)
        elif isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            is_map = isinstance(event, yaml.MappingStartEvent)
            stack.append((_Map(mark.line, mark.column, start=mark) if is_map
                          else _Seq(mark.line, mark.column, start=mark), []))
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
        mark = e.problem_mark or e.context_mark
        hint = e.explanation if isinstance(e, Refusal) else None
        raise DialectError(reference_text(e.context, e.context_mark, e.problem, e.problem_mark, e.note),
                           None if mark is None else mark.line, None if mark is None else mark.column,
                           hint) from None
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
        # The fast parser's positions carry no text to quote: read it again exactly.
        exact = _compose_exact(text, where)
        if exact is not None:
            _check_mappings(exact)
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
