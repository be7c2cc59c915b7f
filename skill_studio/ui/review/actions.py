"""The reviewer's operations from the window: lifecycle moves (one or many skills), trust, pins,
merge and delete, each asking what it must (a reason), reporting refusals with what is
allowed, and recorded on one undo stack."""

from __future__ import annotations

import getpass
import html
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QInputDialog, QLabel, QVBoxLayout, QWidget

from skill_studio.core.ops import review as ops
from skill_studio.core.ops.review import Outcome, outcome
from skill_studio.core.ops.skills import delete_skills
from skill_studio.core.review.lifecycle import MOVE_TERMS, Change, UndoStack
from skill_studio.core.store import DependentsExist, Store, StoreError
from skill_studio.ui.safe_text import literal


#: How each move is offered: menu text, the question for its reason, whether a reason is required.
def default_reviewer() -> str:
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name in this environment
        return "reviewer"


def _ask_reason(parent: QWidget | None, title: str, prompt: str) -> str | None:
    text, ok = QInputDialog.getText(parent, title, literal(prompt))
    return text if ok else None


class ReviewActions(QObject):
    """Performs review operations for a window; ``changed(ChangeSet)`` once after each, for the views."""

    changed = Signal(object)        # the ChangeSet of the operation just done
    revealRequested = Signal(str)   # a skill named in a message was clicked
    undoChanged = Signal()          # what undo/redo would do changed

    def __init__(self, store: Store, parent: QWidget, reviewer: Callable[[], str] = default_reviewer):
        super().__init__(parent)
        self.store = store
        self.window = parent
        self.reviewer = reviewer
        self.undo_stack = UndoStack(store)
        # How the actions ask and tell (replaceable, e.g. in tests).
        self.ask_reason: Callable[[QWidget | None, str, str], str | None] = _ask_reason
        self.tell: Callable[[str, str], None] = lambda title, text: self._message(title, text)

    def _message(self, title: str, text: str) -> None:
        """A message whose skill names (links ``skill:<name>``) can be clicked to show them."""
        dialog = QDialog(self.window)
        dialog.setWindowTitle(title)
        label = QLabel(text, dialog)
        label.setTextFormat(Qt.RichText)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextBrowserInteraction)
        label.linkActivated.connect(lambda href: (dialog.accept(), self.revealRequested.emit(href[6:]))
                                    if href.startswith("skill:") else None)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok, dialog)
        buttons.accepted.connect(dialog.accept)
        layout = QVBoxLayout(dialog)
        layout.addWidget(label)
        layout.addWidget(buttons)
        dialog.resize(480, dialog.sizeHint().height())
        try:
            dialog.exec()
        finally:
            dialog.deleteLater()

    def _record(self, done: Outcome) -> Change:
        self.undo_stack.push(done.change)
        self.undoChanged.emit()
        self.changed.emit(done.changes)
        return done.change

    # --- operations -----------------------------------------------------------

    def move(self, names: list[str], action: str, reason: str | None = None) -> list[str]:
        """Move each skill (one reason for all, asked for unless given); returns the names moved.
        Refusals are shown together, each with the moves allowed from its state."""
        if not names:
            return []
        title, prompt = MOVE_TERMS[action].title, MOVE_TERMS[action].question
        what = names[0] if len(names) == 1 else f"{len(names)} skills"
        if reason is None:
            reason = self.ask_reason(self.window, f"{title} {what}", prompt)
        if reason is None:
            return []
        if not reason.strip():
            self.tell(f"{title}: not done", "A reason is required; it is kept in the audit log.")
            return []
        try:
            done = ops.move_skills(self.store, names, action, reason, author=self.reviewer())
        except (StoreError, ValueError) as e:
            self.tell(f"{title}: not done", html.escape(str(e)))
            return []
        if done.change.after:
            self._record(done)
        if done.refused:
            self.tell(f"{title}: {len(done.refused)} not moved",
                      "<br><br>".join(html.escape(str(e)) for e in done.refused.values()))
        return list(done.change.after)

    def set_trust(self, name: str, tier: int) -> bool:
        try:
            self._record(ops.set_trust(self.store, name, tier, author=self.reviewer()))
        except StoreError as e:
            self.tell("Trust not changed", html.escape(str(e)))
            return False
        return True

    def set_pinned(self, names: list[str], pinned: bool) -> None:
        try:
            done = ops.set_pinned(self.store, names, pinned, author=self.reviewer())
        except StoreError as e:
            self.tell("Not changed", html.escape(str(e)))
            return
        if done.change.after:
            self._record(done)
        for e in done.refused.values():
            self.tell("Not changed", html.escape(str(e)))

    def delete(self, names: list[str]) -> list[str]:
        """Delete after asking; refusals list the blocking dependents as links."""
        if not names:
            return []
        what = f'"{names[0]}"' if len(names) == 1 else f"these {len(names)} skills"
        bound = sum(len(self.store.bindings(skill=name)) for name in names)
        bindings = (f" {'Its' if len(names) == 1 else 'Their'} {bound} binding{'s' if bound != 1 else ''} to events "
                    "go with {}; Undo puts them back.".format("it" if len(names) == 1 else "them")) if bound else ""
        reason = self.ask_reason(self.window, "Delete", f"Delete {what}? Their history and audit are kept.{bindings}"
                                                       "\n\nReason (optional):")
        if reason is None:
            return []
        try:
            done = delete_skills(self.store, names, reason=reason, author=self.reviewer())
        except StoreError as e:
            self.tell("Not deleted", html.escape(str(e)))
            return []
        if done.change.before:
            self._record(done)
        if done.refused:
            lines = []
            for name, e in done.refused.items():
                if isinstance(e, DependentsExist):
                    links = ", ".join(f'<a href="skill:{html.escape(d)}">{html.escape(d)}</a>' for d in e.dependents)
                    lines.append(f"<b>{html.escape(name)}</b> is needed by {links}")
                else:
                    lines.append(html.escape(str(e)))
            self.tell("Not deleted", "These skills were not deleted:<br><br>" + "<br>".join(lines)
                      + "<br><br>Change or delete the skills that need them first.")
        return list(done.change.before)

    def merge(self, source: str | None = None, target: str | None = None) -> Change | None:
        from skill_studio.ui.review.merge_dialog import MergeDialog

        dialog = MergeDialog(self.store, target=target, source=source, parent=self.window)
        dialog.do_merge = self._merge
        try:
            if dialog.exec() and dialog.change is not None:
                return self._record(outcome(dialog.change))
        finally:
            dialog.deleteLater()
        return None

    def _merge(self, target: str, source: str, with_files: bool | None = None) -> Change:
        return ops.merge_skills(self.store, target, source, author=self.reviewer(), with_files=with_files).change

    def record(self, change: Change) -> Change:
        """Put an operation done elsewhere (a health plan, an import's merges) on the undo stack."""
        return self._record(outcome(change))

    # --- undo -----------------------------------------------------------------

    def undo(self) -> None:
        self._step(ops.undo, "Undo")

    def redo(self) -> None:
        self._step(ops.redo, "Redo")

    def _step(self, do: Callable[..., Outcome], what: str) -> None:
        try:
            done = do(self.undo_stack, author=self.reviewer())
        except IndexError:
            return
        except StoreError as e:  # e.g. somebody else changed the skill meanwhile
            self.tell(f"{what} failed", html.escape(str(e)))
            return
        self.undoChanged.emit()
        self.changed.emit(done.changes)


__all__ = ["ReviewActions", "default_reviewer"]
