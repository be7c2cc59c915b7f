"""The designer at every window size: the details go to a drawer before the preview goes, the
editor keeps a readable width, long problem texts never widen the window, and every tab fits."""

from __future__ import annotations

import pytest
from conftest import SCREENSHOTS, shown_window
from layout_fit import fit_problems
from PySide6.QtCore import QEvent, QSize
from PySide6.QtWidgets import QApplication

from skill_studio.core.format.diagnostics import Diagnostic, Severity
from skill_studio.ui import theme
from skill_studio.ui.designer.designer import DesignerWidget
from skill_studio.ui.designer.panes import EDITOR_FLOOR, PREVIEW_MIN, SIDE_MIN

LONG_SKILL = "csv-cleanup"
WIDTHS = list(range(760, 1961, 80))


@pytest.fixture
def designer(qtbot, seeded_store):
    d = DesignerWidget(seeded_store, LONG_SKILL)
    qtbot.addWidget(d)
    d.ask_unsaved = lambda: "discard"
    d.resize(1024, 700)
    d.show()
    qtbot.waitExposed(d)
    return d


def resize(qtbot, widget, width: int, height: int = 700) -> None:
    widget.resize(width, height)
    qtbot.waitUntil(lambda: widget.width() == width)


def settled_fit(qtbot, window, screen: QSize) -> list[str]:
    """What does not fit once the window has laid itself out (a new tab lays out over a few events)."""
    try:
        qtbot.waitUntil(lambda: fit_problems(window, screen) == [], timeout=2000)
    except qtbot.TimeoutError:
        pass
    return fit_problems(window, screen)


def shown(d: DesignerWidget) -> dict[str, int]:
    """The width of each shown pane."""
    panes = {"editor": d.splitter.widget(0), "preview": d.preview, "side": d.side}
    return {name: pane.width() for name, pane in panes.items() if pane.isVisible()}


def test_the_details_go_to_the_drawer_before_the_preview_goes(qtbot, designer):
    seen = []
    for width in reversed(WIDTHS):   # narrowing the window step by step
        resize(qtbot, designer, width)
        panes = shown(designer)
        seen.append(tuple(panes))
        assert "editor" in panes
        if len(panes) > 1:
            assert panes["editor"] >= EDITOR_FLOOR, (width, panes)
        if "preview" in panes:
            assert panes["preview"] >= max(160, PREVIEW_MIN), (width, panes)
        if "side" in panes:
            assert panes["side"] >= SIDE_MIN and "preview" in panes   # only docked beside both
            assert panes["editor"] >= designer.panes.comfort   # then the editor has its comfort too
        assert sum(panes.values()) <= width   # nothing pushed past the edge
    order = list(dict.fromkeys(seen))
    assert order[0] == ("editor", "preview", "side")
    assert ("editor", "preview") in order   # the details went first, the preview stayed
    assert order.index(("editor", "preview")) == 1


@pytest.mark.parametrize("width", [900, 1024, 1280])
def test_the_drawer_opens_in_the_preview_place_and_the_choice_is_kept(qtbot, designer, width):
    resize(qtbot, designer, width)
    assert not designer.panes.docked()
    assert "side" not in shown(designer) and not designer.side_action.isChecked()
    designer.side_action.trigger()   # open the drawer
    panes = shown(designer)
    assert list(panes) == ["editor", "side"] and panes["editor"] >= EDITOR_FLOOR and panes["side"] >= SIDE_MIN
    assert designer.side_action.isChecked() and not designer.preview_action.isChecked()
    resize(qtbot, designer, width - 60)   # a resize keeps the drawer open
    assert list(shown(designer)) == ["editor", "side"]
    designer.side_action.trigger()   # closing it brings the preview back
    assert list(shown(designer)) == ["editor", "preview"] and designer.preview_action.isChecked()


def test_preview_off_is_kept_across_resizes_and_the_wide_layout(qtbot, designer):
    designer.preview_action.trigger()
    for width in (1024, 1920, 900, 1280):
        resize(qtbot, designer, width)
        assert "preview" not in shown(designer) and not designer.preview_action.isChecked()
    resize(qtbot, designer, 1920)
    assert list(shown(designer)) == ["editor", "side"]
    designer.preview_action.trigger()
    assert list(shown(designer)) == ["editor", "preview", "side"]


def test_split_sizes_follow_the_width_and_keep_a_dragged_share(qtbot, designer):
    resize(qtbot, designer, 1280)
    before = shown(designer)
    resize(qtbot, designer, 1100)
    after = shown(designer)
    assert after["editor"] < before["editor"] and after["preview"] < before["preview"]   # both gave some
    designer.splitter.moveSplitter(550, 1)   # the author drags the split
    share = shown(designer)["editor"] / 1100
    resize(qtbot, designer, 1280)
    assert abs(shown(designer)["editor"] / 1280 - share) < 0.03


def test_the_editor_gets_ordinary_lines_whole_at_1280(qtbot, designer):
    resize(qtbot, designer, 1280, 800)
    editor = designer.editor
    prose = [b for b in designer.text().splitlines() if b and not b.startswith(("description:", "|", "   "))]
    ordinary = [line for line in prose if len(line) <= 80]
    assert ordinary
    widest = max(editor.fontMetrics().horizontalAdvance(line) for line in ordinary)
    assert widest <= editor.viewport().width()


@pytest.mark.parametrize("text", ["A sentence that goes on. " * 80, "/a/path/without/spaces" * 90,
                                  "x" * 2000], ids=["words", "path", "one-word"])
def test_a_very_long_problem_never_widens_the_window(qtbot, seeded_store, tmp_path, text):
    window = shown_window(qtbot, seeded_store, tmp_path, (1024, 700))
    window.workspace.close_all = lambda: True
    d = window.open_designer(LONG_SKILL)
    d.ask_unsaved = lambda: "discard"
    qtbot.waitUntil(lambda: d.width() > 0)
    before = window.width()
    d.validator.cancel()
    d.problems.set_diagnostics([Diagnostic("X1", Severity.ERROR, text, 3, text),
                                Diagnostic("X2", Severity.WARNING, "second " + text, 4)])
    d.problems.tree.setCurrentItem(d.problems.tree.topLevelItem(0))   # its whole text shows below the list
    QApplication.processEvents()
    assert window.width() == before == 1024
    assert d.minimumSizeHint().width() < 1000 and window.minimumSizeHint().width() <= 1024
    assert settled_fit(qtbot, window, QSize(1024, 700)) == []


@pytest.mark.parametrize("size", [(1024, 700), (1280, 800), (1920, 1080)], ids=["1024", "1280", "1920"])
@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_every_tab_fits_and_a_screenshot_is_left(qtbot, seeded_store, tmp_path, size, dark):
    app = QApplication.instance()
    if dark:
        app.sendPostedEvents(None, QEvent.Type.DeferredDelete)   # windows of earlier tests are gone first
        theme.apply_theme(app, theme.DARK)
    try:
        window = shown_window(qtbot, seeded_store, tmp_path, size)
        window.workspace.close_all = lambda: True
        d = window.open_designer(LONG_SKILL)
        d.ask_unsaved = lambda: "discard"
        screen = QSize(*size)
        assert settled_fit(qtbot, window, screen) == []
        SCREENSHOTS.mkdir(exist_ok=True)
        tag = f"{size[0]}-{'dark' if dark else 'light'}"
        for i in range(d.side.count()):
            d.show_details(d.side.widget(i))
            assert d.side.isVisible() and d.editor.isVisible()
            assert settled_fit(qtbot, window, screen) == [], d.side.tabText(i)
            if i in (0, d.side.count() - 1):
                assert window.grab().save(str(SCREENSHOTS / f"designer-{tag}-{d.side.tabText(i).lower()}.png"))
    finally:
        if dark:
            theme.apply_theme(app, theme.LIGHT)
            for _ in range(3):   # the views follow the theme on their next turn, while they still exist
                QApplication.processEvents()


def test_no_details_tab_needs_more_than_the_drawer_gives(designer):
    """Rows of buttons wrap and long texts wrap or elide: no tab widens the details past their floor."""
    for i in range(designer.side.count()):
        page = designer.side.widget(i)
        assert page.minimumSizeHint().width() <= SIDE_MIN, designer.side.tabText(i)
    assert designer.splitter.widget(0).minimumSizeHint().width() <= EDITOR_FLOOR
