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

__all__ = ["first_too_deep"]

_FLOW_OPEN = "[{"
_FLOW_CLOSE = "]}"


def _lines(text: str) -> list[str]:
    """The lines of ``text``, split where YAML's readers split them (LF, CRLF, a lone CR)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


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


class _Scan:
    """The state carried from one line to the next."""

    def __init__(self, limit: int):
        self.limit = limit
        self.indents: list[int] = []    # columns of the open block collections
        self.flow = 0                   # open flow collections ([ and {)
        self.quote = ""                 # the quote of a quoted scalar going on past a line
        self.block_scalar: int | None = None  # a | or > scalar: its lines are indented past this

    def depth(self) -> int:
        return len(self.indents) + self.flow

    def open_block(self, column: int) -> bool:
        """A block collection entry (key or '-') at ``column``; True when that is too deep."""
        if not self.indents or column > self.indents[-1]:
            self.indents.append(column)
            return self.depth() > self.limit
        return False

    def line(self, line: str) -> int | None:
        """Read one line; the column where the nesting first goes past the limit, or None."""
        i, n = 0, len(line)
        if self.block_scalar is not None:
            stripped = line.lstrip(" ")
            if not stripped or len(line) - len(stripped) > self.block_scalar:
                return None
            self.block_scalar = None
        if self.quote:
            i = _close_quote(line, 0, self.quote)
            if i < 0:
                return None
            self.quote = ""
            return self._flow(line, i, False) if self.flow else self._after_node(line, i)
        if self.flow == 0:
            column = len(line) - len(line.lstrip(" "))
            if column >= n or line[column] == "#":
                return None
            if column == 0 and (line.startswith(("---", "...")) and _ends_token(line, 3)):
                self.indents.clear()
                i = 3
            while self.indents and self.indents[-1] > column:
                self.indents.pop()
            i = max(i, column)
        return self._node(line, i) if self.flow == 0 else self._flow(line, i, True)

    def _node(self, line: str, i: int) -> int | None:
        """Block context, where a node may start at ``i``."""
        n = len(line)
        while i < n:
            c = line[i]
            if c in " \t":
                i += 1
            elif c == "#":
                return None
            elif c in "-?" and _ends_token(line, i + 1):
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
                return self._after_node(line, end, key_column=i)
            elif c in "|>":
                self.block_scalar = self.indents[-1] if self.indents else -1
                return None
            elif c in "&!":  # an anchor or a tag: the node follows it
                while i < n and line[i] not in " \t":
                    i += 1
            else:  # a plain scalar (or an alias): a key when ': ' ends it on this line
                return self._after_node(line, i, key_column=i)
        return None

    def _after_node(self, line: str, i: int, key_column: int | None = None) -> int | None:
        """Block context after a node's start: a ': ' makes what came before a key."""
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
        return None

    def _flow(self, line: str, i: int, node_start: bool) -> int | None:
        """Inside flow collections (or at the bracket opening the first)."""
        n = len(line)
        while i < n:
            c = line[i]
            if c in _FLOW_OPEN:
                self.flow += 1
                if self.depth() > self.limit:
                    return i
                node_start = True
            elif c in _FLOW_CLOSE:
                self.flow = max(0, self.flow - 1)
                if self.flow == 0:
                    return self._after_node(line, i + 1)
                node_start = False
            elif c in ",?":
                node_start = True
            elif c == ":":
                node_start = _ends_token(line, i + 1) or node_start
            elif c == "#" and (i == 0 or line[i - 1] in " \t"):
                return None
            elif c in "'\"" and node_start:
                end = _close_quote(line, i + 1, c)
                if end < 0:
                    self.quote = c
                    return None
                i, node_start = end, False
                continue
            elif c not in " \t":
                node_start = False
            i += 1
        return None


def first_too_deep(text: str, limit: int) -> tuple[int, int] | None:
    """Where YAML text first nests more than ``limit`` collections deep, as a 0-based line and
    column, or None when it never does.

    Counted as a YAML scanner counts: open flow collections plus the block collections whose
    entries start at a greater column than the one around them. Text that is not valid YAML is
    read as far as it goes; the parser reports what is wrong with it.
    """
    scan = _Scan(limit)
    for number, line in enumerate(_lines(text)):
        column = scan.line(line)
        if column is not None:
            return number, column
    return None
