"""The window's settings, typed, with their defaults: theme, geometry, splitter, browser state."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import QByteArray, QSettings

THEMES = ("system", "light", "dark")


class StudioSettings:
    """One typed view over QSettings; pass it in, never read QSettings directly elsewhere."""

    def __init__(self, qsettings: QSettings | None = None):
        self._s = qsettings or QSettings("skill-studio", "Skill Studio")

    def _get(self, key: str, default: Any) -> Any:
        value = self._s.value(key, default)
        return default if value is None else value

    @property
    def theme(self) -> str:
        value = str(self._get("appearance/theme", "system"))
        return value if value in THEMES else "system"

    @theme.setter
    def theme(self, value: str) -> None:
        self._s.setValue("appearance/theme", value if value in THEMES else "system")

    def geometry(self, key: str) -> QByteArray | None:
        value = self._s.value(f"window/{key}")
        return value if isinstance(value, QByteArray) and not value.isEmpty() else None

    def set_geometry(self, key: str, value: QByteArray) -> None:
        self._s.setValue(f"window/{key}", value)

    @property
    def browser_state(self) -> dict:
        try:
            value = json.loads(str(self._get("browser/state", "{}")))
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}

    @browser_state.setter
    def browser_state(self, value: dict) -> None:
        self._s.setValue("browser/state", json.dumps(value))

    @property
    def reviewer(self) -> str:
        """The name the audit log records for this user's changes (default: the OS user)."""
        from skill_studio.ui.review.actions import default_reviewer

        return str(self._get("review/reviewer", "") or "").strip() or default_reviewer()

    @reviewer.setter
    def reviewer(self, value: str) -> None:
        self._s.setValue("review/reviewer", value.strip())

    @property
    def install_folders(self) -> list[str]:
        """Agent skill folders installed into, most recent first."""
        try:
            value = json.loads(str(self._get("agents/install_folders", "[]")))
        except ValueError:
            return []
        return [f for f in value if isinstance(f, str)] if isinstance(value, list) else []

    @install_folders.setter
    def install_folders(self, value: list[str]) -> None:
        self._s.setValue("agents/install_folders", json.dumps(list(dict.fromkeys(value))[:8]))

    @property
    def welcome_shown(self) -> bool:
        """Whether the welcome page was shown at a start (it opens by itself only the first time)."""
        return str(self._get("help/welcome_shown", "false")).lower() in ("true", "1")

    @welcome_shown.setter
    def welcome_shown(self, value: bool) -> None:
        self._s.setValue("help/welcome_shown", bool(value))

    def sync(self) -> None:
        self._s.sync()
