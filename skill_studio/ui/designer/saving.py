"""Writing the designer's text to the store: a new version with a note, a conflict shown instead
of written over, a copy, an earlier version restored. Each write answers with what it changed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from skill_studio.core.model import SkillFile
from skill_studio.core.ops.changes import ChangeSet
from skill_studio.core.ops.skills import Saved
from skill_studio.core.store import StoreError, VersionConflict
from skill_studio.ui.designer.session import EditSession

__all__ = ["Author", "Outcome", "Saver"]


class Author(Protocol):
    """The person editing, as a save needs them: asked what to do about a change made elsewhere
    ('reload', 'overwrite', 'copy' or 'cancel'), told why nothing was written."""

    def resolve_conflict(self, stored: str, mine: str) -> str: ...

    def tell(self, title: str, text: str) -> None: ...


@dataclass(frozen=True)
class Outcome:
    """How a save ended: written (``changes`` says what changed, empty when the store already held
    the text), the stored version taken instead (``reloaded``), or nothing done."""

    changes: ChangeSet | None = None
    reloaded: bool = False

    @property
    def written(self) -> bool:
        return self.changes is not None


class Saver:
    """Writes the text and files it is given through ``session``, asking ``author`` what a write
    needs to know; never writes over a version the session did not read without asking."""

    def __init__(self, session: EditSession, author: Author):
        self.session = session
        self.author = author

    def save(self, text: str, files: list[SkillFile], note: str = "") -> Outcome:
        """A new version with ``note`` (what changed; "" for none). A change saved elsewhere since
        the session read the skill is shown to the author first, before anything else happens."""
        if self.session.changed_elsewhere():
            return self._conflict(text, files, note)
        return self._write(lambda: self.session.save(text, files, note), text, files, note)

    def save_as_copy(self, text: str, files: list[SkillFile]) -> Outcome:
        """The text as a new skill under a free ``<name>-copy`` name; the session edits the copy."""
        name = self.session.free_copy_name()
        return self._write(lambda: self.session.save_as_copy(text, files, name), text, files)

    def restore(self, version: int) -> Outcome:
        """Make ``version`` the current one (a new version); a stale session is told to reload."""
        try:
            saved = self.session.restore(version)
        except VersionConflict:
            self.author.tell("Not restored", "The skill was changed elsewhere since you opened it; reload it first.")
            return Outcome()
        except StoreError as e:
            self.author.tell("Not restored", str(e))
            return Outcome()
        return Outcome(saved.changes)

    def _write(self, write: Callable[[], Saved], text: str, files: list[SkillFile], note: str = "") -> Outcome:
        try:
            saved = write()
        except VersionConflict:
            return self._conflict(text, files, note)
        except (StoreError, ValueError) as e:  # SkillParseError is a ValueError and names the line
            self.author.tell("Not saved", f"{self.session.name} was not saved:\n\n{e}")
            return Outcome()
        return Outcome(saved.changes)

    def _conflict(self, text: str, files: list[SkillFile], note: str = "") -> Outcome:
        choice = self.author.resolve_conflict(self.session.stored_text(), text)
        if choice == "reload":
            self.session.reload()
            return Outcome(reloaded=True)
        if choice == "overwrite":
            return self._write(lambda: self.session.overwrite(text, files, note), text, files, note)
        if choice == "copy":
            return self.save_as_copy(text, files)
        return Outcome()
