"""Linked folders: an edit on disk reaches the store, a save in the studio reaches the disk, a
change on both sides is a conflict that overwrites nothing, and the link survives a restart."""

from __future__ import annotations

import os
import shutil

import pytest
from conftest import SAMPLES

from skill_studio.cli import main
from skill_studio.core.library import linked
from skill_studio.core.store import Store


@pytest.fixture
def team(tmp_path):
    root = tmp_path / "team-skills"
    (root / "skills").mkdir(parents=True)
    for name in ("release-notes", "pdf-extract"):
        shutil.copytree(SAMPLES / name, root / "skills" / name)
    return root


def edit(path, old, new):
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def test_link_imports_and_survives_a_restart(store, team, tmp_path):
    report = linked.link(store, team)
    assert sorted(report.imported) == ["pdf-extract", "release-notes"] and not report.conflicts
    assert store.get("pdf-extract").skill_md == (team / "skills" / "pdf-extract" / "SKILL.md").read_text()
    path = store.path
    store.close()
    with Store(path) as again:
        assert linked.linked_folders(again) == [str(team.resolve())]
        r = linked.sync(again)[0]
        assert not (r.changed or r.conflicts or r.errors)


def test_an_edit_on_disk_appears_in_the_store(store, team):
    linked.link(store, team)
    edit(team / "skills" / "pdf-extract" / "SKILL.md", "description:", "description: Team edit.")
    r = linked.sync(store, team)[0]
    assert r.imported == ["pdf-extract"] and r.written == []
    s = store.get("pdf-extract")
    assert s.version == 2 and "Team edit." in s.description


def test_a_save_in_the_studio_appears_on_disk_and_keeps_what_import_left_out(store, team):
    linked.link(store, team)
    folder = team / "skills" / "release-notes"
    os.symlink("SKILL.md", folder / "link-to-md")             # left out by the import
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "x.pyc").write_bytes(b"\0")
    s = store.get("release-notes")
    changed = s.skill_md.replace("description:", "description: Studio edit.", 1)
    from skill_studio.core.library.folders import build_skill
    from skill_studio.core.model import Origin
    store.update("release-notes", build_skill(changed.encode(), "release-notes", s.files, origin=Origin.HUMAN,
                                              source=s.source_path), s.version)
    r = linked.sync(store, team)[0]
    assert r.written == ["release-notes"] and r.imported == []
    assert (folder / "SKILL.md").read_text() == changed
    assert (folder / "link-to-md").is_symlink() and (folder / "__pycache__" / "x.pyc").is_file()
    assert not [p for p in (team / "skills").iterdir() if p.name.startswith(".")]   # no staging left behind
    assert not linked.sync(store, team)[0].changed                                  # in step now


def test_a_two_sided_change_is_reported_and_not_overwritten(store, team):
    linked.link(store, team)
    md = team / "skills" / "pdf-extract" / "SKILL.md"
    edit(md, "description:", "description: Disk side.")
    s = store.get("pdf-extract")
    from skill_studio.core.library.folders import build_skill
    from skill_studio.core.model import Origin
    studio = s.skill_md.replace("description:", "description: Studio side.", 1)
    store.update("pdf-extract", build_skill(studio.encode(), "pdf-extract", s.files, origin=Origin.HUMAN,
                                            source=s.source_path), s.version)
    r = linked.sync(store, team)[0]
    assert [c.name for c in r.conflicts] == ["pdf-extract"] and not r.imported and not r.written
    c = r.conflicts[0]
    assert "Disk side." in c.disk_text and "Studio side." in c.store_text
    assert "Disk side." in md.read_text() and "Studio side." in store.get("pdf-extract").description
    assert [x.name for x in linked.sync(store, team)[0].conflicts] == ["pdf-extract"]   # still, until resolved
    linked.resolve(store, c, "studio")
    assert "Studio side." in md.read_text() and not linked.sync(store, team)[0].conflicts


def test_keeping_the_disk_side(store, team):
    linked.link(store, team)
    md = team / "skills" / "pdf-extract" / "SKILL.md"
    edit(md, "description:", "description: Disk side.")
    s = store.get("pdf-extract")
    store.set_state("pdf-extract", lifecycle="verified")      # review state is not content: no conflict
    assert linked.sync(store, team)[0].imported == ["pdf-extract"]
    edit(md, "Disk side.", "Disk again.")
    from skill_studio.core.library.folders import build_skill
    from skill_studio.core.model import Origin
    s = store.get("pdf-extract")
    store.update("pdf-extract", build_skill(s.skill_md.replace("Disk side.", "Studio.").encode(), "pdf-extract",
                                            s.files, origin=Origin.HUMAN, source=s.source_path), s.version)
    (c,) = linked.sync(store, team)[0].conflicts
    linked.resolve(store, c, "disk")
    assert "Disk again." in store.get("pdf-extract").description
    assert store.get("pdf-extract").lifecycle.value == "verified"


def test_folders_that_come_and_go_and_skills_deleted_in_the_studio(store, team):
    linked.link(store, team)
    shutil.copytree(SAMPLES / "csv-cleanup", team / "skills" / "csv-cleanup")
    shutil.rmtree(team / "skills" / "pdf-extract")
    r = linked.sync(store, team)[0]
    assert r.imported == ["csv-cleanup"] and r.gone_on_disk == ["pdf-extract"] and "pdf-extract" in store
    store.delete("release-notes")
    r = linked.sync(store, team)[0]
    assert r.gone_in_store == ["release-notes"] and (team / "skills" / "release-notes" / "SKILL.md").is_file()


def test_a_broken_skill_on_disk_is_an_error_with_file_and_line(store, team):
    linked.link(store, team)
    before = store.get("pdf-extract")
    md = team / "skills" / "pdf-extract" / "SKILL.md"
    md.write_text("---\nname: pdf-extract\ndescription: [unclosed\n---\nBody\n")
    r = linked.sync(store, team)[0]
    assert len(r.errors) == 1 and r.errors[0].startswith(f"{md}:4:1: invalid YAML")
    assert store.get("pdf-extract").skill_md == before.skill_md and not r.written


def test_unlink_and_bad_folders(store, team, tmp_path):
    linked.link(store, team)
    linked.unlink(store, team)
    assert linked.linked_folders(store) == [] and "pdf-extract" in store
    with pytest.raises(linked.LinkError):
        linked.unlink(store, team)
    with pytest.raises(linked.LinkError):
        linked.link(store, tmp_path / "missing")
    with pytest.raises(linked.LinkError):
        linked.sync(store, team)


def test_the_commands(tmp_path, team, capsys):
    db = str(tmp_path / "s.db")
    assert main(["--store", db, "link", str(team)]) == 0
    assert "imported from disk: pdf-extract, release-notes" in capsys.readouterr().out
    assert main(["--store", db, "sync"]) == 0 and "in step" in capsys.readouterr().out
    edit(team / "skills" / "pdf-extract" / "SKILL.md", "description:", "description: Disk side.")
    with Store(tmp_path / "s.db") as s:
        skill = s.get("pdf-extract")
        from skill_studio.core.library.folders import build_skill
        from skill_studio.core.model import Origin
        s.update("pdf-extract", build_skill(skill.skill_md.replace("description:", "description: X.", 1).encode(),
                                            "pdf-extract", skill.files, origin=Origin.HUMAN,
                                            source=skill.source_path), skill.version)
    assert main(["--store", db, "sync", str(team)]) == 1
    assert "conflict: pdf-extract" in capsys.readouterr().out
    assert main(["--store", db, "sync", str(team), "--keep-disk", "pdf-extract"]) == 0
    assert main(["--store", db, "unlink", str(team)]) == 0


def test_two_folders_with_one_name_are_reported_and_neither_imported(store, team):
    shutil.copytree(team / "skills" / "pdf-extract", team / "other" / "pdf-extract")
    (team / "skills" / ".pdf-extract.x1.tmp" / "skill").mkdir(parents=True)      # a staging folder left over
    shutil.copy(team / "skills" / "pdf-extract" / "SKILL.md", team / "skills" / ".pdf-extract.x1.tmp" / "skill")
    r = linked.link(store, team)
    assert r.imported == ["release-notes"] and "pdf-extract" not in store
    assert len(r.errors) == 2 and all("the same name as" in e for e in r.errors)


def test_a_rename_on_disk_is_never_undone(store, team):
    linked.link(store, team)
    edit(team / "skills" / "pdf-extract" / "SKILL.md", "name: pdf-extract", "name: pdf-reader")
    r = linked.sync(store, team)[0]
    assert r.renamed == ["pdf-extract → pdf-reader"] and "pdf-reader" in store and "pdf-extract" in store
    assert not linked.sync(store, team)[0].written
    assert "name: pdf-reader" in (team / "skills" / "pdf-extract" / "SKILL.md").read_text()


def test_a_skill_deleted_in_the_studio_stays_deleted_and_a_rename_there_is_followed(store, team):
    linked.link(store, team)
    store.delete("release-notes")
    assert linked.sync(store, team)[0].gone_in_store == ["release-notes"]
    again = linked.sync(store, team)[0]
    assert "release-notes" not in store and not again.imported and not again.gone_in_store
    edit(team / "skills" / "release-notes" / "SKILL.md", "description:", "description: Changed by the team.")
    assert linked.sync(store, team)[0].imported == ["release-notes"]            # a change on disk brings it back
    s = store.get("pdf-extract")
    from skill_studio.core.library.folders import build_skill
    from skill_studio.core.model import Origin
    renamed = build_skill(s.skill_md.replace("name: pdf-extract", "name: pdf-tool").encode(), "pdf-extract", s.files,
                          origin=Origin.HUMAN, source=s.source_path)
    store.update("pdf-extract", renamed, s.version)
    r = linked.sync(store, team)[0]
    assert r.written == ["pdf-tool"] and not r.imported and "pdf-extract" not in store
    assert "name: pdf-tool" in (team / "skills" / "pdf-extract" / "SKILL.md").read_text()


def test_linking_never_replaces_a_different_skill_of_the_same_name(store, team):
    from conftest import make

    store.add(make("pdf-extract", "My own, unrelated. Use when mine."))
    r = linked.link(store, team)
    assert [c.name for c in r.conflicts] == ["pdf-extract"] and r.imported == ["release-notes"]
    assert store.get("pdf-extract").description == "My own, unrelated. Use when mine."
    linked.resolve(store, r.conflicts[0], "disk")
    assert "Extracts text" in store.get("pdf-extract").description and not linked.sync(store, team)[0].conflicts


def test_files_the_reader_leaves_out_do_not_make_write_back_repeat(store, team):
    linked.link(store, team)
    s = store.get("pdf-extract")
    from skill_studio.core.library.folders import build_skill
    from skill_studio.core.model import Origin, SkillFile
    files = [*s.files, SkillFile("cache/x.pyc", b"\0\1", 0o644)]
    store.update("pdf-extract", build_skill(s.skill_md.encode(), "pdf-extract", files, origin=Origin.HUMAN,
                                            source=s.source_path), s.version)
    assert linked.sync(store, team)[0].written == ["pdf-extract"]
    assert not linked.sync(store, team)[0].written and not linked.sync(store, team)[0].conflicts


def test_a_folder_that_cannot_be_written_stops_only_itself(store, team, monkeypatch):
    linked.link(store, team)
    from skill_studio.core.library.folders import build_skill
    from skill_studio.core.model import Origin
    for name in ("pdf-extract", "release-notes"):
        s = store.get(name)
        store.update(name, build_skill(s.skill_md.replace("description:", "description: New.", 1).encode(), name,
                                       s.files, origin=Origin.HUMAN, source=s.source_path), s.version)
    real = linked.write_back

    def refuse(skill, path):
        if skill.name == "pdf-extract":
            raise PermissionError(13, "Permission denied", str(path / "SKILL.md"))
        return real(skill, path)
    monkeypatch.setattr(linked, "write_back", refuse)
    r = linked.sync(store, team)[0]
    assert r.written == ["release-notes"] and len(r.errors) == 1 and "Permission denied" in r.errors[0]
    monkeypatch.setattr(linked, "write_back", real)
    assert linked.sync(store, team)[0].written == ["pdf-extract"]


def test_resolving_a_conflict_that_changed_again_is_refused(store, team):
    linked.link(store, team)
    md = team / "skills" / "pdf-extract" / "SKILL.md"
    edit(md, "description:", "description: Disk edit 1.")
    s = store.get("pdf-extract")
    from skill_studio.core.library.folders import build_skill
    from skill_studio.core.model import Origin
    store.update("pdf-extract", build_skill(s.skill_md.replace("description:", "description: Studio.", 1).encode(),
                                            "pdf-extract", s.files, origin=Origin.HUMAN, source=s.source_path),
                 s.version)
    (c,) = linked.sync(store, team)[0].conflicts
    edit(md, "Disk edit 1.", "Disk edit 2.")                      # a pull while the dialog was open
    with pytest.raises(linked.LinkError, match="changed again"):
        linked.resolve(store, c, "studio")
    assert "Disk edit 2." in md.read_text()
