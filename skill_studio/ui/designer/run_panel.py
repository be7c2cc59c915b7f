"""The designer's Run tab: try one of the skill's scripts, as the designer holds it now, in a
temporary copy (sandboxed where bubblewrap is installed, within the run limits), its output streamed
in as text (control characters shown, never acted on), the exit code or the limit that stopped it,
and the files it wrote listed as outputs that can be saved. Runs on a worker thread; cancellable."""

from __future__ import annotations

import shlex
import threading
from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt, QThread, QTimer, Signal, Slot
from PySide6.QtGui import QColor, QFontDatabase, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from skill_studio.core.model import Skill
from skill_studio.core.runtime import limits, sandbox, script_run
from skill_studio.core.runtime.visible import VisibleStream, visible
from skill_studio.ui.gui_thread import gui_only
from skill_studio.ui.safe_text import question
from skill_studio.ui.theme import ON_FILL, current_tokens

MAX_SHOWN_CHARS = 1_000_000    # more output than this is counted, not shown
CHARS_PER_TICK = 64 * 1024     # shown per look at the queue (20 a second)
LONG_LINE = 4096               # a line this long is shown in pieces


class _RunWorker(QObject):
    """Runs one planned script on its thread; output is queued (up to what the panel shows) for
    the panel to pick up."""

    finished = Signal(object)      # RunResult, or an error message

    def __init__(self, plan: script_run.RunPlan, timeout: float, cancel: threading.Event):
        super().__init__()
        self.plan, self.timeout, self.cancel = plan, timeout, cancel
        self.pending: list[tuple[str, str]] = []
        self.queued = 0            # characters queued so far
        self.dropped = 0           # characters beyond MAX_SHOWN_CHARS, counted only
        self.lock = threading.Lock()

    def _output(self, stream: str, text: str) -> None:
        with self.lock:
            room = MAX_SHOWN_CHARS - self.queued
            if room <= 0:
                self.dropped += len(text)
                return
            self.pending.append((stream, text[:room]))
            self.queued += min(room, len(text))
            self.dropped += max(0, len(text) - room)

    def take(self, limit: int) -> list[tuple[str, str]]:
        """Up to ``limit`` characters of what is queued, in order."""
        with self.lock:
            out, size = [], 0
            while self.pending and size < limit:
                stream, text = self.pending.pop(0)
                if size + len(text) > limit:
                    self.pending.insert(0, (stream, text[limit - size:]))
                    text = text[:limit - size]
                out.append((stream, text))
                size += len(text)
            return out

    @Slot()
    def run(self) -> None:
        try:
            result = script_run.run(self.plan, timeout=self.timeout, on_output=self._output,
                                    cancelled=self.cancel.is_set)
        except Exception as e:   # noqa: BLE001 - shown in the panel; the thread still ends
            result = f"{type(e).__name__}: {e}"
        self.finished.emit(result)


class RunPanel(QWidget):
    runStarted = Signal(str)          # the script
    runFinished = Signal(object)      # the RunResult (or an error message)

    def __init__(self, skill_now: Callable[[], Skill], parent: QWidget | None = None, *,
                 limits_now: Callable[[], limits.Limits] | None = None):
        """``skill_now()`` gives the skill as the designer holds it (text and files, unsaved edits
        included), with its stored trust tier; ``limits_now()`` the run limits (the store's settings,
        through limits.from_settings; the defaults when not given)."""
        super().__init__(parent)
        self.skill_now = skill_now
        self.limits_now: Callable[[], limits.Limits] = limits_now or limits.Limits
        self._shown = {"stdout": VisibleStream(), "stderr": VisibleStream()}
        self.confirm: Callable[[str, str], bool] = lambda title, text: question(self, title, text)
        self.pick_folder: Callable[[], str] = lambda: QFileDialog.getExistingDirectory(self, "Save the outputs in")
        self.plan: script_run.RunPlan | None = None
        self.result: script_run.RunResult | None = None
        self._thread: QThread | None = None
        self._worker: _RunWorker | None = None
        self._cancel = threading.Event()
        self._partial: dict[str, str] = {}   # the unfinished last line of each stream

        self.script = QComboBox(self, toolTip="The script to run: run.sh, main.py or one under scripts/")
        self.script.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.script.setMinimumContentsLength(12)
        self.script.setPlaceholderText("no script")
        self.args = QLineEdit(self, placeholderText="arguments (as in a shell)",
                              toolTip="Arguments for the script, quoted as in a shell")
        self.timeout = QSpinBox(self, minimum=1, maximum=3600, value=int(script_run.DEFAULT_TIMEOUT_S),
                                suffix=" s", toolTip="Stop the run after this long")
        self.run_button = QPushButton("Run", self, toolTip="Run the script in a temporary copy of the skill")
        self.cancel_button = QPushButton("Cancel", self, enabled=False, toolTip="Stop the running script")
        self.run_button.setObjectName("runButton")
        self.cancel_button.setObjectName("cancelRunButton")
        self._style_buttons()
        self.run_button.clicked.connect(lambda: self.run())
        self.cancel_button.clicked.connect(self.cancel)
        what = QHBoxLayout()   # two rows, so that a narrow details pane does not widen the window
        what.addWidget(self.script, 2)
        what.addWidget(self.args, 3)
        go = QHBoxLayout()
        go.addWidget(QLabel("Stop after", self))
        go.addWidget(self.timeout)
        go.addStretch(1)
        go.addWidget(self.run_button)
        go.addWidget(self.cancel_button)
        top = QVBoxLayout()
        top.addLayout(what)
        top.addLayout(go)
        self.where = QLabel(self)
        self.where.setTextFormat(Qt.TextFormat.PlainText)
        self.where.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.where.setWordWrap(True)   # a narrow pane shows it on two lines, whole
        self.output = QPlainTextEdit(self, readOnly=True)
        self.output.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.output.setMaximumBlockCount(50_000)
        self.output.setPlaceholderText("What the script prints shows here (errors in red).")
        self.status = QLabel(self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.status.setWordWrap(True)
        self.outputs = QListWidget(self, toolTip="Files the script wrote in its copy")
        self.outputs.setMaximumHeight(110)
        self.outputs.hide()   # shown once a run wrote files
        self.save_button = QPushButton("Save outputs…", self, enabled=False,
                                       toolTip="Copy the files the script wrote into a folder")
        self.save_button.clicked.connect(self.save_outputs)
        bottom = QHBoxLayout()
        bottom.addStretch(1)
        bottom.addWidget(self.save_button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.where)
        layout.addWidget(self.output, 1)
        layout.addWidget(self.status)   # a line of its own: a long summary wraps, whole
        layout.addLayout(bottom)
        layout.addWidget(self.outputs)
        self._drain = QTimer(self, interval=50)
        self._drain.timeout.connect(self._show_pending)
        self.refresh()

    # --- public -----------------------------------------------------------------------

    def refresh(self) -> None:
        """Offer the scripts the skill has now."""
        skill = self.skill_now()
        current = self.script.currentText()
        self.script.clear()
        found = script_run.scripts(skill)
        self.script.addItems(found)
        if current in found:
            self.script.setCurrentText(current)
        idle = self._thread is None
        self.run_button.setEnabled(idle and bool(found))
        if idle and self.plan is None and self.isVisible():   # (finding out about the sandbox runs bwrap once)
            self.where.setText(self._where_text(found))

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.refresh()

    def is_running(self) -> bool:
        return self._thread is not None

    def run(self, script: str | None = None) -> bool:
        """Start a run of ``script`` (the chosen one when None); False when it did not start."""
        if self._thread is not None:
            return False
        self.refresh()
        if script is not None:
            self.script.setCurrentText(script)
        script = self.script.currentText()
        skill = self.skill_now()
        if not script:
            self.status.setText("This skill has no script to run (run.sh, main.py or scripts/…).")
            return False
        why = script_run.trust_question(skill)
        if why and not self.confirm("Run an untrusted script?", f"{why}.\n\nRun {script} anyway?"):
            self.status.setText("Not run.")
            return False
        try:
            args = shlex.split(self.args.text())
        except ValueError as e:
            self.status.setText(f"The arguments cannot be read: {e}.")
            return False
        self._forget_plan()
        try:
            self.plan = script_run.plan(skill, script, args, limits=self.limits_now())
        except (script_run.RunError, limits.LimitError, OSError) as e:
            self.status.setText(str(e)[:1].upper() + str(e)[1:])
            return False
        self.output.clear()
        self.outputs.clear()
        self.outputs.hide()
        self._partial = {}
        self._shown = {"stdout": VisibleStream(), "stderr": VisibleStream()}
        self.save_button.setEnabled(False)
        self._say_where()
        self.status.setText("Running…")
        self._cancel = threading.Event()
        self._worker = _RunWorker(self.plan, float(self.timeout.value()), self._cancel)
        self._thread = QThread(self)
        self._thread.setObjectName("script-run")
        self._worker.moveToThread(self._thread)
        self._thread.started.connect(self._worker.run)
        self._worker.finished.connect(self._finished, Qt.QueuedConnection)
        self._thread.start()
        self._drain.start()
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.runStarted.emit(script)
        return True

    @Slot()
    def cancel(self) -> None:
        self._cancel.set()
        if self._thread is not None:
            self.cancel_button.setEnabled(False)   # pressed once; the run ends within seconds
            self.status.setText(f"Stopping {self.plan.script if self.plan else 'the script'}…")

    def save_outputs(self) -> None:
        if self.plan is None or not self.result or not self.result.outputs:
            return
        dest = self.pick_folder()
        if dest:
            saved = script_run.save_outputs(self.plan, dest, self.result.outputs)
            problems = saved.problems()   # (each names a file, its control characters written out)
            said = f"Saved {len(saved.written)} output file(s)"
            if problems:
                said += f"; {len(problems)} not saved: {problems[0]}"
                said += " (and more, see the tooltip)" if len(problems) > 1 else ""
            self.status.setText(said)
            self.status.setToolTip("\n".join([f"in {dest}", *problems]))

    def shutdown(self) -> None:
        """Stop a running script and wait for it (the designer is closing); remove the copy."""
        self._cancel.set()
        if self._thread is not None:
            self._thread.quit()
            # No time limit: a cancelled run kills what it started and returns within seconds
            # (script_run.run), and a thread destroyed while it runs would abort the program.
            self._thread.wait()
        self._forget_plan()

    # --- internals ----------------------------------------------------------------------

    def _style_buttons(self) -> None:
        """Run stands out while it can be pressed, Cancel while a run goes on; a button that cannot
        be pressed is plainly flat and faint, in either theme."""
        t = current_tokens()
        on_accent = t.window if t.dark else ON_FILL
        faint = QColor(t.text_muted).darker(150).name() if t.dark else QColor(t.text_muted).lighter(170).name()
        self.setStyleSheet(
            f"QPushButton#runButton:enabled {{ background: {t.accent}; color: {on_accent}; "
            f"border: 1px solid {t.accent}; border-radius: 4px; padding: 4px 14px; }}"
            f"QPushButton#cancelRunButton:enabled {{ background: {t.surface}; color: {t.error}; "
            f"border: 1px solid {t.error}; border-radius: 4px; padding: 4px 14px; }}"
            f"QPushButton#runButton:disabled, QPushButton#cancelRunButton:disabled {{ background: transparent; "
            f"color: {faint}; border: 1px dashed {t.border}; border-radius: 4px; padding: 4px 14px; }}")

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:   # the theme changed
            self._style_buttons()

    def _where_text(self, found: list[str]) -> str:
        if not found:
            return "No script: add run.sh, main.py or a file under scripts/ (Files tab)."
        tool, why_not = sandbox.available()
        return "Sandboxed: no network, only a temporary copy writable." if tool else f"Not sandboxed: {why_not}."

    def _say_where(self) -> None:
        p = self.plan
        self.where.setText("Sandboxed: no network, only the temporary copy writable." if p.sandboxed else
                           f"Not sandboxed: {p.sandbox_note}.")
        self.where.setToolTip(f"{p.script} runs in {p.cwd}, a copy of the skill as the designer holds it; "
                              "the stored skill is never touched.")

    def _show_pending(self, *, final: bool = False) -> None:
        """Show what the run wrote since the last look: whole lines (stdout and stderr come through
        two pipes, so a line is not cut by the other stream), at most CHARS_PER_TICK at a time so
        the window stays responsive, and very long lines broken for the display."""
        if self._worker is None:
            return
        while True:
            pieces = self._lines(self._worker.take(CHARS_PER_TICK), final)
            self._insert(pieces)
            if not final or not self._worker.pending:
                break
        if final:
            self._insert([(stream, shown.end()) for stream, shown in self._shown.items()])
        if final and self._worker.dropped:
            self._insert([("stderr", f"\n[{self._worker.dropped:,} more characters of output not shown]\n")])

    def _lines(self, taken: list[tuple[str, str]], final: bool) -> list[tuple[str, str]]:
        pieces = []
        for stream, text in taken:
            text = self._partial.pop(stream, "") + text
            cut = text.rfind("\n") + 1
            if cut:
                pieces.append((stream, text[:cut]))
            if text[cut:]:
                self._partial[stream] = text[cut:]
        for stream, rest in list(self._partial.items()):
            if final or len(rest) >= LONG_LINE:
                pieces.append((stream, rest + "\n" if not final else rest))
                del self._partial[stream]
        return pieces

    def _insert(self, pieces: list[tuple[str, str]]) -> None:
        if not pieces:
            return
        t = current_tokens()
        cursor = self.output.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.End)
        for stream, raw in pieces:
            text = self._shown[stream].feed(raw) if stream in self._shown else visible(raw)
            if not text:
                continue
            fmt = QTextCharFormat()
            fmt.setForeground(QColor(t.error if stream == "stderr" else t.text))
            cursor.insertText(text, fmt)
        self.output.setTextCursor(cursor)
        self.output.ensureCursorVisible()

    @Slot(object)
    @gui_only
    def _finished(self, result) -> None:
        self._show_pending(final=True)
        self._drain.stop()
        if self._thread is not None:
            self._thread.quit()
            self._thread.wait()
        self._thread, self._worker = None, None
        self.cancel_button.setEnabled(False)
        self.refresh()
        if isinstance(result, str):
            self.result = None
            self.status.setText(f"The run failed to start: {result}")
        else:
            self.result = result
            self.status.setText(visible(result.summary[:1].upper() + result.summary[1:]))
            for o in result.outputs:
                self.outputs.addItem(f"{o.shown}  ({o.size:,} bytes, {'new' if o.new else 'changed'})")
            self.save_button.setEnabled(bool(result.outputs))
            self.outputs.setVisible(bool(result.outputs))
        self.runFinished.emit(result)

    def _forget_plan(self) -> None:
        if self.plan is not None:
            self.plan.cleanup()
            self.plan = None
