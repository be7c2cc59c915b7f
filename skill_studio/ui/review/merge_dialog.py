"""The merge dialog: pick a source and a target, see what merging would do, then merge."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QCompleter,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from skill_studio.core.format.strict import MAX_DESCRIPTION_LENGTH
from skill_studio.core.model import Lifecycle
from skill_studio.core.review.merge import MergePreview, merge, merge_preview
from skill_studio.ui.designer.diff_view import DiffView
from skill_studio.ui.theme import Tokens, current_tokens

__all__ = ["MergeDialog"]

#: How long typing in a name waits before the preview is recomputed.
DEBOUNCE_MS = 200
SOURCE_LABEL = "Merge (source \u2014 will be archived)"
TARGET_LABEL = "into (target \u2014 keeps its name)"
CHOOSE = "Choose the skill to merge and the skill to merge it into."


class MergeDialog(QDialog):
    """Merging one skill into another, previewed before anything is written.

    ``do_merge(target, source, with_files)`` performs the merge and returns what changed; it
    defaults to :func:`skill_studio.core.review.merge.merge` and the window replaces it to go
    through its undo stack. After a successful merge the dialog is accepted and :attr:`change`
    holds the result.

    The source's files that the target lacks are listed with a box to add them, ticked only when
    the source is trusted at least as much as the target (a script of an unreviewed skill never
    reaches a trusted one unless the reviewer ticks it).
    """

    def __init__(self, store, target: str | None = None, source: str | None = None,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Merge skills")
        self.store = store
        self.do_merge = lambda t, s, with_files: merge(store, t, s, with_files=with_files)
        self.change = None
        self.preview: MergePreview | None = None
        self._error = ""

        names = store.names()
        self.source_combo = self._name_combo(names, "The skill whose steps and text are merged in; "
                                                    "it is archived afterwards")
        self.target_combo = self._name_combo(names, "The skill that receives the merge and keeps its name")
        self.swap_button = QPushButton("\u21c4 Swap", self)
        self.swap_button.setToolTip("Merge the other way round")
        self.swap_button.clicked.connect(self.swap)
        names_grid = QGridLayout()
        names_grid.addWidget(QLabel(SOURCE_LABEL, self), 0, 0)
        names_grid.addWidget(QLabel(TARGET_LABEL, self), 0, 2)
        names_grid.addWidget(self.source_combo, 1, 0)
        names_grid.addWidget(self.swap_button, 1, 1)
        names_grid.addWidget(self.target_combo, 1, 2)
        names_grid.setColumnStretch(0, 1)
        names_grid.setColumnStretch(2, 1)

        self.files_check = QCheckBox(self)
        self.files_check.setVisible(False)
        self.files_check.toggled.connect(self._files_toggled)
        self._files_choice: dict[tuple[str, str], bool] = {}   # the reviewer's tick, per pair

        self.message_label = QLabel(self)
        self.message_label.setTextFormat(Qt.TextFormat.PlainText)
        self.message_label.setWordWrap(True)
        self.message_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.summary = QTextBrowser(self)
        self.summary.setOpenLinks(False)
        self.diff_view = DiffView(self, mode="unified")
        self.splitter = QSplitter(Qt.Horizontal, self)
        self.splitter.addWidget(self.summary)
        self.splitter.addWidget(self.diff_view)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setSizes([380, 600])  # the summary reads best at about a third of the width

        self.buttons = QDialogButtonBox(self)
        self.apply_button = self.buttons.addButton("Merge", QDialogButtonBox.AcceptRole)
        self.apply_button.setToolTip("Merge the source into the target and archive the source")
        self.cancel_button = self.buttons.addButton(QDialogButtonBox.Cancel)
        self.apply_button.clicked.connect(self.apply)
        self.cancel_button.clicked.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addLayout(names_grid)
        layout.addWidget(self.message_label)
        layout.addWidget(self.splitter, 1)
        layout.addWidget(self.files_check)
        layout.addWidget(self.buttons)

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self.update_preview)
        for combo in (self.source_combo, self.target_combo):
            combo.editTextChanged.connect(self._timer.start)
            combo.activated.connect(self.update_preview)
            combo.lineEdit().returnPressed.connect(self.update_preview)
        for button in (self.apply_button, self.cancel_button, self.swap_button):
            button.setAutoDefault(False)  # Return in a name box previews; it never merges
        self.resize(1000, 700)
        self.set_names(target, source)

    # --- public -------------------------------------------------------------

    def target(self) -> str:
        return self.target_combo.currentText().strip()

    def source(self) -> str:
        return self.source_combo.currentText().strip()

    def set_names(self, target: str | None, source: str | None) -> None:
        """Put these names in the two boxes (None or '' leaves a box empty) and preview at once."""
        for combo, name in ((self.target_combo, target), (self.source_combo, source)):
            combo.setEditText(name or "")
        self.update_preview()

    def swap(self) -> None:
        """Merge the other way round: the target becomes the source."""
        self.set_names(self.source(), self.target())

    def error(self) -> str:
        """Why the current pair cannot be merged (or why the last merge failed), or ''."""
        return self._error

    def update_preview(self) -> None:
        """Recompute the preview for the names in the boxes (writes nothing)."""
        self._timer.stop()
        self.preview = None
        target, source = self.target(), self.source()
        if not target or not source:
            self._show_problem(CHOOSE, error=False)
            return
        unknown = [n for n in (source, target) if n not in self.store]
        if unknown:
            self._show_problem(" ".join(f'There is no skill named "{n}".' for n in dict.fromkeys(unknown)))
            return
        try:
            preview = merge_preview(self.store, target, source, with_files=self._files_choice.get((target, source)))
        except Exception as e:  # noqa: BLE001 - refused (self-merge, builtin) or unreadable: say why, never crash
            self._show_problem(str(e) or type(e).__name__)
            return
        self.preview = preview
        self._show_files(preview)
        self._set_message("", error=False)
        self.summary.setHtml(summary_html(preview, current_tokens()))
        self.diff_view.set_texts(preview.target.skill_md, preview.merged.skill_md,
                                 f"{target}/SKILL.md (now)", f"{target}/SKILL.md (merged)")
        self.apply_button.setEnabled(True)

    def apply(self) -> None:
        """Merge through ``do_merge``; accept on success, else show why and stay open."""
        if self._timer.isActive() or self.preview is None or \
                (self.preview.target.name, self.preview.source.name) != (self.target(), self.source()):
            self.update_preview()
        if self.preview is None:
            return
        try:
            change = self.do_merge(self.target(), self.source(), self.preview.with_files)
        except Exception as e:  # noqa: BLE001 - the merge refused or failed: said in the dialog, never a crash
            self._set_message(f"The merge failed: {e or type(e).__name__}", error=True)
            return
        self.change = change
        self.accept()

    # --- internals ----------------------------------------------------------

    def _name_combo(self, names: list[str], tip: str) -> QComboBox:
        combo = QComboBox(self)
        combo.setEditable(True)
        combo.setInsertPolicy(QComboBox.NoInsert)
        combo.addItems(names)
        combo.setToolTip(tip)
        combo.setMinimumContentsLength(24)
        completer = QCompleter(names, combo)
        completer.setCaseSensitivity(Qt.CaseInsensitive)
        completer.setFilterMode(Qt.MatchContains)
        completer.setCompletionMode(QCompleter.PopupCompletion)
        combo.setCompleter(completer)
        return combo

    def _show_files(self, p: MergePreview) -> None:
        files = p.new_files
        self.files_check.setVisible(bool(files))
        if not files:
            return
        shown = ", ".join(files[:4]) + (f" and {len(files) - 4} more" if len(files) > 4 else "")
        self.files_check.blockSignals(True)
        self.files_check.setChecked(p.with_files)
        self.files_check.blockSignals(False)
        self.files_check.setText(f"Also add {len(files)} file(s) from {p.source.name}: {shown}")
        self.files_check.setToolTip("Files of the source that the target does not have. They are added only "
                                    "when ticked; it starts ticked when the source is trusted at least as "
                                    "much as the target.\n\n" + "\n".join(files))

    def _files_toggled(self, checked: bool) -> None:
        self._files_choice[(self.target(), self.source())] = checked
        self.update_preview()

    def _show_problem(self, text: str, *, error: bool = True) -> None:
        self.files_check.setVisible(False)
        self._set_message(text, error=error)
        self.summary.clear()
        self.diff_view.clear("Nothing to preview")
        self.apply_button.setEnabled(False)

    def _set_message(self, text: str, *, error: bool) -> None:
        self._error = text if error else ""
        t = current_tokens()
        self.message_label.setStyleSheet(f"color: {t.error if error else t.text_muted};")
        self.message_label.setText(text)
        self.message_label.setVisible(bool(text))


def _marked(items: list[str], before: list[str], colour: str) -> str:
    """Items as an inline list, those not in ``before`` marked with '+' in ``colour``."""
    if not items:
        return "<i>none</i>"
    mark = f'<span style="color:{colour}">+&nbsp;'
    return ", ".join(escape(x) if x in before else f"{mark}{escape(x)}</span>" for x in items)


def summary_html(p: MergePreview, t: Tokens) -> str:
    """What the merge does, as HTML for the summary pane: what happens to the two skills and
    their neighbours first, then the merged steps and description."""
    green, muted = t.success, t.text_muted
    target, source, merged = p.target, p.source, p.merged
    out = [f"<h3>Merging <b>{escape(source.name)}</b> into <b>{escape(target.name)}</b></h3>"]
    reason = escape(f'Merged into "{target.name}"')
    if source.lifecycle == Lifecycle.ARCHIVED:
        out.append(f"<p>The source is already archived; its reason becomes: {reason}<br>")
    else:
        out.append(f"<p>The source will be archived with the reason: {reason}<br>")
    out.append(f"<span style='color:{muted}'>{escape(target.name)} is saved as version "
               f"{target.version + 1}.</span></p>")
    out.append(f"<p><b>Dependents rewritten:</b> {escape(', '.join(p.dependents)) or 'none'}<br>")
    out.append(f"<b>Uses:</b> {target.use_count} + {source.use_count} = {merged.use_count} "
               f"<span style='color:{muted}'>(successes {merged.success_count}, "
               f"failures {merged.failure_count})</span><br>")
    out.append(f"<b>Tags:</b> {_marked(merged.tags, target.tags, green)}<br>")
    dropped = [d for d in target.depends_on if d not in merged.depends_on]
    parts = [_marked(merged.depends_on, target.depends_on, green)] if merged.depends_on or not dropped else []
    parts += [f"<s>\u2212&nbsp;{escape(d)}</s>" for d in dropped]  # it no longer needs the other one
    depends = ", ".join(parts)
    out.append(f"<b>Depends on:</b> {depends}")
    if p.new_files and p.with_files:
        out.append(f"<br><b>Files added:</b> {escape(', '.join(p.new_files))}")
    elif p.new_files:
        out.append(f"<br><b>Files not added:</b> {escape(', '.join(p.new_files))} "
                   f"<span style='color:{muted}'>(tick the box below to add them)</span>")
    out.append("</p>")

    out.append(f"<h4>Steps ({len(merged.steps)}, {len(p.added_steps)} added)</h4><table cellspacing='0'>")
    for index, step in enumerate(merged.steps):
        is_new = index >= len(target.steps)  # the source's new steps follow the target's own
        style = f" style='color:{green}'" if is_new else ""
        out.append(f"<tr{style}><td width='16' valign='top'>{'+' if is_new else ''}</td>"
                   f"<td align='right' valign='top'>{step['n']}.&nbsp;</td>"
                   f"<td style='white-space:pre-wrap'>{escape(step['action'])}</td></tr>")
    if not merged.steps:
        out.append("<tr><td><i>no steps</i></td></tr>")
    out.append("</table>")
    note = ""
    if p.description_cut:
        note = f" <span style='color:{muted}'>(cut to {MAX_DESCRIPTION_LENGTH:,} characters)</span>"
    elif merged.description == target.description:
        note = f" <span style='color:{muted}'>(unchanged)</span>"
    out.append(f"<h4>Description{note}</h4><p>{escape(merged.description)}</p>")
    return "".join(out)
