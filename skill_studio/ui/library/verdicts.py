"""The skills' strict-check verdicts for the browser, checked off the GUI thread a page at a time and
kept by version: a view asks for a verdict when it shows a skill, and hears when it is known."""

from __future__ import annotations

import threading
import time

from PySide6.QtCore import QObject, QThread, QTimer, Signal, Slot

from skill_studio.core.format.verdict import Verdict, verdicts
from skill_studio.core.store import Store, StoreError
from skill_studio.ui.task_worker import TaskWorker, start_worker

BATCH = 100          # skills checked per run of the worker (the newest asked first)
#: How long the views must have asked for nothing new before checking starts: while a view scrolls,
#: every frame asks for new skills, and a check running then would take turns with the painting.
SETTLE_MS = 150
#: The most skills waiting for their check: past it the ones asked for longest ago are forgotten
#: (cards scrolled past; a view asks again for those it shows when it paints them).
MAX_WANTED = 400
#: Runs not yet finished, kept here so no thread is destroyed while it runs (their owner may go first).
_RUNNING: set[tuple[QThread, TaskWorker]] = set()


def _check(names: list[str]):
    def run(store: Store, progress, cancelled) -> dict[str, tuple[int, Verdict]]:
        skills = []
        for i, name in enumerate(names):
            if cancelled():
                raise InterruptedError("checking the skills was cancelled")
            try:
                skills.append(store.get(name, with_files=False))
            except StoreError:   # gone meanwhile: nothing to say about it
                pass
            progress("check", i + 1, len(names))
        return verdicts(skills, cancelled=cancelled)
    return run


class VerdictCache(QObject):
    """``verdict(name, version)`` answers at once from what is known, else None and the skill is
    checked in the background, once the views stop asking for new skills (scrolling), the skills
    asked for last first; :attr:`verdictsReady` then names the skills whose verdict came."""

    verdictsReady = Signal(list)   # skill names

    def __init__(self, store: Store, parent: QObject | None = None):
        super().__init__(parent)
        self._store = store
        self._known: dict[str, tuple[int, Verdict | None]] = {}
        self._wanted: dict[str, int] = {}
        self._in_flight: dict[str, int] = {}   # name -> the version asked for
        self._run: tuple[QThread, TaskWorker] | None = None
        self._cancel = threading.Event()
        self._last_ask = 0.0
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(SETTLE_MS)
        self._settle.timeout.connect(self._start)

    def verdict(self, name: str, version: int) -> Verdict | None:
        """The verdict of this version of the skill, or None until it is known."""
        known = self._known.get(name)
        if known is not None and known[0] == version:
            return known[1]
        if name in self._in_flight:
            return None
        new = self._wanted.pop(name, None) is None
        self._wanted[name] = version   # the newest asked last: checked first
        if len(self._wanted) > MAX_WANTED:
            del self._wanted[next(iter(self._wanted))]
        if new:   # a skill not asked for yet (a view scrolls): checking waits until that settles
            self._last_ask = time.monotonic()
            if self._run is None:
                self._settle.start()
        return None

    def busy(self) -> bool:
        """Whether skills wait for their check or are being checked."""
        return bool(self._wanted or self._in_flight)

    def shutdown(self) -> None:
        """Stop checking and wait for the worker's thread."""
        self._cancel.set()
        self._wanted.clear()
        self._settle.stop()
        if self._run is not None:
            thread = self._run[0]
            thread.quit()
            thread.wait()

    @Slot()
    def _start(self) -> None:
        if self._run is not None or not self._wanted or self._cancel.is_set():
            return
        names = list(self._wanted)[-BATCH:]
        self._in_flight = {name: self._wanted.pop(name) for name in names}
        worker = TaskWorker(_check(names), self._store, self._cancel)
        worker.succeeded.connect(self._arrived)
        worker.done.connect(self._finished)
        self._run = (start_worker(worker, None, "skill-checks"), worker)
        _RUNNING.add(self._run)

    @Slot(object)
    def _arrived(self, result: dict) -> None:
        # Kept under the version the view asked about: the newest verdict is the best answer for it.
        for name, (_checked, verdict) in result.items():
            self._known[name] = (self._in_flight.get(name, _checked), verdict)
        if result:
            self.verdictsReady.emit(sorted(result))

    @Slot()
    def _finished(self) -> None:
        run, self._run = self._run, None
        if run is not None:
            run[0].wait()   # its loop is ending (quit was called as the run returned)
            _RUNNING.discard(run)
        # A skill gone from the store, or a run that failed or stopped: no verdict, and not asked again.
        for name, version in self._in_flight.items():
            if self._known.get(name, (None,))[0] != version:
                self._known[name] = (version, None)
        self._in_flight = {}
        if self._wanted:
            if (time.monotonic() - self._last_ask) * 1000 >= SETTLE_MS:
                self._start()
            else:
                self._settle.start()
