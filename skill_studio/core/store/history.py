"""Versions, the audit log, settings and drafts."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta
from typing import Any

from skill_studio.core.health import scores
from skill_studio.core.model import Skill, SkillFile
from skill_studio.core.store.connection import Connection, inserted_id
from skill_studio.core.store.errors import NotFound
from skill_studio.core.store.rows import AuditEntry, VersionInfo, to_json


class History(Connection):
    """Every saved version of every skill, who changed what, settings and unsaved drafts."""

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

    def audit_entries(self, *, skill: str | None = None, action: str | None = None,
                      since: str | date | None = None, until: str | date | None = None,
                      text: str | None = None, limit: int = 10000) -> list[AuditEntry]:
        """Audit entries matching every filter given, newest first.

        ``action`` matches exactly or as a prefix before a colon ("state" matches
        "state:lifecycle"); ``since`` and ``until`` are ISO dates (or times), both
        inclusive, a date-only ``until`` covering its whole day; ``text`` is found in the
        skill, the actor or the reason (case-insensitive, no wildcards).
        """
        where: list[str] = []
        params: list[Any] = []
        if skill:
            where.append("skill = ?")
            params.append(skill)
        if action:
            where.append("(action = ? OR action LIKE ? ESCAPE '\\')")
            params += [action, like_escape(action) + ":%"]
        for value, upper in ((since, False), (until, True)):
            if value:
                op, bound = _bound(value, upper=upper)
                where.append(f"at {op} ?")
                params.append(bound)
        if text:
            pattern = f"%{like_escape(text)}%"
            where.append("(skill LIKE ? ESCAPE '\\' OR actor LIKE ? ESCAPE '\\' OR reason LIKE ? ESCAPE '\\')")
            params += [pattern] * 3
        sql = "SELECT * FROM audit_log" + (" WHERE " + " AND ".join(where) if where else "")
        rows = self._query(sql + " ORDER BY id DESC LIMIT ?", (*params, int(limit)))
        return [AuditEntry(r["id"], r["at"], r["actor"], r["skill"], r["action"], r["from_value"],
                           r["to_value"], r["reason"]) for r in rows]

    def actions_in_use(self) -> list[str]:
        """Every distinct action the audit log holds, sorted."""
        return self._column("SELECT DISTINCT action FROM audit_log ORDER BY action")

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
                               "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, to_json(value)))

    # --- health runs --------------------------------------------------------

    def save_health_run(self, settings: dict, summary: dict, rows: list[tuple], *,
                        actor: str | None = None, at: str | None = None) -> int:
        """Keep one health run: its settings, summary, and each skill's (name, utility, redundancy,
        freshness, failure_risk, health[, uses]). Returns the run's id."""
        with self.transaction():
            cur = self._conn.execute(
                "INSERT INTO health_runs (at, actor, settings, summary) VALUES (?, ?, ?, ?)",
                (at or scores.format_time(scores.utcnow()), actor or self.actor, to_json(settings), to_json(summary)))
            run = inserted_id(cur)
            self._conn.executemany(
                "INSERT INTO health_scores (run, skill, utility, redundancy, freshness, failure_risk, health, uses) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [(run, *row[:7], *([None] * (7 - len(row)))) for row in rows])
            return run

    def health_runs(self, limit: int = 50) -> list[tuple[int, str, str, dict]]:
        """(id, at, actor, summary) of the latest runs, newest first."""
        return [(r[0], r[1], r[2], json.loads(r[3])) for r in self._query(
            "SELECT id, at, actor, summary FROM health_runs ORDER BY id DESC LIMIT ?", (int(limit),))]

    def health_history(self, name: str, limit: int = 30) -> list[tuple[int, str, float]]:
        """(run, at, health) of one skill over the latest runs, oldest first."""
        rows = self._query("SELECT s.run, r.at, s.health FROM health_scores s JOIN health_runs r ON r.id = s.run "
                           "WHERE s.skill = ? ORDER BY s.run DESC LIMIT ?", (name, int(limit)))
        return [(r[0], r[1], r[2]) for r in reversed(rows)]

    def recent_health(self, runs: int) -> dict[str, list[float]]:
        """Each skill's health in the latest ``runs`` runs (newest first; fewer if it missed runs)."""
        out: dict[str, list[float]] = {}
        for skill, health in self._query(
                "SELECT skill, health FROM health_scores WHERE run IN "
                "(SELECT id FROM health_runs ORDER BY id DESC LIMIT ?) ORDER BY run DESC", (int(runs),)):
            out.setdefault(skill, []).append(health)
        return out

    def health_trail(self, names: list[str], since: str) -> dict[str, list[tuple[str, float, int | None]]]:
        """(at, health, uses) of the named skills in every run from ``since`` (an ISO time) on,
        oldest first; ``uses`` is None for runs kept before use counts were."""
        out: dict[str, list[tuple[str, float, int | None]]] = {}
        for skill, at, health, uses in self._query(
                "SELECT s.skill, r.at, s.health, s.uses FROM health_scores s JOIN health_runs r ON r.id = s.run "
                "WHERE s.skill IN (SELECT value FROM json_each(?)) AND r.at >= ? ORDER BY s.skill, s.run",
                (to_json(sorted(set(names))), since)):
            out.setdefault(skill, []).append((at, health, uses))
        return out

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


def like_escape(text: str) -> str:
    """``text`` with LIKE's wildcards taken literally (used with ESCAPE '\\')."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _bound(value: str | date, *, upper: bool) -> tuple[str, str]:
    """(operator, ISO text) comparing ``at`` with a time or date; a date alone as an upper
    bound means up to the end of that day."""
    if isinstance(value, datetime):
        return ("<=" if upper else ">="), scores.format_time(value)
    text = value.isoformat() if isinstance(value, date) else str(value).strip()
    if upper:
        try:
            return "<", (date.fromisoformat(text) + timedelta(days=1)).isoformat()
        except ValueError:
            return "<=", text
    return ">=", text
