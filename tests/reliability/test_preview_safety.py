"""Preview safety: hostile Markdown and HTML render inert in the real preview, and nothing outside
the skill's own files is ever requested or shown (links: test_preview_links.py)."""

from __future__ import annotations

import base64
import gzip
import posixpath
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest
from conftest import SCREENSHOTS, png_bytes
from desktop_links import opened  # noqa: F401 - a fixture
from preview_wait import rendering
from PySide6.QtCore import QUrl
from PySide6.QtGui import QColor, QImage

from skill_studio.core.render.html import render_markdown
from skill_studio.core.render.sanitize import sanitize_html
from skill_studio.core.render.svg import svg_is_self_contained
from skill_studio.ui.designer.preview import PreviewPane, skill_path

SPY_COLOUR = "#e0119d"    # an image outside the skill: must never reach the screen
OWN_COLOUR = "#12b886"    # the skill's own image: must be shown
SVG_COLOUR = "#1c7ed6"    # the skill's own self-contained SVG: must be shown


def png(colour: str) -> bytes:
    return png_bytes(colour=colour)


def svg(inner: str) -> bytes:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
            f'width="30" height="20">{inner}</svg>').encode()


# {SPY}: absolute path of an image outside the skill; spy.png and ../spy.png exist relative to the
# working directory too. {SPY_URL}: its file: URL. {SPY_B64}: its bytes, base64.
SAMPLES = [
    ("script", "<script>document.title = 'owned'</script>"),
    ("img-onerror", '<img src="spy.png" onerror="alert(1)">'),
    ("a-javascript", '<a href="javascript:alert(1)">click</a>'),
    ("md-javascript", "[click](javascript:alert(1))"),
    ("md-javascript-case", "[click](JaVaScRiPt:alert(1))"),
    ("entity-javascript", '<a href="&#106;&#97;vascript:alert(1)">x</a>'),
    ("md-entity-javascript", "[x](&#x6A;avascript:alert(1))"),
    ("tab-in-scheme", '<a href="java&#x09;script:alert(1)">x</a>'),
    ("newline-in-scheme", '<a href="jav&#x0A;ascript:alert(1)">x</a>'),
    ("control-in-scheme", '<a href=" \x01java\x0bscript:alert(1)">x</a>'),
    ("md-data-link", "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)"),
    ("data-link", '<a href="data:text/html,<script>alert(1)</script>">x</a>'),
    ("md-data-image", "![x](data:image/png;base64,{SPY_B64})"),
    ("data-image", '<img src="data:image/png;base64,{SPY_B64}">'),
    ("vbscript", "[x](vbscript:msgbox(1))"),
    ("md-file-link", "[passwd](file:///etc/passwd)"),
    ("md-file-image", "![x]({SPY_URL})"),
    ("file-image", '<img src="{SPY_URL}">'),
    ("md-absolute-image", "![x]({SPY})"),
    ("absolute-image", '<img src="{SPY}">'),
    ("iframe", '<iframe src="https://evil.invalid/"></iframe><iframe srcdoc="<img src={SPY}>"></iframe>'),
    ("form", '<form action="https://evil.invalid/"><input name="q" value="x">'
             '<input type="image" src="{SPY}"><button formaction="javascript:alert(1)">go</button></form>'),
    ("object-embed", '<object data="{SPY}"></object><embed src="{SPY}">'),
    ("object-remote", '<object data="https://evil.invalid/x.swf" type="application/x-shockwave-flash"></object>'),
    ("svg-onload", '<svg onload="alert(1)"><image href="{SPY}"/></svg>'),
    ("style-element", "<style>p {{ background: url({SPY_URL}) }}</style><p>styled</p>"),
    ("style-attribute", '<p style="background:url({SPY_URL})">x</p>'
                        '<span style="background-image: url(\'{SPY}\')">y</span>'),
    ("style-escaped-url", '<span style="background: u\\72l({SPY})">x</span>'),
    ("link-stylesheet", '<link rel="stylesheet" href="{SPY_URL}"><p>after</p>'),
    ("meta-refresh", '<meta http-equiv="refresh" content="0;url=https://evil.invalid/">'),
    ("base-href", '<base href="https://evil.invalid/"><img src="images/own.png">'),
    ("remote-image", '<img src="https://evil.invalid/pixel.png">'),
    ("md-remote-image", "![](http://evil.invalid/p.png)\n\n![t](https://evil.invalid/p.png \"tracking\")"),
    ("md-reference-image", "![logo][r]\n\n[r]: https://evil.invalid/logo.png"),
    ("md-protocol-relative", "![x](//evil.invalid/p.png) [y](//evil.invalid/)"),
    ("unc-image", '<img src="\\\\evil.invalid\\share\\p.png">'),
    ("md-ftp-image", "![x](ftp://evil.invalid/p.png)"),
    ("md-path-escape", "![a](../spy.png) ![b](images/../../spy.png) ![c](%2e%2e/spy.png) ![d](spy.png)"),
    ("path-escape", '<img src="images/%2e%2e/%2e%2e/spy.png"><img src="./../spy.png">'),
    ("srcset", '<img srcset="https://evil.invalid/a.png 1x, {SPY} 2x" src="images/own.png">'),
    ("video-audio", '<video src="{SPY_URL}" poster="{SPY}"></video><audio src="https://evil.invalid/a.mp3"></audio>'),
    ("comment-hides-tags", '<!-- --><img src="{SPY}"><!--<script>-->'),
    ("comment-trick", '<!--<img src="x">--><img src="{SPY}"><!-- <a href="javascript:1"> -->'),
    ("unclosed-attribute", '<img src="{SPY}" alt="x'),
    ("unclosed-tag", '<a href="javascript:alert(1)"'),
    ("nested-script", "<scr<script>ipt>alert(1)</script>"),
    ("malformed-nesting", '<<img src="{SPY}">><div><a href="javascript:x"><img src="{SPY}"></div></a>'),
    ("table-background", '<table background="{SPY}"><tr><td background="{SPY}">x</td></tr></table>'),
    ("body-background", '<body background="{SPY}" onload="alert(1)">x</body>'),
    ("md-title-injection", '[x](https://ok.invalid "t\\" onmouseover=\\"alert(1)")'),
    ("md-title-markup", '[x](https://ok.invalid "<img src=\'{SPY}\'>") ![own](images/own.png "<b>{SPY}</b>")'),
    ("title-markup", '<a href="https://ok.invalid" title="<img src={SPY}>">x</a>'
                     '<img src="images/own.png" title="<img src={SPY}>">'),
    ("md-autolinks", "<javascript:alert(1)> <mailto:someone@evil.invalid> <https://ok.invalid/>"),
    ("md-image-attribute-injection", '![x](images/own.png" onerror="alert(1))'),
    ("web-link-without-host", '<a href="https:evil.invalid">x</a><a href="http:///x">y</a>'),
    ("math-link", '<math><maction actiontype="statusline" xlink:href="javascript:alert(1)">x</maction></math>'),
    ("huge-own-image", '<img src="images/own.png" width="100000" height="100000">'),
    ("entity-absolute-path", '<img src="&#x2F;{SPY_NO_SLASH}">'),
    ("unknown-element", '<x-widget href="javascript:x" src="{SPY}">x</x-widget>'),
    ("noscript-template-textarea", '<noscript><img src="{SPY}"></noscript><template><img src="{SPY}"></template>'
                                   '<textarea><img src="{SPY}"></textarea>'),
    ("linked-remote-image", '<a href="https://ok.invalid/"><img src="https://evil.invalid/x.png"></a>'),
    ("own-image-with-query", '<img src="images/own.png?v=1#top"> ![own](./images/own.png)'),
    ("list-fence-markup", '1. Run:\n   ```html\n   <script>alert(1)</script><img src="{SPY}">\n   ```\n'
                          '2. Then:\n\n    ~~~\n    <a href="javascript:x"><img src="{SPY_URL}"></a>\n    ~~~\n'),
    ("quote-fence-markup", '> Run:\n> ```\n> <img src="{SPY}" onerror="alert(1)"><iframe src="{SPY_URL}">\n> ```\n'),
    ("fence-attributes", '- x\n\n    ```{{.python #i onclick="alert(1)" style="background:url({SPY_URL})"}}\n'
                         '    x = 1\n    ```\n'),
]
ALLOWED_TAGS = set("p br hr h1 h2 h3 h4 h5 h6 strong b em i code pre span div blockquote ul ol li "
                   "table thead tbody tr th td a img del sup sub dl dt dd".split())
# No "title": Qt would show it as a tooltip that reads HTML.
ALLOWED_ATTRIBUTES = {"href", "src", "alt", "style", "class", "id", "align", "start"}


@pytest.fixture(scope="module")
def outside(tmp_path_factory) -> dict[str, str]:
    """The spy image at several places outside the skill; the working directory is tmp/skill."""
    root = tmp_path_factory.mktemp("outside")
    (root / "skill").mkdir()
    data = png(SPY_COLOUR)
    for path in (root / "spy.png", root / "skill" / "spy.png"):
        path.write_bytes(data)
    spy = str(root / "spy.png")
    return {"root": str(root), "SPY": spy, "SPY_URL": QUrl.fromLocalFile(spy).toString(),
            "SPY_B64": base64.b64encode(data).decode(), "SPY_NO_SLASH": spy.lstrip("/")}


@pytest.fixture
def skill_files(outside) -> dict[str, bytes]:
    return {
        "SKILL.md": b"---\nname: x\n---\n",
        "images/own.png": png(OWN_COLOUR),
        "images/diagram.svg": svg(f'<rect width="30" height="20" fill="{SVG_COLOUR}"/>'),
        "images/trojan.svg": svg(f'<image width="30" height="20" href="{outside["SPY"]}"/>'
                                 '<image x="0" width="30" height="20" xlink:href="spy.png"/>'),
        "references/guide.md": b"# Guide\n",
    }


def fill(sample: str, outside: dict[str, str]) -> str:
    for key in ("SPY_NO_SLASH", "SPY_URL", "SPY_B64", "SPY"):
        sample = sample.replace("{" + key + "}", outside[key])
    return sample.replace("{{", "{").replace("}}", "}")


# -- the sanitised HTML, without Qt ------------------------------------------------------------


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, {k: v or "" for k, v in attrs}))

    handle_startendtag = handle_starttag

    def handle_comment(self, data):
        self.found.append(("!comment", {}))

    def handle_decl(self, decl):
        self.found.append(("!decl", {}))


def _compact(url: str) -> str:
    return re.sub(r"[\x00-\x20\x7f-\x9f]", "", url)


def _names_skill_file(src: str, files) -> bool:
    path = unquote(re.split(r"[?#]", _compact(src), maxsplit=1)[0])
    if not path or path.startswith(("/", "\\")) or ":" in path or ".." in path.split("/"):
        return False
    return posixpath.normpath(path) in files


def assert_inert(markup: str, files) -> None:
    parser = _Elements()
    parser.feed(markup)
    parser.close()
    for tag, attrs in parser.found:
        assert tag in ALLOWED_TAGS, f"<{tag}> survived"
        for name, value in attrs.items():
            assert name in ALLOWED_ATTRIBUTES, f"{name}= on <{tag}> survived"
            if name == "style":
                lowered = _compact(value).lower()
                assert not any(bad in lowered for bad in ("url(", "expression", "@import", "\\")), value
        if tag == "a" and "href" in attrs:
            href = _compact(attrs["href"])
            assert (href.startswith("#") or re.match(r"(?i)https?://[^/\\]", href)
                    or (not re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", href) and not href.startswith(("//", "\\")))), href
        if tag == "img":
            assert _names_skill_file(attrs.get("src", ""), files), attrs


@pytest.mark.parametrize(("name", "sample"), SAMPLES, ids=[n for n, _ in SAMPLES])
def test_sanitised_html_keeps_nothing_that_runs_or_fetches(name, sample, outside, skill_files):
    text = fill(sample, outside)
    rendered = render_markdown(text, base_files=skill_files)
    assert_inert(rendered.html, skill_files)
    assert set(rendered.images) <= set(skill_files)
    as_html, links, images = sanitize_html(text, base_files=skill_files)
    assert_inert(as_html, skill_files)
    assert set(images) <= set(skill_files)
    for link in [*rendered.links, *links]:
        assert not re.match(r"(?i)(javascript|vbscript|data|file|mailto|ftp):", _compact(link)), link


SVG_CASES = [
    ("shapes", '<rect width="30" height="20" fill="#123456"/>', True),
    ("own-gradient", '<defs><linearGradient id="g"/></defs><rect fill="url(#g)" width="3" height="3"/>'
                     '<use xlink:href="#g"/>', True),
    ("image-absolute", '<image href="/etc/hosts"/>', False),
    ("image-relative", '<image xlink:href="spy.png"/>', False),
    ("image-data", '<image href="data:image/png;base64,AAAA"/>', False),
    ("fe-image", '<filter id="f"><feImage href="spy.png"/></filter>', False),
    ("use-other-file", '<use href="other.svg#part"/>', False),
    ("css-url", "<style>rect {{ fill: url(https://evil.invalid/x) }}</style>", False),
    ("css-url-entity", '<rect style="fill: url&#40;spy.png)"/>', False),
    ("css-import", '<style>@import "x.css";</style>', False),
    ("script", "<script>alert(1)</script>", False),
    ("foreign-object", "<foreignObject><p>x</p></foreignObject>", False),
]


@pytest.mark.parametrize(("name", "inner", "inert"), SVG_CASES, ids=[c[0] for c in SVG_CASES])
def test_svg_self_containment(name, inner, inert):
    data = svg(inner.replace("{{", "{").replace("}}", "}"))
    assert svg_is_self_contained(data) is inert
    assert svg_is_self_contained(gzip.compress(data)) is inert


def test_svg_with_a_document_type_or_a_compressed_bomb_is_refused():
    assert not svg_is_self_contained(b'<!DOCTYPE svg [<!ENTITY e SYSTEM "file:///etc/hosts">]>'
                                     b'<svg xmlns="http://www.w3.org/2000/svg">&e;</svg>')
    assert not svg_is_self_contained(gzip.compress(b"<svg>" + b" " * 20_000_000 + b"</svg>"))
    assert not svg_is_self_contained(svg("").decode().encode("utf-16"))


# -- the real preview widget -------------------------------------------------------------------


class RecordingPane(PreviewPane):
    """The preview, noting every resource the document asks it for."""

    def __init__(self) -> None:
        self.requested: list[str] = []
        super().__init__()

    def loadResource(self, type_, url):  # noqa: N802 (Qt override)
        self.requested.append(url.toString())
        return super().loadResource(type_, url)


@pytest.fixture
def pane(qtbot, outside, skill_files, monkeypatch, opened):  # noqa: F811 - the fixture imported above
    monkeypatch.chdir(Path(outside["root"]) / "skill")
    widget = RecordingPane()
    qtbot.addWidget(widget)
    widget.resize(640, 420)
    widget.set_skill_files(skill_files)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def colours_on_screen(widget, *colours: str) -> set[str]:
    """Which of *colours* the widget shows, read from its pixels."""
    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    data = bytes(image.constBits())
    found = set()
    for colour in colours:
        c = QColor(colour)
        pattern = bytes((c.blue(), c.green(), c.red(), 0xFF))
        at = data.find(pattern)
        while at >= 0 and at % 4:
            at = data.find(pattern, at + 1)
        if at >= 0:
            found.add(colour)
    return found


def show(pane: RecordingPane, *, markdown: str | None = None, html: str | None = None) -> None:
    pane.requested.clear()
    if markdown is not None:
        pane.set_markdown(markdown)
        with rendering(pane):   # on a worker thread
            pane.render_now()
    else:
        pane.setHtml(html)
    pane.document().size()   # lay out: images are asked for now, and when painted
    pane.grab()


@pytest.mark.parametrize(("name", "sample"), SAMPLES, ids=[n for n, _ in SAMPLES])
def test_the_preview_asks_only_for_the_skills_own_files(name, sample, pane, outside, skill_files, opened):  # noqa: F811 - the fixture imported above
    text = fill(sample, outside)
    for kind, shown in (("markdown", {"markdown": text}),
                        ("sanitised html", {"html": sanitize_html(text, base_files=skill_files)[0]})):
        show(pane, **shown)
        outside_requests = [u for u in pane.requested if skill_path(QUrl(u), skill_files) is None]
        assert outside_requests == [], f"{kind}: asked for {outside_requests}"
        assert SPY_COLOUR not in colours_on_screen(pane, SPY_COLOUR), kind
    # Even raw markup that never met the sanitiser loads nothing from outside: the pane refuses it.
    show(pane, html=text)
    refused = [u for u in pane.requested if skill_path(QUrl(u), skill_files) is None]
    assert all(u in pane.blocked_resources for u in refused), refused
    assert SPY_COLOUR not in colours_on_screen(pane, SPY_COLOUR)
    assert opened == []


def test_the_skills_own_image_is_requested_and_shown(pane, outside, opened):  # noqa: F811 - the fixture imported above
    show(pane, markdown=fill("Own: ![own](images/own.png)\n\nOutside: ![spy]({SPY}) ![spy](spy.png)\n", outside))
    assert "images/own.png" in pane.requested
    assert colours_on_screen(pane, OWN_COLOUR, SPY_COLOUR) == {OWN_COLOUR}
    # The same outside image through raw markup is asked for, refused, and not shown.
    show(pane, html=fill('<img src="images/own.png"><img src="{SPY}"><img src="spy.png">', outside))
    assert outside["SPY"] in pane.requested and outside["SPY"] in pane.blocked_resources
    assert colours_on_screen(pane, OWN_COLOUR, SPY_COLOUR) == {OWN_COLOUR}


def test_a_skill_svg_that_refers_outside_itself_is_not_drawn(pane):
    show(pane, markdown="![diagram](images/diagram.svg) ![trojan](images/trojan.svg)\n")
    assert {"images/diagram.svg", "images/trojan.svg"} <= set(pane.requested)
    assert colours_on_screen(pane, SVG_COLOUR, SPY_COLOUR) == {SVG_COLOUR}


def test_screenshot_of_a_hostile_body(pane, outside):
    parts = ["# Hostile sample", *(fill(s, outside) for _, s in SAMPLES[:8]),
             "![own](images/own.png) ![diagram](images/diagram.svg) ![trojan](images/trojan.svg)",
             fill("![remote](https://evil.invalid/p.png) ![spy]({SPY})", outside),
             "[a web link](https://example.com/docs)"]
    body = "\n\n".join(parts) + "\n"
    show(pane, markdown=body)
    SCREENSHOTS.mkdir(exist_ok=True)
    assert pane.grab().save(str(SCREENSHOTS / "preview-hostile-sample.png"))
    assert colours_on_screen(pane, OWN_COLOUR, SPY_COLOUR) == {OWN_COLOUR}
