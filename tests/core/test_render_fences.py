"""Fenced code blocks wherever CommonMark nests them: in list items, block quotes and nested lists,
with backticks or tildes, highlighted within the same bounds as top-level blocks."""

from __future__ import annotations

import re

import pytest
from conftest import SAMPLES
from test_render import assert_safe, parse, visible_text

from skill_studio.core.format.skillmd import split
from skill_studio.core.render.html import render_markdown
from skill_studio.core.render.limits import MAX_HIGHLIGHT_TOTAL
from skill_studio.core.render.sourcemap import SourceMap

#: Each body holds one fence whose code is ``echo nested`` (and nothing else in a code block).
NESTED = {
    "list item, 4 spaces": "1. Run:\n\n    ```bash\n    echo nested\n    ```\n\n2. Next step.\n",
    "list item, 3 spaces": "1. Run:\n   ```bash\n   echo nested\n   ```\n2. Next step.\n",
    "list item, 3 spaces, loose": "1. Run:\n\n   ```bash\n   echo nested\n   ```\n\n2. Next step.\n",
    "bullet item, 2 spaces": "- Run:\n  ```bash\n  echo nested\n  ```\n- Next step.\n",
    "tildes": "1. Run:\n   ~~~bash\n   echo nested\n   ~~~\n2. Next step.\n",
    "longer fence": "1. Run:\n   ````bash\n   echo nested\n   ````\n2. Next step.\n",
    "no language": "1. Run:\n   ```\n   echo nested\n   ```\n2. Next step.\n",
    "nested list": ("1. Outer:\n    - Inner:\n\n        ```bash\n        echo nested\n        ```\n\n"
                    "    - After.\n2. Next step.\n"),
    "blockquote": "> Run:\n>\n> ```bash\n> echo nested\n> ```\n\nAfter.\n",
    "blockquote, tight": "> Run:\n> ```bash\n> echo nested\n> ```\n\nAfter.\n",
    "list in blockquote": "> 1. Run:\n>    ```bash\n>    echo nested\n>    ```\n> 2. Next step.\n",
    "after a paragraph line": "Run:\n```bash\necho nested\n```\nAfter.\n",
    "info string with options": "1. Run:\n   ```bash title=\"x y\" linenums=\"1\"\n   echo nested\n   ```\n",
    "attribute list": "1. Run:\n   ``` { .bash #run }\n   echo nested\n   ```\n",
    "unusual info string": "1. Run:\n   ```bash $ {weird\n   echo nested\n   ```\n",
}


def code_texts(fragment: str) -> list[str]:
    """The text of each ``<pre>`` in *fragment*."""
    return [visible_text(m.group(1)) for m in re.finditer(r"<pre>(.*?)</pre>", fragment, re.DOTALL)]


@pytest.mark.parametrize("name", NESTED)
def test_a_nested_fence_is_a_code_block_not_inline_text(name):
    result = render_markdown(NESTED[name])
    assert code_texts(result.html) == ["echo nested"], result.html
    text = visible_text(result.html)
    assert "```" not in text and "~~~" not in text
    assert "<code>bash" not in result.html and "echo nested" not in text.replace("echo nested", "", 1)
    assert_safe(result.html)


@pytest.mark.parametrize("name", [n for n in NESTED if n != "no language"])
def test_a_nested_fence_is_highlighted_like_a_top_level_one(name):
    result = render_markdown(NESTED[name])
    assert '<span style="color: #' in result.html
    top = render_markdown("```bash\necho nested\n```\n").html
    block = re.search(r'<div class="code-block">.*?</pre></div></div>', top, re.DOTALL)
    assert block and block.group() in result.html


def test_a_nested_fence_stays_inside_its_list_item():
    result = render_markdown(NESTED["list item, 3 spaces"])
    first_item = re.search(r"<li>(.*?)</li>", result.html, re.DOTALL)
    assert first_item and "echo nested" in visible_text(first_item.group(1))
    assert [tag for tag, _ in parse(result.html).elements].count("li") == 2


def test_an_indented_code_block_that_looks_like_a_fence_stays_as_written():
    result = render_markdown("Intro\n\n    ```bash\n    echo literal\n    ```\n")
    assert [code.rstrip("\n") for code in code_texts(result.html)] == ["```bash\necho literal\n```"]


def test_markup_inside_nested_fences_is_shown_as_text():
    body = ("1. Run:\n   ```html\n   <script>alert(1)</script> <b>bold</b>\n   ```\n"
            "> ```\n> <img src=x onerror=y>\n> ```\n")
    result = render_markdown(body)
    assert code_texts(result.html) == ["<script>alert(1)</script> <b>bold</b>", "<img src=x onerror=y>"]
    assert_safe(result.html)


def test_highlighting_stops_at_the_document_total_for_nested_fences_too():
    line = "x = 1  # " + "y" * 60 + "\n"
    per_block = 40
    blocks = MAX_HIGHLIGHT_TOTAL // (len(line) * per_block) + 3
    body = "".join(f"{i + 1}. Step:\n   ```python\n" + "   " + "   ".join([line] * per_block) + "   ```\n"
                   for i in range(blocks))
    result = render_markdown(body)
    pres = re.findall(r"<pre>.*?</pre>", result.html, re.DOTALL)
    assert len(pres) == blocks
    assert "<span" in pres[0] and "<span" not in pres[-1]   # later blocks are plain


def test_many_fences_all_come_back_in_order():
    body = "".join(f"{i + 1}. Step {i}:\n   ```\n   code {i}\n   ```\n" for i in range(400))
    assert code_texts(render_markdown(body).html) == [f"code {i}" for i in range(400)]


def test_closing_fence_line_adds_no_empty_last_line():
    for body in ("```python\nx = 1\n```\n", "1. a\n   ```python\n   x = 1\n   ```\n", "```\nx = 1\n```\n"):
        assert code_texts(render_markdown(body).html) == ["x = 1"]


def test_headings_and_scroll_sync_ignore_comments_in_nested_fences():
    body = ("# Title\n\n1. Run:\n    ```bash\n    # not a heading\n    echo\n    ```\n\n"
            "> ```\n> # nor this\n> ```\n\n## Next\n\nText.\n")
    result = render_markdown(body)
    assert [(level, text) for level, text, _ in result.headings] == [(1, "Title"), (2, "Next")]
    source_map = SourceMap(body, result.headings)
    assert source_map.anchors == [(0, "title"), (body.split("\n").index("## Next"), "next")]


def sample_bodies() -> list[tuple[str, str]]:
    return [(p.parent.name, split(p.read_text(encoding="utf-8")).body) for p in sorted(SAMPLES.glob("*/SKILL.md"))]


FENCE_LINE = re.compile(r"^(?:[ \t]*>)*[ \t]*(`{3,}|~{3,})", re.MULTILINE)


@pytest.mark.parametrize(("name", "body"), sample_bodies(), ids=[n for n, _ in sample_bodies()])
def test_every_fence_of_every_sample_is_a_code_block(name, body):
    fences = len(FENCE_LINE.findall(body)) // 2
    assert fences, "every sample has code blocks"
    result = render_markdown(body)
    assert result.limit is None
    assert len(code_texts(result.html)) == fences
    outside_code = visible_text(re.sub(r"<pre>.*?</pre>", "", result.html, flags=re.DOTALL))
    assert "```" not in outside_code and "~~~" not in outside_code
    assert_safe(result.html)


def test_long_bodies_with_nested_fences_render_by_section_exactly_as_whole():
    from skill_studio.core.render.html import _render_section, _sections

    parts = []
    for i in range(6):
        parts.append(f"## Step {i}\n\n1. Run:\n\n    ```bash\n    # not a heading\n\n    echo {i}\n    ```\n")
        parts.append(f"> ```\n> # quoted {i}\n>\n> # still code\n> ```\n")
        parts.extend(f"- item {j}" for j in range(20))
        parts.append("")
    body = "\n".join(parts)
    sections = _sections(body)
    assert len(sections) > 1
    split_result, whole = render_markdown(body), _render_section(body, None, False)
    assert split_result.html == whole.html
    assert [t for _, t, _ in split_result.headings] == [f"Step {i}" for i in range(6)]
    assert len(code_texts(split_result.html)) == 12
