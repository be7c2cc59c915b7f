"""Refusals the C parser met, worded as the exact (pure-Python) parser words them, without the
exact parser reading the whole frontmatter again.

The fast path reads frontmatter with the C parser. Up to the first character or line start the
two parsers may read differently (a tab, NEL, a '---' line...: ``first_needing_exact`` in
``strict_yaml``) both read the text alike, and the exact parser reads at least as far ahead as
the C one before it hands a token on. So:

* a scanner error the C parser raises before that point is the exact parser's too, at the same
  position: for the kinds in ``_SAME_PLACE`` only the wording differs, and it is rewritten;
* a tab where a token would start, when it is that first feature, is refused there by both,
  unless a blank line before it makes the exact parser skip it as a YAML 1.2 reader does (left
  to the exact parser);
* an unclosed quoted scalar runs to the end of the text: worded when nothing in the text needs
  the exact parser and the scalar holds no escape (escapes are read differently);
* an anchor or a tag the C parser meets on a line before that point is refused from its line:
  the exact parser reads the text from that line on, the lines before it left blank (positions,
  and the line quoted in the message, stay the same), and its answer is used when it is that
  refusal on that line (as ``strict_yaml_flow`` does for a flow collection it cannot word alone).

Anything else gives None: the caller reads the whole text exactly.
"""

from __future__ import annotations

from collections.abc import Callable

import yaml

from skill_studio.core.format.strict_yaml_tree import DialectError, Where, from_marked
from skill_studio.core.format.yaml_guard import disallowed_character

__all__ = ["property_refusal", "scanner_refusal"]

_LABEL = "<unicode string>"

# libyaml's words for a scanner error placed at the offending character -> the exact scanner's.
_SAME_PLACE = {
    "mapping values are not allowed in this context": "mapping values are not allowed here",
    "block sequence entries are not allowed in this context": "sequence entries are not allowed here",
}
# libyaml's refusal of a tab where a token would start: (context, problem). (Its refusal of a tab
# in the indentation after a plain scalar is not the exact parser's: that one ends the scalar
# there and may refuse something else before it reads on.)
_TAB_REFUSAL = ("while scanning for the next token", "found character that cannot start any token")
_END_OF_QUOTED = ("while scanning a quoted scalar", "found unexpected end of stream")
# The exact parser's refusals of an anchor and of a tag (``strict_yaml_reader.DialectLoader``).
_PROPERTY_PROBLEMS = ("Found confusing disallowed anchor token", "Found disallowed tag tokens")


def _line_start(text: str, line: int) -> int:
    """Where 0-based ``line`` of ``text`` (LF line ends) starts, or -1 past its last line."""
    start = 0
    for _ in range(line):
        start = text.find("\n", start) + 1
        if start == 0:
            return -1
    return start


def _index(text: str, mark: yaml.Mark | None) -> int:
    """The position in ``text`` of a C parser's mark (its line and column), or -1."""
    if mark is None:
        return -1
    start = _line_start(text, mark.line)
    return -1 if start < 0 or start + mark.column > len(text) else start + mark.column


def _marked(text: str, at: int, mark: yaml.Mark) -> yaml.Mark:
    """The mark the exact reader gives position ``at`` (its buffer is the text and a NUL)."""
    return yaml.Mark(_LABEL, at, mark.line, mark.column, text + "\0", at)


def _after_comment_or_blank_line(text: str, at: int) -> bool:
    """True when the spaces and line ends just before ``at`` hold an empty line, or follow a line
    that may end in a comment. The exact parser keeps each of those as a token of its own and
    may stop there, where the C parser reads on to the token at ``at`` (and the exact reader
    skips the tabs after an empty line, as YAML 1.2 does)."""
    start = at
    while start > 0 and text[start - 1] in " \n":
        start -= 1
    if "\n\n" in text[start:at] or (start == 0 and at > 0):
        return True
    return "\n" in text[start:at] and "#" in text[text.rfind("\n", 0, start) + 1:start]


def scanner_refusal(error: yaml.MarkedYAMLError, text: str, tricky: int) -> DialectError | None:
    """The exact parser's refusal of ``text`` where the C parser raised ``error`` (a scanner
    error), or None when it cannot be told without reading the text exactly. ``tricky`` is the
    position of the first feature the parsers read differently (-1: none)."""
    at = _index(text, error.problem_mark)
    if at < 0 or error.problem_mark is None or disallowed_character(text) is not None:
        return None  # (the exact reader refuses a character YAML does not allow before reading)
    mark = _marked(text, at, error.problem_mark)
    problem = _SAME_PLACE.get(error.problem or "")
    if problem is not None:
        if 0 <= tricky <= at or _after_comment_or_blank_line(text, at):
            return None
        return from_marked(yaml.scanner.ScannerError(None, None, problem, mark))
    if (error.context, error.problem) == _TAB_REFUSAL:
        if at != tricky or text[at] != "\t" or _after_comment_or_blank_line(text, at):
            return None
        return from_marked(yaml.scanner.ScannerError("while scanning for the next token", None,
                                                     f"found character {text[at]!r} that cannot start any token",
                                                     mark))
    if (error.context, error.problem) == _END_OF_QUOTED and tricky < 0:
        start = _index(text, error.context_mark)
        if start < 0 or error.context_mark is None or text[start] not in "'\"" \
                or (text[start] == '"' and "\\" in text[start:]) or _after_comment_or_blank_line(text, start):
            return None
        return from_marked(yaml.scanner.ScannerError(error.context, _marked(text, start, error.context_mark),
                                                     error.problem, mark))
    return None


def property_refusal(text: str, line: int, tricky: int, where: Where,
                     read_exactly: Callable[[str, Where], object]) -> DialectError | None:
    """The exact parser's refusal of the anchor or tag the C parser met first, on 0-based
    ``line`` of ``text``, or None when it cannot be told from that line and what follows.

    ``read_exactly`` is the exact parser's composer; it raises the refusal.
    """
    start = _line_start(text, line)
    if start < 0 or disallowed_character(text) is not None:
        return None
    end = text.find("\n", start)
    if 0 <= tricky <= (len(text) if end < 0 else end):
        return None  # (the line itself holds a feature the C parser may have read differently)
    try:
        read_exactly("\n" * line + text[start:], where)
    except DialectError as e:
        if e.line == line and e.message.startswith("While scanning\n") \
                and any(problem in e.message for problem in _PROPERTY_PROBLEMS):
            return e
    return None
