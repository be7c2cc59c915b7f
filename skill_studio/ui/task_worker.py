"""Long work (a health check, loading and laying out the graph) on its own thread: progress and
the result come back as queued signals, and a cancel flag is read by the work between steps."""

from __future__ import annotations

import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, QThread, Signal, Slot


class TaskWorker(QObject):
    """Calls ``run_fn(store, progress=..., cancelled=...)`` once, in the thread it was moved to.
    Never touches a widget: everything it learns leaves as a signal."""

    progressed = Signal(str, int, int)
    succeeded = Signal(object)
    interrupted = Signal()
    failed = Signal(str)
    done = Signal()

    def __init__(self, run_fn: Callable, store, cancel: threading.Event):
        super().__init__()
        self._run_fn, self._store, self._cancel = run_fn, store, cancel
        self._last: tuple[str, int] = ("", -1)

    def _progress(self, stage: str, done: int, total: int) -> None:
        # At most about a hundred signals a stage: the GUI only needs to see it move.
        step = max(1, total // 100)
        if stage != self._last[0] or done >= total or done - self._last[1] >= step:
            self._last = (stage, done)
            self.progressed.emit(stage, done, total)

    @Slot()
    def run(self) -> None:
        try:
            result = self._run_fn(self._store, progress=self._progress, cancelled=self._cancel.is_set)
        except InterruptedError:
            self.interrupted.emit()
        except Exception as e:  # noqa: BLE001 - shown to the user; the thread must still end cleanly
            self.failed.emit(f"{type(e).__name__}: {e}")
        else:
            self.succeeded.emit(result)
        finally:
            self.done.emit()


def start_worker(worker: TaskWorker, parent: QObject, name: str = "task") -> QThread:
    """Move ``worker`` to a new thread (a child of ``parent``) and run it. Returns the thread: the
    caller keeps the worker and the thread, and waits for the thread before ``parent`` goes away."""
    thread = QThread(parent)
    thread.setObjectName(name)
    worker.moveToThread(thread)
    thread.started.connect(worker.run)
    # Direct: the thread's loop stops as soon as the run returns, not when the GUI gets round to it.
    worker.done.connect(thread.quit, Qt.DirectConnection)
    thread.start()
    return thread


class WorkerOwner:
    """For a widget that runs a :class:`TaskWorker` in ``self._thread`` with the cancel flag
    ``self._cancel``: stops the work and waits for the thread before the widget goes."""

    _thread: QThread | None = None
    _cancel: threading.Event

    def shutdown(self) -> None:
        """Stop running work and wait for its thread (before the view goes away)."""
        self._cancel.set()
        if self._thread is not None and self._thread.isRunning():
            self._thread.quit()
            self._thread.wait()

    def closeEvent(self, event) -> None:
        self.shutdown()
        super().closeEvent(event)
