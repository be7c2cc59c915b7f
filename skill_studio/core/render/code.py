"""Code blocks for the preview: highlighted with inline colours, within a size and time budget."""

from __future__ import annotations

import html
import re
import time
from functools import lru_cache

from pygments.lexers import get_lexer_by_name
from pygments.lexers.special import TextLexer
from pygments.styles import get_style_by_name
from pygments.util import ClassNotFound

from skill_studio.core.render.limits import MAX_HIGHLIGHT_CHARS, MAX_HIGHLIGHT_SECONDS, MAX_HIGHLIGHT_SPANS

__all__ = ["code_block_html"]

_LIGHT_CODE_STYLE = "default"
_DARK_CODE_STYLE = "github-dark"


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
    # Some lexers are quadratic on odd input (an HTML or XML comment opened and never closed):
    # past a short time the block is shown plain. Each step is one bounded regex match.
    deadline = time.monotonic() + MAX_HIGHLIGHT_SECONDS
    try:
        for count, (ttype, value) in enumerate(lexer.get_tokens(code)):
            text = html.escape(value, quote=False)
            css = _token_css(style, ttype, cache) if text else ""
            out.append(f'<span style="{css}">{text}</span>' if css else text)
            if count % 64 == 63 and (time.monotonic() > deadline or count > MAX_HIGHLIGHT_SPANS):
                return _plain_code_block(code, lang)
    except Exception:  # noqa: BLE001 - a lexer that fails on odd input: the block is still shown, plain
        return _plain_code_block(code, lang)
    # The closing fence's line break (the lexer's last token, coloured or not) would show as an
    # empty last line.
    if out and out[-1].endswith("\n</span>"):
        out[-1] = out[-1][:-8] + "</span>"
    elif out and out[-1].endswith("\n"):
        out[-1] = out[-1][:-1]
    background = style.background_color if _HEX.fullmatch((style.background_color or "").lstrip("#")) else None
    attr = f' style="background-color: {background}"' if background else ""
    return f'<div class="highlight"{attr}><pre><code>{"".join(out)}</code></pre></div>'


@lru_cache(maxsize=1024)
def code_block_html(code: str, lang: str | None, dark: bool, highlight: bool = True) -> str:
    """Highlighted HTML for one code block, cached: while a body is edited most of its code blocks
    are unchanged from one render to the next. Safe by construction (every piece of the code is
    escaped here; the only markup is spans with the style's colours), so it is not parsed again.
    Plain when *highlight* is false or the block is longer than highlighting is given time for."""
    if not highlight or len(code) > MAX_HIGHLIGHT_CHARS:
        return _plain_code_block(code, lang)
    return _highlight_code(code, lang, dark=dark)
