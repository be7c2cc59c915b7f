"""Closing a tab returns to the tab the user came from while it is still open, else to the library;
closing a tab in the background leaves the current one alone."""

from __future__ import annotations

import pytest


@pytest.fixture
def window(open_window, seeded_store):
    return open_window(seeded_store)


def close_current(window) -> None:
    ws = window.workspace
    assert ws.close_designer(ws.currentIndex())


@pytest.mark.parametrize("came_from", ["library", "show_queue", "show_audit", "show_health", "designer"])
def test_closing_a_designer_returns_where_the_user_came_from(window, came_from):
    ws = window.workspace
    if came_from == "designer":
        window.open_designer("release-notes")
    elif came_from != "library":
        window.actions[came_from].trigger()
    origin = ws.currentWidget()
    window.open_designer("csv-cleanup")
    assert ws.currentWidget() is not origin
    close_current(window)
    assert ws.currentWidget() is origin


def test_when_that_tab_is_gone_the_library_is_shown(window):
    ws = window.workspace
    window.actions["show_audit"].trigger()
    audit = ws.currentWidget()
    designer = window.open_designer("csv-cleanup")
    ws.close_designer(ws.indexOf(audit))          # in the background: the designer stays current
    assert ws.currentWidget() is designer
    close_current(window)
    assert ws.currentIndex() == 0


def test_a_chain_of_tabs_unwinds_in_order(window):
    ws = window.workspace
    window.actions["show_queue"].trigger()
    queue = ws.currentWidget()
    first = window.open_designer("release-notes")
    window.open_designer("csv-cleanup")
    close_current(window)
    assert ws.currentWidget() is first
    close_current(window)
    assert ws.currentWidget() is queue
    ws.setCurrentIndex(0)
    window.open_designer("pdf-extract")
    close_current(window)
    assert ws.currentIndex() == 0
