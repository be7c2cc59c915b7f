"""A test that leaves a modal dialog open fails (the dialog is closed for it) instead of waiting for a
person, and with it the whole run."""

from __future__ import annotations

from pathlib import Path

pytest_plugins = ["pytester"]

_FORGETFUL = '''
from PySide6.QtWidgets import QInputDialog, QMessageBox


def test_a_warning_nobody_answers(qtbot):
    QMessageBox.warning(None, "Import failed", "The import stopped: something broke")


def test_a_question_nobody_answers(qtbot):
    assert QInputDialog.getText(None, "Reviewer name", "Name:")[1] is False


def test_a_test_that_answers_its_dialog(qtbot, monkeypatch):
    monkeypatch.setattr(QMessageBox, "warning", lambda *a: QMessageBox.Ok)
    assert QMessageBox.warning(None, "Told", "fine") == QMessageBox.Ok
'''


def test_a_modal_dialog_left_open_fails_its_test_and_the_run_goes_on(pytester):
    conftest = (Path(__file__).parent.parent / "conftest.py").read_text()
    assert "MODAL_PATIENCE_MS = 20_000" in conftest
    pytester.makeconftest(conftest.replace("MODAL_PATIENCE_MS = 20_000", "MODAL_PATIENCE_MS = 500"))
    pytester.makepyfile(test_forgetful=_FORGETFUL)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:hypothesispytest", timeout=120)
    result.assert_outcomes(failed=2, passed=1)
    result.stdout.fnmatch_lines(["*test_a_warning_nobody_answers*", "*a modal dialog waited 0.5 s for a person*",
                                 "*'Import failed' 'The import stopped: something broke'*"])
    result.stdout.fnmatch_lines(["*test_a_question_nobody_answers*", "*'Reviewer name'*"])
