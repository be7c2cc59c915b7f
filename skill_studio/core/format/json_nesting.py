"""How deep a JSON text a user sends nests, read before any decoder sees it: Python's decoder
recurses once per level and fails past about a thousand, in words that say nothing about the
input; the command line and the local API refuse such a text in their own words."""

from __future__ import annotations

import re

#: Deepest nesting of arrays and objects accepted in JSON a user sends (Python's decoder recurses
#: once per level and fails past about a thousand, in words that say nothing about the input).
MAX_JSON_DEPTH = 100
# A string (to its closing quote, or to the end of an unclosed one), or a bracket outside strings.
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]', re.DOTALL)


def json_too_deep(text: str) -> str | None:
    """Why ``text`` cannot be decoded as JSON because it nests too deep ("the JSON is nested more
    than 100 levels deep (at character N)"), or None. Read from the characters alone, in one pass,
    before any decoder sees them: brackets inside strings are text."""
    depth = 0
    for m in _JSON_TOKEN.finditer(text):
        c = m.group()[0]
        if c in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                return f"the JSON is nested more than {MAX_JSON_DEPTH} levels deep (at character {m.start() + 1})"
        elif c in "]}":
            depth = max(depth - 1, 0)
    return None
