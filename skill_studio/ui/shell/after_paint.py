"""Work the window's first frame does not need, run right after that frame is painted: the window
shows its skills first, then fills in what waits (figures, lists, pages not shown)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget


class AfterFirstPaint(QObject):
    """Runs the tasks :meth:`add` collects once the widget :meth:`watch` names has been painted the
    first time (on the next turn of the event loop, so the frame reaches the screen first).

    A window that is not shown when the event loop first runs (a hidden window, a test that never
    shows it) runs them then: nothing waits for a paint that will not come. Once run, a task
    added later runs at once.
    """

    def __init__(self, window: QWidget, *, wanted: Callable[[], bool] = lambda: True):
        """``wanted()`` False when the tasks are due drops them (e.g. the store they read is closed)."""
        super().__init__(window)
        self._window = window
        self._wanted = wanted
        self._watched: QWidget | None = None
        self._tasks: list[Callable[[], None]] = []
        self._done = False
        QTimer.singleShot(0, self, self._unless_shown)

    def watch(self, widget: QWidget) -> None:
        """The widget whose first paint lets the tasks run (the one the first frame is for)."""
        self._unwatch()
        if not self._done:
            self._watched = widget
            widget.installEventFilter(self)

    @property
    def done(self) -> bool:
        """Whether the tasks have run."""
        return self._done

    def add(self, task: Callable[[], None]) -> None:
        if self._done:
            if self._wanted():
                task()
        else:
            self._tasks.append(task)

    def run(self) -> None:
        """Run what waits now (once; later calls do nothing)."""
        if self._done:
            return
        self._done = True
        self._unwatch()
        if not self._wanted():
            self._tasks.clear()
        while self._tasks:
            self._tasks.pop(0)()

    def eventFilter(self, obj, event) -> bool:
        if event.type() == QEvent.Type.Paint and obj is self._watched:
            self._unwatch()
            QTimer.singleShot(0, self, self.run)
        return False

    def _unless_shown(self) -> None:
        if not self._window.isVisible():
            self.run()

    def _unwatch(self) -> None:
        if self._watched is not None:
            self._watched.removeEventFilter(self)
            self._watched = None
