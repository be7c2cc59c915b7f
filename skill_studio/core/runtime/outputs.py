"""The files a run wrote in its copy: found once it ends, each name shown with its control characters
written out (a name cannot fake a line of a summary), saved into a folder one by one (a name that
cannot be written safely is skipped and named, the others still saved), and those exactly as big as
the file-size limit picked out (the limit may have cut them without a word)."""

from __future__ import annotations

import hashlib
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from skill_studio.core.format.names import file_name_problem, printable
from skill_studio.core.format.skill_paths import safe_relative_path


@dataclass
class RunOutput:
    path: str
    size: int
    new: bool                      # written by the run (False: an existing file it changed)

    @property
    def shown(self) -> str:
        """The path as it may be printed or shown: control and invisible characters as ``\\x0a``
        and the like."""
        return printable(self.path)


@dataclass
class SavedOutputs:
    """What saving a run's outputs did."""

    written: list[Path] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)   # (the path as shown, why not)

    def problems(self) -> list[str]:
        """One line per file not saved, naming it (shown) and why."""
        return [f'"{shown}" was not copied: it {why}' for shown, why in self.skipped]


def digest_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _digest_file(path: Path) -> str:
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()   # read in blocks: any size


def find(cwd: Path, before: dict[str, str]) -> list[RunOutput]:
    """The files under ``cwd`` that are not in ``before`` (path -> hash) or differ from it (links
    are not followed)."""
    found = []
    for dirpath, _dirs, files in os.walk(cwd):
        for name in files:
            path = Path(dirpath) / name
            if path.is_symlink() or not path.is_file():
                continue
            rel = path.relative_to(cwd).as_posix()
            size = path.stat().st_size
            if rel not in before or _digest_file(path) != before[rel]:
                found.append(RunOutput(rel, size, rel not in before))
    return sorted(found, key=lambda o: o.path)


def save(cwd: Path, dest: str | os.PathLike, found: list[RunOutput]) -> SavedOutputs:
    """Copy each of ``found`` from ``cwd`` into ``dest``, keeping its folders. A file whose name
    cannot be written safely (a control, invisible or bidi character, bytes that are not UTF-8, a
    backslash, a part that leaves ``dest``) or that cannot be written there is skipped and named;
    the others are still copied."""
    done = SavedOutputs()
    for o in found:
        why = _unsafe(o.path)
        if why:
            done.skipped.append((o.shown, why))
            continue
        rel = safe_relative_path(o.path)
        target = Path(dest) / rel
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(cwd / o.path, target, follow_symlinks=False)
        except OSError as e:
            done.skipped.append((o.shown, f"could not be written to {printable(str(target))}: "
                                          f"{e.strerror or e}"))
            continue
        done.written.append(target)
    return done


def _unsafe(path: str) -> str | None:
    """Why ``path`` cannot be written safely into a folder (the rules of a skill's own file names), or None."""
    try:
        safe_relative_path(path)
    except ValueError as e:
        return str(e)
    hidden = [part for part in path.split("/") if printable(part) != part]
    return file_name_problem(hidden[0]) if hidden else None


def at_size(size: int, found: list[RunOutput], more: dict[str, Path]) -> list[str]:
    """The files (as shown) exactly ``size`` bytes big: of ``found``, and in each folder of ``more``
    (label -> folder; named ``label/path``)."""
    hits = [o.shown for o in found if o.size == size]
    for label, folder in more.items():
        for dirpath, _dirs, files in os.walk(folder):
            for name in files:
                path = Path(dirpath) / name
                try:
                    if not path.is_symlink() and path.stat().st_size == size:
                        hits.append(printable(f"{label}/{path.relative_to(folder).as_posix()}"))
                except OSError:
                    continue
    return hits
