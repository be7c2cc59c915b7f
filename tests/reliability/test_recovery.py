"""Stores that cannot be used: a file that is not a database, another program's database, a store
from a newer Skill Studio, a damaged store. Each gets a clear message naming the file and is left
byte for byte as it was; a damaged store's readable skills can be rescued as folders."""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from store_invariants import studio

from skill_studio.core.library.folders import build_skill, read_folder
from skill_studio.core.library.importer import import_paths
from skill_studio.core.model import Origin, SkillFile
from skill_studio.core.store import Store, StoreError, UnusableStore
from skill_studio.core.store.rescue import REPORT_NAME, rescue


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _sqlite(path: Path, *statements: str, wal: bool = False) -> None:
    conn = sqlite3.connect(path)
    if wal:
        conn.execute("PRAGMA journal_mode = WAL")
    for sql in statements:
        conn.execute(sql)
    conn.commit()
    conn.close()


def _unusable_files(tmp: Path) -> dict[str, tuple[Path, str]]:
    """name: (file, the kind of refusal expected)."""
    made = {}
    text = tmp / "notes.db"
    text.write_text("These are my notes, not a database.\n")
    made["text"] = (text, "not-a-store")
    noise = tmp / "noise.db"
    noise.write_bytes(bytes(range(256)) * 64)
    made["random bytes"] = (noise, "not-a-store")
    header_only = tmp / "truncated.db"
    header_only.write_bytes(b"SQLite format 3\x00" + b"\x10\x00\x01\x01" + b"\x00" * 20)
    made["truncated header"] = (header_only, "not-a-store")
    for mode in ("delete", "wal"):
        other = tmp / f"bookmarks-{mode}.db"
        _sqlite(other, "CREATE TABLE bookmarks (url TEXT)", "INSERT INTO bookmarks VALUES ('https://example.org')",
                wal=mode == "wal")
        made[f"another program's database ({mode})"] = (other, "not-a-store")
        newer = tmp / f"newer-{mode}.db"
        _sqlite(newer, "CREATE TABLE procedural_memory (name TEXT PRIMARY KEY, wings INTEGER)",
                "PRAGMA user_version = 99", wal=mode == "wal")
        made[f"a newer store ({mode})"] = (newer, "newer")
    return made


@pytest.mark.parametrize("case", ["text", "random bytes", "truncated header", "another program's database (delete)",
                                  "another program's database (wal)", "a newer store (delete)",
                                  "a newer store (wal)"])
def test_a_file_that_is_not_a_usable_store_is_refused_and_left_alone(tmp_path, case):
    path, kind = _unusable_files(tmp_path)[case]
    before = _digest(path)
    with pytest.raises(UnusableStore) as refused:
        Store(path)
    assert refused.value.kind == kind and str(path) in str(refused.value)
    assert "not changed" in str(refused.value)
    assert _digest(path) == before
    # The command line says the same in one line, without a traceback, and changes nothing either.
    for args in (["list"], ["import", str(tmp_path)], ["health", "--apply"]):
        done = subprocess.run(studio("--store", str(path), *args), capture_output=True, text=True, timeout=120)
        assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
        assert done.stderr.startswith(f"skill-studio: {path}: ") and "Traceback" not in done.stderr
    assert _digest(path) == before
    assert not Path(f"{path}-journal").exists()


# --- damaged stores -------------------------------------------------------------------

def _library_store(path: Path, n: int = 120) -> dict[str, tuple[bytes, list[SkillFile]]]:
    """A store of n skills (a third with a script beside them); returns what each holds."""
    made = {}
    with Store(path) as store:
        batch = []
        for i in range(n):
            name = f"skill-{i:03d}"
            text = (f"---\nname: {name}\ndescription: Does task {i}. Use when task {i} comes up.\n---\n# {name}\n\n"
                    + "".join(f"{j}. Step {j} of task {i}, with enough words to fill the page.\n" for j in range(30)))
            files = [SkillFile("scripts/run.sh", f"#!/bin/sh\necho {i}\n".encode(), 0o755)] if i % 3 == 0 else []
            batch.append(build_skill(text.encode(), name, files, origin=Origin.HUMAN, source=f"{name}/SKILL.md"))
            made[name] = (text.encode(), files)
        store.add_many(batch)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return made


def _damage(path: Path, table: str, pages: slice, pagetype: str = "leaf") -> list[int]:
    """Overwrite some pages of a table with garbage; returns their numbers."""
    conn = sqlite3.connect(path)
    try:
        numbers = [r[0] for r in conn.execute(
            "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = ? ORDER BY pageno", (table, pagetype))]
        size = conn.execute("PRAGMA page_size").fetchone()[0]
    except sqlite3.OperationalError as e:   # an SQLite built without the dbstat table
        pytest.skip(f"cannot find the pages of a table here: {e}")
    finally:
        conn.close()
    chosen = numbers[pages]
    assert chosen, f"{table} has only {len(numbers)} {pagetype} pages"
    with open(path, "r+b") as fh:
        for number in chosen:
            fh.seek((number - 1) * size)
            fh.write(b"\xde\xad\xbe\xef" * (size // 4))
    return chosen


def test_a_damaged_store_says_so_and_its_readable_skills_are_rescued(tmp_path):
    db = tmp_path / "store.db"
    made = _library_store(db)
    _damage(db, "procedural_memory", slice(3, 5))
    before = _digest(db)
    # Reading the damaged part is refused with a message that names the file and the way out.
    done = subprocess.run(studio("--store", str(db), "export", "--all", "--to", str(tmp_path / "out")),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"{db}: the skill store is damaged" in done.stderr and "rescue --to" in done.stderr
    with Store(db) as store, pytest.raises(UnusableStore) as damaged:
        for name in store.names():
            store.get(name)
    assert damaged.value.kind == "damaged"
    # The rescue: every skill that can be read, byte for byte, with its files and executable bits.
    out = tmp_path / "rescued"
    done = subprocess.run(studio("--store", str(db), "rescue", "--to", str(out)), capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1, done.stderr   # something was lost, and it says what
    assert "lost" in done.stdout and "rescued" in done.stdout
    assert _digest(db) == before, "the damaged store itself is never written"
    rescued = sorted(p.name for p in out.iterdir() if p.is_dir())
    assert 80 <= len(rescued) < len(made)
    for name in rescued:
        md, data, files, _ = read_folder(out / name)
        assert data == made[name][0] and files == made[name][1], name
    report = (out / REPORT_NAME).read_text()
    assert all(f'"{name}"' in report for name in rescued) and '"lost"' in report
    # What was rescued imports into a new store.
    with Store(tmp_path / "new.db") as fresh:
        import_paths(fresh, [out])
        assert sorted(fresh.names()) == rescued


def test_a_damaged_current_text_falls_back_to_an_older_version(tmp_path):
    db = tmp_path / "store.db"
    _library_store(db, n=5)
    big = "---\nname: big\ndescription: A long skill. Use when a long one is needed.\n---\n"
    with Store(db) as store:
        store.add(build_skill((big + "old line\n" * 3000).encode(), "big", [], origin=Origin.HUMAN, source="big"))
        store.update("big", build_skill((big + "new line\n" * 3000).encode(), "big", [], origin=Origin.HUMAN,
                                        source="big"), 1)
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    _damage(db, "procedural_memory", slice(0, 2), pagetype="overflow")   # only "big" spills onto overflow pages
    report = rescue(db, tmp_path / "out")
    got = {s.name: s for s in report.rescued}
    assert got["big"].version == 1 and "version 1 was rescued instead" in got["big"].note
    assert (tmp_path / "out" / "big" / "SKILL.md").read_text() == big + "old line\n" * 3000
    assert len(got) == 6 and not report.lost


def test_rescue_refuses_a_folder_with_other_things_and_a_file_that_is_no_database(tmp_path):
    db = tmp_path / "store.db"
    _library_store(db, n=3)
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "keep.txt").write_text("mine")
    with pytest.raises(StoreError, match="not empty"):
        rescue(db, busy)
    assert (busy / "keep.txt").read_text() == "mine"
    rescue(db, tmp_path / "again")
    rescue(db, tmp_path / "again")   # a second rescue into the first one's folder is fine
    notes = tmp_path / "notes.db"
    notes.write_text("not a database")
    with pytest.raises(UnusableStore):
        rescue(notes, tmp_path / "x")


# --- in the window ----------------------------------------------------------------------

class Answers:
    """Stands in for the user at the store-trouble dialogs."""

    def __init__(self, trouble, choices, store=None, folder=None):
        self.asked, self.told = [], []
        self.choices = list(choices)
        trouble.choose = lambda title, text, options: self.asked.append((title, text, options)) or self.choices.pop(0)
        trouble.pick_store = lambda: str(store or "")
        trouble.pick_folder = lambda: str(folder or "")
        trouble.tell = lambda title, text, folder: self.told.append((title, text, folder))


@pytest.fixture
def restore_excepthook(monkeypatch, qapp):
    """start() installs the window's error hook; and a test's window closing at its end must not
    quit the application's event loops for the tests after it."""
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    qapp.setQuitOnLastWindowClosed(False)
    yield
    qapp.setQuitOnLastWindowClosed(True)


def test_the_window_explains_a_file_that_is_not_a_store_and_can_quit(restore_excepthook, qtbot, tmp_path):
    from skill_studio.ui.shell.app import start
    from skill_studio.ui.shell.store_trouble import StoreTrouble

    path, _ = _unusable_files(tmp_path)["a newer store (wal)"]
    before = _digest(path)
    trouble = StoreTrouble()
    answers = Answers(trouble, ["quit"])
    assert start(lambda: Store(path), trouble=trouble) == 1
    (title, text, options), = answers.asked
    assert title == "The skill store is from a newer Skill Studio" and str(path) in text
    assert "was not changed" in text and options == ("open", "quit")
    assert _digest(path) == before


@pytest.mark.qt_no_exception_capture   # the views fail on the damaged part; the window reports it
def test_the_window_on_a_damaged_store_offers_the_rescue_once(restore_excepthook, qtbot, tmp_path):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from skill_studio.ui.shell.app import start
    from skill_studio.ui.shell.main_window import MainWindow
    from skill_studio.ui.shell.store_trouble import StoreTrouble

    db = tmp_path / "store.db"
    made = _library_store(db)
    _damage(db, "skill_cards", slice(0, 2))   # the cards the browser paints: the skills themselves are whole
    before = _digest(db)
    trouble = StoreTrouble()
    answers = Answers(trouble, ["rescue"], folder=tmp_path / "rescued")
    app = QApplication.instance()
    stop = QTimer(singleShot=True, interval=20000)   # in case nothing is reported
    stop.timeout.connect(app.quit)
    told = trouble.tell
    trouble.tell = lambda *a: (told(*a), stop.start(300))   # the rescue is reported: then close
    stop.start()
    try:
        assert start(lambda: Store(db), trouble=trouble) == 0
    finally:
        stop.stop()
    for w in QApplication.topLevelWidgets():
        if isinstance(w, MainWindow):   # closed by the test's end, as every window of the tests
            w.workspace.close_all = lambda: True
            qtbot.addWidget(w)
    assert [a[0] for a in answers.asked] == ["The skill store is damaged"], "reported once"
    assert answers.asked[0][2] == ("rescue", "close")
    (title, text, folder), = answers.told
    assert title == "Skills rescued" and folder == str(tmp_path / "rescued")
    rescued = [p.name for p in (tmp_path / "rescued").iterdir() if p.is_dir()]
    assert len(rescued) == len(made)
    assert _digest(db) == before


def test_a_store_damaged_where_it_is_opened_is_explained_before_any_window(restore_excepthook, qtbot, tmp_path):
    from skill_studio.ui.shell.app import start
    from skill_studio.ui.shell.store_trouble import StoreTrouble

    db = tmp_path / "store.db"
    _library_store(db, n=3)
    with open(db, "r+b") as fh:   # the schema's page, after the 100-byte file header
        fh.seek(100)
        fh.write(b"\xff" * 3000)
    before = _digest(db)
    trouble = StoreTrouble()
    answers = Answers(trouble, ["rescue", "quit"], folder=tmp_path / "rescued")
    assert start(lambda: Store(db), trouble=trouble) == 1
    assert answers.asked[0][0] == "The skill store is damaged" and answers.asked[0][2] == ("rescue", "open", "quit")
    (title, text, _), = answers.told   # nothing can be read: the rescue says so
    assert title == "Rescue failed" and "cannot be read" in text
    assert _digest(db) == before


def test_the_newer_store_dialog_as_the_user_sees_it(qtbot, tmp_path):
    """The real dialog at start: its text and buttons; Quit gives up. Saved as a screenshot."""
    from conftest import SCREENSHOTS
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from skill_studio.ui.shell.store_trouble import StoreTrouble

    SCREENSHOTS.mkdir(exist_ok=True)
    db = tmp_path / "store.db"
    error = UnusableStore(db, "newer", "this store has schema version 9, newer than this Skill Studio understands (4)")
    seen = {}

    def look_and_click():
        box = QApplication.activeModalWidget()
        seen.update(buttons=[b.text() for b in box.buttons()], text=box.text(), title=box.windowTitle())
        box.grab().save(str(SCREENSHOTS / "store-newer.png"))
        next(b for b in box.buttons() if b.text() == "Quit").click()

    QTimer.singleShot(200, look_and_click)
    assert StoreTrouble().after_failure(error) is None
    assert sorted(seen["buttons"]) == ["Open another store…", "Quit"] and str(db) in seen["text"]
    assert seen["title"] == "The skill store is from a newer Skill Studio" and "not changed" in seen["text"]


def test_the_damaged_store_dialog_offers_the_rescue(qtbot, tmp_path):
    from conftest import SCREENSHOTS
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from skill_studio.ui.shell.store_trouble import StoreTrouble, describe

    SCREENSHOTS.mkdir(exist_ok=True)
    error = UnusableStore(tmp_path / "store.db", "damaged", "the skill store is damaged (database disk image is "
                                                            "malformed)")
    seen = {}

    def look_and_click():
        box = QApplication.activeModalWidget()
        seen["buttons"] = [b.text() for b in box.buttons()]
        box.grab().save(str(SCREENSHOTS / "store-damaged.png"))
        next(b for b in box.buttons() if b.text() == "Rescue skills…").click()

    QTimer.singleShot(200, look_and_click)
    title, text = describe(error)
    assert StoreTrouble()._choose(title, text, ("rescue", "open", "quit")) == "rescue"
    assert sorted(seen["buttons"]) == ["Open another store…", "Quit", "Rescue skills…"]
