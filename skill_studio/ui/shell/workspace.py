"""The window's tabs: the library first (never closed), then one designer per open skill;
and recovering the drafts a crash left behind."""

from __future__ import annotations

import sys
from collections.abc import Callable

import shiboken6
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QMessageBox, QTabWidget, QWidget

from skill_studio.core.ops.changes import ChangeSet
from skill_studio.core.store import NotFound, Store, StoreError
from skill_studio.ui.safe_text import literal, warning


def _ask_recover(parent: QWidget | None, name: str, saved_at: str, lines: int) -> str:
    """'recover', 'discard' or 'later'."""
    box = QMessageBox(QMessageBox.Question, "Recover unsaved changes",
                      literal(f"Skill Studio closed before your changes to “{name}” were saved."), parent=parent)
    box.setInformativeText(f"A draft of {lines} lines was kept at {saved_at}. Open it in the designer?")
    recover = box.addButton("Recover", QMessageBox.AcceptRole)
    discard = box.addButton("Discard draft", QMessageBox.DestructiveRole)
    box.addButton("Later", QMessageBox.RejectRole)
    box.setDefaultButton(recover)
    box.exec()
    clicked = box.clickedButton()
    return "recover" if clicked is recover else "discard" if clicked is discard else "later"


class Workspace(QTabWidget):
    """Tab 0 is the library page; the others are designers, one per skill."""

    changed = Signal(object)         # ChangeSet: a designer saved, restored or copied a skill
    statusMessage = Signal(str)
    problemsChanged = Signal()       # a designer's problem counts changed

    def __init__(self, store: Store, library: QWidget, parent: QWidget | None = None):
        super().__init__(parent)
        self.store = store
        self.setDocumentMode(True)
        self.setTabsClosable(True)
        self.setMovable(False)  # the library and the review queue stay first
        self.addTab(library, "Library")
        bar = self.tabBar()
        for side in (bar.ButtonPosition.RightSide, bar.ButtonPosition.LeftSide):
            if bar.tabButton(0, side) is not None:
                bar.tabButton(0, side).hide()
        self.tabCloseRequested.connect(self.close_designer)
        # The tabs shown before the current one, most recent last: closing a tab returns to the
        # one the user came from (if still open), else to the library.
        self._visited: list[QWidget] = []
        self._shown: QWidget | None = library
        self._closing = False
        self.currentChanged.connect(self._remember)
        self.fixed = 1   # tabs before this index stay open (the library, the review queue)
        #: ask_recover(parent, name, saved_at, lines) -> 'recover' | 'discard' | 'later' (replaceable).
        self.ask_recover: Callable[[QWidget | None, str, str, int], str] = _ask_recover
        self.tell = lambda title, text: warning(self, title, text)

    def designers(self) -> list:
        # Until a designer was opened its module is not loaded (the window starts without it),
        # and no tab can hold one.
        designer = sys.modules.get("skill_studio.ui.designer.designer")
        if designer is None:
            return []
        return [w for w in (self.widget(i) for i in range(self.count())) if isinstance(w, designer.DesignerWidget)]

    def current_designer(self):
        """The designer of the current tab, or None on the library page."""
        widget = self.currentWidget()
        return widget if widget in self.designers() else None

    def designer_for(self, name: str):
        return next((d for d in self.designers() if d.session.name == name), None)

    def open_skill(self, name: str, *, text: str | None = None, base_version: int | None = None):
        """Show the skill's designer (opened if needed); ``text`` starts it from a draft written
        on ``base_version``."""
        from skill_studio.ui.designer.designer import DesignerWidget

        designer = self.designer_for(name)
        if designer is None:
            try:
                designer = DesignerWidget(self.store, name, self, text=text, base_version=base_version)
            except (NotFound, StoreError) as e:
                self.tell("Cannot open", f"{name} cannot be opened:\n\n{e}")
                return None
            index = self.addTab(designer, designer.title())
            self.setTabToolTip(index, literal(f"{name} — version {designer.session.version}"))
            designer.titleChanged.connect(lambda _t, d=designer: self._retitle(d))
            designer.saved.connect(lambda changes, d=designer: self._saved(d, changes))
            designer.statusMessage.connect(self.statusMessage)
            designer.replaceRequested.connect(lambda n, d=designer: self._replace(d, n))
            designer.problems.countsChanged.connect(lambda *_c: self.problemsChanged.emit())
        self.setCurrentWidget(designer)
        designer.editor.setFocus()
        return designer

    def _replace(self, designer, name: str) -> None:
        index = self.indexOf(designer)
        self.removeTab(index)
        designer.deleteLater()
        self.open_skill(name)   # the save that made the copy was told already

    def _retitle(self, designer) -> None:
        index = self.indexOf(designer)
        if index > 0:
            self.setTabText(index, designer.title())
            self.setTabToolTip(index, literal(f"{designer.session.name} — version {designer.session.version}"))

    def _saved(self, designer, changes: ChangeSet) -> None:
        """A designer wrote to the store: its tab follows, and the window hears the change once."""
        self._retitle(designer)
        self.changed.emit(changes)

    def holds(self, widget: QWidget | None) -> bool:
        """Whether ``widget`` is one of the tabs now (a closed tab's widget is deleted)."""
        return widget is not None and shiboken6.isValid(widget) and self.indexOf(widget) >= 0

    def add_fixed_tab(self, widget: QWidget, title: str) -> int:
        """A tab that stays open, after the library and the other fixed ones."""
        index = self.insertTab(self.fixed, widget, title)
        bar = self.tabBar()
        for side in (bar.ButtonPosition.RightSide, bar.ButtonPosition.LeftSide):
            if bar.tabButton(index, side) is not None:
                bar.tabButton(index, side).hide()
        self.fixed += 1
        return index

    def _remember(self, _index: int) -> None:
        if self._closing:
            return
        previous, self._shown = self._shown, self.currentWidget()
        if previous is not None and previous is not self._shown:
            self._visited = [w for w in self._visited if w is not previous and self.holds(w)][-19:]
            self._visited.append(previous)

    def came_from(self, leaving: QWidget | None = None) -> QWidget:
        """The tab to show when ``leaving`` goes: the last one shown before it that is still
        open, else the library."""
        for widget in reversed(self._visited):
            if widget is not leaving and self.holds(widget):
                return widget
        return self.widget(0)

    def close_designer(self, index: int) -> bool:
        """Close the tab at ``index`` (a designer asks about unsaved changes first); closing the
        current tab returns to the tab the user came from, else to the library."""
        if index < self.fixed or index >= self.count():
            return False
        widget = self.widget(index)
        if hasattr(widget, "maybe_close") and not widget.maybe_close():
            return False
        if hasattr(widget, "shutdown"):  # a view with a thread stops it before it goes
            widget.shutdown()
        back = self.came_from(widget) if widget is self.currentWidget() else self.currentWidget()
        self._closing = True   # the tab Qt shows for a moment while closing is no visit
        try:
            self.removeTab(index)
            if back is not None and self.holds(back):
                self.setCurrentWidget(back)
        finally:
            self._closing = False
        self._shown = self.currentWidget()
        self._visited = [w for w in self._visited if w is not widget and w is not self._shown and self.holds(w)]
        widget.deleteLater()
        return True

    def close_all(self) -> bool:
        """Close every designer (asking about unsaved ones) and stop the views' threads; False if
        the user kept a designer open."""
        for designer in self.designers():
            if not self.close_designer(self.indexOf(designer)):
                return False
        for i in range(self.count()):
            if hasattr(self.widget(i), "shutdown"):
                self.widget(i).shutdown()
        return True

    def apply_changes(self, changes: ChangeSet) -> None:
        """Each designer follows the change (it reads its skill again only when the change touches it)."""
        for designer in self.designers():
            designer.store_changed(changes)
            self._retitle(designer)

    def store_changed(self) -> None:
        """The store changed in ways not known here (another process wrote it)."""
        self.apply_changes(ChangeSet.outside())

    def recover_drafts(self) -> int:
        """Offer each draft left in the store; returns how many were opened."""
        opened = 0
        for name in self.store.drafts():
            draft = self.store.draft(name)
            if draft is None or self.designer_for(name) is not None:
                continue
            text, base, saved_at = draft
            answer = self.ask_recover(self, name, saved_at, len(text.splitlines()))
            if answer == "discard":
                self.store.discard_draft(name)
            elif answer == "recover":
                if name not in self.store:
                    self.tell("Draft not recovered", f"“{name}” is no longer in the store; the draft is kept "
                                                     "(skill-studio drafts lists it).")
                    continue
                if self.open_skill(name, text=text, base_version=base) is not None:
                    opened += 1
        return opened
