"""The history panel: a skill's saved versions, what each one changed, and restoring an old one."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from PySide6.QtCore import QItemSelectionModel, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from skill_studio.ui.designer.diff_view import DiffView
from skill_studio.ui.library.models import relative_time
from skill_studio.ui.safe_text import literal

__all__ = ["HistoryPanel", "exact_time"]

VERSION_ROLE = Qt.UserRole + 1
PREVIOUS = 0  # the compare combo's "previous version" entry


def exact_time(stamp: str) -> str:
    """An ISO time as local date and time ('2025-03-01 14:05:09 CET'), or the stamp as given."""
    try:
        t = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        return str(stamp)
    if t.tzinfo is not None:
        t = t.astimezone()
    return t.strftime("%Y-%m-%d %H:%M:%S %Z").strip()


class HistoryPanel(QWidget):
    """Versions newest first above a diff.

    One selected version shows what it changed against the version before it,
    or against the version chosen under "Compare with"; two selected versions
    show the change from the older to the newer. Version texts are fetched
    through ``text_of`` only when a diff needs them, and kept.
    """

    restoreRequested = Signal(int)

    COLUMNS = ("Version", "Saved", "Author", "Note")

    def __init__(self, parent: QWidget | None = None, *, read_only: bool = False):
        super().__init__(parent)
        self._versions: list = []
        self._text_of: Callable[[int], str] | None = None
        self._texts: dict[int, str] = {}
        self._current = 0
        self._read_only = read_only
        self._compared: tuple[int | None, int] | None = None

        self.tree = QTreeWidget()
        self.tree.setColumnCount(len(self.COLUMNS))
        self.tree.setHeaderLabels(list(self.COLUMNS))
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.setAllColumnsShowFocus(True)
        self.tree.setSelectionMode(QAbstractItemView.ExtendedSelection)
        header = self.tree.header()
        header.setStretchLastSection(True)
        for col in range(3):
            header.setSectionResizeMode(col, QHeaderView.ResizeToContents)
        self.tree.itemSelectionChanged.connect(self._update)

        self.compare_combo = QComboBox()
        self.compare_combo.setToolTip("Which version the selected one is compared with")
        self.compare_combo.currentIndexChanged.connect(self._update)
        self.restore_button = QPushButton("Restore this version", self)
        self.restore_button.setToolTip("Make the selected version the current one (saved as a new version)")
        self.restore_button.clicked.connect(self._on_restore)
        self.restore_button.setVisible(not read_only)
        self.diff_view = DiffView()

        bar = QHBoxLayout()
        bar.setContentsMargins(6, 4, 6, 4)
        self.compare_label = QLabel("Compare with:")
        bar.addWidget(self.compare_label)
        bar.addWidget(self.compare_combo)
        bar.addStretch(1)
        bar.addWidget(self.restore_button)
        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.setSpacing(0)
        top_layout.addWidget(self.tree, 1)
        top_layout.addLayout(bar)
        self.splitter = QSplitter(Qt.Vertical)
        self.splitter.addWidget(top)
        self.splitter.addWidget(self.diff_view)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setSizes([180, 540])  # the diff is what one reads; the list needs a few rows
        self.splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.splitter)
        self._update()

    # --- public -------------------------------------------------------------

    def set_history(self, versions: Sequence, text_of: Callable[[int], str], current_version: int) -> None:
        """Show these versions (VersionInfo-like: version, author, note, created_at; any order,
        shown newest first) and select the current one. ``text_of(version)`` returns a
        version's SKILL.md text; its answers are cached until the next ``set_history``."""
        self._versions = sorted(versions, key=lambda v: v.version, reverse=True)
        self._text_of = text_of
        self._texts = {}
        self._current = current_version
        self.tree.blockSignals(True)
        self.compare_combo.blockSignals(True)
        self.tree.clear()
        self.compare_combo.clear()
        self.compare_combo.addItem("Previous version", PREVIOUS)
        current_item = None
        for v in self._versions:
            is_current = v.version == current_version
            label = f"v{v.version}" + (" (current)" if is_current else "")
            item = QTreeWidgetItem([label, relative_time(v.created_at), v.author or "", v.note or ""])
            item.setData(0, VERSION_ROLE, v.version)
            item.setToolTip(1, exact_time(v.created_at))
            item.setToolTip(3, literal(v.note))
            if is_current:
                font = item.font(0)
                font.setBold(True)
                item.setFont(0, font)
                current_item = item
            self.tree.addTopLevelItem(item)
            self.compare_combo.addItem(self._title(v.version), v.version)
        self.tree.blockSignals(False)
        self.compare_combo.blockSignals(False)
        if current_item is not None:
            self.tree.setCurrentItem(current_item)  # selects it: the diff follows
        self._update()

    def set_read_only(self, read_only: bool) -> None:
        """Read-only skills (builtin ones) cannot be restored: the Restore button is hidden."""
        self._read_only = read_only
        self.restore_button.setVisible(not read_only)
        self._update()

    def versions_shown(self) -> list[int]:
        """The version numbers in the list, top to bottom."""
        return [self.tree.topLevelItem(i).data(0, VERSION_ROLE) for i in range(self.tree.topLevelItemCount())]

    def selected_versions(self) -> list[int]:
        """The selected version numbers, oldest first."""
        return sorted(item.data(0, VERSION_ROLE) for item in self.tree.selectedItems())

    def select_versions(self, *versions: int) -> None:
        """Select exactly these versions (the first one also becomes the current row)."""
        self.tree.blockSignals(True)
        self.tree.clearSelection()
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            if item.data(0, VERSION_ROLE) in versions:
                item.setSelected(True)
                if item.data(0, VERSION_ROLE) == versions[0]:
                    self.tree.setCurrentItem(item, 0, QItemSelectionModel.NoUpdate)
        self.tree.blockSignals(False)
        self._update()

    def compare_with(self, version: int | None) -> None:
        """Compare one selected version with ``version`` (None: the version before it)."""
        index = self.compare_combo.findData(PREVIOUS if version is None else version)
        if index >= 0:
            self.compare_combo.setCurrentIndex(index)

    def compared(self) -> tuple[int | None, int] | None:
        """The (older, newer) versions in the diff; older is None when a first version is
        compared with nothing. None when no diff shows."""
        return self._compared

    def text_of(self, version: int) -> str:
        """A version's SKILL.md text, fetched once. Raises what ``text_of`` raises."""
        if version not in self._texts:
            if self._text_of is None:
                raise LookupError("no history set")
            self._texts[version] = self._text_of(version)
        return self._texts[version]

    # --- internals ----------------------------------------------------------

    def _title(self, version: int) -> str:
        return f"Version {version}" + (" (current)" if version == self._current else "")

    def _previous(self, version: int) -> int | None:
        older = [v.version for v in self._versions if v.version < version]
        return max(older) if older else None

    def _pair(self) -> tuple[int | None, int] | None:
        chosen = self.selected_versions()
        if len(chosen) >= 2:
            return chosen[0], chosen[-1]
        if len(chosen) != 1:
            return None
        other = self.compare_combo.currentData()
        if other in (None, PREVIOUS):
            return self._previous(chosen[0]), chosen[0]
        return min(other, chosen[0]), max(other, chosen[0])

    def _update(self, *_args) -> None:
        chosen = self.selected_versions()
        self.compare_combo.setEnabled(len(chosen) == 1)
        self.compare_label.setEnabled(len(chosen) == 1)
        single = chosen[0] if len(chosen) == 1 else None
        self.restore_button.setEnabled(not self._read_only and single is not None and single != self._current)
        pair = self._pair()
        self._compared = None
        if not self._versions:
            self.diff_view.clear("No saved versions yet")
            return
        if pair is None:
            self.diff_view.clear("Select a version to see what it changed, or two to compare them")
            return
        older, newer = pair
        try:
            old_text = "" if older is None else self.text_of(older)
            new_text = self.text_of(newer)
        except Exception as e:  # noqa: BLE001 - a missing or unreadable version: say so in place of the diff
            self.diff_view.clear(f"Could not read the version: {e}")
            return
        old_label = f"Before version {newer}" if older is None else self._title(older)
        self.diff_view.set_texts(old_text, new_text, old_label, self._title(newer))
        self._compared = pair

    def _on_restore(self) -> None:
        chosen = self.selected_versions()
        if len(chosen) == 1 and chosen[0] != self._current and not self._read_only:
            self.restoreRequested.emit(chosen[0])
