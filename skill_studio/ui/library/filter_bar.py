"""The browser's filter bar: lifecycle tabs with counts, origin and tag filters, search and sort."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QKeySequence, QShortcut
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLineEdit, QMenu, QTabBar, QToolButton, QVBoxLayout, QWidget

from skill_studio.core.model import LIFECYCLE_ORDER, LIFECYCLE_TERMS, ORIGIN_TERMS, Lifecycle, Origin
from skill_studio.core.store import Filters
from skill_studio.ui.library.models import COLUMNS, SORTABLE

#: Lifecycle tabs in display order; None is "All".
TABS: list[tuple[str | None, str]] = [(None, "All")] + [(s.value, s.label) for s in LIFECYCLE_ORDER]
#: Sort keys offered in the sort menu, with their labels.
SORTS: list[tuple[str, str]] = [c for c in COLUMNS if c[0] in SORTABLE] + [("relevance", "Relevance")]
SEARCH_DELAY_MS = 250


class FilterBar(QWidget):
    """Two rows of controls: lifecycle tabs above; search, origin, tag and sort below.

    Emits :attr:`changed` when the user changes a filter or the sort (a typed search after a
    short delay). Changes made through its methods are quiet: they emit nothing.

    While a search text is set the order is by relevance, until the user picks another sort for
    that search; clearing the search goes back to the sort the user chose before.
    """

    changed = Signal()           # a filter or the sort changed
    searchSubmitted = Signal()   # Enter in the search field

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._user_sort: str | None = None   # None: name
        self._search_sort: str | None = None  # chosen while the search is set; None: relevance
        self._searching = False
        self._quiet = False
        self._build()
        self._connect()

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
            index = self.tabs.addTab(label)
            self.tabs.setTabData(index, value)
            self.tabs.setTabToolTip(index, LIFECYCLE_TERMS[Lifecycle(value)].meaning.capitalize() if value
                                    else "Every skill in the library")

        self.origin_combo = QComboBox(self)
        self.origin_combo.setObjectName("originFilter")
        self.origin_combo.addItem("All origins", None)
        for origin in Origin:
            self.origin_combo.addItem(origin.value, origin.value)
            self.origin_combo.setItemData(self.origin_combo.count() - 1, ORIGIN_TERMS[origin].meaning, Qt.ToolTipRole)
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

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(tabs_row)
        layout.addLayout(filters_row)

    def _connect(self) -> None:
        self.tabs.currentChanged.connect(self._changed)
        self.origin_combo.currentIndexChanged.connect(self._changed)
        self.tag_combo.currentIndexChanged.connect(self._changed)
        self.search.textChanged.connect(self._search_timer.start)
        self.search.textChanged.connect(self._search_text_changed)
        self.search.returnPressed.connect(self.searchSubmitted)
        self._search_timer.timeout.connect(self._changed)
        self._sort_group.triggered.connect(self._sort_chosen)
        self.descending_action.toggled.connect(self._changed)

        # Ctrl+F belongs to the window's Find action (it calls the browser's focus_search); a
        # second shortcut here would make the key ambiguous and neither would fire.
        clear = QShortcut(QKeySequence(Qt.Key_Escape), self.search, self._clear_search)
        clear.setContext(Qt.WidgetShortcut)

    # --- reading --------------------------------------------------------------

    def filters(self) -> Filters:
        """The filters the controls describe (the search text as typed, before the delay)."""
        text = self.search.text().strip() or None
        return Filters(lifecycle=self.tabs.tabData(self.tabs.currentIndex()),
                       origin=self.origin_combo.currentData(), tag=self.tag_combo.currentData(),
                       text=text)

    def sort_key(self) -> tuple[str, bool]:
        """The sort in force: relevance while a search is set (unless the user picked another
        sort for it), else the user's choice, else name."""
        if self.search.text().strip():
            if self._search_sort is None:
                return "relevance", False
            return self._search_sort, self.descending_action.isChecked()
        return self._user_sort or "name", self.descending_action.isChecked()

    def search_pending(self) -> bool:
        """Whether typed search text waits for its delay to run out."""
        return self._search_timer.isActive()

    def state(self) -> dict:
        """Filters and sort as plain values (for settings)."""
        flt = self.filters()
        return {"lifecycle": flt.lifecycle, "origin": flt.origin, "tag": flt.tag,
                "search": self.search.text(), "sort": self._user_sort,
                "descending": self.descending_action.isChecked()}

    # --- quiet changes ----------------------------------------------------------

    def cancel_pending_search(self) -> None:
        self._search_timer.stop()

    def focus_search(self) -> None:
        self.search.setFocus(Qt.ShortcutFocusReason)
        self.search.selectAll()

    def set_sort(self, sort: str | None, descending: bool) -> None:
        """Take this sort (None: name) without emitting :attr:`changed`; while a search is set it is
        the search's sort, until the search is cleared."""
        if self.search.text().strip():
            self._search_sort = None if sort == "relevance" else (sort or "name")
        else:
            self._user_sort = None if sort in ("name", "relevance") else sort
        self._quietly(lambda: self.descending_action.setChecked(descending))

    def set_tag(self, tag: str) -> None:
        """Show only skills with this tag (offered even when the list of tags lacks it); quiet."""
        def choose():
            if self.tag_combo.findData(tag) < 0:
                self.tag_combo.addItem(tag, tag)
            self.tag_combo.setCurrentIndex(self.tag_combo.findData(tag))
        self._quietly(choose)

    def clear(self) -> None:
        """All tab, all origins, all tags, no search; emits nothing."""
        def reset():
            self.tabs.setCurrentIndex(0)
            self.origin_combo.setCurrentIndex(0)
            self.tag_combo.setCurrentIndex(0)
            self.search.clear()
            self._search_timer.stop()
        self._quietly(reset)

    def restore_state(self, state: dict) -> None:
        """Apply what :meth:`state` returned, emitting nothing; stale values fall back to defaults."""
        def restore():
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
            self._search_sort = None
            sort = state.get("sort")
            self._user_sort = sort if sort in dict(SORTS) else None
            self.descending_action.setChecked(bool(state.get("descending", False)))
        self._quietly(restore)

    def set_counts(self, by_state: dict[str, int]) -> None:
        """Show each tab's number of skills; All shows the total."""
        total = sum(by_state.values())
        for i in range(self.tabs.count()):
            value = self.tabs.tabData(i)
            label = dict(TABS)[value]
            self.tabs.setTabText(i, f"{label} {total if value is None else by_state.get(value, 0)}")

    def set_tags(self, tags: list[tuple[str, int]]) -> None:
        """Offer these (tag, count) pairs, keeping the chosen tag even when no skill has it now."""
        current = self.tag_combo.currentData()
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

    def sync_sort_controls(self) -> tuple[str, bool]:
        """Show the sort in force on the menu and button; returns it (relevance needs a search)."""
        sort, descending = self.sort_key()
        if sort not in self.sort_actions:
            sort = "name"
        searching = bool(self.search.text().strip())
        self.sort_actions["relevance"].setEnabled(searching)
        self.sort_actions[sort].setChecked(True)
        self.descending_action.setEnabled(sort != "relevance")
        label = dict(SORTS)[sort]
        arrow = "" if sort == "relevance" else (" ↓" if descending else " ↑")
        self.sort_button.setText(f"Sort: {label}{arrow}  ▾")
        self.sort_button.setToolTip("Best matches first while you search; pick another order here"
                                    if sort == "relevance" else
                                    "Sort order (click a column header in the list view to sort too)")
        return sort, descending

    # --- user changes -------------------------------------------------------------

    def _quietly(self, change) -> None:
        self._quiet = True
        try:
            change()
        finally:
            self._quiet = False

    def _changed(self, *_args) -> None:
        if not self._quiet:
            self.changed.emit()

    def _clear_search(self) -> None:
        self.search.clear()
        self.changed.emit()

    def _sort_chosen(self, action: QAction) -> None:
        key = action.data()
        if self.search.text().strip():
            self._search_sort = None if key == "relevance" else key
        elif key != "relevance":
            self._user_sort = None if key == "name" else key
        self.changed.emit()

    def _search_text_changed(self, text: str) -> None:
        # A new search starts by relevance; an emptied one goes back to the user's sort.
        searching = bool(text.strip())
        if searching != self._searching:
            self._searching = searching
            self._search_sort = None
