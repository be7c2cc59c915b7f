"""Work the first frame does not need waits for it: it runs right after the first paint, runs at
the first turn of the event loop for a window never shown, and runs at once once the wait is over;
a review queue built after the first paint shows what one built at once shows."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication, QLabel, QWidget

from skill_studio.core.review import queue as review_queue
from skill_studio.ui.review.queue_view import ReviewQueueView
from skill_studio.ui.shell.after_paint import AfterFirstPaint


def _window(qtbot) -> tuple[QWidget, QLabel]:
    window = QWidget()
    qtbot.addWidget(window)
    watched = QLabel("cards", window)
    return window, watched


def test_the_tasks_run_after_the_watched_widget_is_painted(qtbot):
    window, watched = _window(qtbot)
    waiting = AfterFirstPaint(window)
    waiting.watch(watched)
    ran: list[str] = []
    waiting.add(lambda: ran.append("first"))
    waiting.add(lambda: ran.append("second"))
    assert ran == [] and not waiting.done
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: waiting.done)
    assert ran == ["first", "second"]         # once each, in the order given
    waiting.add(lambda: ran.append("late"))    # the wait is over: at once
    assert ran == ["first", "second", "late"]
    waiting.run()
    assert ran == ["first", "second", "late"]


def test_a_window_never_shown_runs_them_at_the_first_turn_of_the_event_loop(qtbot):
    window, watched = _window(qtbot)
    waiting = AfterFirstPaint(window)
    waiting.watch(watched)
    ran: list[int] = []
    waiting.add(lambda: ran.append(1))
    assert ran == []
    qtbot.waitUntil(lambda: ran == [1])
    assert waiting.done


def test_a_queue_built_later_shows_what_one_built_at_once_shows(qtbot, seeded_store):
    at_once = ReviewQueueView(seeded_store)
    later = ReviewQueueView(seeded_store, lazy=True)
    for view in (at_once, later):
        qtbot.addWidget(view)
    assert later.count() == at_once.count() == review_queue.queue_count(seeded_store)
    assert not hasattr(later, "model")            # nothing built yet
    for view in (at_once, later):                 # showing it builds and fills it
        view.show()
        qtbot.waitExposed(view)
    expected = [s.name for s in review_queue.queue(seeded_store)]
    first = expected[0]
    assert later.select_name(first) and at_once.select_name(first)
    QApplication.processEvents()
    rows = [[v.model.skill(r).name for r in range(v.model.rowCount())] for v in (at_once, later)]
    assert rows[0] == rows[1] == expected
    assert later.current_name() == at_once.current_name() == first


def test_tasks_due_after_their_store_closed_are_dropped(qtbot, tmp_path):
    from skill_studio.core.store import Store

    window, watched = _window(qtbot)
    store = Store(tmp_path / "s.db")
    waiting = AfterFirstPaint(window, wanted=lambda: not store.closed)
    waiting.watch(watched)
    ran: list[int] = []
    waiting.add(lambda: ran.append(len(store.names())))
    store.close()
    qtbot.waitUntil(lambda: waiting.done)   # a window never shown: due at the first turn
    waiting.add(lambda: ran.append(len(store.names())))
    assert ran == [] and store.closed
