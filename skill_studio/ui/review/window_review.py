"""The review workflow in the main window: menus and keys, the review queue tab, the audit log
tab, clickable trust stars, and keeping the views in step after each operation."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QInputDialog, QMenu, QToolBar

from skill_studio.core.review.lifecycle import MOVES
from skill_studio.ui.review.actions import MOVE_TEXT, ReviewActions

if TYPE_CHECKING:
    from skill_studio.ui.shell.main_window import MainWindow

APPROVE_REASON = "approved in the review queue"


class WindowReview:
    """Owns the window's :class:`ReviewActions` and everything that shows or triggers them."""

    def __init__(self, window: MainWindow):
        from skill_studio.ui.review.queue_view import ReviewQueueView

        self.window = w = window
        self.actions = ReviewActions(w.store, w, reviewer=lambda: w.settings.reviewer)
        self.actions.changed.connect(self._changed)
        self.actions.revealRequested.connect(w.reveal)
        self.actions.undoChanged.connect(self._undo_texts)
        self.queue = ReviewQueueView(w.store, w.workspace)
        w.workspace.add_fixed_tab(self.queue, "Review")
        self.queue.countChanged.connect(self._queue_count)
        self.queue.approveRequested.connect(lambda n: self.actions.move([n], "promote", APPROVE_REASON))
        self.queue.rejectRequested.connect(lambda n, why: self.actions.move([n], "archive", why))
        self.queue.mergeRequested.connect(lambda source, target: self.actions.merge(source, target or None))
        self.queue.openRequested.connect(w.open_designer)
        self.audit = None
        self.health = None
        self._build_actions()
        w.details.moveRequested.connect(lambda name, action: self.actions.move([name], action))
        w.details.pinRequested.connect(lambda name, on: self.actions.set_pinned([name], on))
        w.details.trustRequested.connect(self.actions.set_trust)
        w.browser.delegate.starClicked.connect(self._star_clicked)
        self._queue_count(self.queue.count())
        self._undo_texts()

    # --- menus and keys -------------------------------------------------------

    def _build_actions(self) -> None:
        w = self.window
        a = w._action
        a("undo", "&Undo", self.actions.undo, QKeySequence.Undo, "Undo the last review operation")
        a("redo", "&Redo", self.actions.redo, QKeySequence.Redo, "Redo what was undone")
        for key in ("undo", "redo"):  # in a designer, Ctrl+Z is the editor's
            w.actions[key].setShortcutContext(Qt.WidgetWithChildrenShortcut)
            w.splitter.addAction(w.actions[key])
            self.queue.addAction(w.actions[key])
        for action in MOVES:
            a(f"move_{action}", f"{MOVE_TEXT[action][0]}…",
              lambda _=False, act=action: self.actions.move(w.browser.selected_names(), act),
              None, f"{MOVE_TEXT[action][0]} the selected skills (asks why)")
        a("pin", "&Pin", lambda: self.actions.set_pinned(w.browser.selected_names(), True), None,
          "Keep the selected skills out of the health check's moves")
        a("unpin", "Un&pin", lambda: self.actions.set_pinned(w.browser.selected_names(), False))
        a("merge", "&Merge…", self._merge_selected, "Ctrl+M", "Merge one skill into another")
        a("show_queue", "&Review queue", lambda: w.workspace.setCurrentWidget(self.queue), "Ctrl+R",
          "Candidates and degraded skills waiting for review")
        a("show_audit", "&Audit log", self.show_audit, "Ctrl+Shift+A", "Who changed what, when and why")
        a("reviewer", "Reviewer &name…", self._ask_reviewer, None, "The name the audit log records for you")
        a("show_health", "&Health", self.show_health, "Ctrl+Shift+H",
          "Score every skill, plan maintenance moves, find near-duplicates")
        bar = w.menuBar()
        edit, view, skill = (next(m.menu() for m in bar.actions() if m.text().replace("&", "") == t)
                             for t in ("Edit", "View", "Skill"))
        first = edit.actions()[0] if edit.actions() else None
        edit.insertAction(first, w.actions["undo"])
        edit.insertAction(first, w.actions["redo"])
        edit.insertSeparator(first)
        edit.addSeparator()
        edit.addAction(w.actions["reviewer"])
        view.addSeparator()
        view.addAction(w.actions["show_queue"])
        view.addAction(w.actions["show_audit"])
        view.addAction(w.actions["show_health"])
        toolbar = w.findChild(QToolBar, "main_toolbar")
        if toolbar is not None:
            toolbar.addSeparator()
            toolbar.addAction(w.actions["show_health"])
        self.lifecycle_menu = QMenu("&Lifecycle", w)
        for action in MOVES:
            self.lifecycle_menu.addAction(w.actions[f"move_{action}"])
        self.lifecycle_menu.addSeparator()
        self.lifecycle_menu.addAction(w.actions["pin"])
        self.lifecycle_menu.addAction(w.actions["unpin"])
        skill.insertMenu(skill.actions()[1] if len(skill.actions()) > 1 else None, self.lifecycle_menu)
        skill.insertAction(skill.actions()[2] if len(skill.actions()) > 2 else None, w.actions["merge"])

    def add_to_context_menu(self, menu: QMenu) -> None:
        menu.insertMenu(menu.actions()[1] if len(menu.actions()) > 1 else None, self.lifecycle_menu)
        menu.insertAction(menu.actions()[2] if len(menu.actions()) > 2 else None, self.window.actions["merge"])

    def selection_changed(self, names: list[str]) -> None:
        for key in [f"move_{a}" for a in MOVES] + ["pin", "unpin"]:
            self.window.actions[key].setEnabled(bool(names))

    # --- what the actions do ----------------------------------------------------

    def _merge_selected(self) -> None:
        names = self.window.browser.selected_names()
        source = names[0] if names else None
        target = names[1] if len(names) > 1 else None
        self.actions.merge(source, target)

    def _star_clicked(self, name: str, tier: int) -> None:
        if tier <= 3:
            self.actions.set_trust(name, tier)

    def show_audit(self, skill: str | None = None) -> None:
        from skill_studio.ui.review.audit_view import AuditLogView

        w = self.window
        if not w.workspace.holds(self.audit):
            self.audit = AuditLogView(w.store, w.workspace)
            self.audit.skillActivated.connect(w.reveal)
            w.workspace.addTab(self.audit, "Audit log")
        if skill:
            self.audit.set_skill_filter(skill)
        self.audit.refresh()
        w.workspace.setCurrentWidget(self.audit)

    def show_health(self) -> None:
        """The health view in its own tab (opened once; its runs go off the GUI thread)."""
        from skill_studio.core.health import checks as health
        from skill_studio.ui.health.health_view import HealthView

        w = self.window
        if not w.workspace.holds(self.health):
            self.health = HealthView(w.store, w.workspace)
            author = lambda: w.settings.reviewer  # noqa: E731
            self.health.do_apply = lambda actions, exclude: self._applied(
                health.apply(w.store, actions, exclude, author=author()))
            self.health.mergeRequested.connect(lambda source, target: self.actions.merge(source, target))
            self.health.skillActivated.connect(w.reveal)
            # Apply goes through _applied: recording the change refreshes the views once.
            self.health.runFinished.connect(lambda _run: w.refresh())  # freshness was brought up to date
            w.workspace.addTab(self.health, "Health")
        w.workspace.setCurrentWidget(self.health)

    def _applied(self, result):
        change, refused = result
        if change.names:
            self.actions.record(change)  # Ctrl+Z undoes the whole plan
        return change, refused

    def _ask_reviewer(self) -> None:
        w = self.window
        name, ok = QInputDialog.getText(w, "Reviewer name", "The name the audit log records for your changes:",
                                        text=w.settings.reviewer)
        if ok and name.strip():
            w.settings.reviewer = name.strip()

    def _changed(self, names: list[str]) -> None:
        w = self.window
        w.refresh()
        self.queue.refresh()
        if w.workspace.holds(self.audit):
            self.audit.refresh()
        w.storeChanged.emit()
        w.workspace.store_changed()
        if len(names) == 1:
            w.statusBar().showMessage(f"{names[0]}: done — Ctrl+Z undoes it", 5000)

    def _queue_count(self, n: int) -> None:
        w = self.window
        w.workspace.setTabText(w.workspace.indexOf(self.queue), f"Review ({n})" if n else "Review")

    def _undo_texts(self) -> None:
        stack, acts = self.actions.undo_stack, self.window.actions
        acts["undo"].setEnabled(stack.can_undo())
        acts["redo"].setEnabled(stack.can_redo())
        acts["undo"].setText(f"&Undo {stack.undo_label()}" if stack.can_undo() else "&Undo")
        acts["redo"].setText(f"&Redo {stack.redo_label()}" if stack.can_redo() else "&Redo")
