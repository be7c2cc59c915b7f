"""The skill browser: lifecycle tabs, filters, search and sort over cards or a table of one model."""

from __future__ import annotations

from PySide6.QtCore import QItemSelection, QItemSelectionModel, QModelIndex, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QKeySequence, QShortcut
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QHBoxLayout, QHeaderView, QLabel, QLineEdit,
                               QListView, QMenu, QStackedWidget, QTabBar, QTableView, QToolButton,
                               QVBoxLayout, QWidget)

from skill_studio.core.model import Lifecycle, Origin
from skill_studio.core.store import Filters
from skill_studio.ui.card_delegate import CardDelegate
from skill_studio.ui.models import COLUMNS, NAME_ROLE, SkillListModel

#: Lifecycle tabs in display order; None is "All".
TABS: list[tuple[str | None, str]] = [(None, "All")] + [
    (s.value, s.label) for s in (Lifecycle.RELEASED, Lifecycle.VERIFIED, Lifecycle.CANDIDATE,
                                 Lifecycle.DEGRADED, Lifecycle.DEPRECATED, Lifecycle.ARCHIVED)]
#: Sort keys offered in the sort menu, with their labels.
SORTS: list[tuple[str, str]] = COLUMNS + [("relevance", "Relevance")]
VIEW_MODES = ("cards", "list")
SEARCH_DELAY_MS = 250

EMPTY_STORE = ("No skills yet. Import skill folders or .skill/.zip files (File ▸ Import, or drop them "
               "here), or create a new skill (File ▸ New skill).")


class BrowserWidget(QWidget):
    """Browses the skills of a :class:`SkillListModel` as cards or as a sortable table.

    Both views share one selection model, so switching views keeps the selection, and the
    selection is kept by skill name whenever the model reloads.
    """

    selectionChanged = Signal(list)     # selected skill names
    skillActivated = Signal(str)        # double-click or Enter on a skill
    filtersChanged = Signal(object)     # the Filters now in force

    def __init__(self, model: SkillListModel, parent: QWidget | None = None):
        super().__init__(parent)
        self._model = model
        self._user_sort: str | None = None   # None: name
        self._applying = False
        self._kept: tuple[list[str], str | None] = ([], None)
        self._last_emitted: list[str] | None = None
        self._build()
        self._connect()
        self.refresh()

    # --- construction ---------------------------------------------------------

    def _build(self) -> None:
        self.tabs = QTabBar(self)
        self.tabs.setObjectName("lifecycleTabs")
        self.tabs.setDrawBase(False)
        self.tabs.setExpanding(False)
        self.tabs.setUsesScrollButtons(True)
        # Flat tabs with an underline; palette(highlight) follows the theme's accent.
        self.tabs.setStyleSheet(
            "QTabBar::tab { border: none; border-bottom: 2px solid transparent; background: transparent;"
            " padding: 5px 12px; margin-right: 2px; }"
            "QTabBar::tab:selected { border-bottom: 2px solid palette(highlight); }"
            "QTabBar::tab:hover:!selected { border-bottom: 2px solid palette(mid); }")
        for value, label in TABS:
            self.tabs.setTabData(self.tabs.addTab(label), value)

        self.origin_combo = QComboBox(self)
        self.origin_combo.setObjectName("originFilter")
        self.origin_combo.addItem("All origins", None)
        for origin in Origin:
            self.origin_combo.addItem(origin.value, origin.value)
        self.origin_combo.setToolTip("Show only skills of this origin")

        self.tag_combo = QComboBox(self)
        self.tag_combo.setObjectName("tagFilter")
        self.tag_combo.setToolTip("Show only skills with this tag")
        self.tag_combo.setSizeAdjustPolicy(QComboBox.AdjustToContents)
        self.tag_combo.setMinimumContentsLength(12)
        self.tag_combo.setMaxVisibleItems(20)
        self.tag_combo.addItem("All tags", None)

        self.search = QLineEdit(self)
        self.search.setObjectName("search")
        self.search.setPlaceholderText("Search skills (Ctrl+F)")
        self.search.setClearButtonEnabled(True)
        self.search.setMinimumWidth(200)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)

        self.sort_button = QToolButton(self)
        self.sort_button.setObjectName("sortButton")
        self.sort_button.setPopupMode(QToolButton.InstantPopup)
        self.sort_button.setToolButtonStyle(Qt.ToolButtonTextOnly)
        # The style's menu arrow overlaps the text; the text carries its own.
        self.sort_button.setStyleSheet("QToolButton#sortButton { padding: 3px 8px; }"
                                       "QToolButton#sortButton::menu-indicator { image: none; width: 0; }")
        self.sort_menu = QMenu(self.sort_button)
        self._sort_group = QActionGroup(self)
        self._sort_group.setExclusive(True)
        self.sort_actions: dict[str, QAction] = {}
        for key, label in SORTS:
            action = self.sort_menu.addAction(label)
            action.setCheckable(True)
            action.setData(key)
            self._sort_group.addAction(action)
            self.sort_actions[key] = action
        self.sort_menu.addSeparator()
        self.descending_action = self.sort_menu.addAction("Descending")
        self.descending_action.setCheckable(True)
        self.sort_button.setMenu(self.sort_menu)

        tabs_row = QHBoxLayout()
        tabs_row.setContentsMargins(6, 4, 6, 0)
        tabs_row.addWidget(self.tabs, 1)
        filters_row = QHBoxLayout()
        filters_row.setContentsMargins(6, 4, 6, 6)
        filters_row.setSpacing(6)
        filters_row.addWidget(self.search, 1)
        filters_row.addWidget(self.origin_combo)
        filters_row.addWidget(self.tag_combo)
        filters_row.addWidget(self.sort_button)

        self.card_view = QListView(self)
        self.card_view.setObjectName("cardView")
        self.card_view.setViewMode(QListView.ListMode)
        self.card_view.setFlow(QListView.LeftToRight)
        self.card_view.setWrapping(True)
        self.card_view.setMovement(QListView.Static)
        self.card_view.setResizeMode(QListView.Adjust)
        self.card_view.setUniformItemSizes(True)
        self.card_view.setSpacing(6)
        self.card_view.setSelectionMode(QAbstractItemView.ExtendedSelection)
        # Whole rows, as the table selects them: the two views share one selection model.
        self.card_view.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.card_view.setSelectionRectVisible(True)
        self.card_view.setVerticalScrollMode(QAbstractItemView.ScrollPerPixel)
        self.card_view.setMouseTracking(True)
        self.card_view.viewport().setAttribute(Qt.WA_Hover, True)
        self.card_view.setDragEnabled(True)
        self.card_view.setDragDropMode(QAbstractItemView.DragOnly)
        self.card_view.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.delegate = CardDelegate(self.card_view)
        self.card_view.setItemDelegate(self.delegate)
        self.card_view.setModel(self._model)

        self.table_view = QTableView(self)
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
        self.table_view.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 10)
        self.table_view.verticalHeader().setDefaultSectionSize(26)
        header = self.table_view.horizontalHeader()
        header.setSectionsClickable(True)
        header.setSortIndicatorShown(True)
        header.setHighlightSections(False)
        header.setStretchLastSection(True)
        header.setSectionResizeMode(QHeaderView.Interactive)
        header.resizeSection(0, 220)
        for col in range(1, len(COLUMNS)):
            header.resizeSection(col, 95)

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
        layout.addLayout(tabs_row)
        layout.addLayout(filters_row)
        layout.addWidget(self.stack, 1)
        self.setFocusProxy(self.card_view)

    def _connect(self) -> None:
        self.tabs.currentChanged.connect(self._apply_filters)
        self.origin_combo.currentIndexChanged.connect(self._apply_filters)
        self.tag_combo.currentIndexChanged.connect(self._apply_filters)
        self.search.textChanged.connect(self._search_timer.start)
        self.search.returnPressed.connect(self._search_now)
        self._search_timer.timeout.connect(self._apply_filters)
        self._sort_group.triggered.connect(self._sort_chosen)
        self.descending_action.toggled.connect(self._descending_chosen)
        self.table_view.horizontalHeader().sortIndicatorChanged.connect(self._header_sorted)
        self.empty_label.linkActivated.connect(self._link_activated)

        self.card_view.activated.connect(self._activated)
        self.table_view.activated.connect(self._activated)
        self.card_view.selectionModel().selectionChanged.connect(self._selection_changed)
        self._model.modelAboutToBeReset.connect(self._keep_selection)
        self._model.modelReset.connect(self._restore_selection)
        self._model.modelReset.connect(self._update_empty_state)
        self._model.rowsInserted.connect(self._update_empty_state)
        self._model.rowsRemoved.connect(self._update_empty_state)
        self._model.queryChanged.connect(self._query_changed)

        # Ctrl+F belongs to the window's Find action (it calls focus_search); a second
        # shortcut here would make the key ambiguous and neither would fire.
        clear = QShortcut(QKeySequence(Qt.Key_Escape), self.search, self._clear_search)
        clear.setContext(Qt.WidgetShortcut)

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
        self.search.setFocus(Qt.ShortcutFocusReason)
        self.search.selectAll()

    def filters(self) -> Filters:
        """The filters the controls describe (the search text as typed, before the delay)."""
        text = self.search.text().strip() or None
        return Filters(lifecycle=self.tabs.tabData(self.tabs.currentIndex()),
                       origin=self.origin_combo.currentData(), tag=self.tag_combo.currentData(),
                       text=text)

    def sort_key(self) -> tuple[str, bool]:
        """The sort in force: the user's choice, else name. A search filters in the current order
        (ranking every match by relevance is slow on big libraries; it is one click away)."""
        sort = self._user_sort or "name"
        return sort, self.descending_action.isChecked()

    def refresh(self) -> None:
        """Read names, counts and tags again from the store; the selection is kept by name."""
        self._refill_tags()
        self._model.reload()
        self._update_counts()
        self._sync_sort_controls()
        self._update_empty_state()

    def clear_filters(self) -> None:
        """Show every skill: All tab, all origins, all tags, no search."""
        self._applying = True
        try:
            self.tabs.setCurrentIndex(0)
            self.origin_combo.setCurrentIndex(0)
            self.tag_combo.setCurrentIndex(0)
            self.search.clear()
            self._search_timer.stop()
        finally:
            self._applying = False
        self._apply_filters()

    def state(self) -> dict:
        """View mode, filters and sort as plain values (for settings)."""
        flt = self.filters()
        return {"view_mode": self.view_mode(), "lifecycle": flt.lifecycle, "origin": flt.origin,
                "tag": flt.tag, "search": self.search.text(), "sort": self._user_sort,
                "descending": self.descending_action.isChecked()}

    def restore_state(self, state: dict) -> None:
        """Apply what :meth:`state` returned; unknown or stale values fall back to the defaults."""
        state = state or {}
        mode = state.get("view_mode")
        if mode in VIEW_MODES:
            self.set_view_mode(mode)
        self._applying = True
        try:
            lifecycle = state.get("lifecycle")
            tab = next((i for i in range(self.tabs.count()) if self.tabs.tabData(i) == lifecycle), 0)
            self.tabs.setCurrentIndex(tab)
            origin = self.origin_combo.findData(state.get("origin"))
            self.origin_combo.setCurrentIndex(max(0, origin))
            tag = state.get("tag")
            if tag and self.tag_combo.findData(tag) < 0:
                self.tag_combo.addItem(tag, tag)
            self.tag_combo.setCurrentIndex(max(0, self.tag_combo.findData(tag)))
            self.search.setText(str(state.get("search") or ""))
            self._search_timer.stop()
            sort = state.get("sort")
            self._user_sort = sort if sort in dict(SORTS) else None
            self.descending_action.setChecked(bool(state.get("descending", False)))
        finally:
            self._applying = False
        self._apply_filters()

    # --- filters, search and sort ---------------------------------------------------

    def _apply_filters(self, *_args) -> None:
        if self._applying:
            return
        self._search_timer.stop()
        flt = self.filters()
        sort, descending = self.sort_key()
        self._applying = True
        try:
            self._model.set_query(flt, sort, descending)
        finally:
            self._applying = False
        self._update_counts()
        self._sync_sort_controls()
        self._update_empty_state()
        self.filtersChanged.emit(flt)

    def _search_now(self) -> None:
        if self._search_timer.isActive() or self.search.text().strip() != (self._model.filters.text or ""):
            self._apply_filters()

    def _clear_search(self) -> None:
        self.search.clear()
        self._apply_filters()

    def _sort_chosen(self, action: QAction) -> None:
        key = action.data()
        self._user_sort = None if key == "name" else key
        self._apply_filters()

    def _descending_chosen(self, _checked: bool) -> None:
        if not self._applying:
            self._apply_filters()

    def _header_sorted(self, section: int, order: Qt.SortOrder) -> None:
        if self._applying or not 0 <= section < len(COLUMNS):
            return
        self._user_sort = COLUMNS[section][0]
        self._applying = True
        try:
            self.descending_action.setChecked(order == Qt.DescendingOrder)
        finally:
            self._applying = False
        self._apply_filters()

    def _query_changed(self) -> None:
        """Someone else (the table header, a caller) changed the model's sort: follow it."""
        if self._applying:
            return
        sort, descending = self._model.sort_key
        if (sort, descending) != self.sort_key():
            self._user_sort = sort
            self._applying = True
            try:
                self.descending_action.setChecked(descending)
            finally:
                self._applying = False
        self._sync_sort_controls()
        self._update_empty_state()

    def _sync_sort_controls(self) -> None:
        sort, descending = self.sort_key()
        if sort == "relevance" and not self.search.text().strip():
            sort = "name"
        self.sort_actions[sort].setChecked(True)
        label = dict(SORTS)[sort]
        self.sort_button.setText(f"Sort: {label} {'↓' if descending else '↑'}  ▾")
        self.sort_button.setToolTip("Sort order (click a column header in the list view to sort too)")
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
        by_state = counts["lifecycle"]
        total = sum(by_state.values())
        for i in range(self.tabs.count()):
            value = self.tabs.tabData(i)
            label = dict(TABS)[value]
            self.tabs.setTabText(i, f"{label} {total if value is None else by_state.get(value, 0)}")

    def _refill_tags(self) -> None:
        current = self.tag_combo.currentData()
        tags = self._model.store.tags()
        self.tag_combo.blockSignals(True)
        try:
            self.tag_combo.clear()
            self.tag_combo.addItem("All tags", None)
            for tag, n in tags:
                self.tag_combo.addItem(f"{tag} ({n})", tag)
            if current and self.tag_combo.findData(current) < 0:
                self.tag_combo.addItem(f"{current} (0)", current)
            self.tag_combo.setCurrentIndex(max(0, self.tag_combo.findData(current)))
        finally:
            self.tag_combo.blockSignals(False)

    # --- empty state ------------------------------------------------------------------

    def _update_empty_state(self, *_args) -> None:
        if self._model.rowCount() > 0:
            self.empty_label.hide()
            return
        if len(self._model.store) == 0:
            self.empty_label.setText(_escape(EMPTY_STORE))
        else:
            self.empty_label.setText(
                f"No skills match {_escape(self._describe_filters())}.<br><br>"
                "<a href=\"clear\">Clear the filters</a> to see every skill.")
        self._place_empty_label()
        self.empty_label.show()
        self.empty_label.raise_()

    def _describe_filters(self) -> str:
        flt = self.filters()
        if flt.text and not (flt.lifecycle or flt.origin or flt.tag):
            return f"“{flt.text}”"
        parts = [f"“{flt.text}”"] if flt.text else []
        if flt.lifecycle:
            parts.append(Lifecycle(flt.lifecycle).label.lower())
        if flt.origin:
            parts.append(f"origin {flt.origin}")
        if flt.tag:
            parts.append(f"tag {flt.tag}")
        return "the filters (" + ", ".join(parts) + ")" if parts else "the filters"

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

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._place_empty_label()

    # --- selection --------------------------------------------------------------------

    def _select_rows(self, rows: list[int], current: int | None) -> None:
        selection = QItemSelection()
        last_col = self._model.columnCount() - 1
        for start, end in _runs(sorted(set(rows))):
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


def _runs(rows: list[int]):
    """Consecutive runs of sorted row numbers as (first, last) pairs."""
    start = prev = None
    for r in rows:
        if start is None:
            start = prev = r
        elif r == prev + 1:
            prev = r
        else:
            yield start, prev
            start = prev = r
    if start is not None:
        yield start, prev


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
