"""The bindings panel: every binding as a card with its enabled switch; add, edit, duplicate,
delete, export and import as YAML; the bus status line; the event simulator and the event log."""

from __future__ import annotations

import os
import tempfile
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QEvent, QItemSelectionModel, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QMenu,
    QPushButton,
    QSplitter,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from skill_studio.core.bus import dispatch as bus
from skill_studio.core.bus.yaml_io import MAX_FILE_BYTES
from skill_studio.core.library.bounded_read import read_text_bounded
from skill_studio.core.store import StoreError
from skill_studio.ui.bindings.binding_cards import BINDING_ROLE, BindingCardDelegate, BindingListModel, summary
from skill_studio.ui.bindings.binding_dialog import BindingDialog
from skill_studio.ui.bindings.simulator import EventLog, Simulator
from skill_studio.ui.safe_text import information, question


def _ask_save(parent, title: str, name: str, flt: str) -> str:
    return QFileDialog.getSaveFileName(parent, title, str(Path.home() / name), flt)[0]


def _ask_open(parent, title: str, flt: str) -> str:
    return QFileDialog.getOpenFileName(parent, title, str(Path.home()), flt)[0]


def _edit(parent, store, binding, title: str):
    dialog = BindingDialog(store, binding, parent, title=title)
    return dialog.result_binding() if dialog.exec() == QDialog.DialogCode.Accepted else None


class BindingsPanel(QWidget):
    skillSelected = Signal(str)     # the skill of the binding selected
    changed = Signal()              # bindings were added, edited or removed here

    def __init__(self, store, parent: QWidget | None = None):
        super().__init__(parent)
        self.store = store
        self._every: list = []
        # Replaceable for tests: dialogs and questions.
        self.edit_binding = lambda binding, title: _edit(self, store, binding, title)
        self.ask_save_path = lambda title, name, flt: _ask_save(self, title, name, flt)
        self.ask_open_path = lambda title, flt: _ask_open(self, title, flt)
        self.confirm = lambda title, text: question(self, title, text)
        self.tell = lambda title, text: information(self, title, text)

        self.status = QLabel(self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setObjectName("busStatus")
        self.status.setWordWrap(True)
        self.filter = QLineEdit(self)
        self.filter.setPlaceholderText("Filter by skill, event or action")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(lambda _text: self.show_filtered())
        # Add, Edit and Delete are buttons; the others sit in "More" so the bar fits a small window.
        self.buttons: dict[str, QPushButton | QAction] = {}
        self.more_menu = QMenu(self)
        bar = QHBoxLayout()
        bar.addWidget(self.filter, 1)
        for key, text, slot, tip, main in (("add", "Add…", self.add, "A new binding", True),
                                           ("edit", "Edit…", self.edit, "Change the selected binding (Enter)", True),
                                           ("delete", "Delete", self.delete, "Remove the selected binding (Delete)",
                                            True),
                                           ("duplicate", "Duplicate", self.duplicate,
                                            "A copy of the selected binding, disabled", False),
                                           ("export", "Export…", self.export, "Save every binding as YAML", False),
                                           ("import", "Import…", self.import_, "Add the bindings of a YAML file",
                                            False)):
            if main:
                button = QPushButton(text, self)
                button.setToolTip(tip)
                button.clicked.connect(slot)
                bar.addWidget(button)
                self.buttons[key] = button
            else:
                action = self.more_menu.addAction(text)
                action.setToolTip(tip)
                action.triggered.connect(lambda _checked=False, slot=slot: slot())
                self.buttons[key] = action
        self.more_menu.setToolTipsVisible(True)
        self.more_button = QToolButton(self)
        self.more_button.setText("More")
        self.more_button.setToolTip("Duplicate the selected binding, export or import bindings as YAML")
        self.more_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.more_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.more_button.setMenu(self.more_menu)
        bar.addWidget(self.more_button)
        self.filter.setMinimumWidth(220)

        self.model = BindingListModel(self)
        self.list = QListView(self)
        self.list.setObjectName("bindingCards")
        self.list.setModel(self.model)
        self.delegate = BindingCardDelegate(self.list)
        self.list.setItemDelegate(self.delegate)
        self.list.setUniformItemSizes(True)
        self.list.setSelectionMode(QAbstractItemView.SingleSelection)
        self.list.setVerticalScrollMode(QAbstractItemView.ScrollPerPixel)
        self.list.setSpacing(2)
        self.list.setAccessibleName("Bindings")
        self.delegate.toggled.connect(self.set_enabled)
        self.list.activated.connect(lambda _index: self.edit())
        self.list.selectionModel().currentChanged.connect(self._current_changed)
        self.empty = QLabel("No bindings yet. <a href='add'>Add one</a> to wire a skill to an event.",
                            self.list.viewport())
        self.empty.setAlignment(Qt.AlignCenter)
        self.list.viewport().installEventFilter(self)   # the message fills the list's visible area
        self.empty.setProperty("role", "muted")
        self.empty.linkActivated.connect(lambda _link: self.add())

        self.simulator = Simulator(store, self)
        self.simulator.dispatched.connect(self._dispatched)
        self.log = EventLog(store, self)
        self.tabs = QTabWidget(self)
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.simulator, "Event simulator")
        self.tabs.addTab(self.log, "Event log")
        split = QSplitter(Qt.Vertical, self)
        split.addWidget(self.list)
        split.addWidget(self.tabs)
        split.setSizes([330, 370])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.addLayout(bar)
        layout.addWidget(self.status)
        layout.addWidget(split, 1)
        self.list.installEventFilter(self)
        self.refresh()

    def event(self, event) -> bool:
        # Delete anywhere in the panel is the panel's: the window's Delete (which deletes the
        # skill selected in the hidden browser) must never act here. In the card list it deletes
        # the binding (see eventFilter); elsewhere it does nothing.
        if event.type() == QEvent.ShortcutOverride and event.matches(QKeySequence.Delete):
            event.accept()
            return True
        return super().event(event)

    def eventFilter(self, watched, event) -> bool:
        if watched is self.list.viewport() and event.type() == QEvent.Resize:
            self.empty.resize(event.size())
        # Delete in the list removes the binding: taken before the window's Delete (which
        # deletes skills on the library page) can act on it.
        if watched is self.list and event.type() in (QEvent.ShortcutOverride, QEvent.KeyPress):
            if event.matches(QKeySequence.Delete) or event.key() in (Qt.Key_Delete, Qt.Key_Backspace):
                event.accept()
                if event.type() == QEvent.KeyPress:
                    self.delete()
                return True
        return super().eventFilter(watched, event)

    # --- showing ----------------------------------------------------------------------

    def refresh(self) -> None:
        """Read the bindings and the status again (keeps the selection)."""
        self._every = self.store.bindings()
        self.simulator.refresh_types(self._every)
        self.show_filtered()
        self.show_status()

    def show_filtered(self) -> None:
        """The bindings read last that match the filter (typing filters without reading the store)."""
        kept = self.selected()
        text = self.filter.text().strip().lower()
        rows = [b for b in self._every if not text or text in f"{b.skill} {b.event_type} {b.action}".lower()]
        self.model.set_bindings(rows)
        self.empty.setVisible(not rows and not text)
        if kept is not None:
            self.select(kept.id)
        self._update_buttons()

    def show_status(self) -> None:
        s = bus.status(self.store, self.simulator.now())
        self.status.setText(f"Bus: {s.total} binding(s) · {s.enabled} enabled · {s.cooling} in cooldown now")

    def selected(self):
        index = self.list.currentIndex()
        return index.data(BINDING_ROLE) if index.isValid() else None

    def select(self, binding_id) -> None:
        row = self.model.row_of(binding_id)
        if row >= 0:
            self.list.selectionModel().setCurrentIndex(self.model.index(row), QItemSelectionModel.ClearAndSelect)
            self.list.scrollTo(self.model.index(row))

    def show_skill(self, name: str) -> None:
        """Show only the bindings of ``name`` (the detail panel's link)."""
        self.filter.setText(name)

    def _current_changed(self, current, _previous) -> None:
        self._update_buttons()
        b = current.data(BINDING_ROLE) if current.isValid() else None
        if b is not None:
            self.skillSelected.emit(b.skill)

    def _update_buttons(self) -> None:
        has = self.selected() is not None
        for key in ("edit", "duplicate", "delete"):
            self.buttons[key].setEnabled(has)

    # --- changing ---------------------------------------------------------------------

    def _save(self, binding, adding: bool) -> bool:
        try:
            saved = self.store.add_binding(binding) if adding else self.store.update_binding(binding)
        except (bus.BindingError, StoreError) as e:
            self.tell("Binding not saved", str(e))
            return False
        self.refresh()
        self.select(saved.id)
        self.changed.emit()
        return True

    def add(self) -> bool:
        skill = self.selected().skill if self.selected() else ""
        binding = self.edit_binding(bus.Binding(skill=skill, event_type=bus.KNOWN_EVENT_TYPES[0]) if skill else None,
                                    "New binding")
        return binding is not None and self._save(replace(binding, id=None), True)

    def edit(self) -> bool:
        current = self.selected()
        if current is None:
            return False
        binding = self.edit_binding(current, f"Binding of {current.skill}")
        return binding is not None and self._save(replace(binding, id=current.id), False)

    def duplicate(self) -> bool:
        current = self.selected()
        if current is None:
            return False
        return self._save(replace(current, id=None, enabled=False, last_fired_at=None), True)

    def delete(self) -> bool:
        current = self.selected()
        if current is None or not self.confirm("Delete binding", f"Delete this binding?\n\n{summary(current)}"):
            return False
        try:
            self.store.delete_binding(current.id)
        except StoreError as e:      # removed elsewhere meanwhile
            self.tell("Binding not deleted", str(e))
            self.refresh()
            return False
        self.refresh()
        self.changed.emit()
        return True

    def set_enabled(self, binding_id: int, on: bool) -> None:
        try:
            self.store.set_binding_enabled(binding_id, on)
        except StoreError as e:      # removed elsewhere meanwhile
            self.tell("Binding not changed", str(e))
        self.refresh()
        self.changed.emit()

    def export(self) -> bool:
        path = self.ask_save_path("Export bindings", "bindings.yaml", "YAML (*.yaml *.yml)")
        if not path:
            return False
        target = Path(path)
        QApplication.setOverrideCursor(Qt.WaitCursor)   # thousands of bindings take a few seconds
        try:
            text = bus.export_yaml(self.store.bindings())
        finally:
            QApplication.restoreOverrideCursor()
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.chmod(tmp, 0o644)
            os.replace(tmp, target)
        except OSError as e:
            self.tell("Export failed", f"{target} could not be written:\n\n{e}")
            return False
        self.status.setText(f"Saved {len(self.store.bindings())} binding(s) to {target.name}")
        return True

    def import_(self) -> int:
        path = self.ask_open_path("Import bindings", "YAML (*.yaml *.yml)")
        if not path:
            return 0
        try:
            text = read_text_bounded(path, MAX_FILE_BYTES, what="bindings file")
            added = bus.import_yaml(self.store, text)
        except (OSError, ValueError, OverflowError, StoreError) as e:   # BindingError, YAML and encoding errors
            self.tell("Nothing imported", f"{path}:\n\n{e}")
            return 0
        self.refresh()
        self.changed.emit()
        self.tell("Bindings imported", f"{len(added)} binding(s) added from {Path(path).name}.")
        return len(added)

    def _dispatched(self, _result) -> None:
        self.refresh()
        self.log.refresh()

    def apply_changes(self, changes) -> bool:
        """Read the bindings and the event log again when bindings changed, or skills came or
        went (a binding names its skill); True if so."""
        if not (changes.bindings or changes.membership):
            return False
        self.refresh()
        self.log.refresh()
        return True
