"""Render a skill's Markdown body to safe, self-contained HTML for the preview pane."""

from __future__ import annotations

import html
import posixpath
import re
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from html.parser import HTMLParser
from typing import Iterable
from urllib.parse import unquote

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
    return _sanitize_html(_highlight_code(code, lang, dark=dark))[0]


_ATTR_LANG_RE = re.compile(r"\.([\w#.+-]+)")
#: Stands for ``blocks[N]`` in the converted HTML. Control characters are removed from the
#: Markdown source, so a body cannot forge one.
_BLOCK_MARKER_RE = re.compile("\x02(\\d+)\x03")


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
            marker = f'<div class="code-block">\x02{len(self.blocks) - 1}\x03</div>'
            placeholder = self.md.htmlStash.store(marker)
            text = f"{text[:m.start()]}\n{placeholder}\n{text[m.end():]}"
            index = m.start() + 1 + len(placeholder)
        return text.split("\n")


# Python-Markdown resolves ``[text](target)`` by scanning forward from every ``[`` to the matching
# ``]`` and from every ``(`` to the matching ``)``: linear per bracket, so runs of unmatched
# brackets make a paragraph quadratic. The link processors below keep the stock behaviour while a
# per-document scan budget lasts (far more than any real document uses) and afterwards look only
# a short way ahead, which bounds the cost of hostile input.

#: Brackets and target characters that may be scanned at full reach in one document.
_BRACKET_BUDGET = 200_000
_TARGET_BUDGET = 1_000_000
#: Reach while the budget lasts, and once it is spent.
_FULL_BRACKETS, _SHORT_BRACKETS = 1_000_000, 8
_FULL_TARGET, _SHORT_TARGET = 2048, 128
_BRACKET_RE = re.compile(r"[\[\]]")

#: The link-like inline processors and their standard priorities.
_LINK_PROCESSORS = {
    "reference": 170,
    "link": 160,
    "image_link": 150,
    "image_reference": 140,
    "short_reference": 130,
    "short_image_ref": 125,
}


class _ScanBudget:
    """Scanning work left for the current document, shared by the link processors."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.brackets = _BRACKET_BUDGET
        self.target = _TARGET_BUDGET


class _BoundedLinkMixin:
    """Stock link parsing with a bounded look-ahead (see :class:`_ScanBudget`)."""

    budget: _ScanBudget

    def getText(self, data: str, index: int) -> tuple[str, int, bool]:  # noqa: N802 (API name)
        reach = _FULL_BRACKETS if self.budget.brackets > 0 else _SHORT_BRACKETS
        depth = 1
        seen = 0
        for m in _BRACKET_RE.finditer(data, index):
            seen += 1
            depth += 1 if m.group() == "[" else -1
            if depth == 0:
                self.budget.brackets -= seen
                return data[index:m.start()], m.end(), True
            if seen >= reach:
                break
        self.budget.brackets -= seen
        return "", len(data), False

    def getLink(self, data: str, index: int):  # type: ignore[no-untyped-def]  # noqa: N802
        reach = _FULL_TARGET if self.budget.target > 0 else _SHORT_TARGET
        if data.find(")", index, index + reach) == -1:
            # Every way of closing a link target needs a ")".
            return "", None, index, False
        # The stock parser only looks forward from *index*: hand it just the window.
        window = data[index : index + reach]
        href, title, end, handled = super().getLink(window, 0)  # type: ignore[misc]
        self.budget.target -= end if handled else len(window)
        return href, title, index + end, handled


@lru_cache(maxsize=None)
def _bounded(cls: type) -> type:
    return type(f"Bounded{cls.__name__}", (_BoundedLinkMixin, cls), {})


class _PreviewExtension(Extension):
    """Escape raw HTML, take over fenced code blocks and bound link scanning."""

    def extendMarkdown(self, md: markdown.Markdown) -> None:
        md.registerExtension(self)
        # Raw HTML is never passed through: without these two the serializer escapes it.
        md.preprocessors.deregister("html_block", strict=False)
        md.inlinePatterns.deregister("html", strict=False)
        md.preprocessors.register(_FencedCodePreprocessor(md), "fenced_code_block", 25)
        self.budget = _ScanBudget()
        for name, priority in _LINK_PROCESSORS.items():
            if name in md.inlinePatterns:
                old = md.inlinePatterns[name]
                new = _bounded(type(old))(old.pattern, md)
                new.budget = self.budget
                md.inlinePatterns.register(new, name, priority)

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
# Sanitising
# --------------------------------------------------------------------------- #

_ALLOWED_TAGS = frozenset(
    "p br hr h1 h2 h3 h4 h5 h6 strong b em i code pre span div blockquote ul ol li "
    "table thead tbody tr th td a img del sup sub dl dt dd".split()
)
_VOID_TAGS = frozenset({"br", "hr", "img"})
#: Elements whose content is dropped together with the element itself.
_DROP_CONTENT_TAGS = frozenset(
    "script style iframe frame frameset object embed applet svg math template textarea "
    "select noscript noembed noframes title xmp plaintext head".split()
)
_STYLED_TAGS = frozenset({"span", "div", "pre", "code", "td", "th"})
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})

_ALLOWED_CSS_PROPS = frozenset(
    {"color", "background-color", "font-weight", "font-style", "text-decoration", "text-align"}
)
_ALLOWED_CSS_PREFIXES = ("border", "padding", "margin")
_BAD_CSS_VALUE_RE = re.compile(r"url\s*\(|expression|javascript|@import|\\|/\*|[<>\"']", re.IGNORECASE)
_CSS_PROP_RE = re.compile(r"^-?[a-z][a-z-]*$")
_COLOUR_RE = re.compile(r"^(#[0-9a-fA-F]{3,8}|[a-zA-Z]+|(rgb|rgba|hsl|hsla)\([0-9.,%\s]+\))$")
_CLASS_RE = re.compile(r"^[A-Za-z0-9_ -]*$")
_ALIGN_VALUES = frozenset({"left", "right", "center", "justify"})

_SCHEME_RE = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_URL_NOISE_RE = re.compile(r"[\x00-\x20\x7f-\x9f]")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")

#: Deeper element nesting than this is flattened (text kept) to spare the preview widget.
_MAX_DEPTH = 100


def _clean_style(value: str) -> str:
    """Return *value* reduced to the allowed CSS declarations ('' when none survive)."""
    kept: list[str] = []
    for declaration in value.split(";"):
        if ":" not in declaration:
            continue
        prop, _, val = declaration.partition(":")
        prop = prop.strip().lower()
        val = val.strip()
        if not val or not _CSS_PROP_RE.match(prop) or _BAD_CSS_VALUE_RE.search(val):
            continue
        if prop == "background":
            # Pygments writes the shorthand; keep it only as a plain colour.
            if not _COLOUR_RE.match(val):
                continue
            prop = "background-color"
        if prop in _ALLOWED_CSS_PROPS or prop.startswith(_ALLOWED_CSS_PREFIXES):
            kept.append(f"{prop}: {val}")
    return "; ".join(kept)


def _url_kind(url: str) -> str:
    """Classify a URL as ``'web'``, ``'mail'``, ``'relative'``, ``'fragment'``, ``'network'``
    (scheme-less, host-relative) or ``'bad'``."""
    compact = _URL_NOISE_RE.sub("", url)
    if not compact:
        return "bad"
    if compact.startswith("#"):
        return "fragment"
    if compact.startswith(("//", "\\\\", "/\\", "\\/")):
        return "network"  # network-path reference: would reach another host
    m = _SCHEME_RE.match(compact)
    if m is None:
        return "relative"
    scheme = m.group(1).lower()
    if scheme in ("http", "https"):
        return "web"
    if scheme == "mailto":
        return "mail"
    return "bad"


def _normalise_image_path(src: str) -> str | None:
    """Return the POSIX path a relative image *src* names, or ``None`` if it names no local file."""
    path = src.strip()
    if "\\" in path or path.startswith("/"):
        return None
    path = re.split(r"[?#]", path, maxsplit=1)[0]
    path = unquote(path)
    if not path or _URL_NOISE_RE.sub("", path.replace(" ", "")) != path.replace(" ", ""):
        return None
    norm = posixpath.normpath(path)
    if norm in (".", "") or norm.startswith("/"):
        return None
    return norm


class _Sanitizer(HTMLParser):
    """Re-emit HTML keeping only allow-listed elements, attributes, styles and URLs."""

    def __init__(self, base_files: frozenset[str] | None, blocks: list[str] | None = None) -> None:
        super().__init__(convert_charrefs=True)
        self.base_files = base_files
        self.blocks = blocks or []
        self.out: list[str] = []
        self.links: dict[str, None] = {}
        self.images: dict[str, None] = {}
        # Open elements as (tag, emitted); only emitted ones are closed in the output.
        self.stack: list[tuple[str, bool]] = []
        self.depth = 0
        self.skip = 0  # > 0 while inside an element whose content is dropped

    # -- events ---------------------------------------------------------------

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _DROP_CONTENT_TAGS:
            self.skip += 1
            return
        if self.skip:
            return
        if tag not in _ALLOWED_TAGS:
            if tag not in _VOID_TAGS:
                self.stack.append((tag, False))
            return
        if tag == "img":
            self._image(attrs)
            return
        if tag in _VOID_TAGS:
            self.out.append(f"<{tag}>")
            return
        emit = self.depth < _MAX_DEPTH
        cleaned = self._attributes(tag, attrs)
        if tag == "a" and cleaned is None:
            emit = False
        if emit:
            self.out.append(f"<{tag}{cleaned or ''}>")
            self.depth += 1
        self.stack.append((tag, emit))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _DROP_CONTENT_TAGS:
            return  # self-closing: nothing inside to drop
        self.handle_starttag(tag, attrs)
        if tag not in _VOID_TAGS:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in _DROP_CONTENT_TAGS:
            if self.skip:
                self.skip -= 1
            return
        if self.skip or tag in _VOID_TAGS:
            return
        for pos in range(len(self.stack) - 1, -1, -1):
            if self.stack[pos][0] == tag:
                while len(self.stack) > pos:
                    self._close(self.stack.pop())
                return

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.blocks and "\x02" in data:
            # Text and block markers alternate; markers become their (already sanitised) block.
            for i, part in enumerate(_BLOCK_MARKER_RE.split(data)):
                if i % 2 == 0:
                    self.out.append(html.escape(_CONTROL_RE.sub("", part), quote=False))
                elif int(part) < len(self.blocks):
                    self.out.append(self.blocks[int(part)])
            return
        self.out.append(html.escape(_CONTROL_RE.sub("", data), quote=False))

    # Comments, declarations and processing instructions are dropped.
    def handle_comment(self, data: str) -> None:
        pass

    def handle_decl(self, decl: str) -> None:
        pass

    def handle_pi(self, data: str) -> None:
        pass

    def unknown_decl(self, data: str) -> None:
        pass

    # -- helpers --------------------------------------------------------------

    def finish(self) -> str:
        self.close()
        while self.stack:
            self._close(self.stack.pop())
        return "".join(self.out)

    def _close(self, entry: tuple[str, bool]) -> None:
        tag, emitted = entry
        if emitted:
            self.out.append(f"</{tag}>")
            self.depth -= 1

    def _attributes(self, tag: str, attrs: list[tuple[str, str | None]]) -> str | None:
        """Return the allowed attributes of *tag* as markup; ``None`` for a link whose
        target is not allowed."""
        parts: list[str] = []
        for name, value in attrs:
            if value is None or name.startswith("on"):
                continue
            value = _CONTROL_RE.sub("", value)
            keep: str | None = None
            if name == "style" and tag in _STYLED_TAGS:
                keep = _clean_style(value) or None
            elif name == "class" and tag in _STYLED_TAGS:
                keep = value if _CLASS_RE.match(value) else None
            elif name == "id" and (tag == "a" or tag in _HEADINGS):
                keep = value
            elif name == "align" and tag in ("td", "th"):
                keep = value.lower() if value.lower() in _ALIGN_VALUES else None
            elif name == "start" and tag == "ol":
                keep = value if value.isdigit() and len(value) < 10 else None
            elif tag == "a" and name == "title":
                keep = value
            elif tag == "a" and name == "href":
                if _url_kind(value) in ("bad", "network"):
                    return None
                keep = value.strip()
                self.links.setdefault(keep, None)
            if keep is not None:
                parts.append(f' {name}="{html.escape(keep, quote=True)}"')
        return "".join(parts)

    def _image(self, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: _CONTROL_RE.sub("", value or "") for name, value in attrs}
        src = values.get("src", "")
        alt = values.get("alt", "")
        kind = _url_kind(src)
        reason = None
        path = None
        if kind in ("web", "network"):
            reason = "remote images are not loaded"
        elif kind != "relative":
            reason = "only images inside the skill are shown"
        else:
            path = _normalise_image_path(src)
            if path is None:
                reason = "only images inside the skill are shown"
            elif self.base_files is not None and path not in self.base_files:
                reason = "not a file of this skill"
        if reason is not None:
            label = f"[image: {alt} — {reason}]" if alt else f"[image — {reason}]"
            self.out.append(f'<span class="image-placeholder">{html.escape(label, quote=False)}</span>')
            return
        assert path is not None
        self.images.setdefault(path, None)
        markup = f' src="{html.escape(src.strip(), quote=True)}" alt="{html.escape(alt, quote=True)}"'
        if values.get("title"):
            markup += f' title="{html.escape(values["title"], quote=True)}"'
        self.out.append(f"<img{markup}>")


def _sanitize_html(
    fragment: str, *, base_files: Iterable[str] | None = None, blocks: list[str] | None = None
) -> tuple[str, list[str], list[str]]:
    """Return ``(html, links, images)``: *fragment* reduced to the preview's allow-list, with the
    link targets and relative image paths that were kept. Markers for *blocks* (HTML that has been
    through this function already) are replaced by the blocks."""
    files = _normalise_base_files(base_files)
    parser = _Sanitizer(files, blocks)
    parser.feed(fragment)
    out = parser.finish()
    return out, list(parser.links), list(parser.images)


def _normalise_base_files(base_files: Iterable[str] | None) -> frozenset[str] | None:
    if base_files is None:
        return None
    return frozenset(posixpath.normpath(f.replace("\\", "/")) for f in base_files if f)


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
    source = _CONTROL_RE.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    body, headings, blocks = _convert(source, dark)
    safe, links, images = _sanitize_html(body, base_files=base_files, blocks=blocks)
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
