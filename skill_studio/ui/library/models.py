"""The one model over the store: skill names for the current filter, cards fetched a page at a time."""

from __future__ import annotations

from collections import OrderedDict
from datetime import UTC, datetime

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QStandardItemModel

from skill_studio.core.model import Lifecycle, Skill, TrustTier
from skill_studio.core.ops.changes import ChangeSet
from skill_studio.core.store import Filters, Store, UnusableStore
from skill_studio.ui.library.marks import verdict_icon
from skill_studio.ui.library.verdicts import VerdictCache
from skill_studio.ui.safe_text import literal
from skill_studio.ui.theme import current_tokens

SKILL_ROLE = Qt.UserRole + 1   # the row's Skill (card fields only: no body, no files)
NAME_ROLE = Qt.UserRole + 2    # the row's skill name
SORT_ROLE = Qt.UserRole + 3
VERDICT_ROLE = Qt.UserRole + 4   # the row's strict-check Verdict, or None until it is known
TRUST_ROLE = Qt.UserRole + 5     # the row's trust tier (1-4)

#: (store sort key, header) per column, in column order.
COLUMNS: list[tuple[str, str]] = [
    ("name", "Name"), ("description", "Description"), ("lifecycle", "Lifecycle"), ("trust", "Trust"),
    ("origin", "Origin"), ("success", "Success"), ("utility", "Utility"), ("freshness", "Freshness"),
    ("last_used", "Last used"), ("updated", "Updated"),
]
#: The columns the store can sort by (a click on another header changes nothing).
SORTABLE = frozenset(key for key, _ in COLUMNS) - {"description"}
PAGE = 50
CACHE_PAGES = 80
#: Every row's flags (asked for at every paint of every card: made once).
_FLAGS = Qt.ItemIsEnabled | Qt.ItemIsSelectable | Qt.ItemIsDragEnabled


_SHORT_UNITS = {"year": ("yr", "yr"), "month": ("mo", "mo"), "day": ("day", "days"), "hour": ("h", "h"),
                "minute": ("min", "min")}


def relative_time(stamp: str | None, now: datetime | None = None, *, short: bool = False) -> str:
    """'3 days ago', 'never', ... for an ISO time ('16 min ago', '5 mo ago' when ``short``)."""
    if not stamp:
        return "never"
    try:
        t = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return stamp
    now = now or datetime.now(UTC)
    seconds = max(0, int((now - t).total_seconds()))
    for unit, size in (("year", 365 * 86400), ("month", 30 * 86400), ("day", 86400), ("hour", 3600),
                       ("minute", 60)):
        if seconds >= size:
            n = seconds // size
            if short:
                return f"{n} {_SHORT_UNITS[unit][n != 1]} ago"
            return f"{n} {unit}{'s' if n != 1 else ''} ago"
    return "just now"


class SkillListModel(QStandardItemModel):
    """Skills matching a query, in order. Holds only names; cards are fetched a page
    (PAGE rows) at a time and the last CACHE_PAGES pages kept, so 100,000 skills cost little.

    The shape of the table (rows, columns, indexes) lives in C++: the base class holds
    no items, only its row count. A wrapping card view asks for an index of every row
    when it lays out, and answering those 100,000 calls in Python took half a second;
    in C++ it takes a few milliseconds. Everything a cell shows comes from :meth:`data`.
    """

    queryChanged = Signal()

    def __init__(self, store: Store, parent=None):
        super().__init__(0, len(COLUMNS), parent)
        self._store = store
        self._names: list[str] = []
        self._row_index: dict[str, int] | None = {}   # name -> row, built when first asked for
        self._pages: OrderedDict[int, list[Skill | None]] = OrderedDict()
        self._filters = Filters()
        self._sort = "name"
        self._descending = False
        #: Strict-check verdicts, checked off the GUI thread as rows are shown.
        self.verdicts = VerdictCache(store, self)
        self.verdicts.verdictsReady.connect(self._verdicts_arrived)

    # --- query ----------------------------------------------------------------

    @property
    def store(self) -> Store:
        return self._store

    @property
    def filters(self) -> Filters:
        return self._filters

    @property
    def sort_key(self) -> tuple[str, bool]:
        return self._sort, self._descending

    def set_query(self, filters: Filters | None = None, sort: str | None = None,
                  descending: bool | None = None) -> None:
        """Show the skills matching ``filters`` in ``sort`` order (None keeps the current one)."""
        if filters is not None:
            self._filters = filters
        if sort is not None:
            self._sort = sort
        if descending is not None:
            self._descending = descending
        self.reload()
        self.queryChanged.emit()

    def reload(self) -> None:
        """Read the names again (after a change in the store); views keep their place by name."""
        self._reset(self._query_names())

    def _query_names(self) -> list[str]:
        sort = self._sort if (self._sort != "relevance" or self._filters.text) else "name"
        return self._store.names(self._filters, sort=sort, descending=self._descending)

    def _reset(self, names: list[str]) -> None:
        self.beginResetModel()
        self._names = names
        self._row_index = None
        self._pages.clear()
        self.blockSignals(True)   # the reset below tells the views; no row signals inside it
        try:
            self.setRowCount(len(names))
        finally:
            self.blockSignals(False)
        self.endResetModel()

    def apply_changes(self, changes: ChangeSet) -> str:
        """Follow what an operation changed: "reset" when the rows to show are not the same any
        more (skills came, went, were renamed, or left or joined the filter, or moved in the
        order), "rows" when only the changed skills' rows were read again, "" when nothing here
        was touched."""
        if changes.membership:
            self.reload()
            return "reset"
        if not changes.skills:
            return ""
        names = self._query_names()
        if names != self._names:
            self._reset(names)
            return "reset"
        return "rows" if self.refresh_skills(changes.skills) else ""

    def refresh_skills(self, names) -> int:
        """Read these skills' cards again and tell the views their rows changed (rows stay where
        they are); returns how many rows were shown."""
        rows = self._rows()
        shown = sorted(rows[n] for n in set(names) if n in rows)
        cached = [r for r in shown if r // PAGE in self._pages]
        if cached:
            fresh = {s.name: s for s in self._store.cards([self._names[r] for r in cached])}
            for r in cached:
                self._pages[r // PAGE][r % PAGE] = fresh.get(self._names[r])
        for start, end in row_runs(shown):
            self.dataChanged.emit(self.index(start, 0), self.index(end, len(COLUMNS) - 1))
        return len(shown)

    def _verdicts_arrived(self, names: list[str]) -> None:
        rows = self._rows()
        for start, end in row_runs(sorted(rows[n] for n in names if n in rows)):
            self.dataChanged.emit(self.index(start, 0), self.index(end, len(COLUMNS) - 1),
                                  [VERDICT_ROLE, Qt.DecorationRole, Qt.ToolTipRole])

    def verdict_at(self, row: int):
        """The strict-check verdict of the row's skill, or None while it is being checked."""
        skill = self.skill_at(row)
        return None if skill is None else self.verdicts.verdict(skill.name, skill.version)

    # --- access ---------------------------------------------------------------

    def names(self) -> list[str]:
        return list(self._names)

    def row_of(self, name: str) -> int:
        return self._rows().get(name, -1)

    def _rows(self) -> dict[str, int]:
        if self._row_index is None:
            self._row_index = {n: i for i, n in enumerate(self._names)}
        return self._row_index

    def name_at(self, row: int) -> str | None:
        return self._names[row] if 0 <= row < len(self._names) else None

    def prefetch(self, first: int, last: int) -> int:
        """Fetch the pages of rows ``first`` to ``last`` that are not held yet (a view calls this
        for the rows it is about to show, between frames, so painting them finds them here); the
        views are not told, nothing they show changed. Returns how many pages were fetched."""
        first, last = max(0, first), min(len(self._names) - 1, last)
        fetched = 0
        for page_no in range(first // PAGE, last // PAGE + 1 if last >= first else 0):
            if page_no not in self._pages:
                try:
                    self._page(page_no)
                except UnusableStore:
                    break   # painting the rows reports it
                fetched += 1
        return fetched

    def skill_at(self, row: int) -> Skill | None:
        if not 0 <= row < len(self._names):
            return None
        return self._page(row // PAGE)[row % PAGE]

    def _page(self, page_no: int) -> list[Skill | None]:
        page = self._pages.get(page_no)
        if page is None:
            wanted = self._names[page_no * PAGE:(page_no + 1) * PAGE]
            try:
                by_name = {s.name: s for s in self._store.cards(wanted)}
            except UnusableStore:
                # A damaged page of the store: shown empty from now on, the error raised once for
                # the window to report (not again at every paint).
                self._pages[page_no] = [None] * len(wanted)
                raise
            page = [by_name.get(n) for n in wanted]
            self._pages[page_no] = page
            while len(self._pages) > CACHE_PAGES:
                self._pages.popitem(last=False)
        else:
            self._pages.move_to_end(page_no)
        return page

    # --- Qt model -------------------------------------------------------------

    # rowCount, columnCount, index and parent are the base class's, in C++.

    def flags(self, index):
        return _FLAGS if index.isValid() else Qt.NoItemFlags

    def headerData(self, section: int, orientation, role=Qt.DisplayRole):
        if orientation == Qt.Horizontal and role == Qt.DisplayRole and 0 <= section < len(COLUMNS):
            return COLUMNS[section][1]
        return None

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid():
            return None
        row, col = index.row(), index.column()
        if role == SKILL_ROLE:   # asked at every paint of a card: the shortest way
            return self.skill_at(row)
        if role == VERDICT_ROLE:   # as well
            return self.verdict_at(row)
        if role == NAME_ROLE:
            return self.name_at(row)
        if role not in (Qt.DisplayRole, Qt.ToolTipRole, SKILL_ROLE, SORT_ROLE, Qt.TextAlignmentRole,
                        VERDICT_ROLE, TRUST_ROLE, Qt.DecorationRole):
            return None
        skill = self.skill_at(row)
        if skill is None:
            return None
        if role == SKILL_ROLE:
            return skill
        if role == TRUST_ROLE:
            return int(skill.trust_tier)
        key = COLUMNS[col][0] if 0 <= col < len(COLUMNS) else "name"
        if role in (VERDICT_ROLE, Qt.DecorationRole):
            verdict = self.verdicts.verdict(skill.name, skill.version)
            if role == VERDICT_ROLE:
                return verdict
            return verdict_icon(verdict, current_tokens()) if key == "name" and verdict is not None else None
        if role == Qt.TextAlignmentRole:
            numeric = key in ("success", "utility", "freshness")
            return int((Qt.AlignRight if numeric else Qt.AlignLeft) | Qt.AlignVCenter)
        if role == Qt.ToolTipRole:
            if key == "trust":
                return f"{TrustTier(skill.trust_tier).label} (trust {int(skill.trust_tier)} of 4)"
            if key == "name":
                verdict = self.verdicts.verdict(skill.name, skill.version)
                return literal(skill.name + (f"\n{verdict.summary()}" if verdict is not None else ""))
            if key == "description":
                return literal(skill.description)
            if key in ("last_used", "updated"):
                return relative_time(skill.last_used_at if key == "last_used" else skill.updated_at)
            return None
        return _cell(skill, key)

    def sort(self, column: int, order=Qt.AscendingOrder) -> None:
        if 0 <= column < len(COLUMNS) and COLUMNS[column][0] in SORTABLE:
            self.set_query(sort=COLUMNS[column][0], descending=order == Qt.DescendingOrder)

    def mimeTypes(self) -> list[str]:
        return ["text/plain"]

    def mimeData(self, indexes):
        from PySide6.QtCore import QMimeData

        names = sorted({self.name_at(i.row()) for i in indexes if i.isValid()} - {None})
        mime = QMimeData()
        mime.setText("\n".join(names))
        return mime


def row_runs(rows: list[int]):
    """Consecutive runs of sorted row numbers as (first, last) pairs."""
    start = prev = None
    for r in rows:
        if start is None or r != prev + 1:
            if start is not None:
                yield start, prev
            start = r
        prev = r
    if start is not None:
        yield start, prev


def _cell(skill: Skill, key: str) -> str:
    if key == "name":
        return skill.name
    if key == "lifecycle":
        return Lifecycle(skill.lifecycle).label
    if key == "description":
        return " ".join((skill.description or "").split())
    if key == "trust":
        return TrustTier(skill.trust_tier).label
    if key == "origin":
        return skill.origin.value
    if key == "success":
        return f"{skill.success_rate:.0%}"
    if key == "utility":
        return f"{skill.utility_score:.2f}"
    if key == "freshness":
        return f"{skill.freshness:.2f}"
    if key == "last_used":
        return relative_time(skill.last_used_at, short=True)
    if key == "updated":
        return relative_time(skill.updated_at, short=True)
    return ""
