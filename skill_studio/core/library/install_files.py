"""The files of installed skills: read-only copies written whole, made writable again to be
replaced or removed, listings and hashes (see core.library.install and core.library.managed)."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from dataclasses import replace
from pathlib import Path

from skill_studio.core.library.folder_write import export_folder, skill_files_with_md


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


def files_of(skill) -> dict[str, str]:
    """The hash of each file of the skill as it is installed (SKILL.md included), by its path."""
    return {f.path: file_hash(f.data) for f in skill_files_with_md(skill)}


def write_copy(skill, place: Path) -> Path:
    """Write ``skill`` as a read-only copy at ``place``, built whole beside it and swapped in for
    what the studio had there (an older copy, a link or a file; the caller has made sure it is
    the studio's). Returns the folder. Raises FolderError or OSError as export_folder does."""
    if place.is_symlink() or (place.exists() and not place.is_dir()):
        remove(place)
    elif place.is_dir():
        writable(place)   # the old copy is swapped out and deleted
    written = export_folder(replace(skill, folder_name=place.name), place.parent)
    read_only(written)
    return written


def held_files(place: Path) -> dict[str, str]:
    """The hash of each file the folder at ``place`` holds (through a link at ``place``), by its
    path inside it: what an agent reading it finds. Raises OSError when one cannot be read."""
    return {path: file_hash(p.read_bytes()) for path, p in listing(place).items()}


def describe_os_error(e: OSError) -> str:
    """An OSError in words: the path and what went wrong, without Python's errno prefix."""
    what = e.strerror or str(e)
    return f"{e.filename}: {what}" if e.filename else what
