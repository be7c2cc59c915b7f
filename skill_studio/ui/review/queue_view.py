"""The review queue: candidates and degraded skills to work through by keyboard, each shown with
its validation, its nearest existing skills and a diff against the one picked. The view asks;
the window performs (approve, reject, merge, open), so undo and the audit stay in one place."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QItemSelectionModel, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QFrame,
    QLabel,
    QListView,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from skill_studio.core.review import queue as review
from skill_studio.ui.theme import current_tokens

__all__ = ["EMPTY_TEXT", "HINT", "ReviewQueueView"]

HINT = "A approve · R reject · M merge · Enter open · J/K move"
EMPTY_TEXT = "Nothing to review — new candidates and degraded skills appear here."
_RETURN_KEYS = (Qt.Key_Return, Qt.Key_Enter)


class ReviewQueueView(QWidget):
    """The queue on the left, the selected skill on the right; emits requests, never writes."""

    approveRequested = Signal(str)
    rejectRequested = Signal(str, str)       # name, reason
    mergeRequested = Signal(str, str)        # source name, suggested target ('' when none)
    openRequested = Signal(str)
    countChanged = Signal(int)

    def __init__(self, store, parent: QWidget | None = None, *, lazy: bool = False):
        """``lazy``: the widgets are made by :meth:`build`, or when the view is first shown or used;
        until then the view only counts (:meth:`refresh` while hidden, :meth:`count`)."""
        super().__init__(parent)
        self.store = store
        self._rejecting: str | None = None      # the skill the reason editor is for
        self._recolour_pending = False
        self._built = False
        self._stale = True
        if not lazy:
            self.build()
            self.refresh()

    def build(self) -> None:
        """Make the widgets (once). Their modules load here: a lazy view made at start only counts."""
        if self._built:
            return
        from skill_studio.ui.review.queue_detail import QueueDetail
        from skill_studio.ui.review.queue_list import QueueDelegate, QueueModel

        self._built = True
        store = self.store
        self.model = QueueModel(self)
        self.list = QListView(self)
        self.list.setModel(self.model)
        self.list.setItemDelegate(QueueDelegate(self.list))
        self.list.setUniformItemSizes(True)
        self.list.setSelectionMode(QAbstractItemView.SingleSelection)
        self.list.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.list.setMouseTracking(True)
        self.list.setFrameShape(QFrame.NoFrame)
        self.list.installEventFilter(self)
        self.list.doubleClicked.connect(self._open)
        self.list.selectionModel().currentChanged.connect(self._current_changed)
        self.count_label = QLabel(self)
        self.count_label.setProperty("role", "heading")
        left = QWidget(self)
        left_col = QVBoxLayout(left)
        left_col.setContentsMargins(8, 8, 0, 0)
        left_col.addWidget(self.count_label)
        left_col.addWidget(self.list, 1)

        self.detail = QueueDetail(store, self)
        d = self.detail
        d.reason_edit.returnPressed.connect(self.confirm_reject)
        d.reason_edit.textChanged.connect(self._reason_edited)
        d.reason_edit.installEventFilter(self)
        d.confirm_reject_button.clicked.connect(self.confirm_reject)
        d.cancel_reject_button.clicked.connect(self.cancel_reject)

        self.splitter = QSplitter(Qt.Horizontal, self)
        self.splitter.addWidget(left)
        self.splitter.addWidget(self.detail)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([380, 820])
        self.splitter.setChildrenCollapsible(False)
        self.empty_label = QLabel(EMPTY_TEXT, self)
        self.empty_label.setAlignment(Qt.AlignCenter)
        self.empty_label.setWordWrap(True)
        self.empty_label.setProperty("role", "muted")
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.splitter)
        self.stack.addWidget(self.empty_label)
        self.hint_label = QLabel(HINT, self)
        self.hint_label.setProperty("role", "muted")
        self.hint_label.setContentsMargins(8, 3, 8, 4)
        col = QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(0)
        col.addWidget(self.stack, 1)
        col.addWidget(self.hint_label)

        self.actions_by_id: dict[str, QAction] = {}
        for action_id, text, key, slot, button in (
                ("review_approve", "Approve", "A", self._approve, d.approve_button),
                ("review_reject", "Reject…", "R", self.start_reject, d.reject_button),
                ("review_merge", "Merge into…", "M", self._merge, d.merge_button),
                ("review_open", "Open in designer", "O", self._open, d.open_button),
                ("review_next", "Next skill", "J", self._next, None),
                ("review_previous", "Previous skill", "K", self._previous, None),
                ("review_compare_1", "Compare with nearest 1", "1", self._compare_1, None),
                ("review_compare_2", "Compare with nearest 2", "2", self._compare_2, None),
                ("review_compare_3", "Compare with nearest 3", "3", self._compare_3, None)):
            action = QAction(text, self)
            action.setObjectName(action_id)
            action.setShortcut(QKeySequence(key))
            action.setShortcutContext(Qt.WidgetWithChildrenShortcut)
            action.triggered.connect(slot)
            self.addAction(action)
            self.actions_by_id[action_id] = action
            if button is not None:
                button.clicked.connect(slot)
        self.setFocusProxy(self.list)
        self._apply_colours()
        if self.isVisible():   # made while shown: children added now wait for no queued show
            self.stack.show()
            self.hint_label.show()

    # --- public ------------------------------------------------------------------

    def refresh(self) -> None:
        """Reload the queue from the store; keep the selected skill if it is still queued, else
        select the one now at the same position; emit countChanged. While the view is hidden
        only the count is read (a cheap query); the rows load when it is shown."""
        if not self.isVisible():
            self._stale = True
            self.countChanged.emit(review.queue_count(self.store))
            return
        self._stale = False
        self.build()
        previous, row = self.current_name(), self.list.currentIndex().row()
        skills = review.queue(self.store)
        self.model.set_skills(skills)
        self.detail.forget_texts()
        self.detail.name = None                  # the same name is loaded again: it may have changed
        if skills:
            keep = self.model.row_of(previous) if previous else -1
            self._select_row(keep if keep >= 0 else min(max(row, 0), len(skills) - 1))
        else:
            self._show(None)
        self.stack.setCurrentWidget(self.splitter if skills else self.empty_label)
        self.hint_label.setVisible(bool(skills))
        total = review.queue_count(self.store)   # the one count of what awaits review (the tab's too)
        self.count_label.setText(f"To review · {total}" + (f" (the {len(skills):,} longest waiting shown)"
                                                           if total > len(skills) else ""))
        for action in self.actions_by_id.values():
            action.setEnabled(bool(skills))
        self.countChanged.emit(total)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._stale:
            self.refresh()

    def shutdown(self) -> None:
        """Stop the search for nearest skills and wait for it (before the view goes)."""
        if self._built:
            self.detail.shutdown()

    def closeEvent(self, event) -> None:
        self.shutdown()
        super().closeEvent(event)

    def count(self) -> int:
        """How many skills await review, by core's one definition (the queue may show fewer)."""
        return review.queue_count(self.store)

    def current_name(self) -> str | None:
        self.build()
        skill = self.model.skill(self.list.currentIndex().row())
        return skill.name if skill is not None else None

    def select_name(self, name: str) -> bool:
        """Select ``name`` if it is queued; returns whether it is."""
        self.build()
        row = self.model.row_of(name)
        if row >= 0:
            self._select_row(row)
        return row >= 0

    def is_rejecting(self) -> bool:
        """Whether the reason editor is open."""
        return self._rejecting is not None

    def start_reject(self) -> None:
        """Open the reason editor under the buttons and put the keyboard in it."""
        if self._typing():
            return
        name = self.current_name()
        if name is None:
            return
        self._rejecting = name
        self.detail.reason_error.hide()
        self.detail.reject_row.show()
        self.detail.reason_edit.setFocus(Qt.ShortcutFocusReason)
        self.detail.reason_edit.selectAll()

    def confirm_reject(self) -> None:
        """Ask for the rejection with the typed reason; a blank reason only says one is required."""
        self.build()
        reason = self.detail.reason_edit.text().strip()
        if not reason:
            self.detail.reason_error.show()
            self.detail.reason_edit.setFocus()
            return
        name = self._rejecting or self.current_name()
        self._close_reject()
        if name:
            self.rejectRequested.emit(name, reason)

    def cancel_reject(self) -> None:
        self._close_reject()

    # --- slots -------------------------------------------------------------------

    def _typing(self) -> bool:
        # Single letters belong to the reason field while it has the keyboard.
        self.build()
        return self.detail.reason_edit.hasFocus()

    def _approve(self) -> None:
        name = self.current_name()
        if name and not self._typing():
            self.approveRequested.emit(name)

    def _merge(self) -> None:
        name = self.current_name()
        if name and not self._typing():
            self.mergeRequested.emit(name, self.detail.picked)

    def _open(self, *_) -> None:
        name = self.current_name()
        if name and not self._typing():
            self.openRequested.emit(name)

    def _next(self) -> None:
        self._step(1)

    def _previous(self) -> None:
        self._step(-1)

    # Compare with the 1st-3rd nearest skill: a diff for a near copy, else the pane says it is only related.
    def _compare_1(self) -> None:
        self.detail.pick_neighbour(0)

    def _compare_2(self) -> None:
        self.detail.pick_neighbour(1)

    def _compare_3(self) -> None:
        self.detail.pick_neighbour(2)

    def _step(self, delta: int) -> None:
        row = self.list.currentIndex().row() + delta
        if not self._typing() and 0 <= row < self.model.rowCount():
            self._select_row(row)

    def _select_row(self, row: int) -> None:
        index = self.model.index(row, 0)
        self.list.selectionModel().setCurrentIndex(index, QItemSelectionModel.ClearAndSelect)
        self.list.scrollTo(index)
        self._current_changed()   # the current row may not have moved (after a refresh)

    def _current_changed(self, *_) -> None:
        name = self.current_name()
        if name != self.detail.name or (name is not None and self.detail.skill is None):
            self._show(name)

    def _show(self, name: str | None) -> None:
        if self._rejecting is not None and self._rejecting != name:
            self._close_reject()   # a reason typed for one skill must never reject another
        self.detail.show_skill(name)

    def _reason_edited(self) -> None:
        self.detail.reason_error.hide()

    def _close_reject(self) -> None:
        self.build()
        self._rejecting = None
        focus = QApplication.focusWidget()
        inside = focus is not None and self.isAncestorOf(focus)
        self.detail.reason_edit.clear()
        self.detail.reason_error.hide()
        self.detail.reject_row.hide()
        if inside:
            self.list.setFocus(Qt.OtherFocusReason)

    # --- theme and keys ----------------------------------------------------------

    def _apply_colours(self) -> None:
        t = current_tokens()
        self.list.setStyleSheet(f"QListView {{ background: {t.surface}; }}")

    def _recolour(self) -> None:
        self._recolour_pending = False
        if not self._built:   # made with the current colours
            return
        self._apply_colours()
        self.detail.apply_colours()
        self.list.viewport().update()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        # The theme sets the palette before it publishes its tokens: recolour once the event loop runs.
        if event.type() in (QEvent.PaletteChange, QEvent.StyleChange) and not self._recolour_pending:
            self._recolour_pending = True
            QTimer.singleShot(0, self, self._recolour)

    def eventFilter(self, obj, event) -> bool:
        kind = event.type()
        if kind in (QEvent.ShortcutOverride, QEvent.KeyPress):
            key, plain = event.key(), event.modifiers() in (Qt.NoModifier, Qt.KeypadModifier)
            # Claim Return in the queue and Escape in the reason field before any window shortcut.
            if (obj is self.list and key in _RETURN_KEYS and plain) or \
                    (obj is self.detail.reason_edit and key == Qt.Key_Escape):
                if kind == QEvent.KeyPress and obj is self.list:
                    self._open()
                elif kind == QEvent.KeyPress:
                    self.cancel_reject()
                event.accept()
                return True
        return super().eventFilter(obj, event)
