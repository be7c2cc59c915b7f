"""The refusal of a flow collection, worded exactly without reading the whole frontmatter again.

Most published frontmatters hold a flow-style list (``allowed-tools: [Bash, Read]``), which the
strict dialect refuses. The fast path meets it as a flow event of the C parser, having read
everything before it as the exact parser reads it. The exact parser refuses it when the parser
asks for the collection, after its scanner has read ahead: the rest of the collection's line
and the first token after it. So what it says depends only on the collection's line and what
follows:

* when the collection closes on its line, holds only plain words and simply quoted text, and
  the next line with content starts a plain word or a list entry, nothing read ahead can fail:
  the refusal is worded directly, from the collection's position;
* otherwise the exact parser reads the text from that line on, with the lines before it left
  blank (the positions, and the line quoted in the message, stay the same), and its answer is
  used when it is that very refusal.

Anything else (a scanner error while reading ahead, which may depend on the indentation of the
lines left out) sends the caller back to reading the whole text exactly.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

import yaml

from skill_studio.core.format.strict_yaml_reader import flow_refusal as _refusal
from skill_studio.core.format.strict_yaml_tree import DialectError, Where, from_marked
from skill_studio.core.format.yaml_guard import disallowed_character

__all__ = ["flow_refusal"]

# What may stand before the collection on its line: block list entries, then at most one
# plain key and its ':' (so the collection is a value and never a key the scanner must complete).
_LEAD = r" *(?:- +)*(?:[A-Za-z0-9_][A-Za-z0-9_./-]*(?: [A-Za-z0-9_./-]+)*: +)?"

# A collection that closes on its line, two levels deep at most, of plain words (a ':' only
# inside a word, as in 'Bash(git:*)') and quoted text without escapes; then blanks or a comment.
_CHAR = r"[A-Za-z0-9_./()@+*=-]|:(?=[A-Za-z0-9_./()@+*=-])"
_PLAIN = rf"[A-Za-z0-9_./(](?:{_CHAR})*(?: +(?:{_CHAR})+)*"
_SCALAR = rf"(?:\"[^\"\\\n]*\"|'[^'\n]*'|{_PLAIN})"


def _collections(item: str) -> str:
    seq = rf"\[ *(?:{item} *(?:, *{item} *)*,? *)?\]"
    pair = rf"{_PLAIN}: +{item}"
    mapping = rf"\{{ *(?:{pair} *(?:, *{pair} *)*)?\}}"
    return rf"(?:{seq}|{mapping})"


# Blank and comment lines, then what the next line with content starts with.
_SKIP = r"(?:[ ]*(?:#[^\n]*)?\n)*[ ]*"
_SAFE_NEXT = r"[A-Za-z0-9_]|-[ \n]|\Z"
_PROBLEM = str(_refusal(True, None, None).problem)


@functools.cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The patterns above, compiled when a flow collection is first met (the one of a whole
    collection's line takes a few milliseconds to compile: a command that meets none never pays)."""
    inner = rf"(?:{_SCALAR}|{_collections(_SCALAR)})"
    flow_line = rf"{_collections(inner)}(?: +#[^\n]*| *)(?:\n|\Z)"
    return re.compile(_LEAD), re.compile(flow_line), re.compile(_SKIP), re.compile(_SAFE_NEXT)


def _line_end(text: str, at: int) -> int:
    """Where the line holding position ``at`` ends (its LF, or the end of the text)."""
    end = text.find("\n", at)
    return len(text) if end < 0 else end


def _next_content(text: str, at: int) -> int:
    """Where the next line with content starts its content (past blank and comment lines)."""
    skipped = _patterns()[2].match(text, at)
    return at if skipped is None else skipped.end()


def flow_refusal(text: str, line: int, column: int, where: Where,
                 read_exactly: Callable[[str, Where], object], tricky: int = -1) -> DialectError | None:
    """The exact parser's refusal of the flow collection starting at 0-based ``line`` and
    ``column`` of ``text`` (line ends LF only), or None when it cannot be told from the
    collection's line and what follows it (the caller then reads the whole text exactly).

    ``read_exactly`` is the exact parser's composer; it raises the refusal. ``tricky`` is where
    the first feature the C parser may read differently is (-1: none): the collection's line
    must come before it, and the quick wording is used only when what is read ahead (the line
    with the next content) comes before it too.
    """
    start = 0
    for _ in range(line):
        start = text.find("\n", start) + 1
        if start == 0:
            return None
    at = start + column
    if 0 <= tricky <= _line_end(text, at):
        return None
    lead, flow_line, _skip, safe_next = _patterns()
    if text[at:at + 1] not in ("[", "{") or not lead.fullmatch(text, start, at):
        return None
    simple = flow_line.match(text, at)
    if simple is not None:
        ahead = _next_content(text, simple.end())
        simple = simple if tricky < 0 or tricky > _line_end(text, ahead) else None
    if simple is not None and safe_next.match(text, ahead) and disallowed_character(text) is None:
        start_mark = yaml.Mark("<unicode string>", at, line, column, text, at)
        end_mark = yaml.Mark("<unicode string>", at + 1, line, column + 1, text, at + 1)
        return from_marked(_refusal(text[at] == "[", start_mark, end_mark))
    try:
        read_exactly("\n" * line + text[start:], where)
    except DialectError as e:
        if e.line == line and e.column == column + 1 and e.message.startswith("While scanning") \
                and _PROBLEM in e.message:
            return e
    return None
