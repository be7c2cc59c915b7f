"""What a script run may use: memory, the size of one file, CPU time, processes, the space of the
places it can write, and how long it may take. Read from the store's settings (``run.*``), set in
the run's process before it starts, and named in plain words when one of them stopped a run."""

from __future__ import annotations

import math
import os
import resource
import signal
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

DEFAULT_TIMEOUT_S = 60.0
MAX_TIMEOUT_S = 6 * 3600.0
MIB = 1024 * 1024


class LimitError(ValueError):
    """A limit or a timeout that is not a usable number."""


@dataclass(frozen=True)
class Setting:
    key: str
    default: int
    low: int
    high: int
    unit: str
    meaning: str


#: Each limit: its setting, default and allowed range.
SETTINGS = {
    "memory_mib": Setting("run.memory_mib", 512, 16, 65536, "MiB", "address space of each process"),
    "file_mib": Setting("run.file_mib", 64, 1, 65536, "MiB", "size of any one file it writes"),
    "cpu_seconds": Setting("run.cpu_seconds", 60, 1, int(MAX_TIMEOUT_S), "s", "CPU time of each process"),
    "processes": Setting("run.processes", 256, 8, 65536, "", "processes and threads at once"),
    "disk_mib": Setting("run.disk_mib", 256, 1, 65536, "MiB",
                        "space of its copy with its TMPDIR, and of its own /tmp and /dev/shm when sandboxed, "
                        "not of the machine's /tmp"),
}


@dataclass(frozen=True)
class Limits:
    memory_mib: int = SETTINGS["memory_mib"].default
    file_mib: int = SETTINGS["file_mib"].default
    cpu_seconds: int = SETTINGS["cpu_seconds"].default
    processes: int = SETTINGS["processes"].default
    disk_mib: int = SETTINGS["disk_mib"].default

    def __post_init__(self) -> None:
        for name, s in SETTINGS.items():
            _whole(getattr(self, name), s)


def from_settings(setting: Callable[[str, Any], Any]) -> Limits:
    """The limits a store's settings give (``store.setting``), each the default when not set.
    Raises LimitError naming the setting when one is not a whole number in its range."""
    return Limits(**{name: _whole(_or_default(setting(s.key, s.default), s), s) for name, s in SETTINGS.items()})


def _or_default(value: Any, s: Setting) -> Any:
    return s.default if value is None else value   # (a setting put back to its default is null)


def _whole(value: Any, s: Setting) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not s.low <= value <= s.high:
        unit = f" {s.unit}" if s.unit else ""
        raise LimitError(f"the setting {s.key} ({s.meaning}) must be a whole number from {s.low} to {s.high}{unit}; "
                         f"it is {value!r}")
    return value


def setting_named(key: str) -> Setting:
    """The limit setting called ``key`` ("memory_mib" or "run.memory_mib"); LimitError naming
    the known ones otherwise."""
    name = key.removeprefix("run.")
    if name not in SETTINGS:
        raise LimitError(f"no run limit is called {key!r}; the limits are: {', '.join(SETTINGS)}")
    return SETTINGS[name]


def set_limit(store, key: str, value: Any) -> Setting:
    """Store one limit (checked: a whole number in its range; None puts the default back)."""
    s = setting_named(key)
    if value is None:
        store.set_setting(s.key, None)
        return s
    try:
        number = int(str(value).strip(), 10)
    except ValueError:
        number = value
    store.set_setting(s.key, _whole(number, s))
    return s


def settings_help() -> str:
    """One line per limit setting, for a command's help."""
    return "; ".join(f"{s.key} ({s.meaning}, default {s.default}{' ' + s.unit if s.unit else ''})"
                     for s in SETTINGS.values())


def check_timeout(value: Any) -> float:
    """``value`` as a timeout in seconds. Raises LimitError unless it is a finite number above 0
    and at most MAX_TIMEOUT_S."""
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise LimitError(f"the timeout must be a number of seconds; got {value!r}") from None
    if not math.isfinite(seconds) or not 0 < seconds <= MAX_TIMEOUT_S:
        raise LimitError(f"the timeout must be more than 0 and at most {MAX_TIMEOUT_S:.0f} seconds "
                         f"({MAX_TIMEOUT_S / 3600:.0f} hours); got {value!r}")
    return seconds


def set_in_child(limits: Limits, processes: int | None) -> None:
    """Lower this process's limits (called in the run's process before it starts the script, and
    so inherited by all it starts). ``processes``: the process cap for this process's user, None
    to leave it to the sandbox (where only the sandbox's own processes count)."""
    memory = limits.memory_mib * MIB
    file_size = limits.file_mib * MIB
    for which, value in ((resource.RLIMIT_AS, memory), (resource.RLIMIT_FSIZE, file_size),
                         (resource.RLIMIT_CORE, 0)):
        resource.setrlimit(which, (value, value))
    # SIGXCPU at the limit; a process that ignores it is killed a second later.
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1))
    if processes is not None:
        resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))


#: Started inside the sandbox in front of the script: it caps the processes there, where only the
#: sandbox's own count (a cap set before the sandbox exists would count all of the user's processes).
IN_SANDBOX = ("import os, resource, signal, sys\n"
              "n = int(sys.argv[1])\nresource.setrlimit(resource.RLIMIT_NPROC, (n, n))\n"
              "for s in (signal.SIGPIPE, signal.SIGXFSZ):\n"
              "    signal.signal(s, signal.SIG_DFL)   # (Python ignores them, and exec keeps that)\n"
              "os.execvp(sys.argv[2], sys.argv[2:])\n")


def tasks_of(uid: int) -> int:
    """How many processes and threads ``uid`` runs now (what the kernel's process cap counts)."""
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    count += len(os.listdir(f"/proc/{entry.name}/task"))
            except OSError:
                pass
    return count


_MEMORY_WORDS = ("MemoryError", "Cannot allocate memory", "out of memory", "Out of memory", "bad_alloc",
                 "memory exhausted")
_FILE_WORDS = ("File too large", "File size limit exceeded")
_FORK_WORDS = ("fork: Resource temporarily unavailable", "fork: retry", "Cannot fork", "can't fork",
               "BlockingIOError: [Errno 11]", "fork failed")


def what_stopped(limits: Limits, code: int, sandboxed: bool, stderr: str, *, killed_by_us: bool,
                 disk_full: bool) -> str:
    """In plain words, the limit that stopped a run (or that it ran into), or "" when none shows.
    ``code`` as Popen gives it (minus a signal); in the sandbox a signal comes as 128 + the signal."""
    sig = -code if code < 0 else code - 128 if sandboxed and 128 < code < 128 + 65 else 0
    if disk_full:
        return f"stopped: wrote more than {limits.disk_mib} MiB into its copy (setting run.disk_mib)"
    if sig == signal.SIGXCPU:
        return f"stopped: over {limits.cpu_seconds} s of CPU time (setting run.cpu_seconds)"
    if sig == signal.SIGXFSZ:
        return f"stopped: wrote a file over {limits.file_mib} MiB (setting run.file_mib)"
    if sig == signal.SIGKILL and not killed_by_us:
        return (f"killed (SIGKILL), not by the studio: over {limits.cpu_seconds} s of CPU time with SIGXCPU "
                "ignored, or the system ran out of memory")
    said = []
    if any(w in stderr for w in _MEMORY_WORDS):
        said.append(f"ran out of memory: more than {limits.memory_mib} MiB (setting run.memory_mib)")
    if any(w in stderr for w in _FILE_WORDS):
        said.append(f"could not write a file over {limits.file_mib} MiB (setting run.file_mib)")
    if any(w in stderr for w in _FORK_WORDS):
        said.append(f"could not start more processes (limit {limits.processes}, setting run.processes)")
    if "No space left on device" in stderr:
        # (what filled up is gone with the sandbox: its /tmp and /dev/shm; its copy is only measured)
        said.append(f"ran out of space in /tmp, /dev/shm or its copy ({limits.disk_mib} MiB each, setting "
                    "run.disk_mib), or the disk holding its copy is full" if sandboxed else
                    "ran out of space: a disk of this machine is full (without the sandbox only its copy and "
                    f"its TMPDIR are held to {limits.disk_mib} MiB, setting run.disk_mib)")
    return "; ".join(said)


def cut_files(limits: Limits, names: list[str]) -> str:
    """In plain words, the files (``names``, as shown) exactly as big as the file-size limit, which
    may have been cut there with no error seen (a program killed by SIGXFSZ in a pipeline), or "".
    """
    if not names:
        return ""
    which = f"a file reached the {limits.file_mib} MiB file-size limit and may have been cut" if len(names) == 1 \
        else f"{len(names)} files reached the {limits.file_mib} MiB file-size limit and may have been cut"
    return f"{which}: {', '.join(names)} (setting run.file_mib)"
