"""The window and the command line writing one store for a minute: the window saves a skill in the
designer and changes trust while `health --apply`, `import`, `promote`/`degrade` and `save` run
over and over in other processes. No "database is locked" reaches anybody, and no saved change is
lost: every save that succeeded is in the skill's history, and every refused one was a conflict."""

from __future__ import annotations

import os
import random
import sqlite3
import subprocess
import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from store_invariants import store_problems, studio

from skill_studio.core.health import scores
from skill_studio.core.library.folders import build_skill
from skill_studio.core.model import Origin
from skill_studio.core.review import lifecycle
from skill_studio.core.store import Store
from skill_studio.ui.settings import StudioSettings
from skill_studio.ui.shell.main_window import MainWindow

SECONDS = float(os.environ.get("SKILL_STUDIO_STRESS_SECONDS", "60"))
SHARED = "shared-notes"

pytestmark = pytest.mark.timeout(SECONDS + 240)


def _md(name: str, body: str, description: str | None = None) -> str:
    return (f"---\nname: {name}\ndescription: {description or f'Keeps {name}. Use when {name} matter.'}\n---\n"
            f"{body}")


class Loop(threading.Thread):
    """Runs one command line over and over until told to stop, keeping what each run printed."""

    def __init__(self, name: str, make_args, check=None):
        super().__init__(name=name, daemon=True)
        self.make_args, self.check = make_args, check
        self.stop = threading.Event()
        self.runs: list[tuple[list[str], int, str, str]] = []

    def run(self) -> None:
        i = 0
        while not self.stop.is_set():
            args = self.make_args(i)
            done = subprocess.run(args, capture_output=True, text=True, timeout=120)
            self.runs.append((args, done.returncode, done.stdout, done.stderr))
            if self.check:
                self.check(i, done)
            i += 1


def _seed(db: Path, library: Path) -> None:
    long_ago = scores.format_time(scores.utcnow() - timedelta(days=400))
    with Store(db) as store:
        skills = [build_skill(_md(SHARED, "# Shared notes\n").encode(), SHARED, [], origin=Origin.HUMAN,
                              source=f"{SHARED}/SKILL.md")]
        for name in ("cycle-a", "cycle-b"):
            skills.append(build_skill(_md(name, f"# {name}\n").encode(), name, [], origin=Origin.HUMAN,
                                      source=f"{name}/SKILL.md"))
        for i in range(40):   # llm skills nobody used for 400 days: the health check deprecates them
            s = build_skill(_md(f"stale-{i:02d}", f"# Stale {i}\n\nzeta{i} omega{i * 31}\n",
                                f"Handles zeta{i} omega{i * 31} records. Use when zeta{i} shows up.").encode(),
                            f"stale-{i:02d}", [], origin=Origin.LLM, source=f"stale-{i:02d}/SKILL.md")
            s.created_at = long_ago
            skills.append(s)
        store.add_many(skills)
    _write_library(library, 0)


_TOPICS = ("invoices", "telescopes", "sourdough", "kubernetes", "sonnets", "glaciers", "mortgages", "chess",
           "beekeeping", "volcanoes", "origami", "tariffs", "submarines", "ferments", "quasars")


def _write_library(library: Path, round_: int) -> None:
    """Distinct skills for the import loop; every round changes their bodies (so they update)."""
    for topic in _TOPICS:
        folder = library / f"imported-{topic}"
        folder.mkdir(parents=True, exist_ok=True)
        text = _md(f"imported-{topic}", f"# {topic}\n\nRound {round_} of the {topic} procedure.\n",
                   f"Answers questions about {topic} only. Use when {topic} are mentioned.")
        tmp = folder / "SKILL.md.tmp"
        tmp.write_text(text)
        os.replace(tmp, folder / "SKILL.md")


def test_the_window_and_the_command_line_write_one_store_at_once(qtbot, tmp_path):
    db, library = tmp_path / "store.db", tmp_path / "library"
    _seed(db, library)
    store = Store(db, actor="gui")
    window = MainWindow(store, StudioSettings(QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat)))
    qtbot.addWidget(window)
    window.show()
    told: list[str] = []
    designer = window.open_designer(SHARED)
    designer.toolbar.note.setText("gui edit")   # the version's note, typed beside Save
    designer.ask_unsaved = lambda: "discard"
    designer.tell = lambda title, text: told.append(f"{title}: {text}")
    conflicts = {"gui": 0, "cli": 0}

    def reload_on_conflict(stored, mine):
        conflicts["gui"] += 1
        return "reload"

    designer.resolve_conflict = reload_on_conflict
    store_arg = ["--store", str(db)]

    def import_args(i):
        _write_library(library, i)
        return studio(*store_arg, "import", str(library), "--origin", "llm")

    def move_args(i):
        name = ("cycle-a", "cycle-b")[i % 2]
        return studio(*store_arg, "degrade" if (i // 2) % 2 == 0 else "promote", name, "--reason", f"round {i}")

    cli_lines: list[str] = []
    cli_file = tmp_path / "cli-edit.md"

    def save_args(i):
        conn = sqlite3.connect(db, timeout=30)
        text, version = conn.execute("SELECT head || content, version FROM procedural_memory WHERE name = ?",
                                     (SHARED,)).fetchone()
        conn.close()
        line = f"cli line {i}\n"
        cli_file.write_text(text + line)
        save_args.pending = line
        return studio(*store_arg, "save", SHARED, str(cli_file), "--expect-version", str(version), "--note", "cli")

    def save_check(i, done):
        if done.returncode == 0:
            cli_lines.append(save_args.pending)
        elif "was changed elsewhere" in done.stderr:
            conflicts["cli"] += 1

    loops = [Loop("health", lambda i: studio(*store_arg, "health", "--apply")),
             Loop("import", import_args), Loop("moves", move_args), Loop("save", save_args, save_check)]
    for loop in loops:
        loop.start()
    gui_lines: list[str] = []
    rng = random.Random(3)
    save_loop = loops[3]

    def everyone_worked() -> bool:
        return all(len(loop.runs) >= 2 for loop in loops) and bool(gui_lines) and bool(cli_lines)

    end, i = time.monotonic() + SECONDS, 0
    try:
        # For SECONDS, and on (within the test's timeout) until every side has done some work: a
        # busy machine may need longer for that, and the test is about what happens, not how fast.
        while time.monotonic() < end or not everyone_worked():
            i += 1
            line = f"gui line {i}\n"
            cursor = designer.editor.textCursor()
            cursor.movePosition(cursor.MoveOperation.End)
            cursor.insertText(line)
            designer.editor.setTextCursor(cursor)
            before = conflicts["gui"]
            if designer.save():
                gui_lines.append(line)
            else:
                assert conflicts["gui"] == before + 1, told
            if i % 3 == 0:
                lifecycle.set_trust(store, "cycle-a", 2 + i // 3 % 2, "gui trust change")
            qtbot.wait(rng.randint(50, 1200))   # an author saves now and then; the window keeps working
            if not cli_lines and conflicts["cli"] >= 3:
                # On a busy machine one command line run can outlast every pause of the author, so
                # its save always finds a newer version: the author stops saving until two more
                # save runs have ended (the second read the skill after the author stopped).
                runs = len(save_loop.runs)
                qtbot.waitUntil(lambda runs=runs: len(save_loop.runs) >= runs + 2, timeout=120_000)
    finally:
        for loop in loops:
            loop.stop.set()
        for loop in loops:
            loop.join(timeout=150)
    window.workspace.close_all = lambda: True

    failures = [(args[4:], code, err.strip()) for loop in loops for args, code, out, err in loop.runs
                if code != 0 and not (loop.name == "save" and "was changed elsewhere" in err)]
    assert not failures, failures[:5]
    assert not told, told[:5]
    everything = " ".join(err for loop in loops for *_, err in loop.runs) + " ".join(told)
    assert "locked" not in everything and "busy" not in everything
    # Every loop got work done, and both sides saved the shared skill.
    assert all(len(loop.runs) >= 2 for loop in loops), [(loop.name, len(loop.runs)) for loop in loops]
    assert gui_lines and cli_lines, (len(gui_lines), len(cli_lines), conflicts)
    # No update lost: each version is the one before plus exactly one line, and every save that
    # succeeded, from either side, is one of them.
    store.close()
    assert store_problems(db) == []
    with Store(db) as check:
        final = check.get(SHARED)
        added = []
        previous = _md(SHARED, "# Shared notes\n")
        for v in range(2, final.version + 1):
            text = check.version_text(SHARED, v)[0]
            assert text.startswith(previous) and text.count("\n") == previous.count("\n") + 1, v
            added.append(text[len(previous):])
            previous = text
        assert sorted(added) == sorted(gui_lines + cli_lines)
        assert final.skill_md == previous
        assert {e.skill for e in check.audit_entries(action="deprecate")} == {f"stale-{i:02d}" for i in range(40)}
    print(f"\n{SECONDS:.0f} s: window saved {len(gui_lines)} times ({conflicts['gui']} conflicts); command line: "
          + ", ".join(f"{loop.name} {len(loop.runs)} runs" for loop in loops)
          + f"; cli saves {len(cli_lines)} ({conflicts['cli']} conflicts)")
