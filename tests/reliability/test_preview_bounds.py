"""Hostile skills in the designer's preview: the work happens off the GUI thread and is bounded;
the user sees the skill, as text under a notice when it is too large to preview."""

from __future__ import annotations

import struct
import threading
import zlib

import pytest
from preview_wait import rendering, shown_pane
from PySide6.QtCore import QUrl
from PySide6.QtGui import QImage, QTextDocument, QTextTable

from skill_studio.core.render.limits import TOO_LARGE
from skill_studio.ui.designer import preview
from skill_studio.ui.designer.preview import PreviewPane

IMAGE = QTextDocument.ResourceType.ImageResource.value


def png(width: int, height: int, rows: int | None = None) -> bytes:
    """A black PNG whose header says *width* x *height*; only its first *rows* rows are written
    when given (a decoder that believed the header would still allocate the whole image)."""
    row = b"\x00" + b"\x00" * (width * 3)
    packer = zlib.compressobj(9)
    data = b"".join(packer.compress(row) for _ in range(height if rows is None else rows)) + packer.flush()

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b"")


def nested_use(levels: int) -> bytes:
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><defs>'
             '<rect id="l0" width="1" height="1"/>']
    for i in range(1, levels + 1):
        parts.append(f'<g id="l{i}">' + "".join(f'<use href="#l{i - 1}"/>' for _ in range(10)) + "</g>")
    parts.append(f'</defs><use href="#l{levels}"/></svg>')
    return "".join(parts).encode()


FILES = {
    "images/bomb.svg": nested_use(7),
    "images/huge.png": png(20_000, 20_000, rows=2),
    "images/fine.png": png(30, 20),
}


@pytest.fixture
def pane(qtbot):
    return shown_pane(qtbot, FILES)


@pytest.fixture
def threads(monkeypatch):
    """The threads the pane rendered and decoded images on."""
    seen: dict[str, list] = {"render": [], "decode": []}
    real_render, real_decode = preview.render_markdown, preview.decode_skill_image

    def render(*args, **kwargs):
        seen["render"].append(threading.current_thread())
        return real_render(*args, **kwargs)

    def decode(*args, **kwargs):
        seen["decode"].append(threading.current_thread())
        return real_decode(*args, **kwargs)

    monkeypatch.setattr(preview, "render_markdown", render)
    monkeypatch.setattr(preview, "decode_skill_image", decode)
    return seen


def show(pane: PreviewPane, body: str) -> None:
    pane.set_markdown(body)
    with rendering(pane):
        pane.render_now()


def off_gui(threads: list) -> bool:
    return bool(threads) and all(t is not threading.main_thread() for t in threads)


HOSTILE = {
    "big table": "| " + " | ".join(f"h{c}" for c in range(30)) + " |\n|" + "---|" * 30 + "\n"
                 + "".join("| " + " | ".join(f"c{r}" for _ in range(30)) + " |\n" for r in range(3000)),
    "long word": "x" * (512 * 1024) + "\n",
    "many headings": "".join(f"# H{i}\n\n" for i in range(40_000)),
    "deep list": "\n".join(" " * (4 * i) + "- item" for i in range(2000)) + "\n",
    "deep blockquote": ">" * 2000 + " x\n",
    "huge code block": "```python\n" + "def f(x):  return x + 1\n" * 130_000 + "```\n",
    "entities on one line": "&amp;" * 100_000 + "\n",
}


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_body_shows_as_text_rendered_off_the_gui_thread(name, pane, threads):
    body = HOSTILE[name]
    show(pane, body)
    text = pane.toPlainText()
    assert text.startswith(TOO_LARGE) and pane.limit and pane.limit in text
    assert body[:30].replace("&amp;", "&") in text.replace("&amp;", "&")   # the skill itself, as text
    assert off_gui(threads["render"])
    # The next ordinary body is shown richly again.
    show(pane, "# Fine\n\nShort.\n")
    assert pane.limit is None and pane.toPlainText().startswith("Fine")


def test_even_a_short_body_renders_off_the_gui_thread(pane, threads):
    show(pane, "# Title\n\nText.\n")
    assert "Title" in pane.toPlainText() and off_gui(threads["render"])


def test_a_table_with_too_many_cells_is_shown_as_text(pane):
    body = "# Data\n\n" + "| a | b | c | d |\n|---|---|---|---|\n" + "| 1 | 2 | 3 | 4 |\n" * 150 + "\nAfter.\n"
    show(pane, body)
    text = pane.toPlainText()
    assert "This table is too large to preview" in text and "1 | 2 | 3 | 4" in text and "After." in text
    assert not [f for f in pane.document().rootFrame().childFrames() if isinstance(f, QTextTable)]
    assert pane.limit is None   # the rest of the body is rendered as usual


def test_code_lexers_are_slow_on_still_shows(pane):
    show(pane, "```xml\n" + "<!--" * 20_000 + "\n```\n")
    assert "<!--<!--" in pane.toPlainText()


def shown_image(pane: PreviewPane, path: str) -> QImage:
    image = pane.document().resource(IMAGE, QUrl(path))
    assert isinstance(image, QImage)
    return image


def test_images_are_decoded_off_the_gui_thread_within_bounds(pane, threads):
    show(pane, "![fine](images/fine.png) ![bomb](images/bomb.svg) ![huge](images/huge.png)\n")
    assert off_gui(threads["decode"]) and len(threads["decode"]) == 3
    assert shown_image(pane, "images/fine.png").size().toTuple() == (30, 20)
    # The nested <use> bomb and the 20,000 x 20,000 image are refused before any drawing:
    # each shows the small crossed box.
    assert shown_image(pane, "images/bomb.svg").size().toTuple() == (18, 18)
    assert shown_image(pane, "images/huge.png").size().toTuple() == (18, 18)


def test_an_image_the_render_did_not_decode_is_not_decoded_on_the_gui_thread(pane, threads):
    show(pane, "Nothing here.\n")
    image = pane.loadResource(IMAGE, QUrl("images/fine.png"))
    assert isinstance(image, QImage) and image.size().toTuple() == (18, 18)
    assert threads["decode"] == []


def test_a_big_image_is_fitted_to_the_pane_on_the_worker(pane, threads):
    files = {**FILES, "images/wide.png": png(3000, 1000)}
    pane.set_skill_files(files)
    show(pane, "![wide](images/wide.png)\n")
    width = shown_image(pane, "images/wide.png").width()
    assert 0 < width <= pane.viewport().width() and off_gui(threads["decode"])
