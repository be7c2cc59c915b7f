"""Steps as Markdown: the numbered list under a body's 'Steps' heading read as whole CommonMark
list items (wrapped lines, nested lists and code kept), and steps written back as such a list."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["StepList", "find_step_list", "render_steps", "replace_step_list", "steps_from_text", "without_step_list"]

_STEPS_TITLE = re.compile(r"(steps|procedure|workflow|instructions|how to use)\b", re.IGNORECASE)
_ORDERED = re.compile(r"(\d{1,9})([.)])")
_THEMATIC = re.compile(r" {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r" {0,3}(?:=+|-+)[ \t]*$")
_FENCE_OPEN = re.compile(r"[ \t]*(`{3,}|~{3,})(.*)$")


@dataclass(frozen=True)
class StepList:
    """A numbered list found in a text: each item's Markdown, and where the list sits."""

    items: list[str]    # each item's content, dedented to its content column, blank ends cut
    start: int          # offset of the list's first line
    end: int            # offset just past its last non-blank line (line break included)
    first_number: int   # the number the list starts at
    delimiter: str      # '.' or ')'


@dataclass(frozen=True)
class _Marker:
    number: int | None  # None for a bullet
    delimiter: str      # '.', ')' or the bullet character
    column: int         # the item's content column
    first: str          # the content on the marker's line ('' when none)

    def same_list(self, other: _Marker) -> bool:
        return (self.number is None) == (other.number is None) and self.delimiter == other.delimiter


#: The characters that may begin a block: a heading, a list marker (with the digits), a fence, a
#: quote, a thematic break or a heading's underline.
_BLOCK_STARTS = frozenset("#>`~-+*_=")


def _plain(line: str) -> bool:
    """Whether a line is plain text wherever it stands: its first character after the blanks
    begins no block (it holds something, and that is not a digit or one of _BLOCK_STARTS).
    Only a shortcut: every check the line skips would have found nothing."""
    first = line.lstrip(" \t")[:1]
    return bool(first) and first not in _BLOCK_STARTS and not first.isdecimal()


def _expand(line: str) -> str:
    """The line with the tabs of its leading whitespace expanded to 4-column stops."""
    lead = len(line) - len(line.lstrip(" \t"))
    return line[:lead].expandtabs(4) + line[lead:] if "\t" in line[:lead] else line


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _marker(line: str) -> _Marker | None:
    """The list marker starting ``line`` (already expanded), or None."""
    ind = _indent(line)
    if ind > 3:
        return None
    rest = line[ind:]
    first = rest[:1]
    if not first or not (first.isdecimal() or first in "-+*"):   # (\d is a decimal digit: Nd)
        return None
    m = _ORDERED.match(rest)
    if m:
        number: int | None = int(m.group(1))
        delimiter, width = m.group(2), m.end()
    elif rest[:1] in ("-", "+", "*") and rest and not _THEMATIC.match(line):
        number, delimiter, width = None, rest[0], 1
    else:
        return None
    after = rest[width:]
    if after and after[0] not in " \t":
        return None
    column = ind + width
    gap = len(after) - len(after.lstrip(" \t"))
    spaces = (" " * column + after[:gap]).expandtabs(4)[column:]
    content = after[gap:]
    if not content.strip():
        return _Marker(number, delimiter, column + 1, "")
    if len(spaces) >= 5:  # the content is indented code: one space belongs to the marker
        return _Marker(number, delimiter, column + 1, spaces[1:] + content)
    return _Marker(number, delimiter, column + len(spaces), content)


def _fence(text: str) -> tuple[str, int] | None:
    """The fence a line opens: (character, length), or None."""
    m = _FENCE_OPEN.match(text)
    if not m or (m.group(1)[0] == "`" and "`" in m.group(2)):
        return None
    return m.group(1)[0], len(m.group(1))


def _closes(text: str, fence: tuple[str, int]) -> bool:
    stripped = text.strip()
    return len(stripped) >= fence[1] and stripped == fence[0] * len(stripped)


def _starts_block(line: str) -> bool:
    """Whether a line that could continue a paragraph lazily starts a block of its own instead."""
    if _plain(line):
        return False
    stripped = line.lstrip(" ")
    return (_ATX.match(line) is not None or _THEMATIC.match(line) is not None or stripped.startswith(">")
            or _fence(line) is not None or _marker(line) is not None)


def _read_item(lines: _Lines, i: int, mk: _Marker) -> tuple[list[str], int]:
    """The content lines of the item whose marker is on line ``i`` (dedented to its content
    column; lazy lines as they are) and the index just past its last non-blank line."""
    content = [mk.first]
    fence = _fence(mk.first)
    para = bool(mk.first.strip()) and fence is None and not _starts_block(mk.first)
    last = i + 1
    j = i + 1
    while j < len(lines):
        line = _expand(lines[j])
        if not line.strip():
            if j == i + 1 and not mk.first.strip():
                break  # an item may begin with one blank line, not two: this one is empty
            content.append("")
            para = False
            j += 1
            continue
        if _indent(line) >= mk.column:
            text = line[mk.column:]
        elif para and fence is None and not _starts_block(line):
            text = line.lstrip(" ")  # lazy continuation of the item's paragraph
        else:
            break
        if fence is not None:
            if _closes(text, fence):
                fence = None
        elif _plain(text):
            para = para or _indent(text) < 4
        elif (opened := _fence(text)) is not None:
            fence, para = opened, False
        elif _ATX.match(text) or _THEMATIC.match(text):
            para = False
        elif (inner := _marker(text)) is not None:
            para = bool(inner.first.strip())
        else:
            para = para or _indent(text) < 4  # an indented line after a blank one is code
        content.append(text)
        j += 1
        last = j
    return content[:last - i], last


def _read_list(lines: _Lines, i: int, mk: _Marker) -> tuple[list[str], int]:
    """The items of the list starting on line ``i``, and the index past its last item's end."""
    items: list[str] = []
    while True:
        content, end = _read_item(lines, i, mk)
        items.append("\n".join(content).strip())
        k = end
        while k < len(lines) and not lines[k].strip():
            k += 1
        nxt = _marker(_expand(lines[k])) if k < len(lines) else None
        if nxt is None or not nxt.same_list(mk):
            return items, end
        i, mk = k, nxt


class _Lines:
    """The lines of a text (split at LF; the CRs ending a line removed), split as they are first
    asked for: a list is most often near the top, and the rest of a long text is never split."""

    __slots__ = ("_chunk", "_count", "_lines", "_pos", "_raw", "_text")

    def __init__(self, text: str):
        self._text = text
        self._count = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        self._raw: list[str] = []     # the lines as in the text (CRs kept)
        self._lines = [] if "\r" in text else self._raw   # without the CRs
        self._pos = 0                 # where the next piece to split starts
        self._chunk = 2048

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, j: int) -> str:
        while j >= len(self._raw):
            self._more()
        return self._lines[j]

    def _more(self) -> None:
        """Split the next piece of the text (each one twice the size of the one before), whole lines."""
        text, pos = self._text, self._pos
        if pos >= len(text):
            raise IndexError("line index out of range")
        end = text.find("\n", pos + self._chunk)
        end = len(text) if end < 0 else end + 1
        self._chunk *= 2
        self._pos = end
        piece = text[pos:end].split("\n")
        if piece[-1] == "":   # a final line break ends the last line, it does not start one
            piece.pop()
        self._raw.extend(piece)
        if self._lines is not self._raw:
            self._lines.extend([line.rstrip("\r") for line in piece])

    def offset(self, j: int) -> int:
        """Where line ``j`` starts in the text (the text's length for ``j == len(self)``)."""
        if j >= self._count:
            return len(self._text)
        while j >= len(self._raw):
            self._more()
        return sum(map(len, self._raw[:j])) + j


def _heading_title(line: str, lines: _Lines, j: int, para: bool) -> str | None:
    """The title when line ``j`` is a heading: an ATX one, or the paragraph line it underlines."""
    m = _ATX.match(line)
    if m:
        return (m.group(2) or "").strip()
    if para and j > 0 and _SETEXT.match(line):
        return lines[j - 1].strip()
    return None


def _first_list(text: str, *, need_heading: bool) -> StepList | None:
    """The first top-level numbered list: under the first 'Steps'-like heading whose section
    holds one when ``need_heading``, else anywhere before the first heading."""
    lines = _Lines(text)
    in_section = not need_heading
    para = False
    fence: tuple[str, int] | None = None
    j = 0
    while j < len(lines):
        line = _expand(lines[j])
        if fence is not None:
            fence = None if _closes(line, fence) else fence
            j += 1
            continue
        if not line.strip():
            para = False
            j += 1
            continue
        if _indent(line) >= 4 and not para:  # indented code
            j += 1
            continue
        if _plain(line):   # paragraph text
            para = True
            j += 1
            continue
        title = _heading_title(line, lines, j, para)
        if title is not None:
            if not need_heading:
                return None
            in_section = bool(_STEPS_TITLE.match(title))
            para = False
            j += 1
            continue
        mk = _marker(line)
        if mk is not None and not (para and (not mk.first.strip() or mk.number not in (None, 1))):
            items, end = _read_list(lines, j, mk)
            if in_section and mk.number is not None:
                return StepList(items, lines.offset(j), lines.offset(end), mk.number, mk.delimiter)
            para = False
            j = end
            continue
        if mk is None and _indent(line) <= 3 and (opened := _fence(line)) is not None:
            fence, para = opened, False
        else:
            para = not _THEMATIC.match(line)
        j += 1
    return None


def find_step_list(body: str) -> StepList | None:
    """The numbered list under the first 'Steps'-like heading (Steps, Procedure, Workflow,
    Instructions, How to use) whose section holds one, or None."""
    return _first_list(body, need_heading=True)


def steps_from_text(text: str) -> list[str]:
    """Steps written as a numbered list in a text (as the studio writes them into the frontmatter):
    each item whole; a text with no such list is one step."""
    found = _first_list(text, need_heading=False)
    if found is not None:
        return [item for item in found.items if item]
    return [text.strip()] if text.strip() else []


def render_steps(actions: list[str], first_number: int = 1, delimiter: str = ".") -> str:
    """Steps as a numbered Markdown list (each line ending in a line break): an item's later
    lines are indented to its content column, so it reads back whole."""
    out: list[str] = []
    for n, action in enumerate(actions, first_number):
        marker = f"{n}{delimiter} "
        first, *rest = action.strip().split("\n")
        out.append(marker + first + "\n")
        out.extend((" " * len(marker) + line if line.strip() else "") + "\n" for line in rest)
    return "".join(out)


def replace_step_list(body: str, found: StepList, actions: list[str]) -> str:
    """``body`` with the list ``found`` replaced by ``actions`` (numbered and delimited as it was,
    in the body's line breaks); no actions removes the list."""
    text = render_steps(actions, found.first_number, found.delimiter)
    if "\r\n" in body[found.start:found.end]:
        text = text.replace("\n", "\r\n")
    if found.end == len(body) and not body.endswith("\n"):
        text = text.rstrip("\r\n")
    return body[:found.start] + text + body[found.end:]


def without_step_list(body: str) -> str:
    """``body`` without its steps list; the heading goes too when nothing else was under it."""
    found = find_step_list(body)
    if found is None:
        return body
    head, tail = body[:found.start], body[found.end:]
    lines = head.rstrip().split("\n")
    rest = tail.lstrip()
    if lines and _ATX.match(lines[-1].rstrip("\r")) and (not rest or _ATX.match(rest.split("\n", 1)[0])):
        before = "\n".join(lines[:-1]).rstrip()
        if not before:
            return rest
        return before + ("\n\n" + rest if rest else "\n")
    return head + tail.lstrip("\r\n")
