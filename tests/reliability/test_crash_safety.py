"""Killed midway (SIGKILL): an import of 5,000 skills, saves, merges, a health apply, drafts and
exports. Afterwards the store passes its integrity checks, every skill is whole or absent, and
every exported SKILL.md is the old one or the new one."""

from __future__ import annotations

import os
import random
import sqlite3
import time
from datetime import timedelta
from pathlib import Path

import pytest
from store_invariants import count, kill_when, python, store_problems, studio

from skill_studio.core.health import scores
from skill_studio.core.model import Lifecycle, Origin
from skill_studio.core.store import Store

pytestmark = pytest.mark.timeout(300)


def _skill_md(name: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: Does {name.replace('-', ' ')}. Use when {name} is asked for.\n---\n{body}"


def _write_library(root: Path, n: int) -> dict[str, bytes]:
    """n small skill folders (every tenth with a script beside it); returns SKILL.md bytes by name."""
    rng = random.Random(7)
    texts = {}
    for i in range(n):
        name = f"skill-{i:05d}"
        folder = root / name
        folder.mkdir(parents=True)
        body = "\n".join(f"{j}. step {rng.random():.6f}" for j in range(rng.randint(5, 40))) + "\n"
        data = _skill_md(name, f"# {name}\n\n{body}").encode()
        (folder / "SKILL.md").write_bytes(data)
        if i % 10 == 0:
            (folder / "scripts").mkdir()
            (folder / "scripts" / "run.sh").write_bytes(f"#!/bin/sh\necho {name}\n".encode())
            (folder / "scripts" / "run.sh").chmod(0o755)
        texts[name] = data
    return texts


def test_an_import_of_5000_skills_killed_midway(tmp_path):
    texts = _write_library(tmp_path / "lib", 5000)
    db = tmp_path / "store.db"
    Store(db).close()
    killed = kill_when(studio("--store", str(db), "import", str(tmp_path / "lib")),
                       lambda: count(db) >= 500)
    assert killed, "the import finished before it could be killed"
    there = count(db)
    assert 500 <= there < 5000
    assert store_problems(db) == []
    with Store(db) as store:
        for name in store.names():   # every skill that is there is whole
            assert store.get(name).skill_md.encode() == texts[name]
    # The import simply runs again: what was there is unchanged, the rest comes in.
    done = kill_when(studio("--store", str(db), "import", str(tmp_path / "lib")), lambda: False, timeout=120)
    assert not done
    assert count(db) == 5000 and store_problems(db) == []
    with Store(db) as store:
        assert store.get("skill-00010").files[0].path == "scripts/run.sh"
        assert all(v.version == 1 for v in (store.versions("skill-00001") + store.versions("skill-04999")))


_SAVER = """
import sys
from skill_studio.core.library.folders import build_skill
from skill_studio.core.model import Origin, SkillFile
from skill_studio.core.store import Store
store = Store(sys.argv[1])
while True:
    s = store.get("big")
    v = s.version + 1
    data = bytes([v % 251]) * (3 * 2**20)   # each save replaces a 3 MiB file
    text = s.skill_md + f"line for version {v}\\n"
    changed = build_skill(text.encode(), "big", [SkillFile("data.bin", data, 0o644)], origin=Origin.HUMAN,
                          source="big/SKILL.md")
    store.update("big", changed, s.version, note=f"v{v}")
"""


def _saved_text(version: int) -> str:
    return _skill_md("big", "# Big\n") + "".join(f"line for version {v}\n" for v in range(2, version + 1))


@pytest.mark.parametrize("saves", [2, 5, 9])
def test_a_save_killed_midway(tmp_path, saves):
    db = tmp_path / "store.db"
    with Store(db) as store:
        from skill_studio.core.library.folders import build_skill

        store.add(build_skill(_saved_text(1).encode(), "big", [], origin=Origin.HUMAN, source="big/SKILL.md"))
    version_rows = "SELECT count(*) FROM skill_versions WHERE skill = 'big'"
    assert kill_when(python(_SAVER, str(db)), lambda: count(db, version_rows) >= saves)
    assert store_problems(db) == []
    with Store(db) as store:
        s = store.get("big")
        assert s.version >= saves
        assert s.skill_md == _saved_text(s.version)   # the last save that committed, whole
        if s.version > 1:
            assert s.files[0].data == bytes([s.version % 251]) * (3 * 2**20)
        for v in range(1, s.version):
            assert store.version_text("big", v)[0] == _saved_text(v)


_MERGER = """
import sys
from skill_studio.core.review.merge import merge
from skill_studio.core.store import Store
store = Store(sys.argv[1])
for i in range(int(sys.argv[2])):
    merge(store, f"keep-{i:03d}", f"dupe-{i:03d}")
"""


def test_merges_killed_midway(tmp_path):
    db, pairs = tmp_path / "store.db", 150
    with Store(db) as store:
        from skill_studio.core.library.folders import build_skill

        batch = []
        for i in range(pairs):
            for kind in ("keep", "dupe"):
                name = f"{kind}-{i:03d}"
                text = _skill_md(name, f"# {name}\n\n1. {kind} step {i}\n" + "filler line\n" * 2000)
                batch.append(build_skill(text.encode(), name, [], origin=Origin.HUMAN, source=f"{name}/SKILL.md"))
        store.add_many(batch)
    archived = "SELECT count(*) FROM procedural_memory WHERE lifecycle = 'archived'"
    assert kill_when(python(_MERGER, str(db), str(pairs)), lambda: count(db, archived) >= 20)
    assert store_problems(db) == []
    with Store(db) as store:
        done = 0
        for i in range(pairs):
            keep, dupe = store.get(f"keep-{i:03d}"), store.get(f"dupe-{i:03d}")
            merges = [e for e in store.audit_log(keep.name) if e.action == "merge"]
            if dupe.lifecycle == Lifecycle.ARCHIVED:   # merged: all of it
                done += 1
                assert keep.version == 2 and f"dupe step {i}" in keep.skill_md and len(merges) == 1
                assert dupe.lifecycle_reason == f'Merged into "{keep.name}"'
            else:                                      # not merged: none of it
                assert keep.version == 1 and "dupe step" not in keep.skill_md and not merges
        assert 20 <= done < pairs


def test_a_health_apply_killed_midway(tmp_path):
    db, n = tmp_path / "store.db", 1500
    long_ago = scores.format_time(scores.utcnow() - timedelta(days=400))
    with Store(db) as store:
        from skill_studio.core.library.folders import build_skill

        batch = []
        for i in range(n):
            skill = build_skill(_skill_md(f"stale-{i:04d}", f"# Stale {i}\n\nword{i} unique{i * 7919}\n").encode(),
                                f"stale-{i:04d}", [], origin=Origin.LLM, source=f"stale-{i:04d}/SKILL.md")
            skill.created_at = long_ago
            batch.append(skill)
        store.add_many(batch)
    deprecated = "SELECT count(*) FROM procedural_memory WHERE lifecycle = 'deprecated'"
    assert kill_when(studio("--store", str(db), "health", "--apply"), lambda: count(db, deprecated) >= 50,
                     timeout=180)
    assert store_problems(db) == []
    with Store(db) as store:
        moved = {e.skill for e in store.audit_entries(action="deprecate")}
        states = {s.name: s.lifecycle for s in store.cards(store.names())}
        assert 50 <= len(moved) < n
        assert {name for name, state in states.items() if state == Lifecycle.DEPRECATED} == moved
        assert all(state == Lifecycle.CANDIDATE for name, state in states.items() if name not in moved)


_TYPIST = """
import sys
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication
from skill_studio.core.store import Store
from skill_studio.ui.shell.main_window import MainWindow
from skill_studio.ui.settings import StudioSettings
app = QApplication([])
store = Store(sys.argv[1])
window = MainWindow(store, StudioSettings(QSettings(sys.argv[2], QSettings.IniFormat)))
window.show()
designer = window.open_designer("draft-me")
n = [0]
def type_line():
    n[0] += 1
    cursor = designer.editor.textCursor()
    cursor.movePosition(cursor.MoveOperation.End)
    cursor.insertText(f"typed line {n[0]:05d} " + "x" * 2000 + "\\n")
    designer.editor.setTextCursor(cursor)
timer = QTimer(interval=5)
timer.timeout.connect(type_line)
timer.start()
app.exec()
"""


def test_the_window_killed_while_typing_leaves_a_recoverable_draft(tmp_path, qtbot):
    from PySide6.QtCore import QSettings

    from skill_studio.core.library.folders import build_skill
    from skill_studio.ui.settings import StudioSettings
    from skill_studio.ui.shell.main_window import MainWindow

    db = tmp_path / "store.db"
    original = _skill_md("draft-me", "# Draft me\n")
    with Store(db) as store:
        store.add(build_skill(original.encode(), "draft-me", [], origin=Origin.HUMAN, source="draft-me/SKILL.md"))
    drafts = "SELECT count(*) FROM drafts"
    assert kill_when(python(_TYPIST, str(db), str(tmp_path / "typist.ini")), lambda: count(db, drafts) >= 1,
                     env={"QT_QPA_PLATFORM": "offscreen"}, timeout=60)
    assert store_problems(db) == []
    store = Store(db)
    try:
        text, base, _ = store.draft("draft-me")
        typed = text[len(original):].splitlines(keepends=True)
        assert text.startswith(original) and typed, "the draft holds what was typed"
        assert typed == [f"typed line {i:05d} " + "x" * 2000 + "\n" for i in range(1, len(typed) + 1)]
        window = MainWindow(store, StudioSettings(QSettings(str(tmp_path / "again.ini"), QSettings.IniFormat)))
        qtbot.addWidget(window)
        window.workspace.ask_recover = lambda parent, name, at, lines: "recover"
        assert window.workspace.recover_drafts() == 1
        designer = window.workspace.designer_for("draft-me")
        assert designer.text() == text and designer.is_dirty() and base == 1
        window.workspace.close_all = lambda: True
    finally:
        store.close()


_EXPORTER = """
import sys
from skill_studio.core.library.folder_write import export_archive, export_folder
from skill_studio.core.store import Store
store = Store(sys.argv[1])
skills = [store.get(n) for n in store.names()]
export = export_archive if sys.argv[3] == "zip" else export_folder
while True:
    for skill in skills:
        export(skill, sys.argv[2])
"""


@pytest.mark.parametrize("kind", ["folder", "zip"])
def test_an_export_killed_midway_leaves_old_or_new_files(tmp_path, kind):
    import zipfile

    from skill_studio.core.library.folder_write import export_archive, export_folder
    from skill_studio.core.library.folders import build_skill
    from skill_studio.core.library.importer import import_paths
    from skill_studio.core.model import SkillFile

    db, out = tmp_path / "store.db", tmp_path / "out"
    old, new = {}, {}
    with Store(db) as store:
        for i in range(40):
            name = f"exp-{i:02d}"
            old[name] = _skill_md(name, "old body\n" * 20000)
            files = [SkillFile("references/notes.md", b"old notes\n" * 50000, 0o644)]
            store.add(build_skill(old[name].encode(), name, files, origin=Origin.HUMAN, source=f"{name}/SKILL.md"))
        for name in old:
            (export_archive if kind == "zip" else export_folder)(store.get(name), out)
            s = store.get(name)
            new[name] = _skill_md(name, "new body\n" * 20000)
            changed = build_skill(new[name].encode(), name, [SkillFile("references/notes.md", b"new notes\n" * 50000,
                                                                       0o644)], origin=Origin.HUMAN, source="x")
            store.update(name, changed, s.version)
    for _attempt in range(3):   # kill at three different moments
        started = out.stat().st_mtime_ns
        killed = kill_when(python(_EXPORTER, str(db), str(out), kind),
                           lambda started=started: _newest_change(out) > started and random.random() < 0.05)
        assert killed
        for name in old:
            if kind == "zip":
                with zipfile.ZipFile(out / f"{name}.zip") as zf:
                    md = zf.read(f"{name}/SKILL.md").decode()
                    notes = zf.read(f"{name}/references/notes.md")
            else:
                md = (out / name / "SKILL.md").read_text()
                notes = (out / name / "references" / "notes.md").read_bytes()
            assert md in (old[name], new[name]), f"{name}: a mix of old and new"
            assert notes == (b"old notes\n" if md == old[name] else b"new notes\n") * 50000
    # Whatever a kill left behind is never taken for a skill by the next import...
    with Store(tmp_path / "again.db") as again:
        report = import_paths(again, sorted(out.glob("*.zip")) if kind == "zip" else [out])
        assert sorted(again.names()) == sorted(old), report.summary
    # ... and the next export of the same skill removes it once it is clearly abandoned.
    left = [p for p in out.iterdir() if p.name.startswith(".")]
    for p in left:
        os.utime(p, (time.time() - 3600,) * 2)
    with Store(db) as store:
        for name in old:
            (export_archive if kind == "zip" else export_folder)(store.get(name), out)
    assert not [p for p in out.iterdir() if p.name.startswith(".")]


_STEP_KILLER = """
import os, shutil, signal, sys
from skill_studio.core.library import atomic
from skill_studio.core.library.folder_write import export_folder
from skill_studio.core.store import Store
store = Store(sys.argv[1])
skill = store.get(sys.argv[3])
step, after = int(sys.argv[4]), sys.argv[5] == "after"
calls = [0]
def killing(func):
    def step_of_the_export(*args, **kwargs):
        calls[0] += 1
        if calls[0] == step and not after:
            os.kill(os.getpid(), signal.SIGKILL)
        result = func(*args, **kwargs)
        if calls[0] == step and after:
            os.kill(os.getpid(), signal.SIGKILL)
        return result
    return step_of_the_export
os.replace, os.rename, shutil.rmtree = killing(os.replace), killing(os.rename), killing(shutil.rmtree)
atomic.exchange = killing(atomic.exchange)
export_folder(skill, sys.argv[2])
sys.exit(3)   # finished without reaching the step
"""


def test_an_export_killed_at_every_step_of_the_swap(tmp_path):
    """Killed before and after each rename, exchange and removal of one export: the folder is
    always there, old or new, and the next import finds exactly the one skill."""
    import subprocess
    import sys

    from skill_studio.core.library.folder_write import export_folder
    from skill_studio.core.library.folders import build_skill
    from skill_studio.core.library.importer import import_paths

    db, out = tmp_path / "store.db", tmp_path / "out"
    old, new = _skill_md("swap", "old\n"), _skill_md("swap", "new\n")
    with Store(db) as store:
        store.add(build_skill(old.encode(), "swap", [], origin=Origin.HUMAN, source="swap/SKILL.md"))
        export_folder(store.get("swap"), out)
        store.update("swap", build_skill(new.encode(), "swap", [], origin=Origin.HUMAN, source="x"), 1)
    seen = set()
    for step in range(1, 10):
        for when in ("before", "after"):
            done = subprocess.run([sys.executable, "-c", _STEP_KILLER, str(db), str(out), "swap", str(step), when],
                                  capture_output=True, text=True, timeout=60)
            if done.returncode == 3:
                continue
            assert done.returncode == -9, done.stderr
            text = (out / "swap" / "SKILL.md").read_text()
            assert text in (old, new)
            seen.add(text)
            with Store(tmp_path / f"check-{step}-{when}.db") as again:
                import_paths(again, [out])
                assert again.names() == ["swap"]
    assert seen == {old, new}, "the kills came both before and after the swap"


def _newest_change(folder: Path) -> int:
    try:
        return max(p.stat().st_mtime_ns for p in folder.iterdir())
    except (OSError, ValueError):
        return 0


def test_the_checks_catch_a_half_written_skill(tmp_path):
    """The invariants above can fail: a skill row without its version, a file without its blob."""
    db = tmp_path / "store.db"
    with Store(db) as store:
        from skill_studio.core.library.folders import build_skill
        from skill_studio.core.model import SkillFile

        store.add(build_skill(_skill_md("whole", "x\n").encode(), "whole", [SkillFile("a.txt", b"a", 0o644)],
                              origin=Origin.HUMAN, source="whole/SKILL.md"))
    assert store_problems(db) == []
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA foreign_keys = OFF")
    conn.execute("DELETE FROM skill_versions WHERE skill = 'whole'")
    conn.execute("UPDATE procedural_memory SET content = 'torn' WHERE name = 'whole'")
    conn.commit()
    conn.close()
    problems = store_problems(db)
    assert any("content hash" in p for p in problems) and any("version 1 row missing" in p for p in problems)
