"""The reviewer's operations from the window: lifecycle moves (one or many skills), trust, pins,
merge and delete, each asking what it must (a reason), reporting refusals with what is
allowed, and recorded on one undo stack."""

from __future__ import annotations

import getpass
import html
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QInputDialog, QLabel, QVBoxLayout, QWidget

from skill_studio.core.review import lifecycle
from skill_studio.core.review.lifecycle import MOVES, Change, UndoStack
from skill_studio.core.store import DependentsExist, Store, StoreError
from skill_studio.ui.safe_text import literal

#: How each move is offered: menu text, the question for its reason, whether a reason is required.
MOVE_TEXT = {
    "promote": ("Promote", "Why is it ready to promote?"),
    "degrade": ("Degrade", "What went wrong?"),
    "deprecate": ("Deprecate", "Why retire it (and what replaces it)?"),
    "archive": ("Archive", "Why archive it?"),
    "restore": ("Restore to candidate", "Why bring it back for review?"),
}


def default_reviewer() -> str:
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name in this environment
        return "reviewer"


def _ask_reason(parent: QWidget | None, title: str, prompt: str) -> str | None:
    text, ok = QInputDialog.getText(parent, title, literal(prompt))
    return text if ok else None


def _join(changes: list[Change], label: str) -> Change:
    """Several changes as one undo step."""
    out = Change(label)
    for c in changes:
        out.add(c)
    return out


class ReviewActions(QObject):
    """Performs review operations for a window; ``changed(names)`` after each, for the views."""

    changed = Signal(list)          # names of the skills that changed
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

    def _record(self, change: Change) -> Change:
        self.undo_stack.push(change)
        self.undoChanged.emit()
        self.changed.emit(change.names)
        return change

    # --- operations -----------------------------------------------------------

    def move(self, names: list[str], action: str, reason: str | None = None) -> list[str]:
        """Move each skill (one reason for all, asked for unless given); returns the names moved.
        Refusals are shown together, each with the moves allowed from its state."""
        if not names:
            return []
        title, prompt = MOVE_TEXT[action]
        what = names[0] if len(names) == 1 else f"{len(names)} skills"
        if reason is None:
            reason = self.ask_reason(self.window, f"{title} {what}", prompt)
        if reason is None:
            return []
        if not reason.strip():
            self.tell(f"{title}: not done", "A reason is required; it is kept in the audit log.")
            return []
        done, refused = [], []
        for name in names:
            try:
                done.append(lifecycle.move(self.store, name, action, reason, author=self.reviewer()))
            except (StoreError, ValueError) as e:
                refused.append(html.escape(str(e)))
        if done:
            self._record(done[0] if len(done) == 1 else _join(done, f"{title} {len(done)} skills"))
        if refused:
            self.tell(f"{title}: {len(refused)} not moved", "<br><br>".join(refused))
        return [name for c in done for name in c.after]

    def set_trust(self, name: str, tier: int) -> bool:
        try:
            self._record(lifecycle.set_trust(self.store, name, tier, author=self.reviewer()))
        except StoreError as e:
            self.tell("Trust not changed", html.escape(str(e)))
            return False
        return True

    def set_pinned(self, names: list[str], pinned: bool) -> None:
        changes = []
        for name in names:
            try:
                changes.append(lifecycle.set_pinned(self.store, name, pinned, author=self.reviewer()))
            except StoreError as e:
                self.tell("Not changed", html.escape(str(e)))
        if changes:
            self._record(changes[0] if len(changes) == 1 else _join(changes, f"Pin {len(changes)} skills"))

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
        done, refused, pending = [], {}, list(names)
        while pending:  # skills whose only dependents are deleted here go too
            refused = {}
            for name in pending:
                try:
                    done.append(lifecycle.delete(self.store, name, reason, author=self.reviewer()))
                except DependentsExist as e:
                    refused[name] = e
                except StoreError as e:
                    refused[name] = e
            if len(refused) == len(pending):
                break
            pending = list(refused)
        if done:
            self._record(done[0] if len(done) == 1 else _join(done, f"Delete {len(done)} skills"))
        if refused:
            lines = []
            for name, e in refused.items():
                if isinstance(e, DependentsExist):
                    links = ", ".join(f'<a href="skill:{html.escape(d)}">{html.escape(d)}</a>' for d in e.dependents)
                    lines.append(f"<b>{html.escape(name)}</b> is needed by {links}")
                else:
                    lines.append(html.escape(str(e)))
            self.tell("Not deleted", "These skills were not deleted:<br><br>" + "<br>".join(lines)
                      + "<br><br>Change or delete the skills that need them first.")
        return [n for c in done for n in c.before]

    def merge(self, source: str | None = None, target: str | None = None) -> Change | None:
        from skill_studio.core.review.merge import merge
        from skill_studio.ui.review.merge_dialog import MergeDialog

        dialog = MergeDialog(self.store, target=target, source=source, parent=self.window)
        dialog.do_merge = lambda t, s: merge(self.store, t, s, author=self.reviewer())
        try:
            if dialog.exec() and dialog.change is not None:
                return self._record(dialog.change)
        finally:
            dialog.deleteLater()
        return None

    def record(self, change: Change) -> Change:
        """Put an operation done elsewhere (e.g. a merge dialog) on the undo stack."""
        return self._record(change)

    # --- undo -----------------------------------------------------------------

    def undo(self) -> None:
        self._step(self.undo_stack.undo, "Undo")

    def redo(self) -> None:
        self._step(self.undo_stack.redo, "Redo")

    def _step(self, do, what: str) -> None:
        try:
            change = do(author=self.reviewer())
        except IndexError:
            return
        except StoreError as e:  # e.g. somebody else changed the skill meanwhile
            self.tell(f"{what} failed", html.escape(str(e)))
            return
        self.undoChanged.emit()
        self.changed.emit(change.names)


__all__ = ["MOVES", "MOVE_TEXT", "ReviewActions", "default_reviewer"]
