"""The SQLite skill store: the only module that writes SQL."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable, Iterator

from skill_studio.core import scores
from skill_studio.core.model import (ENTRY_DEFAULTS, Lifecycle, Origin, Skill, SkillFile,
                                     TrustTier)
from skill_studio.core.schema import migrate


class StoreError(Exception):
    """A store operation that cannot be done; the message says why."""


class NotFound(StoreError):
    pass


class AlreadyExists(StoreError):
    pass


class VersionConflict(StoreError):
    """The skill changed since the caller read it."""

    def __init__(self, name: str, expected: int, current: int):
        super().__init__(f'"{name}" was changed elsewhere: you edited version {expected}, '
                         f"the store now has version {current}; reload it and apply your change again")
        self.name, self.expected, self.current = name, expected, current


class DependentsExist(StoreError):
    def __init__(self, name: str, dependents: list[str]):
        super().__init__(f'Cannot delete "{name}": {len(dependents)} other skill(s) depend on it: '
                         + ", ".join(dependents))
        self.name, self.dependents = name, dependents


@dataclass(frozen=True)
class Filters:
    """What a list, a count or a stats query is restricted to."""

    lifecycle: str | None = None
    origin: str | None = None
    tag: str | None = None
    text: str | None = None


@dataclass(frozen=True)
class VersionInfo:
    version: int
    author: str
    note: str
    created_at: str
    content_hash: str


@dataclass(frozen=True)
class AuditEntry:
    id: int
    at: str
    actor: str
    skill: str
    action: str
    from_value: str | None
    to_value: str | None
    reason: str


SORT_COLUMNS = {
    "name": "p.name COLLATE NOCASE",
    "lifecycle": "CASE p.lifecycle WHEN 'released' THEN 0 WHEN 'verified' THEN 1 WHEN 'candidate' "
                 "THEN 2 WHEN 'degraded' THEN 3 WHEN 'deprecated' THEN 4 ELSE 5 END",
    "trust": "p.trust_tier",
    "origin": "p.origin",
    "success": "p.success_rate",
    "utility": "p.utility_score",
    "freshness": "p.freshness",
    "last_used": "p.last_used_at",
    "updated": "p.updated_at",
    "created": "p.created_at",
    "version": "p.version",
}

_JSON_COLUMNS = {"steps", "depends_on", "conflicts_with", "tags", "metadata", "extra"}
_SUMMARY_SKIP = {"content", "head"}
_SKILL_COLUMNS = [f.name for f in fields(Skill) if f.name not in ("skill_md", "files")]
_ROW_COLUMNS = _SKILL_COLUMNS + ["head"]
_INSERT_ROW = (f"INSERT INTO procedural_memory ({', '.join(_ROW_COLUMNS)}) "
               f"VALUES ({', '.join('?' * len(_ROW_COLUMNS))})")


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str, separators=(",", ":"))


def _blob_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def content_hash(skill_md: str, files: Iterable[SkillFile]) -> str:
    """A hash of SKILL.md and every file beside it (path, mode, bytes)."""
    h = hashlib.sha256(skill_md.encode("utf-8"))
    for f in sorted(files, key=lambda f: f.path):
        h.update(b"\0" + f.path.encode() + b"\0" + str(f.mode & 0o777).encode() + b"\0")
        h.update(_blob_hash(f.data).encode())
    return h.hexdigest()


def fts_query(text: str) -> str | None:
    """A safe FTS5 query for what a user typed: every word must appear, the last as a prefix."""
    words = [w for w in "".join(c if c.isalnum() else " " for c in text).split() if w]
    if not words:
        return None
    terms = [f'"{w}"' for w in words]
    if text and text[-1].isalnum():
        terms[-1] += "*"
    return " AND ".join(terms)


class Store:
    """A skill store in one SQLite file. Safe to share between threads; every write
    is one transaction, and other processes may use the same file at once (WAL)."""

    def __init__(self, path: str | os.PathLike, *, actor: str | None = None, busy_timeout_ms: int = 10_000):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.actor = actor or os.environ.get("USER") or "studio"
        self._lock = threading.RLock()
        try:
            self._conn = sqlite3.connect(self.path, timeout=busy_timeout_ms / 1000,
                                         isolation_level=None, check_same_thread=False)
            self._conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = NORMAL")
            self._conn.execute("PRAGMA foreign_keys = ON")
            migrate(self._conn)
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path}: cannot open the skill store: {e}") from None
        self._conn.row_factory = sqlite3.Row

    # --- plumbing -----------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; everything in it is undone if anything fails."""
        with self._lock:
            if self._conn.in_transaction:  # nested: part of the outer transaction
                yield self._conn
                return
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise

    def _query(self, sql: str, params: Iterable[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._conn.execute(sql, tuple(params)).fetchall()

    # --- reading ------------------------------------------------------------

    def __contains__(self, name: str) -> bool:
        return bool(self._query("SELECT 1 FROM procedural_memory WHERE name = ?", (name,)))

    def __len__(self) -> int:
        return self._query("SELECT count(*) FROM procedural_memory")[0][0]

    def get(self, name: str, *, with_files: bool = True) -> Skill:
        """The whole skill, its SKILL.md text and (by default) its files. Raises NotFound."""
        rows = self._query(f"SELECT {', '.join(_ROW_COLUMNS)} FROM procedural_memory WHERE name = ?",
                           (name,))
        if not rows:
            raise NotFound(f'no skill named "{name}" in {self.path}')
        skill = _skill_from_row(rows[0])
        if with_files:
            skill.files = self.files(name)
        return skill

    def files(self, name: str) -> list[SkillFile]:
        rows = self._query("SELECT f.path, f.mode, b.data FROM skill_files f JOIN blobs b ON b.hash = f.blob "
                           "WHERE f.skill = ? ORDER BY f.path", (name,))
        return [SkillFile(r["path"], bytes(r["data"]), r["mode"]) for r in rows]

    def file_list(self, name: str) -> list[tuple[str, int, int]]:
        """(path, mode, size) of each file beside SKILL.md, without reading the bytes."""
        return [(r[0], r[1], r[2]) for r in self._query(
            "SELECT path, mode, size FROM skill_files WHERE skill = ? ORDER BY path", (name,))]

    def _where(self, flt: Filters) -> tuple[str, list[Any], str]:
        clauses, params, join = [], [], ""
        if flt.lifecycle:
            clauses.append("p.lifecycle = ?")
            params.append(Lifecycle(flt.lifecycle).value)
        if flt.origin:
            clauses.append("p.origin = ?")
            params.append(Origin(flt.origin).value)
        if flt.tag:
            clauses.append("p.name IN (SELECT skill FROM skill_tags WHERE tag = ?)")
            params.append(flt.tag)
        query = fts_query(flt.text) if flt.text else None
        if flt.text and query is None:
            clauses.append("0")
        if query:
            join = "JOIN skills_fts ON skills_fts.rowid = p.rowid AND skills_fts MATCH ?"
            params.insert(0, query)
        return (" WHERE " + " AND ".join(clauses)) if clauses else "", params, join

    def list(self, flt: Filters | None = None, *, sort: str = "name", descending: bool = False,
             limit: int | None = None, offset: int = 0, summary: bool = True) -> list[Skill]:
        """Skills matching the filters, sorted; ``sort='relevance'`` ranks a text search by bm25.

        With ``summary`` the body and SKILL.md text are left empty (cheap for cards).
        """
        flt = flt or Filters()
        where, params, join = self._where(flt)
        cols = [c for c in _ROW_COLUMNS if not (summary and c in _SUMMARY_SKIP)]
        if sort == "relevance" and join:
            order = "bm25(skills_fts, 10.0, 5.0, 1.0, 3.0, 3.0)"
        else:
            order = SORT_COLUMNS.get(sort, SORT_COLUMNS["name"])
        direction = "DESC" if descending else "ASC"
        sql = (f"SELECT {', '.join('p.' + c for c in cols)} FROM procedural_memory p {join}{where} "
               f"ORDER BY {order} {direction}, p.name {direction}")
        if limit is not None:
            sql += f" LIMIT {int(limit)} OFFSET {int(offset)}"
        return [_skill_from_row(r) for r in self._query(sql, params)]

    def names(self, flt: Filters | None = None, *, sort: str = "name", descending: bool = False) -> list[str]:
        """Just the names of the matching skills, in order (what a list model holds)."""
        flt = flt or Filters()
        where, params, join = self._where(flt)
        order = "bm25(skills_fts)" if (sort == "relevance" and join) else SORT_COLUMNS.get(sort, SORT_COLUMNS["name"])
        direction = "DESC" if descending else "ASC"
        rows = self._query(f"SELECT p.name FROM procedural_memory p {join}{where} "
                           f"ORDER BY {order} {direction}, p.name {direction}", params)
        return [r[0] for r in rows]

    def count(self, flt: Filters | None = None) -> int:
        where, params, join = self._where(flt or Filters())
        return self._query(f"SELECT count(*) FROM procedural_memory p {join}{where}", params)[0][0]

    def counts(self, flt: Filters | None = None) -> dict[str, dict[str, int]]:
        """Counts per lifecycle and per origin (every state present, zero included)."""
        flt = flt or Filters()
        out: dict[str, dict[str, int]] = {"lifecycle": {s.value: 0 for s in Lifecycle},
                                          "origin": {o.value: 0 for o in Origin}}
        for column in ("lifecycle", "origin"):
            where, params, join = self._where(replace(flt, **{column: None}))
            for value, n in self._query(f"SELECT p.{column}, count(*) FROM procedural_memory p "
                                        f"{join}{where} GROUP BY p.{column}", params):
                out[column][value] = n
        return out

    def stats(self, flt: Filters | None = None) -> dict[str, Any]:
        """Total, by origin, active (exposed states), candidates, deprecated and score averages."""
        flt = flt or Filters()
        where, params, join = self._where(flt)
        row = self._query(
            "SELECT count(*), "
            "sum(p.lifecycle IN ('verified', 'released', 'degraded')), "
            "sum(p.lifecycle = 'candidate'), sum(p.lifecycle = 'deprecated'), "
            "avg(p.success_rate), avg(p.utility_score), avg(p.freshness) "
            f"FROM procedural_memory p {join}{where}", params)[0]
        counts = self.counts(flt)
        return {"total": row[0], "active": row[1] or 0, "candidates": row[2] or 0,
                "deprecated": row[3] or 0, "by_origin": counts["origin"],
                "by_lifecycle": counts["lifecycle"],
                "avg_success_rate": row[4], "avg_utility": row[5], "avg_freshness": row[6]}

    def hashes(self) -> dict[str, tuple[int, str]]:
        """Every skill's (version, content hash): what an import compares against."""
        return {r[0]: (r[1], r[2]) for r in self._query(
            "SELECT name, version, content_hash FROM procedural_memory")}

    def tags(self) -> list[tuple[str, int]]:
        """Every tag in use with the number of skills carrying it, most used first."""
        return [(r[0], r[1]) for r in self._query(
            "SELECT tag, count(*) FROM skill_tags GROUP BY tag ORDER BY count(*) DESC, tag")]

    def dependents(self, name: str) -> list[str]:
        """Skills (any lifecycle) whose depends_on names this skill."""
        return [r[0] for r in self._query(
            "SELECT p.name FROM procedural_memory p, json_each(p.depends_on) j "
            "WHERE j.value = ? AND p.name != ? ORDER BY p.name", (name, name))]

    # --- writing ------------------------------------------------------------

    def add(self, skill: Skill, *, author: str | None = None, note: str = "added",
            now: datetime | None = None) -> Skill:
        """Store a new skill as version 1 and return it as stored.

        Missing lifecycle/trust defaults come from its origin. Raises AlreadyExists.
        """
        with self.transaction():
            return self._insert(skill, author=author, note=note, now=now)

    def add_many(self, skills: Iterable[Skill], *, author: str | None = None, note: str = "imported",
                 now: datetime | None = None) -> int:
        """Store many new skills in one transaction (all or none); returns how many.

        Raises AlreadyExists (and writes nothing) if any name is taken.
        """
        stamp = scores.format_time(now or scores.utcnow())
        author = author or self.actor
        batch = list(skills)
        with self.transaction():
            history = dict(self._conn.execute(
                "SELECT skill, max(version) FROM skill_versions WHERE skill IN "
                "(SELECT value FROM json_each(?)) GROUP BY skill", (_json([s.name for s in batch]),)))
            rows, versions, tags = [], [], []
            for skill in batch:
                # A name used before keeps counting from its old history.
                skill.version = history.get(skill.name, 0) + 1
                skill.created_at = skill.created_at or stamp
                skill.updated_at = stamp
                skill.content_hash = skill.content_hash or content_hash(skill.skill_md, skill.files)
                rows.append(self._row_values(skill))
                versions.append((skill.name, skill.version, skill.content_hash, author, note, stamp))
                tags += [(skill.name, t) for t in skill.tags]
            try:
                self._conn.executemany(_INSERT_ROW, rows)
            except sqlite3.IntegrityError:
                taken = [s.name for s in batch if s.name in self]
                if taken:
                    raise AlreadyExists(f'a skill named "{taken[0]}" already exists') from None
                raise
            self._conn.executemany("INSERT OR IGNORE INTO skill_tags (skill, tag) VALUES (?, ?)", tags)
            self._conn.executemany(
                "INSERT INTO skill_versions (skill, version, skill_md, content_hash, author, note, created_at) "
                "VALUES (?, ?, NULL, ?, ?, ?, ?)", versions)
            for skill in batch:
                if skill.files:
                    self._write_files(skill.name, skill.files)
                    self._copy_files_to_version(skill.name, skill.version)
        return len(batch)

    def _insert(self, skill: Skill, *, author: str | None, note: str, now: datetime | None) -> Skill:
        s = replace(skill, files=list(skill.files), content_hash=None)
        self.add_many([s], author=author, note=note, now=now)
        return self.get(s.name)

    def update(self, name: str, skill: Skill, expected_version: int, *, author: str | None = None,
               note: str = "") -> Skill:
        """Save a changed skill (SKILL.md text, fields, files) as a new version.

        ``expected_version`` is the version the caller read: if the store has
        another, VersionConflict is raised and nothing is written. Renaming is
        allowed (``skill.name != name``). Review state (lifecycle, trust,
        scores) is kept from the store. Returns the stored skill.
        """
        with self.transaction():
            current = self.get(name, with_files=False)
            if current.version != expected_version:
                raise VersionConflict(name, expected_version, current.version)
            if skill.name != name and skill.name in self:
                raise AlreadyExists(f'cannot rename "{name}": a skill named "{skill.name}" exists')
            h = content_hash(skill.skill_md, skill.files)
            if h == current.content_hash and skill.name == name:
                return self.get(name)
            stamp = scores.format_time(scores.utcnow())
            keep = {f: getattr(current, f) for f in (
                "origin", "lifecycle", "trust_tier", "success_rate", "utility_score", "freshness",
                "last_used_at", "created_at", "use_count", "success_count", "failure_count",
                "success_decayed", "failure_decayed", "lifecycle_reason", "pinned")}
            s = replace(skill, **keep, version=current.version + 1, updated_at=stamp, content_hash=h)
            self._freeze_version(name, current.version)
            if skill.name != name:
                self._conn.execute("UPDATE procedural_memory SET name = ? WHERE name = ?", (s.name, name))
                self._conn.execute("UPDATE skill_versions SET skill = ? WHERE skill = ?", (s.name, name))
                self._audit(s.name, "rename", name, s.name, note, author, stamp)
            self._write_row(s)
            self._conn.execute("DELETE FROM skill_files WHERE skill = ?", (s.name,))
            self._write_files(s.name, s.files)
            self._write_version(s, author or self.actor, note or "edited", stamp)
            return self.get(s.name)

    def set_state(self, name: str, *, author: str | None = None, reason: str = "",
                  action: str = "state", **changes: Any) -> Skill:
        """Change review state columns (lifecycle, trust_tier, pinned, lifecycle_reason, scores)
        in one audited transaction, without a new SKILL.md version. Returns the skill."""
        allowed = {"lifecycle", "trust_tier", "pinned", "lifecycle_reason", "success_rate",
                   "utility_score", "freshness", "last_used_at", "use_count", "success_count",
                   "failure_count", "success_decayed", "failure_decayed"}
        bad = set(changes) - allowed
        if bad:
            raise StoreError(f"not review state: {', '.join(sorted(bad))}")
        with self.transaction():
            current = self.get(name, with_files=False)
            stamp = scores.format_time(scores.utcnow())
            values = {k: (v.value if isinstance(v, (Lifecycle, Origin)) else
                          int(v) if isinstance(v, (bool, TrustTier)) else v) for k, v in changes.items()}
            sets = ", ".join(f"{k} = ?" for k in values)
            self._conn.execute(f"UPDATE procedural_memory SET {sets} WHERE name = ?",
                               (*values.values(), name))
            for k, v in values.items():
                before = getattr(current, k)
                before = before.value if isinstance(before, (Lifecycle, Origin)) else before
                if str(before) != str(v) and k in ("lifecycle", "trust_tier", "pinned"):
                    self._audit(name, f"{action}:{k}" if action == "state" else action,
                                str(int(before) if isinstance(before, bool) else before), str(v),
                                reason, author, stamp)
            return self.get(name, with_files=False)

    def record_use(self, name: str, success: bool, *, now: datetime | None = None) -> Skill:
        """Record one use and its outcome; recompute success rate, utility and freshness (SPEC §4)."""
        now = now or scores.utcnow()
        with self.transaction():
            s = self.get(name, with_files=False)
            o = scores.Outcomes(s.success_decayed, s.failure_decayed, s.use_count).record(
                success, self.setting("scores.decay", scores.DECAY))
            stamp = scores.format_time(now)
            self._conn.execute(
                "UPDATE procedural_memory SET success_decayed = ?, failure_decayed = ?, use_count = ?, "
                "success_count = success_count + ?, failure_count = failure_count + ?, "
                "success_rate = ?, utility_score = ?, freshness = 1.0, last_used_at = ? WHERE name = ?",
                (o.s, o.f, o.n, int(success), int(not success), scores.success_rate(o),
                 scores.utility(o), stamp, name))
            return self.get(name, with_files=False)

    def refresh_freshness(self, now: datetime | None = None) -> int:
        """Recompute every skill's freshness for ``now``; returns how many rows changed."""
        now = now or scores.utcnow()
        half_life = self.setting("scores.half_life_days", scores.HALF_LIFE_DAYS)
        rows = self._query("SELECT name, last_used_at, created_at, freshness FROM procedural_memory")
        changed = [(f, r[0]) for r in rows
                   if abs((f := scores.freshness(r[1], r[2], now, half_life)) - r[3]) > 1e-9]
        with self.transaction():
            self._conn.executemany("UPDATE procedural_memory SET freshness = ? WHERE name = ?", changed)
        return len(changed)

    def delete(self, name: str, *, author: str | None = None, reason: str = "") -> None:
        """Delete a skill; its history stays. Refused (DependentsExist) while any other skill,
        archived included, depends on it. Raises NotFound."""
        with self.transaction():
            current = self.get(name, with_files=False)
            dependents = self.dependents(name)
            if dependents:
                raise DependentsExist(name, dependents)
            self._freeze_version(name, current.version)
            self._conn.execute("DELETE FROM procedural_memory WHERE name = ?", (name,))
            self._conn.execute("DELETE FROM drafts WHERE skill = ?", (name,))
            self._audit(name, "delete", current.lifecycle.value, None, reason, author, None)

    # --- history ------------------------------------------------------------

    def versions(self, name: str) -> list[VersionInfo]:
        """Every saved version of a skill, newest first (also after it was deleted)."""
        return [VersionInfo(r["version"], r["author"], r["note"], r["created_at"], r["content_hash"])
                for r in self._query("SELECT * FROM skill_versions WHERE skill = ? ORDER BY version DESC",
                                     (name,))]

    def version_text(self, name: str, version: int) -> tuple[str, list[SkillFile]]:
        """SKILL.md text and files of one version. Raises NotFound."""
        rows = self._query("SELECT skill_md FROM skill_versions WHERE skill = ? AND version = ?",
                           (name, version))
        if not rows:
            raise NotFound(f'"{name}" has no version {version}')
        text = rows[0][0]
        if text is None:  # the live version
            live = self._query("SELECT head || content FROM procedural_memory WHERE name = ?", (name,))
            text = live[0][0]
        files = [SkillFile(r[0], bytes(r[2]), r[1]) for r in self._query(
            "SELECT v.path, v.mode, b.data FROM version_files v JOIN blobs b ON b.hash = v.blob "
            "WHERE v.skill = ? AND v.version = ? ORDER BY v.path", (name, version))]
        return text, files

    def audit_log(self, name: str | None = None, limit: int = 500) -> list[AuditEntry]:
        """Audit entries, newest first, for one skill or the whole store."""
        sql = "SELECT * FROM audit_log"
        params: tuple[Any, ...] = ()
        if name is not None:
            sql += " WHERE skill = ?"
            params = (name,)
        rows = self._query(sql + f" ORDER BY id DESC LIMIT {int(limit)}", params)
        return [AuditEntry(r["id"], r["at"], r["actor"], r["skill"], r["action"], r["from_value"],
                           r["to_value"], r["reason"]) for r in rows]

    def audit(self, name: str, action: str, from_value: str | None, to_value: str | None,
              reason: str = "", author: str | None = None) -> None:
        """Append an audit entry in its own transaction (or the caller's)."""
        with self.transaction():
            self._audit(name, action, from_value, to_value, reason, author, None)

    # --- settings and drafts ------------------------------------------------

    def setting(self, key: str, default: Any = None) -> Any:
        rows = self._query("SELECT value FROM settings WHERE key = ?", (key,))
        return json.loads(rows[0][0]) if rows else default

    def settings(self) -> dict[str, Any]:
        return {r[0]: json.loads(r[1]) for r in self._query("SELECT key, value FROM settings ORDER BY key")}

    def set_setting(self, key: str, value: Any) -> None:
        with self.transaction():
            self._conn.execute("INSERT INTO settings (key, value) VALUES (?, ?) "
                               "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, _json(value)))

    def save_draft(self, key: str, skill_md: str, base_version: int | None) -> None:
        with self.transaction():
            self._conn.execute(
                "INSERT INTO drafts (skill, skill_md, base_version, updated_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (skill) DO UPDATE SET skill_md = excluded.skill_md, "
                "base_version = excluded.base_version, updated_at = excluded.updated_at",
                (key, skill_md, base_version, scores.format_time(scores.utcnow())))

    def draft(self, key: str) -> tuple[str, int | None, str] | None:
        """(SKILL.md text, base version, saved at) of a draft, or None."""
        rows = self._query("SELECT skill_md, base_version, updated_at FROM drafts WHERE skill = ?", (key,))
        return (rows[0][0], rows[0][1], rows[0][2]) if rows else None

    def drafts(self) -> list[str]:
        return [r[0] for r in self._query("SELECT skill FROM drafts ORDER BY updated_at DESC")]

    def discard_draft(self, key: str) -> None:
        with self.transaction():
            self._conn.execute("DELETE FROM drafts WHERE skill = ?", (key,))

    # --- row helpers (inside a transaction) ----------------------------------

    @staticmethod
    def _row_values(s: Skill) -> tuple[Any, ...]:
        """The procedural_memory row of a skill, in _ROW_COLUMNS order."""
        head = s.skill_md[: len(s.skill_md) - len(s.content)] if s.content else s.skill_md
        if head + s.content != s.skill_md:
            raise StoreError(f'"{s.name}": the body is not the end of its SKILL.md text')
        values = []
        for c in _SKILL_COLUMNS:
            v = getattr(s, c)
            if c in _JSON_COLUMNS:
                v = _json(v) if v else ("{}" if c in ("metadata", "extra") else "[]")
            elif c in ("origin", "lifecycle"):
                v = v.value if isinstance(v, (Origin, Lifecycle)) else (Origin(v).value if c == "origin"
                                                                        else Lifecycle(v).value)
            elif c in ("trust_tier", "pinned"):
                v = int(v)
            values.append(v)
        values.append(head)
        return tuple(values)

    def _write_row(self, s: Skill) -> None:
        """Rewrite an existing skill's row and tags."""
        values = dict(zip(_ROW_COLUMNS, self._row_values(s)))
        values.pop("name")
        sets = ", ".join(f"{c} = ?" for c in values)
        self._conn.execute(f"UPDATE procedural_memory SET {sets} WHERE name = ?", (*values.values(), s.name))
        self._conn.execute("DELETE FROM skill_tags WHERE skill = ?", (s.name,))
        self._conn.executemany("INSERT OR IGNORE INTO skill_tags (skill, tag) VALUES (?, ?)",
                               [(s.name, t) for t in s.tags])

    def _store_blob(self, data: bytes) -> str:
        h = _blob_hash(data)
        self._conn.execute("INSERT OR IGNORE INTO blobs (hash, data) VALUES (?, ?)", (h, data))
        return h

    def _write_files(self, name: str, files: list[SkillFile]) -> None:
        if not files:
            return
        self._conn.executemany(
            "INSERT INTO skill_files (skill, path, mode, size, blob) VALUES (?, ?, ?, ?, ?)",
            [(name, f.path, f.mode & 0o777, len(f.data), self._store_blob(f.data)) for f in files])

    def _write_version(self, s: Skill, author: str, note: str, stamp: str) -> None:
        self._conn.execute(
            "INSERT INTO skill_versions (skill, version, skill_md, content_hash, author, note, created_at) "
            "VALUES (?, ?, NULL, ?, ?, ?, ?)", (s.name, s.version, s.content_hash, author, note, stamp))
        if s.files:
            self._copy_files_to_version(s.name, s.version)

    def _copy_files_to_version(self, name: str, version: int) -> None:
        self._conn.execute(
            "INSERT INTO version_files (skill, version, path, mode, size, blob) "
            "SELECT skill, ?, path, mode, size, blob FROM skill_files WHERE skill = ?", (version, name))

    def _freeze_version(self, name: str, version: int) -> None:
        """Copy the live text into its version row before the live row changes."""
        self._conn.execute(
            "UPDATE skill_versions SET skill_md = (SELECT head || content FROM procedural_memory "
            "WHERE name = ?) WHERE skill = ? AND version = ?", (name, name, version))

    def _audit(self, name: str, action: str, from_value: str | None, to_value: str | None,
               reason: str, author: str | None, stamp: str | None) -> None:
        self._conn.execute(
            "INSERT INTO audit_log (at, actor, skill, action, from_value, to_value, reason) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (stamp or scores.format_time(scores.utcnow()), author or self.actor, name, action,
             from_value, to_value, reason or ""))


def _skill_from_row(row: sqlite3.Row) -> Skill:
    keys = row.keys()
    values: dict[str, Any] = {}
    for k in keys:
        v = row[k]
        if k in _JSON_COLUMNS:
            v = json.loads(v)
        values[k] = v
    head = values.pop("head", None)
    values["origin"] = Origin(values["origin"])
    values["lifecycle"] = Lifecycle(values["lifecycle"])
    values["trust_tier"] = TrustTier(values["trust_tier"])
    values["pinned"] = bool(values["pinned"])
    skill = Skill(**values)
    if head is not None:
        skill.skill_md = head + skill.content
    return skill


def entry_state(origin: Origin) -> tuple[Lifecycle, TrustTier]:
    """Lifecycle and trust a new skill of this origin starts with (SPEC §1)."""
    return ENTRY_DEFAULTS[Origin(origin)]
