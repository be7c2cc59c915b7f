"""The manifest of a folder the studio installs skills into (core.library.install): what it
installed there, read, checked and written in one step, and the lock that makes the installs
and removals of several processes in one folder take turns."""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from skill_studio.core.library.bounded_read import ReadRefused, decode_utf8, read_bounded

MANIFEST = ".skill-studio-install.json"
LOCK = ".skill-studio-install.lock"
COPY, LINK = "copy", "link"
#: How long to wait for another install into the same folder where no blocking lock exists.
LOCK_WAIT_S = 600
#: The largest manifest read (each entry takes some hundred bytes: tens of thousands fit).
MAX_MANIFEST_BYTES = 8 * 1024 * 1024


class InstallError(Exception):
    """Something in the target folder stops an install; nothing of it was changed."""


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the lock file ``path`` (created as needed) for the block: another process taking it
    waits until this one is done. Uses flock where there is fcntl, the C runtime's byte lock on
    Windows; elsewhere the block runs unlocked (the manifest is still written in one step)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except OSError as e:
        raise InstallError(f"{path}: the install lock cannot be opened ({e.strerror or e}); check that the "
                           "folder is writable") from None
    try:
        _acquire(fd, path)
        yield
    finally:
        os.close(fd)   # closing releases the lock


def _acquire(fd: int, path: Path) -> None:
    try:
        import fcntl
    except ImportError:
        fcntl = None   # type: ignore[assignment]
    if fcntl is not None:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                return
            except InterruptedError:
                continue
            except OSError:   # a file system without flock: go on unlocked
                return
    try:
        import msvcrt
    except ImportError:
        return
    deadline = time.monotonic() + LOCK_WAIT_S
    while True:
        try:
            msvcrt.locking(fd, msvcrt.LK_LOCK, 1)   # itself retries for about ten seconds
            return
        except OSError:
            if time.monotonic() > deadline:
                raise InstallError(f"{path}: another install into this folder has not finished; "
                                   "try again when it has") from None


def read_manifest(folder: str | os.PathLike) -> dict:
    """The manifest of a target folder ({"skills": {}} when it has none). Raises InstallError
    when it is not one of ours or an entry is malformed (naming the entry)."""
    path = Path(folder) / MANIFEST
    if not os.path.lexists(path):
        return {"skills": {}}
    try:    # never through a link, never a device or fifo, never more than the limit
        raw, _mode = read_bounded(path, MAX_MANIFEST_BYTES, what="install manifest", follow_links=False)
        data = json.loads(decode_utf8(raw, str(path)))
    except ReadRefused as e:
        raise InstallError(f"{e}; move it away to install here") from None
    except (OSError, RecursionError, json.JSONDecodeError) as e:
        raise InstallError(f"{path}: not a readable install manifest ({e}); move it away to install here") from None
    if not isinstance(data, dict) or not isinstance(data.get("skills"), dict):
        raise InstallError(f"{path}: not an install manifest of Skill Studio; move it away to install here")
    for name, entry in data["skills"].items():
        problem = folder_name_problem(name) or _entry_problem(entry)
        if problem:
            raise InstallError(f'{path}: the entry "{name}" {problem}; fix or remove it to install here')
    return data


def _entry_problem(entry) -> str | None:
    if not isinstance(entry, dict):
        return "is not an object"
    if entry.get("mode") not in (COPY, LINK):
        return 'has no mode "copy" or "link"'
    if not isinstance(entry.get("version"), int) or not isinstance(entry.get("content_hash"), str):
        return "has no version number or content hash"
    files = entry.get("files", {})
    if not isinstance(files, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
        return "has a files list that is not {path: hash}"
    return None


def folder_name_problem(name) -> str | None:
    """Why ``name`` cannot be the name of a folder directly inside a target folder, or None."""
    if not isinstance(name, str) or not name.strip():
        return "is not a name"
    if "/" in name or "\\" in name or "\0" in name or name in (".", "..") or name.startswith("."):
        return "is not a plain folder name (a path, a hidden name or a parent)"
    if name in (MANIFEST, LOCK):
        return "is the manifest's own name"
    return None


def write_manifest(folder: Path, data: dict) -> None:
    """Write the manifest in one step: a reader finds the old one or the new one, never a part."""
    fd, tmp = tempfile.mkstemp(prefix=f"{MANIFEST}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, ensure_ascii=False, indent=2, sort_keys=True)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, folder / MANIFEST)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
