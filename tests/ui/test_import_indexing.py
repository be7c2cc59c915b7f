"""An import in the window reports done once its skills are stored, then indexes them for search
on a worker thread with the status bar following it; a search typed before that ends finds every
imported skill all the same; closing the window stops the indexing, and what it left is indexed
by the next search."""

from __future__ import annotations

import threading

from skill_studio.core.ops import library as library_ops
from skill_studio.core.store import Store
from skill_studio.core.store.rows import Filters


def _library(root, n: int = 30):
    for i in range(n):
        folder = root / f"imported-{i:02d}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: imported-{i:02d}\ndescription: Handles the zork{i}quux "
                                         f"task. Use when asked.\n---\n# Imported\n\nBodyword{i}frob here.\n")
    return root


def _import(qtbot, window, lib) -> None:
    window.import_paths([str(lib)])
    qtbot.waitUntil(lambda: window.import_report is not None, timeout=20_000)
    window.import_report.close()


def test_the_imported_skills_are_indexed_after_the_report_and_the_status_says_so(qtbot, open_window, store, tmp_path):
    window = open_window(store)
    _import(qtbot, window, _library(tmp_path / "lib"))
    actions = window.window_actions
    assert actions.indexing is not None
    qtbot.waitUntil(actions.indexing.has_ended, timeout=20_000)
    assert store.waiting_for_index() == 0
    assert window.statusBar().currentMessage() == "Indexed 30 imported skills for search."
    window.browser.filter_bar.search.setText("bodyword7frob")
    qtbot.waitUntil(lambda: window.model.rowCount() == 1, timeout=5000)


def test_a_search_before_the_indexing_finds_every_imported_skill(qtbot, open_window, store, tmp_path, monkeypatch):
    monkeypatch.setattr(type(store), "index_pending", lambda self, **kw: 0)   # the indexing never gets to it
    window = open_window(store)
    _import(qtbot, window, _library(tmp_path / "lib"))
    assert store.waiting_for_index() == 30
    for word, shown in (("zork12quux", 1), ("bodyword29frob", 1), ("imported", 30)):
        window.browser.filter_bar.search.setText(word)
        qtbot.waitUntil(lambda shown=shown: window.model.rowCount() == shown, timeout=5000)
    assert store.waiting_for_index() == 0   # the first search indexed them


def test_closing_the_window_stops_the_indexing_and_the_next_search_does_the_rest(qtbot, open_window, store, tmp_path,
                                                                                  monkeypatch):
    started, seen_cancel = threading.Event(), threading.Event()

    def slow(store, *, progress=None, cancelled=None):   # indexes nothing until it is cancelled
        started.set()
        while not cancelled():
            seen_cancel.wait(0.01)
        seen_cancel.set()
        return 0

    monkeypatch.setattr(library_ops, "index_for_search", slow)
    window = open_window(store)
    _import(qtbot, window, _library(tmp_path / "lib", 12))
    qtbot.waitUntil(started.is_set, timeout=10_000)
    window.close()
    assert seen_cancel.is_set()   # cancelled, and waited for, before the window went
    assert store.waiting_for_index() == 12
    with Store(store.path) as other:
        assert other.names(Filters(text="bodyword11frob")) == ["imported-11"]
