"""Saving in the designer: a new version with a note, a conflict shown instead of written
over, restoring, drafts kept while typing, and what happens on close."""

from __future__ import annotations

from PySide6.QtWidgets import QInputDialog

from skill_studio.core.store import StoreError
from skill_studio.ui.designer.session import VersionConflict


class SavingMixin:
    """The save side of :class:`DesignerWidget` (which provides session, text(), files(),
    _load(), the ask/tell callables and the signals)."""

    # --- saving -------------------------------------------------------------------

    def _ask_note(self) -> str | None:
        note, ok = QInputDialog.getText(self, "Save new version", "What changed (optional):")
        return note if ok else None

    def _flush_panels(self) -> None:
        """Edits still waiting in the form (it writes after a pause) reach the text now."""
        self.form.flush()

    def save(self) -> bool:
        """Save a new version (asking for an optional note). False when nothing was saved."""
        if self.session.read_only:
            return False
        self._flush_panels()
        if not self._dirty:
            self.statusMessage.emit("No changes to save")
            return True
        note = self.ask_note()
        if note is None:
            return False
        return self._save_with(lambda: self.session.save(self.text(), self.files(), note))

    def _save_with(self, do_save) -> bool:
        try:
            skill = do_save()
        except VersionConflict:
            return self._conflict()
        except (StoreError, ValueError) as e:  # SkillParseError is a ValueError and names the line
            self.tell("Not saved", f"{self.session.name} was not saved:\n\n{e}")
            return False
        self._after_save(skill.name)
        return True

    def _conflict(self) -> bool:
        choice = self.resolve_conflict(self.session.stored_text(), self.text())
        if choice == "reload":
            self._load(self.session.reload().skill_md, self.session.base.files)
            self.statusMessage.emit("Reloaded the version in the store; your changes were dropped")
            return False
        if choice == "overwrite":
            return self._save_with(lambda: self.session.overwrite(self.text(), self.files()))
        if choice == "copy":
            new_name = self.session.free_copy_name()
            return self._save_with(lambda: self.session.save_as_copy(self.text(), self.files(), new_name))
        return False

    def save_as_copy(self) -> bool:
        self._flush_panels()
        was_read_only = self.session.read_only
        name = self.session.free_copy_name()
        saved = self._save_with(lambda: self.session.save_as_copy(self.text(), self.files(), name))
        if saved and was_read_only:  # the copy is editable: a fresh designer shows it so
            self.replaceRequested.emit(self.session.name)
        return saved

    def _after_save(self, name: str) -> None:
        self._draft_timer.stop()
        self._load(self.session.base.skill_md, self.session.base.files)
        self.saved.emit(name)
        self.statusMessage.emit(f"Saved {name} as version {self.session.version}")

    def restore_version(self, version: int) -> None:
        if self._dirty and not self.confirm("Restore version",
                                            f"Restoring version {version} drops your unsaved changes. Go on?"):
            return
        try:
            self.session.restore(version)
        except VersionConflict:
            self.tell("Not restored", "The skill was changed elsewhere since you opened it; "
                                      "reload it first.")
            return
        except StoreError as e:
            self.tell("Not restored", str(e))
            return
        self._after_save(self.session.name)

    # --- drafts and closing ----------------------------------------------------------

    def save_draft(self) -> None:
        """Keep the unsaved text in the store, so a crash loses nothing."""
        if self._dirty and not self.session.read_only:
            try:
                self.session.save_draft(self.text())
            except StoreError as e:
                self.statusMessage.emit(f"Could not keep a draft: {e}")

    def store_changed(self) -> None:
        """Another window or process wrote to the store: follow it when nothing is unsaved."""
        self._names = None
        if not self.session.changed_elsewhere():
            return
        if self._dirty:
            self.banner.setText("This skill was changed elsewhere since you opened it. Saving will show "
                                "you the difference and let you choose.")
            self.banner.show()
            return
        try:
            self._load(self.session.reload().skill_md, self.session.base.files)
        except StoreError:
            self.banner.setText("This skill is no longer in the store. Save a copy to keep your text.")
            self.banner.show()

    def maybe_close(self) -> bool:
        """True when the designer may close: saved, discarded, or nothing to lose."""
        self._flush_panels()
        if not self._dirty:
            self._draft_timer.stop()
            if not self.session.read_only and self.session.draft() is not None:
                self.session.discard_draft()  # typed and undone back to the saved text: nothing to keep
            return True
        answer = self.ask_unsaved()
        if answer == "save":
            return self.save()
        if answer == "discard":
            self._draft_timer.stop()
            self.session.discard_draft()
            return True
        return False
