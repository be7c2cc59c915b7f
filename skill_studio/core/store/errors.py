"""What the store refuses to do, as exceptions whose message says why."""

from __future__ import annotations

import os
from pathlib import Path


class StoreError(Exception):
    """A store operation that cannot be done; the message says why."""


class NotFound(StoreError):
    pass


class StoreBusy(StoreError):
    """Another process held the store for longer than the wait allows; trying again later works."""

    @classmethod
    def held(cls, path: str | os.PathLike, detail: object) -> StoreBusy:
        """The error for a write that waited too long: it names the process holding the store
        where that can be found (Linux), and says what to do."""
        holder = store_holder(path)
        who = f"process {holder[0]} ({holder[1]})" if holder else "another program"
        return cls(f"{path}: cannot write to the skill store ({detail}): {who} is writing to it; "
                   f"wait for it to finish, or close {'that program' if holder else 'it'} and try again")


class AlreadyExists(StoreError):
    pass


class VersionConflict(StoreError):
    """The skill changed since the caller read it."""

    def __init__(self, name: str, expected: int, current: int):
        super().__init__(f'"{name}" was changed elsewhere: you edited version {expected}, '
                         f"the store now has version {current}; reload it and apply your change again")
        self.name, self.expected, self.current = name, expected, current


class DependentsExist(StoreError):
    def __init__(self, name: str, dependents: list[str], action: str = "delete"):
        super().__init__(f'Cannot {action} "{name}": {len(dependents)} other skill(s) depend on it: '
                         + ", ".join(dependents))
        self.name, self.dependents = name, dependents


class ReadOnlySkill(StoreError):
    """Builtin skills ship with the app: they can be copied into a new skill, not changed."""

    def __init__(self, name: str):
        super().__init__(f'"{name}" is a builtin skill and cannot be changed; copy it into a new skill')
        self.name = name


class UnusableStore(StoreError):
    """A file that cannot be used as a skill store, left exactly as it was.

    ``kind`` says why: ``"not-a-store"`` (not SQLite, or another program's database),
    ``"newer"`` (written by a newer Skill Studio), ``"damaged"`` (SQLite reports corruption;
    what is readable can still be rescued), ``"not-a-file"`` (a folder, a device, a fifo or a
    socket, looked at but never opened) or ``"unreadable"`` (it cannot be opened at all).
    """

    def __init__(self, path, kind: str, reason: str):
        hint = {"damaged": "; nothing was changed. Export what is still readable with: "
                           f"skill-studio --store '{path}' rescue --to FOLDER",
                "newer": "; open it with a newer Skill Studio (the file was not changed)",
                "not-a-store": "; choose another file (this one was not changed)"}.get(kind, "")
        super().__init__(f"{path}: {reason}{hint}")
        self.path, self.kind, self.reason = path, kind, reason


# --- who holds a store --------------------------------------------------------------

# SQLite's write lock in WAL mode: byte 120 of the -shm file; in rollback mode, the RESERVED and
# PENDING bytes of the store file itself.
_WAL_WRITE_BYTE = 120
#: The files of one store: the database, its write-ahead log, its shared memory, its journal.
STORE_SUFFIXES = ("", "-wal", "-shm", "-journal")
_PENDING_BYTE, _RESERVED_BYTE = 0x40000000, 0x40000001


def store_holder(path: str | os.PathLike) -> tuple[int, str] | None:
    """(pid, command) of another process holding the store at ``path`` for writing, or else of one
    that has it open; None where that cannot be found (no /proc, another user's process hidden)."""
    if not hasattr(os, "major") or not os.path.isdir("/proc"):
        return None
    files = [Path(f"{os.fspath(path)}{suffix}") for suffix in STORE_SUFFIXES]
    try:
        return _lock_holder(files) or _opener(files)
    except OSError:
        return None


def _lock_holder(files: list[Path]) -> tuple[int, str] | None:
    ids: dict[str, str] = {}
    for f in files:
        try:
            st = f.stat()
        except OSError:
            continue
        ids[f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"] = f.name
    with open("/proc/locks", encoding="ascii", errors="replace") as locks:
        for line in locks:
            parts = line.split()
            if "->" in parts or len(parts) < 8 or parts[3] != "WRITE":   # a waiter, or a reader
                continue
            pid, file_id, start, end = parts[4], parts[5], parts[6], parts[7]
            name = ids.get(file_id)
            if name is None or not pid.isdigit() or int(pid) in (0, os.getpid()):
                continue
            first, last = int(start), (2 ** 63 if end == "EOF" else int(end))
            held = (_WAL_WRITE_BYTE,) if name.endswith("-shm") else (_PENDING_BYTE, _RESERVED_BYTE)
            if any(first <= b <= last for b in held):
                return int(pid), _command(int(pid))
    return None


def _opener(files: list[Path]) -> tuple[int, str] | None:
    wanted = {os.fspath(f.resolve()) for f in files}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            for fd in os.scandir(f"/proc/{entry.name}/fd"):
                if os.readlink(fd.path) in wanted:
                    return int(entry.name), _command(int(entry.name))
        except OSError:   # gone meanwhile, or another user's
            continue
    return None


def _command(pid: int) -> str:
    """The command line of ``pid``, short: the program's file name and its first arguments."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            args = f.read().decode("utf-8", "replace").split("\0")
    except OSError:
        return "command unknown"
    args = [a for a in args if a]
    if not args:
        return "command unknown"
    text = " ".join([os.path.basename(args[0]), *args[1:]])
    return text if len(text) <= 60 else text[:57] + "..."
