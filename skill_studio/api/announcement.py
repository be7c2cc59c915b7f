"""Where a running server leaves its address and write token for the window (the store's settings),
and how a reader tells a live server's note from one a killed server left behind."""

from __future__ import annotations

import os
import socket
import sqlite3
from typing import Any
from urllib.parse import urlsplit

from skill_studio.api import SERVER_SETTING
from skill_studio.core.health import scores
from skill_studio.core.store import Store, StoreError

PROBE_TIMEOUT_S = 0.5   # a connection to the loopback is answered or refused at once


def process_identity(pid: int) -> str | None:
    """What tells process ``pid`` from a later one given the same number: the boot's id and the
    process's start time (Linux); None where that cannot be read (no such process, no /proc)."""
    try:
        with open(f"/proc/{int(pid)}/stat", "rb") as f:
            stat = f.read().decode("ascii", "replace")
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as f:
            boot = f.read().strip()
        start = stat[stat.rindex(")") + 2:].split()[19]   # field 22, counted after the command's ')'
    except (OSError, ValueError, IndexError, OverflowError):
        return None
    return f"{boot}:{start}"


def announce(store: Store, url: str, token: str) -> None:
    """Leave ``url`` and ``token`` in the store's settings for the window, with what identifies
    this process (removed by :func:`withdraw`, ignored and removed by :func:`running_server` once
    the process is gone)."""
    store.set_setting(SERVER_SETTING, {"url": url, "token": token, "pid": os.getpid(),
                                       "process": process_identity(os.getpid()),
                                       "started_at": scores.format_time(scores.utcnow())})


def withdraw(store: Store) -> None:
    """Remove this process's note, if it is still the one in the store."""
    try:
        with store.transaction():
            current = store.setting(SERVER_SETTING)
            if isinstance(current, dict) and current.get("pid") == os.getpid():
                store.set_setting(SERVER_SETTING, None)
    except (StoreError, sqlite3.Error):
        pass


def running_server(store: Store) -> dict[str, Any] | None:
    """The store's running server as announced ({"url", "token", "pid", "started_at"...}), or None.

    A note whose process is gone, or whose process number now belongs to another program (the
    server was killed and could not withdraw it), is treated as absent and removed."""
    try:
        info = store.setting(SERVER_SETTING)
    except (StoreError, sqlite3.Error):
        return None
    if info is None:
        return None
    if isinstance(info, dict) and info.get("url") and info.get("token") and _alive(info):
        return info
    _forget(store, info)
    return None


def _alive(info: dict[str, Any]) -> bool:
    try:
        pid = int(info.get("pid") or 0)
    except (TypeError, ValueError):
        return False
    if pid <= 0:
        return False
    identity = process_identity(pid)
    recorded = info.get("process")
    if identity is not None and recorded is not None:
        return identity == recorded
    if identity is None and os.path.isdir("/proc/self"):
        return False          # Linux: no such process
    if os.name == "posix" and identity is None:
        try:
            os.kill(pid, 0)   # signal 0: only asks whether it exists (on Windows it would end it)
        except ProcessLookupError:
            return False
        except PermissionError:
            pass              # alive, another user's
        except (OverflowError, ValueError):
            return False
    return _answers(str(info.get("url")))


def _answers(url: str) -> bool:
    """Whether something listens at the loopback address ``url`` names."""
    try:
        parts = urlsplit(url)
        if parts.hostname != "127.0.0.1" or parts.port is None:
            return False
        with socket.create_connection(("127.0.0.1", parts.port), timeout=PROBE_TIMEOUT_S):
            return True
    except (OSError, ValueError):
        return False


def _forget(store: Store, stale: Any) -> None:
    """Remove a dead server's note, unless a new server replaced it meanwhile."""
    try:
        with store.transaction():
            if store.setting(SERVER_SETTING) == stale:
                store.set_setting(SERVER_SETTING, None)
    except (StoreError, sqlite3.Error):
        pass   # a read-only or busy store: the note is ignored all the same
