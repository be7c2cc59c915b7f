"""Which Model Context Protocol servers run on a store: each leaves a note in the store's settings
while it runs (its process, transport and, for HTTP, its address), so the window can say whether
one is running. A note whose process is gone is ignored and removed."""

from __future__ import annotations

import os
import sqlite3
from typing import Any

SETTING = "mcp.servers"


def _notes(store) -> dict[str, Any]:
    value = store.setting(SETTING, {})
    return value if isinstance(value, dict) else {}


def announce(store, transport: str, url: str | None = None) -> None:
    from skill_studio.api.announcement import process_identity
    from skill_studio.core.health import scores

    with store.transaction():
        notes = _notes(store)
        notes[str(os.getpid())] = {"transport": transport, "url": url, "process": process_identity(os.getpid()),
                                   "started_at": scores.format_time(scores.utcnow())}
        store.set_setting(SETTING, notes)


def withdraw(store) -> None:
    from skill_studio.core.store import StoreError

    try:
        with store.transaction():
            notes = _notes(store)
            if notes.pop(str(os.getpid()), None) is not None:
                store.set_setting(SETTING, notes)
    except (StoreError, sqlite3.Error):
        pass


def running(store) -> list[dict[str, Any]]:
    """The servers running on ``store`` now ({"pid", "transport", "url", "started_at"})."""
    from skill_studio.api.announcement import process_identity
    from skill_studio.core.store import StoreError

    try:
        notes = _notes(store)
    except (StoreError, sqlite3.Error):
        return []
    alive = {pid: n for pid, n in notes.items()
             if isinstance(n, dict) and pid.isdigit() and n.get("process") is not None
             and process_identity(int(pid)) == n.get("process")}
    if len(alive) != len(notes):
        try:
            store.set_setting(SETTING, alive)
        except (StoreError, sqlite3.Error):
            pass
    return [{"pid": int(pid), **n} for pid, n in sorted(alive.items())]


__all__ = ["SETTING", "announce", "running", "withdraw"]
