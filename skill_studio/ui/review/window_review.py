"""The review workflow as a feature of the window: undo and redo, the lifecycle moves, pin, merge and
delete, the review queue tab, the audit log tab, clickable trust stars."""

from __future__ import annotations

from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QInputDialog

from skill_studio.core.ops.changes import ChangeSet
from skill_studio.core.review.lifecycle import MOVE_TERMS
from skill_studio.ui.review.actions import ReviewActions
from skill_studio.ui.shell.feature import (
    CONTEXT,
    ActionSpec,
    Feature,
    MenuSpec,
    PageSpec,
    any_selected,
    at,
)

APPROVE_REASON = "approved in the review queue"
LIFECYCLE = "Skill/Lifecycle"
#: How long an operation's message stays in the status bar (an undo's replaces it at once).
STATUS_MS = 10_000


def _menu_text(text: str, limit: int = 60) -> str:
    """A sentence as a menu item's text: ampersands kept literal, shortened past ``limit``."""
    text = text if len(text) <= limit else text[:limit - 1].rstrip() + "\u2026"
    return text.replace("&", "&&")


class ReviewFeature(Feature):
    """Owns the window's :class:`ReviewActions` (public as ``actions``) and all that shows or triggers them."""

    id = "review"

    def __init__(self, shell):
        super().__init__(shell)
        self.actions = ReviewActions(shell.store, shell, reviewer=lambda: shell.settings.reviewer)

    def _move_selected(self, action: str):
        return lambda _checked=False: self.actions.move(self.shell.selected_names(), action)

    def action_specs(self) -> list[ActionSpec]:
        a = self.actions
        specs = [
            ActionSpec("undo", "&Undo", a.undo, QKeySequence.Undo, "Undo the last review operation", scope="library",
                       places=(at("Edit", 0, 0),)),
            ActionSpec("redo", "&Redo", a.redo, QKeySequence.Redo, "Redo what was undone", scope="library",
                       places=(at("Edit", 0, 1),)),
            ActionSpec("reviewer", "Reviewer &name…", self._ask_reviewer, None,
                       "The name the audit log records for you", places=(at("Edit", 2, 0),)),
        ]
        for i, (action, terms) in enumerate(MOVE_TERMS.items()):
            specs.append(ActionSpec(f"move_{action}", f"{terms.title}…", self._move_selected(action), None,
                                    f"{terms.title} the selected skills (asks why)",
                                    places=(at(LIFECYCLE, 0, i),), enabled=any_selected))
        specs += [
            ActionSpec("pin", "&Pin", lambda: a.set_pinned(self.shell.selected_names(), True), None,
                       "Keep the selected skills out of the health check's moves", places=(at(LIFECYCLE, 1, 0),),
                       enabled=any_selected),
            ActionSpec("unpin", "Un&pin", lambda: a.set_pinned(self.shell.selected_names(), False),
                       places=(at(LIFECYCLE, 1, 1),), enabled=any_selected),
            ActionSpec("merge", "&Merge…", self._merge_selected, "Ctrl+M", "Merge one skill into another",
                       places=(at("Skill", 0, 2), at(CONTEXT, 0, 2))),
            ActionSpec("delete", "&Delete…", self.delete_selection, QKeySequence.Delete, "Delete the selected skills",
                       scope="library", enabled=any_selected, toolbar=(0, 3),
                       places=(at("Skill", 2, 0), at(CONTEXT, 3, 0))),
            ActionSpec("show_queue", "&Review queue", lambda: self.shell.open_page("review_queue"), "Ctrl+R",
                       "Candidates and degraded skills waiting for review", places=(at("View", 3, 0),)),
            ActionSpec("show_audit", "&Audit log", self.show_audit, "Ctrl+Shift+A", "Who changed what, when and why",
                       places=(at("View", 3, 1),)),
        ]
        return specs

    def menu_specs(self) -> list[MenuSpec]:
        return [MenuSpec(LIFECYCLE, "&Lifecycle", (at("Skill", 0, 1), at(CONTEXT, 0, 1)))]

    def page_specs(self) -> list[PageSpec]:
        return [PageSpec("review_queue", "Review", self._make_queue, kind="fixed"),
                PageSpec("audit", "Audit log", self._make_audit)]

    def _make_queue(self, parent):
        from skill_studio.ui.review.queue_view import ReviewQueueView

        shell, a = self.shell, self.actions
        queue = ReviewQueueView(shell.store, parent, lazy=True)   # its widgets after the first paint
        shell.after_first_paint(queue.build)
        queue.countChanged.connect(self._queue_count)
        queue.approveRequested.connect(lambda n: a.move([n], "promote", APPROVE_REASON))
        queue.rejectRequested.connect(lambda n, why: a.move([n], "archive", why))
        queue.mergeRequested.connect(lambda source, target: a.merge(source, target or None))
        queue.openRequested.connect(shell.open_designer)
        return queue

    def _make_audit(self, parent):
        from skill_studio.ui.review.audit_view import AuditLogView

        audit = AuditLogView(self.shell.store, parent)
        audit.skillActivated.connect(self.shell.reveal)
        return audit

    @property
    def queue(self):
        return self.shell.page("review_queue")

    @property
    def audit(self):
        """The audit log while its tab is open, else None."""
        return self.shell.page("audit")

    def attach(self) -> None:
        shell, a = self.shell, self.actions
        a.changed.connect(self._operation_done)
        a.reported.connect(self._report)
        a.revealRequested.connect(shell.reveal)
        a.undoChanged.connect(self._undo_texts)
        for key in ("undo", "redo"):  # in the queue too (in a designer, Ctrl+Z is the editor's)
            self.queue.addAction(shell.action(key))
        shell.details.moveRequested.connect(lambda name, action: a.move([name], action))
        shell.details.pinRequested.connect(lambda name, on: a.set_pinned([name], on))
        shell.details.trustRequested.connect(a.set_trust)
        shell.browser.delegate.starClicked.connect(self._star_clicked)
        self._queue_count(self.queue.count())
        self._undo_texts()

    # --- what the actions do ----------------------------------------------------

    def record(self, change, said: str = "") -> None:
        """Put an operation done elsewhere on the undo stack (the views hear of it as one change);
        ``said``: what it did, in words, for the status bar and the Undo menu."""
        self.actions.record(change, said)

    def delete_selection(self) -> None:
        """Delete the selected skills (asks first; refusals name the skills that need them; Ctrl+Z undoes)."""
        self.actions.delete(self.shell.selected_names())

    def _merge_selected(self) -> None:
        names = self.shell.selected_names()
        source = names[0] if names else None
        target = names[1] if len(names) > 1 else None
        self.actions.merge(source, target)

    def _star_clicked(self, name: str, tier: int) -> None:
        if tier <= 3:
            self.actions.set_trust(name, tier)

    def show_audit(self, skill: str | None = None) -> None:
        opened = self.audit is not None
        audit = self.shell.open_page("audit")
        if isinstance(skill, str) and skill:
            audit.set_skill_filter(skill)
        elif opened:
            audit.refresh()

    def _ask_reviewer(self) -> None:
        settings = self.shell.settings
        name, ok = QInputDialog.getText(self.shell, "Reviewer name", "The name the audit log records for your changes:",
                                        text=settings.reviewer)
        if ok and name.strip():
            settings.reviewer = name.strip()

    def _operation_done(self, changes: ChangeSet) -> None:
        self.shell.publish(changes)

    def _report(self, text: str) -> None:
        """What the operation (or its undo) did; it replaces whatever the status bar said before."""
        self.shell.show_status(text, STATUS_MS)

    def changes_applied(self, changes: ChangeSet) -> None:
        if changes.skills or changes.unknown:
            self.queue.refresh()
            if self.audit is not None:
                self.audit.refresh()

    def _queue_count(self, n: int) -> None:
        self.shell.set_page_title("review_queue", f"Review ({n})" if n else "Review")

    def _undo_texts(self) -> None:
        stack = self.actions.undo_stack
        undo, redo = self.shell.action("undo"), self.shell.action("redo")
        undo.setEnabled(stack.can_undo())
        redo.setEnabled(stack.can_redo())
        undo_text, redo_text = self.actions.undo_text(), self.actions.redo_text()
        undo.setText(f"&Undo: {_menu_text(undo_text)}" if undo_text else "&Undo")
        redo.setText(f"&Redo: {_menu_text(redo_text)}" if redo_text else "&Redo")
        undo.setToolTip(f"Undo: {undo_text}" if undo_text else "Nothing to undo")
        redo.setToolTip(f"Redo: {redo_text}" if redo_text else "Nothing to redo")


__all__ = ["ReviewFeature"]
