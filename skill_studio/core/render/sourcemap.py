"""Scroll sync between a skill body and its preview: where each rendered heading sits in the source."""

from __future__ import annotations

import re

__all__ = ["SourceMap"]

#: Lines longer than this are never taken for headings (bounds the work on hostile lines).
_MAX_HEADING_LINE = 1_000
_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ATX_RE = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_SETEXT_RE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_WORD_RE = re.compile(r"\W+")


def _plain(text: str) -> str:
    return _WORD_RE.sub("", text).lower()


class SourceMap:
    """Where the headings of a Markdown body sit, by source line, paired with the rendered
    headings' anchors; turns a SKILL.md line into a document y by interpolating between them."""

    def __init__(self, body: str, headings: list[tuple[int, str, str]]) -> None:
        self.line_count = body.count("\n") + 1
        found = self._scan(body.split("\n"))
        #: ``(body line index from 0, anchor)`` in document order.
        self.anchors: list[tuple[int, str]] = []
        pos = 0
        for _level, text, anchor in headings:
            key = _plain(text)
            for i in range(pos, len(found)):
                if found[i][1] == key:
                    self.anchors.append((found[i][0], anchor))
                    pos = i + 1
                    break

    @staticmethod
    def _scan(lines: list[str]) -> list[tuple[int, str]]:
        """ATX and setext headings outside fenced code, as (line index, plain text)."""
        out: list[tuple[int, str]] = []
        fence = ""
        previous = ""
        for i, line in enumerate(lines):
            if len(line) > _MAX_HEADING_LINE:
                previous = ""   # no heading is this long; and the patterns below need not see it
                continue
            m = _FENCE_RE.match(line)
            if fence:
                if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                    fence = ""
                previous = ""
                continue
            if m:
                fence, previous = m.group(1), ""
                continue
            atx = _ATX_RE.match(line)
            if atx:
                text = re.sub(r"[ \t]+#+$", "", atx.group(2) or "")
                out.append((i, _plain(text)))
                previous = ""
                continue
            if _SETEXT_RE.match(line) and previous.strip() and not _SETEXT_RE.match(previous):
                out.append((i - 1, _plain(previous)))
                previous = ""
                continue
            previous = line
        return out

    def y_for(self, line_index: float, positions: dict[str, float], height: float) -> float:
        """The document y for a body line index, given each anchor's y and the document height."""
        points = [(0.0, 0.0)]
        for index, anchor in self.anchors:
            y = positions.get(anchor)
            if y is not None and index >= points[-1][0] and y >= points[-1][1]:
                points.append((float(index), y))
        points.append((float(max(self.line_count, points[-1][0] + 1)), max(height, points[-1][1])))
        if line_index <= 0:
            return 0.0
        for (l0, y0), (l1, y1) in zip(points, points[1:]):
            if l0 <= line_index < l1:
                return y0 + (y1 - y0) * (line_index - l0) / (l1 - l0)
        return points[-1][1]
