"""The store's full-text index (skills_fts) and the rows waiting for it.

Indexing the bodies is most of what storing a large import costs. Such an import may store its
rows first and leave them waiting (``Store.add_many(..., index_later=True)``, the table
fts_pending of schema version 7), so that it reports done sooner; ``index_pending`` then indexes
them a chunk at a time, each chunk its own transaction so that other work goes on in between.
Every search first indexes whatever still waits, so a search always sees every stored skill, the
ones of an import that has just reported done included.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from skill_studio.core.store.connection import Connection
from skill_studio.core.store.errors import StoreError

#: Rows indexed per transaction by index_pending: about 0.1 s of work for skills of usual size, the
#: longest a search or a page of cards on another thread waits for it.
INDEX_CHUNK = 250

#: In rowid order: the index writes its pending words out each time a rowid comes lower than the
#: one before, so rows in another order would be written out once per skill.
_INDEX_ROWS = (
    "INSERT INTO skills_fts (rowid, name, description, content, tags, trigger_pattern) "
    "SELECT rowid, name, description, content, tags, trigger_pattern FROM procedural_memory "
    "WHERE rowid IN (SELECT value FROM json_each(?)) ORDER BY rowid")


class SearchIndex(Connection):
    """What the full-text index holds and what waits for it."""

    def waiting_for_index(self) -> int:
        """How many stored skills are not indexed for search yet."""
        return int(self._column("SELECT count(*) FROM fts_pending")[0])

    def index_pending(self, *, chunk: int = INDEX_CHUNK, progress: Callable[[int, int], None] | None = None,
                      cancelled: Callable[[], bool] | None = None) -> int:
        """Index the skills waiting for the full-text index, ``chunk`` to a transaction; returns how
        many. ``progress(done, total)`` is called after each chunk and ``cancelled()`` before it:
        what a cancel leaves keeps waiting (the next search or call indexes it)."""
        total, done = self.waiting_for_index(), 0
        while not (cancelled is not None and cancelled()):
            with self.transaction() as conn:
                n = _index_some(conn, chunk)
            if not n:
                break
            done += n
            if progress is not None:
                progress(done, max(total, done))
        return done

    def _ensure_indexed(self) -> None:
        """Index everything still waiting, before a search reads the index. A store that cannot be
        written to now (read-only, or held by another program) is searched as it is indexed."""
        with self._lock:
            if self._conn.execute("SELECT 1 FROM fts_pending LIMIT 1").fetchone() is None:
                return
            try:
                with self.transaction() as conn:
                    while _index_some(conn, INDEX_CHUNK * 20):
                        pass
            except StoreError:
                return


def _index_some(conn, limit: int) -> int:
    """Index up to ``limit`` waiting rows, lowest rowids first, in the caller's transaction."""
    rowids = [r[0] for r in conn.execute("SELECT rowid FROM fts_pending ORDER BY rowid LIMIT ?", (limit,))]
    if rowids:
        listed = json.dumps(rowids)
        conn.execute(_INDEX_ROWS, (listed,))
        conn.execute("DELETE FROM fts_pending WHERE rowid IN (SELECT value FROM json_each(?))", (listed,))
    return len(rowids)


__all__ = ["INDEX_CHUNK", "SearchIndex"]
