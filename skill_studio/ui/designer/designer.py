"""The designer: one skill's SKILL.md in an editor beside its live preview, with the metadata
form, steps, files, problems and history around it; saving, conflicts and drafts."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QSplitter, QTabWidget, QVBoxLayout, QWidget

from skill_studio.core.model import SkillFile
from skill_studio.core.ops.changes import ChangeSet
from skill_studio.core.runtime import limits
from skill_studio.core.store import Store, StoreError
from skill_studio.ui.designer.conflict import ask_unsaved, resolve_conflict
from skill_studio.ui.designer.editor import CodeEditor
from skill_studio.ui.designer.file_tabs import FileTabs
from skill_studio.ui.designer.files_panel import FilesPanel
from skill_studio.ui.designer.find_bar import FindReplaceBar
from skill_studio.ui.designer.history_panel import HistoryPanel
from skill_studio.ui.designer.metadata_form import MetadataForm
from skill_studio.ui.designer.panes import PaneLayout, PaneSplitter
from skill_studio.ui.designer.preview import PreviewPane
from skill_studio.ui.designer.problems import ProblemsPanel, ValidationRunner
from skill_studio.ui.designer.run_panel import RunPanel
from skill_studio.ui.designer.saving import Outcome, Saver
from skill_studio.ui.designer.session import EditSession, body_of
from skill_studio.ui.designer.steps_editor import StepsEditor
from skill_studio.ui.designer.toolbar import DesignerToolbar
from skill_studio.ui.safe_text import question, warning
from skill_studio.ui.theme import current_tokens

DRAFT_INTERVAL_MS = 3000   # unsaved text reaches the store this often while the author types
FORM_DELAY_MS = 300        # the form follows the text after typing pauses this long


class DesignerWidget(QWidget):
    """Edits one skill of ``store``. The window that holds it asks :meth:`maybe_close` first.

    How the designer asks things (``ask_unsaved``, ``resolve_conflict``, ``confirm``,
    ``tell``) are attributes a caller may replace, e.g. in tests."""

    dirtyChanged = Signal(bool)
    titleChanged = Signal(str)
    #: The ChangeSet of each write to the store (a save, a rename, a copy, a restore), once per write.
    saved = Signal(object)
    statusMessage = Signal(str)

    replaceRequested = Signal(str)       # show this skill in place of this designer (a copy was saved)

    def __init__(self, store: Store, name: str, parent: QWidget | None = None, *, text: str | None = None,
                 base_version: int | None = None):
        super().__init__(parent)
        self.store = store
        self.session = EditSession(store, name, base_version=base_version)
        self._crlf = "\r\n" in self.session.base.skill_md
        self._dirty = False
        self._syncing = False
        self._names: list[str] | None = None   # the library's names, read once per store change
        self.ask_unsaved = lambda: ask_unsaved(self, self.session.name)
        self.resolve_conflict = lambda stored, mine: resolve_conflict(self, self.session.name, stored, mine)
        self.confirm = lambda title, text_: question(self, title, text_)
        self.tell = lambda title, text_: warning(self, title, text_)
        self.saver = Saver(self.session, self)
        self._build()
        self._connect()
        self._load(self.session.base.skill_md if text is None else text, self.session.base.files)
        if base_version is not None and self.session.changed_elsewhere():
            self.banner.setText(f"This draft was written on version {base_version}; the store has a newer one. "
                                "Saving will show you the difference and let you choose.")
            self.banner.show()

    # --- construction ---------------------------------------------------------

    def _build(self) -> None:
        self.editor = CodeEditor(self)
        self.editor.setObjectName("skillEditor")
        self.editor.set_word_wrap(True)   # SKILL.md is prose: its paragraphs wrap (Alt+Z turns it off)
        self.find_bar = FindReplaceBar(self.editor, self)
        self.find_bar.hide()
        self.file_tabs = FileTabs(self)
        self.file_tabs.add_main(self.editor, self.find_bar, self.session.base.md_filename)
        self.problems = ProblemsPanel(self)
        self.validator = ValidationRunner(self)
        left = QSplitter(Qt.Vertical, self)
        left.addWidget(self.file_tabs)
        left.addWidget(self.problems)
        left.setStretchFactor(0, 4)
        left.setStretchFactor(1, 1)
        left.setSizes([560, 140])
        left.setObjectName("designerEditorPane")

        self.preview = PreviewPane(self)
        read_only = self.session.read_only
        self.form = MetadataForm(self, library_names=self.library_names,
                                 library_tags=lambda: [t for t, _n in self.store.tags()], read_only=read_only)
        self.steps = StepsEditor(self, read_only=read_only)
        self.files_panel = FilesPanel(self, read_only=read_only)
        self.history = HistoryPanel(self, read_only=read_only)
        self.side = QTabWidget(self)
        self.side.setDocumentMode(True)
        self.side.addTab(self.form, "Metadata")
        self.side.addTab(self.steps, "Steps")
        self.side.addTab(self.files_panel, "Files")
        self.side.addTab(self.history, "History")
        self.run_panel = RunPanel(lambda: replace(self.session.base, skill_md=self.text(), files=self.files()), self,
                                  limits_now=lambda: limits.from_settings(self.store.setting))
        self.side.addTab(self.run_panel, "Run")

        self.splitter = PaneSplitter(Qt.Horizontal, self)
        self.splitter.setObjectName("designerSplitter")
        self.splitter.addWidget(left)
        self.splitter.addWidget(self.preview)
        self.splitter.addWidget(self.side)
        self.panes = PaneLayout(self.splitter, left, self.preview, self.side, comfort=self.editor.comfort_width())

        self.banner = QLabel(self)
        self.banner.setTextFormat(Qt.TextFormat.PlainText)
        self.banner.setWordWrap(True)
        self.banner.setObjectName("designerBanner")
        t = current_tokens()
        self.banner.setStyleSheet(f"background: {t.notice_back}; color: {t.notice_text}; padding: 6px;"
                                  " border-radius: 4px;")
        self.banner.hide()
        self.toolbar = DesignerToolbar(self)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.toolbar)
        layout.addWidget(self.banner)
        layout.addWidget(self.splitter, 1)

        self._draft_timer = QTimer(self, singleShot=True, interval=DRAFT_INTERVAL_MS)
        self._form_timer = QTimer(self, singleShot=True, interval=FORM_DELAY_MS)

    def _connect(self) -> None:
        self.editor.textChanged.connect(self._text_changed)
        self.editor.firstVisibleLineChanged.connect(self.preview.scroll_to_source_line)
        self.form.textEdited.connect(self._apply_from_panel)
        self.steps.textEdited.connect(self._apply_from_panel)
        self.files_panel.filesChanged.connect(self._files_changed)
        self.files_panel.openFileRequested.connect(self.open_file)
        self.files_panel.runRequested.connect(self.run_script)
        self.preview.openFileRequested.connect(self.open_file)
        self.file_tabs.fileEdited.connect(self._file_edited)
        self.problems.lineActivated.connect(self._go_to_line)
        self.problems.profileChanged.connect(lambda _p: self._validate())
        self.validator.finished.connect(self._diagnostics)
        self.history.restoreRequested.connect(self.restore_version)
        self._draft_timer.timeout.connect(self.save_draft)
        self._form_timer.timeout.connect(self._sync_panels)
        self.panes.changed.connect(self.toolbar.follow_panes)

    # --- loading ------------------------------------------------------------------

    def _load(self, text: str, files: list[SkillFile]) -> None:
        self._syncing = True
        try:
            self.files_panel.set_files(list(files))
            self.file_tabs.reload(list(files))  # open file tabs show the files as loaded, or close
            self.preview.set_skill_files({f.path: f.data for f in files})
            if self.text() != text:  # after a save the text is the same: keep cursor, scroll and undo
                self.editor.setPlainText(text.replace("\r\n", "\n") if self._crlf else text)
            self.editor.document().setModified(False)
        finally:
            self._syncing = False
        self.editor.setReadOnly(self.session.read_only)
        self.form.set_saved_name(self.session.name)
        self._names = None
        self._sync_panels()
        self._refresh_history()
        self.preview.set_markdown(*body_of(text))
        self._validate()
        self._update_dirty()
        self._update_banner()

    def _refresh_history(self) -> None:
        name = self.session.name
        self.history.set_history(self.store.versions(name), lambda v: self.store.version_text(name, v)[0],
                                 self.session.version)

    # --- what the author does ------------------------------------------------------

    def text(self) -> str:
        """The SKILL.md text as the author has it: non-breaking spaces and line separators kept,
        and CRLF line ends when the skill had them (toPlainText would change all three)."""
        text = self.editor.document().toRawText().replace("\u2029", "\n")
        return text.replace("\n", "\r\n") if self._crlf else text

    def files(self) -> list[SkillFile]:
        return self.files_panel.files()

    def is_dirty(self) -> bool:
        return self._dirty

    def title(self) -> str:
        return ("• " if self._dirty else "") + self.session.name

    def _text_changed(self) -> None:
        if self._syncing:
            return
        text = self.text()
        self.preview.set_markdown(*body_of(text))
        self._validate()
        self._form_timer.start()
        self._update_dirty()
        if self._dirty and not self._draft_timer.isActive():  # not restarted: steady typing is kept too
            self._draft_timer.start()

    def _apply_from_panel(self, new_text: str) -> None:
        """The form or the steps rewrote part of the frontmatter: put it in the editor (one undo step)."""
        self._syncing = True
        try:
            self.editor.set_text_keeping_place(new_text)
        finally:
            self._syncing = False
        self._text_changed()
        self._form_timer.stop()
        self._sync_panels()

    def _sync_panels(self) -> None:
        text = self.text()
        self.form.set_text(text)
        self.steps.set_text(text)

    def show_details(self, tab: QWidget | None = None) -> None:
        """Show the details (opening the drawer in a narrow window), at ``tab`` when given."""
        if tab is not None:
            self.side.setCurrentWidget(tab)
        if not self.side.isVisible():
            self.panes.set_details(True)

    def run_script(self, path: str) -> None:
        """Try one of the skill's scripts, as the designer holds it now, in the Run tab."""
        self.show_details(self.run_panel)
        self.run_panel.run(path)

    def shutdown(self) -> None:
        """The designer is going: a running script is stopped and its copy removed."""
        self.run_panel.shutdown()

    def _files_changed(self) -> None:
        self.run_panel.refresh()
        files = self.files()
        self.preview.set_skill_files({f.path: f.data for f in files})
        self.file_tabs.files_changed({f.path for f in files})
        self.preview.set_markdown(*body_of(self.text()))
        self._validate()
        self._update_dirty()

    def _file_edited(self, path: str, data: bytes) -> None:
        self.files_panel.update_file(path, data)
        self._files_changed()

    def open_file(self, path: str) -> None:
        """Open one of the skill's text files in its own tab (SKILL.md itself: the main tab)."""
        if path in ("SKILL.md", self.session.base.md_filename):
            self.file_tabs.setCurrentIndex(0)
            return
        match = next((f for f in self.files() if f.path == path), None)
        if match is None:
            self.statusMessage.emit(f"{path} is not a file of this skill")
            return
        if not self.file_tabs.open_file(match, read_only=self.session.read_only):
            self.statusMessage.emit(f"{path} is a binary file; it is not opened as text")

    def _go_to_line(self, line: int) -> None:
        self.file_tabs.setCurrentIndex(0)
        self.editor.go_to_line(line)

    def _update_dirty(self) -> None:
        dirty = self.session.is_dirty(self.text(), self.files())
        if dirty != self._dirty:
            self._dirty = dirty
            self.dirtyChanged.emit(dirty)
            self.titleChanged.emit(self.title())

    def _update_banner(self) -> None:
        if self.session.read_only:
            self.banner.setText("This is a builtin skill: it ships with the app and is read-only here. "
                                "Save a copy (File ▸ Save as copy) to change it.")
            self.banner.show()
        else:
            self.banner.hide()

    # --- validation -------------------------------------------------------------

    def _validate_args(self) -> tuple:
        folder = self.session.base.folder_name or self.session.name
        return (self.text(), folder, self.problems.profile(), [f.path for f in self.files()], self.library_names())

    def library_names(self) -> list[str]:
        """The store's skill names (for checks and pickers), read again after the store changes."""
        if self._names is None:
            self._names = self.store.names()
        return self._names

    def _validate(self) -> None:
        self.validator.request(*self._validate_args())

    def _validate_now(self) -> None:
        self.validator.run_now(*self._validate_args())

    def _diagnostics(self, diags: list) -> None:
        self.problems.set_diagnostics(diags)
        self.editor.set_diagnostics([(d.line, d.severity.value, d.message) for d in diags if d.line])

    # --- saving -------------------------------------------------------------------

    def save(self) -> bool:
        """Save a new version at once, with the toolbar's note ("What changed") when one was
        typed; the note is cleared once saved. False when nothing was saved."""
        if self.session.read_only:
            return False
        self.form.flush()   # edits still waiting in the form (it writes after a pause) reach the text now
        if not self._dirty:
            self.statusMessage.emit("No changes to save")
            return True
        note = self.toolbar.note.text().strip()
        saved = self._after_write(self.saver.save(self.text(), self.files(), note))
        if saved:
            self.toolbar.note.clear()
        return saved

    def save_as_copy(self) -> bool:
        """Save the text as a new skill, which this designer then edits."""
        self.form.flush()
        was_read_only = self.session.read_only
        saved = self._after_write(self.saver.save_as_copy(self.text(), self.files()))
        if saved and was_read_only:  # the copy is editable: a fresh designer shows it so
            self.replaceRequested.emit(self.session.name)
        return saved

    def restore_version(self, version: int) -> None:
        if self.session.changed_elsewhere():   # said before anything is asked
            self.tell("Not restored", f"{self.session.name} was changed elsewhere since you opened it. "
                      "Save your text first (you will see the difference and choose), or close it and open "
                      "it again.")
            return
        if self._dirty and not self.confirm("Restore version",
                                            f"Restoring version {version} drops your unsaved changes. Go on?"):
            return
        self._after_write(self.saver.restore(version))

    def _after_write(self, outcome: Outcome) -> bool:
        if outcome.reloaded:
            self._load(self.session.base.skill_md, self.session.base.files)
            self.statusMessage.emit("Reloaded the version in the store; your changes were dropped")
            return False
        if outcome.changes is None:
            return False
        self._draft_timer.stop()
        self._load(self.session.base.skill_md, self.session.base.files)
        if outcome.changes:
            self.saved.emit(outcome.changes)
        self.statusMessage.emit(f"Saved {self.session.name} as version {self.session.version}")
        return True

    # --- drafts, changes elsewhere and closing -------------------------------------

    def save_draft(self) -> None:
        """Keep the unsaved text in the store, so a crash loses nothing."""
        if self._dirty and not self.session.read_only:
            try:
                self.session.save_draft(self.text())
            except StoreError as e:
                self.statusMessage.emit(f"Could not keep a draft: {e}")

    def store_changed(self, changes: ChangeSet | None = None) -> None:
        """The store was written (``changes`` says what, None: anything may have changed): follow
        this skill when nothing is unsaved."""
        self._names = None
        if changes is not None and not changes.membership and not changes.touches([self.session.name]):
            return
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
        self.form.flush()
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
