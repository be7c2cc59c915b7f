"""Widgets are touched on the GUI thread only: a check for the slots that update them, and a way
for any other thread to have a function run there."""

# Qt gives no error when a widget is used from another thread: the program races and, now and
# then, crashes. PySide6 runs a callable connected without a receiver object (a lambda, a plain
# function) in the thread that emits the signal, so a worker's signal connected to a lambda that
# updates a widget is such a race. Workers' results therefore reach widgets through slots of
# objects living in the GUI thread (queued), and those slots start with ``gui_only``.

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from PySide6.QtCore import QCoreApplication, QObject, Qt, QThread, Signal, Slot

__all__ = ["GuiCaller", "WrongThreadError", "gui_only", "on_gui_thread", "require_gui_thread"]

F = TypeVar("F", bound=Callable[..., Any])


class WrongThreadError(RuntimeError):
    """Code that touches widgets was called from a thread other than the GUI thread."""


def on_gui_thread() -> bool:
    """True on the thread the application object lives in (and when there is none yet)."""
    app = QCoreApplication.instance()
    return app is None or QThread.currentThread() is app.thread()


def require_gui_thread(what: str) -> None:
    """Raise WrongThreadError unless called on the GUI thread; ``what`` names the caller."""
    if not on_gui_thread():
        name = QThread.currentThread().objectName() or threading.current_thread().name
        raise WrongThreadError(f"{what} touches widgets but was called on the thread '{name}', "
                               "not the GUI thread")


def gui_only(fn: F) -> F:
    """Decorate a slot that updates widgets: called from another thread, it raises
    WrongThreadError instead of touching them. Give the slot its ``@Slot(...)`` signature too
    (above this decorator): the wrapper takes any arguments, so Qt needs it to know how many."""
    @functools.wraps(fn)
    def checked(*args: Any, **kwargs: Any) -> Any:
        require_gui_thread(fn.__qualname__)
        return fn(*args, **kwargs)
    return checked  # type: ignore[return-value]  # same signature as fn


class GuiCaller(QObject):
    """Runs functions on the GUI thread for any thread: create it on the GUI thread, then
    ``call(fn, *args)`` from anywhere. On the GUI thread itself the call is made at once."""

    _posted = Signal(object)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        # Queued always: a call posted from the GUI thread itself waits for the event loop.
        self._posted.connect(self._run, Qt.QueuedConnection)

    def call(self, fn: Callable[..., Any], *args: Any) -> bool:
        """Run ``fn(*args)`` on the GUI thread (now, when this is it); False when it cannot run
        any more: the application or this object is gone (the program is closing)."""
        app = QCoreApplication.instance()
        if app is None:
            return False
        if QThread.currentThread() is app.thread():
            fn(*args)
            return True
        return self.post(fn, *args)

    def post(self, fn: Callable[..., Any], *args: Any) -> bool:
        """Run ``fn(*args)`` on the GUI thread at the next turn of its event loop, from any thread,
        the GUI thread included: never inside what is running now (a paint, a model's answer)."""
        if QCoreApplication.instance() is None:
            return False
        try:
            self._posted.emit(functools.partial(fn, *args))
        except RuntimeError:  # this object was deleted: nothing will run it
            return False
        return True

    @Slot(object)
    def _run(self, call: Callable[[], Any]) -> None:
        call()
