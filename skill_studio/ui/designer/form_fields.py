"""Pieces of the metadata form: the name check, token fields and their completer, colours."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QStringListModel, Qt, QTimer, Signal
from PySide6.QtWidgets import QCompleter, QPlainTextEdit

from skill_studio.core.format.frontmatter import compose
from skill_studio.core.format.skillmd import SkillParseError
from skill_studio.core.format.strict import check_strict

REQUIRED_KEYS = frozenset({"name", "description"})
#: The strict profile's codes for the name's own rules (S019, the folder match, is left out:
#: the folder follows the name when the skill is saved).
_NAME_CODES = frozenset({"S013", "S014", "S015", "S016", "S017", "S018"})
_TOKEN_SPLIT = re.compile(r"[\s,]+")


def name_messages(name: str) -> list[str]:
    """The strict profile's messages about ``name`` (the reference validator's wording), in its order."""
    diags, _ = check_strict(compose({"name": name, "description": "x"}, ""), None)
    return [d.message for d in diags if d.code in _NAME_CODES]


def split_tokens(text: str) -> list[str]:
    """Names typed in a token field (commas or spaces between), without repeats."""
    return list(dict.fromkeys(t for t in _TOKEN_SPLIT.split(text) if t))


def parse_error_banner(e: SkillParseError) -> str:
    where = f" on line {e.line}" if e.line is not None else ""
    hint = f" ({e.hint})" if e.hint else ""
    return f"The frontmatter has an error{where}: {e.message}{hint} — fix it in the editor"


class TokenCompleter(QCompleter):
    """Completes the last of several comma-separated names in a line edit."""

    def __init__(self, parent=None):
        super().__init__(parent, caseSensitivity=Qt.CaseSensitivity.CaseInsensitive,
                         filterMode=Qt.MatchFlag.MatchContains)
        self.setModel(QStringListModel(self))

    def set_words(self, words: list[str]) -> None:
        words = sorted(set(words), key=str.casefold)
        if words != self.model().stringList():
            self.model().setStringList(words)

    def splitPath(self, path: str) -> list[str]:
        # Called as the user types (not when a completion is highlighted): remember what comes before.
        last = re.split(r"[,\s]", path)[-1]
        self._head = path[: len(path) - len(last)]
        return [last]

    def pathFromIndex(self, index) -> str:
        return getattr(self, "_head", "") + super().pathFromIndex(index) + ", "


class _PlainEdit(QPlainTextEdit):
    """A QPlainTextEdit that says when the user leaves it, as QLineEdit does."""

    editingFinished = Signal()

    def focusOutEvent(self, event) -> None:
        super().focusOutEvent(event)
        self.editingFinished.emit()


@dataclass
class _Field:
    key: str                      # frontmatter key, or the studio field's name
    studio: bool
    get: Callable[[], Any]        # the value the widget shows (str, or list for token fields)
    put: Callable[[Any], None]    # show a value without telling anyone
    timer: QTimer
