"""The designer's Run tab, and the window beside a local API server: a script started from the
Files tree streams its output in, says whether it was sandboxed, lists its outputs; an untrusted
skill asks first; a long run can be cancelled while the window keeps working; a skill created
over the API shows in the library."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SCREENSHOTS
from PySide6.QtCore import QSettings

from skill_studio.core.library.folders import build_skill
from skill_studio.core.model import Origin, SkillFile
from skill_studio.core.runtime import script_run
from skill_studio.ui.settings import StudioSettings
from skill_studio.ui.shell.main_window import MainWindow


def _add(store, name: str, files: dict[str, bytes], origin=Origin.HUMAN):
    text = f"---\nname: {name}\ndescription: Tries scripts. Use when testing.\n---\n# {name}\n"
    store.add(build_skill(text.encode(), name, [SkillFile(p, d, 0o755) for p, d in files.items()], origin=origin,
                          source=f"{name}/SKILL.md"))


@pytest.fixture
def window(qtbot, store, tmp_path):
    w = MainWindow(store, StudioSettings(QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat)))
    qtbot.addWidget(w)
    w.resize(1500, 900)
    w.show()
    qtbot.waitExposed(w)
    yield w
    w.workspace.close_all = lambda: True


def _designer(window, name):
    d = window.open_designer(name)
    d.ask_unsaved = lambda: "discard"
    return d


def test_a_script_runs_from_the_files_tree(qtbot, window, store, tmp_path):
    _add(store, "reporter", {"scripts/report.py": b"import sys\nprint('line one')\nprint('warning', file=sys.stderr)\n"
                                                  b"open('report.txt', 'w').write('done')\nsys.exit(2)\n"})
    d = _designer(window, "reporter")
    d.files_panel.select("scripts/report.py")
    assert d.files_panel.run_action.isEnabled()
    with qtbot.waitSignal(d.run_panel.runFinished, timeout=30000) as finished:
        d.files_panel.run_action.trigger()
    assert d.side.currentWidget() is d.run_panel
    result = finished.args[0]
    assert result.exit_code == 2
    panel = d.run_panel
    assert "line one" in panel.output.toPlainText() and "warning" in panel.output.toPlainText()
    assert panel.status.text().startswith("Exit code 2")
    if script_run.bwrap():
        assert ", sandboxed," in panel.status.text() and panel.where.text().startswith("Sandboxed")
    else:
        assert "not sandboxed" in panel.status.text() and panel.where.text().startswith("Not sandboxed")
    assert panel.outputs.count() == 1 and panel.outputs.item(0).text().startswith("report.txt")
    panel.pick_folder = lambda: str(tmp_path / "saved")
    assert panel.save_button.isEnabled()
    panel.save_button.click()
    assert (tmp_path / "saved" / "report.txt").read_text() == "done"
    SCREENSHOTS.mkdir(exist_ok=True)
    window.grab().save(str(SCREENSHOTS / "designer-run-tab.png"))


def test_unsaved_edits_are_what_runs(qtbot, window, store):
    """The run takes the skill as the designer holds it: a file changed in the designer, not saved."""
    _add(store, "editable", {"run.sh": b"#!/bin/sh\necho stored\n"})
    d = _designer(window, "editable")
    d.files_panel.update_file("run.sh", b"#!/bin/sh\necho edited\n")
    with qtbot.waitSignal(d.run_panel.runFinished, timeout=30000) as finished:
        assert d.run_panel.run("run.sh")
    assert finished.args[0].stdout == "edited\n"
    assert store.get("editable").files[0].data == b"#!/bin/sh\necho stored\n"


def test_an_untrusted_skill_asks_first(qtbot, window, store):
    _add(store, "extracted", {"run.sh": b"#!/bin/sh\necho ran\n"}, origin=Origin.LLM)
    d = _designer(window, "extracted")
    asked = []
    d.run_panel.confirm = lambda title, text: asked.append(text) or False
    assert not d.run_panel.run("run.sh")
    assert "trust tier 1" in asked[0] and d.run_panel.status.text() == "Not run."
    assert d.run_panel.output.toPlainText() == ""
    d.run_panel.confirm = lambda title, text: True
    with qtbot.waitSignal(d.run_panel.runFinished, timeout=30000) as finished:
        assert d.run_panel.run("run.sh")
    assert finished.args[0].stdout == "ran\n"


def test_a_long_run_is_cancelled_and_the_window_keeps_working(qtbot, window, store):
    _add(store, "slow", {"run.sh": b"#!/bin/sh\nsleep 300 &\necho $! > child.pid\necho begun\nsleep 300\n"})
    d = _designer(window, "slow")
    assert d.run_panel.run("run.sh")
    qtbot.waitUntil(lambda: "begun" in d.run_panel.output.toPlainText(), timeout=20000)
    assert d.run_panel.is_running() and d.run_panel.cancel_button.isEnabled()
    # The window answers meanwhile: the library is browsed and searched.
    window.workspace.setCurrentIndex(0)
    window.browser.filter_bar.search.setText("slow")
    qtbot.waitUntil(lambda: window.model.rowCount() == 1, timeout=5000)
    with qtbot.waitSignal(d.run_panel.runFinished, timeout=20000) as finished:
        d.run_panel.cancel_button.click()
    # The script sleeps far longer than the test may run: the cancel ended it, and what it started.
    result = finished.args[0]
    assert result.cancelled and not result.timed_out and result.exit_code is None
    assert d.run_panel.status.text().startswith("Cancelled") and not d.run_panel.is_running()
    assert not d.run_panel.cancel_button.isEnabled() and d.run_panel.run_button.isEnabled()
    child = int((d.run_panel.plan.cwd / "child.pid").read_text())
    if not d.run_panel.plan.sandboxed:   # (in the sandbox it is another process namespace's number)
        qtbot.waitUntil(lambda: _ended(child), timeout=10000)


def _ended(pid: int) -> bool:
    """The process is gone (a zombie waiting for a parent that is gone counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def test_closing_the_designer_stops_its_run(qtbot, window, store):
    _add(store, "forever", {"run.sh": b"#!/bin/sh\nsleep 300\n"})
    d = _designer(window, "forever")
    assert d.run_panel.run("run.sh")
    plan_root = d.run_panel.plan.root
    assert window.workspace.close_designer(window.workspace.indexOf(d))
    assert not plan_root.exists()


def test_the_window_shows_what_the_local_api_changes(qtbot, window, store):
    import http.client
    import json

    db = store.path
    api = window.feature("api")
    proc = subprocess.Popen([sys.executable, "-m", "skill_studio", "--store", str(db), "serve", "--port", "0",
                             "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().split(" on ")[1].split()[0]
        token = proc.stdout.readline().split(": ")[1].strip()
        qtbot.waitUntil(lambda: api.label.isVisible(), timeout=10000)
        assert api.label.text() == f"API: {url}"
        copied = []
        api.copy_text = copied.append
        window.action("copy_api_token").trigger()
        assert copied == [token]
        port = int(url.rsplit(":", 1)[1])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("POST", "/api/skills", json.dumps({"name": "made-over-api", "description": "From the API. "
                                                        "Use when testing."}),
                     {"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
        assert conn.getresponse().status == 201
        conn.close()
        qtbot.waitUntil(lambda: "made-over-api" in [window.model.name_at(r) for r in range(window.model.rowCount())],
                        timeout=10000)
        SCREENSHOTS.mkdir(exist_ok=True)
        window.grab().save(str(SCREENSHOTS / "window-with-local-api.png"))
    finally:
        proc.terminate()
        proc.wait(20)
    qtbot.waitUntil(lambda: not api.label.isVisible(), timeout=10000)
    assert not window.action("copy_api_token").isEnabled()


@pytest.mark.parametrize("flood", [b"import sys\nsys.stdout.write('x' * 5_000_000)\n",
                                   b"for i in range(400_000):\n    print('line', i)\n"])
def test_a_flood_of_output_is_shown_in_part(qtbot, window, store, flood):
    from skill_studio.ui.designer.run_panel import MAX_SHOWN_CHARS

    # After its flood the script waits (up to a minute) until the test has seen the output shown.
    _add(store, "flood", {"main.py": flood + b"import os, time\nfor _ in range(6000):\n"
                                             b"    if os.path.exists('seen'):\n        break\n"
                                             b"    time.sleep(0.01)\n"})
    d = _designer(window, "flood")
    with qtbot.waitSignal(d.run_panel.runFinished, timeout=60000) as finished:
        assert d.run_panel.run("main.py")
        # The window keeps turning meanwhile: the flood shows up, a piece at a time, while the
        # script still runs.
        qtbot.waitUntil(lambda: d.run_panel.output.document().characterCount() > 100_000, timeout=30000)
        assert d.run_panel.is_running()
        (d.run_panel.plan.cwd / "seen").touch()
    assert finished.args[0].exit_code == 0
    shown = d.run_panel.output.toPlainText()
    assert 100_000 < len(shown) < MAX_SHOWN_CHARS + 20_000   # (of many lines, the last 50,000 are kept)
    assert "more characters of output not shown]" in shown


def test_control_characters_are_shown_as_text_and_a_limit_is_named(qtbot, window, store):
    """Escapes the script prints are shown, not acted on; a limit that stopped the run is in the status."""
    from skill_studio.core.runtime.limits import Limits

    # The line is written whole, in one write: runs are unbuffered (print would write its end apart),
    # and the two pipes are read apart, so stderr may come between two writes of one line.
    _add(store, "noisy", {"main.py": b"import sys\n"
                                     b"sys.stdout.write('\\x1b]0;title\\x07\\x1b[31mred\\x9b2J\\r\\nnext\\n')\n"
                                     b"open('\\x1b[2Jname', 'w').write('x')\n"
                                     b"open('big', 'wb').write(b'x' * 3_000_000)\n"})
    d = _designer(window, "noisy")
    d.run_panel.limits_now = lambda: Limits(file_mib=1)
    with qtbot.waitSignal(d.run_panel.runFinished, timeout=30000):
        assert d.run_panel.run("main.py")
    shown = d.run_panel.output.toPlainText()
    assert "^[]0;title^G^[[31mred<U+009B>2J\nnext" in shown and "\x1b" not in shown and "\x9b" not in shown
    items = [d.run_panel.outputs.item(i).text() for i in range(d.run_panel.outputs.count())]
    assert any(item.startswith("\\x1b[2Jname") for item in items)
    assert "could not write a file over 1 MiB (setting run.file_mib)" in d.run_panel.status.text()


def test_output_names_cannot_fake_a_line_and_unsafe_ones_are_skipped_when_saved(qtbot, window, store, tmp_path):
    _add(store, "namer", {"run.sh": b"#!/bin/sh\necho good > good.txt\n"
                                    b"touch \"$(printf 'bad\\n(new) FAKE.txt')\" \"$(printf 'b\\033[2J')\"\n"})
    d = _designer(window, "namer")
    with qtbot.waitSignal(d.run_panel.runFinished, timeout=30000):
        assert d.run_panel.run("run.sh")
    panel = d.run_panel
    items = [panel.outputs.item(i).text() for i in range(panel.outputs.count())]
    assert [item.split("  (")[0] for item in items] == ["b\\x1b[2J", "bad\\x0a(new) FAKE.txt", "good.txt"]
    assert not any(c in "".join(items) for c in "\n\r\x1b")
    panel.pick_folder = lambda: str(tmp_path / "saved")
    panel.save_button.click()
    assert [p.name for p in (tmp_path / "saved").iterdir()] == ["good.txt"]
    status = panel.status.text()
    assert status.startswith('Saved 1 output file(s); 2 not saved: "b\\x1b[2J" was not copied: it has a control '
                             "character in its name (and more, see the tooltip)")
    assert '"bad\\x0a(new) FAKE.txt" was not copied' in panel.status.toolTip()


def _looks(button) -> tuple:
    """What a person sees of a button: its text colour and its background (from its own grab)."""
    image = button.grab().toImage()
    centre = image.pixelColor(image.width() // 2, image.height() // 2)
    edge = image.pixelColor(3, image.height() // 2)
    return centre.name(), edge.name(), button.palette().buttonText().color().name()


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_cancel_can_be_pressed_only_while_a_run_goes_on(qtbot, window, store, dark):
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    from skill_studio.ui import theme

    app = QApplication.instance()
    if dark:
        app.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        theme.apply_theme(app, theme.DARK)
    try:
        _add(store, "waiter", {"run.sh": b"#!/bin/sh\necho begun\nsleep 300\n"})
        d = _designer(window, "waiter")
        d.show_details(d.run_panel)
        panel = d.run_panel
        assert not panel.cancel_button.isEnabled() and panel.run_button.isEnabled()   # nothing runs
        idle_cancel, idle_run = _looks(panel.cancel_button), _looks(panel.run_button)
        assert panel.run("run.sh")
        qtbot.waitUntil(lambda: "begun" in panel.output.toPlainText(), timeout=20000)
        assert panel.cancel_button.isEnabled() and not panel.run_button.isEnabled()   # one runs
        assert _looks(panel.cancel_button) != idle_cancel and _looks(panel.run_button) != idle_run
        with qtbot.waitSignal(panel.runFinished, timeout=20000):
            panel.cancel_button.click()
            assert not panel.cancel_button.isEnabled() and panel.status.text() == "Stopping run.sh…"
        assert not panel.cancel_button.isEnabled() and panel.run_button.isEnabled()
        assert _looks(panel.cancel_button) == idle_cancel
        SCREENSHOTS.mkdir(exist_ok=True)
        window.grab().save(str(SCREENSHOTS / f"designer-run-idle-{'dark' if dark else 'light'}.png"))
    finally:
        if dark:
            theme.apply_theme(app, theme.LIGHT)
            for _ in range(3):
                QApplication.processEvents()
