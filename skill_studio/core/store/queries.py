"""Reading the store: one skill, lists with filters and sorting, counts and stats."""

from __future__ import annotations

import builtins
import functools
import json
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Concatenate, ParamSpec, TypeVar

from skill_studio.core.model import EXPOSED_STATES, REVIEW_STATES, Lifecycle, Origin, Skill, SkillFile
from skill_studio.core.store.connection import Connection
from skill_studio.core.store.errors import NotFound, StoreError
from skill_studio.core.store.rows import (
    CARD_COLUMNS,
    ROW_COLUMNS,
    SORT_COLUMNS,
    Filters,
    card_from_tuple,
    fts_query,
    json_names,
    name_tier_sql,
    skill_from_row,
)
from skill_studio.core.store.search_index import SearchIndex

_C = TypeVar("_C", bound=Connection)
_P = ParamSpec("_P")
_R = TypeVar("_R")


def _locked(method: Callable[Concatenate[_C, _P], _R]) -> Callable[Concatenate[_C, _P], _R]:
    """Run a read under the connection's lock: a text search fills a temporary table first,
    and another thread must not refill it before the query that reads it."""
    @functools.wraps(method)
    def run(self: _C, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with self._lock:
            return method(self, *args, **kwargs)
    return run


class Queries(SearchIndex):
    """The read side of the store."""

    def __contains__(self, name: str) -> bool:
        return bool(self._query("SELECT 1 FROM skill_cards WHERE name = ?", (name,)))

    def data_version(self) -> int:
        """A number that changes whenever another connection commits to this store."""
        return self._query("PRAGMA data_version")[0][0]

    def change_token(self) -> tuple[int, int]:
        """A value that changes whenever anything commits to this store, on this connection or
        another: cheap to ask often, to know when to look again."""
        return self.data_version(), self._writes

    def __len__(self) -> int:
        return self._query("SELECT count(*) FROM skill_cards")[0][0]

    def get(self, name: str, *, with_files: bool = True) -> Skill:
        """The whole skill, its SKILL.md text and (by default) its files. Raises NotFound."""
        rows = self._query(f"SELECT {', '.join(ROW_COLUMNS)} FROM procedural_memory WHERE name = ?",
                           (name,))
        if not rows:
            raise NotFound(f'no skill named "{name}" in {self.path}')
        skill = skill_from_row(rows[0])
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

    def _where(self, flt: Filters, *, ranked: bool = False) -> tuple[str, list[Any], str]:
        """WHERE clause, parameters and FTS join over ``skill_cards c`` for the filters.

        A text search joins the full-text index only when results are ranked by
        relevance; otherwise it is a set of matching rows, so a sorted page
        walks an index and stops after the page.
        """
        clauses, params, join = [], [], ""
        if flt.lifecycle:
            clauses.append("c.lifecycle = ?")
            params.append(Lifecycle(flt.lifecycle).value)
        if flt.origin:
            clauses.append("c.origin = ?")
            params.append(Origin(flt.origin).value)
        if flt.tag:
            clauses.append("c.name IN (SELECT skill FROM skill_tags WHERE tag = ?)")
            params.append(flt.tag)
        query = fts_query(flt.text) if flt.text else None
        if query:
            self._ensure_indexed()
        if flt.text and query is None:
            clauses.append("0")
        if query and ranked:
            join = "JOIN skills_fts ON skills_fts.rowid = c.rowid AND skills_fts MATCH ?"
            params.insert(0, query)
        elif query:
            clauses.append(f"c.rowid IN (SELECT rowid FROM {self._hits(query)})")
        return (" WHERE " + " AND ".join(clauses)) if clauses else "", params, join

    def _state_key(self, what: Any) -> tuple | None:
        """A key for a result about ``what`` that holds until the store changes (None inside
        a write transaction, whose own writes the data version does not show)."""
        if self._conn.in_transaction:
            return None
        return (what, self.data_version(), self._writes)

    def match_state(self) -> tuple | None:
        """A key that holds while the store stays the same (None inside a write transaction)."""
        return self._state_key("match")

    def _hits(self, query: str) -> str:
        """A temporary table of the rows matching a full-text query, kept while the query and
        the store stay the same: a search, its counts and its stats match the text once."""
        key = self._state_key(query)
        if key is None or self._hits_key != key:
            self._conn.execute("CREATE TEMP TABLE IF NOT EXISTS search_hits (rowid INTEGER PRIMARY KEY)")
            self._conn.execute("DELETE FROM temp.search_hits")
            self._conn.execute("INSERT INTO temp.search_hits SELECT rowid FROM skills_fts WHERE skills_fts MATCH ?",
                               (query,))
            self._hits_key = key
        return "temp.search_hits"

    def _order(self, sort: str, join: str, descending: bool, text: str | None = None) -> str:
        direction = "DESC" if descending else "ASC"
        if sort == "relevance" and join:  # how well the name matches, then bm25 (lower is better)
            return f"{name_tier_sql(text or '', 'c.name')} {direction}, skills_fts.rank {direction}, c.name"
        return f"{SORT_COLUMNS.get(sort, SORT_COLUMNS['name'])} {direction}, c.name {direction}"

    @_locked
    def list(self, flt: Filters | None = None, *, sort: str = "name", descending: bool = False,
             limit: int | None = None, offset: int = 0, summary: bool = True) -> builtins.list[Skill]:
        """Skills matching the filters, sorted; ``sort='relevance'`` ranks a text search: the skill
        named what was typed first, then names that start with it, hold a word starting with it or
        hold it, then the other matches by bm25 (name, then description hits weigh most).

        With ``summary`` only the card fields are filled in (the body, SKILL.md
        text, metadata and files are left empty): cheap for pages of cards.
        """
        flt = flt or Filters()
        where, params, join = self._where(flt, ranked=sort == "relevance")
        if summary:
            select, source = ", ".join(f"c.{col}" for col in CARD_COLUMNS), "skill_cards c"
        else:
            select = ", ".join(f"p.{col}" for col in ROW_COLUMNS)
            source = "skill_cards c JOIN procedural_memory p ON p.rowid = c.rowid"
        page = f" LIMIT {int(limit)} OFFSET {int(offset)}" if limit is not None else ""
        if page:
            source += self._name_walk(flt, sort, join)
        if sort == "relevance" and join and not descending and not where:
            # Rank inside the full-text index first, then join only the page's rows.
            tier = name_tier_sql(flt.text or "", "name")
            sql = (f"SELECT {select} FROM (SELECT rowid, rank, {tier} AS tier FROM skills_fts WHERE skills_fts "
                   f"MATCH ? ORDER BY tier, rank{page}) f JOIN {source} ON c.rowid = f.rowid "
                   "ORDER BY f.tier, f.rank, c.name")
        else:
            order = self._order(sort, join, descending, flt.text)
            sql = f"SELECT {select} FROM {source} {join}{where} ORDER BY {order}{page}"
        if summary:
            return [card_from_tuple(r) for r in self._rows_of(sql, params)]
        return [skill_from_row(r) for r in self._query(sql, params)]

    def _name_walk(self, flt: Filters, sort: str, join: str) -> str:
        """An INDEXED BY clause for a text search by name with many matches: walking the name
        order and keeping the matches beats fetching every match and sorting them (twice as
        fast for all of them, and a page stops early). Empty when that does not apply."""
        if sort != "name" or join or not flt.text or not self._many_matches(flt.text):
            return ""
        index = "cards_lifecycle_name" if flt.lifecycle else "cards_origin_name" if flt.origin else "cards_name"
        return f" INDEXED BY {index}"

    def _many_matches(self, text: str, threshold: int = 1000) -> bool:
        query = fts_query(text)
        if not query:
            return False
        return self._query(f"SELECT count(*) FROM {self._hits(query)}")[0][0] > threshold

    def cards(self, names: builtins.list[str]) -> builtins.list[Skill]:
        """The card fields of the named skills, in the order given (unknown names left out):
        what a view that holds only names fetches for the rows it shows."""
        rows = {r[0]: r for r in self._rows_of(
            f"SELECT {', '.join(CARD_COLUMNS)} FROM skill_cards WHERE name IN "
            "(SELECT value FROM json_each(?))", (json.dumps(names),))}
        return [card_from_tuple(rows[n]) for n in names if n in rows]

    @_locked
    def names(self, flt: Filters | None = None, *, sort: str = "name", descending: bool = False) -> builtins.list[str]:
        """Just the names of the matching skills, in order (what a list model holds)."""
        flt = flt or Filters()
        where, params, join = self._where(flt, ranked=sort == "relevance")
        source = "skill_cards c" + self._name_walk(flt, sort, join)
        return self._column(
            f"SELECT c.name FROM {source} {join}{where} ORDER BY {self._order(sort, join, descending, flt.text)}",
            params)

    @_locked
    def count(self, flt: Filters | None = None) -> int:
        where, params, join = self._where(flt or Filters())
        return self._query(f"SELECT count(*) FROM skill_cards c {join}{where}", params)[0][0]

    @_locked
    def _grid(self, flt: Filters) -> dict[tuple[str, str], tuple[int, float, float, float]]:
        """(lifecycle, origin) -> (count, sum of success, utility, freshness) for the skills matching
        the tag and text of ``flt`` (its lifecycle and origin are ignored): every count and
        average a browser shows derives from this one pass over a small index. Kept while the
        filter and the store stay the same, so the tabs' counts and the stats share it."""
        base = Filters(tag=flt.tag, text=flt.text)
        key = self._state_key(base)
        if key is not None and self._grid_key == key:
            if isinstance(self._grid_value, Future):
                self._grid_value = self._grid_value.result()
            return self._grid_value
        grid = self._count_grid(base)
        self._grid_key, self._grid_value = key, grid
        return grid

    def _count_grid(self, base: Filters) -> dict[tuple[str, str], tuple[int, float, float, float]]:
        where, params, join = self._where(base)
        index = "" if join or base.tag else " INDEXED BY cards_stats"
        return {(state, origin): (n, success, utility, freshness)
                for state, origin, n, success, utility, freshness in self._query(
                    "SELECT c.lifecycle, c.origin, count(*), sum(c.success_rate), sum(c.utility_score), "
                    f"sum(c.freshness) FROM skill_cards c{index} {join}{where} "
                    "GROUP BY c.lifecycle, c.origin", params)}

    @_locked
    def prefetch_counts(self, flt: Filters | None = None) -> None:
        """Start counting ``flt``'s skills on a second connection in the background, so that
        ``counts`` and ``stats`` find the figures ready while this connection lists the
        names (two cores, and SQLite lets go of Python while it works)."""
        base = Filters(tag=(flt or Filters()).tag, text=(flt or Filters()).text)
        key = self._state_key(base)
        if key is None or self._grid_key == key:
            return
        if self._reader is None:
            try:
                self._reader = (type(self)(self.path, actor=self.actor), ThreadPoolExecutor(1, "store-counts"))
            except StoreError:
                return  # counted here when asked, as without a reader
        reader, pool = self._reader
        self._grid_key, self._grid_value = key, pool.submit(reader._count_grid, base)

    def counts(self, flt: Filters | None = None) -> dict[str, dict[str, int]]:
        """Counts per lifecycle and per origin (every state present, zero included).

        Each count ignores its own filter, so a tab shows how many it would show.
        """
        flt = flt or Filters()
        out: dict[str, dict[str, int]] = {"lifecycle": {s.value: 0 for s in Lifecycle},
                                          "origin": {o.value: 0 for o in Origin}}
        for (state, origin), (n, *_sums) in self._grid(flt).items():
            if not flt.origin or origin == Origin(flt.origin).value:
                out["lifecycle"][state] += n
            if not flt.lifecycle or state == Lifecycle(flt.lifecycle).value:
                out["origin"][origin] += n
        return out

    def stats(self, flt: Filters | None = None) -> dict[str, Any]:
        """Total, by origin and lifecycle, active (exposed states), candidates, awaiting review (the
        states the review queue holds), deprecated and score averages of the skills matching the
        filters. The per-state counts ignore their own filter, like ``counts``."""
        flt = flt or Filters()
        state_wanted = Lifecycle(flt.lifecycle).value if flt.lifecycle else None
        origin_wanted = Origin(flt.origin).value if flt.origin else None
        by_state = {s.value: 0 for s in Lifecycle}
        total = 0
        sums = [0.0, 0.0, 0.0]
        for (state, origin), (n, success, utility, freshness) in self._grid(flt).items():
            if state_wanted not in (None, state) or origin_wanted not in (None, origin):
                continue
            total += n
            by_state[state] += n
            sums = [sums[0] + success, sums[1] + utility, sums[2] + freshness]
        counts = self.counts(flt)
        avg = [x / total if total else None for x in sums]
        return {"total": total,
                "active": sum(by_state[s.value] for s in EXPOSED_STATES),
                "candidates": by_state[Lifecycle.CANDIDATE.value],
                "awaiting_review": sum(by_state[s.value] for s in REVIEW_STATES),
                "deprecated": by_state[Lifecycle.DEPRECATED.value],
                "by_origin": counts["origin"], "by_lifecycle": counts["lifecycle"],
                "avg_success_rate": avg[0], "avg_utility": avg[1], "avg_freshness": avg[2]}

    @_locked
    def term_documents(self, terms: builtins.list[str]) -> dict[str, int]:
        """How many skills each word of the full-text index appears in (words not indexed left out)."""
        self._ensure_indexed()
        self._conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.skills_vocab "
                           "USING fts5vocab(main, skills_fts, row)")
        return dict(self._rows_of("SELECT term, doc FROM temp.skills_vocab WHERE term IN "
                                  "(SELECT value FROM json_each(?))", (json.dumps(terms),)))

    @_locked
    def term_forms(self, stems: builtins.list[str]) -> dict[str, builtins.list[tuple[str, int]]]:
        """{stem: [(word, skills it appears in), ...]} of the full-text index's words that begin with
        each stem, in word order."""
        self._ensure_indexed()
        self._conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.skills_vocab "
                           "USING fts5vocab(main, skills_fts, row)")
        return {stem: [(r[0], r[1]) for r in self._conn.execute(
            "SELECT term, doc FROM temp.skills_vocab WHERE term >= ? AND term < ? ORDER BY term",
            (stem, stem + "\U0010ffff")).fetchall()] for stem in stems}

    def match_cards(self) -> builtins.list[tuple]:
        """(name, description, trigger_pattern, lifecycle, trust_tier, origin, success_rate,
        utility_score, last_used_at, created_at, content_hash, use_count, redundancy in the latest
        health run or 0) of every skill, by name: what matching and the gate read."""
        return self._rows_of("SELECT c.name, c.description, c.trigger_pattern, c.lifecycle, c.trust_tier, c.origin, "
                             "c.success_rate, c.utility_score, c.last_used_at, c.created_at, c.content_hash, "
                             "c.use_count, coalesce(h.redundancy, 0.0) FROM skill_cards c LEFT JOIN health_scores h "
                             "ON h.skill = c.name AND h.run = (SELECT max(id) FROM health_runs) ORDER BY c.name")

    def names_from(self, sources: builtins.list[str]) -> dict[str, str]:
        """{source path: name} of the skills imported from these SKILL.md paths."""
        return dict(self._rows_of("SELECT source_path, name FROM procedural_memory WHERE source_path IN "
                                  "(SELECT value FROM json_each(?))", (json.dumps(sources),)))

    def text_matches(self, words: builtins.list[str], limit: int) -> builtins.list[tuple[str, float]]:
        """(name, bm25 rank) of the skills whose indexed text holds any of ``words`` (a word ending
        in ``*`` is a prefix), best first (ranks are negative: lower is better)."""
        if not words:
            return []
        query = " OR ".join('"' + w.rstrip("*").replace('"', '""') + '"' + ("*" if w.endswith("*") else "")
                            for w in words if w.rstrip("*"))
        if not query:
            return []
        self._ensure_indexed()
        return [tuple(r) for r in self._rows_of(
            "SELECT c.name, f.rank FROM (SELECT rowid, rank FROM skills_fts WHERE skills_fts MATCH ? ORDER BY rank "
            "LIMIT ?) f JOIN skill_cards c ON c.rowid = f.rowid ORDER BY f.rank", (query, int(limit)))]

    def import_state(self) -> dict[str, tuple[int, str, str, str]]:
        """Every skill's (version, content hash, origin, lifecycle): what an import compares against."""
        return {r[0]: (r[1], r[2], r[3], r[4]) for r in self._query(
            "SELECT name, version, content_hash, origin, lifecycle FROM skill_cards")}

    def tags(self) -> builtins.list[tuple[str, int]]:
        """Every tag in use with the number of skills carrying it, most used first."""
        return [(r[0], r[1]) for r in self._query(
            "SELECT tag, count(*) FROM skill_tags GROUP BY tag ORDER BY count(*) DESC, tag")]

    def dependents(self, name: str) -> builtins.list[str]:
        """Skills (any lifecycle) whose depends_on names this skill."""
        return [r[0] for r in self._query(
            "SELECT c.name FROM skill_cards c, json_each(c.depends_on) j "
            "WHERE j.value = ? AND c.name != ? ORDER BY c.name", (name, name))]

    def health_rows(self) -> builtins.list[tuple]:
        """(name, origin, lifecycle, trust_tier, pinned, use_count, utility_score, success_rate,
        freshness) of every skill, by name: what a health check scores."""
        return self._rows_of(
            "SELECT name, origin, lifecycle, trust_tier, pinned, use_count, utility_score, success_rate, "
            "freshness FROM skill_cards ORDER BY name")

    def graph_rows(self) -> builtins.list[tuple]:
        """(name, description, lifecycle, origin, trust_tier, utility_score, freshness, success_rate,
        use_count, depends_on, conflicts_with, parent_skill_id) of every skill, by name, with the
        two JSON lists decoded: what the dependency graph is built from."""
        return [(*r[:9], json_names(r[9]), json_names(r[10]), r[11]) for r in self._rows_of(
            "SELECT name, description, lifecycle, origin, trust_tier, utility_score, freshness, success_rate, "
            "use_count, depends_on, conflicts_with, parent_skill_id FROM skill_cards ORDER BY name")]
