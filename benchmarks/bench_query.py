"""Query speed on a 100,000-skill store: pages of cards and full-text search, each next to its floor.

Usage: python benchmarks/bench_query.py [--n 100000 [--grow] | --db PATH] [--runs 40]

The synthetic store of --n skills is built once (through the same codec and
store code an import uses) and kept in the temporary folder for later runs (see
stores.py). With --grow a store larger than 100,000 skills starts as a copy of
the 100,000-skill one, and the missing skills are copies of the stored ones
under new names, made in SQL (minutes instead of tens of minutes for a
300,000-skill store; the copies go through the same triggers, so cards and the
full-text index hold them). A store given with --db is measured as it is, on a
copy: it is never written.

The floor of each query is the identical SQL the store sends for it (every
statement, parameters included, recorded from the store's own call) run
through sqlite3 on the store's connection, fetching plain tuples. Project and
floor run interleaved in the same process, the order swapped every run, on
the same random choices; each prints the p50 and the minimum, and the ratio of
the p50s (minima in brackets). "every field read" reads all the card fields of
every row returned: what a consumer that shows all of them (the command
line's table) pays in total.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sqlite3
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from make_library import COMMON, WORDS, generate

from skill_studio.core.library.folders import build_skill
from skill_studio.core.model import Lifecycle, Origin, Skill, SkillFile
from skill_studio.core.store import Filters, Store

STATES = [s.value for s in Lifecycle]
ONLY = [""]   # --only


def build(store: Store, n: int, start: int = 0) -> None:
    """Add ``n`` skills of the synthetic library to ``store``, skipping its first ``start`` skills
    (those a store of ``start`` skills built here already holds)."""
    rng = random.Random(3 + start)
    t0 = time.perf_counter()
    batch = []
    for i, (name, text, extra) in enumerate(itertools.islice(generate(start + n, seed=11), start, None)):
        files = [SkillFile(p, t.encode(), m) for p, (t, m) in sorted(extra.items())]
        origin = rng.choice([Origin.HUMAN, Origin.HUMAN, Origin.LLM, Origin.BUILTIN])
        skill = build_skill(text.encode(), name, files, origin=origin, source=f"{name}/SKILL.md")
        skill.lifecycle = Lifecycle(rng.choice(STATES))
        batch.append(skill)
        if len(batch) == 1000:
            store.add_many(batch)
            batch = []
            if (i + 1) % 10_000 == 0:
                print(f"  built {i + 1:,} skills in {time.perf_counter() - t0:.0f} s", flush=True)
    if batch:
        store.add_many(batch)
    store._conn.execute("PRAGMA optimize")


def grow(store: Store, n: int) -> None:
    """Add ``n`` copies of stored skills under new names, in SQL (see the module's note)."""
    conn = store._conn
    columns = [r[1] for r in conn.execute("PRAGMA table_info(procedural_memory)")]
    rest = ", ".join(c for c in columns if c != "name")
    t0 = time.perf_counter()
    have = conn.execute("SELECT count(*) FROM procedural_memory").fetchone()[0]
    done = 0
    while done < n:
        copy, offset = divmod(done, have)
        take = min(n - done, 20_000, have - offset)
        with store.transaction() as c:   # the first ``have`` rowids are the originals
            c.execute(f"INSERT INTO procedural_memory (name, {rest}) SELECT name || '-copy{copy + 1}', {rest} "
                      f"FROM procedural_memory ORDER BY rowid LIMIT {take} OFFSET {offset}")
        done += take
        print(f"  grown by {done:,} skills in {time.perf_counter() - t0:.0f} s", flush=True)
    conn.execute("PRAGMA optimize")


class _Recorder:
    """Stands in for the store's sqlite3 connection during one call and records every statement
    run through it (SQL and parameters)."""

    def __init__(self, conn: sqlite3.Connection):
        self._real, self.log = conn, []

    def execute(self, sql: str, params: Any = ()) -> sqlite3.Cursor:
        self.log.append((sql, tuple(params)))
        return self._real.execute(sql, params)

    def cursor(self) -> _RecordingCursor:
        return _RecordingCursor(self._real.cursor(), self.log)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


class _RecordingCursor:
    def __init__(self, cursor: sqlite3.Cursor, log: list):
        object.__setattr__(self, "_cursor", cursor)
        object.__setattr__(self, "_log", log)

    def execute(self, sql: str, params: Any = ()) -> sqlite3.Cursor:
        self._log.append((sql, tuple(params)))
        return self._cursor.execute(sql, params)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cursor, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._cursor, name, value)


def recorded(store: Store, call: Callable[[], Any]) -> list[tuple[str, tuple]]:
    """The statements ``call`` sends through the store's connection."""
    real = store._conn
    recorder = _Recorder(real)
    store._conn = recorder  # type: ignore[assignment]
    try:
        call()
    finally:
        store._conn = real
    return recorder.log


def replay(conn: sqlite3.Connection, statements: list[tuple[str, tuple]]) -> None:
    """The floor: the same statements through sqlite3, every row fetched as a tuple."""
    for sql, params in statements:
        cursor = conn.cursor()
        cursor.row_factory = None
        cursor.execute(sql, params).fetchall()


def read_every_field(skills: list[Skill]) -> None:
    names = [f.name for f in fields(Skill) if f.name not in ("skill_md", "content", "files", "steps")]
    for s in skills:
        for name in names:
            getattr(s, name)


def compare(label: str, store: Store, make_call: Callable[[], Callable[[], Any]], runs: int,
            target: float | None, then: Callable[[Any], None] | None = None) -> None:
    """Time ``make_call()``'s call against the replay of its statements, interleaved; print one line."""
    if ONLY[0] not in label:
        return
    ours: list[float] = []
    floor: list[float] = []
    for run in range(runs):
        call = make_call()
        store._hits_key = None            # a new search each run: the matching rows are found again
        statements = recorded(store, call)   # also warms the pages both read
        for step in ("project", "floor") if run % 2 == 0 else ("floor", "project"):
            if step == "project":
                store._hits_key = None
                t0 = time.perf_counter()
                result = call()
                if then is not None:
                    then(result)
                ours.append((time.perf_counter() - t0) * 1000)
            else:
                t0 = time.perf_counter()
                replay(store._conn, statements)
                floor.append((time.perf_counter() - t0) * 1000)
    p50, f50 = statistics.median(ours), statistics.median(floor)
    aim = f"target ≤ {target}" if target else "no target"
    print(f"{label}: project {p50:.2f} ms, floor {f50:.2f} ms, ratio {p50 / f50:.2f} ({aim}); "
          f"minima {min(ours):.2f} / {min(floor):.2f} ms, ratio {min(ours) / min(floor):.2f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, help="skills in the synthetic store (default 100,000)")
    ap.add_argument("--db", type=Path, help="measure this store (on a copy: it is not written)")
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--grow", action="store_true", help="top a store up with copies made in SQL")
    ap.add_argument("--only", default="", help="measure only the queries whose label holds this text")
    args = ap.parse_args()
    ONLY[0] = args.only
    import stores

    def build_to(path: Path, n: int) -> None:
        base = stores.synthetic_path(stores.DEFAULT_SKILLS)
        if args.grow and n > stores.DEFAULT_SKILLS and not path.exists() and base.exists():
            stores.copy(base, path)
        with Store(path) as store:
            have = len(store)
            if args.grow and have:
                grow(store, n - have)
            else:
                build(store, n - have, start=have)

    with stores.measured(args.db, args.n, build_to, program="bench_query") as measured:
        with Store(measured.path) as store:
            print(f"{measured.summary}, {measured.path.stat().st_size / 2**20:,.0f} MiB; {args.runs} runs of each, "
                  "project and floor interleaved", flush=True)
            measure(store, args.runs)


def measure(store: Store, runs: int) -> None:
    total = len(store)
    rng = random.Random(5)
    per_state = store.counts()["lifecycle"]

    def lifecycle_page(where: str) -> Callable[[], Callable[[], Any]]:
        def make() -> Callable[[], Any]:
            state = rng.choice(STATES)
            last = max(0, (per_state[state] - 1) // 200)
            page = {"first": 0, "middle": last // 2, "last": last}[where]
            return lambda: store.list(Filters(lifecycle=state), limit=200, offset=200 * page)
        return make

    def unfiltered_page(offset: int) -> Callable[[], Callable[[], Any]]:
        return lambda: (lambda: store.list(limit=200, offset=offset))

    mid = WORDS[len(COMMON) + 20: len(COMMON) + 2000]

    def word() -> str:
        return rng.choice(mid)

    def prefix() -> str:  # a word being typed
        w = rng.choice(mid)
        return w[: max(3, len(w) - 2)]

    def search(text: Callable[[], str], sort: str) -> Callable[[], Callable[[], Any]]:
        def make() -> Callable[[], Any]:
            typed = text()
            return lambda: store.list(Filters(text=typed), sort=sort, limit=200)
        return make

    for where in ("first", "middle", "last"):
        compare(f"page of 200 cards, lifecycle filter, {where} page", store, lifecycle_page(where), runs, 1.2)
    for offset in (0, total // 2 // 200 * 200, total - 200):
        compare(f"page of 200 cards, no filter, offset {offset:,}", store, unfiltered_page(offset), runs, 1.2)
    compare("page of 200 cards, lifecycle filter, middle page, every field read", store, lifecycle_page("middle"),
            runs, None, then=read_every_field)
    compare("full-text search, one word, first 200 by name", store, search(word, "name"), runs, 1.1)
    compare("full-text search while typing (prefix), first 200 by name", store, search(prefix, "name"),
            runs, 1.1)
    compare("full-text search, one word, top 200 by relevance", store, search(word, "relevance"), runs, None)
    compare("full-text search, one word, first 200 by name, every field read", store, search(word, "name"),
            runs, None, then=read_every_field)

    def count() -> Callable[[], Any]:
        state = rng.choice(STATES)
        return lambda: store.count(Filters(lifecycle=state))

    compare("count of a lifecycle filter", store, count, runs, None)
    store.close()


if __name__ == "__main__":
    main()
