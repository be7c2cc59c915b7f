"""Allow-list HTML sanitiser for the preview: only safe elements, attributes, styles and URLs survive."""

from __future__ import annotations

import html
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import unquote

from skill_studio.core.render.limits import MAX_LIST_ITEMS, MAX_TABLE_CELLS, break_long_words

__all__ = ["CONTROL_RE", "Sanitized", "block_marker", "sanitize", "sanitize_html"]

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
#: What the preview's layout spends, in units of about a microsecond: on each element, on each
#: table cell on top of that, and on every ``_CHARS_PER_UNIT`` characters (measured on Qt 6.11).
_ELEMENT_COST, _CELL_COST, _CHARS_PER_UNIT = 8, 180, 5
_LISTS = frozenset({"ul", "ol"})


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
        #: What laying out the output will cost (see ``_ELEMENT_COST``).
        self.cost = 0
        self.pre = 0  # > 0 inside <pre>: its lines are never wrapped, so long words cost nothing
        #: Items so far in each open list, innermost last: ``[tag, items, start]``.
        self.lists: list[list] = []
        #: The outermost open table: where its output starts, its cells, and its rows as text.
        self.table: _Table | None = None

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
            self._bound_structure(tag, cleaned or "")
            self.out.append(f"<{tag}{cleaned or ''}>")
            self.depth += 1
            self.cost += _ELEMENT_COST
            self.pre += tag == "pre"
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
                    self._text(CONTROL_RE.sub("", part))
                elif int(part) < len(self.blocks):
                    block = self.blocks[int(part)]
                    self.cost += len(block) // _CHARS_PER_UNIT + _ELEMENT_COST * block.count("<span")
                    self.out.append(block)
            return
        self._text(CONTROL_RE.sub("", data))

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
            self.pre -= tag == "pre"
            if tag in _LISTS and self.lists:
                self.lists.pop()
            elif tag == "table" and self.table is not None and self.table.depth == self.depth:
                self._finish_table()

    def _text(self, text: str) -> None:
        if not self.pre:
            text = break_long_words(text)
        if self.table is not None and text.strip():
            self.table.text.append(text.replace("\n", " "))
        self.cost += len(text) // _CHARS_PER_UNIT
        self.out.append(html.escape(text, quote=False))

    def _bound_structure(self, tag: str, attributes: str) -> None:
        """Keep lists and tables linear to lay out: a long list goes on as a new list (an ordered
        one counting on), a table with too many cells is shown as text (see _finish_table)."""
        if tag in _LISTS:
            start = _START_RE.search(attributes)
            self.lists.append([tag, 0, int(start.group(1)) if start else 1])
        elif tag == "li" and self.lists and self.stack and self.stack[-1][0] in _LISTS:
            current = self.lists[-1]
            if current[1] and current[1] % MAX_LIST_ITEMS == 0:
                kind, number = current[0], current[2] + current[1]
                self.out.append(f'</{kind}><{kind} start="{number}">' if kind == "ol" else "</ul><ul>")
            current[1] += 1
        elif tag == "table" and self.table is None:
            self.table = _Table(len(self.out), self.depth, self.cost)
        elif tag in ("td", "th") and self.table is not None:
            self.table.cells += 1
            self.cost += _CELL_COST
            if not self.table.row_start:
                self.table.text.append(" | ")
            self.table.row_start = False
        elif tag == "tr" and self.table is not None:
            self.table.text.append("\n")
            self.table.row_start = True

    def _finish_table(self) -> None:
        table, self.table = self.table, None
        assert table is not None
        if table.cells <= MAX_TABLE_CELLS:
            return
        rows = "".join(table.text).strip("\n")
        self.cost = table.cost + 2 * _ELEMENT_COST + len(rows) // _CHARS_PER_UNIT
        notice = f"This table is too large to preview ({table.cells:,} cells, over {MAX_TABLE_CELLS:,}): shown as text."
        del self.out[table.start:]
        self.out.append(f'<p class="image-placeholder">{notice}</p><pre>{html.escape(rows, quote=False)}</pre>')

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


@dataclass(frozen=True, slots=True)
class Sanitized:
    """HTML reduced to the preview's allow-list, and what it holds."""

    html: str
    #: Link targets kept, and relative image paths shown, in first-seen order.
    links: list[str]
    images: list[str]
    #: What laying the HTML out costs the preview, in units of about a microsecond.
    cost: int


@dataclass(slots=True)
class _Table:
    start: int  # where the table's output starts
    depth: int  # the output depth it opened at
    cost: int  # the output's cost before it
    cells: int = 0
    row_start: bool = True
    text: list[str] = field(default_factory=list)


_START_RE = re.compile(r' start="([0-9]+)"')


def sanitize(
    fragment: str, *, base_files: Iterable[str] | None = None, blocks: list[str] | None = None
) -> Sanitized:
    """*fragment* reduced to the preview's allow-list (see :func:`sanitize_html`), with the cost
    of laying it out. Words over a couple of hundred characters get break opportunities, lists
    over :data:`MAX_LIST_ITEMS` items go on as new lists and tables over :data:`MAX_TABLE_CELLS`
    cells are shown as text, so the layout stays linear in the size of the HTML."""
    files = _normalise_base_files(base_files)
    parser = _Sanitizer(files, blocks)
    try:
        parser.feed(fragment)
        out = parser.finish()
    except AssertionError:
        # html.parser gives up on some malformed markup (e.g. "<![a"): show it as text.
        text = html.escape(fragment)
        return Sanitized("<pre>" + text + "</pre>", [], [], len(text) // _CHARS_PER_UNIT)
    return Sanitized(out, list(parser.links), list(parser.images), parser.cost)


def sanitize_html(
    fragment: str, *, base_files: Iterable[str] | None = None, blocks: list[str] | None = None
) -> tuple[str, list[str], list[str]]:
    """Return ``(html, links, images)``: *fragment* reduced to the preview's allow-list, with the
    link targets and relative image paths that were kept. Markers for *blocks* (HTML known to be
    safe: highlighted code built from escaped text) are replaced by the blocks."""
    done = sanitize(fragment, base_files=base_files, blocks=blocks)
    return done.html, done.links, done.images


def _normalise_base_files(base_files: Iterable[str] | None) -> frozenset[str] | None:
    if base_files is None:
        return None
    return frozenset(posixpath.normpath(f.replace("\\", "/")) for f in base_files if f)
