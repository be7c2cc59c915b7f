"""Import rules that protect what is stored: builtin and reviewed skills, names, bad folders."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from skill_studio.core.format.skillmd import MAX_SKILL_MD_BYTES
from skill_studio.core.library.folder_write import export_folder
from skill_studio.core.library.folders import FolderError
from skill_studio.core.library.importer import import_paths
from skill_studio.core.model import Lifecycle, Origin
from skill_studio.core.store import AlreadyExists, DependentsExist, ReadOnlySkill, Store, StoreError


def write_skill(root: Path, folder: str, name: str | None = None, description: str = "Does it. Use when asked.",
                body: str = "Body.\n", extra: str = "") -> Path:
    d = root / folder
    d.mkdir(parents=True, exist_ok=True)
    (d / "SKILL.md").write_text(f"---\nname: {name or folder}\ndescription: {description}\n{extra}---\n{body}")
    return d


def test_builtin_skill_is_not_replaced_by_an_import(store, tmp_path):
    import_paths(store, [write_skill(tmp_path / "a", "tool")], origin=Origin.BUILTIN)
    evil = write_skill(tmp_path / "b", "tool", description="Evil. Use when never.")
    entry = import_paths(store, [evil], origin=Origin.LLM).entries[0]
    assert entry.status == "skipped" and "builtin" in entry.reason
    entry = import_paths(store, [evil]).entries[0]
    assert entry.status == "skipped"
    assert store.get("tool").description == "Does it. Use when asked." and store.get("tool").version == 1
    assert import_paths(store, [evil], origin=Origin.BUILTIN).entries[0].status == "updated"


def test_extracted_skill_does_not_replace_a_reviewed_one(store, tmp_path):
    import_paths(store, [write_skill(tmp_path / "a", "notes")])  # human, released
    entry = import_paths(store, [write_skill(tmp_path / "b", "notes", body="Other.\n")], origin=Origin.LLM).entries[0]
    assert entry.status == "skipped" and "reviewed" in entry.reason
    import_paths(store, [write_skill(tmp_path / "c", "draft")], origin=Origin.LLM)
    assert import_paths(store, [write_skill(tmp_path / "d", "draft", body="v2\n")],
                        origin=Origin.LLM).entries[0].status == "updated"


def test_builtin_update_is_refused_by_the_store(store, tmp_path):
    import_paths(store, [write_skill(tmp_path, "tool")], origin=Origin.BUILTIN)
    s = store.get("tool")
    with pytest.raises(ReadOnlySkill):
        store.update("tool", s, s.version)


def test_renamed_duplicate_never_takes_a_stored_name(store, tmp_path):
    import_paths(store, [write_skill(tmp_path / "x", "foo-2", description="Precious. Use when needed.")])
    write_skill(tmp_path / "tree" / "a", "foo")
    write_skill(tmp_path / "tree" / "b", "foo")
    report = import_paths(store, [tmp_path / "tree"])
    assert [e.name for e in report.entries] == ["foo", "foo-3"]
    assert store.get("foo-2").description == "Precious. Use when needed."
    assert store.get("foo-3").folder_name == "foo-3"
    again = import_paths(store, [tmp_path / "tree"])  # the same tree again: nothing new
    assert [e.status for e in again.entries] == ["unchanged", "unchanged"]


def test_export_refuses_two_skills_for_one_folder(tmp_path, capsys):
    from skill_studio.cli import main

    store = str(tmp_path / "s.db")
    write_skill(tmp_path / "t1", "pdf", name="pdf")
    write_skill(tmp_path / "t2", "pdf", name="pdf-tools")
    main(["--store", store, "import", str(tmp_path / "t1"), str(tmp_path / "t2")])
    capsys.readouterr()
    code = main(["--store", store, "export", "--all", "--to", str(tmp_path / "out")])
    assert code == 1 and "both be written" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_one_unreadable_folder_does_not_stop_the_rest(store, tmp_path):
    write_skill(tmp_path, "a")
    big = write_skill(tmp_path, "b")
    (big / "SKILL.md").write_bytes(b"---\nname: b\ndescription: d\n---\n" + b"x" * (MAX_SKILL_MD_BYTES + 1))
    write_skill(tmp_path, "c")
    broken = tmp_path / "d"
    broken.mkdir()
    (broken / "SKILL.md").symlink_to(tmp_path / "nowhere")
    write_skill(tmp_path, "e")
    report = import_paths(store, [tmp_path])
    statuses = {Path(e.source).parent.name: e.status for e in report.entries}
    assert statuses == {"a": "imported", "b": "skipped", "c": "imported", "d": "skipped", "e": "imported"}
    assert "limit" in next(e.reason for e in report.entries if "/b/" in e.source)


def test_dates_as_metadata_keys_still_import(store, tmp_path):
    d = write_skill(tmp_path, "dated", extra="metadata:\n  2024-01-01: first release\nversion: 2024-02-03\n")
    entry = import_paths(store, [d]).entries[0]
    assert entry.status == "imported"
    s = store.get("dated")
    assert s.metadata == {"2024-01-01": "first release"} and s.extra == {"version": "2024-02-03"}


def test_a_concurrent_writer_costs_only_the_clashing_skill(tmp_path):
    for n in "abcde":
        write_skill(tmp_path / "lib", n)
    path = tmp_path / "s.db"
    store, other = Store(path), Store(path)
    added = []

    def progress(done, source):
        if done == 1:
            from skill_studio.core.library.folders import build_skill

            other.add(build_skill(b"---\nname: c\ndescription: Theirs. Use when racing.\n---\n", "c", [],
                                  origin=Origin.HUMAN, source="elsewhere"))
            added.append("c")
        return True

    import skill_studio.core.library.importer as importer

    importer.BATCH_SKILLS, old = 2, importer.BATCH_SKILLS
    try:
        report = import_paths(store, [tmp_path / "lib"], progress=progress)
    finally:
        importer.BATCH_SKILLS = old
    by_name = {e.name: e for e in report.entries}
    assert by_name["c"].status == "skipped" and "already exists" in by_name["c"].reason
    assert store.get("c").description == "Theirs. Use when racing."
    assert {n for n, e in by_name.items() if e.status == "imported"} == {"a", "b", "d", "e"}
    assert not any(t.name == "skill-import-writer" for t in threading.enumerate())
    store.close()
    other.close()


def test_export_onto_a_file_is_refused(store, tmp_path):
    import_paths(store, [write_skill(tmp_path / "src", "tool")])
    out = tmp_path / "out"
    out.mkdir()
    (out / "tool").write_text("not a folder")
    with pytest.raises(FolderError, match="not a folder"):
        export_folder(store.get("tool"), out)
    assert (out / "tool").read_text() == "not a folder"
    assert sorted(p.name for p in out.iterdir()) == ["tool"]


def test_rename_rules(store, tmp_path):
    import_paths(store, [write_skill(tmp_path, "old"), write_skill(tmp_path, "gone"),
                         write_skill(tmp_path, "user", extra='metadata:\n  depends-on: "base"\n'),
                         write_skill(tmp_path, "base")])
    store.delete("gone")
    s = store.get("old")
    s.name = "gone"
    with pytest.raises(AlreadyExists, match="deleted skill"):
        store.update("old", s, s.version)
    b = store.get("base")
    b.name = "base2"
    with pytest.raises(DependentsExist, match='Cannot rename "base": 1 other skill'):
        store.update("base", b, b.version)
    store.set_state("old", lifecycle=Lifecycle.VERIFIED, reason="ok")
    s = store.get("old")
    s.name = "new"
    store.update("old", s, s.version)
    assert [a.action for a in store.audit_log("new")][:2] == ["rename", "state:lifecycle"]


def test_set_state_checks_its_values(store, tmp_path):
    import_paths(store, [write_skill(tmp_path, "a")])
    assert store.set_state("a").name == "a"
    with pytest.raises(ValueError, match="bogus"):
        store.set_state("a", lifecycle="bogus")


def test_another_programs_database_is_left_alone(tmp_path):
    path = tmp_path / "bookmarks.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE bookmarks (url TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises((StoreError, RuntimeError), match="another program"):
        Store(path)
    tables = sqlite3.connect(path).execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    assert tables == [("bookmarks",)]


def test_read_only_store_is_one_clear_error(tmp_path):
    path = tmp_path / "s.db"
    Store(path).close()
    import os

    if os.geteuid() == 0:
        pytest.skip("root ignores file permissions")
    os.chmod(path, 0o444)
    with pytest.raises(StoreError, match=str(path)):
        with Store(path) as s:
            write_skill(tmp_path, "a")
            import_paths(s, [tmp_path / "a"])


def test_lenient_check_of_a_parsed_document_matches_the_check_of_its_bytes():
    from conftest import REAL_WORLD, skill_folders

    from skill_studio.core.format import skillmd, validate

    checked = 0
    for folder in skill_folders(REAL_WORLD):
        md = folder / "SKILL.md" if (folder / "SKILL.md").exists() else folder / "skill.md"
        data = md.read_bytes()
        try:
            doc = skillmd.parse_document(data, str(md))
        except skillmd.SkillParseError:
            continue
        plain = validate.validate_text(data, folder.name, "lenient", path=str(md))
        assert validate.validate_text(data, folder.name, "lenient", path=str(md), document=doc) == plain
        checked += 1
    assert checked > 30
