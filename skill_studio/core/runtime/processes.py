"""Stopping a run and everything it started, also what left its process group: a process that
called setsid, or that was orphaned and adopted by init, still carries a mark of the run (the
run's session, its environment token, a working directory in the copy, or the run's output pipes)
and is found by walking /proc. Only processes of the run's users, started after the run, are looked at."""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

TOKEN_VARIABLE = "SKILL_STUDIO_RUN"
_ROUNDS = 100   # a script that forks as fast as it is killed is capped by its process limit


@dataclass(frozen=True)
class RunMarks:
    """What every process of one run carries (most of it can be shed, not all at once)."""

    leader: int                # the run's first process: its process group and session
    started: int               # its start time (clock ticks since boot): the run's processes start later
    token: str                 # the value of TOKEN_VARIABLE in the run's environment
    root: str                  # the run's folder: a working directory in it
    pipes: frozenset[str]      # "pipe:[inode]" of its stdout and stderr
    uids: frozenset[int]


def now() -> int:
    """The time as /proc gives processes' start times (clock ticks since boot), a tick early."""
    return int(time.clock_gettime(time.CLOCK_BOOTTIME) * os.sysconf("SC_CLK_TCK")) - 1


def marks(leader: int, started: int, token: str, root: Path, pipe_fds: list[int], uids: set[int]) -> RunMarks:
    pipes = frozenset(f"pipe:[{os.fstat(fd).st_ino}]" for fd in pipe_fds)
    return RunMarks(leader, started, token, str(root), pipes, frozenset(uids))


def _stat(pid: int | str) -> list[str] | None:
    """The fields of /proc/PID/stat after the command's name (state first), or None."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def stop_group(pid: int) -> None:
    """Kill the run's process group (the script and what it started without leaving it)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def sweep(m: RunMarks) -> int:
    """Kill every process that carries one of the run's marks, until none is left (or 100 rounds:
    a fork bomb is held by its process limit); returns how many were killed."""
    killed = 0
    for _ in range(_ROUNDS):
        found = [pid for pid in _candidates(m) if _belongs(pid, m)]
        if not found:
            break
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except (ProcessLookupError, PermissionError):
                pass
    return killed


def _candidates(m: RunMarks) -> list[int]:
    me = os.getpid()
    out = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            if entry.stat().st_uid not in m.uids:
                continue
        except OSError:
            continue
        fields = _stat(entry.name)
        # (a zombie is ended already; it waits for its parent)
        if fields and fields[0] not in ("Z", "X") and int(fields[19]) >= m.started:
            out.append(int(entry.name))
    return out


def _belongs(pid: int, m: RunMarks) -> bool:
    base = f"/proc/{pid}"
    fields = _stat(pid)
    if fields is None:
        return False
    if m.leader in (int(fields[2]), int(fields[3])):   # its process group or session
        return True
    try:
        if f"{TOKEN_VARIABLE}={m.token}".encode() in Path(f"{base}/environ").read_bytes().split(b"\0"):
            return True
    except OSError:
        pass
    try:
        cwd = os.readlink(f"{base}/cwd")
        if cwd == m.root or cwd.startswith(m.root + "/"):
            return True
    except OSError:
        pass
    try:
        for fd in os.listdir(f"{base}/fd"):
            try:
                if os.readlink(f"{base}/fd/{fd}") in m.pipes:
                    return True
            except OSError:
                pass
    except OSError:
        pass
    return False
