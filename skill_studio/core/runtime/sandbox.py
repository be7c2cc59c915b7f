"""The bubblewrap sandbox of script runs: only the system's programs and libraries visible (read
only), the run's temporary folder the one place that can be written, no network, no other
process, no capabilities, and an unprivileged user even when the studio runs as root."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

#: What of /etc a program may need to start (the loader's cache, names of users, time zone); the
#: rest (password hashes, keys, configuration) stays out of sight.
_ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime", "passwd", "group",
        "nsswitch.conf", "hosts", "mime.types", "fonts", "ssl", "ca-certificates", "python3")
_SYSTEM = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32")
NOBODY = 65534

_CHECKED: dict[str | None, tuple[str | None, str]] = {}


def command(tool: str, argv: list[str], writable: Path, cwd: Path) -> list[str]:
    """``argv`` wrapped in bubblewrap, ``writable`` (which holds ``cwd``) the only writable folder."""
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
    out += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    for prefix in sorted({sys.base_prefix, sys.prefix, sys.exec_prefix}):   # a Python outside /usr
        if prefix and not prefix.startswith("/usr/") and Path(prefix).is_dir():
            out += ["--ro-bind", prefix, prefix]
    out += ["--bind", str(writable), str(writable), "--remount-ro", "/",   # the sandbox's own root too
            "--unshare-all", "--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY), "--cap-drop", "ALL",
            "--die-with-parent", "--new-session", "--chdir", str(cwd), "--", *argv]
    return out


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
        try:
            done = subprocess.run(command(tool, ["/bin/sh", "-c", "echo ok > probe"], Path(tmp), Path(tmp)),
                                  capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.SubprocessError) as e:
            return None, f"bubblewrap cannot make a sandbox here ({e})"
        if done.returncode == 0 and (Path(tmp) / "probe").is_file():
            return tool, ""
        lines = done.stderr.strip().splitlines()
        return None, f"bubblewrap cannot make a sandbox here ({lines[-1] if lines else done.returncode})"
