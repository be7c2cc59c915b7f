"""Bounds on frontmatter YAML (nesting, number of values, alias expansion), checked before it is composed."""

# The YAML composers recurse once per nesting level (libyaml's binding recurses in C and crashes
# the process on a few thousand levels in a thread with a small stack), and aliases let a few
# lines stand for billions of values ("billion laughs", merge-key bombs). The guard reads the
# parser's events, which are produced without recursion, and stops at the first bound crossed,
# before any composer or constructor runs. Plain frontmatter is let through without the event
# pass: with no alias, few structure characters and a short text, no bound can be crossed.

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

from skill_studio.core.format.yaml_nesting import first_too_deep

try:  # libyaml's parser: events without recursion
    from yaml import CBaseLoader as _EventParser
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml import BaseLoader as _EventParser  # type: ignore[assignment]

__all__ = ["MAX_DEPTH", "MAX_VALUES", "YamlBoundError", "check_bounds", "check_nesting", "disallowed_character"]

#: Deepest nesting of lists and mappings allowed in a frontmatter (real ones use fewer than 6).
MAX_DEPTH = 100
#: Most values (scalars, lists and mappings, keys included) a frontmatter may hold once its
#: aliases are expanded.
MAX_VALUES = 10_000

# A nesting level needs one of these characters of its own (an entry or value indicator, or an
# opening bracket), so text with fewer of them cannot nest deeper than their count.
_STRUCTURE_CHARS = "[{-?:"
# Text this short holds fewer than MAX_VALUES values: each value takes at least half a character.
_SHORT_TEXT = MAX_VALUES // 2 - 1

# What YAML refuses to read (C0 controls but tab and line breaks, DEL and C1 controls but NEL,
# surrogates, U+FFFE and U+FFFF), as both PyYAML readers define it.
_DISALLOWED = re.compile("[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


@dataclass
class YamlBoundError(Exception):
    """Frontmatter over a bound; ``line`` and ``column`` are 0-based in the YAML text."""

    message: str
    line: int
    column: int

    def __str__(self) -> str:
        return self.message


def disallowed_character(text: str) -> tuple[str, int, int] | None:
    """The first character YAML refuses to read, with its 0-based line and column, or None.

    Lines end at LF, CRLF or a lone CR.
    """
    m = _DISALLOWED.search(text)
    if m is None:
        return None
    before = text[: m.start()]
    line = before.count("\n") + before.count("\r") - before.count("\r\n")
    start = max(before.rfind("\n"), before.rfind("\r")) + 1
    return m.group(0), line, m.start() - start


def _needs_events(text: str, max_values: int) -> bool:
    if "*" in text or len(text) > min(_SHORT_TEXT, max_values // 2 - 1):
        return True
    return sum(text.count(c) for c in _STRUCTURE_CHARS) > MAX_DEPTH


class _Frame:
    __slots__ = ("anchor", "depth", "size")

    def __init__(self, anchor: str | None):
        self.anchor = anchor
        self.size = 1   # values in this collection, itself included, aliases expanded
        self.depth = 1  # nesting levels from this collection down, itself included


def check_bounds(text: str, *, max_values: int = MAX_VALUES, what: str = "frontmatter") -> None:
    """Raise YamlBoundError when the YAML text nests deeper than MAX_DEPTH, holds more than
    ``max_values`` values once its aliases are expanded, or has an alias inside the node it
    names. ``what`` names the text in the messages ("the frontmatter", "the bindings file").

    The nesting is measured on the text first, so that a parser's own limit (libyaml stops at
    1,000 levels) never speaks before this bound does. Text the parser refuses is left for the
    composer to report: the guard stops there, and the composer stops at the same place.
    """
    if not _needs_events(text, max_values):
        return
    check_nesting(text, what)
    if not _scan_with(_EventParser, text, max_values, what) and _EventParser is not yaml.BaseLoader:
        # libyaml has limits of its own (1,000 levels, read ahead of the events) that may stop it
        # before a bound is reached: the pure-Python parser, which has none, reads up to the
        # same place, so that a bound crossed there is still reported in the studio's words.
        _scan_with(yaml.BaseLoader, text, max_values, what)


def _scan_with(parser_class, text: str, max_values: int, what: str) -> bool:
    """Check the bounds on the events of ``parser_class``; False when the parser refused the text
    (before any bound was crossed)."""
    try:
        parser = parser_class(text)   # (the pure-Python reader checks the characters here)
    except yaml.YAMLError:
        return False
    try:
        _scan(parser, max_values, what)
    except (yaml.YAMLError, ValueError):
        # (the pure-Python scanner raises ValueError on an escape past U+10FFFF, which libyaml
        # refuses as invalid YAML)
        return False  # the composer reports it, at the same place
    finally:
        parser.dispose()
    return True


def check_nesting(text: str, what: str = "frontmatter") -> None:
    """Raise YamlBoundError where the YAML text nests more than MAX_DEPTH levels deep, read from
    its characters without a parser (see ``yaml_nesting``)."""
    where = first_too_deep(text, MAX_DEPTH)
    if where is not None:
        raise YamlBoundError(_too_deep(what), *where)


def _too_deep(what: str) -> str:
    return f"the {what} is nested more than {MAX_DEPTH} levels deep"


def _scan(parser, max_values: int, what: str) -> None:
    stack: list[_Frame] = []
    anchors: dict[str, tuple[int, int]] = {}   # closed anchors: (size, depth)
    open_anchors: set[str] = set()
    total = 0
    aliased = False
    while True:
        event = parser.get_event()
        if isinstance(event, yaml.StreamEndEvent):
            return
        if isinstance(event, (yaml.StreamStartEvent, yaml.DocumentStartEvent, yaml.DocumentEndEvent)):
            continue
        mark = event.start_mark
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            frame = _Frame(event.anchor)
            if event.anchor is not None:
                open_anchors.add(event.anchor)
            stack.append(frame)
            total += 1
            if len(stack) > MAX_DEPTH:
                raise YamlBoundError(_too_deep(what), mark.line, mark.column)
            _check_total(total, aliased, mark, max_values, what)
            continue
        if isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            frame = stack.pop()
            if frame.anchor is not None:
                open_anchors.discard(frame.anchor)
                anchors[frame.anchor] = (frame.size, frame.depth)
            if stack:  # the total counted it when it started and its values as they came
                parent = stack[-1]
                parent.size += frame.size
                parent.depth = max(parent.depth, frame.depth + 1)
            continue
        if isinstance(event, yaml.AliasEvent):
            name = event.anchor or ""  # an alias event always names its anchor
            if name in open_anchors:
                raise YamlBoundError(f"alias '*{name}' refers to a node that contains it (a structure "
                                     "that repeats itself without end)", mark.line, mark.column)
            size, depth = anchors.get(name, (1, 0))
            aliased = True
            if len(stack) + depth > MAX_DEPTH:
                raise YamlBoundError(f"alias '*{name}' nests the {what} more than {MAX_DEPTH} levels "
                                     "deep", mark.line, mark.column)
        else:  # a scalar
            size, depth = 1, 0
            if event.anchor is not None:
                anchors[event.anchor] = (1, 0)
        total += size
        if stack:
            parent = stack[-1]
            parent.size += size
            parent.depth = max(parent.depth, depth + 1)
        _check_total(total, aliased, mark, max_values, what)


def _check_total(total: int, aliased: bool, mark, max_values: int, what: str) -> None:
    if total <= max_values:
        return
    if aliased:
        raise YamlBoundError(f"the {what}'s aliases expand to more than {max_values:,} values "
                             "(an alias bomb?)", mark.line, mark.column)
    raise YamlBoundError(f"the {what} holds more than {max_values:,} values", mark.line, mark.column)
