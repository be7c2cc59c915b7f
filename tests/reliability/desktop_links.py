"""The fixture the preview tests share: the URLs handed to the desktop instead of opened."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices


@pytest.fixture
def opened(monkeypatch) -> list[QUrl]:
    """Every URL handed to the desktop (QDesktopServices.openUrl) during the test."""
    calls: list[QUrl] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: calls.append(QUrl(url)) or True)
    return calls
