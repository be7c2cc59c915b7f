"""Writing a skill as a .skill/.zip archive: deterministic, atomic, without build clutter."""

from __future__ import annotations

import os
import stat
import zipfile
from collections.abc import Iterable
from pathlib import Path

from skill_studio.core.format.skill_paths import collision_key, safe_relative_path
from skill_studio.core.library.archive import (
    EXPORT_EXCLUDED_DIRS,
    FIXED_DATE_TIME,
    MAX_NAME_BYTES,
    SKILL_MD_NAMES,
    ArchiveError,
    skill_file_mode,
)
from skill_studio.core.library.atomic import fsync_dir, remove_staging, stage_beside
from skill_studio.core.model import SkillFile


def _excluded_from_export(path: str) -> bool:
    parts = path.split("/")
    if parts[0] == "evals" and len(parts) > 1:
        return True
    if any(part in EXPORT_EXCLUDED_DIRS for part in parts[:-1]):
        return True
    name = parts[-1]
    return name == ".DS_Store" or name.endswith(".pyc")


def write_skill_archive(dest: str | os.PathLike[str], folder_name: str, files: Iterable[SkillFile]) -> Path:
    """Write ``files`` as a skill package at ``dest`` and return its path.

    The zip holds one top-level ``<folder_name>/`` folder; members are
    deflated, sorted and stamped 1980-01-01 with their mode (0o755 when
    executable, else 0o644), so the same skill always gives the same
    bytes.  ``__pycache__/``, ``node_modules/``, ``*.pyc``, ``.DS_Store`` and
    a root ``evals/`` folder are left out.  The file is written in a
    staging folder beside ``dest``, synced and renamed into place; on
    failure nothing is left behind and an existing ``dest`` is untouched.

    Raises ArchiveError (a ValueError) for an unsafe folder name or file
    path, duplicate paths, a path that is both a file and a folder, or no
    SKILL.md at the top of the skill, a ``dest`` that is a folder or whose
    name is too long; OSError when the file cannot be written.
    """
    dest = Path(dest)
    try:
        folder = safe_relative_path(folder_name)
    except ValueError as exc:
        raise ArchiveError(dest, f"folder name {folder_name!r} {exc}") from None
    if "/" in folder:
        raise ArchiveError(dest, f"folder name {folder_name!r} must be a single folder, not a path")

    members: dict[str, SkillFile] = {}
    keys: dict[str, str] = {}
    for item in files:
        try:
            rel = safe_relative_path(item.path)
        except ValueError as exc:
            raise ArchiveError(dest, str(exc), item.path) from None
        if _excluded_from_export(rel):
            continue
        key = collision_key(rel)
        if key in keys:
            raise ArchiveError(dest, f"appears more than once (as {keys[key]!r})", item.path)
        keys[key] = rel
        members[rel] = item
    folders: set[str] = set()
    for rel in members:
        parts = rel.split("/")
        folders.update(collision_key("/".join(parts[:i])) for i in range(1, len(parts)))
    for rel in members:
        if collision_key(rel) in folders:
            raise ArchiveError(dest, "is both a file and a folder", rel)
    if not any(rel in SKILL_MD_NAMES for rel in members):
        raise ArchiveError(dest, "SKILL.md not found among the files to write")

    if len(os.fsencode(dest.name)) > MAX_NAME_BYTES:
        raise ArchiveError(dest, f"the file name is longer than the {MAX_NAME_BYTES} bytes a file system allows; "
                                 "rename the skill to write it out")
    if dest.is_dir():
        raise ArchiveError(dest, "is a folder; not replacing it with the archive (move it away, or "
                                 "write the archive somewhere else)")
    stage = stage_beside(dest)
    try:
        tmp = stage / "archive"
        with open(tmp, "xb") as fh:
            with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_DEFLATED) as zf:
                for rel in sorted(members):
                    item = members[rel]
                    info = zipfile.ZipInfo(f"{folder}/{rel}", date_time=FIXED_DATE_TIME)
                    info.create_system = 3
                    info.compress_type = zipfile.ZIP_DEFLATED
                    info.external_attr = (stat.S_IFREG | skill_file_mode(item.mode)) << 16
                    zf.writestr(info, bytes(item.data))
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, dest)
    finally:
        remove_staging(stage)
    fsync_dir(dest.parent)
    return dest
