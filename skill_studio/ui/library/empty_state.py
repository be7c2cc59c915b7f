"""What the library says when it lists no skill: how to add the first ones to an empty store, or
which filters hide every skill, with a link that clears them."""

from __future__ import annotations

from html import escape

from skill_studio.core.model import Lifecycle
from skill_studio.core.store import Filters

EMPTY_STORE = ("No skills yet. Import skill folders or .skill/.zip files (File ▸ Import, or drop them "
               "here), or create a new skill (File ▸ New skill).")


def empty_state_html(store_is_empty: bool, flt: Filters) -> str:
    """The empty state's rich text (a "clear" link clears the filters)."""
    if store_is_empty:
        return escape(EMPTY_STORE, quote=False)
    return (f"No skills match {escape(describe_filters(flt), quote=False)}.<br><br>"
            "<a href=\"clear\">Clear the filters</a> to see every skill.")


def describe_filters(flt: Filters) -> str:
    """The filters in words: the search text alone, or "the filters (…)"."""
    if flt.text and not (flt.lifecycle or flt.origin or flt.tag):
        return f"“{flt.text}”"
    parts = [f"“{flt.text}”"] if flt.text else []
    if flt.lifecycle:
        parts.append(Lifecycle(flt.lifecycle).label.lower())
    if flt.origin:
        parts.append(f"origin {flt.origin}")
    if flt.tag:
        parts.append(f"tag {flt.tag}")
    return "the filters (" + ", ".join(parts) + ")" if parts else "the filters"
