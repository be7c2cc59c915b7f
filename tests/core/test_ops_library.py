"""Importing and exporting through the operations: the change set of an import, and the one rule
that two skills never share an export folder."""

from __future__ import annotations

import pytest
from conftest import make

from skill_studio.core.library.folder_write import ExportClash, folder_clashes
from skill_studio.core.ops.library import export_plan, export_skills, import_skills


def test_an_import_names_the_skills_it_added_and_updated(store, tmp_path):
    for name in ("one", "two"):
        (tmp_path / "in" / name).mkdir(parents=True)
        (tmp_path / "in" / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Does {name}. Use when needed.\n---\nBody\n")
    first = import_skills(store, [tmp_path / "in"])
    assert first.changes.added == {"one", "two"} and not first.changes.changed
    (tmp_path / "in" / "two" / "SKILL.md").write_text(
        "---\nname: two\ndescription: Does two better. Use when needed.\n---\nBody\n")
    again = import_skills(store, [tmp_path / "in"])
    assert again.changes.changed == {"two"} and not again.changes.added
    assert [e.status for e in again.report.entries] == ["unchanged", "updated"]


def test_export_writes_each_skill_and_names_the_ones_it_cannot(store, tmp_path):
    store.add(make("one"))
    store.add(make("two"))
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "two").write_text("a file where the folder goes")
    exported = export_skills(store, ["one", "two", "ghost"], tmp_path / "out")
    assert exported.written == (("one", tmp_path / "out" / "one"),)
    assert "not a folder" in exported.failed["two"] and "no such skill" in exported.failed["ghost"]
    assert not exported.changes
    zipped = export_skills(store, ["one"], tmp_path / "zips", as_zip=True)
    assert zipped.written == (("one", tmp_path / "zips" / "one.zip"),)


def test_two_skills_for_one_folder_refuse_the_whole_export(store, tmp_path):
    store.add(make("pdf-tools"))
    other = make("pdf-tools-2")
    other.folder_name = "PDF-Tools"
    store.add(other)
    store.add(make("notes"))
    assert folder_clashes([store.get(n) for n in store.names()]) == [["pdf-tools", "pdf-tools-2"]]
    with pytest.raises(ExportClash) as e:
        export_plan(store, ["notes", "pdf-tools", "pdf-tools-2"])
    assert e.value.groups == [["pdf-tools", "pdf-tools-2"]] and \
        '"pdf-tools" and "pdf-tools-2" would both be written to one folder' in str(e.value)
    with pytest.raises(ExportClash):
        export_skills(store, ["notes", "pdf-tools", "pdf-tools-2"], tmp_path / "out")
    assert not (tmp_path / "out").exists()
