"""The detail panel and the stats bar show what the store holds; links lead to related skills."""


import pytest
from conftest import SCREENSHOTS
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QLabel

from skill_studio.core.model import Skill
from skill_studio.core.store import Filters
from skill_studio.ui import theme
from skill_studio.ui.library.detail_panel import EMPTY_TEXT, MISSING_TIP, DetailPanel
from skill_studio.ui.library.stats_bar import StatsBar, summary

SHOTS = SCREENSHOTS


@pytest.fixture
def panel(qtbot, seeded_store):
    widget = DetailPanel(seeded_store)
    qtbot.addWidget(widget)
    widget.resize(360, 800)
    return widget


def names_in(panel, key):
    return [name for name, _ in panel.relations[key]]


def test_panel_shows_name_trust_and_lifecycle(panel):
    panel.show_skill("release-notes")
    assert panel.skill_name == "release-notes"
    assert panel.plain_text("name") == "release-notes"
    assert panel.plain_text("trust") == "★★★☆ Trusted"
    assert panel.plain_text("lifecycle") == "Released"
    assert "human" in panel.plain_text("meta") and "version" in panel.plain_text("meta")
    assert panel.labels["description"].wordWrap()


def test_panel_lists_dependencies_and_dependents(panel):
    panel.show_skill("release-notes")
    assert names_in(panel, "depends_on") == ["changelog-writer"]
    panel.show_skill("changelog-writer")
    assert names_in(panel, "dependents") == ["release-notes"]
    assert names_in(panel, "depends_on") == ["git-commit-message"]
    panel.show_skill("security-review")
    assert names_in(panel, "parent") == ["code-review-checklist"]
    assert names_in(panel, "depends_on") == ["code-review-checklist", "shell-script-hardening"]
    panel.show_skill("code-review-checklist")
    assert names_in(panel, "dependents") == ["python-test-writer", "security-review"]


def test_clicking_a_dependency_emits_its_name(qtbot, panel):
    panel.show()
    panel.show_skill("release-notes")
    link = panel.findChild(QLabel, "link:depends_on:changelog-writer")
    assert link is not None and link.isVisible()
    with qtbot.waitSignal(panel.skillLinkActivated, timeout=1000) as blocker:
        qtbot.mouseClick(link, Qt.LeftButton, pos=QPoint(8, link.height() // 2))
    assert blocker.args == ["changelog-writer"]


def test_missing_dependency_is_shown_as_missing(panel, seeded_store):
    seeded_store.add(Skill(name="orphan", description="Depends on a skill nobody wrote.",
                           depends_on=["ghost-skill", "release-notes"],
                           skill_md="---\nname: orphan\ndescription: Depends on a skill nobody wrote.\n---\nBody\n"))
    panel.show_skill("orphan")
    assert panel.relations["depends_on"] == [("ghost-skill", False), ("release-notes", True)]
    missing = panel.labels["link:depends_on:ghost-skill"]
    assert missing.toolTip() == MISSING_TIP
    assert "line-through" in missing.text() and "href" not in missing.text()
    assert "href" in panel.labels["link:depends_on:release-notes"].text()


def test_validation_passes_for_a_valid_sample(panel):
    panel.show_skill("release-notes")
    assert panel.plain_text("validation").endswith("Passes the strict profile")


def test_validation_reports_the_first_messages(panel):
    panel.show_skill("git-commit-message")   # its body names scripts/run.sh, which it lacks
    assert "1 warning" in panel.plain_text("validation")
    messages = [lab.text() for key, lab in panel.labels.items() if key.startswith("diag:")]
    assert any("line 76" in m and "scripts/run.sh" in m for m in messages)


def test_files_list_marks_executables(panel):
    panel.show_skill("shell-script-hardening")
    assert panel.plain_text("file:SKILL.md") == "SKILL.md"
    assert panel.plain_text("file:scripts/run.sh") == "scripts/run.sh"
    assert "executable" in panel.plain_text("filesize:scripts/run.sh")
    assert "executable" not in panel.plain_text("filesize:SKILL.md")


def test_empty_state(panel):
    panel.show_skill("release-notes")
    panel.show_skill(None)
    assert panel.skill_name is None
    assert panel.plain_text("empty") == EMPTY_TEXT
    assert panel.plain_text("name") == ""
    panel.show_skill("no-such-skill")
    assert panel.plain_text("empty") == EMPTY_TEXT


def test_stats_bar_shows_library_and_view(qtbot, seeded_store):
    bar = StatsBar(seeded_store)
    qtbot.addWidget(bar)
    library = seeded_store.stats()
    bar.update_stats(Filters())
    assert bar.text() == "Library: " + summary(library)
    assert bar.text() == (f"Library: {library['total']} skills · {library['active']} active · "
                          f"{library['awaiting_review']} awaiting review")
    assert f"Average success {library['avg_success_rate']:.0%}" in bar.library_label.toolTip()
    released = seeded_store.stats(Filters(lifecycle="released"))
    bar.update_stats(Filters(lifecycle="released"))
    assert bar.text() == f"Library: {summary(library)}   |   This view: {summary(released)}"
    assert f"This view: {released['total']} skills · {released['active']} active" in bar.text()


def test_screenshots(qtbot, seeded_store):
    SHOTS.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance()
    panel = DetailPanel(seeded_store)
    bar = StatsBar(seeded_store)
    for w in (panel, bar):
        qtbot.addWidget(w)
    panel.resize(360, 800)
    bar.resize(1000, 30)
    narrow = StatsBar(seeded_store)
    qtbot.addWidget(narrow)
    narrow.resize(640, 30)
    try:
        for mode, tokens in (("light", theme.LIGHT), ("dark", theme.DARK)):
            theme.apply_theme(app, tokens)
            bar.update_stats(Filters(lifecycle="released"))
            assert bar.grab().save(str(SHOTS / f"stats_bar_{mode}.png"))
            narrow.update_stats(Filters(lifecycle="released"))
            assert narrow.grab().save(str(SHOTS / f"stats_bar_narrow_{mode}.png"))
            for name in ("release-notes", "shell-script-hardening", "security-review"):
                panel.show_skill(name)
                panel.show()
                qtbot.waitUntil(lambda name=name: panel.isVisible() and panel.skill_name == name, timeout=5000)
                QApplication.processEvents()   # pending layouts and repaints, before the picture
                assert panel.grab().save(str(SHOTS / f"detail_{name}_{mode}.png"))
    finally:
        theme.apply_theme(app, theme.LIGHT)
