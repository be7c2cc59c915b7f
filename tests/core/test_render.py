"""Tests for the Markdown preview renderer and its sanitising layers."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from skill_studio.core.render.html import (
    DEFAULT_STYLESHEET,
    RenderResult,
    render_markdown,
    stylesheet,
)
from skill_studio.core.render.limits import LAYOUT_BUDGET
from skill_studio.core.render.sanitize import sanitize_html

FORBIDDEN_TAGS = {
    "script", "style", "iframe", "frame", "object", "embed", "form", "input", "link", "meta",
    "base", "svg", "math", "textarea", "button", "select", "applet", "template", "html", "body",
}
BAD_SCHEMES = ("javascript:", "vbscript:", "data:")


class _Collector(HTMLParser):
    """Parse rendered output into its elements and visible text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)

    def handle_comment(self, data):
        self.elements.append(("!comment", {}))

    def handle_decl(self, decl):
        self.elements.append(("!decl", {}))

    def unknown_decl(self, data):
        self.elements.append(("!decl", {}))

    def handle_pi(self, data):
        self.elements.append(("!pi", {}))


def parse(fragment: str) -> _Collector:
    collector = _Collector()
    collector.feed(fragment)
    collector.close()
    return collector


def visible_text(fragment: str) -> str:
    return "".join(parse(fragment).text)


def _compact(value: str) -> str:
    return re.sub(r"[\x00-\x20\x7f-\x9f]", "", value).lower()


def assert_safe(fragment: str) -> None:
    """Fail unless *fragment* is free of active content, judged by parsing it."""
    for tag, attrs in parse(fragment).elements:
        assert tag not in FORBIDDEN_TAGS, f"forbidden element <{tag}>"
        assert not tag.startswith("!"), f"markup declaration {tag} survived"
        for name, value in attrs.items():
            assert not name.startswith("on"), f"event handler {name} on <{tag}>"
            value = value or ""
            if name in ("href", "src", "action", "formaction", "background", "xlink:href"):
                assert not _compact(value).startswith(BAD_SCHEMES), f"unsafe URL {value!r}"
            if name == "style":
                lowered = _compact(value)
                for needle in ("url(", "expression", "javascript", "@import", "\\"):
                    assert needle not in lowered, f"unsafe style {value!r}"
        if tag == "img":
            src = _compact(attrs.get("src") or "")
            assert not re.match(r"^[a-z][a-z0-9+.-]*:", src), f"image with a scheme: {src!r}"
            assert not src.startswith(("//", "\\")), f"network image: {src!r}"
        if tag == "a" and "href" in attrs:
            href = _compact(attrs["href"] or "")
            scheme = re.match(r"^([a-z][a-z0-9+.-]*):", href)
            assert scheme is None or scheme.group(1) in ("http", "https"), href


# --------------------------------------------------------------------------- #
# Ordinary rendering
# --------------------------------------------------------------------------- #


def test_result_shape():
    result = render_markdown("Hello *world*")
    assert isinstance(result, RenderResult)
    assert "<em>world</em>" in result.html
    assert "<html" not in result.html and "<body" not in result.html


def test_headings_get_ids_and_are_listed():
    result = render_markdown("# Deploy Guide\n\ntext\n\n## Step one\n\n### Details & notes\n\n## Step one\n")
    assert result.headings[0] == (1, "Deploy Guide", "deploy-guide")
    assert result.headings[1] == (2, "Step one", "step-one")
    assert result.headings[2][0] == 3 and result.headings[2][1] == "Details & notes"
    # Duplicate titles get distinct anchors.
    assert result.headings[3][1] == "Step one" and result.headings[3][2] != "step-one"
    ids = {attrs.get("id") for tag, attrs in parse(result.html).elements if tag in ("h1", "h2", "h3")}
    assert {h[2] for h in result.headings} <= ids


def test_heading_text_with_markup_is_plain():
    result = render_markdown("# Use `run.py` <b>now</b>\n")
    level, text, anchor = result.headings[0]
    assert level == 1
    assert text == "Use run.py <b>now</b>"
    assert re.fullmatch(r"[a-z0-9_-]+", anchor)


def test_tables_render_with_header_and_cells():
    body = "| Name | Value |\n|:-----|------:|\n| a | 1 |\n| b | 2 |\n"
    result = render_markdown(body)
    tags = [tag for tag, _ in parse(result.html).elements]
    assert "table" in tags
    assert tags.count("th") == 2
    assert tags.count("td") == 4
    cells = [attrs for tag, attrs in parse(result.html).elements if tag == "td"]
    assert any("text-align: right" in (a.get("style") or "") for a in cells)


def test_python_code_block_is_highlighted_with_inline_colours():
    body = '```python\ndef check(x):\n    return x < 3 and "<tag>"\n```\n'
    result = render_markdown(body)
    spans = [attrs for tag, attrs in parse(result.html).elements if tag == "span"]
    coloured = [a["style"] for a in spans if a.get("style") and "color:" in a["style"]]
    assert coloured, result.html
    assert any(re.search(r"color: #[0-9A-Fa-f]{3,6}", style) for style in coloured)
    assert not any("class" in a for a in spans)
    assert "&lt;" in result.html
    assert "<tag>" not in result.html
    assert '"<tag>"' in visible_text(result.html)
    assert "def check(x):" in visible_text(result.html)


def test_dark_palette_changes_code_colours():
    body = "```python\nimport os\n```\n"
    light = render_markdown(body).html
    dark = render_markdown(body, dark=True).html
    assert light != dark
    assert_safe(dark)


@pytest.mark.parametrize("fence", ["```nosuchlanguage", "```", "~~~"])
def test_unknown_or_missing_language_is_plain_escaped(fence):
    closing = fence[:3]
    body = f"{fence}\nif a < b && c > d: <script>x</script>\n{closing}\n"
    result = render_markdown(body)
    elements = parse(result.html).elements
    tags = [tag for tag, _ in elements]
    assert "pre" in tags and "code" in tags
    assert not any(tag == "span" and "style" in attrs for tag, attrs in elements)
    assert "if a < b && c > d: <script>x</script>" in visible_text(result.html)
    assert_safe(result.html)


def test_curly_attribute_fence_language():
    result = render_markdown("``` { .python }\nx = 1\n```\n")
    assert "<span style=" in result.html


def test_indented_code_block_is_escaped():
    result = render_markdown("Intro\n\n    <b>not bold</b>\n")
    assert "<b>not bold</b>" in visible_text(result.html)
    assert not any(tag == "b" for tag, _ in parse(result.html).elements)


def test_sane_lists_and_ordered_start():
    result = render_markdown("3. three\n4. four\n\n* bullet\n")
    elements = parse(result.html).elements
    ol = [attrs for tag, attrs in elements if tag == "ol"]
    assert ol and ol[0].get("start") == "3"
    assert any(tag == "ul" for tag, _ in elements)


def test_relative_links_and_images_of_the_skill_are_kept():
    body = (
        "See [the script](scripts/run.py), [reference](references/api.md#auth),"
        " [above](#usage) and [parent](../other/SKILL.md).\n\n"
        "![diagram](assets/diagram.png) ![dot](./assets/dot%20map.png)\n"
    )
    files = ["SKILL.md", "scripts/run.py", "assets/diagram.png", "assets/dot map.png"]
    result = render_markdown(body, base_files=files)
    hrefs = [attrs["href"] for tag, attrs in parse(result.html).elements if tag == "a"]
    assert hrefs == ["scripts/run.py", "references/api.md#auth", "#usage", "../other/SKILL.md"]
    assert result.links == hrefs
    srcs = [attrs["src"] for tag, attrs in parse(result.html).elements if tag == "img"]
    assert srcs == ["assets/diagram.png", "./assets/dot%20map.png"]
    assert result.images == ["assets/diagram.png", "assets/dot map.png"]
    assert_safe(result.html)


def test_image_not_in_skill_becomes_placeholder():
    result = render_markdown("![chart](assets/missing.png)\n", base_files=["SKILL.md"])
    assert not any(tag == "img" for tag, _ in parse(result.html).elements)
    assert "[image: chart" in visible_text(result.html)
    assert result.images == []


def test_relative_image_kept_without_file_list():
    result = render_markdown("![chart](assets/chart.png)\n")
    assert [a["src"] for t, a in parse(result.html).elements if t == "img"] == ["assets/chart.png"]


def test_web_links_are_kept_and_mail_links_become_text():
    body = "[site](https://example.com/docs) <https://example.org> [mail](mailto:team@example.com)\n"
    result = render_markdown(body)
    hrefs = [attrs["href"] for tag, attrs in parse(result.html).elements if tag == "a"]
    assert hrefs == ["https://example.com/docs", "https://example.org"]
    assert "mail" in visible_text(result.html)


def test_remote_image_is_replaced_by_placeholder_text():
    result = render_markdown("![logo](https://cdn.example.com/logo.png)\n")
    assert not any(tag == "img" for tag, _ in parse(result.html).elements)
    assert "[image: logo — remote images are not loaded]" in visible_text(result.html)
    assert result.images == []


def test_reference_definitions_do_not_leak_between_renders():
    first = render_markdown("[a][ref]\n\n[ref]: scripts/a.py\n")
    assert first.links == ["scripts/a.py"]
    second = render_markdown("[a][ref]\n")
    assert second.links == []
    assert "[a][ref]" in visible_text(second.html)


def test_repeated_renders_are_identical():
    body = "# T\n\n```python\nx = 1\n```\n\n| a |\n|---|\n| 1 |\n"
    assert render_markdown(body) == render_markdown(body)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("[a [b] c](x.md)", [("x.md", "a [b] c")]),
        ("[a](<docs/my file.md>)", [("docs/my file.md", "a")]),
        ('[a](x.md "the (title)")', [("x.md", "a")]),
        ("[a](https://example.com/a_(b)_c) tail", [("https://example.com/a_(b)_c", "a")]),
        ("[a](x.md) [b](y.md) [c][r]\n\n[r]: z.md", [("x.md", "a"), ("y.md", "b"), ("z.md", "c")]),
        ("[not a link] (x.md) and [open(x.md", []),
    ],
)
def test_link_forms(body, expected):
    result = render_markdown(body)
    found = []
    collector = parse(result.html)
    for tag, attrs in collector.elements:
        if tag == "a":
            found.append(attrs["href"])
    assert found == [href for href, _ in expected]
    text = visible_text(result.html)
    for _, label in expected:
        assert label in text


@pytest.mark.parametrize(
    "body",
    ["[" * 20000, "![" * 10000 + "x](y)", "[a](" * 5000, ("[a](x)" + "[" * 200) * 100],
    ids=["open-brackets", "open-images", "open-targets", "mixed"],
)
def test_bracket_runs_render(body):
    # Long runs of unmatched brackets are quadratic for a naive link scanner; these would take
    # minutes there.
    result = render_markdown(body)
    assert_safe(result.html)
    assert visible_text(result.html).count("[") >= 1


def test_raw_html_is_shown_as_text():
    result = render_markdown("Make it <b>bold</b> & <i>keep</i> going.\n\n<div>block</div>\n")
    tags = {tag for tag, _ in parse(result.html).elements}
    assert "b" not in tags and "i" not in tags
    text = visible_text(result.html)
    assert "<b>bold</b>" in text
    assert "<i>keep</i>" in text
    assert "<div>block</div>" in text


def test_large_document_renders():
    section = (
        "## Section {n}\n\n"
        "Some *text* with `code`, a [link](scripts/s{n}.py) and **bold**.\n\n"
        "- item one\n- item two\n  - nested\n\n"
        "| k | v |\n|---|---|\n| a | {n} |\n\n"
        "```python\nfor i in range({n}):\n    print(i < {n})\n```\n\n"
        "> a quote\n\n"
    )
    lines: list[str] = ["# Big skill", ""]
    n = 0
    while len(lines) < 7000:
        lines.extend(section.format(n=n).splitlines())
        n += 1
    body = "\n".join(lines)
    assert body.count("\n") >= 6999
    # More than the preview lays out quickly: the sections that fit are rendered, the rest is
    # shown as text after a notice.
    result = render_markdown(body)
    assert result.limit and 1 < len(result.headings) < n + 1
    shown = len(result.headings) - 1
    assert result.html.count("<table>") == shown
    assert "Too large to preview: shown as text" in result.html
    assert f"## Section {shown}" in result.html   # the first heading not rendered, as text
    assert result.cost <= LAYOUT_BUDGET
    assert_safe(result.html)
    # A body within the budget renders whole.
    whole = "\n".join(lines[:900])
    result = render_markdown(whole)
    assert result.limit is None and len(result.headings) == whole.count("## Section") + 1
    assert result.html.count("<table>") == whole.count("| k | v |")


def test_stylesheets():
    assert DEFAULT_STYLESHEET == stylesheet(False)
    for css in (stylesheet(False), stylesheet(True)):
        for selector in ("table", "th", "td", "pre", "h1"):
            assert re.search(rf"(^|[\s,]){selector}\b[^{{]*\{{", css), selector
        assert "border" in css and "padding" in css and "background-color" in css
    assert stylesheet(True) != stylesheet(False)


# --------------------------------------------------------------------------- #
# Hostile input
# --------------------------------------------------------------------------- #

HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[x](javascript:alert(1))",
    "[x](JaVaScRiPt:alert(1))",
    "[x](javascript&#58;alert(1))",
    "[x](&#x6A;avascript:alert(1))",
    "[x](java&#x09;script:alert(1))",
    "[x](  javascript:alert(1)  )",
    "[x](<javascript:alert(1)>)",
    "[x](javascript:alert(1) \"title\")",
    "[x](vbscript:msgbox(1))",
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "![a](http://evil/x.png)",
    "![a](https://evil/x.png \"tracking\")",
    "![a](//evil/x.png)",
    "![a](file:///etc/passwd)",
    "![a](\\\\server\\share\\x.png)",
    "![a](data:image/svg+xml;base64,PHN2Zy8+)",
    "![x](x.png\" onerror=\"alert(1))",
    "<iframe src=\"http://evil\"></iframe>",
    "<svg onload=alert(1)>",
    "<svg><script>alert(1)</script></svg>",
    "<math><mi xlink:href=\"javascript:alert(1)\">x</mi></math>",
    "<a href=\"data:text/html,<script>alert(1)</script>\">x</a>",
    "<style>@import url(http://e)</style>",
    "<div style=\"background:url(http://e)\">x</div>",
    "<div style=\"width: expression(alert(1))\">x</div>",
    "[x][r]\n\n[r]: javascript:alert(1)",
    "[x][r]\n\n[r]: JAVASCRIPT:alert(1) \"t\"",
    "![x][r]\n\n[r]: http://evil/x.png",
    "[r]\n\n[r]: data:text/html,hi",
    "<javascript:alert(1)>",
    "<vbscript:msgbox(1)>",
    "<a href=\"http://x\" onclick=\"alert(1)\">unclosed",
    "<img src=\"x\" alt=\"a\\\" onerror=\\\"alert(1)\">",
    "<img src='x' alt=\"it's\" onerror='alert(\"1\")'>",
    "x\x00<scr\x00ipt>alert(1)</script>\x00",
    "<scr<script>ipt>alert(1)</script>",
    "<object data=\"x.swf\"></object><embed src=\"x.swf\">",
    "<form action=\"http://e\"><input name=x><button formaction=javascript:alert(1)>go</button></form>",
    "<link rel=stylesheet href=http://e><meta http-equiv=refresh content=\"0;url=http://e\"><base href=\"http://e\">",
    "<!-- <script>alert(1)</script> -->",
    "<![CDATA[<script>alert(1)</script>]]>",
    "<?php echo 1 ?><!DOCTYPE html>",
    "[x](http://a \"t\\\" onmouseover=\\\"alert(1)\")",
    "[<img src=x onerror=alert(1)>](http://example.com)",
    "*<script>*alert(1)*</script>*",
    "<a href=\"jav&#x0A;ascript:alert(1)\">x</a>",
    "```html\n<script>alert(1)</script>\n```",
    "```{.python onclick=\"alert(1)\"}\nx = 1\n```",
    "```\"><script>alert(1)</script>\nx\n```",
    "\x02wzxhzdk:0\x03 ```python\nx\n```",
    "[TOC]\n\n# <img src=x onerror=alert(1)>\n\n## [x](javascript:alert(1))",
    "| <script>a</script> | b |\n|---|---|\n| <img src=x onerror=alert(1)> | [x](javascript:1) |",
    "> " * 400 + "<script>alert(1)</script>",
    "\n".join("    " * i + "- <b onclick=x>level</b>" for i in range(60)),
    "*" * 5000 + "<script>alert(1)</script>",
    "[" * 3000 + "x](javascript:alert(1))",
    "<" * 3000 + "script>alert(1)",
]


@pytest.mark.parametrize("body", HOSTILE, ids=[f"case{i:02d}" for i in range(len(HOSTILE))])
def test_hostile_input_is_neutralised(body):
    result = render_markdown(body)
    assert_safe(result.html)
    for link in result.links:
        assert not _compact(link).startswith(BAD_SCHEMES)
    for image in result.images:
        assert "://" not in image and not image.startswith("/")


@pytest.mark.parametrize("body", HOSTILE[:20], ids=[f"dark{i:02d}" for i in range(20)])
def test_hostile_input_dark_with_file_list(body):
    result = render_markdown(body, base_files=["SKILL.md", "x"], dark=True)
    assert_safe(result.html)


def test_hostile_script_shows_as_text():
    result = render_markdown("<script>alert(1)</script>")
    assert "<script>alert(1)</script>" in visible_text(result.html)


def test_code_block_markers_cannot_be_forged():
    body = "```python\nsecret = 1\n```\n\ntext \x020\x03 and \x02wzxhzdk:0\x03 end\n"
    result = render_markdown(body)
    assert visible_text(result.html).count("secret") == 1
    assert "\x02" not in result.html and "\x03" not in result.html


def test_code_block_cache_keeps_palettes_apart():
    body = "```python\nimport os\n```\n"
    first_light = render_markdown(body).html
    render_markdown(body, dark=True)
    assert render_markdown(body).html == first_light


def test_nul_bytes_are_removed():
    result = render_markdown("a\x00b")
    assert "\x00" not in result.html
    assert "ab" in visible_text(result.html)


# --------------------------------------------------------------------------- #
# Second line of defence: the allow-list sanitiser on its own
# --------------------------------------------------------------------------- #

RAW_HOSTILE = [
    "<script>alert(1)</script>after",
    "<style>p{color:red}</style>after",
    "<p onclick=\"alert(1)\" onmouseover=x>after</p>",
    "<a href=\"javascript:alert(1)\">after</a>",
    "<a href=\"&#106;avascript:alert(1)\">after</a>",
    "<a href=\" jav\tascript:alert(1)\">after</a>",
    "<a href=\"vbscript:x\">after</a>",
    "<a href=\"data:text/html,x\">after</a>",
    "<a href=\"//evil.example/x\">after</a>",
    "<img src=\"http://evil/x.png\" alt=\"after\">",
    "<img src=\"data:image/png;base64,AAAA\">after",
    "<span style=\"color: red; background: url(http://e); behavior: url(x.htc)\">after</span>",
    "<div style=\"background-image: url(x); color: expr\\65 ssion(1)\">after</div>",
    "<span style=\"color: red /* */; -moz-binding: url(x)\">after</span>",
    "<iframe src=x>inner</iframe>after",
    "<svg><a href=\"javascript:1\">inner</a></svg>after",
    "<object><embed src=x></object>after",
    "<form><input value=x><textarea>inner</textarea></form>after",
    "<base href=http://e><link href=x><meta charset=x>after",
    "<p>unclosed <b>bold <a href=\"x.md\">link",
    "<td align=\"javascript:x\" style=\"text-align: center\">after</td>",
    "<ol start=\"1; x\"><li>after</li></ol>",
    "<script>unterminated",
]


@pytest.mark.parametrize("fragment", RAW_HOSTILE, ids=[f"raw{i:02d}" for i in range(len(RAW_HOSTILE))])
def test_sanitizer_allow_list(fragment):
    out, links, images = sanitize_html(fragment)
    assert_safe(out)
    assert images == []
    for link in links:
        assert _compact(link).startswith(("http:", "https:")) or ":" not in link


def test_sanitizer_keeps_text_of_dropped_elements_but_not_script_content():
    out, _, _ = sanitize_html("<p>a<font color=red>b</font><script>evil()</script><style>x</style>c</p>")
    assert visible_text(out) == "abc"
    assert out == "<p>abc</p>"


def test_sanitizer_keeps_safe_markup_and_converts_background_colour():
    fragment = (
        '<div class="highlight" style="background: #f8f8f8"><pre style="line-height: 125%;">'
        '<span style="color: #008000; font-weight: bold">def</span></pre></div>'
        '<h2 id="x">T</h2><a href="https://example.com" title="t">w</a>'
    )
    out, links, _ = sanitize_html(fragment)
    assert 'style="background-color: #f8f8f8"' in out
    assert 'style="color: #008000; font-weight: bold"' in out
    assert "line-height" not in out
    assert '<h2 id="x">' in out
    assert links == ["https://example.com"]


def test_sanitizer_re_escapes_attribute_values():
    out, _, _ = sanitize_html('<a href="a.md" id="&quot;&gt;&lt;script&gt;">x</a>')
    assert 'id="&quot;&gt;&lt;script&gt;"' in out
    assert_safe(out)


def test_sanitizer_closes_open_elements():
    out, _, _ = sanitize_html("<blockquote><p>text")
    assert out == "<blockquote><p>text</p></blockquote>"


def test_sanitizer_limits_nesting_depth():
    out, _, _ = sanitize_html("<div>" * 500 + "deep" + "</div>" * 500)
    assert out.count("<div>") < 500
    assert out.count("<div>") == out.count("</div>")
    assert "deep" in out


def test_sanitizer_shows_markup_the_html_parser_gives_up_on_as_text():
    from skill_studio.core.render.sanitize import sanitize_html

    out, links, images = sanitize_html("<![a <script>alert(1)</script>")
    assert "<script" not in out and "&lt;script&gt;" in out


@pytest.mark.parametrize("lang, code", [("yaml", "name: demo\nsteps:\n  - run\n"), ("json", '{"a": [1, true]}\n'),
                                        ("bash", 'set -e\nfor f in "$@"; do wc -l "$f"; done\n'),
                                        ("javascript", "export const f = (x) => x * 2;\n")])
def test_every_common_language_is_highlighted_in_place(lang, code):
    # Lexers emit token kinds the colour style does not name (YAML's Literal.Scalar.Plain):
    # they take their parent kind's colour, and the rest of the document still renders.
    result = render_markdown(f"# Title\n\n```{lang}\n{code}```\n\nAfter.\n")
    assert result.html.startswith("<h1")
    assert "<span style=" in result.html
    assert "After." in visible_text(result.html)
    assert_safe(result.html)


def _long_body(with_reference: bool = False) -> str:
    parts = []
    for i in range(6):
        parts.append(f"## Steps\n\nSection {i} text with `code` and a [link](references/r{i}.md).\n")
        parts.append("```python\n# not a heading, inside a fence\n\n# still code\nx = 1\n```\n")
        parts.extend(f"- item {j} of section {i}" for j in range(25))
        parts.append("")
    if with_reference:
        parts.append("See [the guide][g].\n\n[g]: references/guide.md\n")
    return "\n".join(parts)


@pytest.mark.parametrize("with_reference", [False, True])
def test_long_bodies_render_by_section_exactly_as_whole(with_reference):
    from skill_studio.core.render.html import _render_section, _sections

    body = _long_body(with_reference)
    sections = _sections(body)
    assert (len(sections) == 1) == with_reference  # reference definitions keep the body whole
    assert all("# still code" not in s.splitlines()[0] for s in sections)  # never cut inside a fence
    whole = _render_section(body, None, False)
    split = render_markdown(body)
    assert split.html == whole.html
    assert split.headings == whole.headings
    assert [a for _, _, a in split.headings][:3] == ["steps", "steps_1", "steps_2"]
    assert split.links == whole.links
