"""Import, export, new-skill and delete actions, driven through their real widgets."""

from pathlib import Path

import pytest
from conftest import SCREENSHOTS
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from skill_studio.core.format.templates import new_skill_md
from skill_studio.core.format.validate import validate_text
from skill_studio.core.library.folder_write import export_archive
from skill_studio.core.library.importer import ImportEntry, ImportReport
from skill_studio.core.ops.skills import new_name_problem
from skill_studio.ui.library.import_flow import ImportReportDialog, ImportRunner, report_text, run_import
from skill_studio.ui.library.skill_actions import NewSkillDialog, export_skills

SHOTS = SCREENSHOTS


def make_skill(root: Path, name: str, description: str | None = None, body: str = "Do the thing.\n") -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    description = description or f"Handles {name} work. Use when the user asks for {name}."
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n\n{body}")
    return folder


def make_tree(root: Path, count: int) -> Path:
    for i in range(count):
        make_skill(root / f"group-{i % 5}", f"skill-{i:03d}")
    return root


@pytest.fixture
def empty_store(tmp_path):
    """A second, empty store (the ``store`` fixture shares its file with ``seeded_store``)."""
    from skill_studio.core.store import Store

    with Store(tmp_path / "empty.db", actor="tester") as s:
        yield s


def mixed_report() -> ImportReport:
    return ImportReport([
        ImportEntry("/lib/alpha/SKILL.md", "imported", "alpha"),
        ImportEntry("/lib/beta/SKILL.md", "imported", "beta",
                    warnings=["name differs from the folder name"]),
        ImportEntry("/lib/gamma/SKILL.md", "updated", "gamma"),
        ImportEntry("/lib/delta/SKILL.md", "unchanged", "delta"),
        ImportEntry("/lib/broken/SKILL.md", "skipped",
                    reason="/lib/broken/SKILL.md:3:1: description is missing or empty; "
                           "a skill needs one to be loaded"),
        ImportEntry("/lib/Odd Name/SKILL.md", "imported", "odd-name",
                    strict_errors=["Directory name 'Odd Name' must match skill name 'odd-name'"]),
    ])


# --- import -------------------------------------------------------------------

def test_runner_imports_a_tree(qtbot, store, tmp_path):
    make_tree(tmp_path / "lib", 6)
    (tmp_path / "lib" / "bad").mkdir()
    (tmp_path / "lib" / "bad" / "SKILL.md").write_text("no frontmatter here\n")
    runner = ImportRunner(store)
    with qtbot.waitSignal(runner.finished, timeout=10_000) as blocker:
        runner.start([str(tmp_path / "lib")], "human")
    report = blocker.args[0]
    assert report.summary == "6 imported, 0 updated, 0 unchanged, 1 skipped"
    assert sorted(store.names()) == [f"skill-{i:03d}" for i in range(6)]
    assert not runner.is_running()

    with qtbot.waitSignal(runner.finished, timeout=10_000) as again:
        runner.start([str(tmp_path / "lib")])
    assert again.args[0].summary == "0 imported, 0 updated, 6 unchanged, 1 skipped"


def test_runner_reports_progress_and_cancel_stops_early(qtbot, store, tmp_path, monkeypatch):
    import skill_studio.ui.library.import_flow as flow

    make_tree(tmp_path / "lib", 50)
    runner = ImportRunner(store)
    real = flow.import_paths

    def paced(store_, paths, *, progress, **kwargs):   # the worker waits for the window to answer
        def after_the_window(done, source):
            going_on = progress(done, source)
            if done == 1:
                runner._cancelled.wait(10)
            return going_on and not runner._cancelled.is_set()
        return real(store_, paths, progress=after_the_window, **kwargs)

    monkeypatch.setattr(flow, "import_paths", paced)
    runner.progressed.connect(runner.cancel)  # cancel as soon as the first progress arrives
    seen = []
    runner.progressed.connect(lambda done, source: seen.append((done, source)))
    with qtbot.waitSignal(runner.finished, timeout=10_000) as blocker:
        runner.start([str(tmp_path / "lib")])
    report = blocker.args[0]
    assert seen and seen[0][0] == 1 and seen[0][1].endswith("SKILL.md")
    assert report.count("imported") < 50
    assert len(store.names()) == report.count("imported")


def test_cancel_before_the_first_skill_keeps_only_that_one(qtbot, store, tmp_path):
    make_tree(tmp_path / "lib", 10)
    runner = ImportRunner(store)
    with qtbot.waitSignal(runner.finished, timeout=10_000) as blocker:
        runner.start([str(tmp_path / "lib")])
        runner.cancel()
    assert blocker.args[0].summary == "1 imported, 0 updated, 0 unchanged, 0 skipped"
    assert len(store.names()) == 1


def test_runner_emits_failed_when_the_import_breaks(qtbot, store, tmp_path):
    make_tree(tmp_path / "lib", 2)
    store.close()
    runner = ImportRunner(store)
    with qtbot.waitSignal(runner.failed, timeout=10_000) as blocker:
        runner.start([str(tmp_path / "lib")])
    assert blocker.args[0]


def test_zip_archive_imports(qtbot, seeded_store, empty_store, tmp_path):
    store = empty_store
    archive = export_archive(seeded_store.get("changelog-writer"), tmp_path / "zips")
    assert archive.suffix == ".zip"
    runner = ImportRunner(store)
    with qtbot.waitSignal(runner.finished, timeout=10_000) as blocker:
        runner.start([str(archive)])
    assert blocker.args[0].summary == "1 imported, 0 updated, 0 unchanged, 0 skipped"
    assert store.get("changelog-writer").skill_md == seeded_store.get("changelog-writer").skill_md


def test_run_import_waits_and_hands_over_the_report(qtbot, store, tmp_path):
    make_tree(tmp_path / "lib", 3)
    shown = []
    report = run_import(None, store, [str(tmp_path / "lib")],
                        show_report=lambda parent, r: shown.append(r))
    assert report is not None and report.count("imported") == 3
    assert shown == [report]


def test_run_import_failure_is_shown_and_returns_none(qtbot, store, tmp_path):
    make_tree(tmp_path / "lib", 1)
    store.close()
    messages = []
    result = run_import(None, store, [str(tmp_path / "lib")], show_report=None,
                        show_message=lambda parent, title, text: messages.append(text))
    assert result is None
    assert messages and messages[0].startswith("The import stopped")


def test_report_dialog_rows_marking_and_copy(qtbot, qtmodeltester):
    report = mixed_report()
    dialog = ImportReportDialog(report)
    qtbot.addWidget(dialog)
    dialog.show()
    model = dialog.table.model()
    qtmodeltester.check(model)
    assert dialog.summary_label.text() == "3 imported, 1 updated, 1 unchanged, 1 skipped"
    assert model.rowCount() == len(report.entries)
    skipped_row = 4
    assert model.index(skipped_row, 0).data() == "skipped"
    assert model.index(skipped_row, 0).data(Qt.DecorationRole) is not None
    assert model.index(skipped_row, 0).data(Qt.BackgroundRole) is not None
    assert model.index(0, 0).data(Qt.BackgroundRole) is None
    assert model.index(skipped_row, 3).data().startswith("line 3: description is missing")

    SHOTS.mkdir(parents=True, exist_ok=True)
    assert dialog.grab().save(str(SHOTS / "import-report.png"))

    QApplication.clipboard().clear()
    qtbot.mouseClick(dialog.copy_button, Qt.LeftButton)
    text = QApplication.clipboard().text()
    assert report.summary in text
    assert "description is missing" in text and "strict: Directory name" in text
    assert text == report_text(report)


def test_report_cells_are_cut_with_the_whole_text_in_their_tooltip(qtbot):
    """At the size the report opens (on a 1024x700 screen and larger) every cell that does not fit
    is cut with an ellipsis and its tooltip holds its whole text: status, name, source, details."""
    from layout_fit import fit_problems
    from PySide6.QtCore import QSize

    long_name = "a-very-long-skill-name-that-goes-on-" + "and-on-" * 6 + "end"
    deep = "/home/someone/work/" + "nested/" * 12 + "SKILL.md"
    report = ImportReport([
        ImportEntry(deep, "skipped", reason=f"{deep}:7:3: description is missing or empty; a skill needs one "
                    "to be loaded, and " + "this reason goes on and on " * 8 + "until the end"),
        ImportEntry("/lib/x/SKILL.md", "imported", long_name, warnings=["name differs from the folder name " * 6]),
    ])
    for size in (QSize(1024, 700), QSize(1280, 800)):
        dialog = ImportReportDialog(report)
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        assert fit_problems(dialog, size) == []
        table, model = dialog.table, dialog.model
        cut = 0
        for row in range(model.rowCount()):
            for col in range(model.columnCount()):
                index = model.index(row, col)
                whole = "\n".join(model.entry(row).warnings) if col == 3 and row == 1 else index.data()
                width = table.fontMetrics().horizontalAdvance(index.data())
                if width > table.columnWidth(col) - 8:
                    cut += 1
                    tip = index.data(Qt.ToolTipRole)
                    assert tip and (whole in tip or whole.split("; ")[0] in tip), (row, col, tip)
        assert cut >= 3, "the long name, source and details are cut"
        assert table.columnWidth(3) >= 200, "the details keep room to be read"
        assert report.entries[0].reason.split(": ", 1)[1].startswith("description is missing")


def test_file_import_offers_folders_and_archives(qtbot, seeded_store, empty_store, tmp_path, monkeypatch):
    """File ▸ Import: archives (.zip and .skill) picked in the dialog go through the same import as
    a drop; so does a folder."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QFileDialog

    from skill_studio.ui.settings import StudioSettings
    from skill_studio.ui.shell import window_actions
    from skill_studio.ui.shell.main_window import MainWindow

    zipped = export_archive(seeded_store.get("changelog-writer"), tmp_path / "zips")
    skill_file = export_archive(seeded_store.get("shell-script-hardening"), tmp_path / "zips")
    skill_file = skill_file.rename(skill_file.with_suffix(".skill"))
    folder = make_skill(tmp_path / "lib", "folder-skill")
    asked = {}

    def open_files(parent, caption, start, filters):
        asked["filters"] = filters
        return [str(zipped), str(skill_file)], filters

    monkeypatch.setattr(QFileDialog, "getOpenFileNames", staticmethod(open_files))
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a: str(folder)))
    chooser = window_actions.ImportChooser()
    qtbot.addWidget(chooser)
    chooser.archive_button.click()
    assert chooser.result() == chooser.DialogCode.Accepted and chooser.paths == [str(zipped), str(skill_file)]
    assert "*.zip" in asked["filters"] and "*.skill" in asked["filters"]

    w = MainWindow(empty_store, StudioSettings(QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat)))
    qtbot.addWidget(w)
    reports = []
    w.feature("window")._show_import_report = lambda parent, report: reports.append(report)
    for button in ("archive_button", "folder_button"):
        monkeypatch.setattr(window_actions.ImportChooser, "exec",
                            lambda self, b=button: getattr(self, b).click() or int(self.result()))
        w.actions["import"].trigger()
    assert [r.summary for r in reports] == ["2 imported, 0 updated, 0 unchanged, 0 skipped",
                                            "1 imported, 0 updated, 0 unchanged, 0 skipped"]
    assert {"changelog-writer", "shell-script-hardening", "folder-skill"} <= set(empty_store.names())


# --- export -------------------------------------------------------------------

def test_export_folders_and_zips_are_byte_identical(qtbot, seeded_store, empty_store, tmp_path):
    store = empty_store
    names = ["changelog-writer", "shell-script-hardening"]
    written = export_skills(None, seeded_store, names, dest=str(tmp_path / "out"))
    assert written == [str(tmp_path / "out" / n) for n in names]
    for name in names:
        skill = seeded_store.get(name)
        assert (tmp_path / "out" / name / "SKILL.md").read_bytes() == skill.skill_md.encode("utf-8")
        for f in skill.files:
            assert (tmp_path / "out" / name / f.path).read_bytes() == f.data

    zips = export_skills(None, seeded_store, names, dest=str(tmp_path / "zips"), as_zip=True)
    assert zips == [str(tmp_path / "zips" / f"{n}.zip") for n in names]
    runner = ImportRunner(store)
    with qtbot.waitSignal(runner.finished, timeout=10_000) as blocker:
        runner.start(zips)
    assert blocker.args[0].summary == "2 imported, 0 updated, 0 unchanged, 0 skipped"
    for name in names:
        assert store.get(name).skill_md == seeded_store.get(name).skill_md


def test_export_refuses_two_skills_in_one_folder(seeded_store, tmp_path):
    skill = seeded_store.get("csv-cleanup")
    skill.name, skill.folder_name = "csv-cleanup-copy", "csv-cleanup"
    seeded_store.add(skill)
    messages = []
    written = export_skills(None, seeded_store, ["csv-cleanup", "csv-cleanup-copy"], dest=str(tmp_path / "out"),
                            show_message=lambda parent, title, text: messages.append(text))
    assert written == []
    assert not (tmp_path / "out").exists()
    assert "csv-cleanup, csv-cleanup-copy" in messages[0]


def test_export_names_the_skill_that_failed(seeded_store, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "pdf-extract").write_text("a file where the folder should go")
    messages = []
    written = export_skills(None, seeded_store, ["pdf-extract", "csv-cleanup"], dest=str(out),
                            show_message=lambda parent, title, text: messages.append(text))
    assert written == [str(out / "csv-cleanup")]
    assert '"pdf-extract"' in messages[0] and "not a folder" in messages[0]


# --- new skill ------------------------------------------------------------------

@pytest.mark.parametrize("name, ok", [
    ("pdf-form-filler", True), ("a", True), ("x" * 64, True), ("x" * 65, False), ("", False),
    ("Upper", False), ("under_score", False), ("-lead", False), ("trail-", False), ("two--hyphens", False),
    ("changelog-writer", False),
])
def test_name_rules(seeded_store, name, ok):
    assert (new_name_problem(seeded_store, name) is None) == ok


def test_new_skill_dialog_checks_the_name_live(qtbot, seeded_store):
    dialog = NewSkillDialog(seeded_store)
    qtbot.addWidget(dialog)
    dialog.show()
    assert not dialog.ok_button.isEnabled()
    qtbot.keyClicks(dialog.description_edit, "Fills PDF forms. Use when a form must be filled in.")
    qtbot.keyClicks(dialog.name_edit, "changelog-writer")
    assert not dialog.ok_button.isEnabled()
    assert "already exists" in dialog.name_message.text()
    dialog.name_edit.setText("Bad_Name")
    assert not dialog.ok_button.isEnabled()
    assert "lowercase" in dialog.name_message.text()
    SHOTS.mkdir(parents=True, exist_ok=True)
    assert dialog.grab().save(str(SHOTS / "new-skill-invalid.png"))

    dialog.name_edit.setText("pdf-form-filler")
    assert dialog.ok_button.isEnabled()
    dialog.description_edit.setPlainText("")
    assert not dialog.ok_button.isEnabled()
    assert dialog.counter.text().startswith("0 / 1024")
    dialog.description_edit.setPlainText("x" * 1025)
    assert not dialog.ok_button.isEnabled()
    assert dialog.counter.text() == "1025 / 1024"


def test_new_skill_dialog_creates_a_strictly_valid_skill(qtbot, seeded_store):
    dialog = NewSkillDialog(seeded_store)
    qtbot.addWidget(dialog)
    dialog.show()
    description = 'Fills PDF forms: "quoted", {name} and # hashes.\nUse when a form must be filled in.'
    dialog.name_edit.setText("pdf-form-filler")
    dialog.description_edit.setPlainText(description)
    with qtbot.waitSignal(dialog.accepted, timeout=2_000):
        qtbot.mouseClick(dialog.ok_button, Qt.LeftButton)
    assert dialog.created_name() == "pdf-form-filler"
    skill = seeded_store.get("pdf-form-filler")
    assert skill.description == description
    assert skill.origin.value == "human"
    errors = [d for d in validate_text(skill.skill_md, "pdf-form-filler", "strict", lints=False)
              if d.severity == "error"]
    assert errors == []
    assert "## When to use" in skill.skill_md and "## Steps" in skill.skill_md and "## Examples" in skill.skill_md
    assert "# pdf-form-filler" in skill.skill_md
    assert "{name} and # hashes" in skill.content  # a placeholder inside a value is left alone


def test_template_fills_only_its_placeholders():
    text = new_skill_md("demo", "Says {description} literally. Use when testing.")
    assert text.startswith("---\nname: demo\ndescription: ")
    assert "Says {description} literally" in text
    assert "{name}" not in text


def test_new_skill_dialog_uses_the_chosen_template_and_the_folder_follows_the_name(qtbot, seeded_store):
    dialog = NewSkillDialog(seeded_store)
    qtbot.addWidget(dialog)
    dialog.show()
    labels = [dialog.template_combo.itemText(i) for i in range(dialog.template_combo.count())]
    assert labels == ["Blank", "Script-backed", "Reference-heavy"]
    dialog.template_combo.setCurrentIndex(1)
    assert "scripts/run.sh" in dialog.template_summary.text()
    qtbot.keyClicks(dialog.name_edit, "csv-runner")
    assert dialog.folder_label.text().startswith("csv-runner/")
    dialog.description_edit.setPlainText("Runs a CSV check. Use when a CSV arrives.")
    with qtbot.waitSignal(dialog.accepted, timeout=2_000):
        qtbot.mouseClick(dialog.ok_button, Qt.LeftButton)
    skill = seeded_store.get("csv-runner")
    assert [(f.path, f.mode) for f in skill.files] == [("scripts/run.sh", 0o755)]
    assert skill.folder_name == "csv-runner" and "scripts/run.sh INPUT" in skill.content
    assert seeded_store.versions("csv-runner")[0].note == "created from the script-backed template"
