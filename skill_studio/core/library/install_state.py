"""What an agent finds where the studio installed a skill, next to what was installed and what the
store holds now: current, stale, modified, replaced or missing, and why, in words."""

from __future__ import annotations

import os
from pathlib import Path

from skill_studio.core.library.install_files import held_files, listing
from skill_studio.core.library.install_manifest import COPY, LINK

#: What an installed skill's folder can be, each with its colour role: what the store holds now; an
#: older version; edited or replaced by hand; gone; or its skill gone from the store.
INSTALL_STATES: dict[str, str] = {"current": "success", "stale": "attention", "modified": "attention",
                                  "replaced": "attention", "missing": "danger", "removed from store": "danger"}
CHANGED_BY_HAND = ("modified", "replaced")


def held(place: Path, entry: dict) -> str | dict[str, str]:
    """What is at ``place``: "missing", "replaced" (not what the studio put there), or the hash
    of each file an agent finds there (through the link, for a link)."""
    if entry.get("mode") == LINK:
        if not place.is_symlink():
            return "replaced" if place.exists() else "missing"
        try:
            if entry.get("target") is not None and os.readlink(place) != entry["target"]:
                return "replaced"
        except OSError:
            return "missing"
        if not place.is_dir():
            return "missing"
    elif place.is_symlink() or (place.exists() and not place.is_dir()):
        return "replaced"
    elif not place.exists():
        return "missing"
    try:
        return held_files(place)
    except OSError:   # a file that cannot be read is not the one installed
        return {"": ""}


def state_of(place: Path, entry: dict, current: dict[str, str] | None = None) -> str:
    """What an agent finds at ``place`` next to ``current`` (the hash of each file of the store's
    version; None to ask only whether it was changed by hand): current; stale (an older version,
    or a link of an earlier kind that does not follow saves); modified (a copy's files changed,
    added or removed since it was installed); replaced (something else put in its place); or
    missing."""
    found = held(place, entry)
    if isinstance(found, str):
        return found
    if entry.get("mode") == LINK:   # the studio's own copy behind it: never changed by hand
        if current is None or (found == current and entry.get("target") is not None):
            return "current"
        return "stale"
    if current is not None and found == current:
        return "current"
    if found != (entry.get("files") or {}):
        return "modified"
    return "current" if current is None else "stale"


def change_detail(place: Path, entry: dict, state: str) -> str:
    if state == "replaced":
        if entry.get("mode") == LINK and place.is_symlink():
            return f"the link now points at {os.readlink(place)}, not at the studio's copy"
        return "something else is in its place"
    if state == "modified":
        recorded = set(entry.get("files") or {})
        found = set(listing(place)) if place.is_dir() else set()
        parts = []
        if found - recorded:
            parts.append("files added: " + ", ".join(sorted(found - recorded)[:3]))
        if recorded - found:
            parts.append("files removed: " + ", ".join(sorted(recorded - found)[:3]))
        return "; ".join(parts) or "files changed"
    if state == "missing":
        return "its folder is gone" if entry["mode"] == COPY else "its link is gone or points nowhere"
    return ""


def stale_detail(place: Path, entry: dict, version: int) -> str:
    if entry["mode"] == COPY:
        return f"v{entry['version']} installed, v{version} in the store"
    if entry.get("target") is None:
        return (f"an earlier link to {os.readlink(place)}, which does not follow saves; update it to link to "
                f"the studio's copy of v{version}")
    if held(place, entry) == entry.get("files"):
        return f"the linked copy holds v{entry['version']}, v{version} in the store; update it"
    return f"the linked copy holds other files than v{version} in the store; update it"
