"""A bulk write (Store.add_many, what an import uses) indexes its skills for search after inserting
them, in the same transaction: the index, the rows, the versions and the audit it leaves are
exactly what the row-by-row path (the insert trigger) leaves, a failure leaves nothing, and
stores made before this way of writing are brought up to date when opened."""

from __future__ import annotations

import random
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from skill_studio.core.library.importer import import_paths
from skill_studio.core.model import SkillFile
from skill_studio.core.store import Store, StoreError
from skill_studio.core.store import store as store_module
from skill_studio.core.store.rows import Filters
from skill_studio.core.store.schema import SCHEMA_VERSION
from tests.conftest import SAMPLES, make

# The insert trigger of schema versions 1 to 5: every new row indexed as it is inserted.
_ROW_BY_ROW_TRIGGER = """
CREATE TRIGGER pm_fts_insert AFTER INSERT ON procedural_memory BEGIN
    INSERT INTO skills_fts (rowid, name, description, content, tags, trigger_pattern)
    VALUES (new.rowid, new.name, new.description, new.content, new.tags, new.trigger_pattern);
END
"""

_WORDS = ("café naïve résumé straße ünïcode emoji🙂 data report parse deploy kubernetes yaml "
          "λόγος слово 数据 schema lint migrate-db v2.1 foo_bar x").split()


def synthetic(root: Path, n: int = 40, seed: int = 5) -> Path:
    """Skills of varied shapes: long and short bodies, tags, trigger patterns, files beside
    SKILL.md, CRLF line ends, words with diacritics and other scripts."""
    rng = random.Random(seed)
    for i in range(n):
        name = f"synthetic-{i:03d}"
        folder = root / name
        folder.mkdir(parents=True)
        words = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(0, 40)))
        tags = ", ".join(rng.sample(["pdf", "git", "ops", "écriture", "sql"], k=rng.randint(0, 3)))
        lines = [f"# Skill {i}", "", f"Uniqueword{i}body and {words}.", "", "## Steps", ""]
        lines += [f"{k}. Step {k} of {rng.choice(_WORDS)}" for k in range(1, rng.randint(1, 6))]
        lines += ["", "```bash", f"echo {rng.choice(_WORDS)}", "```"] * rng.randint(0, 3)
        text = (f"---\nname: {name}\ndescription: Handles uniqueword{i}desc tasks with "
                f"{rng.choice(_WORDS)}. Use when asked.\ntags: [{tags}]\n"
                + (f"trigger_pattern: when {rng.choice(_WORDS)}\n" if i % 3 == 0 else "")
                + "---\n" + "\n".join(lines) + "\n")
        if i % 7 == 0:
            text = text.replace("\n", "\r\n")
        (folder / "SKILL.md").write_bytes(text.encode("utf-8"))
        if i % 4 == 0:
            (folder / "scripts").mkdir()
            (folder / "scripts" / "run.sh").write_text(f"#!/bin/sh\necho {i}\n")
            (folder / "references.md").write_text("See the docs.\n" * rng.randint(1, 50))
    return root


@pytest.fixture
def corpus(tmp_path, real_world) -> list[Path]:
    samples = tmp_path / "samples"
    shutil.copytree(SAMPLES, samples, ignore=shutil.ignore_patterns("*.json"))
    return [real_world, samples, synthetic(tmp_path / "synthetic")]


def row_by_row(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``store`` index every new row from its insert trigger, as before bulk writes."""
    with store.transaction() as conn:
        conn.execute("DROP TRIGGER pm_fts_insert")
        conn.execute(_ROW_BY_ROW_TRIGGER)
    monkeypatch.setattr(store_module, "_INDEX_NEW_ROWS", "SELECT ? WHERE 0")


def index_of(store: Store) -> list[tuple]:
    """Every indexed word of every skill: (skill, column, word, offset), sorted."""
    conn = store._conn
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_words USING fts5vocab(main, skills_fts, instance)")
    return sorted(tuple(r) for r in conn.execute(
        "SELECT p.name, v.col, v.term, v.offset FROM temp.fts_words v JOIN procedural_memory p ON p.rowid = v.doc"))


def contents_of(store: Store) -> dict[str, list[tuple]]:
    """What the store holds, every time stamp left out."""
    def rows(sql: str) -> list[tuple]:
        return sorted(tuple(r) for r in store._conn.execute(sql))

    columns = [r[1] for r in store._conn.execute("PRAGMA table_info(procedural_memory)")
               if r[1] not in ("created_at", "updated_at")]
    return {
        "skills": rows(f"SELECT {', '.join(columns)} FROM procedural_memory"),
        "cards": rows("SELECT name, description, version, tags, content_hash FROM skill_cards"),
        "tags": rows("SELECT skill, tag FROM skill_tags"),
        "files": rows("SELECT skill, path, mode, size, blob FROM skill_files"),
        "versions": rows("SELECT skill, version, skill_md, content_hash, author, note FROM skill_versions"),
        "version_files": rows("SELECT * FROM version_files"),
        "audit": rows("SELECT actor, skill, action, from_value, to_value, reason FROM audit_log"),
    }


def check_index(store: Store) -> None:
    store._conn.execute("INSERT INTO skills_fts (skills_fts) VALUES ('integrity-check')")
    assert store._conn.execute("SELECT count(*) FROM fts_deferred").fetchone()[0] == 0


def test_bulk_import_leaves_what_the_row_by_row_path_leaves(tmp_path, corpus, monkeypatch):
    with Store(tmp_path / "bulk.db", actor="t") as bulk, Store(tmp_path / "rows.db", actor="t") as rows:
        row_by_row(rows, monkeypatch)
        rows_report = import_paths(rows, corpus)
        monkeypatch.undo()
        bulk_report = import_paths(bulk, corpus)
        assert [(e.source, e.status, e.name) for e in bulk_report.entries] == \
               [(e.source, e.status, e.name) for e in rows_report.entries]
        assert bulk_report.count("imported") > 60
        assert contents_of(bulk) == contents_of(rows)
        assert index_of(bulk) == index_of(rows)
        check_index(bulk)


def test_search_finds_every_imported_skill_once_the_import_is_done(store, corpus):
    report = import_paths(store, corpus)
    imported = [e.name for e in report.entries if e.status == "imported"]
    assert len(imported) > 60
    for name in imported:
        skill = store.get(name, with_files=False)
        for text in (skill.description, skill.content):
            words = [w for w in re.findall(r"\w+", text) if w.isascii() and w.isalpha() and len(w) >= 4]
            if not words:
                continue
            word = max(words, key=len)
            assert name in store.names(Filters(text=word)), (name, word)
        assert name in store.names(Filters(text=name))
    check_index(store)


def test_a_bulk_write_that_fails_half_way_leaves_nothing(store):
    store.add(make("kept", body="# Kept\n\nAlready here, findable.\n"))
    good = [make(f"new-{i}", body=f"# New\n\nFreshword{i} here.\n") for i in range(5)]
    # Two files at one path: the last write of the batch fails, after every row was inserted.
    bad = make("broken", body="# Broken\n\nBrokenword.\n")
    bad.files = [SkillFile("a.txt", b"one"), SkillFile("a.txt", b"two")]
    with pytest.raises((sqlite3.IntegrityError, StoreError)):
        store.add_many([*good, bad])
    assert store.names() == ["kept"]
    assert store.names(Filters(text="freshword0")) == [] and store.names(Filters(text="brokenword")) == []
    assert store.names(Filters(text="findable")) == ["kept"]
    assert [v.version for v in store.versions("new-0")] == []
    check_index(store)
    # The next writes index as they should: one by one and in bulk.
    store.add(make("single", body="# S\n\nLoneword.\n"))
    store.add_many(good)
    assert store.names(Filters(text="loneword")) == ["single"]
    assert store.names(Filters(text="freshword3")) == ["new-3"]
    check_index(store)


def test_reimport_updates_and_reindexes(store, tmp_path):
    lib = synthetic(tmp_path / "lib", n=12)
    first = import_paths(store, [lib])
    assert first.count("imported") == 12
    md = lib / "synthetic-003" / "SKILL.md"
    md.write_text(md.read_text().replace("Uniqueword3body", "Replacedword3body"))
    again = import_paths(store, [lib])
    assert (again.count("updated"), again.count("unchanged"), again.count("imported")) == (1, 11, 0)
    assert store.names(Filters(text="replacedword3body")) == ["synthetic-003"]
    assert store.names(Filters(text="uniqueword3body")) == []
    assert [v.version for v in store.versions("synthetic-003")] == [2, 1]
    check_index(store)


def test_a_store_of_schema_version_5_is_brought_up_to_date(tmp_path):
    path = tmp_path / "old.db"
    with Store(path) as s:   # made as version 5 made it
        s.add(make("old-skill", body="# Old\n\nAncientword.\n"))
        with s.transaction() as conn:
            conn.execute("DROP TRIGGER pm_fts_insert")
            conn.execute("DROP TABLE fts_deferred")
            conn.execute(_ROW_BY_ROW_TRIGGER)
            conn.execute("PRAGMA user_version = 5")
    with Store(path) as s:
        assert s._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        trigger = s._conn.execute("SELECT sql FROM sqlite_master WHERE name = 'pm_fts_insert'").fetchone()[0]
        assert "fts_deferred" in trigger
        assert s.names(Filters(text="ancientword")) == ["old-skill"]
        s.add_many([make(f"bulk-{i}", body=f"# B\n\nBulkword{i}.\n") for i in range(3)])
        s.add(make("one", body="# O\n\nOneword.\n"))
        assert s.names(Filters(text="bulkword2")) == ["bulk-2"]
        assert s.names(Filters(text="oneword")) == ["one"]
        check_index(s)


@pytest.mark.parametrize("order", [sorted, lambda names: sorted(names, reverse=True)])
def test_a_batch_is_indexed_in_one_go_whatever_the_order_of_its_names(tmp_path, order):
    """Names in any order: the index is written as for a batch in rowid order, not skill by skill."""
    names = order([f"skill-{i:02d}" for i in range(30)])
    with Store(tmp_path / "a.db") as s:
        s.add_many([make(n, body=f"# {n}\n\nWords of {n} here.\n") for n in names])
        pieces = s._conn.execute("SELECT count(*) FROM skills_fts_data").fetchone()[0]
        check_index(s)
    with Store(tmp_path / "b.db") as s:
        s.add_many([make(n, body=f"# {n}\n\nWords of {n} here.\n") for n in sorted(names)])
        assert s._conn.execute("SELECT count(*) FROM skills_fts_data").fetchone()[0] == pieces
