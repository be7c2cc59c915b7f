"""The files of installed skills: read-only copies made writable again to be replaced or
removed, listings and hashes (see core.library.install)."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from pathlib import Path


def file_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def writable(path: Path) -> None:
    """Give back the owner's write permission in a read-only installed copy (to replace or remove it)."""
    if path.is_symlink() or not path.is_dir():
        return
    for root, dirs, _files in os.walk(path):
        os.chmod(root, stat.S_IMODE(os.lstat(root).st_mode) | stat.S_IWUSR | stat.S_IXUSR | stat.S_IRUSR)
        for d in dirs:
            p = os.path.join(root, d)
            if not os.path.islink(p):
                os.chmod(p, stat.S_IMODE(os.lstat(p).st_mode) | stat.S_IWUSR | stat.S_IXUSR | stat.S_IRUSR)


def read_only(path: Path) -> None:
    for root, dirs, files in os.walk(path, topdown=False):
        for f in files:
            p = os.path.join(root, f)
            os.chmod(p, stat.S_IMODE(os.lstat(p).st_mode) & ~0o222)
        for d in dirs:
            p = os.path.join(root, d)
            os.chmod(p, stat.S_IMODE(os.lstat(p).st_mode) & ~0o222)
    os.chmod(path, stat.S_IMODE(os.lstat(path).st_mode) & ~0o222)


def remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        writable(path)
        shutil.rmtree(path)


def listing(place: Path) -> dict[str, Path]:
    out = {}
    for root, _dirs, files in os.walk(place):
        for f in files:
            p = Path(root) / f
            out[str(p.relative_to(place))] = p
    return out


def describe_os_error(e: OSError) -> str:
    """An OSError in words: the path and what went wrong, without Python's errno prefix."""
    what = e.strerror or str(e)
    return f"{e.filename}: {what}" if e.filename else what
