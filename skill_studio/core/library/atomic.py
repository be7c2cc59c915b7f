"""Folders replaced in one step: built beside the target, then swapped in, so a reader (or a kill)
finds the old folder or the new one, never a mix and never nothing.

What is built or parked beside a target lives in a staging folder of the studio's own:
``.<name>.skill-studio-<random>.tmp`` (or ``.old``) holding a marker file the studio wrote. Only
folders with both the name and the marker are ever removed as leftovers; anything else beside
the target, whatever its name, is left alone."""

from __future__ import annotations

import ctypes
import errno
import hashlib
import os
import re
import secrets
import shutil
import stat
import time
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path

#: Names discovery skips as what an interrupted write left (of this version or an earlier one,
#: which named them ``.<name>.<random>.tmp`` / ``.old``), so a leftover is never taken for a skill.
STAGING_RE = re.compile(r"^\..+\.(tmp|old)$")
#: The names of the staging folders this version makes (and the only ones it removes).
OWNED_RE = re.compile(r"^\.(?P<stem>.+)\.skill-studio-(?P<token>[0-9a-f]{12})\.(?P<kind>tmp|old)$")
#: The marker file inside each staging folder, and what it holds.
MARKER = ".skill-studio-staging"
MARKER_TEXT = b"Built by Skill Studio while writing a skill beside this folder; removed when done.\n"
#: A staging folder this old is left over from a process that died; younger ones may be in use.
STALE_AFTER_S = 120
#: Target names longer than this (in bytes) are named by a digest in their staging folder's name,
#: which must itself fit in a file name.
_STEM_MAX = 200

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
    """Whether a folder name is one discovery skips as a leftover of an interrupted write."""
    return bool(STAGING_RE.match(name))


def _stem(name: str) -> str:
    """The part of a staging folder's name that says which target it belongs to."""
    raw = os.fsencode(name)
    return name if len(raw) <= _STEM_MAX else "~" + hashlib.sha256(raw).hexdigest()[:32]


def make_staging(target: Path, kind: str = "tmp") -> Path:
    """A new staging folder of the studio's own beside ``target``, with its marker written."""
    for _attempt in range(100):
        folder = target.parent / f".{_stem(target.name)}.skill-studio-{secrets.token_hex(6)}.{kind}"
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            continue
        try:
            fd = os.open(folder / MARKER, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
            try:
                os.write(fd, MARKER_TEXT)
            finally:
                os.close(fd)
        except BaseException:
            remove_staging(folder)
            raise
        return folder
    raise FileExistsError(errno.EEXIST, "no free name for a staging folder", str(target.parent))


def stage_beside(target: Path) -> Path:
    """A new staging folder beside ``target`` to build its replacement in (as ``<staging>/skill``
    or any name but the marker's), after removing what processes that died left there for the
    same target."""
    remove_stale(target)
    return make_staging(target)


def owned_staging(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a staging folder the studio made: its name has the studio's pattern,
    it is a folder (not a link) and it holds the marker the studio writes (a regular file holding
    the marker's text, or the start of it when a kill came as it was written)."""
    path = Path(path)
    if not OWNED_RE.match(path.name):
        return False
    try:
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            return False
        marker = path / MARKER
        st = os.lstat(marker)
        if not stat.S_ISREG(st.st_mode) or st.st_size > len(MARKER_TEXT):
            return False
        with open(marker, "rb") as fh:
            return MARKER_TEXT.startswith(fh.read(len(MARKER_TEXT) + 1))
    except OSError:
        return False


def remove_staging(folder: Path) -> None:
    """Remove a staging folder the studio made (read-only copies inside it included). Its marker
    goes last, so a process killed on the way leaves a folder still known to be the studio's."""
    if not os.path.isdir(folder) or os.path.islink(folder):
        return
    for root, _dirs, _files in os.walk(folder):   # links are not followed
        with suppress(OSError):
            os.chmod(root, stat.S_IMODE(os.lstat(root).st_mode) | stat.S_IRWXU)
    with suppress(OSError), os.scandir(folder) as entries:
        for e in list(entries):
            if e.name == MARKER:
                continue
            if e.is_dir(follow_symlinks=False):
                shutil.rmtree(e.path, ignore_errors=True)
            else:
                with suppress(OSError):
                    os.unlink(e.path)
    with suppress(OSError):
        os.unlink(folder / MARKER)
    with suppress(OSError):
        os.rmdir(folder)


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
    """Make the folder ``staged`` (inside a staging folder) the folder ``target`` (which may
    exist). The old one ends up at ``staged``, for the caller to remove with its staging folder.

    Where an atomic exchange is available there is no moment without ``target``. Elsewhere the
    old folder is parked in a staging folder beside it for the instant between two renames, and
    put back if the second fails.
    """
    if not target.exists() and not target.is_symlink():
        os.rename(staged, target)
    elif not exchange(staged, target):
        parked = make_staging(target, "old")
        try:
            os.replace(target, parked / "skill")
            try:
                os.replace(staged, target)
            except BaseException:
                os.replace(parked / "skill", target)
                raise
        finally:
            remove_staging(parked)
    fsync_dir(target.parent)


def link_in_place(place: Path, text: str) -> None:
    """Make ``place`` a symbolic link holding ``text`` in one step: the link is made beside it
    under a staging name and renamed over it, so a reader finds the old link or the new one,
    never none. What was at ``place`` may be a link or nothing (a folder must be removed first)."""
    for _attempt in range(100):
        made = place.parent / f".{_stem(place.name)}.skill-studio-{secrets.token_hex(6)}.tmp"
        try:
            os.symlink(text, made, target_is_directory=True)
        except FileExistsError:
            continue
        break
    else:
        raise FileExistsError(errno.EEXIST, "no free name for a new link", str(place.parent))
    try:
        os.replace(made, place)
    except BaseException:
        with suppress(OSError):
            os.unlink(made)
        raise
    fsync_dir(place.parent)


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


def _leftovers(target: Path) -> Iterator[os.DirEntry]:
    stem = _stem(target.name)
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return
    for e in entries:
        m = OWNED_RE.match(e.name)
        if m and m.group("stem") == stem:
            yield e


def remove_stale(target: Path) -> None:
    """Remove the staging folders of ``target`` that processes which died left beside it: only
    those with the studio's name pattern and marker (an empty one, made by a process killed
    before it wrote its marker, is removed too: there is nothing in it to lose). Those younger
    than STALE_AFTER_S may belong to a process still at work and are kept."""
    now = time.time()
    for e in _leftovers(target):
        try:
            if not e.is_dir(follow_symlinks=False) or now - e.stat(follow_symlinks=False).st_mtime < STALE_AFTER_S:
                continue
        except OSError:
            continue
        if owned_staging(e.path):
            remove_staging(Path(e.path))
        else:
            with suppress(OSError):
                os.rmdir(e.path)   # only ever succeeds on an empty folder


def file_in_the_way(folder: Path) -> Path | None:
    """The file (or link to one) at ``folder`` or at one of its parents that stops ``folder``
    from being a folder, or None when nothing does."""
    for p in (folder, *folder.parents):
        if os.path.lexists(p):
            return None if p.is_dir() else p
    return None
