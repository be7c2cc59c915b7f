"""Where skills added from a repository or another folder came from (schema 8): what
core.sources records at an add or an update and reads to find what changed since."""

from __future__ import annotations

import builtins
from collections.abc import Iterable
from dataclasses import dataclass

from skill_studio.core.store.connection import Connection

_COLUMNS = "skill, source, source_type, url, ref, commit_id, path, source_hash, store_hash, fetched_at"


@dataclass(frozen=True)
class SourceRecord:
    skill: str
    source: str          # owner/repo, the URL or the folder, as the user sees it
    source_type: str     # github, git or local
    url: str             # what is fetched (the folder for local)
    ref: str | None      # as asked; None: the default branch
    commit: str | None   # the commit taken (None for a plain folder)
    path: str            # the skill's folder inside the source ("" for its root)
    source_hash: str     # the hash of the skill's files as taken (core.sources.ops.folder_hash)
    store_hash: str      # the skill's content hash in the store right after
    fetched_at: str


class Sources(Connection):
    """The source records of skills."""

    def record_sources(self, records: Iterable[SourceRecord]) -> None:
        """Store these records, each replacing the skill's earlier one."""
        rows = [(r.skill, r.source, r.source_type, r.url, r.ref, r.commit, r.path, r.source_hash, r.store_hash,
                 r.fetched_at) for r in records]
        with self.transaction():
            self._conn.executemany(f"INSERT OR REPLACE INTO skill_sources ({_COLUMNS}) "
                                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)

    def source_records(self, names: Iterable[str] | None = None) -> builtins.list[SourceRecord]:
        """The records of the named skills (every record when None), by name."""
        rows = self._query(f"SELECT {_COLUMNS} FROM skill_sources ORDER BY skill")
        wanted = None if names is None else set(names)
        return [SourceRecord(*r) for r in rows if wanted is None or r[0] in wanted]

    def forget_source(self, name: str) -> bool:
        """Drop a skill's record (it stays in the library, no longer followed); whether it had one."""
        with self.transaction():
            return self._conn.execute("DELETE FROM skill_sources WHERE skill = ?", (name,)).rowcount > 0


__all__ = ["SourceRecord", "Sources"]
