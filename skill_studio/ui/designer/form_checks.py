"""What the metadata form and the steps editor say about frontmatter values as the author types
them: the name's own rules, near-duplicate names, names not in the library, a trigger pattern
that is not a regular expression, frontmatter that does not parse. Plain functions over text."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

from skill_studio.core.format.diagnostics import Parsed
from skill_studio.core.format.frontmatter import compose
from skill_studio.core.format.lints import lint_data
from skill_studio.core.format.skillmd import SkillParseError
from skill_studio.core.format.strict import check_strict

__all__ = ["look_alike_messages", "name_messages", "not_in_library", "parse_error_banner", "pattern_problem",
           "split_tokens"]

#: The strict profile's codes for the name's own rules (S019, the folder match, is left out:
#: the folder follows the name when the skill is saved).
NAME_CODES = frozenset({"S013", "S014", "S015", "S016", "S017", "S018"})
#: The lint that finds a name too close to another skill's.
NEAR_DUPLICATE_CODE = "W004"
_TOKEN_SPLIT = re.compile(r"[\s,]+")


def name_messages(name: str) -> list[str]:
    """The strict profile's messages about ``name`` (the reference validator's wording), in its order."""
    diags, _ = check_strict(compose({"name": name, "description": "x"}, ""), None)
    return [d.message for d in diags if d.code in NAME_CODES]


def look_alike_messages(name: str, others: Collection[str]) -> list[str]:
    """The lints' warnings that ``name`` is close to one of ``others``."""
    return [d.message for d in lint_data(Parsed(data={"name": name}), None, others)
            if d.code == NEAR_DUPLICATE_CODE]


def split_tokens(text: str) -> list[str]:
    """Names typed in a token field (commas or spaces between), without repeats."""
    return list(dict.fromkeys(t for t in _TOKEN_SPLIT.split(text) if t))


def not_in_library(names: Iterable[str], library: Collection[str]) -> str:
    """'not in the library: a, b' for the names the library lacks ('' when it has them all)."""
    unknown = [n for n in names if n not in library]
    return f"not in the library: {', '.join(unknown)}" if unknown else ""


def pattern_problem(pattern: str) -> str:
    """Why ``pattern`` is not a regular expression ('' when it is, or is empty)."""
    if not pattern:
        return ""
    try:
        re.compile(pattern)
    except re.error as e:
        where = f" at position {e.pos}" if e.pos is not None else ""
        return f"Not a valid regular expression: {e.msg}{where}"
    return ""


def parse_error_banner(e: SkillParseError) -> str:
    """The banner over fields whose frontmatter does not parse: where, what, and where to fix it."""
    where = f" on line {e.line}" if e.line is not None else ""
    hint = f" ({e.hint})" if e.hint else ""
    return f"The frontmatter has an error{where}: {e.message}{hint} — fix it in the editor"
