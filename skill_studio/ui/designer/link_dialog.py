"""Ask before a web link from a skill opens in the browser, showing the full address first."""

from __future__ import annotations

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QFontDatabase, QTextOption
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

__all__ = ["WEB_SCHEMES", "WebLinkDialog", "confirm_web_link", "displayed_address", "open_in_browser",
           "web_link"]

#: The only schemes a link from a skill may open, and only after the user confirmed.
WEB_SCHEMES = ("http", "https")
_ENCODED = QUrl.ComponentFormattingOption.FullyEncoded


def web_link(url: QUrl) -> bool:
    """True for a valid http(s) URL that names a host: the only kind a click may offer to open."""
    return url.isValid() and url.scheme().lower() in WEB_SCHEMES and bool(url.host())


def displayed_address(url: QUrl) -> str:
    """The address as the dialog shows it: readable, and followed by its encoded form when that
    differs (an international host or look-alike characters show as what they really are)."""
    readable = url.toString()
    encoded = url.toString(_ENCODED)
    return readable if readable == encoded else f"{readable}\n\nEncoded: {encoded}"


class WebLinkDialog(QDialog):
    """Names the full address of a link and waits for Open or Cancel (Cancel is the default)."""

    def __init__(self, url: QUrl, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("webLinkDialog")
        self.setWindowTitle("Open web link?")
        self.url = QUrl(url)
        intro = QLabel("This link in the skill leads to a web page outside Skill Studio:", self)
        intro.setTextFormat(Qt.TextFormat.PlainText)
        intro.setWordWrap(True)
        # A read-only box, not a label: a long address wraps anywhere and can be selected whole.
        self.address = QPlainTextEdit(displayed_address(url), self)
        self.address.setObjectName("webLinkAddress")
        self.address.setReadOnly(True)
        self.address.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.address.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.address.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.address.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        lines = min(6, 2 + self.address.toPlainText().count("\n") + len(url.toString()) // 60)
        self.address.setFixedHeight(self.address.fontMetrics().lineSpacing() * lines + 14)
        outro = QLabel("Open it in your web browser?", self)
        outro.setTextFormat(Qt.TextFormat.PlainText)
        buttons = QDialogButtonBox(self)
        self.open_button = buttons.addButton("Open", QDialogButtonBox.ButtonRole.AcceptRole)
        self.cancel_button = buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.open_button.setAutoDefault(False)
        self.cancel_button.setDefault(True)
        self.cancel_button.setFocus()
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.address)
        layout.addWidget(outro)
        layout.addWidget(buttons)
        self.resize(520, self.sizeHint().height())

    def address_text(self) -> str:
        """What the dialog shows as the address."""
        return self.address.toPlainText()


def confirm_web_link(url: QUrl, parent: QWidget | None = None) -> bool:
    """Show *url* in a :class:`WebLinkDialog`; True only when the user chose Open."""
    dialog = WebLinkDialog(url, parent)
    try:
        return dialog.exec() == QDialog.DialogCode.Accepted
    finally:
        dialog.deleteLater()


def open_in_browser(url: QUrl) -> bool:
    """Hand a confirmed web link to the desktop's browser."""
    return QDesktopServices.openUrl(url)
