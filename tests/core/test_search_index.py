"""An import that leaves its skills waiting for the search index (index_later) ends with the same
store and the same index as one that indexes them at once; a search finds them as soon as the
import returns, on its connection and on another one; a waiting skill can be changed, renamed and
deleted without harming the index; indexing what waits can be followed and cancelled."""

from __future__ import annotations

import re
import shutil

import pytest

from skill_studio.core.library.importer import import_paths
from skill_studio.core.store import Store
from skill_studio.core.store.rows import Filters
from tests.conftest import SAMPLES, make
from tests.core.test_import_speed_paths import check_index, contents_of, index_of, synthetic


@pytest.fixture
def library(tmp_path, real_world):
    samples = tmp_path / "samples"
    shutil.copytree(SAMPLES, samples, ignore=shutil.ignore_patterns("*.json"))
    return [real_world, samples, synthetic(tmp_path / "synthetic", n=60)]


def _longest_words(store: Store, name: str) -> list[str]:
    skill = store.get(name, with_files=False)
    found = []
    for text in (skill.description, skill.content):
        words = [w for w in re.findall(r"\w+", text) if w.isascii() and w.isalpha() and len(w) >= 4]
        if words:
            found.append(max(words, key=len))
    return found


QUERIES = ["uniqueword1body", "pdf", "data report", "kubernetes", "straße", "café", "synthetic", "step",
           "yaml", "écriture", "slo", "echo"]


def test_the_same_store_and_index_as_an_import_indexed_at_once(tmp_path, library):
    with Store(tmp_path / "now.db", actor="t") as now, Store(tmp_path / "later.db", actor="t") as later:
        a = import_paths(now, library)
        b = import_paths(later, library, index_later=True)
        assert [(e.source, e.status, e.name) for e in b.entries] == [(e.source, e.status, e.name) for e in a.entries]
        assert later.waiting_for_index() == b.count("imported") > 60
        assert now.waiting_for_index() == 0
        assert contents_of(later) == contents_of(now)
        assert later.index_pending() == b.count("imported")
        assert later.waiting_for_index() == 0
        assert index_of(later) == index_of(now)
        for q in QUERIES:   # the same results, in the same order (bm25 sees the same index)
            assert later.names(Filters(text=q), sort="relevance") == now.names(Filters(text=q), sort="relevance")
        check_index(later)


def test_search_finds_every_skill_as_soon_as_the_import_returns(tmp_path, library):
    path = tmp_path / "s.db"
    with Store(path) as store, Store(path) as other:
        report = import_paths(store, library, index_later=True)
        imported = [e.name for e in report.entries if e.status == "imported"]
        assert store.waiting_for_index() == len(imported)
        for i, name in enumerate(imported):
            reader = other if i % 2 else store   # the first search may come from another connection
            for word in _longest_words(store, name):
                assert name in reader.names(Filters(text=word)), (name, word)
            assert name in reader.names(Filters(text=name))
        assert store.waiting_for_index() == 0
        check_index(store)


def test_every_kind_of_search_indexes_what_waits_first(store):
    store.add_many([make(f"wait-{i}", body=f"# W\n\nWaitword{i} here.\n") for i in range(3)], index_later=True)
    assert store.waiting_for_index() == 3
    assert [n for n, _ in store.text_matches(["waitword1"], 10)] == ["wait-1"]
    assert store.waiting_for_index() == 0
    store.add_many([make("more", body="# M\n\nLatecomerword.\n")], index_later=True)
    assert store.term_documents(["latecomerword"]) == {"latecomerword": 1}
    store.add_many([make("most", body="# M\n\nStemmyword.\n")], index_later=True)
    assert [w for w, _ in store.term_forms(["stemmy"])["stemmy"]] == ["stemmyword"]
    store.add_many([make("last", body="# L\n\nFinalword.\n")], index_later=True)
    assert [s.name for s in store.list(Filters(text="finalword"), sort="relevance")] == ["last"]
    store.add_many([make("counted", body="# C\n\nCountword.\n")], index_later=True)
    assert store.count(Filters(text="countword")) == 1
    check_index(store)


def test_a_waiting_skill_changed_renamed_or_deleted_leaves_a_sound_index(store):
    store.add_many([make(n, body=f"# {n}\n\nOldword of {n}.\n") for n in ("edit-me", "rename-me", "drop-me", "keep")],
                   index_later=True)
    skill = store.get("edit-me")
    skill.skill_md = skill.skill_md.replace("Oldword", "Newword")
    skill.content = skill.content.replace("Oldword", "Newword")
    store.update("edit-me", skill, skill.version)
    moved = store.get("rename-me")
    moved.name, moved.folder_name = "renamed", "renamed"
    moved.skill_md = moved.skill_md.replace("name: rename-me", "name: renamed")
    store.update("rename-me", moved, moved.version)
    store.delete("drop-me")
    assert store.waiting_for_index() == 3
    check_index(store)   # nothing was taken out of the index that was never put in
    assert store.names(Filters(text="newword")) == ["edit-me"]
    assert store.names(Filters(text="oldword")) == ["keep", "renamed"]
    assert store.names(Filters(text="drop")) == []
    assert store.waiting_for_index() == 0
    check_index(store)
    # Once indexed, the same changes go through the index as they always did.
    store.delete("keep")
    assert store.names(Filters(text="oldword")) == ["renamed"]
    check_index(store)


def test_indexing_what_waits_reports_progress_and_can_be_cancelled(store):
    store.add_many([make(f"bulk-{i:03d}", body=f"# B\n\nBulkword{i}.\n") for i in range(25)], index_later=True)
    seen: list[tuple[int, int]] = []
    done = store.index_pending(chunk=10, progress=lambda d, t: seen.append((d, t)),
                               cancelled=lambda: len(seen) >= 2)
    assert done == 20 and seen == [(10, 25), (20, 25)]
    assert store.waiting_for_index() == 5
    assert store.names(Filters(text="bulkword24")) == ["bulk-024"]   # a search indexes the rest
    assert store.index_pending() == 0
    check_index(store)


def test_a_store_of_schema_version_6_with_skills_is_brought_up_to_date(tmp_path):
    path = tmp_path / "v6.db"
    with Store(path) as s:
        s.add_many([make(f"old-{i}", body=f"# O\n\nAncientword{i}.\n") for i in range(3)])
        with s.transaction() as conn:
            conn.execute("DROP TABLE fts_pending")
            conn.execute("PRAGMA user_version = 6")
    with Store(path) as s:
        assert s.waiting_for_index() == 0
        s.add_many([make("new-one", body="# N\n\nFreshword.\n")], index_later=True)
        s.delete("old-1")
        assert s.names(Filters(text="ancientword0")) == ["old-0"]
        assert s.names(Filters(text="freshword")) == ["new-one"]
        check_index(s)
