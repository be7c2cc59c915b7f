"""The review queue's detail pane: the selected skill's facts, its validation under the strict
and lenient profiles, its nearest existing skills (found off the GUI thread: on a big library the
first search computes the missing vectors) and a diff against the one picked, offered only for
a near copy."""

from __future__ import annotations

import threading
from html import escape

from PySide6.QtCore import QCoreApplication, QObject, Qt, QThread, Signal, Slot
from PySide6.QtGui import QTextDocumentFragment
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from skill_studio.core.format.diagnostics import Diagnostic, errors
from skill_studio.core.model import Lifecycle, Skill, TrustTier
from skill_studio.core.review import queue as review
from skill_studio.core.store import NotFound
from skill_studio.ui.designer.diff_view import DiffView
from skill_studio.ui.gui_thread import gui_only
from skill_studio.ui.library.marks import icon_data_url, stars_html
from skill_studio.ui.review.neighbour_rows import NEIGHBOUR_ROLE, NeighbourDelegate, neighbour_tip, only_related
from skill_studio.ui.review.queue_list import waiting_text
from skill_studio.ui.safe_text import literal
from skill_studio.ui.task_worker import TaskWorker
from skill_studio.ui.theme import LIFECYCLE_COLORS, ON_FILL, Tokens, current_tokens

__all__ = ["FINDING", "NO_NEIGHBOUR", "QueueDetail", "REASON_REQUIRED", "clipped", "validation_html"]

REASON_REQUIRED = "A reason is required"
MAX_ERRORS_SHOWN = 3
#: Characters of the description shown: an overlong one must not push the diff off the pane.
DESCRIPTION_SHOWN = 360
NO_NEIGHBOUR = "No similar skill in the library."
FINDING = "Finding similar skills…"
def clipped(text: str, limit: int) -> str:
    """``text`` cut at a word boundary to at most ``limit`` characters, with '…' when cut."""
    if len(text) <= limit:
        return text
    cut = text[:limit - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip(" ,.;:") + "…"


def validation_html(diags: list[Diagnostic], profile: str, t: Tokens) -> str:
    """'Passes the <profile> profile' (with the valid mark), or the count of errors and the first ones
    with their lines."""
    errs = errors(diags)
    if not errs:
        return (f'<img src="{icon_data_url("valid", t.bar_utility, 12)}" width="12" height="12"> '
                f'<span style="color:{t.bar_utility}">Passes the {profile} profile</span>')
    noun = "error" if len(errs) == 1 else "errors"
    lines = [f'<img src="{icon_data_url("invalid", t.error, 12)}" width="12" height="12"> '
             f'<span style="color:{t.error}">Fails the {profile} profile ({len(errs)} {noun})</span>']
    for d in errs[:MAX_ERRORS_SHOWN]:
        where = f"line {d.line}: " if d.line else ""
        lines.append(f"&nbsp;&nbsp;&nbsp;{where}{escape(d.message)}")
    if len(errs) > MAX_ERRORS_SHOWN:
        lines.append(f"&nbsp;&nbsp;&nbsp;… and {len(errs) - MAX_ERRORS_SHOWN} more")
    return "<br>".join(lines)


class _Searches(QObject):
    """The nearest-skill searches still running, each thread with its worker, kept until the
    thread ends even when the pane that asked has gone (a thread must never be destroyed while
    it runs). One per application, in the GUI thread."""

    _instance: _Searches | None = None

    def __init__(self):
        super().__init__(QCoreApplication.instance())
        self.running: list[tuple[QThread, TaskWorker]] = []

    @classmethod
    def get(cls) -> _Searches:
        if cls._instance is None:
            cls._instance = cls()
        return cls._instance

    def start(self, worker: TaskWorker) -> QThread:
        thread = QThread(self)
        thread.setObjectName("review-nearest")
        worker.moveToThread(thread)
        thread.started.connect(worker.run)
        worker.done.connect(thread.quit, Qt.DirectConnection)
        thread.finished.connect(self._ended, Qt.QueuedConnection)
        self.running.append((thread, worker))
        thread.start()
        return thread

    def is_running(self, thread: QThread) -> bool:
        return any(t is thread for t, _ in self.running)

    @Slot()
    @gui_only
    def _ended(self) -> None:
        thread = self.sender()
        for i, (t, _) in enumerate(self.running):
            if t is thread or t == thread:
                del self.running[i]
                t.wait()
                t.deleteLater()
                return


class QueueDetail(QWidget):
    """The selected skill. Holds the action buttons and the reason editor; the queue view wires them.
    Its nearest skills come from a worker thread: ``neighboursShown`` tells when they are listed."""

    neighboursShown = Signal(str)    # the skill whose nearest skills are now listed

    def __init__(self, store, parent: QWidget | None = None):
        super().__init__(parent)
        self.store = store
        self.name: str | None = None
        self.skill: Skill | None = None
        self.neighbours: list[review.Neighbour] = []
        self.neighbours_for: str | None = None   # the skill ``neighbours`` were found for
        self.picked = ""                 # the near copy the diff compares with ('' when none)
        self._threads: list[QThread] = []     # the searches this pane started
        self._running = False
        self._cancel = threading.Event()     # set to stop the running search
        self._closed = False
        self._wanted: tuple[int, str] | None = None   # (request number, skill) of the search to show
        self._searching: tuple[int, str] | None = None  # the one the running search is for
        self._requests = 0
        self._diags: tuple[list[Diagnostic], list[Diagnostic]] = ([], [])
        self._texts: dict[str, str] = {}  # SKILL.md of neighbours already fetched

        col = QVBoxLayout(self)
        col.setContentsMargins(12, 8, 10, 6)
        col.setSpacing(4)
        self.name_label = QLabel(self)
        self.name_label.setTextFormat(Qt.TextFormat.PlainText)
        self.name_label.setProperty("role", "heading")
        self.name_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.approve_button = QPushButton("Approve", self)
        self.reject_button = QPushButton("Reject…", self)
        self.merge_button = QPushButton("Merge into…", self)
        self.open_button = QPushButton("Open in designer", self)
        head = QHBoxLayout()
        head.addWidget(self.name_label, 1)
        for button, tip in ((self.approve_button, "Approve: mark the skill verified (A)"),
                            (self.reject_button, "Reject: archive the skill, with a reason (R)"),
                            (self.merge_button, "Merge this skill into another, the picked nearest skill "
                                                "suggested (M)"),
                            (self.open_button, "Open the skill in the designer (Enter or O)")):
            button.setToolTip(tip)
            button.setFocusPolicy(Qt.TabFocus)   # a click leaves the keyboard in the queue
            head.addWidget(button)
        col.addLayout(head)

        self.reject_row = QWidget(self)
        row = QHBoxLayout(self.reject_row)
        row.setContentsMargins(0, 0, 0, 4)
        self.reason_edit = QLineEdit(self.reject_row)
        self.reason_edit.setPlaceholderText("Why is it rejected? Enter rejects, Escape cancels")
        self.confirm_reject_button = QPushButton("Reject", self.reject_row)
        self.cancel_reject_button = QPushButton("Cancel", self.reject_row)
        self.reason_error = QLabel(REASON_REQUIRED, self.reject_row)
        for w in (QLabel("Reason:", self.reject_row), self.reason_edit, self.reason_error,
                  self.confirm_reject_button, self.cancel_reject_button):
            row.addWidget(w, 1 if w is self.reason_edit else 0)
        self.reason_error.hide()
        self.reject_row.hide()
        col.addWidget(self.reject_row)

        self.labels: dict[str, QLabel] = {}
        self.section_labels = [QLabel("VALIDATION", self), QLabel("NEAREST EXISTING SKILLS  (1–3)", self)]
        for key in ("description", "meta", "reason", 0, "strict", "lenient", 1):
            if isinstance(key, int):   # a section heading
                col.addSpacing(4)
                col.addWidget(self.section_labels[key])
                continue
            label = QLabel(self)
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextSelectableByMouse)
            label.setTextFormat(Qt.RichText if key in ("meta", "strict", "lenient") else Qt.PlainText)
            self.labels[key] = label
            col.addWidget(label)
        self.labels["reason"].setProperty("role", "muted")

        self.nearest_list = QListWidget(self)
        self.nearest_list.setItemDelegate(NeighbourDelegate(self.nearest_list))
        self.nearest_list.setFocusPolicy(Qt.NoFocus)   # the keyboard stays in the queue: 1-3 pick
        self.nearest_list.setMouseTracking(True)
        self.nearest_list.setVerticalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.nearest_list.currentRowChanged.connect(self.pick_neighbour)
        self.nearest_empty = QLabel(NO_NEIGHBOUR, self)
        self.nearest_empty.setProperty("role", "muted")
        self.diff = DiffView(self, mode="side")
        col.addWidget(self.nearest_list)
        col.addWidget(self.nearest_empty)
        col.addWidget(self.diff, 1)
        self.apply_colours()
        self.show_skill(None)

    def buttons(self) -> tuple[QPushButton, ...]:
        return self.approve_button, self.reject_button, self.merge_button, self.open_button

    def forget_texts(self) -> None:
        """Drop the cached SKILL.md texts of neighbours (after the store changed)."""
        self._texts.clear()

    def show_skill(self, name: str | None) -> None:
        """Load ``name``'s full record and validation, and start looking for its nearest skills
        (None: show nothing)."""
        self.name, self.skill, self._diags, self.picked = name, None, ([], []), ""
        if name is not None:
            try:
                self.skill = self.store.get(name, with_files=False)
            except NotFound:
                pass
        if self.skill is not None:
            s = self.skill
            folder = s.folder_name or s.name
            from skill_studio.core.format.validate import validate_text  # loaded when first shown, not at start

            self._diags = (validate_text(s.skill_md, folder, "strict", lints=False),
                           validate_text(s.skill_md, folder, "lenient", lints=False))
            self._list_neighbours([], FINDING)
            self.diff.clear(FINDING)
            self._find_neighbours(s.name)
        else:
            self._wanted = None
            self._list_neighbours([], "")
            self.diff.clear("Nothing selected" if name is None else f'"{name}" is no longer in the store')
        for button in self.buttons():
            button.setEnabled(self.skill is not None)
        self.render()

    def _list_neighbours(self, neighbours: list[review.Neighbour], empty: str) -> None:
        """List ``neighbours``; with none, say ``empty`` instead ('' hides the line)."""
        self.neighbours = list(neighbours)
        self.nearest_list.blockSignals(True)
        self.nearest_list.clear()
        for n in self.neighbours:
            item = QListWidgetItem(n.name, self.nearest_list)
            item.setData(NEIGHBOUR_ROLE, n)
            item.setToolTip(literal(neighbour_tip(n)))
        self.nearest_list.blockSignals(False)
        rows = len(self.neighbours)
        self.nearest_list.setVisible(rows > 0)
        self.nearest_empty.setText(empty)
        self.nearest_empty.setVisible(rows == 0 and bool(empty))
        if rows:
            self.nearest_list.setFixedHeight(self.nearest_list.sizeHintForRow(0) * rows
                                             + 2 * self.nearest_list.frameWidth())

    # --- finding the nearest skills (off the GUI thread) --------------------------

    def is_finding(self) -> bool:
        """Whether a search for nearest skills is running."""
        return self._running

    def _find_neighbours(self, name: str) -> None:
        self._requests += 1
        self._wanted = (self._requests, name)
        self.neighbours_for = None
        if self._running:
            self._cancel.set()      # its answer is for a skill no longer shown: stop computing vectors for it
        elif not self._closed:
            self._start()

    def _start(self) -> None:
        if self._wanted is None:
            return
        request, name = self._searching = self._wanted
        self._running = True
        self._cancel = threading.Event()
        worker = TaskWorker(lambda store, progress, cancelled: (request, name,
                                                                 review.nearest(store, name, cancelled=cancelled)),
                            self.store, self._cancel)
        worker.succeeded.connect(self._found, Qt.QueuedConnection)
        worker.failed.connect(self._not_found, Qt.QueuedConnection)
        worker.done.connect(self._search_done, Qt.QueuedConnection)
        searches = _Searches.get()
        self._threads = [t for t in self._threads if searches.is_running(t)]
        self._threads.append(searches.start(worker))

    @Slot(object)
    @gui_only
    def _found(self, result) -> None:
        request, name, neighbours = result
        if self._wanted != (request, name) or self.skill is None:
            return   # the pane moved on meanwhile (or the store changed): the next search follows
        self._wanted = None
        self.neighbours_for = name
        self._list_neighbours(neighbours, NO_NEIGHBOUR)
        if neighbours:
            self.pick_neighbour(0)
        else:
            self.diff.clear("No similar skill to compare with")
        self.neighboursShown.emit(name)

    @Slot(str)
    @gui_only
    def _not_found(self, message: str) -> None:
        if self._wanted is None or self._wanted != self._searching or self.skill is None:
            return
        self._wanted = None
        self._list_neighbours([], f"Could not look for similar skills: {message}")
        self.diff.clear("Nothing to compare with")

    @Slot()
    @gui_only
    def _search_done(self) -> None:
        self._running = False
        if self._wanted is not None and not self._closed:
            self._start()

    def shutdown(self) -> None:
        """Stop for good (the view is going): no search starts after this."""
        self._closed, self._wanted = True, None
        self._cancel.set()
        searches = _Searches.get()
        for thread in self._threads:
            if searches.is_running(thread):
                thread.wait()
        self._threads = []

    # --- the diff ------------------------------------------------------------------

    def pick_neighbour(self, row: int) -> None:
        """Compare the skill with its ``row``-th nearest skill (left: that skill, right: this one).
        Only a near copy is compared, and suggested as the merge target; for a merely related
        skill the pane says so."""
        if not 0 <= row < len(self.neighbours) or self.skill is None:
            return
        if self.nearest_list.currentRow() != row:
            self.nearest_list.setCurrentRow(row)   # comes back here through currentRowChanged
            return
        n = self.neighbours[row]
        if not n.copy:
            self.picked = ""
            self.diff.clear(only_related(n))
            return
        self.picked = n.name
        if n.name not in self._texts:
            try:
                self._texts[n.name] = self.store.get(n.name, with_files=False).skill_md
            except NotFound:
                self._texts[n.name] = ""
        self.diff.set_texts(self._texts[n.name], self.skill.skill_md, n.name, self.skill.name)

    def text(self, key: str) -> str:
        """What the pane says for ``key`` ('name', 'description', 'meta', 'reason', 'strict', 'lenient')."""
        label = self.name_label if key == "name" else self.labels[key]
        if label.textFormat() == Qt.RichText:
            return QTextDocumentFragment.fromHtml(label.text()).toPlainText().replace("\xa0", " ")
        return label.text()

    def render(self) -> None:
        """Fill the labels from the loaded record, in the current theme's colours."""
        t, s = current_tokens(), self.skill
        if s is None:
            self.name_label.setText(self.name or "")
            for label in self.labels.values():
                label.setText("")
            return
        lifecycle, tier = Lifecycle(s.lifecycle), TrustTier(int(s.trust_tier))
        meta = [f'<span style="background-color:{LIFECYCLE_COLORS[lifecycle]}; color:{ON_FILL};">'
                f"&nbsp;{lifecycle.label}&nbsp;</span>",
                escape(getattr(s.origin, "value", str(s.origin))),
                f'{stars_html(int(tier), t, 12)} {tier.label}', f"version {s.version}"]
        waiting = waiting_text(s.created_at)
        if waiting:
            meta.append(waiting)
        self.name_label.setText(s.name)
        description = " ".join((s.description or "").split())
        self.labels["description"].setText(clipped(description, DESCRIPTION_SHOWN) or "(no description)")
        self.labels["description"].setToolTip(literal(description) if len(description) > DESCRIPTION_SHOWN else "")
        self.labels["meta"].setText(" &nbsp;·&nbsp; ".join(meta))
        self.labels["reason"].setText(s.lifecycle_reason or "")
        self.labels["reason"].setVisible(bool(s.lifecycle_reason))
        self.labels["strict"].setText(validation_html(self._diags[0], "strict", t))
        self.labels["lenient"].setText(validation_html(self._diags[1], "lenient", t))

    def apply_colours(self) -> None:
        """Recolour what stylesheets colour here (after a theme change), then the labels."""
        t = current_tokens()
        for label in self.section_labels:
            label.setStyleSheet(f"color: {t.text_muted}; font-size: 10px; font-weight: 700; letter-spacing: 1px;")
        self.reason_error.setStyleSheet(f"color: {t.error};")
        self.nearest_list.setStyleSheet(f"QListWidget {{ background: {t.surface}; border: 1px solid {t.border}; }}")
        self.nearest_list.viewport().update()
        self.render()
