"""Similarity vectors kept per skill, and the pairs a reviewer said are not duplicates."""

from __future__ import annotations

from typing import TYPE_CHECKING

from skill_studio.core.health import scores
from skill_studio.core.store.connection import Connection
from skill_studio.core.store.rows import searched, to_json

if TYPE_CHECKING:   # numpy is imported by the methods that use it, not with the store
    import numpy as np


class Vectors(Connection):
    """Each skill's vector (float32, little-endian, L2-normalised) with the content hash and
    embedder model it was computed for; dismissed near-duplicate pairs."""

    def vector_hashes(self, model: str) -> dict[str, str]:
        """{skill: content hash its stored vector was computed from}, for vectors of ``model``."""
        return dict(self._rows_of("SELECT skill, content_hash FROM skill_vectors WHERE model = ?", (model,)))

    def stale_vectors(self, model: str) -> list[str]:
        """Names of skills, in name order, with no vector of ``model`` for their current content."""
        return self._column(
            "SELECT c.name FROM skill_cards c LEFT JOIN skill_vectors v ON v.skill = c.name "
            "WHERE v.skill IS NULL OR v.model != ? OR v.content_hash != c.content_hash ORDER BY c.name",
            (model,))

    def embedding_inputs(self, names: list[str], max_content: int = 20_000) -> list[tuple[str, str, str, str]]:
        """(name, content hash, description, first ``max_content`` characters of content) of each
        named skill, in the order given (names not in the store are left out)."""
        if not names:
            return []
        rows = self._rows_of(
            "SELECT name, content_hash, description, substr(content, 1, ?) FROM procedural_memory "
            "WHERE name IN (SELECT value FROM json_each(?))", (int(max_content), to_json(list(names))))
        by_name = {r[0]: r for r in rows}
        return [by_name[n] for n in names if n in by_name]

    def load_vectors(self, model: str, *, include_archived: bool = True) -> tuple[list[str], np.ndarray]:
        """(names in name order, float32 matrix [n, dim]) of the current vectors of ``model``:
        vectors whose content hash no longer matches their skill's are left out, and so are
        archived skills unless ``include_archived``."""
        import numpy as np

        sql = ("SELECT v.skill, v.dim, v.vector FROM skill_vectors v JOIN skill_cards c ON c.name = v.skill "
               "WHERE v.model = ? AND v.content_hash = c.content_hash")
        if not include_archived:
            sql += " AND " + searched("c.lifecycle")
        rows = self._rows_of(sql + " ORDER BY v.skill", (model,))
        if not rows:
            return [], np.zeros((0, 0), dtype=np.float32)
        dims = {r[1] for r in rows}
        if len(dims) != 1:  # one model always has one size; keep the most common if not
            common = max(dims, key=lambda d: sum(r[1] == d for r in rows))
            rows = [r for r in rows if r[1] == common]
        dim = rows[0][1]
        matrix = np.frombuffer(b"".join(r[2] for r in rows), dtype="<f4").reshape(len(rows), dim)
        return [r[0] for r in rows], matrix.astype(np.float32, copy=True)

    def save_vectors(self, model: str, rows: list[tuple[str, str, np.ndarray]]) -> None:
        """Store (name, content hash, vector) rows of ``model`` in one transaction, replacing
        what each skill had."""
        import numpy as np

        values = []
        for name, content_hash, vector in rows:
            v = np.ascontiguousarray(vector, dtype="<f4").ravel()
            values.append((name, content_hash, model, int(v.shape[0]), v.tobytes()))
        with self.transaction():
            self._conn.executemany(
                "INSERT INTO skill_vectors (skill, content_hash, model, dim, vector) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (skill) DO UPDATE SET content_hash = excluded.content_hash, "
                "model = excluded.model, dim = excluded.dim, vector = excluded.vector", values)

    def dismiss_pair(self, a: str, b: str, actor: str | None = None) -> None:
        """Remember that ``a`` and ``b`` are not duplicates (either order)."""
        a, b = sorted((a, b))
        with self.transaction():
            self._conn.execute(
                "INSERT INTO dismissed_pairs (a, b, at, actor) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (a, b) DO UPDATE SET at = excluded.at, actor = excluded.actor",
                (a, b, scores.format_time(scores.utcnow()), actor or self.actor))

    def undismiss_pair(self, a: str, b: str) -> None:
        a, b = sorted((a, b))
        with self.transaction():
            self._conn.execute("DELETE FROM dismissed_pairs WHERE a = ? AND b = ?", (a, b))

    def dismissed_pairs(self) -> set[tuple[str, str]]:
        """Every dismissed pair, as (first, second) in sorted order."""
        return {(r[0], r[1]) for r in self._rows_of("SELECT a, b FROM dismissed_pairs")}

