"""The reviewer's operations from the window: lifecycle moves (one or many skills), trust, pins,
merge and delete, each asking what it must (a reason), reporting refusals with what is
allowed, and recorded on one undo stack."""

from __future__ import annotations

import getpass
import html
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from skill_studio.core.review.lifecycle import MOVE_TERMS, Change, UndoStack
from skill_studio.core.store import DependentsExist, Store, StoreError
from skill_studio.ui.review import wording
from skill_studio.ui.review.reason_dialog import ask_reason

if TYPE_CHECKING:
    from types import ModuleType

    from skill_studio.core.ops.review import Outcome


def _ops() -> ModuleType:
    """The review operations (loaded with the first one done: merging brings the format's parsers)."""
    from skill_studio.core.ops import review

    return review


def default_reviewer() -> str:
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name in this environment
        return "reviewer"


class ReviewActions(QObject):
    """Performs review operations for a window; ``changed(ChangeSet)`` once after each, for the views."""

    changed = Signal(object)        # the ChangeSet of the operation just done
    reported = Signal(str)          # what the operation (or its undo/redo) did, in a sentence
    revealRequested = Signal(str)   # a skill named in a message was clicked
    undoChanged = Signal()          # what undo/redo would do changed

    def __init__(self, store: Store, parent: QWidget, reviewer: Callable[[], str] = default_reviewer):
        super().__init__(parent)
        self.store = store
        self.window = parent
        self.reviewer = reviewer
        self.undo_stack = UndoStack(store)
        # The changes on the undo and redo stacks (same order), each with what it did in words.
        self._said_done: list[tuple[Change, str]] = []
        self._said_undone: list[tuple[Change, str]] = []
        # How the actions ask and tell (replaceable, e.g. in tests). A move's reason is required
        # (the dialog's OK waits for one); a deletion's is optional.
        self.ask_reason: Callable[[QWidget | None, str, str], str | None] = ask_reason
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

    def _record(self, done: Outcome, said: str = "") -> Change:
        said = said or done.change.label
        self.undo_stack.push(done.change)
        self._said_done = [*self._said_done, (done.change, said)][-self.undo_stack.limit:]
        self._said_undone.clear()
        self.undoChanged.emit()
        self.changed.emit(done.changes)
        self.reported.emit(said)
        return done.change

    def described(self, change: Change | None) -> str:
        """What ``change`` did, in the words its status message used (its label if told elsewhere)."""
        if change is None:
            return ""
        return next((t for c, t in (*self._said_done, *self._said_undone) if c is change), change.label)

    def undo_text(self) -> str:
        """What Undo would take back, in words ("" when nothing)."""
        return self._top(self._said_done, self.undo_stack.undo_label())

    def redo_text(self) -> str:
        """What Redo would do again, in words ("" when nothing)."""
        return self._top(self._said_undone, self.undo_stack.redo_label())

    @staticmethod
    def _top(said: list[tuple[Change, str]], label: str | None) -> str:
        if label is None:
            return ""
        return said[-1][1] if said and said[-1][0].label == label else label

    def _ask(self, title: str, prompt: str, *, required: bool) -> str | None:
        if self.ask_reason is ask_reason:
            return ask_reason(self.window, title, prompt, required=required)
        return self.ask_reason(self.window, title, prompt)

    # --- operations -----------------------------------------------------------

    def move(self, names: list[str], action: str, reason: str | None = None) -> list[str]:
        """Move each skill (one reason for all, asked for unless given); returns the names moved.
        Refusals are shown together, each with the moves allowed from its state."""
        if not names:
            return []
        title, prompt = MOVE_TERMS[action].title, MOVE_TERMS[action].question
        what = names[0] if len(names) == 1 else f"{len(names)} skills"
        if reason is None:
            reason = self._ask(f"{title} {what}", prompt, required=True)
        if reason is None:
            return []
        if not reason.strip():   # only when the question was replaced: the dialog waits for a reason
            self.tell(f"{title}: not done", "A reason is required; it is kept in the audit log.")
            return []
        try:
            done = _ops().move_skills(self.store, names, action, reason, author=self.reviewer())
        except (StoreError, ValueError) as e:
            self.tell(f"{title}: not done", html.escape(str(e)))
            return []
        if done.change.after:
            self._record(done, wording.moved(action, done.change))
        if done.refused:
            self.tell(f"{title}: {len(done.refused)} not moved",
                      "<br><br>".join(html.escape(str(e)) for e in done.refused.values()))
        return list(done.change.after)

    def set_trust(self, name: str, tier: int) -> bool:
        try:
            self._record(_ops().set_trust(self.store, name, tier, author=self.reviewer()), wording.trust(name, tier))
        except StoreError as e:
            self.tell("Trust not changed", html.escape(str(e)))
            return False
        return True

    def set_pinned(self, names: list[str], pinned: bool) -> None:
        try:
            done = _ops().set_pinned(self.store, names, pinned, author=self.reviewer())
        except StoreError as e:
            self.tell("Not changed", html.escape(str(e)))
            return
        if done.change.after:
            self._record(done, wording.pinned(list(done.change.after), pinned))
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
        reason = self._ask("Delete", f"Delete {what}? Their history and audit are kept.{bindings}"
                                     "\n\nReason (optional):", required=False)
        if reason is None:
            return []
        try:
            from skill_studio.core.ops.skills import delete_skills

            done = delete_skills(self.store, names, reason=reason, author=self.reviewer())
        except StoreError as e:
            self.tell("Not deleted", html.escape(str(e)))
            return []
        if done.change.before:
            self._record(done, wording.deleted(list(done.change.before)))
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
                return self._record(_ops().outcome(dialog.change), wording.merged(dialog.source(), dialog.target()))
        finally:
            dialog.deleteLater()
        return None

    def _merge(self, target: str, source: str, with_files: bool | None = None) -> Change:
        return _ops().merge_skills(self.store, target, source, author=self.reviewer(), with_files=with_files).change

    def record(self, change: Change, said: str = "") -> Change:
        """Put an operation done elsewhere (a health plan, an import's merges) on the undo stack;
        ``said`` is what it did in words (the status message and the Undo menu's text)."""
        return self._record(_ops().outcome(change), said)

    # --- undo -----------------------------------------------------------------

    def undo(self) -> None:
        self._step(_ops().undo, "Undo")

    def redo(self) -> None:
        self._step(_ops().redo, "Redo")

    def _step(self, do: Callable[..., Outcome], what: str) -> None:
        try:
            done = do(self.undo_stack, author=self.reviewer())
        except IndexError:
            self.reported.emit(f"Nothing to {what.lower()}")
            return
        except StoreError as e:  # e.g. somebody else changed the skill meanwhile
            self.tell(f"{what} failed", html.escape(str(e)))
            return
        said = self.described(done.change)
        source, dest = (self._said_done, self._said_undone) if what == "Undo" else (self._said_undone, self._said_done)
        if source and source[-1][0] is done.change:
            dest.append(source.pop())
        self.undoChanged.emit()
        self.changed.emit(done.changes)
        self.reported.emit(wording.stepped(what, said))


__all__ = ["ReviewActions", "default_reviewer"]
