"""Rescuing a damaged store: every skill that can still be read, written out as a skill folder.

The store file is never written: a copy of it (and of its write-ahead log) is read instead, row by
row, stepping over the parts SQLite reports as damaged.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from skill_studio.core.model import Skill, SkillFile
from skill_studio.core.store.errors import StoreError, UnusableStore

REPORT_NAME = "rescue-report.json"
_TOP_FALLBACK = 1 << 40   # the highest row id looked for when even max(rowid) cannot be read


@dataclass
class RescuedSkill:
    name: str
    folder: str
    version: int
    state: dict = field(default_factory=dict)   # lifecycle, trust and origin, where readable
    note: str = ""                              # empty when the skill came out whole


@dataclass
class RescueReport:
    store: str
    to: str
    damage: list[str] = field(default_factory=list)    # what SQLite's check reported
    rescued: list[RescuedSkill] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)      # what could not be read, each with why
    stopped: bool = False                              # cancelled: only the rows read until then

    @property
    def summary(self) -> str:
        partial = sum(1 for s in self.rescued if s.note)
        return (f"{len(self.rescued)} skill(s) rescued ({partial} not whole), {len(self.lost)} lost"
                f" -> {self.to}")


def rescue(store_path: str | os.PathLike, dest: str | os.PathLike,
           progress: Callable[[int, int], None] | None = None,
           cancelled: Callable[[], bool] | None = None) -> RescueReport:
    """Write every readable skill of the store at ``store_path`` into ``dest`` (a new or empty
    folder, or one an earlier rescue wrote) as skill folders, with ``rescue-report.json``.

    Raises UnusableStore when the file is not a SQLite database at all, StoreError when ``dest``
    holds other things. When ``cancelled()`` says so it stops before the next row: the skills
    written until then stay (each written whole) and the report, marked ``stopped``, says so.
    """
    path, dest = Path(store_path), Path(dest)
    if not path.is_file():
        raise StoreError(f"{path}: no such store file")
    if dest.exists() and not (dest / REPORT_NAME).exists() and any(dest.iterdir()):
        raise StoreError(f"{dest}: not empty; rescue into a new or empty folder")
    report = RescueReport(str(path), str(dest))
    with tempfile.TemporaryDirectory(prefix="skill-studio-rescue-") as tmp:
        conn = _open_copy(path, Path(tmp))
        try:
            report.damage = _check(conn)
            reader = _Reader(conn, report)
            rowids = reader.rowids()
            for i, rowid in enumerate(rowids):
                if cancelled is not None and cancelled():
                    report.stopped = True
                    break
                got = reader.by_rowid(rowid)
                if got is not None:
                    _write(got, dest, report)
                if progress:
                    progress(i + 1, len(rowids))
            done = {s.name for s in report.rescued} | reader.failed_names
            for name in [] if report.stopped else reader.card_names():   # rows the walk could not reach
                if name not in done:
                    got = reader.by_name(name)
                    if got is not None:
                        _write(got, dest, report)
        finally:
            conn.close()
    dest.mkdir(parents=True, exist_ok=True)
    (dest / REPORT_NAME).write_text(json.dumps(asdict(report), indent=2, ensure_ascii=False) + "\n")
    return report


def _open_copy(path: Path, tmp: Path) -> sqlite3.Connection:
    copy = tmp / "store.db"
    shutil.copyfile(path, copy)
    wal = path.with_name(path.name + "-wal")
    if wal.is_file():
        shutil.copyfile(wal, tmp / "store.db-wal")
    conn = sqlite3.connect(copy)
    try:
        conn.execute("PRAGMA user_version").fetchone()
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError as e:
        conn.close()
        raise UnusableStore(path, "not-a-store", f"cannot be read at all: {e}") from None
    return conn


def _check(conn: sqlite3.Connection) -> list[str]:
    try:
        rows = [r[0] for r in conn.execute("PRAGMA quick_check(20)")]
    except sqlite3.DatabaseError as e:
        return [str(e)]
    if rows == ["ok"]:
        return []
    lines = [line.strip() for row in rows for line in row.splitlines()]
    return [line for line in lines if line and not line.startswith("***")][:20]


class _Reader:
    """Reads skills out of a damaged store one row at a time."""

    def __init__(self, conn: sqlite3.Connection, report: RescueReport):
        self.conn, self.report = conn, report
        self.failed_names: set[str] = set()

    def _one(self, sql: str, params: tuple = ()):
        return self.conn.execute(sql, params).fetchone()

    # --- finding the rows ---------------------------------------------------------------

    def rowids(self) -> list[int]:
        """Every row id of procedural_memory that can be reached, stepping over damaged pages."""
        try:
            top = self._one("SELECT max(rowid) FROM procedural_memory")[0] or 0
        except sqlite3.DatabaseError:
            top = _TOP_FALLBACK
        found, start = [], 1
        while True:
            try:
                row = self._one("SELECT rowid FROM procedural_memory WHERE rowid >= ? ORDER BY rowid LIMIT 1",
                                (start,))
            except sqlite3.DatabaseError:
                after = self._next_readable(start, top)
                self.report.lost.append(f"rows from {start}" + (f" to {after - 1}" if after else "")
                                        + ": on damaged pages")
                if after is None:
                    break
                start = after
                continue
            if row is None:
                break
            found.append(row[0])
            start = row[0] + 1
        return found

    def _readable_from(self, start: int) -> bool:
        try:
            self._one("SELECT rowid FROM procedural_memory WHERE rowid >= ? ORDER BY rowid LIMIT 1", (start,))
            return True
        except sqlite3.DatabaseError:
            return False

    def _next_readable(self, bad: int, top: int) -> int | None:
        """The smallest row id after ``bad`` (where reading fails) from which the table can be
        read again; None when nothing after it can be."""
        step = 1
        while bad + step <= top and not self._readable_from(bad + step):
            step *= 2
        good = min(bad + step, top + 1)
        if not self._readable_from(good) or good > _TOP_FALLBACK:
            return None
        while good - bad > 1:
            mid = (bad + good) // 2
            bad, good = (bad, mid) if self._readable_from(mid) else (mid, good)
        return good

    def card_names(self) -> list[str]:
        names: list[str] = []
        try:
            for (name,) in self.conn.execute("SELECT name FROM skill_cards ORDER BY name"):
                names.append(name)
        except sqlite3.DatabaseError as e:
            self.report.lost.append(f"the list of skills is damaged after {len(names)} names ({e})")
        return names

    # --- reading one skill ----------------------------------------------------------------

    def by_rowid(self, rowid: int) -> tuple[Skill, str] | None:
        try:
            name = self._one("SELECT name FROM procedural_memory WHERE rowid = ?", (rowid,))[0]
        except sqlite3.DatabaseError as e:
            self.report.lost.append(f"row {rowid}: its name cannot be read ({e})")
            return None
        return self._skill(name, "rowid = ?", rowid)

    def by_name(self, name: str) -> tuple[Skill, str] | None:
        return self._skill(name, "name = ?", name)

    def _skill(self, name: str, where: str, key) -> tuple[Skill, str] | None:
        notes: list[str] = []
        skill = Skill(name=name)
        try:
            row = self._one(f"SELECT folder_name, md_filename, version, lifecycle, trust_tier, origin "
                            f"FROM procedural_memory WHERE {where}", (key,))
            skill.folder_name, skill.md_filename, skill.version = row[0], row[1] or "SKILL.md", row[2]
            skill.extra = {"lifecycle": row[3], "trust_tier": row[4], "origin": row[5]}
        except (sqlite3.DatabaseError, TypeError):
            notes.append("its review state could not be read")
        try:
            skill.skill_md = self._one(f"SELECT head || content FROM procedural_memory WHERE {where}", (key,))[0]
        except (sqlite3.DatabaseError, TypeError):
            older = self._older_version(name)
            if older is None:
                self.failed_names.add(name)
                self.report.lost.append(f"{name}: no version of its SKILL.md can be read")
                return None
            skill.version, skill.skill_md = older
            notes.append(f"the current text is damaged: version {older[0]} was rescued instead")
        skill.files = self._files(name, notes)
        return skill, "; ".join(notes)

    def _older_version(self, name: str) -> tuple[int, str] | None:
        try:
            versions = [r[0] for r in self.conn.execute(
                "SELECT version FROM skill_versions WHERE skill = ? ORDER BY version DESC", (name,))]
        except sqlite3.DatabaseError:
            return None
        for v in versions:
            try:
                text = self._one("SELECT skill_md FROM skill_versions WHERE skill = ? AND version = ?", (name, v))[0]
            except sqlite3.DatabaseError:
                continue
            if text is not None:
                return v, text
        return None

    def _files(self, name: str, notes: list[str]) -> list[SkillFile]:
        try:
            rows = self.conn.execute("SELECT path, mode, blob FROM skill_files WHERE skill = ? ORDER BY path",
                                     (name,)).fetchall()
        except sqlite3.DatabaseError:
            notes.append("the list of its files could not be read")
            return []
        files = []
        for path, mode, blob in rows:
            try:
                files.append(SkillFile(path, bytes(self._one("SELECT data FROM blobs WHERE hash = ?", (blob,))[0]),
                                       int(mode) & 0o777))
            except (sqlite3.DatabaseError, TypeError):
                notes.append(f"{path} could not be read")
        return files


def _write(got: tuple[Skill, str], dest: Path, report: RescueReport) -> None:
    from skill_studio.core.library.folder_write import export_folder
    from skill_studio.core.library.folders import FolderError

    skill, note = got
    taken = {s.folder.casefold() for s in report.rescued}
    base = skill.folder_name or skill.name
    n = 2
    while (skill.folder_name or skill.name).casefold() in taken:   # two skills kept one folder name
        skill.folder_name, n = f"{base}-{n}", n + 1
    try:
        folder = export_folder(skill, dest)
    except (FolderError, ValueError, OSError) as e:
        report.lost.append(f"{skill.name}: read, but cannot be written ({e})")
        return
    report.rescued.append(RescuedSkill(skill.name, folder.name, skill.version, skill.extra, note))
