"""Allow-list HTML sanitiser for the preview: only safe elements, attributes, styles and URLs survive."""

from __future__ import annotations

import html
import posixpath
import re
import zlib
from collections.abc import Iterable
from html.parser import HTMLParser
from urllib.parse import unquote
from xml.etree import ElementTree

__all__ = ["CONTROL_RE", "block_marker", "sanitize_html", "svg_is_self_contained"]

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
#: A web link names its host: "https:evil", "https:///x" and the like are not kept.
_WEB_URL_RE = re.compile(r"^https?://[^/\\?#]", re.IGNORECASE)
_URL_NOISE_RE = re.compile(r"[\x00-\x20\x7f-\x9f]")
#: Control characters other than tab, line feed and carriage return; stripped from all text.
CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
#: Stands for ``blocks[N]`` in the HTML given to :func:`sanitize_html`. Untrusted text has
#: :data:`CONTROL_RE` removed before it is converted, so it cannot forge one.
_BLOCK_MARKER_RE = re.compile("\x02(\\d+)\x03")

#: Deeper element nesting than this is flattened (text kept) to spare the preview widget.
_MAX_DEPTH = 100


def block_marker(index: int) -> str:
    """Return the marker that :func:`sanitize_html` replaces with ``blocks[index]``."""
    return f"\x02{index}\x03"


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
    """Classify a URL as ``'web'`` (http or https, with a host), ``'relative'``, ``'fragment'``,
    ``'network'`` (scheme-less, host-relative) or ``'bad'`` (any other scheme, mailto included)."""
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
    if m.group(1).lower() in ("http", "https") and _WEB_URL_RE.match(compact):
        return "web"
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
                    self.out.append(html.escape(CONTROL_RE.sub("", part), quote=False))
                elif int(part) < len(self.blocks):
                    self.out.append(self.blocks[int(part)])
            return
        self.out.append(html.escape(CONTROL_RE.sub("", data), quote=False))

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
        target is not allowed. No ``title`` is kept: Qt shows it as a tooltip that reads HTML
        (hovering a link names its address instead)."""
        parts: list[str] = []
        for name, value in attrs:
            if value is None or name.startswith("on"):
                continue
            value = CONTROL_RE.sub("", value)
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
            elif tag == "a" and name == "href":
                if _url_kind(value) in ("bad", "network"):
                    return None
                keep = value.strip()
                self.links.setdefault(keep, None)
            if keep is not None:
                parts.append(f' {name}="{html.escape(keep, quote=True)}"')
        return "".join(parts)

    def _image(self, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: CONTROL_RE.sub("", value or "") for name, value in attrs}
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
        self.out.append(f"<img{markup}>")


def sanitize_html(
    fragment: str, *, base_files: Iterable[str] | None = None, blocks: list[str] | None = None
) -> tuple[str, list[str], list[str]]:
    """Return ``(html, links, images)``: *fragment* reduced to the preview's allow-list, with the
    link targets and relative image paths that were kept. Markers for *blocks* (HTML known to be
    safe: highlighted code built from escaped text) are replaced by the blocks."""
    files = _normalise_base_files(base_files)
    parser = _Sanitizer(files, blocks)
    try:
        parser.feed(fragment)
        out = parser.finish()
    except AssertionError:
        # html.parser gives up on some malformed markup (e.g. "<![a"): show it as text.
        return "<pre>" + html.escape(fragment) + "</pre>", [], []
    return out, list(parser.links), list(parser.images)


def _normalise_base_files(base_files: Iterable[str] | None) -> frozenset[str] | None:
    if base_files is None:
        return None
    return frozenset(posixpath.normpath(f.replace("\\", "/")) for f in base_files if f)


#: Decompressed size beyond which an SVG is not shown (and a compressed bomb is not expanded).
_SVG_MAX_BYTES = 4 * 1024 * 1024
_SVG_DECLARATION_RE = re.compile(r"<!DOCTYPE|<!ENTITY|<\?xml-stylesheet", re.IGNORECASE)
_XML_ENCODING_RE = re.compile(r"^\s*<\?xml[^>]*?encoding\s*=\s*[\"']([^\"']*)", re.IGNORECASE)
_SVG_FOREIGN_TAGS = frozenset({"image", "script", "foreignobject", "iframe", "video", "audio", "feimage"})
_CSS_URL_RE = re.compile(r"url\s*\(\s*['\"]?\s*(.)", re.IGNORECASE)


def _svg_text_is_inert(text: str | None) -> bool:
    if not text:
        return True
    if "@import" in text.lower():
        return False
    return all(m.group(1) == "#" for m in _CSS_URL_RE.finditer(text))


def svg_is_self_contained(data: bytes) -> bool:
    """True when the SVG in *data* (UTF-8, plain or gzip-compressed) refers to nothing outside
    itself: no document type or entities, no images, scripts or foreign content, and no reference
    (``href``, ``src``, CSS ``url()``, ``@import``) except to its own ``#fragments``. False for
    anything that does not parse as XML or is bigger than a few megabytes."""
    if data[:2] == b"\x1f\x8b":
        inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        try:
            data = inflater.decompress(data, _SVG_MAX_BYTES + 1)
        except zlib.error:
            return False
    if len(data) > _SVG_MAX_BYTES:
        return False
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return False
    declared = _XML_ENCODING_RE.match(text)
    if declared and declared.group(1).strip().lower() not in ("utf-8", "utf8", "us-ascii"):
        return False
    if _SVG_DECLARATION_RE.search(text):
        return False
    try:
        root = ElementTree.fromstring(data)
    except (ElementTree.ParseError, ValueError):
        return False
    for element in root.iter():
        if not isinstance(element.tag, str):
            return False
        if element.tag.rsplit("}", 1)[-1].lower() in _SVG_FOREIGN_TAGS:
            return False
        for name, value in element.attrib.items():
            if name.rsplit("}", 1)[-1].lower() in ("href", "src") and not value.strip().startswith("#"):
                return False
            if not _svg_text_is_inert(value):
                return False
        if not (_svg_text_is_inert(element.text) and _svg_text_is_inert(element.tail)):
            return False
    return True
