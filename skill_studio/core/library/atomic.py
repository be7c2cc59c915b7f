"""Folders replaced in one step: built beside the target, then swapped in, so a reader (or a kill)
finds the old folder or the new one, never a mix and never nothing."""

from __future__ import annotations

import ctypes
import errno
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

#: The names of the folders built or parked beside a target: ``.<name>.<random>.tmp`` / ``.old``.
#: Discovery skips them, so what a kill leaves behind is never taken for a skill.
STAGING_RE = re.compile(r"^\..+\.(tmp|old)$")
#: A staging folder this old is left over from a process that died; younger ones may be in use.
STALE_AFTER_S = 120

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def _load_renameat2():
    try:
        func = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):   # not Linux, or a C library without it
        return None
    func.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    func.restype = ctypes.c_int
    return func


_renameat2 = _load_renameat2()


def is_staging(name: str) -> bool:
    """Whether a folder name is one of the staging folders made here."""
    return bool(STAGING_RE.match(name))


def stage_beside(target: Path) -> Path:
    """A new empty folder beside ``target`` to build its replacement in (removing what earlier
    processes that died left there for the same target)."""
    remove_stale(target)
    return Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))


def exchange(a: Path, b: Path) -> bool:
    """Swap two existing paths in one step (Linux renameat2). Returns False where the system or
    the file system cannot; raises OSError for any other failure."""
    if _renameat2 is None:
        return False
    if _renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def swap_in(staged: Path, target: Path) -> None:
    """Make the folder ``staged`` the folder ``target`` (which may exist); the old one is removed.

    Where an atomic exchange is available there is no moment without ``target``. Elsewhere the
    old folder is parked beside it for the instant between two renames, and put back if the
    second fails.
    """
    if not target.exists() and not target.is_symlink():
        os.rename(staged, target)
    elif exchange(staged, target):
        shutil.rmtree(staged, ignore_errors=True)    # it holds the old folder now
    else:
        parked = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=target.parent))
        os.replace(target, parked / "skill")
        try:
            os.replace(staged, target)
        except BaseException:
            os.replace(parked / "skill", target)
            parked.rmdir()
            raise
        shutil.rmtree(parked, ignore_errors=True)
    fsync_dir(target.parent)


def fsync_dir(folder: Path) -> None:
    """Make a rename in ``folder`` durable (where the system allows it)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def remove_stale(target: Path) -> None:
    """Remove the staging folders and temporary files of ``target`` that processes which died
    left beside it (those younger than STALE_AFTER_S may belong to a process still at work)."""
    prefix, now = f".{target.name}.", time.time()
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return
    for e in entries:
        if not (e.name.startswith(prefix) and is_staging(e.name)
                and e.name.count(".") == target.name.count(".") + 3):   # .<name>.<random>.tmp
            continue
        try:
            if now - e.stat(follow_symlinks=False).st_mtime < STALE_AFTER_S:
                continue
            if e.is_dir(follow_symlinks=False):
                shutil.rmtree(e.path, ignore_errors=True)
            else:
                os.unlink(e.path)
        except OSError:
            continue
