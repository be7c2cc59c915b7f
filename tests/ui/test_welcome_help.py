"""The welcome page of the first start, and the Help menu: Getting started, the keyboard shortcuts
(listed from the window's actions) and what the words mean (from the core's vocabularies)."""

from __future__ import annotations

import pytest
from layout_fit import fit_problems
from PySide6.QtCore import QEvent, QSettings, QSize
from PySide6.QtWidgets import QApplication

from skill_studio.core.health import checks
from skill_studio.core.model import (
    LIFECYCLE_TERMS,
    SCORE_TERMS,
    TRUST_TERMS,
    Lifecycle,
    Origin,
    TrustTier,
)
from skill_studio.ui import theme
from skill_studio.ui.settings import StudioSettings
from skill_studio.ui.shell.feature import ActionSpec, Feature
from skill_studio.ui.shell.features import FEATURES
from skill_studio.ui.shell.help import GlossaryPage, GlossaryView, glossary
from skill_studio.ui.shell.main_window import MainWindow
from skill_studio.ui.shell.welcome import WelcomeFeature, WelcomePage
from skill_studio.ui.shell.window_actions import WindowActions


@pytest.fixture
def first_start(monkeypatch):
    """Windows made in this test behave as a real start does (the welcome opens if never shown)."""
    monkeypatch.setattr(WelcomeFeature, "opens_at_first_start", True)


def _window(qtbot, store, ini, size=(1024, 700), features=None):
    window = MainWindow(store, StudioSettings(QSettings(str(ini), QSettings.IniFormat)), features=features)
    qtbot.addWidget(window)
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    return window


def _settle(qtbot, window, size):
    window.resize(*size)
    QApplication.processEvents()
    qtbot.waitUntil(lambda: (window.width(), window.height()) == size)
    QApplication.processEvents()


# --- the first start ---------------------------------------------------------------------------

def test_the_first_start_opens_the_welcome_once(qtbot, seeded_store, tmp_path, first_start):
    ini = tmp_path / "s.ini"
    first = _window(qtbot, seeded_store, ini)
    page = first.page("welcome")
    assert isinstance(page, WelcomePage)
    assert first.workspace.currentWidget() is page        # a tab, shown, not a dialog
    assert QApplication.activeModalWidget() is None
    first.close()

    second = _window(qtbot, seeded_store, ini)
    assert second.page("welcome") is None
    assert second.workspace.currentIndex() == 0
    second.action("getting_started").trigger()            # Help › Getting started brings it back
    assert isinstance(second.page("welcome"), WelcomePage)
    assert second.workspace.currentWidget() is second.page("welcome")


def test_closing_the_welcome_keeps_it_closed_at_the_next_start(qtbot, seeded_store, tmp_path, first_start):
    ini = tmp_path / "s.ini"
    first = _window(qtbot, seeded_store, ini)
    index = first.workspace.indexOf(first.page("welcome"))
    assert first.workspace.close_designer(index)          # the tab's close button
    assert first.page("welcome") is None
    first.close()
    assert _window(qtbot, seeded_store, ini).page("welcome") is None


def test_a_window_whose_settings_saw_the_welcome_does_not_open_it(qtbot, store, tmp_path, first_start):
    settings = StudioSettings(QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat))
    settings.welcome_shown = True
    settings.sync()
    assert _window(qtbot, store, tmp_path / "s.ini").page("welcome") is None


# --- the welcome's buttons -------------------------------------------------------------------------

@pytest.mark.parametrize("button, action_id", [("import_button", "import"), ("new_button", "new_skill")])
def test_the_welcome_buttons_trigger_the_window_actions(qtbot, seeded_store, tmp_path, monkeypatch, button,
                                                        action_id):
    opened = []   # what the actions do is replaced: the file chooser and the new-skill dialog stay shut
    monkeypatch.setattr(WindowActions, "import_dialog", lambda self, *a: opened.append("import"))
    monkeypatch.setattr(WindowActions, "new_skill", lambda self, *a: opened.append("new_skill"))
    window = _window(qtbot, seeded_store, tmp_path / "s.ini")
    window.action("getting_started").trigger()
    page = window.page("welcome")
    with qtbot.waitSignal(window.action(action_id).triggered, timeout=2000):
        getattr(page, button).click()
    assert opened == [action_id]


def test_look_at_the_samples_shows_every_skill_in_the_library(qtbot, seeded_store, tmp_path):
    window = _window(qtbot, seeded_store, tmp_path / "s.ini")
    window.browser.search.setText("no skill is called this")   # a search that hides every skill
    qtbot.waitUntil(lambda: window.model.rowCount() == 0)
    window.action("getting_started").trigger()
    page = window.page("welcome")
    assert page.library_button.text() == "Look at the sample skills"
    page.library_button.click()
    assert window.workspace.currentIndex() == 0
    assert window.library_stack.currentWidget() is window.browser
    qtbot.waitUntil(lambda: window.model.rowCount() == len(seeded_store))
    assert f"shows {len(seeded_store)} skills" in window.statusBar().currentMessage()


def test_a_store_without_samples_offers_the_library(qtbot, store, tmp_path):
    window = _window(qtbot, store, tmp_path / "s.ini")
    window.action("getting_started").trigger()
    assert window.page("welcome").library_button.text() == "Look at the library"


# --- what the words mean ------------------------------------------------------------------------

def test_every_trust_tier_and_score_has_its_words_in_the_core():
    assert set(TRUST_TERMS) == set(TrustTier)
    assert all(t.meaning and TrustTier(tier).meaning == t.meaning for tier, t in TRUST_TERMS.items())
    assert all(t.label and t.meaning for t in SCORE_TERMS.values())


def test_the_glossary_explains_every_word_of_the_core():
    sections = {s.id: s for s in glossary()}
    keys = {sid: [t.key for t in s.terms] for sid, s in sections.items()}
    assert keys["lifecycle"] == [s.value for s in Lifecycle]
    assert keys["trust"] == [str(int(t)) for t in TrustTier]
    assert keys["origin"] == [o.value for o in Origin]
    assert keys["bands"] == list(checks.BAND_NAMES)
    assert set(keys["scores"]) == set(SCORE_TERMS)
    for state in Lifecycle:   # the words are the core's, written once
        term = sections["lifecycle"].terms[list(Lifecycle).index(state)]
        assert term.name == LIFECYCLE_TERMS[state].label
        assert LIFECYCLE_TERMS[state].meaning.lower() in term.meaning.lower()
    for tier in TrustTier:
        term = sections["trust"].terms[int(tier) - 1]
        assert term.name == tier.label and term.stars == int(tier)
        assert tier.meaning.lower() in term.meaning.lower()
    for section in sections.values():
        assert section.title and section.intro and all(t.name and t.meaning for t in section.terms)


def test_the_bands_follow_the_thresholds_in_force():
    cfg = {**checks.DEFAULTS, "health.low_min_uses": 8, "health.failing_rate": 0.25}
    failing = next(t for s in glossary(cfg) if s.id == "bands" for t in s.terms if t.key == checks.FAILING)
    assert "8 times" in failing.meaning and "25%" in failing.meaning
    for band, low in checks.BANDS:
        term = next(t for s in glossary(cfg) if s.id == "bands" for t in s.terms if t.key == band)
        assert (f"{low:.2f}" in term.meaning) or low == 0


def test_the_glossary_page_shows_every_state_and_tier(qtbot, store, tmp_path):
    window = _window(qtbot, store, tmp_path / "s.ini")
    window.action("glossary").trigger()
    page = window.page("glossary")
    assert isinstance(page, GlossaryPage) and window.workspace.currentWidget() is page
    text = page.view.toPlainText()
    for label in [t.label for t in LIFECYCLE_TERMS.values()] + [t.label for t in TrustTier]:
        assert label in text


def test_the_glossary_follows_the_theme(qtbot, monkeypatch):
    """Switching the theme changes the palette of every widget: the glossary paints itself again in
    the new theme's colours (badges and stars included)."""
    tokens = {"now": theme.LIGHT}
    monkeypatch.setattr(theme, "current_tokens", lambda: tokens["now"])
    view = GlossaryView(glossary())
    qtbot.addWidget(view)
    assert theme.LIGHT.text_muted in view.toHtml()
    tokens["now"] = theme.DARK
    QApplication.sendEvent(view, QEvent(QEvent.PaletteChange))
    qtbot.waitUntil(lambda: theme.DARK.text_muted in view.toHtml())
    assert theme.LIGHT.text_muted not in view.toHtml()


# --- the keyboard shortcuts -------------------------------------------------------------------------

class _Extra(Feature):
    """A feature added later: one action in a menu, one only on the window (no menu)."""

    id = "extra"

    def action_specs(self):
        from skill_studio.ui.shell.feature import at

        return [ActionSpec("extra_menu", "Something new", lambda: None, "Ctrl+Alt+N", places=(at("View", 9, 0),)),
                ActionSpec("extra_hidden", "Hidden power", lambda: None, "Ctrl+Alt+H")]


def _shortcut_ids(window) -> list[str]:
    window.action("shortcuts").trigger()
    dialog = window.feature("help").shortcuts
    assert dialog is not None and dialog.isVisible() and not dialog.isModal()
    return dialog.shown_ids()


def test_the_shortcuts_list_every_action_with_keys(qtbot, store, tmp_path):
    window = _window(qtbot, store, tmp_path / "s.ini", features=[*FEATURES, _Extra])
    ids = _shortcut_ids(window)
    expected = sorted(i for i, a in window.actions.items() if not a.shortcut().isEmpty())
    assert sorted(ids) == expected
    assert "extra_menu" in ids and "extra_hidden" in ids
    tree = window.feature("help").shortcuts.tree
    groups = {tree.topLevelItem(i).text(0): [tree.topLevelItem(i).child(j).data(0, 0x0100)
                                             for j in range(tree.topLevelItem(i).childCount())]
              for i in range(tree.topLevelItemCount())}
    assert "extra_menu" in groups["View"] and groups["Other"] == ["extra_hidden"]
    assert "shortcuts" in groups["Help"] and "getting_started" in groups["Help"]


def test_the_shortcuts_search_finds_a_command_or_a_key(qtbot, store, tmp_path):
    window = _window(qtbot, store, tmp_path / "s.ini")
    _shortcut_ids(window)
    dialog = window.feature("help").shortcuts
    dialog.search.setText("graph")
    assert dialog.shown_ids() == ["show_graph"]
    dialog.search.setText("ctrl+shift+g")
    assert dialog.shown_ids() == ["show_graph"]
    dialog.search.setText("no such command")
    assert dialog.shown_ids() == [] and "No command or key matches" in dialog.count_label.text()
    dialog.search.clear()
    assert len(dialog.shown_ids()) == sum(1 for a in window.actions.values() if not a.shortcut().isEmpty())


def test_the_help_menu_lists_its_entries_before_about(qtbot, store, tmp_path):
    window = _window(qtbot, store, tmp_path / "s.ini")
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.menu().title() == "&Help")
    names = [a.objectName() for a in help_menu.actions() if not a.isSeparator()]
    assert names == ["getting_started", "shortcuts", "glossary", "connect_agent", "about"]


# --- fit -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("size", [(1024, 700), (1280, 800)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_help_pages_fit(qtbot, seeded_store, tmp_path, first_start, size):
    window = _window(qtbot, seeded_store, tmp_path / "s.ini", size=size)
    screen = QSize(*size)
    problems = []
    for page_id in ("welcome", "glossary"):
        window.open_page(page_id)
        _settle(qtbot, window, size)
        problems += [f"{page_id}: {p}" for p in fit_problems(window, screen)]
    window.action("shortcuts").trigger()
    dialog = window.feature("help").shortcuts
    qtbot.waitExposed(dialog)
    problems += [f"shortcuts: {p}" for p in fit_problems(dialog, screen)]
    assert not problems, "\n".join(problems)
