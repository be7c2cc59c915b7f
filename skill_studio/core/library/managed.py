"""The studio's own copy of each linked skill: what ``install --link`` links to.

A skill installed as a link points at ``<store file>-managed/<name>/`` beside the store
(``skills.db-managed/`` for ``skills.db``, as SQLite names ``skills.db-wal``): a read-only copy of
the skill's current version. Each save, restore, rename or delete of a skill that has one brings
it in step (:func:`refresh`, called by core.ops): the copy is written whole beside the old one and
swapped in (core.library.folder_write, core.library.atomic), so an agent reading through a link
finds one version or the next, never a mix. A copy whose skill left the store is removed, so its
links point nowhere rather than at a version that is gone.

Which skills have a managed copy is what the folder holds: a copy is made by the first link to
its skill and stays while the skill is in the store. Writes into the folder take turns (a lock
file in it, as in an install folder).

A link is relative where the agent's folder and the managed copy are on one file system (and
drive): it stays valid when a folder holding both is moved or mounted elsewhere. Across file
systems it is absolute.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from skill_studio.core.library.atomic import file_in_the_way, is_staging
from skill_studio.core.library.install_files import describe_os_error, files_of, held_files, remove, write_copy
from skill_studio.core.library.install_manifest import LOCK, InstallError, folder_name_problem, locked
from skill_studio.core.store import NotFound

SUFFIX = "-managed"


def managed_root(store) -> Path:
    """The folder of the store's managed copies: ``<store file>-managed`` beside it."""
    return Path(f"{store.path}{SUFFIX}")


def provide(store, name: str) -> tuple[Path, dict[str, str], bool]:
    """The managed copy of the skill ``name``, written when it is missing or does not hold the
    current version's files; returns its folder, the hash of each of its files and whether it
    was written. Raises InstallError naming the folder and what stopped the write."""
    root = managed_root(store)
    problem = folder_name_problem(name)
    if problem:
        raise InstallError(f'"{name}" {problem}')
    blocker = file_in_the_way(root)
    if blocker is not None:
        raise InstallError(f"the studio's copies to link to go in {root}, and {blocker} is a file; move the file "
                           "away, or install a copy")
    try:
        root.mkdir(parents=True, exist_ok=True)
        with locked(root / LOCK):
            skill = store.get(name)   # read under the lock: the last writer writes the newest version
            files = files_of(skill)
            place = root / name
            if place.is_dir() and not place.is_symlink() and _holds(place, files):
                return place, files, False
            return write_copy(skill, place), files, True
    except (OSError, ValueError) as e:   # FolderError is a ValueError
        raise InstallError(f"the studio's copy to link to cannot be written in {root} ({_describe(e)}); check "
                           "that the folder beside the store is writable, or install a copy") from None


def _holds(place: Path, files: dict[str, str]) -> bool:
    try:
        return held_files(place) == files
    except OSError:
        return False


def refresh(store, names: Iterable[str] | None = None) -> dict[str, str]:
    """Bring the managed copies of ``names`` (of every skill that has one, when None) in step with
    the store: each written again from the current version, or removed when its skill is no
    longer in the store. A skill with no managed copy (nothing was ever linked to it) is left
    alone. Returns what could not be done, by name; ``installed`` then shows the links to such a
    copy stale."""
    root = managed_root(store)
    if not root.is_dir() or root.is_symlink():
        return {}
    problems: dict[str, str] = {}
    try:
        with locked(root / LOCK):
            held = names if names is not None else (e.name for e in os.scandir(root))
            for name in sorted(set(held)):
                place = root / name
                if folder_name_problem(name) or is_staging(name) or not place.is_dir() or place.is_symlink():
                    continue
                try:
                    write_copy(store.get(name), place)
                except NotFound:
                    remove(place)
                except (OSError, ValueError) as e:
                    problems[name] = _describe(e)
    except (InstallError, OSError) as e:
        problems["*"] = _describe(e)
    return problems


def _describe(e: Exception) -> str:
    return describe_os_error(e) if isinstance(e, OSError) else str(e)


def link_text(place: Path, managed: Path) -> str:
    """What a link at ``place`` holds to reach ``managed``: the path relative to the link's folder
    when both are on one file system (and drive), else the absolute path."""
    folder, target = place.parent.resolve(), managed.resolve()
    if not same_volume(folder, target):
        return str(target)
    try:
        return os.path.relpath(target, folder)
    except ValueError:   # another drive on Windows
        return str(target)


def same_volume(a: Path, b: Path) -> bool:
    """Whether two existing paths are on one file system (False when either cannot be looked at)."""
    try:
        return os.stat(a).st_dev == os.stat(b).st_dev
    except OSError:
        return False
