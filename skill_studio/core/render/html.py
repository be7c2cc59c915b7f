"""Render a skill's Markdown body to safe, self-contained HTML for the preview pane."""

from __future__ import annotations

import html
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

import markdown
from markdown.extensions import Extension

from skill_studio.core.render.fences import CodeFences
from skill_studio.core.render.limits import (
    LAYOUT_BUDGET,
    MAX_ANCHORS,
    MAX_TEXT_CHARS,
    source_limit,
    text_fallback,
)
from skill_studio.core.render.linkscan import bound_link_processors
from skill_studio.core.render.sanitize import CONTROL_RE, sanitize

__all__ = ["DEFAULT_STYLESHEET", "RenderResult", "render_markdown", "stylesheet"]


@dataclass(frozen=True, slots=True)
class RenderResult:
    """The outcome of rendering one Markdown body."""

    #: A sanitised HTML body fragment (no ``<html>``/``<body>`` wrapper).
    html: str
    #: ``(level, text, anchor id)`` for every heading, in document order.
    headings: list[tuple[int, str, str]] = field(default_factory=list)
    #: Link targets that survived sanitising, in first-seen order, without duplicates.
    links: list[str] = field(default_factory=list)
    #: Normalised relative paths of the images shown, in first-seen order, without duplicates.
    images: list[str] = field(default_factory=list)
    #: The limit the body went over, in plain words, when it is shown as text; else ``None``.
    limit: str | None = None
    #: What laying out :attr:`html` costs the preview, in units of about a microsecond.
    cost: int = 0


class _PreviewExtension(Extension):
    """Escape raw HTML and bound link scanning."""

    def extendMarkdown(self, md: markdown.Markdown) -> None:  # noqa: N802 - Python-Markdown's API name
        md.registerExtension(self)
        # Raw HTML is never passed through: without these two the serializer escapes it.
        md.preprocessors.deregister("html_block", strict=False)
        md.inlinePatterns.deregister("html", strict=False)
        self.budget = bound_link_processors(md)

    def reset(self) -> None:
        self.budget.reset()


def _new_markdown() -> tuple[markdown.Markdown, CodeFences]:
    fences = CodeFences()
    md = markdown.Markdown(
        extensions=["tables", "toc", "sane_lists", fences.extension(), _PreviewExtension()],
        output_format="html",
    )
    return md, fences


_md_lock = threading.Lock()
_md_instance: tuple[markdown.Markdown, CodeFences] | None = None


# --------------------------------------------------------------------------- #
# Public entry points
# --------------------------------------------------------------------------- #


def _flatten_toc(tokens: list[dict], into: list[tuple[int, str, str]]) -> None:
    for token in tokens:
        into.append((int(token["level"]), html.unescape(token["name"]), token["id"]))
        _flatten_toc(token.get("children", []), into)


def _convert(text: str, dark: bool) -> tuple[str, list[tuple[int, str, str]], list[str]]:
    """Return the unsanitised HTML, the headings and the code blocks its markers stand for."""
    global _md_instance
    with _md_lock:
        md, fences = _md_instance or _new_markdown()
        _md_instance = md, fences
        md.reset()
        fences.start(dark)
        try:
            body = md.convert(text)
        except Exception:  # noqa: BLE001 - e.g. RecursionError on pathologically deep nesting
            # Show the source verbatim, and start from a fresh parser next time.
            _md_instance = None
            return f"<pre>{html.escape(text, quote=False)}</pre>", [], []
        headings: list[tuple[int, str, str]] = []
        _flatten_toc(getattr(md, "toc_tokens", []), headings)
        blocks = fences.take()
        md.reset()
    return body, headings, blocks


def render_markdown(
    text: str, *, base_files: Iterable[str] | None = None, dark: bool = False
) -> RenderResult:
    """Render a Markdown body to a sanitised HTML fragment for the preview pane.

    Returns a :class:`RenderResult` with the HTML, the headings (level, text, anchor id), the link
    targets kept and the relative image paths shown. Raw HTML in *text* is shown as literal text;
    scripts, event handlers and unsafe URLs never reach the output. Remote images, and relative
    images naming none of *base_files* (when given, as POSIX paths relative to the skill folder),
    are replaced by a textual placeholder. Never raises for any input string.

    The work is bounded: a body over one of the limits of :mod:`.limits` (size, paragraph size,
    headings, nesting) comes back as escaped plain text under a notice, with
    :attr:`RenderResult.limit` naming the limit. When the HTML would cost the preview's layout
    more than :data:`LAYOUT_BUDGET`, the sections that fit are rendered and the rest is shown as
    text the same way. Headings past :data:`MAX_ANCHORS` get no anchor.
    """
    source = CONTROL_RE.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    limit = source_limit(source)
    if limit is not None:
        return _as_text(source, limit)
    files = frozenset(base_files) if base_files is not None else None
    # Sections render apart and are cached: while a long body is edited, only the section
    # being typed in is converted again. They are taken while the layout budget lasts, leaving
    # room for the rest shown as text.
    parts: list[RenderResult] = []
    cost = taken = 0
    rest = ""
    for section in _sections(source):
        part = _render_section(section, files, dark)
        left = len(source) - taken - len(section)
        if cost + part.cost + min(left, MAX_TEXT_CHARS) // _TEXT_CHARS_PER_UNIT > LAYOUT_BUDGET:
            rest = source[taken:]
            break
        parts.append(part)
        cost += part.cost
        taken += len(section) + 1
    if not parts:
        return _as_text(source, _OVER_BUDGET)
    html_parts: list[str] = []
    headings: list[tuple[int, str, str]] = []
    links: dict[str, None] = {}
    images: dict[str, None] = {}
    used: set[str] = set()
    resume: dict[str, str] = {}
    for part in parts:
        pieces, pos = [], 0
        for level, title, anchor in part.headings:
            unique = _unique_anchor(anchor, used, resume)
            used.add(unique)
            anchored = len(headings) < MAX_ANCHORS
            at = part.html.find(f'id="{anchor}"', pos)
            if at >= 0:
                pieces += [part.html[pos:at], f'id="{unique}"' if anchored else ""]
                pos = at + len(anchor) + 5
            if anchored:
                headings.append((level, title, unique))
                cost += _ANCHOR_COST
        pieces.append(part.html[pos:])
        html_parts.append("".join(pieces))
        links.update(dict.fromkeys(part.links))
        images.update(dict.fromkeys(part.images))
    limit = None
    if rest:
        limit = _OVER_BUDGET
        html_parts.append(text_fallback(rest, f"{_OVER_BUDGET}: the rest"))
        cost += len(html_parts[-1]) // _TEXT_CHARS_PER_UNIT
    return RenderResult(html="\n".join(html_parts), headings=headings, links=list(links),
                        images=list(images), limit=limit, cost=cost)


_OVER_BUDGET = "it holds more than the preview can lay out quickly"
_TEXT_CHARS_PER_UNIT = 5
#: What each heading anchor adds to the layout's cost (measured: anchors slow it down).
_ANCHOR_COST = 40


def _as_text(source: str, reason: str) -> RenderResult:
    shown = text_fallback(source, reason)
    return RenderResult(html=shown, limit=reason, cost=len(shown) // _TEXT_CHARS_PER_UNIT)


_ANCHOR_COUNT = re.compile(r"^(.*)_([0-9]+)$")


def _unique_anchor(anchor: str, used: set[str], resume: dict[str, str]) -> str:
    """The anchor the whole document would have given: the table-of-contents rule (append _1,
    or count up an existing _N) applied across sections. *resume* remembers where the count
    for each anchor stopped, so many equal headings cost linear time."""
    start, anchor = anchor, resume.get(anchor, anchor)
    while anchor in used:
        m = _ANCHOR_COUNT.match(anchor)
        anchor = f"{m.group(1)}_{int(m.group(2)) + 1}" if m else f"{anchor}_1"
    resume[start] = anchor
    return anchor


@lru_cache(maxsize=512)
def _render_section(source: str, files: frozenset[str] | None, dark: bool) -> RenderResult:
    body, headings, blocks = _convert(source, dark)
    done = sanitize(body, base_files=files, blocks=blocks)
    return RenderResult(html=done.html, headings=headings, links=done.links, images=done.images,
                        cost=done.cost)


_ATX_HEADING = re.compile(r"#{1,6}(?:[ \t]|$)")
_FENCE_OPEN = re.compile(r"(`{3,}|~{3,})")
_LINK_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:", re.MULTILINE)
_SECTION_LINES = 40


def _sections(source: str) -> list[str]:
    """The body cut before headings that follow a blank line, outside fenced code: places where
    Markdown starts a new block whatever came before. Kept whole when it is short or defines
    reference links (a definition in one section may serve a link in another)."""
    lines = source.split("\n")
    if len(lines) < 2 * _SECTION_LINES or _LINK_DEFINITION.search(source):
        return [source]
    out, start, fence, blank = [], 0, None, True
    for i, line in enumerate(lines):
        if fence is not None:
            if line.rstrip() == fence:
                fence = None
        else:
            opened = _FENCE_OPEN.match(line)
            if opened:
                fence = opened.group(1)
            elif blank and i - start >= _SECTION_LINES and _ATX_HEADING.match(line):
                out.append("\n".join(lines[start:i]))
                start = i
        blank = not line.strip()
    out.append("\n".join(lines[start:]))
    return out


def stylesheet(dark: bool) -> str:
    """Return the CSS to install with ``QTextDocument.setDefaultStyleSheet`` for the given palette."""
    if dark:
        c = {
            "text": "#e6edf3", "muted": "#9198a1", "link": "#4493f8", "border": "#3d444d",
            "code_bg": "#151b23", "head_bg": "#212830", "rule": "#3d444d", "warn": "#d29922",
        }
    else:
        c = {
            "text": "#1f2328", "muted": "#59636e", "link": "#0969da", "border": "#d1d9e0",
            "code_bg": "#f6f8fa", "head_bg": "#f6f8fa", "rule": "#d1d9e0", "warn": "#9a6700",
        }
    return f"""
body, p, li, dt, dd, td, th, h1, h2, h3, h4, h5, h6, pre, code {{ color: {c['text']}; }}
h1 {{ font-size: xx-large; font-weight: bold; margin-top: 12px; margin-bottom: 8px; }}
h2 {{ font-size: x-large; font-weight: bold; margin-top: 12px; margin-bottom: 6px; }}
h3 {{ font-size: large; font-weight: bold; margin-top: 10px; margin-bottom: 4px; }}
h4, h5, h6 {{ font-size: medium; font-weight: bold; margin-top: 8px; margin-bottom: 4px; }}
p {{ margin-top: 0px; margin-bottom: 8px; }}
a {{ color: {c['link']}; }}
code {{ font-family: monospace; background-color: {c['code_bg']}; }}
pre {{ font-family: monospace; background-color: {c['code_bg']}; padding: 8px; margin-top: 4px; margin-bottom: 8px; }}
blockquote {{ color: {c['muted']}; margin-left: 12px; padding-left: 8px; border-left: 3px solid {c['rule']}; }}
table {{ border-collapse: collapse; border: 1px solid {c['border']}; margin-bottom: 8px; }}
th, td {{ border: 1px solid {c['border']}; padding: 4px 8px; }}
th {{ background-color: {c['head_bg']}; font-weight: bold; }}
hr {{ color: {c['rule']}; }}
.image-placeholder {{ color: {c['warn']}; font-style: italic; }}
""".lstrip()


#: Stylesheet for the light palette.
DEFAULT_STYLESHEET = stylesheet(False)
