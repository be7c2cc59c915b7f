"""Bounded link parsing for Python-Markdown, so hostile runs of brackets cannot make it quadratic."""

from __future__ import annotations

import re
from functools import cache

import markdown

__all__ = ["ScanBudget", "bound_link_processors"]

# Python-Markdown resolves ``[text](target)`` by scanning forward from every ``[`` to the matching
# ``]`` and from every ``(`` to the matching ``)``: linear per bracket, so runs of unmatched
# brackets make a paragraph quadratic. The link processors below keep the stock behaviour while a
# per-document scan budget lasts (far more than any real document uses) and afterwards look only
# a short way ahead, which bounds the cost of hostile input.

#: Brackets and target characters that may be scanned at full reach in one document.
_BRACKET_BUDGET = 200_000
_TARGET_BUDGET = 1_000_000
#: Reach while the budget lasts, and once it is spent.
_FULL_BRACKETS, _SHORT_BRACKETS = 1_000_000, 8
_FULL_TARGET, _SHORT_TARGET = 2048, 128
_BRACKET_RE = re.compile(r"[\[\]]")

#: The link-like inline processors and their standard priorities.
_LINK_PROCESSORS = {
    "reference": 170,
    "link": 160,
    "image_link": 150,
    "image_reference": 140,
    "short_reference": 130,
    "short_image_ref": 125,
}


class ScanBudget:
    """Scanning work left for the current document, shared by the link processors."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.brackets = _BRACKET_BUDGET
        self.target = _TARGET_BUDGET


class _BoundedLinkMixin:
    """Stock link parsing with a bounded look-ahead (see :class:`ScanBudget`)."""

    budget: ScanBudget

    def getText(self, data: str, index: int) -> tuple[str, int, bool]:  # noqa: N802 (API name)
        reach = _FULL_BRACKETS if self.budget.brackets > 0 else _SHORT_BRACKETS
        depth = 1
        seen = 0
        for m in _BRACKET_RE.finditer(data, index):
            seen += 1
            depth += 1 if m.group() == "[" else -1
            if depth == 0:
                self.budget.brackets -= seen
                return data[index:m.start()], m.end(), True
            if seen >= reach:
                break
        self.budget.brackets -= seen
        return "", len(data), False

    def getLink(self, data: str, index: int) -> tuple[str, str | None, int, bool]:  # noqa: N802 (API name)
        reach = _FULL_TARGET if self.budget.target > 0 else _SHORT_TARGET
        if data.find(")", index, index + reach) == -1:
            # Every way of closing a link target needs a ")".
            return "", None, index, False
        # The stock parser only looks forward from *index*: hand it just the window.
        window = data[index : index + reach]
        href, title, end, handled = super().getLink(window, 0)  # type: ignore[misc]
        self.budget.target -= end if handled else len(window)
        return href, title, index + end, handled


@cache
def _bounded(cls: type) -> type:
    return type(f"Bounded{cls.__name__}", (_BoundedLinkMixin, cls), {})


def bound_link_processors(md: markdown.Markdown) -> ScanBudget:
    """Replace *md*'s link processors with bounded ones sharing a new :class:`ScanBudget`, and
    return the budget (reset it before each document)."""
    budget = ScanBudget()
    for name, priority in _LINK_PROCESSORS.items():
        if name in md.inlinePatterns:
            old = md.inlinePatterns[name]
            kind: type = type(old)   # (mypy does not see type(old) as Hashable, as lru_cache wants)
            new = _bounded(kind)(old.pattern, md)
            new.budget = budget
            md.inlinePatterns.register(new, name, priority)
    return budget
