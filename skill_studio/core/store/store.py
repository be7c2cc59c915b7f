"""The skill store: adding, changing, scoring and deleting skills, each in one transaction."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime
from typing import Any

from skill_studio.core.format.names import LookAlikes, printable, skill_name_problem
from skill_studio.core.health import scores
from skill_studio.core.model import Lifecycle, Origin, Skill, SkillFile, TrustTier
from skill_studio.core.store.bindings import Bindings
from skill_studio.core.store.connection import insert_many
from skill_studio.core.store.errors import (
    AlreadyExists,
    DependentsExist,
    NotFound,
    ReadOnlySkill,
    StoreError,
    VersionConflict,
)
from skill_studio.core.store.history import History
from skill_studio.core.store.queries import Queries
from skill_studio.core.store.rows import INSERT_ROW_HEAD, ROW_COLUMNS, blob_hash, content_hash, row_values, to_json
from skill_studio.core.store.sources import Sources
from skill_studio.core.store.vectors import Vectors

FRESHNESS_STEP = 0.005  # freshness is written again when it moved by at least this much

#: Index for search the rows of the skills named (a JSON list), as the insert trigger would. In
#: rowid order: the search index writes its pending words out each time a rowid comes lower than
#: the one before, so a batch in another order would be written out once per skill.
_INDEX_NEW_ROWS = (
    "INSERT INTO skills_fts (rowid, name, description, content, tags, trigger_pattern) "
    "SELECT rowid, name, description, content, tags, trigger_pattern FROM procedural_memory "
    "WHERE rowid IN (SELECT rowid FROM procedural_memory WHERE name IN (SELECT value FROM json_each(?))) "
    "ORDER BY rowid")

_WAIT_FOR_INDEX = ("INSERT INTO fts_pending (rowid) SELECT rowid FROM procedural_memory "
                   "WHERE name IN (SELECT value FROM json_each(?))")


class Store(Queries, History, Vectors, Bindings, Sources):
    """A skill store in one SQLite file. Safe to share between threads; every write
    is one transaction, and other processes may use the same file at once (WAL)."""

    # --- writing ------------------------------------------------------------

    def add(self, skill: Skill, *, author: str | None = None, note: str = "added",
            now: datetime | None = None) -> Skill:
        """Store a new skill as version 1 and return it as stored.

        Missing lifecycle/trust defaults come from its origin. Raises AlreadyExists.
        """
        with self.transaction():
            return self._insert(skill, author=author, note=note, now=now)

    def add_many(self, skills: Iterable[Skill], *, author: str | None = None, note: str = "imported",
                 now: datetime | None = None, index_later: bool = False) -> int:
        """Store many new skills in one transaction (all or none); returns how many.

        With ``index_later`` they are indexed for search afterwards (index_pending, or the first
        search that comes before it: core.store.search_index), not in this transaction.

        Raises AlreadyExists (and writes nothing) if any name is taken, or
        named twice in the batch; StoreError for a file path or folder name that would reach
        outside the skill's folder when it is written out.
        """
        stamp = scores.format_time(now or scores.utcnow())
        author = author or self.actor
        batch = list(skills)
        for skill in batch:
            _check_paths(skill)
        names = [s.name for s in batch]
        with self.transaction():
            taken = [r[0] for r in self._conn.execute(
                "SELECT name FROM skill_cards WHERE name IN (SELECT value FROM json_each(?)) ORDER BY name",
                (to_json(names),))]
            if taken or len(set(names)) != len(names):
                dup = taken[0] if taken else next(n for n in names if names.count(n) > 1)
                raise AlreadyExists(f'a skill named "{dup}" already exists')
            history = dict(self._conn.execute(
                "SELECT skill, max(version) FROM skill_versions WHERE skill IN "
                "(SELECT value FROM json_each(?)) GROUP BY skill", (to_json([s.name for s in batch]),)))
            rows, versions, tags = [], [], []
            for skill in batch:
                # A name used before keeps counting from its old history.
                skill.version = history.get(skill.name, 0) + 1
                skill.created_at = skill.created_at or stamp
                skill.updated_at = stamp
                skill.content_hash = content_hash(skill.skill_md, skill.files)
                rows.append(row_values(skill))
                versions.append((skill.name, skill.version, None, skill.content_hash, author, note, stamp))
                tags += [(skill.name, t) for t in skill.tags]
            # The rows are indexed for search in one statement once they are in (see schema
            # version 6): row by row from the insert trigger costs several times as much.
            # Many rows to a statement (insert_many): the writing then runs without Python's lock.
            self._conn.execute("INSERT INTO fts_deferred (id) VALUES (1)")
            insert_many(self._conn, INSERT_ROW_HEAD, rows)
            self._conn.execute("DELETE FROM fts_deferred")
            self._conn.execute(_WAIT_FOR_INDEX if index_later else _INDEX_NEW_ROWS, (to_json(names),))
            insert_many(self._conn, "INSERT OR IGNORE INTO skill_tags (skill, tag)", tags)
            insert_many(self._conn, "INSERT INTO skill_versions (skill, version, skill_md, content_hash, author, "
                                    "note, created_at)", versions)
            blobs: dict[str, bytes] = {}
            files, version_files = [], []
            for skill in batch:
                for f in skill.files:
                    h = blob_hash(f.data)
                    blobs[h] = f.data
                    files.append((skill.name, f.path, f.mode & 0o777, len(f.data), h))
                    version_files.append((skill.name, skill.version, f.path, f.mode & 0o777, len(f.data), h))
            insert_many(self._conn, "INSERT OR IGNORE INTO blobs (hash, data)", list(blobs.items()))
            insert_many(self._conn, "INSERT INTO skill_files (skill, path, mode, size, blob)", files)
            insert_many(self._conn, "INSERT INTO version_files (skill, version, path, mode, size, blob)",
                        version_files)
        return len(batch)

    def _insert(self, skill: Skill, *, author: str | None, note: str, now: datetime | None) -> Skill:
        s = replace(skill, files=list(skill.files))
        self.add_many([s], author=author, note=note, now=now)
        return self.get(s.name)

    def update(self, name: str, skill: Skill, expected_version: int, *, author: str | None = None,
               note: str = "", allow_builtin: bool = False) -> Skill:
        """Save a changed skill (SKILL.md text, fields, files) as a new version.

        ``expected_version`` is the version the caller read: if the store has
        another, VersionConflict is raised and nothing is written. Renaming is
        allowed (``skill.name != name``) unless other skills depend on the old
        name or a deleted skill's history holds the new one. Builtin skills
        are read-only (ReadOnlySkill) unless ``allow_builtin`` (a new release
        of the builtin set). Review state (lifecycle, trust, scores) is kept
        from the store. Returns the stored skill.
        """
        _check_paths(skill)
        with self.transaction():
            current = self.get(name, with_files=False)
            if current.origin == Origin.BUILTIN and not allow_builtin:
                raise ReadOnlySkill(name)
            if current.version != expected_version:
                raise VersionConflict(name, expected_version, current.version)
            if skill.name != name:
                self._check_rename(name, skill.name)
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
                for table, column in (("procedural_memory", "name"), ("skill_versions", "skill"),
                                      ("audit_log", "skill"), ("drafts", "skill")):
                    self._conn.execute(f"UPDATE {table} SET {column} = ? WHERE {column} = ?", (s.name, name))
                self._audit(s.name, "rename", name, s.name, note, author, stamp)
            self._write_row(s)
            self._conn.execute("DELETE FROM skill_files WHERE skill = ?", (s.name,))
            self._write_files(s.name, s.files)
            self._write_version(s, author or self.actor, note or "edited", stamp)
            return self.get(s.name)

    def restore(self, name: str, version: int, expected_version: int, *, author: str | None = None) -> Skill:
        """Make an earlier version's SKILL.md and files the current ones, as a new version
        (history is never rewritten). Raises NotFound, VersionConflict, ReadOnlySkill."""
        from skill_studio.core.format import skillmd
        from skill_studio.core.format.fields import to_skill

        text, files = self.version_text(name, version)
        current = self.get(name, with_files=False)
        doc = skillmd.parse_document(text, f"{name} version {version}")
        if str(doc.data.get("name", "")).strip() != name:
            # Restoring never renames: a version from before a rename gets today's name in its text,
            # or the next save would rename the skill back.
            from skill_studio.core.format.frontmatter import set_field

            doc = skillmd.parse_document(set_field(doc, "name", name), f"{name} version {version}")
        old = to_skill(doc, current.folder_name, files=files, md_filename=current.md_filename,
                       source_path=current.source_path)
        return self.update(name, old, expected_version, author=author, note=f"restored version {version}")

    def rename_problem(self, old: str, new: str) -> str | None:
        """Why ``old`` may not take the name ``new`` for the name itself (None when it may): a
        name no skill folder can have, or one that reads like another skill's. The same rule
        for every way a skill is renamed: the designer, ``skill-studio save``, the API."""
        problem = skill_name_problem(new)
        if problem is None:
            twin = LookAlikes(n for n in self.names() if n != old).near_collision(new)
            if twin is None or twin == new:
                return None
            problem = f'reads like the skill "{twin}" ({LookAlikes.difference(new, twin)})'
        return f"the name '{printable(new)}' {problem}"

    def _check_rename(self, old: str, new: str) -> None:
        if new in self:
            raise AlreadyExists(f'cannot rename "{old}": a skill named "{new}" exists')
        problem = self.rename_problem(old, new)
        if problem is not None:
            raise StoreError(f'cannot rename "{old}": {problem}')
        if self._conn.execute("SELECT 1 FROM skill_versions WHERE skill = ?", (new,)).fetchone():
            raise AlreadyExists(f'cannot rename "{old}" to "{new}": a deleted skill of that name '
                                "keeps its history there")
        dependents = self.dependents(old)
        if dependents:
            raise DependentsExist(old, dependents, action="rename")

    def set_state(self, name: str, *, author: str | None = None, reason: str = "",
                  action: str = "state", **changes: Any) -> Skill:
        """Change review state columns (lifecycle, trust_tier, pinned, lifecycle_reason, scores)
        in one audited transaction, without a new SKILL.md version. Returns the skill."""
        allowed = {"lifecycle", "trust_tier", "pinned", "lifecycle_reason", "success_rate",
                   "utility_score", "freshness", "last_used_at", "use_count", "success_count",
                   "failure_count", "success_decayed", "failure_decayed",
                   "steps", "created_at"}  # the last two: a merge's steps, an undo's creation time
        bad = set(changes) - allowed
        if bad:
            raise StoreError(f"not review state: {', '.join(sorted(bad))}")
        if "lifecycle" in changes:
            changes["lifecycle"] = Lifecycle(changes["lifecycle"])  # ValueError names a bad state
        if "trust_tier" in changes:
            changes["trust_tier"] = TrustTier(changes["trust_tier"])
        with self.transaction():
            current = self.get(name, with_files=False)
            if not changes:
                return current
            stamp = scores.format_time(scores.utcnow())
            values = {k: (v.value if isinstance(v, (Lifecycle, Origin)) else
                          int(v) if isinstance(v, (bool, TrustTier)) else
                          to_json(v) if k == "steps" else v) for k, v in changes.items()}
            sets = ", ".join(f"{k} = ?" for k in values)
            self._conn.execute(f"UPDATE procedural_memory SET {sets} WHERE name = ?",
                               (*values.values(), name))
            for k, v in values.items():
                before = getattr(current, k)
                before = before.value if isinstance(before, (Lifecycle, Origin)) else \
                    int(before) if isinstance(before, (bool, TrustTier)) else before
                if str(before) != str(v) and k in ("lifecycle", "trust_tier", "pinned"):  # only real changes
                    self._audit(name, _audit_action(action, k, v), str(before), str(v), reason, author, stamp)
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

    def mark_loaded(self, name: str, *, now: datetime | None = None) -> str:
        """Record that an agent loaded the skill (SPEC §4): last_used_at becomes ``now`` and its
        freshness 1.0; no outcome is counted. Returns the time written. Raises NotFound."""
        stamp = scores.format_time(now or scores.utcnow())
        with self.transaction():
            if not self._conn.execute("UPDATE procedural_memory SET last_used_at = ?, freshness = 1.0 WHERE name = ?",
                                      (stamp, name)).rowcount:
                raise NotFound(f"no skill named {name!r}")
        return stamp

    def refresh_freshness(self, now: datetime | None = None) -> int:
        """Recompute every skill's freshness for ``now``; returns how many rows changed."""
        now = now or scores.utcnow()
        half_life = self.setting("scores.half_life_days", scores.HALF_LIFE_DAYS)
        rows = self._query("SELECT name, last_used_at, created_at, freshness FROM skill_cards")
        # Rows whose freshness moved by less than is shown (two decimals) are left alone: rewriting
        # a skill's row costs as much as its whole SKILL.md.
        changed = [(f, r[0]) for r in rows
                   if abs((f := scores.freshness(r[1], r[2], now, half_life)) - r[3]) >= FRESHNESS_STEP]
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

    def _write_row(self, s: Skill) -> None:
        """Rewrite an existing skill's row and tags."""
        values = dict(zip(ROW_COLUMNS, row_values(s)))
        values.pop("name")
        sets = ", ".join(f"{c} = ?" for c in values)
        self._conn.execute(f"UPDATE procedural_memory SET {sets} WHERE name = ?", (*values.values(), s.name))
        self._conn.execute("DELETE FROM skill_tags WHERE skill = ?", (s.name,))
        self._conn.executemany("INSERT OR IGNORE INTO skill_tags (skill, tag) VALUES (?, ?)",
                               [(s.name, t) for t in s.tags])

    def _store_blob(self, data: bytes) -> str:
        h = blob_hash(data)
        self._conn.execute("INSERT OR IGNORE INTO blobs (hash, data) VALUES (?, ?)", (h, data))
        return h

    def _write_files(self, name: str, files: list[SkillFile]) -> None:
        if not files:
            return
        self._conn.executemany(
            "INSERT INTO skill_files (skill, path, mode, size, blob) VALUES (?, ?, ?, ?, ?)",
            [(name, f.path, f.mode & 0o777, len(f.data), self._store_blob(f.data)) for f in files])


def _check_paths(skill: Skill) -> None:
    """Every file path a plain relative path inside the skill's folder, and the folder one name."""
    from skill_studio.core.format.skill_paths import VCS_REASON, safe_relative_path, vcs_part

    folder = skill.folder_name
    if folder is not None and (not folder or "/" in folder or "\\" in folder or folder in (".", "..")
                               or "\0" in folder):
        raise StoreError(f'"{skill.name}": {folder!r} cannot be a folder name')
    for f in skill.files:
        try:
            if safe_relative_path(f.path) != f.path:
                raise ValueError(f"is not written plainly (as {safe_relative_path(f.path)!r})")
            if vcs_part(f.path):
                raise ValueError(f"is {VCS_REASON}")
        except ValueError as e:
            raise StoreError(f'"{skill.name}": the file {f.path!r} {e}') from None


def _audit_action(action: str, column: str, value: Any) -> str:
    """The audit log's name for one review-state change: the move for the lifecycle ('promote'),
    'trust' and 'pin'/'unpin' for the others; 'state:<column>' for a plain state change and
    'undo:<column>' / 'redo:<column>' when an undo puts it back."""
    if action in ("state", "undo", "redo"):
        return f"{action}:{column}"
    if column == "lifecycle":
        return action
    return "trust" if column == "trust_tier" else ("pin" if value else "unpin")
