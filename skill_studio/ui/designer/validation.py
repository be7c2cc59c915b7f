"""Validating the edited SKILL.md off the GUI thread: after typing pauses, newest request wins."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

from PySide6.QtCore import QObject, QRunnable, Qt, QThreadPool, QTimer, Signal, Slot

from skill_studio.core.format.diagnostics import Diagnostic, Severity
from skill_studio.core.format.validate import validate_text
from skill_studio.ui.gui_thread import gui_only

__all__ = ["DEBOUNCE_MS", "ValidationRunner", "Validator", "safe_validate"]

DEBOUNCE_MS = 300

Validator = Callable[..., list[Diagnostic]]


def safe_validate(validate: Validator, text: str, folder_name: str | None, profile: str,
                  files: Sequence[str] | None, library_names: Sequence[str] | None) -> list[Diagnostic]:
    """The diagnostics of ``validate``; an exception it raises comes back as one S000 error."""
    try:
        return list(validate(text, folder_name, profile, files=files, library_names=library_names))
    except Exception as e:  # noqa: BLE001 - a validator bug must not take the editor down
        return [Diagnostic("S000", Severity.ERROR, f"Validation failed: {type(e).__name__}: {e}", None,
                           "this is a fault in Skill Studio's validator, not necessarily in the skill")]


class _Relay(QObject):
    """Carries a result from a pool thread to the GUI thread (a queued signal)."""

    resultReady = Signal(int, list)


class _ValidationJob(QRunnable):
    def __init__(self, relay: _Relay, seq: int, work: Callable[[], list[Diagnostic]]):
        super().__init__()
        self._relay, self._seq, self._work = relay, seq, work

    def run(self) -> None:
        result = self._work()
        try:
            self._relay.resultReady.emit(self._seq, result)
        except RuntimeError:  # the runner was deleted while this ran
            pass


class ValidationRunner(QObject):
    """Validates SKILL.md text after typing pauses; only the newest request's result is emitted.

    Each request gets a sequence number; a result that arrives after a newer
    request was made is dropped. Work runs on a one-thread pool owned by the
    runner, and a queued request that has not started is dropped when a newer
    one starts.
    """

    finished = Signal(list)

    def __init__(self, parent: QObject | None = None, *, delay_ms: int = DEBOUNCE_MS,
                 validate: Validator = validate_text):
        super().__init__(parent)
        self._validate = validate
        self._seq = 0
        self._pending: tuple[int, tuple] | None = None
        self.last: list[Diagnostic] = []
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(delay_ms)
        self._timer.timeout.connect(self._start)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._relay = _Relay()  # owned by Python: a running job keeps it alive
        self._relay.resultReady.connect(self._deliver, Qt.QueuedConnection)  # emitted by the pool's thread

    def request(self, text: str, folder_name: str | None, profile: str, files: Sequence[str] | None = None,
                library_names: Sequence[str] | None = None) -> None:
        """Validate after the debounce delay; each call restarts the delay and supersedes earlier ones."""
        self._seq += 1
        self._pending = (self._seq, self._args(text, folder_name, profile, files, library_names))
        self._timer.start()

    def run_now(self, text: str, folder_name: str | None, profile: str, files: Sequence[str] | None = None,
                library_names: Sequence[str] | None = None) -> list[Diagnostic]:
        """Validate at once on this thread, emit ``finished`` and return the diagnostics.

        Pending and running requests are superseded (their results are dropped).
        """
        self._timer.stop()
        self._pending = None
        self._seq += 1
        diags = safe_validate(self._validate, *self._args(text, folder_name, profile, files, library_names))
        self.last = diags
        self.finished.emit(diags)
        return diags

    def cancel(self) -> None:
        """Forget pending work: no ``finished`` comes for earlier requests."""
        self._timer.stop()
        self._pending = None
        self._seq += 1

    def is_busy(self) -> bool:
        """True while a request waits for its delay or a validation runs."""
        return self._timer.isActive() or self._pool.activeThreadCount() > 0

    def wait(self, msecs: int = -1) -> bool:
        """Block until the running validation ends (for shutdown and tests); False on timeout."""
        return self._pool.waitForDone(msecs)

    @staticmethod
    def _args(text, folder_name, profile, files, library_names) -> tuple:
        # Copies, so that the caller may keep changing its lists while the worker reads these.
        return (text, folder_name, profile, None if files is None else list(files),
                None if library_names is None else list(library_names))

    def _start(self) -> None:
        if self._pending is None:
            return
        seq, args = self._pending
        self._pending = None
        self._pool.clear()  # a queued job that has not started is stale now
        self._pool.start(_ValidationJob(self._relay, seq, partial(safe_validate, self._validate, *args)))

    @Slot(int, list)
    @gui_only
    def _deliver(self, seq: int, diags: list) -> None:
        if seq != self._seq:
            return
        self.last = diags
        self.finished.emit(diags)
