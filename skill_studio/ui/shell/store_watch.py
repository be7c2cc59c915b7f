"""Notices commits made to the store by another process (the command line, another window)."""

from __future__ import annotations

import sqlite3

from PySide6.QtCore import QObject, QTimer, Signal

from skill_studio.core.store import Store


class StoreWatcher(QObject):
    """Polls SQLite's ``data_version``, which changes only when another connection commits."""

    changedElsewhere = Signal()

    def __init__(self, store: Store, interval_ms: int = 1000, parent: QObject | None = None):
        super().__init__(parent)
        self._store = store
        self._version = store.data_version()
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.check)
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def check(self) -> bool:
        """Emit changedElsewhere if another connection committed since the last check."""
        try:
            version = self._store.data_version()
        except sqlite3.Error:  # the store was closed under us: nothing more to watch
            self.stop()
            return False
        if version != self._version:
            self._version = version
            self.changedElsewhere.emit()
            return True
        return False
