"""An import tells a skill the store could not take (a full disk, a busy or damaged store) from
one a rule left out: the first fails the command, says what to do and loses nothing stored;
and a skill another importer stored first, the same, is reported as already there."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from skill_studio.cli import main
from skill_studio.core.library import importer
from skill_studio.core.library.importer import import_paths
from skill_studio.core.store import Store, StoreBusy, StoreError

ROOT = Path(__file__).resolve().parents[2]


def write_skills(root: Path, names, description="Does it. Use when asked.") -> Path:
    for n in names:
        (root / n).mkdir(parents=True, exist_ok=True)
        (root / n / "SKILL.md").write_text(f"---\nname: {n}\ndescription: {description}\n---\nBody of {n}.\n")
    return root


@pytest.fixture
def full_disk(monkeypatch):
    """A store whose disk fills once ``room`` more skills are written: every later write fails
    as SQLite's own 'database or disk is full' does (the transaction rolled back)."""
    state = {"room": 0}
    real_many = Store.add_many
    real_update = Store.update

    def no_space(store):
        return StoreError(f"{store.path}: database or disk is full; nothing was changed")

    def add_many(self, skills, **kw):
        skills = list(skills)
        if len(skills) > state["room"]:
            raise no_space(self)
        state["room"] -= len(skills)
        return real_many(self, skills, **kw)

    def update(self, *args, **kw):
        if state["room"] <= 0:
            raise no_space(self)
        state["room"] -= 1
        return real_update(self, *args, **kw)

    monkeypatch.setattr(Store, "add_many", add_many)
    monkeypatch.setattr(Store, "update", update)
    return state


@pytest.mark.parametrize("room", [0, 3, 7])
def test_a_full_disk_fails_the_import_and_keeps_what_is_stored(tmp_path, capsys, full_disk, monkeypatch, room):
    db = tmp_path / "s.db"
    full_disk["room"] = 100
    with Store(db) as s:
        import_paths(s, [write_skills(tmp_path / "before", ["kept-1", "kept-2"])])
        kept = {n: s.get(n).content_hash for n in s.names()}
    write_skills(tmp_path / "lib", [f"new-{i:02d}" for i in range(10)])
    write_skills(tmp_path / "lib", ["kept-1"], description="Changed. Use when asked.")   # an update
    monkeypatch.setattr(importer, "BATCH_SKILLS", 4)
    full_disk["room"] = room
    capsys.readouterr()
    assert main(["--store", str(db), "import", str(tmp_path / "lib")]) == 1
    out, err = capsys.readouterr()
    assert "failed: not written to the store" in out.splitlines()[-1]
    assert "could not be written to the store" in err and "disk is full" in err and "free some disk space" in err
    assert "Nothing already in the store was lost" in err
    with Store(db) as s:
        assert s.get("kept-2").content_hash == kept["kept-2"] and "kept-1" in s.names()
        stored = sum(1 for n in s.names() if n.startswith("new-"))
    assert stored <= room
    # With room again, the same import finishes the job and exits 0.
    full_disk["room"] = 100
    assert main(["--store", str(db), "import", str(tmp_path / "lib")]) == 0
    with Store(db) as s:
        assert sum(1 for n in s.names() if n.startswith("new-")) == 10
        assert s.get("kept-1").description == "Changed. Use when asked."


def test_failures_are_not_rule_refusals(tmp_path, full_disk):
    write_skills(tmp_path / "lib", ["a", "b"])
    (tmp_path / "lib" / "broken").mkdir()
    (tmp_path / "lib" / "broken" / "SKILL.md").write_text("no frontmatter at all\n")
    with Store(tmp_path / "s.db") as s:
        report = import_paths(s, [tmp_path / "lib"])
    by_source = {Path(e.source).parent.name: e for e in report.entries}
    assert not by_source["broken"].failed and by_source["broken"].status == "skipped"
    assert by_source["a"].failed and by_source["b"].failed and "disk is full" in by_source["a"].reason
    assert report.summary == ("0 imported, 0 updated, 0 unchanged, 3 skipped "
                              "(2 of them failed: not written to the store)")


def test_a_busy_store_fails_the_batch_at_once(tmp_path, monkeypatch):
    """A store another program holds fails every skill of the batch without a wait for each."""
    calls = []

    def busy(self, skills, **kw):
        calls.append(len(list(skills)))
        raise StoreBusy(f"{self.path}: cannot write to the skill store: another program is writing to it")
    monkeypatch.setattr(Store, "add_many", busy)
    monkeypatch.setattr(Store, "add", lambda *a, **k: pytest.fail("retried one by one"))
    with Store(tmp_path / "s.db") as s:
        report = import_paths(s, [write_skills(tmp_path / "lib", ["a", "b", "c"])])
    assert calls == [3] and len(report.failures) == 3 and "another program" in report.failure_advice


def test_the_cli_exit_code_of_rule_refusals_is_unchanged(tmp_path, capsys):
    write_skills(tmp_path / "lib", ["good"])
    (tmp_path / "lib" / "broken").mkdir()
    (tmp_path / "lib" / "broken" / "SKILL.md").write_text("no frontmatter at all\n")
    assert main(["--store", str(tmp_path / "s.db"), "import", str(tmp_path / "lib")]) == 0
    assert "could not be written" not in capsys.readouterr().err


# --- another importer at the same time ---------------------------------------------------------

def test_a_skill_another_importer_stored_first_the_same_is_unchanged(tmp_path, monkeypatch):
    lib = write_skills(tmp_path / "lib", list("abcde"))
    path = tmp_path / "s.db"
    with Store(path) as store, Store(path) as other:
        def progress(done, source):
            if done == 1:   # the other importer gets there first with the very same folders
                assert all(e.status != "skipped" for e in import_paths(other, [lib / "c", lib / "d"]).entries)
            return True
        monkeypatch.setattr(importer, "BATCH_SKILLS", 2)
        report = import_paths(store, [lib], progress=progress)
    by_name = {e.name: e for e in report.entries}
    assert {n: e.status for n, e in by_name.items()} == {"a": "imported", "b": "imported", "c": "unchanged",
                                                          "d": "unchanged", "e": "imported"}
    assert not report.failures and all(not e.reason for e in by_name.values())


def test_an_update_another_importer_made_first_the_same_is_unchanged(tmp_path):
    lib = write_skills(tmp_path / "lib", ["a"])
    path = tmp_path / "s.db"
    with Store(path) as store, Store(path) as other:
        import_paths(store, [lib])
        write_skills(tmp_path / "lib", ["a"], description="Newer. Use when asked.")
        real = store.update

        def raced(name, *args, **kwargs):   # the other importer stores the same new version first
            assert import_paths(other, [lib]).entries[0].status == "updated"
            return real(name, *args, **kwargs)
        store.update = raced
        entry = import_paths(store, [lib]).entries[0]
        assert (entry.status, entry.failed, entry.reason) == ("unchanged", False, "")
        assert store.get("a").version == 2


_IMPORTER = """
import sys
from skill_studio.cli import main
sys.exit(main(["--store", sys.argv[1], "import", sys.argv[2]]))
"""


def test_two_processes_importing_one_folder_at_once_both_succeed(tmp_path):
    lib = write_skills(tmp_path / "lib", [f"skill-{i:03d}" for i in range(300)])
    db = tmp_path / "s.db"
    Store(db).close()
    procs = [subprocess.Popen([sys.executable, "-c", _IMPORTER, str(db), str(lib)], cwd=ROOT, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    results = [p.communicate(timeout=120) for p in procs]
    for p, (out, err) in zip(procs, results):
        assert p.returncode == 0, err
        summary = out.strip().splitlines()[-1]
        imported, _updated, unchanged, skipped = (int(part.split()[0]) for part in summary.split(", ")[:4])
        assert skipped == 0 and imported + unchanged == 300, summary
    with Store(db) as s:
        assert len(s.names()) == 300
