"""The review queue view: rows follow review.queue, the detail pane shows validation, nearest
skills and the diff, and the whole flow runs from the keyboard; the view only asks, never writes."""

from datetime import UTC, datetime, timedelta

import pytest
from conftest import SCREENSHOTS, make
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAction, QColor, QKeySequence
from PySide6.QtWidgets import QApplication, QStyleOptionViewItem, QVBoxLayout, QWidget

from skill_studio.core.format.diagnostics import err, warn
from skill_studio.core.model import Origin
from skill_studio.core.review import queue as review
from skill_studio.core.review.lifecycle import move
from skill_studio.ui import theme
from skill_studio.ui.designer.diff_rows import FILLER, split_lines
from skill_studio.ui.library.models import SKILL_ROLE
from skill_studio.ui.review.neighbour_rows import BAND_MEANINGS, neighbour_text, only_related
from skill_studio.ui.review.queue_detail import (
    FINDING,
    NO_NEIGHBOUR,
    clipped,
    validation_html,
)
from skill_studio.ui.review.queue_list import QueueDelegate, queue_row_layout, waiting_text
from skill_studio.ui.review.queue_view import EMPTY_TEXT, HINT, ReviewQueueView

PDF_TABLES = ("pdf-table-reader", "Reads tables out of PDF files and invoices into CSV. Use when a PDF "
              "holds tabular data.", "# PDF tables\n\nExtract the text of the PDF, then find its tables.\n")
LONG_NOTES = ("overlong-notes", "Takes meeting notes. " * 70, "# Notes\n\nWrite them down.\n")


@pytest.fixture
def queue_store(seeded_store):
    """The samples (pdf-extract degraded, python-test-writer candidate, both 60+ days old) plus fresh
    candidates: a copy of pdf-extract, one only related to it (half its steps), one about PDFs
    that is like no other skill, and one whose description breaks the strict profile."""
    now = datetime.now(UTC)
    pdf = seeded_store.get("pdf-extract")
    steps = pdf.content.splitlines()
    copy = ("pdf-text-pull", pdf.description.replace("PDF", "PDF document", 1),
            pdf.content + "\nKeep the page numbers.\n")
    related = ("pdf-table-csv", "Reads tables out of PDF files into CSV. Use when a PDF holds tabular data.",
               "# PDF tables\n\nFind the tables of the PDF and write them as CSV.\n"
               + "\n".join(steps[:len(steps) // 2]) + "\n")
    for (name, description, body), days in ((copy, 5), (related, 4), (PDF_TABLES, 3), (LONG_NOTES, 1)):
        seeded_store.add(make(name, description, body, origin=Origin.LLM), now=now - timedelta(days=days))
    return seeded_store


def open_view(qtbot, store) -> ReviewQueueView:
    view = ReviewQueueView(store)
    qtbot.addWidget(view)
    view.resize(1200, 750)
    view.show()
    qtbot.waitExposed(view)
    view.activateWindow()   # shortcuts need the window active
    view.setFocus()
    qtbot.waitUntil(lambda: view.isActiveWindow())
    if view.count():
        qtbot.waitUntil(lambda: view.list.hasFocus())   # the view hands its focus to the queue
        neighbours_of(qtbot, view)
    return view


def neighbours_of(qtbot, view, name: str | None = None):
    """Select ``name`` (default: the current skill) and wait until its nearest skills are listed."""
    if name is not None:
        assert view.select_name(name)
    qtbot.waitUntil(lambda: view.detail.neighbours_for == view.current_name(), timeout=10000)
    return view.detail


@pytest.fixture
def view(qtbot, queue_store):
    return open_view(qtbot, queue_store)


def pane_text(pane) -> list[str]:
    """The lines of one side of the diff, without the filler rows that align it with the other."""
    return [line for line, kind in zip(pane.side.lines, pane.side.kinds) if kind != FILLER]


def queued(store) -> list[str]:
    return [s.name for s in review.queue(store)]


def test_rows_follow_the_queue_oldest_first(view, queue_store, qtmodeltester):
    names = queued(queue_store)
    assert names[-2:] == ["pdf-table-reader", "overlong-notes"]
    assert {"pdf-extract", "python-test-writer"} <= set(names[:2])
    assert view.model.names() == names
    assert view.count() == len(names) == review.queue_count(queue_store)
    assert [view.model.index(i, 0).data(SKILL_ROLE).name for i in range(view.count())] == names
    assert view.count_label.text() == f"To review · {len(names)}"
    assert view.current_name() == names[0]
    assert view.stack.currentWidget() is view.splitter
    assert view.hint_label.text() == HINT and view.hint_label.isVisible()
    qtmodeltester.check(view.model, force_py=True)


def test_delegate_paints_from_the_row_without_store_queries(view, queue_store, monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("the store was queried while painting")
    monkeypatch.setattr(queue_store, "get", refuse)
    monkeypatch.setattr(queue_store, "list", refuse)
    view.list.viewport().repaint()
    option = QStyleOptionViewItem()
    option.font = view.list.font()
    option.rect = view.list.visualRect(view.model.index(0, 0))
    size = view.list.itemDelegate().sizeHint(option, view.model.index(0, 0))
    assert size.height() == queue_row_layout(option.rect, option.font).row.height()
    assert isinstance(view.list.itemDelegate(), QueueDelegate)


def test_waiting_text():
    now = datetime(2025, 5, 10, tzinfo=UTC)
    assert waiting_text("2025-05-07T00:00:00Z", now) == "waiting 3 days"
    assert waiting_text("2025-05-10T00:00:00Z", now) == "just arrived"
    assert waiting_text(None, now) == ""


def test_detail_shows_facts_validation_nearest_and_diff(qtbot, view, queue_store):
    d = neighbours_of(qtbot, view, "pdf-text-pull")
    assert d.text("name") == "pdf-text-pull"
    assert d.text("description").startswith("Extracts text, tables and metadata from PDF document files")
    meta = d.text("meta")
    for part in ("Candidate", "llm", "Untrusted", "version 1", "waiting 5 days"):
        assert part in meta
    assert d.text("strict").endswith("Passes the strict profile") and "\u2713" not in d.text("strict")
    assert d.text("lenient").endswith("Passes the lenient profile")
    nearest = review.nearest(queue_store, "pdf-text-pull")
    assert nearest[0].name == "pdf-extract" and nearest[0].copy
    assert [d.nearest_list.item(i).text() for i in range(d.nearest_list.count())] == [n.name for n in nearest]
    assert d.picked == "pdf-extract" and d.nearest_list.currentRow() == 0
    # Left: the nearest existing skill; right: the skill under review. Side by side by default.
    assert d.diff.mode() == "side"
    assert d.diff.labels() == ("pdf-extract", "pdf-text-pull")
    assert pane_text(d.diff.left_pane) == split_lines(queue_store.get("pdf-extract").skill_md)
    assert pane_text(d.diff.right_pane) == split_lines(queue_store.get("pdf-text-pull").skill_md)


def test_neighbours_show_their_similarity_and_band(qtbot, view, queue_store):
    d = neighbours_of(qtbot, view, "pdf-text-pull")
    first, second = d.neighbours[:2]
    assert (first.band, second.band) == ("same skill", "related")
    assert neighbour_text(first) == f"{first.similarity:.2f} · same skill"
    assert neighbour_text(second) == f"{second.similarity:.2f} · related"
    tip = d.nearest_list.item(1).toolTip()
    assert f"similarity {second.similarity:.3f}, related" in tip and BAND_MEANINGS["related"] in tip
    assert "nothing to compare or merge" in BAND_MEANINGS["related"]
    assert BAND_MEANINGS["near copy"].startswith("at least 0.75")
    assert all(0.45 <= n.similarity <= 1.0 for n in d.neighbours)


def test_a_merely_related_neighbour_is_not_compared_nor_suggested(qtbot, view):
    d = neighbours_of(qtbot, view, "pdf-table-csv")
    assert d.neighbours and not any(n.copy for n in d.neighbours)
    first = d.neighbours[0]
    assert d.nearest_list.isVisible() and not d.nearest_empty.isVisible()
    assert d.picked == "" and d.diff.message() == f"Only related ({first.similarity:.2f}): no near copy to compare with"
    assert d.diff.message() == only_related(first)
    qtbot.keyClick(view.list, Qt.Key_2)
    assert d.picked == "" and d.diff.message() == only_related(d.neighbours[1])
    with qtbot.waitSignal(view.mergeRequested) as merge:
        qtbot.keyClick(view.list, Qt.Key_M)
    assert merge.args == ["pdf-table-csv", ""]    # the merge dialog asks for a target


def test_no_similar_skill_is_said_so(qtbot, view):
    d = neighbours_of(qtbot, view, "pdf-table-reader")
    assert d.neighbours == [] and d.picked == ""
    assert d.nearest_empty.isVisible() and d.nearest_empty.text() == NO_NEIGHBOUR
    assert not d.nearest_list.isVisible()
    for key in (Qt.Key_1, Qt.Key_2, Qt.Key_3):
        qtbot.keyClick(view.list, key)
    assert d.picked == "" and d.diff.message() == "No similar skill to compare with"


def test_moving_on_quickly_shows_the_last_skills_neighbours(qtbot, view, queue_store):
    d = view.detail
    assert view.select_name("pdf-text-pull")
    with qtbot.waitSignal(d.neighboursShown, timeout=10000,
                          check_params_cb=lambda name: name == "pdf-table-csv"):
        assert view.select_name("pdf-table-csv")     # before the first search is back
        assert d.nearest_empty.text() == FINDING and not d.nearest_list.isVisible()
    assert d.neighbours_for == "pdf-table-csv" == d.name
    assert [n.name for n in d.neighbours] == [n.name for n in review.nearest(queue_store, "pdf-table-csv")]
    qtbot.waitUntil(lambda: not d.is_finding())
    assert d.neighbours_for == "pdf-table-csv"   # nothing older came in after it


def test_strict_errors_show_with_their_lines(view):
    view.select_name("overlong-notes")
    strict = view.detail.text("strict")
    assert strict.lstrip("\ufffc ").startswith("Fails the strict profile (1 error)")
    assert "line 3: Description exceeds 1024 character limit" in strict
    assert view.detail.text("lenient").endswith("Passes the lenient profile")
    # An overlong description is cut short (the diff keeps its room); the tooltip has all of it.
    shown = view.detail.text("description")
    assert shown.endswith("…") and len(shown) <= 360
    assert view.detail.labels["description"].toolTip() == LONG_NOTES[1].strip()


def test_validation_html_lists_the_first_errors():
    diags = [err("S0", f"problem {i}", line=i) for i in range(1, 6)] + [warn("L0", "only a warning", 9)]
    html = validation_html(diags, "strict", theme.LIGHT)
    assert "Fails the strict profile (5 errors)" in html and "\u2717" not in html and "<img" in html
    assert "line 1: problem 1" in html and "line 3: problem 3" in html and "problem 4" not in html
    assert "… and 2 more" in html and "warning" not in html
    assert "Passes the lenient profile" in validation_html(diags[-1:], "lenient", theme.DARK)
    assert "&lt;b&gt;" in validation_html([err("S0", "<b>")], "strict", theme.LIGHT)


def test_a_skill_gone_from_the_store_is_said_so(view, queue_store):
    queue_store.delete("overlong-notes")   # the queue has not been refreshed yet
    assert view.select_name("overlong-notes")
    assert view.detail.skill is None
    assert view.detail.diff.message() == '"overlong-notes" is no longer in the store'
    assert not view.detail.approve_button.isEnabled()
    view.refresh()
    assert "overlong-notes" not in view.model.names() and view.detail.approve_button.isEnabled()


def test_clipped():
    assert clipped("short", 10) == "short"
    assert clipped("one two three four", 12) == "one two…"
    assert clipped("abcdefghijklmnop", 8) == "abcdefg…"


def test_degraded_skill_shows_its_lifecycle_reason(view):
    view.select_name("pdf-extract")
    assert "Degraded" in view.detail.text("meta")
    assert view.detail.text("reason").startswith("Degraded by a reviewer")
    assert view.detail.labels["reason"].isVisible()


def test_picking_a_nearest_skill_changes_the_diff(qtbot, view, queue_store):
    d = neighbours_of(qtbot, view, "pdf-text-pull")
    assert d.nearest_list.count() >= 2 and d.picked == "pdf-extract"
    second = d.neighbours[1]
    qtbot.mouseClick(d.nearest_list.viewport(), Qt.LeftButton,
                     pos=d.nearest_list.visualItemRect(d.nearest_list.item(1)).center())
    assert d.nearest_list.currentRow() == 1 and not second.copy
    assert d.picked == "" and d.diff.message() == only_related(second)
    qtbot.keyClick(view.list, Qt.Key_1)   # the keyboard picks too
    assert d.picked == "pdf-extract" and d.diff.labels() == ("pdf-extract", "pdf-text-pull")
    assert pane_text(d.diff.left_pane) == split_lines(queue_store.get("pdf-extract").skill_md)
    with qtbot.waitSignal(view.mergeRequested) as merge:
        qtbot.keyClick(view.list, Qt.Key_M)
    assert merge.args == ["pdf-text-pull", "pdf-extract"]
    qtbot.keyClick(view.list, Qt.Key_2)
    with qtbot.waitSignal(view.mergeRequested) as merge:
        qtbot.keyClick(view.list, Qt.Key_M)
    assert merge.args == ["pdf-text-pull", ""]
    if d.nearest_list.count() < 3:        # no third: "3" leaves the pick as it is
        qtbot.keyClick(view.list, Qt.Key_3)
        assert d.nearest_list.currentRow() == 1 and d.picked == ""


def test_approve_then_refresh_moves_on(qtbot, view, queue_store):
    names = queued(queue_store)
    view.select_name(names[1])
    with qtbot.waitSignal(view.approveRequested) as approve:
        qtbot.keyClick(view.list, Qt.Key_A)
    assert approve.args == [names[1]]
    assert queued(queue_store) == names   # the view itself never changes the store
    move(queue_store, names[1], "promote", "ok")
    with qtbot.waitSignal(view.countChanged) as counted:
        view.refresh()
    assert counted.args == [len(names) - 1]
    assert view.current_name() == names[2]   # the next skill, now at the same position
    assert view.detail.text("name") == names[2]
    # The last one approved: the selection falls back to the new last row.
    view.select_name(names[-1])
    move(queue_store, names[-1], "promote", "ok")
    view.refresh()
    assert view.current_name() == names[-2]


def test_refresh_keeps_a_skill_that_is_still_queued(qtbot, view, queue_store):
    names = queued(queue_store)
    view.select_name(names[2])
    move(queue_store, names[0], "promote", "ok")
    view.refresh()
    assert view.current_name() == names[2]
    assert view.list.currentIndex().row() == 1


def test_reject_with_a_reason(qtbot, view):
    name = view.current_name()
    qtbot.keyClick(view.list, Qt.Key_R)
    edit = view.detail.reason_edit
    assert view.is_rejecting() and view.detail.reject_row.isVisible() and edit.hasFocus()
    qtbot.keyClicks(edit, "a duplicate")   # 'a' is typed, not an approval
    assert edit.text() == "a duplicate"
    with qtbot.waitSignal(view.rejectRequested) as rejected:
        qtbot.keyClick(edit, Qt.Key_Return)
    assert rejected.args == [name, "a duplicate"]
    assert not view.detail.reject_row.isVisible() and view.list.hasFocus()


def test_letters_typed_as_a_reason_trigger_nothing(qtbot, view):
    fired = []
    for signal in (view.approveRequested, view.mergeRequested, view.openRequested):
        signal.connect(lambda *args: fired.append(args))
    first = view.current_name()
    qtbot.keyClick(view.list, Qt.Key_R)
    qtbot.keyClicks(view.detail.reason_edit, "amojk")
    assert view.detail.reason_edit.text() == "amojk"
    assert fired == [] and view.current_name() == first


def test_reject_needs_a_reason(qtbot, view):
    fired = []
    view.rejectRequested.connect(lambda *args: fired.append(args))
    qtbot.keyClick(view.list, Qt.Key_R)
    edit = view.detail.reason_edit
    qtbot.keyClicks(edit, "   ")
    qtbot.keyClick(edit, Qt.Key_Return)
    assert fired == []
    assert view.detail.reason_error.isVisible()
    assert view.detail.reason_error.text() == "A reason is required"
    assert view.is_rejecting() and edit.hasFocus()
    qtbot.mouseClick(view.detail.confirm_reject_button, Qt.LeftButton)
    assert fired == []
    qtbot.keyClicks(edit, "x")
    assert not view.detail.reason_error.isVisible()   # typing clears the complaint


def test_escape_cancels_the_reject(qtbot, view):
    fired = []
    view.rejectRequested.connect(lambda *args: fired.append(args))
    qtbot.keyClick(view.list, Qt.Key_R)
    qtbot.keyClicks(view.detail.reason_edit, "not sure")
    qtbot.keyClick(view.detail.reason_edit, Qt.Key_Escape)
    assert fired == [] and not view.is_rejecting()
    assert not view.detail.reject_row.isVisible() and view.list.hasFocus()
    qtbot.keyClick(view.list, Qt.Key_R)
    assert view.detail.reason_edit.text() == ""   # the old reason is gone
    qtbot.mouseClick(view.detail.cancel_reject_button, Qt.LeftButton)
    assert not view.is_rejecting()


def test_moving_on_closes_the_reject_editor(qtbot, view):
    qtbot.keyClick(view.list, Qt.Key_R)
    qtbot.keyClicks(view.detail.reason_edit, "for the first one")
    view.select_name(queued(view.store)[1])
    assert not view.is_rejecting() and view.detail.reason_edit.text() == ""


def test_enter_and_o_open_in_the_designer(qtbot, view):
    name = view.current_name()
    with qtbot.waitSignal(view.openRequested) as opened:
        qtbot.keyClick(view.list, Qt.Key_Return)
    assert opened.args == [name]
    with qtbot.waitSignal(view.openRequested) as opened:
        qtbot.keyClick(view.list, Qt.Key_O)
    assert opened.args == [name]
    second = view.list.visualRect(view.model.index(1, 0)).center()
    qtbot.mouseClick(view.list.viewport(), Qt.LeftButton, pos=second)
    with qtbot.waitSignal(view.openRequested) as opened:
        qtbot.mouseDClick(view.list.viewport(), Qt.LeftButton, pos=second)
    assert opened.args == [view.model.names()[1]]


def test_buttons_emit_the_same_requests(qtbot, view):
    name = view.current_name()
    d = view.detail
    with qtbot.waitSignal(view.approveRequested) as sig:
        qtbot.mouseClick(d.approve_button, Qt.LeftButton)
    assert sig.args == [name]
    with qtbot.waitSignal(view.mergeRequested) as sig:
        qtbot.mouseClick(d.merge_button, Qt.LeftButton)
    assert sig.args == [name, d.picked]
    with qtbot.waitSignal(view.openRequested) as sig:
        qtbot.mouseClick(d.open_button, Qt.LeftButton)
    assert sig.args == [name]
    qtbot.mouseClick(d.reject_button, Qt.LeftButton)
    assert view.is_rejecting()
    for button, key in ((d.approve_button, "(A)"), (d.reject_button, "(R)"), (d.merge_button, "(M)"),
                        (d.open_button, "(Enter or O)")):
        assert button.toolTip().endswith(key)


def test_j_k_and_arrows_move(qtbot, view, queue_store):
    names = queued(queue_store)
    qtbot.keyClick(view.list, Qt.Key_J)
    assert view.current_name() == names[1] and view.detail.text("name") == names[1]
    qtbot.keyClick(view.list, Qt.Key_Down)
    assert view.current_name() == names[2]
    qtbot.keyClick(view.list, Qt.Key_K)
    assert view.current_name() == names[1]
    qtbot.keyClick(view.list, Qt.Key_Up)
    qtbot.keyClick(view.list, Qt.Key_K)   # stays on the first row
    assert view.current_name() == names[0]


def test_shortcuts_belong_to_the_view(qtbot, view):
    for action in view.actions_by_id.values():
        assert action.shortcutContext() == Qt.WidgetWithChildrenShortcut
        assert action in view.actions()
    assert view.actions_by_id["review_approve"].shortcut().toString() == "A"


def test_return_and_escape_win_over_window_shortcuts(qtbot, queue_store):
    host = QWidget()
    view = ReviewQueueView(queue_store, host)
    qtbot.addWidget(host)
    QVBoxLayout(host).addWidget(view)
    window_keys = []
    for key in ("Return", "Escape"):
        action = QAction(key, host)
        action.setShortcut(QKeySequence(key))
        action.triggered.connect(lambda *_, key=key: window_keys.append(key))
        host.addAction(action)
    host.resize(1200, 750)
    host.show()
    qtbot.waitExposed(host)
    host.activateWindow()
    view.setFocus()
    qtbot.waitUntil(lambda: view.list.hasFocus())
    with qtbot.waitSignal(view.openRequested):
        qtbot.keyClick(view.list, Qt.Key_Return)
    qtbot.keyClick(view.list, Qt.Key_R)
    qtbot.keyClick(view.detail.reason_edit, Qt.Key_Escape)
    assert not view.is_rejecting()
    assert window_keys == []
    view.detail.diff.left_pane.setFocus()   # anywhere inside the view, its letters work
    with qtbot.waitSignal(view.approveRequested):
        qtbot.keyClick(view.detail.diff.left_pane, Qt.Key_A)
    view.shutdown()   # the view is no window of its own: its search stops before the host goes


def test_empty_queue_shows_the_empty_state(qtbot, store):
    view = open_view(qtbot, store)
    assert view.count() == 0 and view.current_name() is None
    assert view.stack.currentWidget() is view.empty_label
    assert view.empty_label.isVisible() and view.empty_label.text() == EMPTY_TEXT
    assert not view.list.isVisible()
    fired = []
    view.approveRequested.connect(fired.append)
    qtbot.keyClick(view, Qt.Key_A)
    assert fired == []
    store.add(make("fresh-one", origin=Origin.LLM))
    with qtbot.waitSignal(view.countChanged) as counted:
        view.refresh()
    assert counted.args == [1] and view.current_name() == "fresh-one"
    assert view.stack.currentWidget() is view.splitter
    move(store, "fresh-one", "archive", "no")
    view.refresh()
    assert view.stack.currentWidget() is view.empty_label and view.detail.skill is None


def test_theme_change_recolours_and_screenshots(qtbot, view):
    app = QApplication.instance()
    neighbours_of(qtbot, view, "pdf-text-pull")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    try:
        for tokens, name in ((theme.LIGHT, "review-queue-light.png"), (theme.DARK, "review-queue-dark.png")):
            theme.apply_theme(app, tokens)
            qtbot.waitUntil(lambda colour=tokens.bar_utility: not view._recolour_pending
                            and colour in view.detail.labels["strict"].text(), timeout=5000)
            QApplication.processEvents()   # pending layouts and repaints, before the picture
            assert tokens.bar_utility in view.detail.labels["strict"].text()
            image = view.grab().toImage()
            assert image.save(str(SCREENSHOTS / name))
            row = view.list.visualRect(view.model.index(1, 0))
            back = QColor(image.pixel(QPoint(row.right() - 4, row.top() + 2)))
            assert back.name() == tokens.surface   # an unselected row is drawn in the theme's colours
    finally:
        theme.apply_theme(app, theme.LIGHT)
    assert (SCREENSHOTS / "review-queue-dark.png").stat().st_size > 10_000
