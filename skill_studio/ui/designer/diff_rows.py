"""Two texts as rows of a diff, without any widget: side by side (aligned, each changed pair of lines
with its changed characters) or unified, as ``diff -u`` writes it."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

__all__ = ["ADDED", "EQUAL", "FILLER", "HEADER", "HUNK", "REMOVED", "Side", "side_by_side", "split_lines",
           "unified_lines", "unified_side"]

EQUAL, REMOVED, ADDED, FILLER, HUNK, HEADER = "equal", "removed", "added", "filler", "hunk", "header"
#: Changed lines longer than this are tinted but not compared character by character.
INTRALINE_LIMIT = 2000
#: Below this similarity a changed pair of lines is a rewrite: emphasising characters would be noise.
INTRALINE_MIN_RATIO = 0.4
_HUNK_RE = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


@dataclass
class Side:
    """One pane's rows: text, kind, original line number (None for filler) and emphasised spans."""

    lines: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    numbers: list[str] = field(default_factory=list)
    spans: dict[int, list[tuple[int, int]]] = field(default_factory=dict)

    def add(self, text: str, kind: str, number: int | None) -> None:
        self.lines.append(text)
        self.kinds.append(kind)
        self.numbers.append("" if number is None else str(number))


def split_lines(text: str) -> list[str]:
    """The lines of a text without their ends (any of \\n, \\r\\n, \\r); a final newline adds no line.

    Characters a text view would treat as line or paragraph breaks become spaces,
    so that one line of text stays one row of the view.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [ln.replace("\u2028", " ").replace("\u2029", " ") for ln in lines]


def _char_spans(a: str, b: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    if len(a) > INTRALINE_LIMIT or len(b) > INTRALINE_LIMIT:
        return [], []
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    if sm.ratio() < INTRALINE_MIN_RATIO:
        return [], []
    left, right = [], []
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag != "equal":
            if i2 > i1:
                left.append((i1, i2))
            if j2 > j1:
                right.append((j1, j2))
    return left, right


def side_by_side(old: list[str], new: list[str],
                 matcher: difflib.SequenceMatcher | None = None) -> tuple[Side, Side]:
    """Aligned rows for the two panes: both sides get the same number of rows, filler where
    the other side has lines; paired changed lines get the changed characters as spans."""
    left, right = Side(), Side()
    for tag, i1, i2, j1, j2 in (matcher or difflib.SequenceMatcher(None, old, new)).get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                left.add(old[i1 + k], EQUAL, i1 + k + 1)
                right.add(new[j1 + k], EQUAL, j1 + k + 1)
            continue
        for k in range(max(i2 - i1, j2 - j1)):
            i, j = i1 + k, j1 + k
            if i < i2:
                left.add(old[i], REMOVED, i + 1)
            else:
                left.add("", FILLER, None)
            if j < j2:
                right.add(new[j], ADDED, j + 1)
            else:
                right.add("", FILLER, None)
            if i < i2 and j < j2:
                ls, rs = _char_spans(old[i], new[j])
                if ls:
                    left.spans[len(left.lines) - 1] = ls
                if rs:
                    right.spans[len(right.lines) - 1] = rs
    return left, right


def _range(start: int, stop: int) -> str:
    length = stop - start
    return str(start + 1) if length == 1 else f"{start + (1 if length else 0)},{length}"


def unified_lines(old: list[str], new: list[str], old_label: str, new_label: str, context: int = 3,
                  matcher: difflib.SequenceMatcher | None = None) -> list[str]:
    """The unified diff of two line lists, line for line what ``difflib.unified_diff`` gives
    with ``lineterm=""``; a matcher already run over the same lists is reused."""
    out: list[str] = []
    for group in (matcher or difflib.SequenceMatcher(None, old, new)).get_grouped_opcodes(context):
        if not out:
            out += [f"--- {old_label}", f"+++ {new_label}"]
        out.append(f"@@ -{_range(group[0][1], group[-1][2])} +{_range(group[0][3], group[-1][4])} @@")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [" " + line for line in old[i1:i2]]
                continue
            out += ["-" + line for line in old[i1:i2]]
            out += ["+" + line for line in new[j1:j2]]
    return out


def unified_side(lines: list[str]) -> Side:
    """Rows of a unified diff with their kinds and 'old new' line numbers."""
    side = Side()
    o = n = 0
    for index, text in enumerate(lines):
        m = _HUNK_RE.match(text)
        if index < 2 and text[:3] in ("---", "+++"):
            kind, num = HEADER, ""
        elif m:
            o, n = int(m.group(1)), int(m.group(2))
            kind, num = HUNK, ""
        elif text.startswith("-"):
            kind, num, o = REMOVED, f"{o:>5} {'':>5}", o + 1
        elif text.startswith("+"):
            kind, num, n = ADDED, f"{'':>5} {n:>5}", n + 1
        else:
            kind, num, o, n = EQUAL, f"{o:>5} {n:>5}", o + 1, n + 1
        side.lines.append(text)
        side.kinds.append(kind)
        side.numbers.append(num)
    return side
