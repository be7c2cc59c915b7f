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
from markdown.extensions.fenced_code import FencedBlockPreprocessor
from markdown.preprocessors import Preprocessor
from pygments.lexers import get_lexer_by_name
from pygments.lexers.special import TextLexer
from pygments.styles import get_style_by_name
from pygments.util import ClassNotFound

from skill_studio.core.render.linkscan import bound_link_processors
from skill_studio.core.render.sanitize import CONTROL_RE, block_marker, sanitize_html

__all__ = ["DEFAULT_STYLESHEET", "RenderResult", "render_markdown", "stylesheet"]

_LIGHT_CODE_STYLE = "default"
_DARK_CODE_STYLE = "github-dark"


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


# --------------------------------------------------------------------------- #
# Code highlighting
# --------------------------------------------------------------------------- #


@lru_cache(maxsize=128)
def _lexer_for(lang: str):
    """Return a pygments lexer for *lang*, or ``None`` when it is unknown or plain text."""
    try:
        lexer = get_lexer_by_name(lang)
    except ClassNotFound:
        return None
    if isinstance(lexer, TextLexer):
        return None
    return lexer


@lru_cache(maxsize=4)
def _code_style(dark: bool):
    """The pygments style class for the light or dark palette."""
    try:
        return get_style_by_name(_DARK_CODE_STYLE if dark else _LIGHT_CODE_STYLE)
    except ClassNotFound:
        return get_style_by_name("monokai" if dark else "default")


_HEX = re.compile(r"[0-9A-Fa-f]{3,8}")


def _token_css(style, ttype, cache: dict) -> str:
    """Inline CSS for one token type (colour, bold, italic, underline, background): built only from
    the style's own hex colours, so nothing in a skill can reach it."""
    css = cache.get(ttype)
    if css is None:
        known = ttype
        while not style.styles_token(known) and known.parent is not None:  # a lexer's own token kinds
            known = known.parent
        rule = style.style_for_token(known)
        parts = []
        if rule.get("color") and _HEX.fullmatch(rule["color"]):
            parts.append(f"color: #{rule['color']}")
        if rule.get("bgcolor") and _HEX.fullmatch(rule["bgcolor"]):
            parts.append(f"background-color: #{rule['bgcolor']}")
        if rule.get("bold"):
            parts.append("font-weight: bold")
        if rule.get("italic"):
            parts.append("font-style: italic")
        if rule.get("underline"):
            parts.append("text-decoration: underline")
        css = cache[ttype] = "; ".join(parts)
    return css


_CSS_CACHE: dict[bool, dict] = {False: {}, True: {}}


def _plain_code_block(code: str, lang: str | None) -> str:
    cls = f' class="language-{html.escape(lang, quote=True)}"' if lang else ""
    if code.endswith("\n"):
        code = code[:-1]  # the closing fence's line break would show as an empty last line
    return f"<pre><code{cls}>{html.escape(code, quote=False)}</code></pre>"


def _highlight_code(code: str, lang: str | None, *, dark: bool = False) -> str:
    """Return HTML for a code block: inline-styled pygments markup, or an escaped ``<pre><code>``
    when *lang* is missing or names no known lexer."""
    lexer = _lexer_for(lang.strip().lower()) if lang and lang.strip() else None
    if lexer is None:
        return _plain_code_block(code, lang)
    style, cache = _code_style(dark), _CSS_CACHE[dark]
    out = []
    try:
        for ttype, value in lexer.get_tokens(code):
            text = html.escape(value, quote=False)
            css = _token_css(style, ttype, cache) if text else ""
            out.append(f'<span style="{css}">{text}</span>' if css else text)
    except Exception:  # noqa: BLE001 - a lexer that fails on odd input: the block is still shown, plain
        return _plain_code_block(code, lang)
    if out and out[-1].endswith("\n"):
        out[-1] = out[-1][:-1]  # the closing fence's line break would show as an empty last line
    background = style.background_color if _HEX.fullmatch((style.background_color or "").lstrip("#")) else None
    attr = f' style="background-color: {background}"' if background else ""
    return f'<div class="highlight"{attr}><pre><code>{"".join(out)}</code></pre></div>'


@lru_cache(maxsize=1024)
def _code_block_html(code: str, lang: str | None, dark: bool) -> str:
    """Highlighted HTML for one code block, cached: while a body is edited most of its code blocks
    are unchanged from one render to the next. Safe by construction (every piece of the code is
    escaped here; the only markup is spans with the style's colours), so it is not parsed again."""
    return _highlight_code(code, lang, dark=dark)


_ATTR_LANG_RE = re.compile(r"\.([\w#.+-]+)")


class _FencedCodePreprocessor(Preprocessor):
    """Replace fenced code blocks with markers for their highlighted HTML (kept in ``blocks``)."""

    FENCED_BLOCK_RE = FencedBlockPreprocessor.FENCED_BLOCK_RE

    def __init__(self, md: markdown.Markdown) -> None:
        super().__init__(md)
        self.dark = False
        self.blocks: list[str] = []

    def run(self, lines: list[str]) -> list[str]:
        self.blocks = []
        text = "\n".join(lines)
        index = 0
        while True:
            m = self.FENCED_BLOCK_RE.search(text, index)
            if m is None:
                break
            lang: str | None = None
            if m.group("attrs"):
                found = _ATTR_LANG_RE.search(m.group("attrs"))
                lang = found.group(1) if found else None
            elif m.group("lang"):
                lang = m.group("lang")
            self.blocks.append(_code_block_html(m.group("code"), lang, self.dark))
            marker = f'<div class="code-block">{block_marker(len(self.blocks) - 1)}</div>'
            placeholder = self.md.htmlStash.store(marker)
            text = f"{text[:m.start()]}\n{placeholder}\n{text[m.end():]}"
            index = m.start() + 1 + len(placeholder)
        return text.split("\n")


class _PreviewExtension(Extension):
    """Escape raw HTML, take over fenced code blocks and bound link scanning."""

    def extendMarkdown(self, md: markdown.Markdown) -> None:  # noqa: N802 - Python-Markdown's API name
        md.registerExtension(self)
        # Raw HTML is never passed through: without these two the serializer escapes it.
        md.preprocessors.deregister("html_block", strict=False)
        md.inlinePatterns.deregister("html", strict=False)
        md.preprocessors.register(_FencedCodePreprocessor(md), "fenced_code_block", 25)
        self.budget = bound_link_processors(md)

    def reset(self) -> None:
        self.budget.reset()


def _new_markdown() -> markdown.Markdown:
    return markdown.Markdown(
        extensions=["tables", "toc", "sane_lists", _PreviewExtension()],
        output_format="html",
    )


_md_lock = threading.Lock()
_md_instance: markdown.Markdown | None = None


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
        md = _md_instance or _new_markdown()
        _md_instance = md
        md.reset()
        fenced: _FencedCodePreprocessor = md.preprocessors["fenced_code_block"]  # type: ignore[assignment]
        fenced.dark = dark
        try:
            body = md.convert(text)
        except Exception:  # noqa: BLE001 - e.g. RecursionError on pathologically deep nesting
            # Show the source verbatim, and start from a fresh parser next time.
            _md_instance = None
            return f"<pre>{html.escape(text, quote=False)}</pre>", [], []
        headings: list[tuple[int, str, str]] = []
        _flatten_toc(getattr(md, "toc_tokens", []), headings)
        blocks, fenced.blocks = fenced.blocks, []
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
    """
    source = CONTROL_RE.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    files = frozenset(base_files) if base_files is not None else None
    sections = _sections(source)
    if len(sections) == 1:
        return _render_section(source, files, dark)
    # Sections render apart and are cached: while a long body is edited, only the section
    # being typed in is converted again.
    parts = [_render_section(section, files, dark) for section in sections]
    html_parts, headings, links, images = [], [], {}, {}
    used: set[str] = set()
    for part in parts:
        chunk, pos = part.html, 0
        for level, title, anchor in part.headings:
            unique = _unique_anchor(anchor, used)
            used.add(unique)
            at = chunk.find(f'id="{anchor}"', pos)
            if at >= 0:
                chunk = f'{chunk[:at]}id="{unique}"{chunk[at + len(anchor) + 5:]}'
                pos = at + len(unique) + 5
            headings.append((level, title, unique))
        html_parts.append(chunk)
        links.update(dict.fromkeys(part.links))
        images.update(dict.fromkeys(part.images))
    return RenderResult(html="\n".join(html_parts), headings=headings, links=list(links), images=list(images))


_ANCHOR_COUNT = re.compile(r"^(.*)_([0-9]+)$")


def _unique_anchor(anchor: str, used: set[str]) -> str:
    """The anchor the whole document would have given: the table-of-contents rule (append _1,
    or count up an existing _N) applied across sections."""
    while anchor in used:
        m = _ANCHOR_COUNT.match(anchor)
        anchor = f"{m.group(1)}_{int(m.group(2)) + 1}" if m else f"{anchor}_1"
    return anchor


@lru_cache(maxsize=512)
def _render_section(source: str, files: frozenset[str] | None, dark: bool) -> RenderResult:
    body, headings, blocks = _convert(source, dark)
    safe, links, images = sanitize_html(body, base_files=files, blocks=blocks)
    return RenderResult(html=safe, headings=headings, links=links, images=images)


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
