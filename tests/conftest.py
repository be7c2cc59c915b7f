"""Shared test setup: no display needed, and no test touches the user's own store."""

import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from skill_studio.core.format import skillmd
from skill_studio.core.format.fields import to_skill
from skill_studio.core.format.frontmatter import compose
from skill_studio.core.model import ENTRY_DEFAULTS, Origin

FIXTURES = Path(__file__).parent / "fixtures"
# Qt must find a platform before it is first imported; offscreen needs no display. Its screen is a
# desktop's (1920x1080) so that windows keep the sizes the tests give them; tests of small screens
# resize their windows, or start a process with a screen of their own.
os.environ.setdefault("QT_QPA_PLATFORM", f"offscreen:configfile={FIXTURES / 'offscreen_screen.json'}")
REAL_WORLD = FIXTURES / "real_world"
SAMPLES = Path(__file__).parent.parent / "resources" / "samples"
#: Where GUI tests leave screenshots for a person to look at (ignored by git).
SCREENSHOTS = Path(__file__).parent / "screenshots"


def make(name, description="Does a thing. Use when needed.", body="# Title\n\nBody text.\n", *,
         origin=Origin.HUMAN, meta=None, files=()):
    """A skill as an import of a SKILL.md with these fields and body would make it."""
    fields = {"name": name, "description": description}
    if meta:
        fields["metadata"] = meta
    doc = skillmd.parse_document(compose(fields, body))
    lifecycle, tier = ENTRY_DEFAULTS[origin]
    return to_skill(doc, name, origin=origin, lifecycle=lifecycle, trust_tier=tier, files=list(files))


def png_bytes(width: int = 24, height: int = 16, colour: str = "#3056d3") -> bytes:
    """A PNG of one colour, made with Qt (for images a skill carries)."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QColor, QImage

    image = QImage(width, height, QImage.Format.Format_ARGB32)
    image.fill(QColor(colour))
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return bytes(data)


# What Qt says when an object is used from a thread other than its own (timers, events, children,
# pixmaps): in the tests every such message fails the test that caused it. Widgets belong to the
# GUI thread; a worker's signal connected to a bare lambda runs the lambda in the worker's thread.
CROSS_THREAD = re.compile(r"from another thread|in another thread|in a different thread|"
                          r"owned by a different thread|outside the GUI thread|not safe to use pixmaps|"
                          r"threads started with QThread|Cannot move to target thread|"
                          r"current thread is not the object's thread")

# pytest-qt captures Qt's messages from a test's setup to the end of its call; outside that
# (teardown, between tests) this handler sees them. It is installed once, and pytest-qt puts it
# back after each test.
_outside_capture: list[str] = []


def _qt_messages(mode, context, message):
    if CROSS_THREAD.search(message):
        _outside_capture.append(message)
    sys.stderr.write(message + "\n")


def pytest_configure(config):
    from PySide6.QtCore import qInstallMessageHandler

    qInstallMessageHandler(_qt_messages)


# A modal dialog that no test answers would wait for a person for ever (and CI with it): one left
# open this long is closed and fails the test that opened it.
MODAL_PATIENCE_MS = 20_000
_MODAL_TICK_MS = 250
_unanswered: list[str] = []


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    widgets = sys.modules.get("PySide6.QtWidgets")
    if widgets is None or widgets.QApplication.instance() is None:
        return (yield)
    from PySide6.QtCore import QTimer

    seen = {"dialog": None, "ticks": 0}

    def look() -> None:
        dialog = widgets.QApplication.activeModalWidget()
        if dialog is None or dialog is not seen["dialog"]:
            seen.update(dialog=dialog, ticks=0)
            return
        seen["ticks"] += 1
        if seen["ticks"] * _MODAL_TICK_MS >= MODAL_PATIENCE_MS:
            text = dialog.text() if isinstance(dialog, widgets.QMessageBox) else ""
            _unanswered.append(f"{dialog.windowTitle()!r} {text!r}".strip())
            seen.update(dialog=None, ticks=0)
            if isinstance(dialog, widgets.QDialog):
                dialog.reject()
            else:
                dialog.close()

    watch = QTimer()
    watch.setInterval(_MODAL_TICK_MS)
    watch.timeout.connect(look)
    watch.start()
    try:
        return (yield)
    finally:
        watch.stop()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """Fail a test (its setup, call or teardown) during which Qt reported an object used from
    another thread, or whose call left a modal dialog waiting for a person."""
    report = yield
    if call.when == "call" and _unanswered:
        dialogs = list(_unanswered)
        _unanswered.clear()
        if not report.failed:
            report.outcome = "failed"
            report.longrepr = (f"a modal dialog waited {MODAL_PATIENCE_MS / 1000:g} s for a person and was closed "
                               "(a test answers or replaces every dialog it opens):\n  " + "\n  ".join(dialogs))
    capture = getattr(item, "qt_log_capture", None)
    seen = getattr(item, "_cross_thread_seen", 0)
    messages = []
    if capture is not None:
        messages = [r.message for r in capture.records[seen:] if CROSS_THREAD.search(r.message)]
        item._cross_thread_seen = len(capture.records)
    messages += _outside_capture
    _outside_capture.clear()
    if messages and not report.failed:
        report.outcome = "failed"
        report.longrepr = ("Qt objects were used from a thread other than their own (widgets belong to "
                           "the GUI thread):\n  " + "\n  ".join(dict.fromkeys(messages)))
    return report


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("studio-home")
    monkeypatch.setenv("SKILL_STUDIO_HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "xdg"))
    return home


@pytest.fixture(autouse=True)
def _welcome_already_seen(monkeypatch):
    """Every test window starts with settings of its own, which a real start would take for a first
    start and open the welcome page in a tab (made current). Tests of other views start as after the
    first start; tests of the welcome set ``WelcomeFeature.opens_at_first_start`` back to True."""
    from skill_studio.ui.shell.welcome import WelcomeFeature

    monkeypatch.setattr(WelcomeFeature, "opens_at_first_start", False)


@pytest.fixture
def open_window(qtbot, tmp_path):
    """``open_window(store, width=1024, height=700, reviewer=None)``: the main window over ``store``
    with settings of its own, shown at that size."""
    from PySide6.QtCore import QSettings

    from skill_studio.ui.settings import StudioSettings
    from skill_studio.ui.shell.main_window import MainWindow

    def make_window(store, width: int = 1024, height: int = 700, *, reviewer: str | None = None):
        settings = StudioSettings(QSettings(str(tmp_path / "window.ini"), QSettings.IniFormat))
        if reviewer is not None:
            settings.reviewer = reviewer
        window = MainWindow(store, settings)
        qtbot.addWidget(window)
        window.resize(width, height)
        window.show()
        qtbot.waitExposed(window)
        return window

    return make_window


@pytest.fixture
def store(tmp_path):
    from skill_studio.core.store import Store

    with Store(tmp_path / "store.db", actor="tester") as s:
        yield s


@pytest.fixture
def agents_library(tmp_path, capsys):
    """release-notes and pdf-extract (which pass the gate) and python-test-writer (a candidate the
    gate keeps out), imported the way a user imports them."""
    from skill_studio.cli import main
    from skill_studio.core.store import Store

    path = tmp_path / "s.db"
    for name in ("release-notes", "pdf-extract", "python-test-writer"):
        assert main(["--store", str(path), "import", str(SAMPLES / name)]) == 0
    capsys.readouterr()
    with Store(path) as store:
        store.set_state("python-test-writer", lifecycle="candidate")
        yield store


@pytest.fixture
def seeded_store(tmp_path):
    """A store seeded with the sample skills (every origin, lifecycle state and trust tier)."""
    from skill_studio.core.library.samples import seed
    from skill_studio.core.store import Store

    with Store(tmp_path / "store.db", actor="tester") as store:
        seed(store)
        yield store


@pytest.fixture
def real_world(tmp_path):
    """A copy of the real-world fixtures, with the .git folder git itself cannot hold."""
    dest = tmp_path / "real_world"
    shutil.copytree(REAL_WORLD, dest, symlinks=True)
    git_skill = dest / "hidden-folders" / "collection" / ".git" / "x"
    git_skill.mkdir(parents=True, exist_ok=True)
    (git_skill / "SKILL.md").write_text("---\nname: x\ndescription: Never found. Use when never.\n---\n")
    return dest


def skill_folders(root: Path) -> list[Path]:
    """Every folder under root holding SKILL.md or skill.md (no discovery rules applied)."""
    out = set()
    for name in ("SKILL.md", "skill.md"):
        out.update(p.parent for p in root.rglob(name))
    return sorted(out)


def shown_window(qtbot, store, tmp_path, size=(1300, 820)):
    """The main window over ``store``, with settings of its own, on screen at ``size``."""
    from PySide6.QtCore import QSettings

    from skill_studio.ui.settings import StudioSettings
    from skill_studio.ui.shell.main_window import MainWindow

    window = MainWindow(store, StudioSettings(QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat)))
    qtbot.addWidget(window)
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    return window


@pytest.fixture
def full_reads(monkeypatch):
    """The texts the strict profile's exact (pure-Python) YAML parser reads during a test: whole,
    or from a line on with the lines before it blank."""
    import skill_studio.core.format.strict_yaml as strict_yaml

    seen: list[str] = []
    original = strict_yaml._compose_exact

    def spy(text, where):
        seen.append(text)
        return original(text, where)
    monkeypatch.setattr(strict_yaml, "_compose_exact", spy)
    return seen


@pytest.fixture
def git_identity(monkeypatch):
    """Who commits, for tests whose code runs ``git commit`` (a fresh machine has nobody set)."""
    for key, value in (("GIT_AUTHOR_NAME", "Studio"), ("GIT_AUTHOR_EMAIL", "s@example.org"),
                       ("GIT_COMMITTER_NAME", "Studio"), ("GIT_COMMITTER_EMAIL", "s@example.org")):
        monkeypatch.setenv(key, value)
