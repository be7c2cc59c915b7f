"""Show text from skills (names, descriptions, paths, reasons) literally where Qt would read HTML."""

from __future__ import annotations

import html

from PySide6 import QtGui
from PySide6.QtWidgets import QMessageBox, QWidget

__all__ = ["information", "literal", "literal_html", "question", "reads_as_html", "warning"]

# Tooltips, message boxes and labels left at Qt.AutoText render a string as HTML when its first
# line looks like markup. HTML there loads <img> sources itself, from any local path (a device
# such as /dev/zero exhausts memory) or data: URL, and turns <a> into links: text a skill brings
# must never be read that way.


def reads_as_html(text: str) -> bool:
    """True when a tooltip, message box or auto-format label would render *text* as HTML."""
    return bool(text) and QtGui.Qt.mightBeRichText(text)


def literal_html(text: str | None) -> str:
    """*text* as HTML that shows it character for character, line breaks kept; Qt always reads
    the result as HTML."""
    escaped = html.escape("" if text is None else str(text), quote=False)
    return f'<p style="white-space: pre-wrap;">{escaped}</p>'


def literal(text: str | None) -> str:
    """*text* for a tooltip, message box or auto-format label: unchanged when Qt shows it as plain
    text anyway, else :func:`literal_html`, so it never renders as markup."""
    text = "" if text is None else str(text)
    return literal_html(text) if reads_as_html(text) else text


def warning(parent: QWidget | None, title: str, text: str):
    """``QMessageBox.warning`` with *text* shown literally."""
    return QMessageBox.warning(parent, title, literal(text))


def information(parent: QWidget | None, title: str, text: str):
    """``QMessageBox.information`` with *text* shown literally."""
    return QMessageBox.information(parent, title, literal(text))


def question(parent: QWidget | None, title: str, text: str) -> bool:
    """``QMessageBox.question`` with *text* shown literally; True when the answer is Yes."""
    return QMessageBox.question(parent, title, literal(text)) == QMessageBox.StandardButton.Yes
