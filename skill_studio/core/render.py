"""Render a skill's Markdown body to safe, self-contained HTML for the preview pane."""

from __future__ import annotations

import html
import re
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable

import markdown
from markdown.extensions import Extension
from markdown.extensions.fenced_code import FencedBlockPreprocessor
from markdown.preprocessors import Preprocessor
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.lexers.special import TextLexer
from pygments.styles import get_style_by_name
from pygments.util import ClassNotFound

from .linkscan import bound_link_processors
from .sanitize import CONTROL_RE, block_marker, sanitize_html

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
def _formatter(dark: bool) -> HtmlFormatter:
    """Return a cached inline-style formatter for the light or dark palette."""
    style_name = _DARK_CODE_STYLE if dark else _LIGHT_CODE_STYLE
    try:
        style = get_style_by_name(style_name)
    except ClassNotFound:
        style_name = "monokai" if dark else "default"
        style = get_style_by_name(style_name)
    prestyles = f"background-color: {style.background_color}" if style.background_color else ""
    return HtmlFormatter(style=style_name, noclasses=True, nowrap=False, prestyles=prestyles)


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
    return highlight(code, lexer, _formatter(dark))


@lru_cache(maxsize=1024)
def _code_block_html(code: str, lang: str | None, dark: bool) -> str:
    """Highlighted and sanitised HTML for one code block, cached: while a body is edited most of
    its code blocks are unchanged from one render to the next."""
    return sanitize_html(_highlight_code(code, lang, dark=dark))[0]


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

    def extendMarkdown(self, md: markdown.Markdown) -> None:
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
        except Exception:  # e.g. RecursionError on pathologically deep nesting
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
    body, headings, blocks = _convert(source, dark)
    safe, links, images = sanitize_html(body, base_files=base_files, blocks=blocks)
    return RenderResult(html=safe, headings=headings, links=links, images=images)


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
