"""The skill browser: cards or a sortable table of one model, under a filter bar."""

from __future__ import annotations

from PySide6.QtCore import QItemSelection, QItemSelectionModel, QModelIndex, QSize, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from skill_studio.core.ops.changes import ChangeSet
from skill_studio.core.store import Filters
from skill_studio.ui.library.card_view import CardView
from skill_studio.ui.library.empty_state import empty_state_html
from skill_studio.ui.library.filter_bar import FilterBar
from skill_studio.ui.library.models import COLUMNS, NAME_ROLE, SORTABLE, SkillListModel, row_runs
from skill_studio.ui.library.skill_table import SkillTable

VIEW_MODES = ("cards", "list")

class BrowserWidget(QWidget):
    """Browses the skills of a :class:`SkillListModel` as cards or as a sortable table.

    Both views share one selection model, so switching views keeps the selection, and the
    selection is kept by skill name whenever the model reloads.
    """

    selectionChanged = Signal(list)     # selected skill names
    skillActivated = Signal(str)        # double-click or Enter on a skill
    filtersChanged = Signal(object)     # the Filters now in force

    def __init__(self, model: SkillListModel, parent: QWidget | None = None, *, load: bool = True):
        """``load=False`` leaves the names unread until :meth:`restore_state` (or :meth:`refresh`):
        a window that restores the saved filters right away reads them once, not twice. The tags
        wait for :meth:`load_tags` too, unless the saved filters name a tag (they are read then)."""
        super().__init__(parent)
        self._model = model
        self._applying = False
        self._kept: tuple[list[str], str | None] = ([], None)
        self._last_emitted: list[str] | None = None
        self._tags_pending = not load
        self._build()
        self._connect()
        if load:
            self.refresh()

    # --- construction ---------------------------------------------------------

    def _build(self) -> None:
        self.filter_bar = FilterBar(self)
        # The filter bar's controls, under the names callers know.
        self.tabs = self.filter_bar.tabs
        self.origin_combo = self.filter_bar.origin_combo
        self.tag_combo = self.filter_bar.tag_combo
        self.search = self.filter_bar.search
        self.sort_button = self.filter_bar.sort_button
        self.sort_menu = self.filter_bar.sort_menu
        self.sort_actions = self.filter_bar.sort_actions
        self.descending_action = self.filter_bar.descending_action

        self.card_view = CardView(self)
        self.delegate = self.card_view.card_delegate
        self.card_view.setModel(self._model)

        self.table_view = SkillTable(self)
        self.table_view.setObjectName("tableView")
        self.table_view.setModel(self._model)
        self.table_view.setSelectionModel(self.card_view.selectionModel())
        self.table_view.setSelectionMode(QAbstractItemView.ExtendedSelection)
        self.table_view.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table_view.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table_view.setShowGrid(False)
        self.table_view.setAlternatingRowColors(True)
        self.table_view.setWordWrap(False)
        self.table_view.setDragEnabled(True)
        self.table_view.setDragDropMode(QAbstractItemView.DragOnly)
        self.table_view.verticalHeader().hide()
        # Fixed row heights: the header never asks 100,000 rows for their size.
        self.table_view.verticalHeader().setSectionResizeMode(QHeaderView.Fixed)
        self.table_view.verticalHeader().setDefaultSectionSize(max(26, self.fontMetrics().height() + 10))
        header = self.table_view.horizontalHeader()
        header.setSectionsClickable(True)
        header.setSortIndicatorShown(True)
        header.setHighlightSections(False)
        header.setTextElideMode(Qt.ElideRight)

        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.card_view)
        self.stack.addWidget(self.table_view)

        self.empty_label = QLabel(self.stack)
        self.empty_label.setObjectName("emptyState")
        self.empty_label.setProperty("role", "muted")
        self.empty_label.setAlignment(Qt.AlignCenter)
        self.empty_label.setWordWrap(True)
        self.empty_label.setTextFormat(Qt.RichText)
        self.empty_label.setContentsMargins(0, 40, 0, 40)
        self.empty_label.hide()

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.filter_bar)
        layout.addWidget(self.stack, 1)
        self.setFocusProxy(self.card_view)

    def _connect(self) -> None:
        self.filter_bar.changed.connect(self._apply_filters)
        self.filter_bar.searchSubmitted.connect(self._search_now)
        self.table_view.horizontalHeader().sortIndicatorChanged.connect(self._header_sorted)
        self.empty_label.linkActivated.connect(self._link_activated)

        self.delegate.tagClicked.connect(self.filter_by_tag)
        # A star clicked in the list is the same request as one clicked on a card.
        self.table_view.list_delegate.starClicked.connect(self.delegate.starClicked)
        self.card_view.activated.connect(self._activated)
        self.table_view.activated.connect(self._activated)
        self.card_view.selectionModel().selectionChanged.connect(self._selection_changed)
        self._model.modelAboutToBeReset.connect(self._keep_selection)
        self._model.modelReset.connect(self._restore_selection)
        self._model.modelReset.connect(self._update_empty_state)
        self._model.rowsInserted.connect(self._update_empty_state)
        self._model.rowsRemoved.connect(self._update_empty_state)
        self._model.queryChanged.connect(self._query_changed)

    # --- public API -------------------------------------------------------------

    @property
    def model(self) -> SkillListModel:
        return self._model

    def set_view_mode(self, mode: str) -> None:
        """Show the skills as 'cards' or as a 'list' (a sortable table). Raises ValueError."""
        if mode not in VIEW_MODES:
            raise ValueError(f"view mode must be one of {', '.join(VIEW_MODES)}, not {mode!r}")
        had_focus = self.current_view().hasFocus()
        self.stack.setCurrentIndex(VIEW_MODES.index(mode))
        view = self.current_view()
        self.setFocusProxy(view)
        current = view.selectionModel().currentIndex()
        if current.isValid():
            view.scrollTo(current)
        if had_focus:
            view.setFocus()
        self._update_empty_state()

    def view_mode(self) -> str:
        return VIEW_MODES[self.stack.currentIndex()]

    def current_view(self) -> QAbstractItemView:
        return self.stack.currentWidget()

    def selected_names(self) -> list[str]:
        """The selected skills' names, in the order the model shows them."""
        rows = sorted({i.row() for i in self.card_view.selectionModel().selectedIndexes()})
        return [n for n in (self._model.name_at(r) for r in rows) if n is not None]

    def select_name(self, name: str) -> bool:
        """Select this skill alone and scroll to it; False if the current filters hide it."""
        row = self._model.row_of(name)
        if row < 0:
            return False
        self._select_rows([row], current=row)
        self.current_view().scrollTo(self._model.index(row, 0))
        return True

    def select_names(self, names: list[str]) -> None:
        """Select these skills (those the filters show); the first becomes current."""
        rows = [r for r in (self._model.row_of(n) for n in names) if r >= 0]
        self._select_rows(rows, current=rows[0] if rows else None)

    def select_all(self) -> None:
        """Select every skill shown; in the search field, select its text instead."""
        if self.search.hasFocus():
            self.search.selectAll()
            return
        rows = self._model.rowCount()
        current = self.card_view.selectionModel().currentIndex()
        self._select_rows(list(range(rows)), current.row() if current.isValid() else (0 if rows else None))

    def viewport_update(self) -> None:
        """Repaint the views (after a theme change: cards draw with the current tokens)."""
        self.card_view.viewport().update()
        self.table_view.viewport().update()

    def focus_search(self) -> None:
        self.filter_bar.focus_search()

    def filters(self) -> Filters:
        """The filters the controls describe (the search text as typed, before the delay)."""
        return self.filter_bar.filters()

    def sort_key(self) -> tuple[str, bool]:
        """The sort in force: relevance while a search is set (until the user picks another order
        for it), else the user's choice, else name."""
        return self.filter_bar.sort_key()

    def filter_by_tag(self, tag: str) -> None:
        """Show only the skills with this tag (the tag filter shows it)."""
        self.filter_bar.set_tag(tag)
        self._apply_filters()

    def load_tags(self) -> None:
        """Read the tag filter's tags if they were left unread (``load=False``)."""
        if self._tags_pending:
            self._read_tags()

    def _read_tags(self) -> None:
        self._tags_pending = False
        self.filter_bar.set_tags(self._model.store.tags())

    def refresh(self) -> None:
        """Read names, counts and tags again from the store; the selection is kept by name."""
        self._read_tags()
        self._model.reload()
        self._update_counts()
        self._sync_sort_controls()
        self._update_empty_state()

    def apply_changes(self, changes: ChangeSet) -> str:
        """Follow an operation's change set: the changed rows, or the list when it is not the same
        any more (see :meth:`SkillListModel.apply_changes`); tags and tab counts read again."""
        if not (changes.skills or changes.unknown):
            return ""
        self._read_tags()
        done = self._model.apply_changes(changes)
        self._update_counts()
        if done == "reset":
            self._sync_sort_controls()
        self._update_empty_state()
        return done

    def clear_filters(self) -> None:
        """Show every skill: All tab, all origins, all tags, no search."""
        self.filter_bar.clear()
        self._apply_filters()

    def state(self) -> dict:
        """View mode, filters and sort as plain values (for settings)."""
        return {"view_mode": self.view_mode(), **self.filter_bar.state()}

    def restore_state(self, state: dict) -> None:
        """Apply what :meth:`state` returned; unknown or stale values fall back to the defaults."""
        state = state or {}
        mode = state.get("view_mode")
        if mode in VIEW_MODES:
            self.set_view_mode(mode)
        if state.get("tag"):   # the saved tag is chosen among the tags (with its count)
            self.load_tags()
        self.filter_bar.restore_state(state)
        self._apply_filters()

    # --- filters, search and sort ---------------------------------------------------

    def _apply_filters(self, *_args) -> None:
        if self._applying:
            return
        self.filter_bar.cancel_pending_search()
        flt = self.filters()
        sort, descending = self.sort_key()
        self._applying = True
        try:
            self._model.store.prefetch_counts(flt)  # counted beside the names, for the tabs and stats
            self._model.set_query(flt, sort, descending)
        finally:
            self._applying = False
        self._update_counts()
        self._sync_sort_controls()
        self._update_empty_state()
        self.filtersChanged.emit(flt)

    def _search_now(self) -> None:
        if self.filter_bar.search_pending() or self.search.text().strip() != (self._model.filters.text or ""):
            self._apply_filters()

    def _header_sorted(self, section: int, order: Qt.SortOrder) -> None:
        if self._applying or not 0 <= section < len(COLUMNS):
            return
        if COLUMNS[section][0] not in SORTABLE:   # the description: no order of its own
            self._sync_sort_controls()
            return
        self.filter_bar.set_sort(COLUMNS[section][0], order == Qt.DescendingOrder)
        self._apply_filters()

    def _query_changed(self) -> None:
        """Someone else (the table header, a caller) changed the model's sort: follow it."""
        if self._applying:
            return
        sort, descending = self._model.sort_key
        if (sort, descending) != self.sort_key():
            self.filter_bar.set_sort(sort, descending)
        self._sync_sort_controls()
        self._update_empty_state()

    def _sync_sort_controls(self) -> None:
        sort, descending = self.filter_bar.sync_sort_controls()
        header = self.table_view.horizontalHeader()
        column = next((i for i, (key, _) in enumerate(COLUMNS) if key == sort), -1)
        header.blockSignals(True)
        try:
            header.setSortIndicator(column, Qt.DescendingOrder if descending else Qt.AscendingOrder)
        finally:
            header.blockSignals(False)
        header.viewport().update()

    def _update_counts(self) -> None:
        flt = self.filters()
        counts = self._model.store.counts(Filters(origin=flt.origin, tag=flt.tag, text=flt.text))
        self.filter_bar.set_counts(counts["lifecycle"])

    # --- empty state ------------------------------------------------------------------

    def _update_empty_state(self, *_args) -> None:
        if self._model.rowCount() > 0:
            self.empty_label.hide()
            return
        self.empty_label.setText(empty_state_html(len(self._model.store) == 0, self.filters()))
        self._place_empty_label()
        self.empty_label.show()
        self.empty_label.raise_()

    def _link_activated(self, link: str) -> None:
        if link == "clear":
            self.clear_filters()

    def _place_empty_label(self) -> None:
        # A readable measure: centred, at most 560 px wide, over the views.
        area = self.stack.rect()
        width = min(560, max(100, area.width() - 40))
        self.empty_label.setGeometry(area.center().x() - width // 2, 0, width, area.height())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._place_empty_label()

    # --- selection --------------------------------------------------------------------

    def _select_rows(self, rows: list[int], current: int | None) -> None:
        selection = QItemSelection()
        last_col = self._model.columnCount() - 1
        for start, end in row_runs(sorted(set(rows))):
            selection.select(self._model.index(start, 0), self._model.index(end, last_col))
        sm = self.card_view.selectionModel()
        if current is not None:
            sm.setCurrentIndex(self._model.index(current, 0), QItemSelectionModel.NoUpdate)
        sm.select(selection, QItemSelectionModel.ClearAndSelect)

    def _keep_selection(self) -> None:
        current = self.card_view.selectionModel().currentIndex()
        self._kept = (self.selected_names(), current.data(NAME_ROLE) if current.isValid() else None)

    def _restore_selection(self) -> None:
        names, current = self._kept
        self._kept = ([], None)
        rows = [r for r in (self._model.row_of(n) for n in names) if r >= 0]
        current_row = self._model.row_of(current) if current else -1
        if rows or current_row >= 0:
            self._select_rows(rows, current_row if current_row >= 0 else rows[0])
        self._selection_changed()

    def _selection_changed(self, *_args) -> None:
        names = self.selected_names()
        if names != self._last_emitted:
            self._last_emitted = names
            self.selectionChanged.emit(names)

    def _activated(self, index: QModelIndex) -> None:
        name = index.data(NAME_ROLE)
        if name:
            self.skillActivated.emit(name)

    def sizeHint(self) -> QSize:
        return QSize(1000, 700)

