"""The SQLite store: schema, versions, conflicts, queries, scores, delete rules, concurrency."""

from __future__ import annotations

import sqlite3
import threading
from datetime import UTC, datetime, timedelta

import pytest
from conftest import make

from skill_studio.core.health import scores
from skill_studio.core.model import Lifecycle, Origin, SkillFile, TrustTier
from skill_studio.core.store import AlreadyExists, DependentsExist, Filters, NotFound, Store, VersionConflict, fts_query
from skill_studio.core.store.schema import SCHEMA_VERSION

SPEC_COLUMNS = ["name", "description", "content", "steps", "trigger_pattern", "origin", "lifecycle",
                "trust_tier", "version", "success_rate", "utility_score", "freshness", "last_used_at",
                "depends_on", "conflicts_with", "parent_skill_id", "tags"]


def test_schema_has_the_seventeen_spec_columns_first(store):
    cols = [r[1] for r in store._conn.execute("PRAGMA table_info(procedural_memory)")]
    assert cols[:17] == SPEC_COLUMNS
    assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert store._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store._conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_add_sets_entry_defaults_and_version_one(store):
    for name, origin, state, tier in [("h", Origin.HUMAN, "released", 3), ("l", Origin.LLM, "candidate", 1),
                                      ("b", Origin.BUILTIN, "released", 4)]:
        s = store.add(make(name, origin=origin))
        assert (s.lifecycle.value, int(s.trust_tier), s.version) == (state, tier, 1)
        assert (s.success_rate, s.utility_score) == (0.5, 0.25)
    with pytest.raises(AlreadyExists):
        store.add(make("h"))


def test_get_returns_exact_text_and_files(store):
    files = [SkillFile("scripts/run.sh", b"#!/bin/sh\necho hi\n", 0o755), SkillFile("a.bin", bytes(range(256)))]
    s = make("files", files=files)
    store.add(s)
    got = store.get("files")
    assert got.skill_md == s.skill_md
    assert got.files == sorted(files, key=lambda f: f.path)
    assert got.files[1].executable
    with pytest.raises(NotFound, match='no skill named "nope"'):
        store.get("nope")


def test_update_makes_a_new_version_and_refuses_a_stale_one(store):
    store.add(make("a"))
    v1 = store.get("a")
    changed = make("a", body="# Title\n\nNew body.\n")
    v2 = store.update("a", changed, expected_version=1, note="better body")
    assert v2.version == 2 and v2.content == "# Title\n\nNew body.\n"
    with pytest.raises(VersionConflict, match="version 1.*version 2"):
        store.update("a", make("a", body="lost?\n"), expected_version=1)
    assert store.get("a").content == "# Title\n\nNew body.\n"
    history = store.versions("a")
    assert [v.version for v in history] == [2, 1] and history[0].note == "better body"
    assert store.version_text("a", 1)[0] == v1.skill_md
    assert store.version_text("a", 2)[0] == v2.skill_md


def test_update_keeps_review_state_and_unchanged_save_is_no_version(store):
    store.add(make("a", origin=Origin.LLM))
    store.set_state("a", lifecycle=Lifecycle.VERIFIED, trust_tier=TrustTier.PROVISIONAL, reason="ok")
    store.record_use("a", True)
    same = store.update("a", make("a"), expected_version=1)
    assert same.version == 1
    s = store.update("a", make("a", description="Other. Use when other."), expected_version=1)
    assert (s.lifecycle, s.trust_tier, s.use_count, s.origin) == (Lifecycle.VERIFIED, 2, 1, Origin.LLM)


def test_rename_carries_history_and_files(store):
    store.add(make("old", files=[SkillFile("x.txt", b"x")]))
    renamed = make("new", files=[SkillFile("x.txt", b"x")])
    s = store.update("old", renamed, expected_version=1)
    assert s.name == "new" and "old" not in store and s.files[0].data == b"x"
    assert [v.version for v in store.versions("new")] == [2, 1]
    assert store.version_text("new", 1)[1][0].path == "x.txt"


def test_record_use_follows_the_spec_formulas(store):
    store.add(make("a"))
    o = scores.Outcomes()
    for ok in [True, True, False, True]:
        o = o.record(ok)
        s = store.record_use("a", ok)
    assert s.use_count == 4 and s.success_count == 3 and s.failure_count == 1
    assert s.success_rate == pytest.approx((o.s + 1) / (o.s + o.f + 2))
    assert s.utility_score == pytest.approx(s.success_rate * (0.5 + 0.5 * 4 / 20))
    assert s.freshness == 1.0 and s.last_used_at


def test_freshness_halves_every_thirty_days(store):
    now = datetime(2026, 1, 31, tzinfo=UTC)
    store.add(make("a"), now=now - timedelta(days=30))
    store.add(make("b"), now=now - timedelta(days=90))
    store.add(make("c"), now=now - timedelta(days=200))
    store.record_use("c", True, now=now - timedelta(days=60))
    store.refresh_freshness(now)
    assert store.get("a").freshness == pytest.approx(0.5)
    assert store.get("b").freshness == pytest.approx(0.125)
    assert store.get("c").freshness == pytest.approx(0.25)


def test_delete_is_refused_while_others_depend_on_it(store):
    store.add(make("base"))
    store.add(make("user1", meta={"depends-on": "base"}))
    store.add(make("user2", meta={"depends-on": "base other"}))
    store.set_state("user2", lifecycle=Lifecycle.ARCHIVED, reason="old")
    with pytest.raises(DependentsExist) as err:
        store.delete("base")
    assert str(err.value) == 'Cannot delete "base": 2 other skill(s) depend on it: user1, user2'
    assert "base" in store
    store.delete("user1")
    store.delete("user2")
    store.delete("base", reason="unused")
    assert "base" not in store
    assert store.versions("base") and store.version_text("base", 1)[0].startswith("---\nname: base")
    assert store.audit_log("base")[0].action == "delete"


def test_a_name_reused_after_delete_keeps_counting_versions(store):
    store.add(make("a"))
    store.delete("a")
    assert store.add(make("a")).version == 2


def test_list_filters_sorts_and_pages(store):
    store.add(make("alpha", meta={"tags": "git writing"}))
    store.add(make("beta", origin=Origin.LLM, meta={"tags": "git"}))
    store.add(make("gamma", description="Parses PDF files. Use when a PDF arrives.", origin=Origin.BUILTIN))
    store.record_use("beta", True)
    assert [s.name for s in store.list(Filters(tag="git"))] == ["alpha", "beta"]
    assert [s.name for s in store.list(Filters(origin="llm"))] == ["beta"]
    assert [s.name for s in store.list(Filters(lifecycle="candidate"))] == ["beta"]
    assert [s.name for s in store.list(Filters(text="pdf"))] == ["gamma"]
    assert [s.name for s in store.list(Filters(text="par"))] == ["gamma"]  # prefix as you type
    assert [s.name for s in store.list(sort="utility", descending=True)][0] == "beta"
    assert [s.name for s in store.list(limit=1, offset=1)] == ["beta"]
    assert store.list()[0].content == "" and store.list(summary=False)[0].content
    assert store.names(Filters(tag="writing")) == ["alpha"]
    assert store.tags() == [("git", 2), ("writing", 1)]


@pytest.mark.parametrize("typed", ['"', "AND OR NOT", "a*b(", "NEAR(", "-x", "'; DROP TABLE x; --", ""])
def test_search_text_never_breaks_the_query(store, typed):
    store.add(make("alpha"))
    store.list(Filters(text=typed))  # no sqlite3.OperationalError


def test_fts_query_quotes_words_and_prefixes_the_last():
    assert fts_query("pdf tab") == '"pdf" AND "tab"*'
    assert fts_query("pdf ") == '"pdf"'
    assert fts_query("!!") is None


def test_counts_and_stats(store):
    store.add(make("a"))
    store.add(make("b", origin=Origin.LLM))
    store.add(make("c", origin=Origin.LLM))
    store.set_state("c", lifecycle=Lifecycle.DEPRECATED, reason="x")
    counts = store.counts()
    assert counts["lifecycle"] == {"candidate": 1, "verified": 0, "released": 1, "degraded": 0,
                                   "deprecated": 1, "archived": 0}
    assert counts["origin"] == {"human": 1, "llm": 2, "builtin": 0}
    stats = store.stats()
    assert (stats["total"], stats["active"], stats["candidates"], stats["deprecated"]) == (3, 1, 1, 1)
    assert stats["avg_success_rate"] == pytest.approx(0.5)
    assert store.stats(Filters(origin="llm"))["total"] == 2
    assert store.counts(Filters(origin="llm"))["lifecycle"]["released"] == 0


def test_state_changes_are_audited(store):
    store.add(make("a", origin=Origin.LLM))
    store.set_state("a", lifecycle=Lifecycle.VERIFIED, reason="reviewed", author="rev")
    entry = store.audit_log("a")[0]
    assert (entry.actor, entry.from_value, entry.to_value, entry.reason) == ("rev", "candidate", "verified", "reviewed")


def test_a_failed_write_leaves_the_store_as_it_was(store):
    store.add(make("a"))
    good, bad = make("b"), make("a")
    with pytest.raises(AlreadyExists):
        store.add_many([good, bad])
    assert "b" not in store and len(store) == 1


def test_settings_and_drafts(store):
    assert store.setting("x", 3) == 3
    store.set_setting("health.threshold", 0.3)
    assert store.setting("health.threshold") == 0.3
    store.save_draft("a", "---\nname: a\n---\n", 1)
    assert store.draft("a")[:2] == ("---\nname: a\n---\n", 1)
    store.discard_draft("a")
    assert store.draft("a") is None


def test_second_process_connection_sees_writes_and_waits_for_the_lock(tmp_path):
    path = tmp_path / "s.db"
    a = Store(path)
    b = Store(path, busy_timeout_ms=5000)
    a.add(make("one"))
    assert "one" in b
    started = threading.Event()

    def hold():
        with a.transaction() as conn:
            conn.execute("UPDATE settings SET value = value")
            started.set()
            threading.Event().wait(0.3)

    t = threading.Thread(target=hold)
    t.start()
    started.wait()
    b.add(make("two"))  # waits for a's transaction instead of failing
    t.join()
    assert len(a) == 2
    a.close()
    b.close()


def test_newer_schema_is_refused_with_a_clear_message(tmp_path):
    path = tmp_path / "future.db"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    conn.close()
    from skill_studio.core.store import StoreError

    with pytest.raises((RuntimeError, StoreError), match="newer"):
        Store(path)


def test_not_a_database_is_a_clear_error(tmp_path):
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not sqlite" * 100)
    from skill_studio.core.store import StoreError

    with pytest.raises(StoreError, match="junk.db"):
        Store(path)
    assert path.read_bytes() == b"this is not sqlite" * 100


def test_cards_come_back_in_the_order_asked(store):
    for n in ("a", "b", "c"):
        store.add(make(n))
    assert [s.name for s in store.cards(["c", "missing", "a"])] == ["c", "a"]
    assert store.cards(["b"])[0].content == ""


def test_relevance_puts_name_and_description_matches_first(store):
    store.add(make("body-only", body="# T\n\nMentions kubernetes once.\n"))
    store.add(make("kubernetes-deploy", description="Deploys to Kubernetes. Use when shipping."))
    store.add(make("unrelated"))
    assert [s.name for s in store.list(Filters(text="kubernetes"), sort="relevance")] == [
        "kubernetes-deploy", "body-only"]
    assert [s.name for s in store.list(Filters(text="kubernetes"), sort="relevance", limit=1, offset=1)] == [
        "body-only"]


def test_restore_brings_back_an_old_version_as_a_new_one(store):
    store.add(make("a", files=[SkillFile("notes.md", b"v1 notes")]))
    v1 = store.get("a")
    store.update("a", make("a", body="# Title\n\nSecond.\n", files=[SkillFile("notes.md", b"v2 notes")]), 1)
    restored = store.restore("a", 1, expected_version=2)
    assert restored.version == 3 and restored.skill_md == v1.skill_md
    assert restored.files == v1.files
    assert store.versions("a")[0].note == "restored version 1"
    with pytest.raises(VersionConflict):
        store.restore("a", 2, expected_version=2)
    with pytest.raises(NotFound):
        store.restore("a", 9, expected_version=3)


def test_search_results_follow_writes_here_and_elsewhere(store, tmp_path):
    store.add(make("alpha", description="Parses kubernetes manifests. Use when deploying."))
    assert store.names(Filters(text="kubernetes")) == ["alpha"]
    store.add(make("beta", description="Kubernetes helm charts. Use when packaging."))
    assert store.names(Filters(text="kubernetes")) == ["alpha", "beta"]
    assert store.count(Filters(text="kubernetes")) == 2
    other = Store(store.path)
    other.delete("beta")
    other.close()
    assert store.names(Filters(text="kubernetes")) == ["alpha"]
    assert store.counts(Filters(text="kubernetes"))["lifecycle"]["released"] == 1


@pytest.mark.parametrize("path", ["../up", "/etc/passwd", "a/../../b", "a\\\\b", "./a", "a//b", ""])
def test_a_file_path_outside_the_skill_folder_is_refused(store, path):
    from skill_studio.core.library.folders import build_skill
    from skill_studio.core.model import Origin, SkillFile
    from skill_studio.core.store import StoreError

    skill = build_skill(b"---\nname: pathy\ndescription: Paths. Use when.\n---\n", "pathy",
                        [SkillFile(path, b"x", 0o644)], origin=Origin.HUMAN, source="pathy/SKILL.md")
    with pytest.raises(StoreError, match="the file"):
        store.add(skill)
    assert "pathy" not in store


@pytest.mark.parametrize("folder", ["/abs/folder", "../up", "a/b", ".."])
def test_a_folder_name_that_is_a_path_is_refused(store, folder):
    from skill_studio.core.library.folders import build_skill
    from skill_studio.core.model import Origin
    from skill_studio.core.store import StoreError

    skill = build_skill(b"---\nname: foldery\ndescription: Folder. Use when.\n---\n", "foldery", [],
                        origin=Origin.HUMAN, source="x")
    skill.folder_name = folder
    with pytest.raises(StoreError, match="cannot be a folder name"):
        store.add(skill)
