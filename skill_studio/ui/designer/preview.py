"""Live preview of a skill's Markdown body: debounced, rendered off the GUI thread, never fetching.

The GUI thread only hands the body to a worker and shows what comes back: HTML bounded by the
renderer (see skill_studio.core.render.limits) and images already decoded within bounds.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from html import escape

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, QUrl, Signal, Slot
from PySide6.QtGui import QImage, QTextDocument, QTextOption
from PySide6.QtWidgets import QTextBrowser

from skill_studio.core.render.html import RenderResult, render_markdown, stylesheet
from skill_studio.core.render.sourcemap import SourceMap
from skill_studio.ui import theme
from skill_studio.ui.designer.link_dialog import confirm_web_link, open_in_browser, web_link
from skill_studio.ui.designer.preview_files import decode_skill_image, not_shown_image, skill_path
from skill_studio.ui.gui_thread import gui_only
from skill_studio.ui.safe_text import literal

__all__ = ["EMPTY_HINT", "PreviewPane", "render_pool"]

#: Shown instead of a blank pane while the body is empty.
EMPTY_HINT = "Nothing to preview yet — write the instructions in the editor"
#: Pause after the last keystroke before the preview renders.
DEBOUNCE_MS = 250
_MAX_BLOCKED_KEPT = 500

_IMAGE = QTextDocument.ResourceType.ImageResource.value
_FULLY_DECODED = QUrl.ComponentFormattingOption.FullyDecoded
_SMOOTH = Qt.TransformationMode.SmoothTransformation
#: Threads previews render on: their own, so a slow render never holds up other work. Plain
#: Python threads: a job is a Python call, so no Qt object's life is tied to a worker.
RENDER_THREADS = 2
_pool: ThreadPoolExecutor | None = None
_sink: _ResultSink | None = None


def render_pool() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=RENDER_THREADS, thread_name_prefix="preview-render")
    return _pool


def result_sink() -> _ResultSink:
    """The one object that carries results from the render threads to the panes: made on the
    GUI thread at the first render and never deleted, so no worker ever emits through an object
    that is going away (each pane takes the results of its own renders)."""
    global _sink
    if _sink is None:
        _sink = _ResultSink()
    return _sink


@dataclass(frozen=True, slots=True)
class _Rendered:
    """What a worker prepared for the document: the render, its images decoded and fitted to
    *width*, and the scroll-sync map."""

    result: RenderResult
    images: dict[str, QImage]
    width: int
    source_map: SourceMap


class _ResultSink(QObject):
    """Carries a worker's result back to the GUI thread (a queued signal): (the pane's ticket,
    the render's number, its text, what it prepared)."""

    finished = Signal(object, int, str, object)


class _Ticket:
    """The newest render sequence number, read by workers so stale jobs skip their work."""

    def __init__(self) -> None:
        self.seq = 0


class _RenderJob:
    def __init__(self, seq: int, text: str, files: dict[str, bytes], dark: bool, width: int,
                 known: dict[str, QImage], sink: _ResultSink, ticket: _Ticket) -> None:
        self.seq, self.text, self.files, self.dark = seq, text, files, dark
        self.width, self.known = width, known
        self.sink, self.ticket = sink, ticket

    def run(self) -> None:
        if self.ticket.seq != self.seq:
            return  # a newer render was requested before this one started
        result = render_markdown(self.text, base_files=tuple(self.files), dark=self.dark)
        images = {}
        for path in result.images:
            if path in self.files and self.ticket.seq == self.seq:
                image = self.known.get(path)
                images[path] = image if image is not None else decode_skill_image(self.files[path], self.width)
        done = _Rendered(result, images, self.width, SourceMap(self.text, result.headings))
        self.sink.finished.emit(self.ticket, self.seq, self.text, done)

    def __call__(self) -> None:
        try:
            self.run()
        except Exception as e:  # noqa: BLE001 - a worker's failure is shown in the pane, never lost
            failed = RenderResult(f"<p><i>The preview could not be made ({escape(type(e).__name__)}: "
                                  f"{escape(str(e)[:300])}).</i></p>")
            self.sink.finished.emit(self.ticket, self.seq, self.text,
                                    _Rendered(failed, {}, self.width, SourceMap("", [])))


class PreviewPane(QTextBrowser):
    """Rendered preview of a skill body: sanitised HTML, images only from the skill's own files,
    links followed only on click: anchors, skill files, and web links once the user has seen the
    address and confirmed."""

    #: The document now shows the newest rendered body (or the empty hint).
    rendered = Signal()
    #: A link to one of the skill's files was clicked; carries its normalised path.
    openFileRequested = Signal(str)
    #: A clicked link was not followed; carries a message for the status bar.
    linkRefused = Signal(str)
    #: The pointer is over a link (its target) or left it ("").
    linkHovered = Signal(str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("designer_preview")
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.document().setUndoRedoEnabled(False)
        self.document().setDocumentMargin(12)
        # Wrap only between words: Qt's default breaks inside words, squeezing table columns below
        # their longest word ("chann el"). Overlong words get break points from the renderer.
        self.setWordWrapMode(QTextOption.WrapMode.WordWrap)
        #: Shows a clicked web link's full address and asks whether to open it (True: open).
        self.confirm_link: Callable[[QUrl], bool] = self._ask_before_opening
        #: Opens a confirmed web link in the desktop's browser.
        self.open_external: Callable[[QUrl], object] = open_in_browser
        #: Every resource URL the document asked for and was refused.
        self.blocked_resources: list[str] = []
        self._files: dict[str, bytes] = {}
        self._files_version = 0
        #: Images decoded by the last render, fitted to ``_images_width``.
        self._images: dict[str, QImage] = {}
        self._images_width = 0
        self._limit: str | None = None
        self._text = ""
        self._first_line = 1
        self._dark = self._theme_dark = theme.current_tokens().dark
        self._wanted: tuple | None = None  # what the document should show: _key()
        self._shown: tuple | None = None   # what it shows, or what the running render will show
        self._displayed: tuple | None = None   # what it shows
        self._pending: tuple | None = None     # what the running render will show
        self._seq = 0
        self._ticket = _Ticket()
        self._sink = result_sink()
        self._sink.finished.connect(self._finished, Qt.QueuedConnection)  # emitted by render threads
        self._map = SourceMap("", [])
        self._anchor_blocks: dict[str, int] | None = None
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self._on_debounced)
        self._theme_check = QTimer(self)
        self._theme_check.setSingleShot(True)
        self._theme_check.setInterval(0)
        self._theme_check.timeout.connect(self._follow_theme)
        self.anchorClicked.connect(self._on_anchor_clicked)
        self.highlighted.connect(self._on_highlighted)
        self.document().setDefaultStyleSheet(stylesheet(self._dark))
        self._wanted = self._key()
        self._apply_now(self._wanted, RenderResult(self._hint_html()))

    def is_busy(self) -> bool:
        """Whether what the pane shows lags what it was given (a render waiting or under way);
        a hidden pane is never busy: it renders when shown."""
        return self.isVisible() and self._wanted != self._displayed

    @property
    def limit(self) -> str | None:
        """The limit the shown body went over (it is shown as text, in whole or from some point
        on), in plain words; ``None`` when it is shown whole."""
        return self._limit

    # -- public API -------------------------------------------------------------

    @property
    def dark(self) -> bool:
        return self._dark

    def set_skill_files(self, files: dict[str, bytes]) -> None:
        """Use *files* (POSIX relative path -> content) for images and relative links."""
        files = {posixpath.normpath(p): data for p, data in files.items()}
        if files != self._files:
            self._files = files
            self._files_version += 1
            self._images.clear()
            self._request(immediate=False)

    def set_markdown(self, body: str, first_line: int = 1) -> None:
        """Schedule a render of *body*, whose first line is line *first_line* of SKILL.md."""
        self._text = body
        self._first_line = first_line
        self._request(immediate=False)

    def render_now(self) -> None:
        """Start rendering the current body at once, visible or not. It renders on a worker
        thread: wait for :attr:`rendered` (an empty body shows its hint at once)."""
        self._wanted = self._key()
        self._start_render()

    def set_dark(self, dark: bool) -> None:
        """Switch the document stylesheet and code colours to the dark or light palette."""
        if dark == self._dark:
            return
        self._dark = dark
        self.document().setDefaultStyleSheet(stylesheet(dark))
        self._request(immediate=True)

    def scroll_to_source_line(self, line: int) -> None:
        """Scroll so the content from SKILL.md line *line* is near the top of the pane."""
        if self._anchor_blocks is None:
            self._anchor_blocks = self._find_anchor_blocks()
        doc = self.document()
        layout = doc.documentLayout()
        positions = {
            anchor: layout.blockBoundingRect(doc.findBlockByNumber(number)).top()
            for anchor, number in self._anchor_blocks.items()
        }
        y = self._map.y_for(line - self._first_line, positions, layout.documentSize().height())
        bar = self.verticalScrollBar()
        bar.setValue(max(bar.minimum(), min(bar.maximum(), round(y) - 4)))

    # -- rendering --------------------------------------------------------------

    def _key(self) -> tuple:
        return (self._text, self._dark, self._files_version)

    def _request(self, *, immediate: bool) -> None:
        self._wanted = self._key()
        if self._shown != self._displayed and self._wanted != self._shown:
            # A render under way is out of date: drop its result; what the pane shows stays
            # until the next one.
            self._seq += 1
            self._ticket.seq = self._seq
            self._shown = self._displayed
        if self._wanted == self._shown:
            self._debounce.stop()
        elif not self.isVisible():
            self._debounce.stop()  # showEvent renders
        elif immediate:
            self._start_render()
        else:
            self._debounce.start()

    def _on_debounced(self) -> None:
        if self.isVisible() and self._wanted != self._shown:
            self._start_render()

    def _start_render(self) -> None:
        self._debounce.stop()
        key = self._wanted = self._key()
        self._shown = self._pending = key
        self._seq += 1
        self._ticket.seq = self._seq
        text, dark = key[0], key[1]
        if not text.strip():
            self._apply_now(key, RenderResult(self._hint_html()))
            return
        width = self._image_width()
        known = self._images if width == self._images_width else {}
        job = _RenderJob(self._seq, text, self._files, dark, width, known, self._sink, self._ticket)
        render_pool().submit(job)

    def _apply_now(self, key: tuple, result: RenderResult) -> None:
        self._shown = self._pending = key
        self._apply(self._seq, key[0], _Rendered(result, {}, self._image_width(), SourceMap("", [])))

    @Slot(object, int, str, object)
    def _finished(self, ticket: _Ticket, seq: int, text: str, done: _Rendered) -> None:
        if ticket is self._ticket:   # (the others are other panes' renders)
            self._apply(seq, text, done)

    @gui_only
    def _apply(self, seq: int, text: str, done: _Rendered) -> None:
        if seq != self._seq:
            return  # an older render finishing late; the newest is on its way
        self._displayed = self._pending
        self._images, self._images_width = done.images, done.width
        self._limit = done.result.limit
        vbar, hbar = self.verticalScrollBar(), self.horizontalScrollBar()
        top, left = vbar.value(), hbar.value()
        self.setHtml(done.result.html)
        vbar.setValue(min(top, vbar.maximum()))
        hbar.setValue(min(left, hbar.maximum()))
        self._map = done.source_map
        self._anchor_blocks = None
        self.rendered.emit()

    def _image_width(self) -> int:
        return max(120, self.viewport().width() - 24)

    def _hint_html(self) -> str:
        colour = (theme.DARK if self._dark else theme.LIGHT).text_muted
        return (f'<p align="center" style="color: {colour};">'
                f"<i>{EMPTY_HINT}</i></p>")

    def _find_anchor_blocks(self) -> dict[str, int]:
        wanted = {anchor for _, anchor in self._map.anchors}
        found: dict[str, int] = {}
        block = self.document().begin()
        while block.isValid() and len(found) < len(wanted):
            if not block.blockFormat().headingLevel():
                block = block.next()
                continue
            it = block.begin()
            while not it.atEnd():
                for name in it.fragment().charFormat().anchorNames():
                    if name in wanted:
                        found.setdefault(name, block.blockNumber())
                it += 1
            block = block.next()
        return found

    # -- resources and links ----------------------------------------------------

    def loadResource(self, type_: int, url: QUrl):
        """Return images named by relative paths of the skill's files, as the last render decoded
        them; refuse everything else.

        A refusal returns an empty value (a null QImage, or "" for other kinds), never ``None``:
        on ``None`` QTextDocument falls back to reading local files and data: URLs itself."""
        path = skill_path(url, self._files) if type_ == _IMAGE else None
        if path is None:
            if len(self.blocked_resources) < _MAX_BLOCKED_KEPT:
                self.blocked_resources.append(url.toString())
            return QImage() if type_ == _IMAGE else ""
        image = self._images.get(path)
        if image is None:
            # Images are decoded on the render's worker thread; one the render did not name
            # (markup set directly) is not decoded here, where a big file would stall the window.
            return not_shown_image()
        room = self._image_width()
        if image.width() > room:
            return image.scaledToWidth(room, mode=_SMOOTH)   # no bigger than the width it was fitted to
        return image

    def _on_anchor_clicked(self, url: QUrl) -> None:
        """Follow a clicked link: ``#anchor`` scrolls, a skill file is asked for, an http(s) link
        opens in the browser once the user confirmed its address; every other link is refused."""
        scheme = url.scheme().lower()
        target = url.toString()
        if not scheme and not url.authority() and not url.path() and url.hasFragment():
            self.scrollToAnchor(url.fragment(_FULLY_DECODED))
        elif web_link(url):
            if self.confirm_link(QUrl(url)):
                self.open_external(QUrl(url))
            else:
                self.linkRefused.emit(f"Not opened: {target}")
        elif (path := skill_path(url, self._files)) is not None:
            self.openFileRequested.emit(path)
        elif not scheme and not url.authority():
            self.linkRefused.emit(f"Not opened: {target} is not a file of this skill")
        else:
            self.linkRefused.emit(f"Not opened: {target} (only web links and skill files open)")

    def _ask_before_opening(self, url: QUrl) -> bool:
        return confirm_web_link(url, self)

    def _on_highlighted(self, url: QUrl) -> None:
        # Hovering only names the target; nothing is opened or fetched.
        target = url.toString()
        self.setToolTip(literal(target))
        self.linkHovered.emit(target)

    # -- events -----------------------------------------------------------------

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._wanted != self._shown:
            self._start_render()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.StyleChange):
            # apply_theme sets the palette before the tokens: look once it has finished.
            self._theme_check.start()

    def _follow_theme(self) -> None:
        # Follow the application theme when it changes, without undoing an explicit set_dark().
        dark = theme.current_tokens().dark
        if dark != self._theme_dark:
            self._theme_dark = dark
            self.set_dark(dark)

