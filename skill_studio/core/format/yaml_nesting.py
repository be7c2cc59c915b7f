"""How deep YAML text nests, read from the characters alone, before any YAML parser sees it."""

# A parser cannot be asked how deep a text nests without reading it, and parsers have limits of
# their own that speak first and in their own words: libyaml, as bundled with PyYAML 6.0.4, stops
# at 1,000 levels ("exceeded maximum nesting depth"), and since its scanner reads up to 1,024
# characters ahead, a line of brackets crosses that limit before the parser has produced the
# 101st event our bound is counted on. This scan counts what the scanner counts (flow brackets
# plus the columns of the block collections open), so it reaches any parser's limit no later
# than the parser does, and it never counts what a parser would not: brackets in quoted, plain or
# block scalars and in comments are text.

from __future__ import annotations

import re

__all__ = ["first_too_deep"]

_FLOW_OPEN = "[{"
_FLOW_CLOSE = "]}"
# A level opens at a block entry ('-', '?', or a key's ':') or a flow bracket: one of these each.
_LEVEL_CHARS = "-?:[{"
# Where YAML 1.1 readers (PyYAML's two) end a line.
_LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


def _ends_token(line: str, i: int) -> bool:
    """True when position ``i`` is the end of the line or a space or tab."""
    return i >= len(line) or line[i] in " \t"


def _close_quote(line: str, i: int, quote: str) -> int:
    """The index just after the quote closing a quoted scalar that continues at ``i``, or -1
    when it goes on past the end of the line."""
    n = len(line)
    while i < n:
        c = line[i]
        if quote == '"' and c == "\\":
            i += 2
            continue
        if c == quote:
            if quote == "'" and i + 1 < n and line[i + 1] == "'":
                i += 2  # '' is a quote inside single quotes
                continue
            return i + 1
        i += 1
    return -1


def _skip_property(line: str, i: int, stops: str) -> int:
    """The index after an anchor or a tag starting at ``i`` (it ends at a blank or a stop)."""
    n = len(line)
    while i < n and line[i] not in " \t" and line[i] not in stops:
        i += 1
    return i


class _Scan:
    """The state carried from one line to the next."""

    def __init__(self, limit: int):
        self.limit = limit
        self.indents: list[int] = []    # columns of the open block collections
        self.flow = 0                   # open flow collections ([ and {)
        self.quote = ""                 # the quote of a quoted scalar going on past a line
        self.block_scalar: int | None = None  # a | or > scalar: its lines are indented past this
        self.plain: int | None = None   # a plain scalar that may go on: on lines indented past this

    def depth(self) -> int:
        return len(self.indents) + self.flow

    def open_block(self, column: int) -> bool:
        """A block collection entry (key or '-') at ``column``; True when that is too deep."""
        if not self.indents or column > self.indents[-1]:
            self.indents.append(column)
            return self.depth() > self.limit
        return False

    def _parent_indent(self) -> int:
        return self.indents[-1] if self.indents else -1

    def line(self, line: str) -> int | None:
        """Read one line; the column where the nesting first goes past the limit, or None."""
        if line.startswith("\ufeff"):
            line = line[1:]  # a byte order mark is skipped at the start of any line
        if line.startswith(("---", "...")) and _ends_token(line, 3):
            # A document marker ends every scalar (and, outside flow, every block collection).
            self.block_scalar = self.plain = None
            self.quote = ""
            if self.flow == 0:
                self.indents.clear()
                return self._node(line, 3)
            return self._flow(line, 3, True)
        stripped = line.lstrip(" ")
        column = len(line) - len(stripped)
        blank = not stripped.strip(" \t")
        if self.block_scalar is not None:
            if blank or column > self.block_scalar:
                return None
            self.block_scalar = None
        if self.quote:
            i = _close_quote(line, 0, self.quote)
            if i < 0:
                return None
            self.quote = ""
            return self._flow(line, i, False, True) if self.flow else self._after_node(line, i)
        if self.plain is not None:
            if blank:
                return None
            if stripped.startswith("#") or column <= self.plain:
                self.plain = None
            else:  # the plain scalar goes on (to a comment, if one ends it)
                if " #" in line or "\t#" in line:
                    self.plain = None
                return None
        if self.flow:
            return self._flow(line, 0, True)
        if blank or stripped.startswith("#"):
            return None
        while self.indents and self.indents[-1] > column:
            self.indents.pop()
        return self._node(line, column)

    def _node(self, line: str, i: int) -> int | None:
        """Block context, where a node may start at ``i``."""
        n = len(line)
        start: int | None = None   # where the node's anchor or tag began
        while i < n:
            c = line[i]
            if c in " \t":
                i += 1
            elif c == "#":
                return None
            elif c in "-?" and _ends_token(line, i + 1) and start is None:
                if self.open_block(i):
                    return i
                i += 1
            elif c in _FLOW_OPEN:
                return self._flow(line, i, True)
            elif c in "'\"":
                end = _close_quote(line, i + 1, c)
                if end < 0:
                    self.quote = c
                    return None
                return self._after_node(line, end, key_column=i if start is None else start)
            elif c in "|>":
                self.block_scalar = self._parent_indent()
                return None
            elif c in "&!":  # an anchor or a tag: the node follows it
                start = i if start is None else start
                i = _skip_property(line, i, "")
            else:  # a plain scalar (or an alias): a key when ': ' ends it on this line
                return self._after_node(line, i, key_column=i if start is None else start, plain=True)
        return None

    def _after_node(self, line: str, i: int, key_column: int | None = None, plain: bool = False) -> int | None:
        """Block context after a node's start: a ': ' makes what came before a key; a plain
        scalar that reaches the end of the line may go on on the next."""
        n = len(line)
        while i < n:
            c = line[i]
            if c == "#" and (i == 0 or line[i - 1] in " \t"):
                return None
            if c == ":" and _ends_token(line, i + 1):
                if key_column is not None and self.open_block(key_column):
                    return key_column
                return self._node(line, i + 1)
            i += 1
        if plain:
            self.plain = self._parent_indent()
        return None

    def _flow(self, line: str, i: int, node_start: bool, after_node: bool = False) -> int | None:
        """Inside flow collections (or at the bracket opening the first). ``after_node``: a
        quoted scalar or a collection has just ended, so a ':' right after it is an indicator."""
        n = len(line)
        while i < n:
            c = line[i]
            ended = False
            if c in _FLOW_OPEN:
                self.flow += 1
                if self.depth() > self.limit:
                    return i
                node_start = True
            elif c in _FLOW_CLOSE:
                self.flow = max(0, self.flow - 1)
                if self.flow == 0:
                    return self._after_node(line, i + 1)
                node_start, ended = False, True
            elif c == ",":
                node_start = True
            elif c == "?" and node_start and _ends_token(line, i + 1):
                pass  # a complex key: its node follows
            elif c == ":" and (node_start or after_node or _ends_token(line, i + 1)
                               or (i + 1 < n and line[i + 1] in ",[]{}")):
                node_start = True
            elif c == "#" and (i == 0 or line[i - 1] in " \t"):
                return None
            elif c in "&!" and node_start:  # an anchor or a tag: the node follows it
                i = _skip_property(line, i, ",[]{}")
                continue
            elif c in "'\"" and node_start:
                end = _close_quote(line, i + 1, c)
                if end < 0:
                    self.quote = c
                    return None
                i, node_start, after_node = end, False, True
                continue
            elif c not in " \t":
                node_start = False
            if c not in " \t":
                after_node = ended
            i += 1
        return None


def first_too_deep(text: str, limit: int) -> tuple[int, int] | None:
    """Where YAML text first nests more than ``limit`` collections deep, as a 0-based line and
    column, or None when it never does.

    Counted as a YAML scanner counts: open flow collections plus the block collections whose
    entries start at a greater column than the one around them. Text that is not valid YAML is
    read as far as it goes; the parser reports what is wrong with it.
    """
    if sum(map(text.count, _LEVEL_CHARS)) <= limit:
        return None  # every level needs a character of its own: this text has too few to go past
    scan = _Scan(limit)
    for number, line in enumerate(_LINE_BREAK.split(text)):
        column = scan.line(line)
        if column is not None:
            return number, column
    return None
