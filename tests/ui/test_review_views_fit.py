"""The review queue, the audit log, the health view (each of its tabs, after a run) and the bindings
panel fit a 1024x700 window (and a 1280x800 one) with nothing cut or squeezed, and every text they
show (labels, buttons, placeholders, tooltips, tab titles, column headers, menu items) is in plain
words: no section numbers of the specification, no formulas, no internal setting names."""

from __future__ import annotations

import re

import pytest
from layout_fit import fit_problems
from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QComboBox,
    QLabel,
    QLineEdit,
    QMenu,
    QTabBar,
    QTableView,
    QTabWidget,
    QTreeView,
    QWidget,
)

from skill_studio.core.health import checks as health
from skill_studio.ui.health.health_settings import LABELS, grouped_settings

#: What a person should never read: spec sections, formulas, setting keys, code names.
DEVELOPER_WORDS = re.compile(r"SPEC|§|\u2212|\(1 [-\u2212]|\bhealth\.[a-z_]+"
                             r"|\b(?:weight|trust|stale|low|redundancy)_[a-z_]+")
SIZES = [QSize(1024, 700), QSize(1280, 800)]


@pytest.fixture
def window(open_window, seeded_store):
    return open_window(seeded_store)


def shown_texts(root: QWidget) -> list[str]:
    """Every text a person can read in ``root``: widgets' texts, placeholders and tooltips, tab
    titles, column headers, combo items and the items of the menus its buttons open."""
    texts: list[str] = []
    for w in [root, *root.findChildren(QWidget)]:
        if not w.isVisibleTo(root) and not isinstance(w, QMenu):
            continue
        texts.append(w.toolTip())
        if isinstance(w, (QLabel, QAbstractButton)):
            texts.append(w.text())
        if isinstance(w, QLineEdit):
            texts += [w.placeholderText()]
        if isinstance(w, QComboBox):
            texts += [w.itemText(i) for i in range(w.count())]
            texts += [str(w.itemData(i, Qt.ToolTipRole) or "") for i in range(w.count())]
        if isinstance(w, QTabBar):
            texts += [w.tabText(i) for i in range(w.count())] + [w.tabToolTip(i) for i in range(w.count())]
        if isinstance(w, QMenu):
            texts += [a.text() for a in w.actions()] + [a.toolTip() for a in w.actions()]
        if isinstance(w, (QTableView, QTreeView)) and w.model() is not None:
            header = w.horizontalHeader() if isinstance(w, QTableView) else w.header()
            texts += [str(w.model().headerData(c, Qt.Horizontal) or "") for c in range(header.count())]
    return [t for t in texts if t]


def views(window, qtbot):
    """(label, page) for each view of this part of the window, shown, each inner tab in turn."""
    window.actions["show_queue"].trigger()
    yield "review queue", window.feature("review").queue
    window.actions["show_audit"].trigger()
    yield "audit log", window.feature("review").audit
    window.actions["show_health"].trigger()
    view = window.feature("health").view
    with qtbot.waitSignal(view.runFinished, timeout=20_000):
        view.start_run()
    for index in range(view.tabs.count()):
        view.tabs.setCurrentIndex(index)
        yield f"health / {view.tabs.tabText(index)}", view
    window.actions["view_bindings"].trigger()
    panel = window.feature("bindings").panel
    for index in range(panel.tabs.count()):
        panel.tabs.setCurrentIndex(index)
        yield f"bindings / {panel.tabs.tabText(index)}", panel


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s.width()}x{s.height()}")
def test_the_views_fit_the_window(window, qtbot, size):
    problems: list[str] = []
    seen = []
    for label, page in views(window, qtbot):
        window.resize(size)
        QApplication.processEvents()
        qtbot.waitUntil(lambda p=page: p.isVisible())
        seen.append(label)
        problems += [f"{label}: {p}" for p in fit_problems(window, size)]
        tabs = [t for t in page.findChildren(QTabWidget) if t.isVisibleTo(page)]
        assert all(t.currentWidget().width() >= 160 for t in tabs), label
    assert len(seen) == 7
    assert not problems, "\n".join(problems)


def test_the_views_speak_plain_words(window, qtbot):
    found = []
    for label, page in views(window, qtbot):
        found += [f"{label}: {t!r}" for t in shown_texts(page) if DEVELOPER_WORDS.search(t)]
    assert not found, "\n".join(found)


def test_every_health_setting_has_plain_words_and_one_group():
    assert set(LABELS) == set(health.DEFAULTS)
    keys = [key for _, group in grouped_settings() for key in group]
    assert sorted(keys) == sorted(health.DEFAULTS)
    for text, tip in LABELS.values():
        assert text and tip and not DEVELOPER_WORDS.search(text + tip)


@pytest.mark.parametrize("text", ["see SPEC §5", "Weight of (1 \u2212 redundancy)", "health.weight_utility",
                                  "weight_failure", "state:trust_tier"])
def test_the_word_check_catches_developer_wording(text):
    assert DEVELOPER_WORDS.search(text)
