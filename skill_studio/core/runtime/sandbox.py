"""The bubblewrap sandbox of script runs: only the system's programs and libraries visible (read
only), the run's temporary copy (and a small /tmp and /dev/shm of its own) the only places that can
be written, no network, no other process, no capabilities, and an unprivileged user even when the
studio runs as root (bubblewrap itself then starts as nobody)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from skill_studio.core.runtime import copies, limits

#: What of /etc a program may need to start (the loader's cache, names of users, time zone); the
#: rest (password hashes, keys, configuration) stays out of sight.
_ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime", "passwd", "group",
        "nsswitch.conf", "hosts", "mime.types", "fonts", "ssl", "ca-certificates", "python3")
_SYSTEM = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32")
NOBODY = 65534

_CHECKED: dict[str | None, tuple[str | None, str]] = {}
_SIZES: dict[str, bool] = {}


def command(tool: str, argv: list[str], writable: list[Path], cwd: Path, *, space_mib: int | None = None,
            processes: int | None = None) -> list[str]:
    """``argv`` wrapped in bubblewrap, the folders ``writable`` (one holds ``cwd``) the only writable
    ones besides /tmp and /dev/shm (each ``space_mib`` at most where bubblewrap can size them; without
    that, /dev/shm is read-only). ``processes``: at most that many processes in the sandbox."""
    out = [tool]
    for name in _SYSTEM:
        path = Path("/") / name
        if path.is_symlink():
            out += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            out += ["--ro-bind", str(path), str(path)]
    for name in _ETC:
        if (Path("/etc") / name).exists():
            out += ["--ro-bind", f"/etc/{name}", f"/etc/{name}"]
    sized = space_mib is not None and sizes_tmpfs(tool)
    size = ["--size", str(space_mib * 1024 * 1024)] if sized and space_mib is not None else []
    out += ["--dev", "/dev", *(size + ["--tmpfs", "/dev/shm"] if sized else []), "--remount-ro", "/dev",
            "--proc", "/proc", *size, "--tmpfs", "/tmp"]
    for prefix in sorted({sys.base_prefix, sys.prefix, sys.exec_prefix}):   # a Python outside /usr
        if prefix and not prefix.startswith("/usr/") and Path(prefix).is_dir() and _reachable(prefix):
            out += ["--ro-bind", prefix, prefix]
    for folder in writable:
        out += ["--bind", str(folder), str(folder)]
    if processes is not None:
        # Capped inside, where only the sandbox's processes count (see limits.IN_SANDBOX).
        argv = [python(), "-I", "-S", "-c", limits.IN_SANDBOX, str(processes), *argv]
    out += ["--remount-ro", "/",   # the sandbox's own root too
            "--unshare-all", "--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY), "--cap-drop", "ALL",
            "--die-with-parent", "--new-session", "--chdir", str(cwd), "--", *argv]
    return out


def python() -> str:
    """A Python for the run: this one, unless it is a bundled app's executable, or the run's user
    (nobody, see drops_to_nobody) cannot reach it; then the system's python3."""
    own = None if getattr(sys, "frozen", False) else sys.executable
    if own and _reachable(os.path.realpath(own)) and _reachable(os.path.join(sys.base_prefix, "lib")):
        return own
    for folder in os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep):
        found = shutil.which("python3", path=folder)
        if found and _reachable(os.path.realpath(found)):
            return found
    return "python3"


def _reachable(path: str) -> bool:
    """Whether the run's user can reach ``path``: anyone can, unless runs start as nobody."""
    return not drops_to_nobody() or copies.reachable_by_others(Path(path))


def sizes_tmpfs(tool: str) -> bool:
    """Whether this bubblewrap can give a tmpfs a size (``--size``, from version 0.5)."""
    if tool not in _SIZES:
        try:
            done = subprocess.run([tool, "--help"], capture_output=True, text=True, timeout=10)
            _SIZES[tool] = "--size" in done.stdout + done.stderr
        except (OSError, subprocess.SubprocessError):
            _SIZES[tool] = False
    return _SIZES[tool]


def drops_to_nobody() -> bool:
    """Whether runs start as nobody: when the studio runs as root, so that neither the sandbox's
    user nor a script run without it is root outside."""
    return os.geteuid() == 0


def become_nobody() -> None:
    """In a child before it starts the run (as root): become nobody, with no other groups."""
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(NOBODY)


def available() -> tuple[str | None, str]:
    """(the bubblewrap command, "") when runs can be sandboxed here, else (None, why not). Found
    out once, with the very options a run uses: bubblewrap may be installed where the system
    lets it make no namespaces."""
    tool = shutil.which("bwrap")
    if tool not in _CHECKED:
        _CHECKED[tool] = _try(tool) if tool else (None, "bubblewrap is not installed")
    return _CHECKED[tool]


def _try(tool: str) -> tuple[str | None, str]:
    with tempfile.TemporaryDirectory(prefix="skill-studio-sandbox-") as tmp:
        nobody = drops_to_nobody()
        try:
            if nobody:
                os.chmod(tmp, 0o777)   # (it is removed by root)
            done = subprocess.run(command(tool, ["/bin/sh", "-c", "echo ok > probe"], [Path(tmp)], Path(tmp)),
                                  capture_output=True, text=True, timeout=10,
                                  preexec_fn=become_nobody if nobody else None)
        except (OSError, subprocess.SubprocessError) as e:
            return None, f"bubblewrap cannot make a sandbox here ({e})"
        if done.returncode == 0 and (Path(tmp) / "probe").is_file():
            return tool, ""
        lines = done.stderr.strip().splitlines()
        why = lines[-1] if lines else done.returncode
        return None, f"bubblewrap cannot make a sandbox here{' as user nobody' if nobody else ''} ({why})"
