"""Counts, stats and name lists of filtered views: equal to counting the skills one by one,
whether counted here, in parallel on the second connection, or after someone else wrote."""

from __future__ import annotations

import itertools
import sqlite3

import pytest
from conftest import make

from skill_studio.core.model import EXPOSED_STATES, Lifecycle, Origin
from skill_studio.core.store import Filters, Store

STATES = [Lifecycle.CANDIDATE, Lifecycle.VERIFIED, Lifecycle.RELEASED, Lifecycle.DEGRADED,
          Lifecycle.DEPRECATED, Lifecycle.ARCHIVED]


@pytest.fixture
def library(tmp_path):
    store = Store(tmp_path / "lib.db")
    skills = []
    for i in range(36):
        origin = [Origin.HUMAN, Origin.LLM][i % 2]
        s = make(f"skill-{i:02d}", f"{'Deploys' if i % 3 else 'Reviews'} things. Use when asked.",
                 meta={"tags": "ops"} if i % 4 == 0 else None, origin=origin)
        skills.append(s)
    store.add_many(skills)
    for i, s in enumerate(skills):
        store.set_state(s.name, lifecycle=STATES[i % len(STATES)], reason="set up")
    yield store
    store.close()


def expected(store: Store, flt: Filters) -> list:
    """The skills a filter keeps, found one by one without the query under test."""
    text_hits = set(store.names(Filters(text=flt.text))) if flt.text else None
    out = []
    for s in store.list():
        if flt.lifecycle and s.lifecycle.value != flt.lifecycle:
            continue
        if flt.origin and s.origin.value != flt.origin:
            continue
        if flt.tag and flt.tag not in s.tags:
            continue
        if text_hits is not None and s.name not in text_hits:
            continue
        out.append(s)
    return out


FILTERS = [Filters(**dict(zip(("lifecycle", "origin", "tag", "text"), combo)))
           for combo in itertools.product([None, "released", "deprecated"], [None, "llm"],
                                          [None, "ops"], [None, "deploys", "revi"])]


@pytest.mark.parametrize("flt", FILTERS, ids=str)
def test_counts_and_stats_match_the_skills_one_by_one(library, flt):
    kept = expected(library, flt)
    stats = library.stats(flt)
    assert stats["total"] == len(kept) == library.count(flt)
    assert stats["candidates"] == sum(s.lifecycle == Lifecycle.CANDIDATE for s in kept)
    assert stats["active"] == sum(s.lifecycle in EXPOSED_STATES for s in kept)
    if kept:
        assert stats["avg_utility"] == pytest.approx(sum(s.utility_score for s in kept) / len(kept))
    else:
        assert stats["avg_utility"] is None
    counts = library.counts(flt)
    for state in Lifecycle:  # each tab's count ignores the lifecycle filter, keeps the others
        assert counts["lifecycle"][state.value] == len(expected(library, Filters(
            lifecycle=state.value, origin=flt.origin, tag=flt.tag, text=flt.text)))
    for origin in Origin:
        assert counts["origin"][origin.value] == len(expected(library, Filters(
            lifecycle=flt.lifecycle, origin=origin.value, tag=flt.tag, text=flt.text)))
    assert stats["by_lifecycle"] == counts["lifecycle"]


def test_counts_made_in_parallel_are_the_same_and_follow_later_writes(library):
    flt = Filters(text="deploys")
    library.prefetch_counts(flt)
    assert library._reader is not None
    parallel = library.counts(flt)
    library._grid_key = None
    assert parallel == library.counts(flt)
    total = library.stats(flt)["total"]
    library.prefetch_counts(flt)
    library.add(make("skill-new", "Deploys the new thing. Use when asked."))  # written after the prefetch
    assert library.stats(flt)["total"] == total + 1
    assert sum(library.counts(flt)["lifecycle"].values()) == sum(parallel["lifecycle"].values()) + 1


def test_another_connection_s_writes_change_the_counts(library, tmp_path):
    before = library.stats()["total"]
    other = Store(tmp_path / "lib.db")
    other.add(make("from-elsewhere"))
    other.close()
    assert library.stats()["total"] == before + 1
    assert library.counts()["lifecycle"]["candidate"] == library.count(Filters(lifecycle="candidate"))


def test_counts_inside_a_write_transaction_see_its_writes(library):
    before = library.stats()["total"]
    with library.transaction():
        library.add(make("inside"))
        assert library.stats()["total"] == before + 1
    assert library.stats()["total"] == before + 1


def test_close_stops_the_counting_connection(library):
    library.prefetch_counts(Filters(text="deploys"))
    reader, pool = library._reader
    library.close()
    assert library._reader is None
    with pytest.raises(sqlite3.ProgrammingError):   # its connection is closed
        reader.names()
    with pytest.raises(RuntimeError):
        pool.submit(print)


def test_many_matches_by_name_in_both_directions(tmp_path):
    store = Store(tmp_path / "many.db")
    store.add_many([make(f"s-{i:04d}", "Deploys everything. Use when asked.") for i in range(1200)]
                   + [make(f"Q-{i}", "Reviews. Use when asked.") for i in range(3)])
    names = store.names(Filters(text="deploys"))
    assert len(names) == 1200 and names == sorted(names, key=lambda n: (n.lower(), n))
    assert store.names(Filters(text="deploys"), descending=True) == names[::-1]
    assert store.names(Filters(text="deploy"), sort="utility")[:1] and len(store.names(Filters(text="dep"))) == 1200
    store.close()


def test_a_version_one_store_gets_the_counting_index(tmp_path):
    path = tmp_path / "v1.db"
    Store(path).close()
    conn = sqlite3.connect(path)
    conn.execute("DROP INDEX cards_stats")
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    store = Store(path)
    assert store._query("SELECT name FROM sqlite_master WHERE name = 'cards_stats'")
    assert store.stats()["total"] == 0
    store.close()
