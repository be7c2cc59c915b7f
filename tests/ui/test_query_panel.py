"""Try a query: typing a query shows the ranked skills with their breakdown, the strategy switch,
the skills the gate keeps out with the rule, the prompt block copied, and the tab in the window;
a screenshot for a person to look at."""

from __future__ import annotations

import pytest
from conftest import SCREENSHOTS, shown_window
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication

from skill_studio.core.agents import matching
from skill_studio.core.agents.prompt import available_skills_block, skill_md_location, with_warning
from skill_studio.core.ops.changes import ChangeSet
from skill_studio.ui.agents.query_panel import COLUMNS, QueryPanel
from skill_studio.ui.settings import StudioSettings
from skill_studio.ui.shell.main_window import MainWindow


@pytest.fixture
def panel(qtbot, seeded_store):
    p = QueryPanel(seeded_store)
    qtbot.addWidget(p)
    p.resize(1100, 640)
    p.show()
    qtbot.waitExposed(p)
    copied = []
    p.copy_text = copied.append
    p.copied = copied
    return p


def column(table, name):
    c = (COLUMNS.index(name) if table.columnCount() == len(COLUMNS) else
         [table.horizontalHeaderItem(i).text() for i in range(table.columnCount())].index(name))
    return [table.item(r, c).text() for r in range(table.rowCount())]


def test_typing_a_query_ranks_skills_with_their_breakdown(panel, qtbot):
    assert panel.strategy.currentData() == matching.DEFAULT_STRATEGY == "fused"
    qtbot.keyClicks(panel.query, "extract text from a pdf")
    qtbot.waitUntil(lambda: panel.matches.rowCount() > 0, timeout=3000)
    assert column(panel.matches, "Skill")[0] == "pdf-extract"
    assert column(panel.matches, "#")[0] == "1"
    relevance, prior, score = (float(column(panel.matches, k)[0]) for k in ("Relevance", "Prior", "Score"))
    assert score == pytest.approx(relevance * prior, abs=2e-3)
    assert 0.8 <= prior <= 1.0
    assert "may see" in panel.status.text() and panel.result.strategy == "fused"
    assert "ranked by fused relevance" in panel.status.text()
    panel.grab().save(str(SCREENSHOTS / "query-panel.png"))


def test_the_breakdown_columns_show_lexical_rank_relevance_and_prior(panel, seeded_store):
    panel.set_query("extract text from a pdf")
    result = matching.match(seeded_store, "extract text from a pdf", 25, "fused")
    assert [m.name for m in panel.result.matches] == [m.name for m in result.matches]
    shown = panel.result.matches
    for row, m in enumerate(shown):
        cells = {name: panel.matches.item(row, COLUMNS.index(name)) for name in COLUMNS}
        assert cells["Skill"].text() == m.name
        assert cells["Found by"].text() == m.found_by
        assert cells["Words rank"].text() == (str(m.lexical_rank) if m.lexical_rank is not None else "–")
        assert float(cells["Relevance"].text()) == pytest.approx(m.relevance, abs=5e-4)
        assert float(cells["Prior"].text()) == pytest.approx(m.prior, abs=5e-4)
        assert f"{m.relevance:.6f}" in cells["Relevance"].toolTip()
        prior_tip = cells["Prior"].toolTip()
        assert "0.8 + 0.2 × utility × freshness" in prior_tip
        assert f"{m.utility:.3f}" in prior_tip and f"{m.freshness:.3f}" in prior_tip
        assert f"{m.prior:.6f}" in prior_tip
        if m.lexical_rank is not None:
            assert f"place {m.lexical_rank} in the full-text ranking" in cells["Words rank"].toolTip()
    top = shown[0]
    assert top.lexical_rank == 1 and "words" in top.found_by


def test_the_strategy_switch_and_the_excluded_skills(panel, qtbot, seeded_store):
    labels = {panel.strategy.itemData(i): panel.strategy.itemText(i) for i in range(panel.strategy.count())}
    assert list(labels) == list(matching.STRATEGIES)
    tips = {panel.strategy.itemData(i): panel.strategy.itemData(i, Qt.ToolTipRole)
            for i in range(panel.strategy.count())}
    assert tips["fused"].startswith("Relevance first, from the query's words and its meaning together")
    assert tips["product"] == "The first ranking: similarity × utility × freshness"
    assert all("prior" not in tip for tip in tips.values())   # plain words, not the ranking's terms
    header = {panel.matches.horizontalHeaderItem(c).text(): panel.matches.horizontalHeaderItem(c).toolTip()
              for c in range(panel.matches.columnCount())}
    assert all(header[name] for name in header if name != "Skill" and name != "Note")
    panel.set_query("write python tests with pytest", "keywords")
    assert panel.result.strategy == "keywords" and "ranked by words" in panel.status.text()
    assert all(t != "–" for t in column(panel.matches, "Words rank"))
    excluded = dict(zip(column(panel.excluded, "Skill"), column(panel.excluded, "Why agents do not see it")))
    assert excluded["python-test-writer"] == "lifecycle is candidate (not exposed)"
    assert panel.excluded_label.text().startswith("Kept out by the gate: ")
    panel.strategy.setCurrentIndex(panel.strategy.findData("vectors"))
    assert panel.result.strategy == "vectors" and "ranked by vectors" in panel.status.text()
    assert all(float(s) > matching.MIN_SIMILARITY for s in column(panel.matches, "Similarity"))
    assert set(column(panel.matches, "Words rank")) <= {"–"}
    assert panel.strategy.toolTip() == tips["vectors"]
    panel.set_query("extract text from a pdf", "product")
    assert panel.result.strategy == "product" and "seed product" in panel.status.text()
    top = panel.result.matches[0]
    score = float(column(panel.matches, "Score")[0])
    assert score == pytest.approx(top.similarity * top.utility * top.freshness, abs=2e-3)
    assert "similarity × utility × freshness" in panel.matches.item(0, COLUMNS.index("Score")).toolTip()
    panel.set_query("write python tests with pytest", "auto")   # the old name of the default
    assert panel.result.strategy == "fused" and panel.strategy.currentData() == "fused"
    panel.query.clear()
    panel.run()
    assert panel.matches.rowCount() == 0 and panel.excluded.rowCount() == 0


def test_the_columns_fit_at_1024_wide(panel, qtbot):
    panel.resize(1024, 640)
    panel.set_query("extract text from a pdf")
    QApplication.processEvents()   # the layout follows the new width
    assert panel.width() == 1024 and panel.matches.rowCount() > 0
    for table in (panel.matches, panel.excluded):
        header = table.horizontalHeader()
        metrics = header.fontMetrics()
        for c in range(table.columnCount()):
            text = table.horizontalHeaderItem(c).text()
            assert header.sectionSize(c) >= metrics.horizontalAdvance(text) + 8, text
        assert header.length() <= table.viewport().width() + 1


def test_copy_prompt_block_of_the_gated_set(panel, seeded_store):
    from skill_studio.core.agents import matching

    block = panel.copy_prompt()
    entries = [e for e in matching.gate(seeded_store) if e.passed]
    gated = [seeded_store.get(e.name) for e in entries]
    warnings = {e.name: e.warning for e in entries}
    assert any(warnings.values())     # the samples hold a degraded skill: its warning travels with it
    expected = available_skills_block([(s.name, with_warning(s.description, warnings[s.name]),
                                        skill_md_location(s)) for s in gated if skill_md_location(s)])
    assert panel.copied == [block] and block == expected and block.count("<skill>") == len(gated)
    assert "python-test-writer" not in block and "(Warning: degraded: shown with a warning)" in block
    assert f"Copied the prompt block of {len(gated)} skill(s)" in panel.status.text()


def test_the_window_tab_follows_the_store(qtbot, seeded_store, tmp_path):
    w = shown_window(qtbot, seeded_store, tmp_path, (1300, 820))
    w.actions["try_query"].trigger()
    panel = w.feature("agents").query
    assert w.workspace.currentWidget() is panel
    panel.set_query("pdf tables", "keywords")
    assert "pdf-extract" in column(panel.matches, "Skill")
    seeded_store.set_state("pdf-extract", lifecycle="deprecated")
    w.publish(ChangeSet.of(changed={"pdf-extract"}))
    assert "pdf-extract" not in column(panel.matches, "Skill")
    assert "pdf-extract" in column(panel.excluded, "Skill")
    panel.set_query("release notes from the git log", "keywords")
    panel.matches.selectRow(0)
    QApplication.processEvents()
    assert w.browser.selected_names() == [column(panel.matches, "Skill")[0]]
    w.workspace.removeTab(w.workspace.indexOf(panel))
    w.actions["try_query"].trigger()
    assert w.feature("agents").query.isVisible() or w.workspace.currentWidget() is w.feature("agents").query
    qtbot.keyClick(w.feature("agents").query.query, Qt.Key_Escape)


def test_the_install_dialog(qtbot, seeded_store, tmp_path):
    from skill_studio.core.agents import matching
    from skill_studio.core.library import install
    from skill_studio.ui.agents.install_dialog import InstallDialog

    target = tmp_path / "agent" / "skills"
    dialog = InstallDialog(seeded_store, None, [str(target)])
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert dialog.target() == str(target)
    gated = matching.gated(seeded_store)
    assert dialog.checked() == gated and dialog.count.text() == f"{len(gated)} ticked"
    disabled = [dialog.skills.item(i).text() for i in range(dialog.skills.count())
                if not dialog.skills.item(i).flags() & Qt.ItemIsEnabled]
    assert "python-test-writer — lifecycle is candidate (not exposed)" in disabled
    two = [n for n in gated if seeded_store.get(n).origin.value != "builtin"][:2]
    dialog.set_checked(two)
    qtbot.mouseClick(dialog.install_button, Qt.LeftButton)
    assert dialog.last_report.installed == two and "Installed 2" in dialog.message.text()
    assert dialog.installed.rowCount() == 2 and dialog.installed.item(0, 1).text() == "current"
    assert not dialog.link_warning.isVisible()
    dialog.link.setChecked(True)
    assert dialog.link_warning.isVisible() and "change the library" in dialog.link_warning.text()
    dialog.copy.setChecked(True)
    name = two[0]
    skill = seeded_store.get(name)
    from conftest import make
    seeded_store.update(name, make(name, skill.description + " Changed."), skill.version)
    dialog.refresh_status()
    assert dialog.installed.item(0, 1).text() == "stale" and dialog.update_button.isEnabled()
    QApplication.processEvents()   # the layout follows the hidden warning
    dialog.grab().save(str(SCREENSHOTS / "install-dialog.png"))
    qtbot.mouseClick(dialog.update_button, Qt.LeftButton)
    assert [r.state for r in install.status(seeded_store, target)] == ["current", "current"]
    assert dialog.message.text().startswith("Updated: every installed skill is current")
    saved = tmp_path / "out" / "descriptor.json"
    dialog.save_path = lambda start: str(saved)
    assert dialog.export_descriptor() == str(saved)
    import json
    assert json.loads(saved.read_text())["agents_config"]["default"]["enabled"] == sorted(two)   # what is there
    dialog.set_checked([])
    dialog.prune.setChecked(True)
    assert dialog.install_button.isEnabled()
    qtbot.mouseClick(dialog.install_button, Qt.LeftButton)
    assert sorted(dialog.last_report.removed) == sorted(two) and install.status(seeded_store, target) == []


def test_the_install_action_remembers_the_folder(qtbot, seeded_store, tmp_path, monkeypatch):
    from skill_studio.ui.agents import install_dialog

    settings = StudioSettings(QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat))
    w = MainWindow(seeded_store, settings)
    qtbot.addWidget(w)
    target = str(tmp_path / "skills")

    def run(self):
        self.folder.setCurrentText(target)
        self.do_install()
        return 0
    monkeypatch.setattr(install_dialog.InstallDialog, "exec", run)
    w.actions["install_skills"].trigger()
    assert settings.install_folders == [target] and (tmp_path / "skills" / "release-notes" / "SKILL.md").is_file()


def test_copy_prompt_block_of_the_selection(qtbot, seeded_store, tmp_path):
    from skill_studio.core.agents import matching
    from skill_studio.core.agents.prompt import prompt_for

    settings = StudioSettings(QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat))
    w = MainWindow(seeded_store, settings)
    qtbot.addWidget(w)
    copied = []
    w.feature("agents").copy_text = copied.append
    w.browser.select_name("pdf-extract")
    w.actions["copy_prompt"].trigger()
    assert copied == [prompt_for(seeded_store, ["pdf-extract"])[0]] and copied[0].count("<skill>") == 1
    w.browser.select_names([])
    w.actions["copy_prompt"].trigger()
    assert copied[-1].count("<skill>") == len(matching.gated(seeded_store))
