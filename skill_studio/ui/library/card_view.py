"""The card view of the browser: cards flow to the width (as many columns as fit, sharing the row
evenly), the parts of a card that do something on a click show a hand cursor, and while it scrolls
the cards about to come into sight are fetched, then drawn into the kept pictures, between frames.
While it moves more than a row at a time again and again (a fast drag of the scroll bar, a spun
wheel: many cards in sight are new at every frame) the cards not kept yet are sketched, and drawn in
full between frames as soon as the scrolling slows or stops; a single jump (Home, End, a new filter)
lands on cards drawn in full."""

from __future__ import annotations

import time

from PySide6.QtCore import QEvent, QObject, QPoint, QRect, Qt, QTimer
from PySide6.QtWidgets import QAbstractItemView, QListView, QStyle, QStyleOptionViewItem

from skill_studio.ui.library.card_cache import background_of
from skill_studio.ui.library.card_delegate import CardDelegate, columns_for

#: The most one turn of the event loop between frames spends drawing the cards ahead (in seconds):
#: the rest waits for the next turn, so input and frames are never held up for long.
WARM_SLICE = 0.004
#: Two big moves of the scroll bar (more than a row of cards) less than this apart are fast
#: scrolling (its cards sketched); this long after the last move the scrolling has stopped and the
#: sketched cards in sight are drawn in full (in milliseconds; a drag or a spun wheel moves the bar
#: far more often).
SETTLE_MS = 50
_now = time.monotonic   # the clock moves are timed by (a test moves its own)


class CardView(QListView):
    """A wrapping list of cards painted by one :class:`CardDelegate` (``card_delegate``)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("cardView")
        self.setViewMode(QListView.ListMode)
        self.setFlow(QListView.LeftToRight)
        self.setWrapping(True)
        self.setMovement(QListView.Static)
        self.setResizeMode(QListView.Adjust)
        self.setUniformItemSizes(True)
        self.setSpacing(0)   # each card keeps a margin inside its cell
        # Never sideways; the vertical bar always shown, so its coming and going never re-flows.
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarAlwaysOn)
        self.setSelectionMode(QAbstractItemView.ExtendedSelection)
        # Whole rows, as the table selects them: the two views share one selection model.
        self.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.setSelectionRectVisible(True)
        self.setVerticalScrollMode(QAbstractItemView.ScrollPerPixel)
        self.setMouseTracking(True)
        self.viewport().setAttribute(Qt.WA_Hover, True)
        self.setDragEnabled(True)
        self.setDragDropMode(QAbstractItemView.DragOnly)
        self.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.card_delegate = CardDelegate(self)
        self.setItemDelegate(self.card_delegate)
        self.viewport().installEventFilter(self)
        self._scrolled = 0   # the last move of the scroll bar, in pixels (up is negative)
        self._ahead = QTimer(self)
        self._ahead.setSingleShot(True)
        self._ahead.setInterval(0)
        self._ahead.timeout.connect(self.fetch_ahead)
        self._warm = QTimer(self)   # draws the cards ahead a slice at a time, after the fetch
        self._warm.setSingleShot(True)
        self._warm.setInterval(0)
        self._warm.timeout.connect(self._warm_slice)
        self._settle = QTimer(self)   # a jump and then nothing for a while: the scrolling stopped
        self._settle.setSingleShot(True)
        self._settle.setInterval(SETTLE_MS)
        self._fill = QTimer(self)     # draws the sketched cards in sight in full, a slice at a time
        self._fill.setSingleShot(True)
        self._fill.setInterval(0)
        self._settle.timeout.connect(self._settled)
        self._fill.timeout.connect(self._fill_slice)
        self._at = self.verticalScrollBar().value()
        self._last_big = float("-inf")   # when the scroll bar last moved more than a row
        self.verticalScrollBar().valueChanged.connect(self._moved)

    def _moved(self, value: int) -> None:
        self._scrolled, self._at = value - self._at, value
        self._warm.stop()
        height = self.viewport().height()
        now = _now()
        # More than a row of cards at once (a wheel notch moves three, an arrow one): many new cards.
        big = abs(self._scrolled) > max(1, self.verticalScrollBar().singleStep())
        fast = big and now - self._last_big < SETTLE_MS / 1000
        if big:
            self._last_big = now
        if fast:   # big moves again and again (a fast drag, a spun wheel): sketch until it stops
            if not self.card_delegate.sketching:
                self.card_delegate.sketching = True
                self._fill.stop()
            self._settle.start()
            if abs(self._scrolled) <= height:
                self._ahead.start()   # (the cards that follow still come in turn: drawn ahead)
            return
        if abs(self._scrolled) > height:   # a single jump (Home, End): drawn in full
            self._settle.start()
            return
        self._ahead.start()
        if self.card_delegate.sketching:   # slowed down: the new cards in full, the sketched ones now
            self.card_delegate.sketching = False
            self._settle.stop()
            self._fill.start()

    def _settled(self) -> None:
        if self.card_delegate.sketching or self.card_delegate.sketched:
            self._fill.start()

    def filling(self) -> bool:
        """Whether sketched cards may be in sight, not yet drawn in full."""
        delegate = self.card_delegate
        return delegate.sketching or bool(delegate.sketched) or self._fill.isActive()

    def rows_in_sight(self) -> tuple[int, int] | None:
        """The first and last rows of the cards in sight (some only in part), or None."""
        model = self.model()
        if model is None or model.rowCount() == 0:
            return None
        rect = self.viewport().rect()
        first = self.indexAt(QPoint(1, 1))
        if not first.isValid():
            return None
        last = self.indexAt(QPoint(rect.width() - 2, rect.height() - 2))
        if not last.isValid():
            last = self.indexAt(QPoint(1, rect.height() - 2))
        end = last.row() + self.columns() - 1 if last.isValid() else model.rowCount() - 1
        return first.row(), min(end, model.rowCount() - 1)

    def _fill_slice(self) -> None:
        """Draw the cards in sight that are not kept in full yet (a slice at a time, each shown as it
        is drawn); then the whole view once more, so no sketch is left (a card whose state the view
        alone knows, the one under the mouse, is drawn in full by that paint)."""
        rows = self.rows_in_sight()
        if rows is not None:
            _drawn, more = self.warm_rows(rows, WARM_SLICE, show=True)
            if more:
                self._fill.start()
                return
        delegate = self.card_delegate
        delegate.sketching = False
        if delegate.sketched:
            delegate.sketched = 0
            self.viewport().update()

    def rows_ahead(self) -> tuple[int, int] | None:
        """The rows of the screenful after the cards in sight, in the way the view last scrolled,
        when it moved by less than a screen (a wheel, the arrow keys; a jump lands anywhere)."""
        model = self.model()
        height = self.viewport().height()
        if model is None or not self._scrolled or abs(self._scrolled) > height or model.rowCount() == 0:
            return None
        first = self.indexAt(QPoint(1, 1))
        last = self.indexAt(QPoint(1, height - 2))
        if not first.isValid() or not last.isValid():
            return None
        span = last.row() - first.row() + self.columns()
        if self._scrolled > 0:
            return last.row() + self.columns(), last.row() + self.columns() + span
        return max(0, first.row() - span), first.row() - 1

    def fetch_ahead(self) -> None:
        """Have the model fetch the cards of :meth:`rows_ahead` (off the paint path: the next frames
        find them fetched)."""
        rows = self.rows_ahead()
        prefetch = getattr(self.model(), "prefetch", None)
        if rows is not None and prefetch is not None:
            prefetch(*rows)
        if rows is not None and not self.card_delegate.sketching:
            self._warm_slice()   # now: by the next turn another frame may have come
            # (while scrolling fast they would be gone before they are seen: sketched instead)

    def warm_ahead(self, budget: float | None = None) -> tuple[int, bool]:
        """Draw the cards of :meth:`rows_ahead` that are not kept yet into the delegate's pictures,
        as the view will paint them, for at most ``budget`` seconds (None: all of them); returns how
        many were drawn and whether some are left. Painting them later only copies them."""
        rows = self.rows_ahead()
        return (0, False) if rows is None else self.warm_rows(rows, budget)

    def warm_rows(self, rows: tuple[int, int], budget: float | None = None, show: bool = False) -> tuple[int, bool]:
        """Draw the cards of the rows ``rows`` (first, last) not kept yet into the delegate's
        pictures (see :meth:`warm_ahead`); ``show``: have each painted again once drawn."""
        model = self.model()
        if model is None:
            return 0, False
        started = time.perf_counter()
        option = QStyleOptionViewItem()
        self.initViewItemOption(option)
        base_state = option.state & ~(QStyle.State_Selected | QStyle.State_MouseOver | QStyle.State_HasFocus)
        selection, current = self.selectionModel(), self.currentIndex()
        focused = self.hasFocus()
        ratio = self.viewport().devicePixelRatioF()
        drawn = 0
        for row in range(max(0, rows[0]), min(rows[1], model.rowCount() - 1) + 1):
            index = model.index(row, 0)
            option.rect = QRect(QPoint(0, 0), self.visualRect(index).size())
            state = base_state
            if selection is not None and selection.isSelected(index):
                state |= QStyle.State_Selected
            if focused and index == current:
                state |= QStyle.State_HasFocus
            option.state = state
            if self.card_delegate.warm(option, index, ratio):
                drawn += 1
                if show:
                    self.viewport().update(self.visualRect(index))
                if budget is not None and time.perf_counter() - started >= budget:
                    return drawn, row < rows[1]
        return drawn, False

    def _warm_slice(self) -> None:
        _drawn, more = self.warm_ahead(WARM_SLICE)
        if more:
            self._warm.start()

    def paintEvent(self, event) -> None:
        option = QStyleOptionViewItem()
        self.initViewItemOption(option)
        self.card_delegate.painting = (self, background_of(option))
        try:
            super().paintEvent(event)
        finally:
            self.card_delegate.painting = None

    def columns(self) -> int:
        """How many cards a row holds now."""
        return columns_for(self.viewport().width())[0]

    def flow(self) -> None:
        """Size the cards to share the width evenly (called on every resize)."""
        _n, width = columns_for(self.viewport().width())
        if width != self.card_delegate.card_width:
            self.card_delegate.card_width = width
            self.doItemsLayout()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.viewport():
            if event.type() == QEvent.Resize:
                self.flow()
            elif event.type() == QEvent.MouseMove:
                self._hover(event.position().toPoint())
        return super().eventFilter(watched, event)

    def _hover(self, pos) -> None:
        index = self.indexAt(pos)
        clickable = False
        if index.isValid():
            option = QStyleOptionViewItem()
            self.initViewItemOption(option)
            option.rect = self.visualRect(index)
            clickable = self.card_delegate.clickable_at(option, index, pos)
        if clickable:
            self.viewport().setCursor(Qt.PointingHandCursor)
        else:
            self.viewport().unsetCursor()
