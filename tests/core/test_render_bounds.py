"""The renderer bounds its work: hostile bodies come back as bounded text or bounded HTML."""

from __future__ import annotations

import html
import re

import pytest

from skill_studio.core.render.html import render_markdown
from skill_studio.core.render.limits import (
    LAYOUT_BUDGET,
    MAX_ANCHORS,
    MAX_HEADINGS,
    MAX_LIST_ITEMS,
    MAX_NESTING,
    MAX_SOURCE_CHARS,
    MAX_TABLE_CELLS,
    MAX_TEXT_CHARS,
    MAX_TEXT_LINES,
    TOO_LARGE,
    source_limit,
)
from skill_studio.core.render.sanitize import sanitize
from skill_studio.core.render.svg import MAX_SVG_DEPTH, svg_is_self_contained, svg_refusal

#: What any rendered body may weigh at most: the layout budget plus the bounded text view.
MAX_HTML_CHARS = 6 * MAX_TEXT_CHARS + 5 * LAYOUT_BUDGET


def table(rows: int, cols: int) -> str:
    head = "| " + " | ".join(f"h{c}" for c in range(cols)) + " |\n|" + "---|" * cols + "\n"
    return head + "".join("| " + " | ".join(f"r{r}c{c}" for c in range(cols)) + " |\n" for r in range(rows))


def deep_list(depth: int) -> str:
    return "\n".join(" " * (4 * i) + "- item" for i in range(depth)) + "\n"


#: Each class of hostile body, at the size it was found at, and the limit it must be stopped by.
HOSTILE = {
    "big table": (lambda: table(3000, 30), "over 256 KiB"),
    "one long word": (lambda: "x" * (512 * 1024) + "\n", "over 256 KiB"),
    "a long word within the size": (lambda: "x" * (200 * 1024) + "\n", "paragraph, list or table is over"),
    "many headings": (lambda: "".join(f"# H{i}\n\n" for i in range(40_000)), "over 256 KiB"),
    "many short headings": (lambda: "".join(f"# H{i}\n" for i in range(MAX_HEADINGS + 1)), "headings"),
    "huge code block": (lambda: "```python\n" + "def f(x):  return x + 1\n" * 130_000 + "```\n", "over 256 KiB"),
    "entities on one line": (lambda: "&amp;" * 100_000 + "\n", "over 256 KiB"),
    "entity paragraph": (lambda: ("&amp;" * 20 + "\n") * 400, "paragraph, list or table is over"),
    "deep list": (lambda: deep_list(2000), "over 256 KiB"),
    "deep list within the size": (lambda: deep_list(MAX_NESTING + 2), "nested more than"),
    "deep blockquote": (lambda: ">" * 2000 + " x\n", "nested more than"),
    "deep spaced blockquote": (lambda: "> " * (MAX_NESTING + 1) + "x\n", "nested more than"),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_body_is_shown_as_bounded_text(name):
    make, words = HOSTILE[name]
    body = make()
    result = render_markdown(body)
    assert result.limit and words in result.limit
    assert result.html.startswith(f'<p class="image-placeholder">{TOO_LARGE} (')
    assert result.headings == [] and result.cost <= LAYOUT_BUDGET
    assert len(result.html) <= MAX_HTML_CHARS
    assert result.html.count("\n") <= MAX_TEXT_LINES + 2
    text = html.unescape(re.sub(r"<[^>]*>", "\n", result.html))
    assert re.search(r"[^\s]{2001}", text) is None   # no line of text past two thousand characters
    start = body[:50].replace("&", "&amp;").replace(">", "&gt;")
    assert start.split("\n")[0][:40] in result.html   # what the user wrote is there, as text


def test_the_text_view_says_how_much_is_left_out():
    body = "word " * (MAX_SOURCE_CHARS // 4)
    result = render_markdown(body)
    assert "more characters are not shown" in result.html
    short = render_markdown(">" * 100 + " x\n")
    assert "not shown" not in short.html


@pytest.mark.parametrize("body", [
    "# Title\n\nText.\n",
    table(20, 4),
    deep_list(MAX_NESTING - 1),
    "> " * (MAX_NESTING - 1) + "quoted\n",
    "".join(f"## Heading {i}\n\nText {i}.\n\n" for i in range(200)),
    "```python\n" + "print(1)\n" * 2000 + "```\n",
    "    indented code\n" * 300,
])
def test_ordinary_bodies_are_not_limited(body):
    assert source_limit(body) is None
    assert render_markdown(body).limit is None


def test_a_table_with_too_many_cells_is_shown_as_text_and_the_rest_renders():
    rows = MAX_TABLE_CELLS // 10 + 5
    result = render_markdown("# Before\n\n" + table(rows, 10) + "\n\n## After\n\nText *after*.\n")
    assert result.limit is None
    assert "<table" not in result.html
    assert "This table is too large to preview" in result.html
    assert f"r{rows - 1}c0 | r{rows - 1}c1" in result.html   # its rows, as text
    assert "<h2" in result.html and "<em>after</em>" in result.html
    small = render_markdown(table(5, 4))
    assert small.html.count("<td>") == 20 and "too large" not in small.html


@pytest.mark.parametrize("kind", ["ul", "ol"])
def test_a_long_list_goes_on_as_shorter_lists_that_keep_counting(kind):
    items = 2 * MAX_LIST_ITEMS + 7
    marker = "-" if kind == "ul" else "1."
    result = render_markdown("".join(f"{marker} item {i}\n" for i in range(items)))
    assert result.limit is None
    assert result.html.count("<li>") == items
    assert result.html.count(f"<{kind}") == 3
    for part in re.split(f"</{kind}>", result.html)[:-1]:
        assert part.count("<li>") <= MAX_LIST_ITEMS
    if kind == "ol":
        assert f'<ol start="{MAX_LIST_ITEMS + 1}">' in result.html
        assert f'<ol start="{2 * MAX_LIST_ITEMS + 1}">' in result.html
        started = sanitize('<ol start="5">' + "<li>x</li>" * (MAX_LIST_ITEMS + 1) + "</ol>")
        assert f'<ol start="{MAX_LIST_ITEMS + 5}">' in started.html


@pytest.mark.parametrize("where", ["paragraph", "inline code", "link text", "heading", "table cell"])
def test_long_words_get_break_opportunities_outside_preformatted_text(where):
    word = "w" * 5000
    body = {
        "paragraph": f"Start {word} end.\n",
        "inline code": f"Code `{word}` here.\n",
        "link text": f"[{word}](references/guide.md)\n",
        "heading": f"# {word}\n",
        "table cell": f"| a |\n|---|\n| {word} |\n",
    }[where]
    result = render_markdown(body)
    text = re.sub(r"<[^>]*>", " ", result.html)
    assert re.search(r"[^\s\u200b]{201}", text) is None
    assert text.replace("\u200b", "").count(word) == 1   # the same word, only breakable


def test_long_lines_in_code_blocks_are_left_whole():
    line = "x" * 3000
    result = render_markdown(f"```\n{line}\n```\n")
    assert line in result.html


def test_headings_past_the_anchor_limit_keep_their_text_but_no_anchor():
    count = MAX_ANCHORS + 50
    result = render_markdown("".join(f"## Part {i}\n\ntext\n\n" for i in range(count)))
    assert result.limit is None
    assert len(result.headings) == MAX_ANCHORS
    assert result.html.count("<h2") == count and result.html.count(' id="') == MAX_ANCHORS
    assert f"Part {count - 1}" in result.html


def test_many_equal_headings_get_the_same_anchors_as_before():
    result = render_markdown("".join("## Step\n\ntext\n\n" for _ in range(300)))
    anchors = [anchor for _, _, anchor in result.headings]
    assert anchors == ["step"] + [f"step_{i}" for i in range(1, 300)]


def test_big_code_blocks_are_shown_plain_and_small_ones_highlighted():
    big = "```python\n" + "def f(x):\n    return x\n" * 3000 + "```\n"
    result = render_markdown(big)
    assert result.limit is None
    assert "<span" not in result.html and "def f(x):" in result.html
    assert "<span" in render_markdown("```python\ndef f(x):\n    return x\n```\n").html


@pytest.mark.parametrize(("lang", "code"), [
    ("xml", "<!--" * 20_000),
    ("html", "<!--" * 20_000),
    ("xml", "<?" * 10_000),
    ("html", "<script>" + "a " * 10_000),
    ("xml", "<![CDATA[" * 3_000),
])
def test_code_that_lexers_are_slow_on_is_still_shown(lang, code):
    result = render_markdown(f"```{lang}\n{code}\n```\n")
    assert result.limit is None and result.cost <= LAYOUT_BUDGET
    text = re.sub(r"<[^>]*>", "", result.html)
    assert code[:200].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") in text


# -- SVG --------------------------------------------------------------------------


def nested_use(levels: int, fan: int = 10) -> bytes:
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
             'width="100" height="100"><defs><rect id="l0" width="1" height="1"/>']
    for i in range(1, levels + 1):
        uses = "".join(f'<use xlink:href="#l{i - 1}" x="{j}"/>' for j in range(fan))
        parts.append(f'<g id="l{i}">{uses}</g>')
    parts.append(f'</defs><use href="#l{levels}"/></svg>')
    return "".join(parts).encode()


@pytest.mark.parametrize(("data", "words"), [
    (nested_use(6), "draws more than"),
    (nested_use(5), "draws more than"),
    (b'<svg xmlns="http://www.w3.org/2000/svg"><g id="a"><use href="#a"/></g></svg>', "draws more than"),
    (b'<svg xmlns="http://www.w3.org/2000/svg"><g id="a"><use href="#b"/></g>'
     b'<g id="b"><use href="#a"/></g></svg>', "draws more than"),
    (b'<svg xmlns="http://www.w3.org/2000/svg">' + b"<g>" * (MAX_SVG_DEPTH + 1) + b"<rect/>"
     + b"</g>" * (MAX_SVG_DEPTH + 1) + b"</svg>", "nest more than"),
    (b'<svg xmlns="http://www.w3.org/2000/svg">' + b"<rect/>" * 30_000 + b"</svg>", "draws more than"),
    (b'<svg xmlns="http://www.w3.org/2000/svg"><image href="file:///etc/x.png"/></svg>', "outside itself"),
    (b"not xml at all", "not a readable SVG"),
])
def test_svgs_that_would_draw_too_much_are_refused_before_drawing(data, words):
    refusal = svg_refusal(data)
    assert refusal and words in refusal


def test_modest_svgs_with_use_are_drawn():
    assert svg_refusal(nested_use(3)) is None
    assert svg_is_self_contained(nested_use(6))   # self-contained, only too big
