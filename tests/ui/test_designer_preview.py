"""The designer's live preview: renders safely, debounces, stays put, syncs, never fetches."""

import base64
import re
import threading

import pytest
from conftest import SCREENSHOTS, png_bytes
from preview_wait import rendering, shown_pane
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QObject, QPoint, Qt, QTimer, QUrl
from PySide6.QtGui import QColor, QImage, QTextDocument, QTextTable
from PySide6.QtWidgets import QApplication

from skill_studio.core.render.html import stylesheet
from skill_studio.core.render.sourcemap import SourceMap
from skill_studio.ui import theme
from skill_studio.ui.designer import preview
from skill_studio.ui.designer.preview import EMPTY_HINT, PreviewPane
from skill_studio.ui.designer.preview_files import skill_path

IMAGE = QTextDocument.ResourceType.ImageResource.value


FILES = {
    "images/flow.png": png_bytes(),
    "references/guide.md": b"# Guide\n",
    "scripts/run.sh": b"#!/bin/sh\necho hi\n",
}


@pytest.fixture
def pane(qtbot):
    return shown_pane(qtbot, FILES)


def start_render(pane, body, first_line=1):
    pane.set_markdown(body, first_line)
    pane.render_now()


def show_now(pane, body, first_line=1):
    """Render *body* and wait until the pane shows it (rendering runs on a worker thread)."""
    with rendering(pane):
        start_render(pane, body, first_line)


def long_body(sections=30, words=60):
    parts = []
    for i in range(sections):
        parts.append(f"## Section {i}\n\nParagraph {i}: " + "lorem ipsum " * words + "\n")
    return "\n".join(parts)


def big_body(marker="", lines=2000):
    out = [f"# Big {marker}", ""]
    while len(out) < lines:
        n = len(out)
        out += [f"## Part {n}", "", f"Text {n} with *emphasis* and `code`.", "", "```python",
                f"def f{n}(x):", f"    return x + {n}", "```", ""]
    return "\n".join(out)


def anchor_y(pane, anchor):
    doc = pane.document()
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            if anchor in it.fragment().charFormat().anchorNames():
                return doc.documentLayout().blockBoundingRect(block).top()
            it += 1
        block = block.next()
    raise AssertionError(f"no anchor {anchor}")


def document_links_and_images(doc):
    """Every link target and image name the document holds as live formatting."""
    links, images = [], []
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.isAnchor() and fmt.anchorHref():
                links.append(fmt.anchorHref())
            if fmt.isImageFormat():
                images.append(fmt.toImageFormat().name())
            it += 1
        block = block.next()
    return links, images


def click_text(qtbot, pane, text):
    cursor = pane.document().find(text)
    assert not cursor.isNull(), text
    pane.setTextCursor(cursor)
    pane.ensureCursorVisible()
    rect = pane.cursorRect(cursor)
    pos = QPoint(rect.left() - 3 * max(1, len(text)), rect.center().y())
    qtbot.mouseClick(pane.viewport(), Qt.MouseButton.LeftButton, pos=pos)


# -- rendering ------------------------------------------------------------------


def test_headings_tables_and_highlighted_code_appear(pane):
    show_now(pane, "# Deploy\n\n## Steps\n\n| Step | Command |\n|---|---|\n| build | make |\n\n"
                   "```python\ndef deploy(target):\n    return target\n```\n")
    text = pane.toPlainText()
    assert "Deploy" in text and "Steps" in text and "build" in text and "make" in text
    assert "def deploy(target):" in text
    tables = [f for f in pane.document().rootFrame().childFrames() if isinstance(f, QTextTable)]
    assert tables and tables[0].rows() == 2 and tables[0].columns() == 2
    html = pane.document().toHtml()
    assert "color:#008000" in html.replace(" ", "")  # pygments' keyword colour on "def"


def test_empty_body_shows_a_hint(pane):
    assert EMPTY_HINT in pane.toPlainText()
    show_now(pane, "# Title\n")
    assert EMPTY_HINT not in pane.toPlainText()
    show_now(pane, "  \n\n")
    assert EMPTY_HINT in pane.toPlainText()


def test_typing_renders_once_after_the_pause(qtbot, pane):
    renders = []
    pane.rendered.connect(lambda: renders.append(pane.toPlainText()))
    with qtbot.waitSignal(pane.rendered, timeout=5000):
        for i in range(6):   # keystrokes in a row: each one (re)starts the pause, none renders
            pane.set_markdown(f"# Draft {i}\n")
            assert pane._debounce.isActive()
        assert renders == []  # nothing renders while typing continues
    # Rendered once, the newest text; nothing is left waiting to render again.
    qtbot.waitUntil(lambda: not pane._debounce.isActive(), timeout=5000)
    QApplication.processEvents()
    assert len(renders) == 1 and "Draft 5" in renders[0]


def test_hidden_pane_renders_only_when_shown_again(qtbot, pane):
    show_now(pane, "# First\n")
    pane.hide()
    renders = []
    pane.rendered.connect(lambda: renders.append(1))
    pane.set_markdown("# Second\n")
    pane.set_markdown("# Third\n")
    # Hidden, no render is even scheduled (the debounce is not running): nothing can come later.
    qtbot.waitUntil(lambda: not pane._debounce.isActive(), timeout=5000)
    QApplication.processEvents()
    assert renders == [] and "First" in pane.toPlainText()
    with qtbot.waitSignal(pane.rendered, timeout=5000):
        pane.show()
    assert "Third" in pane.toPlainText() and renders == [1]
    pane.hide()
    pane.show()  # nothing changed: no further render
    qtbot.waitUntil(lambda: not pane._debounce.isActive(), timeout=5000)
    QApplication.processEvents()
    assert renders == [1]


@pytest.mark.parametrize("sections", [30, 200], ids=["sync", "worker"])
def test_scroll_position_is_kept_across_a_rerender(qtbot, pane, sections):
    body = long_body(sections)
    with qtbot.waitSignal(pane.rendered, timeout=5000):
        show_now(pane, body)
    bar = pane.verticalScrollBar()
    assert bar.maximum() > 2000
    bar.setValue(bar.maximum() // 2)
    before = bar.value()
    with qtbot.waitSignal(pane.rendered, timeout=5000):
        pane.set_markdown(body + "\nOne more line at the end.\n")
    assert abs(bar.value() - before) <= 2
    assert "One more line" in pane.toPlainText()


def test_scroll_to_source_line_lands_on_the_heading(qtbot, pane):
    frontmatter = "---\nname: demo\ndescription: Demo. Use when testing.\n---\n"
    first_line = frontmatter.count("\n") + 1
    code = "```bash\n# not a heading\necho hi\n```\n\n"
    body = code + long_body(30)
    show_now(pane, body, first_line)
    lines = body.split("\n")
    target = lines.index("## Section 12") + first_line
    pane.scroll_to_source_line(target)
    bar = pane.verticalScrollBar()
    assert abs(bar.value() - anchor_y(pane, "section-12")) < 12
    # A line inside section 12 lands between its heading and the next one.
    pane.scroll_to_source_line(target + 2)
    assert anchor_y(pane, "section-12") - 12 < bar.value() < anchor_y(pane, "section-13")
    pane.scroll_to_source_line(2)  # inside the frontmatter: the top
    assert bar.value() == 0


def test_source_map_skips_fenced_code_and_reads_setext_headings():
    body = "Intro\n\n```\n# fake\n```\n\nSetext title\n============\n\n~~~\n## fake\n~~~\n### Real\n"
    source_map = SourceMap(body, [(1, "Setext title", "setext-title"), (3, "Real", "real")])
    assert source_map.anchors == [(6, "setext-title"), (12, "real")]


# -- the worker thread ------------------------------------------------------------


def test_big_body_renders_on_a_worker_while_the_gui_keeps_ticking(qtbot, pane, monkeypatch):
    threads = []
    real = preview.render_markdown
    rendering, gui_ticked = threading.Event(), threading.Event()

    def slow_render(text, **kwargs):
        threads.append(threading.current_thread())
        rendering.set()
        # The render finishes only once the GUI thread has handled a timer tick while it ran (had
        # it run on the GUI thread, no tick could come: it gives up waiting, and the test fails).
        gui_ticked.wait(30)
        return real(text, **kwargs)

    monkeypatch.setattr(preview, "render_markdown", slow_render)
    timer = QTimer()
    timer.timeout.connect(lambda: rendering.is_set() and gui_ticked.set())
    timer.start(10)
    try:
        with qtbot.waitSignal(pane.rendered, timeout=10000):
            show_now(pane, big_body("worker"))
    finally:
        timer.stop()
    assert threads and threads[0] is not threading.main_thread()
    assert gui_ticked.is_set()   # the GUI kept ticking while the body rendered
    assert "Big worker" in pane.toPlainText()


def test_newest_text_wins_when_renders_overlap(qtbot, pane, monkeypatch):
    real = preview.render_markdown
    old_started, new_shown = threading.Event(), threading.Event()

    def render(text, **kwargs):
        if "Big old" in text:
            old_started.set()
            new_shown.wait(30)  # the older render finishes last: once the newer one is shown
        return real(text, **kwargs)

    monkeypatch.setattr(preview, "render_markdown", render)
    assert preview.RENDER_THREADS >= 2   # the two renders run side by side
    try:
        renders = []
        pane.rendered.connect(lambda: renders.append(pane.toPlainText()))
        start_render(pane, big_body("old"))
        qtbot.waitUntil(old_started.is_set, timeout=10000)   # the old render is under way
        with qtbot.waitSignal(pane.rendered, timeout=10000):
            show_now(pane, big_body("new"))
        # The old render's result reaches the pane after the new one is shown, and is ignored.
        with qtbot.waitSignal(pane._sink.finished, timeout=10000) as late:
            new_shown.set()
        assert "Big old" in late.args[2]
    finally:
        new_shown.set()
    assert len(renders) == 1
    assert "Big new" in pane.toPlainText() and "Big old" not in pane.toPlainText()


# -- images -----------------------------------------------------------------------


def test_an_image_from_the_skill_is_shown(pane):
    show_now(pane, "![flow](images/flow.png)\n\n![again](./images/flow.png)\n")
    image = pane.document().resource(IMAGE, QUrl("images/flow.png"))
    assert isinstance(image, QImage) and image.size().width() == 24
    assert not pane.loadResource(IMAGE, QUrl("./images/flow.png")).isNull()
    _, images = document_links_and_images(pane.document())
    assert images == ["images/flow.png", "./images/flow.png"]
    assert pane.blocked_resources == []


def test_replaced_image_bytes_show_after_the_next_render(qtbot, pane):
    show_now(pane, "![flow](images/flow.png)\n")
    pane.set_skill_files({**FILES, "images/flow.png": png_bytes(40, 10, "#c62828")})
    with qtbot.waitSignal(pane.rendered, timeout=5000):
        pass
    assert pane.document().resource(IMAGE, QUrl("images/flow.png")).width() == 40
    renders = []
    pane.rendered.connect(lambda: renders.append(1))
    pane.set_skill_files({**FILES, "images/flow.png": png_bytes(40, 10, "#c62828")})
    # The same files again: no render is scheduled, so none can come later.
    qtbot.waitUntil(lambda: not pane._debounce.isActive(), timeout=5000)
    QApplication.processEvents()
    assert renders == []  # nothing to redo


def _data_url():
    return "data:image/png;base64," + base64.b64encode(png_bytes()).decode()


@pytest.mark.parametrize("url", [
    "https://example.com/a.png", "http://example.com/a.png", "ftp://example.com/a.png",
    "//example.com/a.png", "file:///etc/passwd", "../outside.png", "/abs.png",
    "images/../../outside.png", "%2e%2e/outside.png", "scripts\\run.png", "missing.png", "DATA",
])
def test_foreign_images_are_never_loaded(pane, url):
    url = _data_url() if url == "DATA" else url
    result = pane.loadResource(IMAGE, QUrl(url))
    assert isinstance(result, QImage) and result.isNull()
    assert pane.blocked_resources[-1] == QUrl(url).toString()


def test_raw_html_that_skips_the_sanitiser_still_loads_nothing(pane, tmp_path, monkeypatch):
    """Qt reads local files and data: URLs itself when loadResource returns None: it must not."""
    (tmp_path / "outside.png").write_bytes(png_bytes())
    (tmp_path / "evil.css").write_text("p { color: red; }")
    monkeypatch.chdir(tmp_path)
    local = QUrl.fromLocalFile(str(tmp_path / "outside.png")).toString()
    pane.setHtml(f'<html><head><link rel="stylesheet" href="evil.css"></head><body>'
                 f'<img src="{local}"><img src="outside.png"><img src="{_data_url()}">'
                 f'<p style="background-image: url(outside.png)">x</p></body></html>')
    pane.document().size()  # lay out, which loads the images
    for url in (local, "outside.png", _data_url()):
        loaded = pane.document().resource(IMAGE, QUrl(url))
        assert not isinstance(loaded, QImage) or loaded.isNull(), url
    assert not pane.document().resource(QTextDocument.ResourceType.StyleSheetResource.value,
                                        QUrl("evil.css"))
    assert local in pane.blocked_resources and "outside.png" in pane.blocked_resources


def test_remote_images_show_a_placeholder_and_open_no_network(pane):
    show_now(pane, "![diagram](https://example.com/a.png)\n\n![up](../outside.png)\n")
    text = pane.toPlainText()
    assert "remote images are not loaded" in text and "not a file of this skill" in text
    _, images = document_links_and_images(pane.document())
    assert images == [] and pane.blocked_resources == []
    classes = {o.metaObject().className() for o in QApplication.instance().findChildren(QObject)}
    classes |= {o.metaObject().className() for o in pane.findChildren(QObject)}
    assert "QNetworkAccessManager" not in classes


HOSTILE = """# Hostile

<script>alert("x")</script>
<img src="http://evil.example/x.png" onerror="alert(1)">
[click me](javascript:alert(1))
<a href="javascript:alert(2)">raw link</a>
<iframe src="https://evil.example"></iframe>
<object data="file:///etc/passwd"></object>
<style>p { background: url(http://evil.example/bg.png) }</style>
<span style="background:url(http://evil.example/s.png)">styled</span>

![remote](http://evil.example/y.png "t")
[file](file:///etc/passwd) [data](data:text/html,hi) [net](//evil.example/z)
"""


def test_hostile_markdown_renders_inert(pane):
    show_now(pane, HOSTILE)
    links, images = document_links_and_images(pane.document())
    assert links == [] and images == []
    assert pane.blocked_resources == []  # nothing was even requested
    # Raw HTML shows as text (escaped); no real element of the document carries any of it.
    tags = re.findall(r"<[^>]*>", pane.document().toHtml())
    assert tags and all(re.match(r"</?(!DOCTYPE|html|head|meta|style|body|p|span|h1|a|br)\b", t)
                        for t in tags), tags
    for t in tags:
        for live in ("url(", "javascript", "evil.example", "onerror", "passwd", "href", "src"):
            assert live not in t, t
    text = pane.toPlainText()
    assert '<script>alert("x")</script>' in text  # visibly inert
    assert "click me" in text  # the text stays, the link goes


# -- links ------------------------------------------------------------------------


@pytest.fixture
def linked(pane):
    opened = []
    pane.confirm_link = lambda url: True  # the dialog itself: tests/reliability/test_preview_safety.py
    pane.open_external = lambda url: opened.append(url)
    body = ("Read [the website](https://example.com/docs) or [the guide](./references/guide.md#setup),"
            " or [jump down](#section-20).\n\n" + long_body(25))
    show_now(pane, body)
    return pane, opened


def test_clicking_a_web_link_opens_it_once(qtbot, linked):
    pane, opened = linked
    click_text(qtbot, pane, "website")
    assert opened == [QUrl("https://example.com/docs")]


def test_clicking_a_skill_file_link_asks_to_open_it(qtbot, linked):
    pane, opened = linked
    with qtbot.waitSignal(pane.openFileRequested, timeout=5000) as blocker:
        click_text(qtbot, pane, "guide")
    assert blocker.args == ["references/guide.md"] and opened == []


def test_clicking_an_anchor_link_scrolls_to_it(qtbot, linked):
    pane, opened = linked
    pane.moveCursor(pane.textCursor().MoveOperation.Start)
    pane.verticalScrollBar().setValue(0)
    click_text(qtbot, pane, "jump down")
    assert pane.verticalScrollBar().value() > 0
    assert abs(pane.verticalScrollBar().value() - anchor_y(pane, "section-20")) < 40
    assert opened == []


@pytest.mark.parametrize("url", ["javascript:alert(1)", "file:///etc/passwd", "data:text/html,hi",
                                 "//evil.example/x", "../outside.md", "/etc/passwd",
                                 "references/missing.md", "vbscript:x"])
def test_other_links_are_refused_with_a_message(qtbot, linked, url):
    pane, opened = linked
    files = []
    pane.openFileRequested.connect(files.append)
    top = pane.verticalScrollBar().value()
    with qtbot.waitSignal(pane.linkRefused, timeout=5000) as blocker:
        pane.anchorClicked.emit(QUrl(url))
    assert "Not opened" in blocker.args[0]
    assert opened == [] and files == [] and pane.verticalScrollBar().value() == top


def test_hovering_a_link_shows_its_target(qtbot, linked):
    pane, _ = linked
    cursor = pane.document().find("website")
    rect = pane.cursorRect(cursor)
    with qtbot.waitSignal(pane.linkHovered, timeout=5000) as blocker:
        qtbot.mouseMove(pane.viewport(), QPoint(rect.left() - 15, rect.center().y()))
    assert blocker.args == ["https://example.com/docs"]
    assert pane.toolTip() == "https://example.com/docs"


def test_skill_path_normalises_and_refuses():
    files = {"references/guide.md", "images/flow.png"}
    assert skill_path(QUrl("./references/guide.md#setup"), files) == "references/guide.md"
    assert skill_path(QUrl("images/flow%2Epng?v=2"), files) == "images/flow.png"
    for bad in ("references/../references/guide.md", "https://x/references/guide.md",
                "file:references/guide.md", "/references/guide.md", "//h/references/guide.md"):
        assert skill_path(QUrl(bad), files) is None, bad


# -- theme ------------------------------------------------------------------------


def _first_code_colour(pane):
    block = pane.document().find("def").block()
    it = block.begin()
    return it.fragment().charFormat().foreground().color().name()


def test_dark_mode_changes_stylesheet_and_code_colours(qtbot, pane):
    show_now(pane, "```python\ndef f():\n    pass\n```\n")
    light = _first_code_colour(pane)
    with qtbot.waitSignal(pane.rendered, timeout=5000):
        pane.set_dark(True)
    assert pane.document().defaultStyleSheet() == stylesheet(True)
    assert _first_code_colour(pane) != light
    assert "def f():" in pane.toPlainText()


def test_pane_follows_the_application_theme(qtbot, pane):
    app = QApplication.instance()
    try:
        theme.apply_theme(app, theme.DARK)
        qtbot.waitUntil(lambda: pane.dark, timeout=5000)
        assert pane.document().defaultStyleSheet() == stylesheet(True)
    finally:
        theme.apply_theme(app, theme.LIGHT)
    qtbot.waitUntil(lambda: not pane.dark, timeout=5000)


# -- screenshots ------------------------------------------------------------------

SKILL_BODY = """# Release notes writer

Turn merged pull requests into release notes people actually read.
Full guide: [references/guide.md](references/guide.md) · upstream: [keepachangelog.com](https://keepachangelog.com)

## When to use

- Before tagging a release, on the `main` branch
- When a changelog entry is *missing* or **unclear**
- Not for hotfixes: use the `hotfix` skill instead

## Inputs

| Input | Where from | Required |
|---|---|---|
| Merged PRs | `gh pr list --state merged` | yes |
| Last tag | `git describe --tags` | yes |
| Audience | the user | no |

## Steps

1. Collect the merged pull requests since the last tag.
2. Group them with the script below.
3. Write one line per change, newest first.

```python
def group(prs: list[dict]) -> dict[str, list[str]]:
    \"\"\"Group pull request titles by their label.\"\"\"
    out: dict[str, list[str]] = {}
    for pr in prs:
        out.setdefault(pr.get("label", "other"), []).append(pr["title"])
    return out  # e.g. {"fix": [...], "feature": [...]}
```

## Flow

![Release flow](images/flow.png)

![Remote badge](https://img.shields.io/badge/release-notes-blue)

> Keep it short: readers skim.
"""


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_screenshot(qtbot, dark):
    app = QApplication.instance()
    if dark:
        theme.apply_theme(app, theme.DARK)
    try:
        pane = PreviewPane()
        qtbot.addWidget(pane)
        pane.resize(700, 700)
        pane.set_skill_files({**FILES, "images/flow.png": _flow_png(dark)})
        pane.set_dark(dark)
        pane.show()
        qtbot.waitExposed(pane)
        show_now(pane, SKILL_BODY)
        assert "Release notes writer" in pane.toPlainText()
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        name = "designer-preview-dark.png" if dark else "designer-preview-light.png"
        assert pane.grab().save(str(SCREENSHOTS / name))
    finally:
        if dark:
            theme.apply_theme(app, theme.LIGHT)


def _flow_png(dark):
    """A small flow diagram: three boxes joined by arrows."""
    from PySide6.QtGui import QPainter, QPen

    image = QImage(360, 70, QImage.Format.Format_ARGB32)
    image.fill(QColor("#272b33" if dark else "#ffffff"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    ink = QColor("#7aa2ff" if dark else "#3056d3")
    painter.setPen(QPen(ink, 2))
    for i, label in enumerate(("Collect", "Group", "Write")):
        x = 10 + i * 120
        painter.drawRoundedRect(x, 15, 90, 40, 6, 6)
        painter.drawText(x, 15, 90, 40, Qt.AlignmentFlag.AlignCenter, label)
        if i < 2:
            painter.drawLine(x + 92, 35, x + 118, 35)
            painter.drawLine(x + 112, 30, x + 118, 35)
            painter.drawLine(x + 112, 40, x + 118, 35)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return bytes(data)
