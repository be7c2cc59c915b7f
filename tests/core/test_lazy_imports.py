"""The command line imports what the command run needs: ``--help`` and ``validate`` load neither
numpy, nor Qt, nor the store, nor another area's commands; the window's start loads no designer.
Each case runs in a fresh interpreter (this test process has loaded everything already)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "resources" / "samples" / "csv-cleanup"

#: Never loaded by --help or validate.
HEAVY = ["numpy", "PySide6", "PySide6.QtWidgets", "markdown", "regex", "sqlite3", "skill_studio.core.store",
         "skill_studio.ui", "skill_studio.ui.designer.designer", "skill_studio.core.agents.matching",
         "skill_studio.core.bus.engine", "skill_studio.cli.agents", "skill_studio.cli.bus", "skill_studio.cli.review",
         "skill_studio.cli.authoring", "skill_studio.cli.health", "skill_studio.cli.graph"]

PROBE = """
import contextlib, io, json, sys
{setup}
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        code = {call}
    except SystemExit as e:
        code = e.code
print(json.dumps({{"code": code, "loaded": sorted(sys.modules)}}))
"""


def _loaded(setup: str, call: str) -> tuple[object, set[str]]:
    out = subprocess.run([sys.executable, "-c", PROBE.format(setup=setup, call=call)], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout.strip().splitlines()[-1])
    return data["code"], set(data["loaded"])


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["validate", str(SAMPLE)],
                                  ["validate", "--help"], ["list", "--help"]], ids=" ".join)
def test_the_command_line_loads_only_what_the_command_needs(argv):
    code, loaded = _loaded("from skill_studio.cli import main", f"main({argv!r})")
    assert code == 0
    assert sorted(loaded & set(HEAVY)) == []


def test_importing_the_command_line_loads_no_command():
    _code, loaded = _loaded("import skill_studio.cli.main", "0")
    assert not any(m.startswith(("skill_studio.cli.", "skill_studio.core.")) and
                   m not in ("skill_studio.cli.main", "skill_studio.cli.commands", "skill_studio.cli.common")
                   for m in loaded)
    assert sorted(loaded & set(HEAVY)) == []


def test_the_window_starts_without_the_designer():
    _code, loaded = _loaded("import skill_studio.ui.shell.main_window, skill_studio.ui.shell.features, "
                            "skill_studio.ui.shell.app, skill_studio.ui.shell.store_trouble", "0")
    assert "skill_studio.ui.designer.designer" not in loaded
    assert "markdown" not in loaded   # the preview's renderer comes with the designer
    assert "numpy" not in loaded      # vectors, the bus engine and layouts come with their views
    assert "skill_studio.core.format.validate" not in loaded   # checks run after the first paint


#: Loaded after the first paint or on first use, never to build the window: the local API's
#: announcement (and sockets), linked folders' sync and dialogs, the health check, the strict
#: checks, the review queue's widgets, the designer's file rules, the YAML parser and the
#: diagnostics (cards show a verdict once a check, off the GUI thread, has given one).
AFTER_FIRST_PAINT = ["socket", "skill_studio.api.announcement", "skill_studio.core.library.linked",
                     "skill_studio.ui.agents.linked_dialogs", "difflib", "skill_studio.core.health.checks",
                     "skill_studio.core.format.strict", "skill_studio.ui.review.queue_detail",
                     "skill_studio.ui.review.queue_list", "skill_studio.ui.designer.file_rules", "yaml",
                     "skill_studio.core.format.skillmd", "skill_studio.core.format.diagnostics"]


def test_building_the_window_loads_nothing_the_first_paint_does_not_need(tmp_path):
    """As on every start after the first (the welcome page, which explains the health bands, seen)."""
    setup = ("import os; os.environ['QT_QPA_PLATFORM'] = 'offscreen'\n"
             "from PySide6.QtCore import QSettings\n"
             "from PySide6.QtWidgets import QApplication\n"
             "from skill_studio.core.store import Store\n"
             "from skill_studio.ui.settings import StudioSettings\n"
             "from skill_studio.ui.shell.main_window import MainWindow\n"
             "app = QApplication([])\n"
             f"settings = StudioSettings(QSettings({str(tmp_path / 's.ini')!r}, QSettings.IniFormat))\n"
             "settings.welcome_shown = True\n"
             f"window = MainWindow(Store({str(tmp_path / 'store.db')!r}), settings)")
    _code, loaded = _loaded(setup, "0")
    assert "skill_studio.ui.shell.main_window" in loaded and "skill_studio.ui.shell.features" in loaded
    assert sorted(loaded & set(AFTER_FIRST_PAINT)) == []
