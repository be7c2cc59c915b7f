"""Preview links: a link opens only on a click, only for http(s) and only after the user has seen
the full address in a dialog and chosen Open; hovering names the address and nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SCREENSHOTS, png_bytes
from desktop_links import opened  # noqa: F401 - a fixture
from preview_wait import rendering
from PySide6.QtCore import QEvent, QPoint, Qt, QTimer, QUrl
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QToolTip

from skill_studio.ui.designer.link_dialog import WebLinkDialog
from skill_studio.ui.designer.preview import PreviewPane


@pytest.fixture
def pane(qtbot, opened):  # noqa: F811 - the fixture imported above
    widget = PreviewPane()
    qtbot.addWidget(widget)
    widget.resize(640, 420)
    widget.set_skill_files({"SKILL.md": b"---\nname: x\n---\n", "references/guide.md": b"# Guide\n"})
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def show(pane: PreviewPane, *, markdown: str | None = None, html: str | None = None) -> None:
    if markdown is not None:
        pane.set_markdown(markdown)
        with rendering(pane):   # on a worker thread
            pane.render_now()
    else:
        pane.setHtml(html)
    pane.document().size()



class DialogWatcher:
    """Answers every link dialog that opens (Open or Cancel), noting the address it showed."""

    def __init__(self, answer: str = "cancel", screenshot: Path | None = None) -> None:
        self.answer, self.screenshot = answer, screenshot
        self.shown: list[str] = []
        self.looks = 0   # how many times it has looked for a dialog
        self.timer = QTimer(interval=10)
        self.timer.timeout.connect(self._look)
        self.timer.start()

    def looked_again(self, qtbot) -> None:
        """Wait until the watcher has looked twice more: a dialog that had opened by now was seen
        (and whatever was queued before this call has been handled)."""
        looks = self.looks
        qtbot.waitUntil(lambda: self.looks >= looks + 2, timeout=10000)

    def _look(self) -> None:
        self.looks += 1
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, WebLinkDialog) or not dialog.isVisible() or dialog.result():
            return
        self.shown.append(dialog.address_text())
        if self.screenshot is not None:
            dialog.grab().save(str(self.screenshot))
        (dialog.open_button if self.answer == "open" else dialog.cancel_button).click()


@pytest.fixture
def watcher():
    w = DialogWatcher()
    yield w
    w.timer.stop()


OTHER_LINKS = (("javascript", "javascript:alert(1)"), ("data", "data:text/html,<b>x</b>"),
               ("file", "file:///etc/passwd"), ("vbscript", "vbscript:msgbox(1)"), ("mailto", "mailto:a@b.invalid"),
               ("ftp", "ftp://evil.invalid/x"), ("hostless", "https:evil.invalid"), ("relative", "../outside.md"))
# Raw markup, past the sanitiser: the pane's own click rules are what is tested here.
LINKS_HTML = ('<p><a href="https://example.com/docs?q=1#part">web link</a></p>'
              '<p><a href="#far">in-page link</a></p><p><a href="references/guide.md">guide link</a></p>'
              + "".join(f'<p><a href="{u}">{label} link</a></p>' for label, u in OTHER_LINKS)
              + "<p>filler</p>" * 60 + '<h2 id="far">Far</h2>')


def link_point(pane, text: str) -> QPoint:
    cursor = pane.document().find(text)
    assert not cursor.isNull(), text
    pane.setTextCursor(cursor)
    pane.ensureCursorVisible()
    rect = pane.cursorRect(cursor)
    return QPoint(rect.left() - 3 * len(text), rect.center().y())


def click_link(qtbot, pane, text: str) -> None:
    qtbot.mouseClick(pane.viewport(), Qt.MouseButton.LeftButton, pos=link_point(pane, text))


@pytest.fixture
def links(pane):
    show(pane, html=LINKS_HTML)
    return pane


def test_hovering_a_web_link_only_names_it(qtbot, links, watcher, opened):  # noqa: F811 - the fixture imported above
    with qtbot.waitSignal(links.linkHovered, timeout=5000) as hovered:
        qtbot.mouseMove(links.viewport(), link_point(links, "web link"))
    assert hovered.args == ["https://example.com/docs?q=1#part"]
    assert links.toolTip() == "https://example.com/docs?q=1#part"
    watcher.looked_again(qtbot)
    assert watcher.shown == [] and opened == []


def test_titles_never_become_tooltips_that_read_markup(qtbot, pane, watcher, opened):  # noqa: F811 - the fixture imported above
    pane.set_skill_files({"own.png": png_bytes(30, 20, "#008000")})
    title = "<b>bold</b><img src='spy.png'>"
    show(pane, markdown=f'[titled link](https://example.com/t "{title}")\n\n![own](own.png "{title}")\n')
    image = pane.document().find("\ufffc")
    rect = pane.cursorRect(image)
    for point in (link_point(pane, "titled link"), QPoint(rect.left() - 8, rect.center().y())):
        pane.setToolTip("")   # as before the pointer first moved over anything
        QApplication.sendEvent(pane.viewport(), QHelpEvent(QEvent.Type.ToolTip, point,
                                                           pane.viewport().mapToGlobal(point)))
        assert "bold" not in QToolTip.text()
        QToolTip.hideText()
    assert watcher.shown == [] and opened == []


def test_a_confirmed_web_link_opens_exactly_that_address(qtbot, links, watcher, opened):  # noqa: F811 - the fixture imported above
    SCREENSHOTS.mkdir(exist_ok=True)
    watcher.answer, watcher.screenshot = "open", SCREENSHOTS / "preview-link-dialog.png"
    click_link(qtbot, links, "web link")
    assert watcher.shown == ["https://example.com/docs?q=1#part"]
    assert opened == [QUrl("https://example.com/docs?q=1#part")]


def test_a_cancelled_web_link_opens_nothing(qtbot, links, watcher, opened):  # noqa: F811 - the fixture imported above
    with qtbot.waitSignal(links.linkRefused, timeout=3000):
        click_link(qtbot, links, "web link")
    assert watcher.shown == ["https://example.com/docs?q=1#part"] and opened == []


def test_the_dialog_shows_the_whole_address_and_the_encoded_form_of_a_look_alike(qtbot, opened):  # noqa: F811 - the fixture imported above
    look_alike = WebLinkDialog(QUrl("https://\u0430pple.com/login"))   # a Cyrillic "а"
    qtbot.addWidget(look_alike)
    assert "https://xn--pple-43d.com/login" in look_alike.address_text()
    assert look_alike.cancel_button.isDefault() and not look_alike.open_button.isDefault()
    long_url = "https://example.com/" + "segment/" * 80 + "?q=end"
    long_one = WebLinkDialog(QUrl(long_url))
    qtbot.addWidget(long_one)
    assert long_one.address_text() == long_url
    assert opened == []


@pytest.mark.parametrize("label", [label for label, _ in OTHER_LINKS])
def test_other_links_open_nothing_and_ask_nothing(qtbot, links, watcher, opened, label):  # noqa: F811 - the fixture imported above
    files = []
    links.openFileRequested.connect(files.append)
    with qtbot.waitSignal(links.linkRefused, timeout=3000) as refused:
        click_link(qtbot, links, f"{label} link")
    assert "Not opened" in refused.args[0]
    assert watcher.shown == [] and opened == [] and files == []


def test_skill_file_and_in_page_links_work_as_before(qtbot, links, watcher, opened):  # noqa: F811 - the fixture imported above
    with qtbot.waitSignal(links.openFileRequested, timeout=3000) as asked:
        click_link(qtbot, links, "guide link")
    assert asked.args == ["references/guide.md"]
    links.verticalScrollBar().setValue(0)
    click_link(qtbot, links, "in-page link")
    assert links.verticalScrollBar().value() > 0
    assert watcher.shown == [] and opened == []


def test_rendering_and_hovering_never_open_anything(qtbot, pane, watcher, opened):  # noqa: F811 - the fixture imported above
    body = "\n\n".join(f"[{label} link]({url})" for label, url in OTHER_LINKS) + "\n\n[web](https://example.com/)\n"
    show(pane, markdown=body + "\n\n" + LINKS_HTML)
    for y in range(5, pane.viewport().height(), 12):
        qtbot.mouseMove(pane.viewport(), QPoint(40, y))
    watcher.looked_again(qtbot)
    assert watcher.shown == [] and opened == []
