"""How much of a skill body the preview renders richly, and the plain-text view shown beyond that.

Python-Markdown's inline pass is quadratic in the size of a paragraph, and the preview widget's
layout grows faster than linearly with headings, list items, table cells and unbroken words. The
limits here are checked before rendering (on the source) and while sanitising (on the HTML), so a
hostile body costs a bounded amount of work and shows as escaped, bounded plain text instead.
"""

from __future__ import annotations

import html
import re

__all__ = [
    "MAX_ANCHORS",
    "MAX_HIGHLIGHT_CHARS",
    "MAX_LIST_ITEMS",
    "MAX_SOURCE_CHARS",
    "MAX_TABLE_CELLS",
    "MAX_TEXT_CHARS",
    "LAYOUT_BUDGET",
    "TOO_LARGE",
    "break_long_words",
    "source_limit",
    "text_fallback",
]

#: Bodies longer than this (in characters) are shown as text.
MAX_SOURCE_CHARS = 256 * 1024
#: A paragraph, list or table (lines between blank lines, outside fenced code) longer than this.
MAX_BLOCK_CHARS = 32 * 1024
#: More headings than this.
MAX_HEADINGS = 1_000
#: Lists and quotes nested deeper than this (four columns of indent or one ``>`` per level).
MAX_NESTING = 24
#: Headings past this many keep their text but get no anchor (each anchor slows the layout).
MAX_ANCHORS = 500
#: A list with more items is cut into consecutive lists of this many (one long list lays out
#: in quadratic time; several shorter ones in linear time).
MAX_LIST_ITEMS = 300
#: A table with more cells is shown as text (each cell costs the layout about 0.2 ms).
MAX_TABLE_CELLS = 400
#: Code blocks longer than this, or that make more coloured pieces than ``MAX_HIGHLIGHT_SPANS``
#: (each costs the layout some 14 microseconds), are shown plain; and highlighting stops once a
#: document has highlighted ``MAX_HIGHLIGHT_TOTAL`` characters.
MAX_HIGHLIGHT_CHARS = 16 * 1024
MAX_HIGHLIGHT_SPANS = 3_000
MAX_HIGHLIGHT_TOTAL = 32 * 1024
#: Seconds of highlighting one code block may take before it is shown plain instead.
MAX_HIGHLIGHT_SECONDS = 0.1
#: What the rendered HTML may cost the preview's layout, in units of about a microsecond: each
#: element, table cell, anchor and character is weighed by what it costs there (see sanitize).
LAYOUT_BUDGET = 100_000
#: Words longer than this get break opportunities every ``_WORD_PIECE`` characters.
MAX_WORD_CHARS = 200
_WORD_PIECE = 100
#: The plain-text view shows at most this many characters and lines, in lines at most this long
#: (each line is a block of the preview's document: many short ones cost as much as long text).
MAX_TEXT_CHARS = 64 * 1024
MAX_TEXT_LINES = 4_000
_TEXT_LINE = 2_000

#: First words of the notice shown above a body shown as text.
TOO_LARGE = "Too large to preview: shown as text"

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")
_QUOTES = re.compile(r"[ \t]*(?:>[ \t]?)+")
#: Starts only where a word starts, so the search stays linear in the text's length.
_LONG_WORD = re.compile(r"(?<![^\s\u200b])[^\s\u200b]{" + str(MAX_WORD_CHARS + 1) + ",}")


def source_limit(source: str) -> str | None:
    """The limit *source* (a Markdown body) goes over, in plain words, or ``None`` when it can be
    rendered richly. Linear in the length of *source*."""
    if len(source) > MAX_SOURCE_CHARS:
        return f"the body is over {MAX_SOURCE_CHARS // 1024:,} KiB"
    fence = ""
    block = headings = 0
    for line in source.split("\n"):
        opened = _FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
            continue
        if opened:
            fence, block = opened.group(1), 0
            continue
        if not line.strip():
            block = 0
            continue
        block += len(line) + 1
        if block > MAX_BLOCK_CHARS:
            return f"a paragraph, list or table is over {MAX_BLOCK_CHARS // 1024} KiB"
        if _HEADING.match(line):
            headings += 1
            if headings > MAX_HEADINGS:
                return f"it has more than {MAX_HEADINGS:,} headings"
        if _nesting(line) > MAX_NESTING:
            return f"lists or quotes are nested more than {MAX_NESTING} deep"
    return None


def _nesting(line: str) -> int:
    """How deep *line* sits in lists and quotes, roughly: a level per ``>`` and per four columns
    of indent (tabs counted as four)."""
    quotes = _QUOTES.match(line)
    depth = quotes.group().count(">") if quotes else 0
    rest = line[quotes.end():] if quotes else line
    indent = len(rest) - len(rest.lstrip(" \t"))
    columns = rest[:indent].count(" ") + 4 * rest[:indent].count("\t")
    return depth + columns // 4


def break_long_words(text: str) -> str:
    """*text* with a zero-width space every hundred characters of any word over two hundred: the
    layout breaks such a word in linear time, and the text reads the same."""
    if len(text) <= MAX_WORD_CHARS:
        return text
    return _LONG_WORD.sub(_pieces, text)


def _pieces(m: re.Match[str]) -> str:
    word = m.group()
    return "\u200b".join(word[i:i + _WORD_PIECE] for i in range(0, len(word), _WORD_PIECE))


def text_fallback(source: str, reason: str) -> str:
    """HTML showing *source* as escaped plain text under a notice naming *reason*; bounded: at
    most :data:`MAX_TEXT_CHARS` characters and :data:`MAX_TEXT_LINES` lines, cut to a few
    thousand characters each."""
    shown = source[:MAX_TEXT_CHARS]
    lines: list[str] = []
    taken = 0
    for line in shown.split("\n", MAX_TEXT_LINES)[:MAX_TEXT_LINES]:
        taken += len(line) + 1
        while len(line) > _TEXT_LINE:
            lines.append(line[:_TEXT_LINE])
            line = line[_TEXT_LINE:]
        lines.append(line)
    rest = max(0, len(source) - taken)
    more = f"<p><i>… {rest:,} more characters are not shown.</i></p>" if rest > 0 else ""
    notice = html.escape(f"{TOO_LARGE} ({reason}).", quote=False)
    return (f'<p class="image-placeholder">{notice}</p>'
            f"<pre>{html.escape(chr(10).join(lines), quote=False)}</pre>{more}")
