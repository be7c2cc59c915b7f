"""Which skill SVGs the preview may draw: self-contained ones, of bounded size once expanded."""

from __future__ import annotations

import re
import zlib
from xml.etree import ElementTree

__all__ = ["MAX_SVG_DEPTH", "MAX_SVG_ELEMENTS", "svg_is_self_contained", "svg_refusal"]

#: Elements an SVG may draw once every ``<use>`` is expanded (a few levels of ``<use>`` that each
#: repeat the level below ten times make millions), and how deep its elements may nest.
MAX_SVG_ELEMENTS = 20_000
MAX_SVG_DEPTH = 64

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
    root = _parse(data)
    return root is not None and _self_contained(root)


def svg_refusal(data: bytes) -> str | None:
    """Why the SVG in *data* is not drawn, in plain words, or ``None`` when it may be: it must be
    self-contained (:func:`svg_is_self_contained`), nest at most :data:`MAX_SVG_DEPTH` deep and
    draw at most :data:`MAX_SVG_ELEMENTS` elements with its ``<use>`` references expanded.
    Decided on the parsed tree, in time linear in its size, before anything is drawn."""
    root = _parse(data)
    if root is None:
        return "it is not a readable SVG of at most 4 MiB"
    if not _self_contained(root):
        return "it refers to something outside itself"
    if _depth(root) > MAX_SVG_DEPTH:
        return f"its elements nest more than {MAX_SVG_DEPTH} deep"
    if _expanded_size(root) > MAX_SVG_ELEMENTS:
        return f"it draws more than {MAX_SVG_ELEMENTS:,} elements"
    return None


def _parse(data: bytes) -> ElementTree.Element | None:
    if data[:2] == b"\x1f\x8b":
        inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        try:
            data = inflater.decompress(data, _SVG_MAX_BYTES + 1)
        except zlib.error:
            return None
    if len(data) > _SVG_MAX_BYTES:
        return None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    declared = _XML_ENCODING_RE.match(text)
    if declared and declared.group(1).strip().lower() not in ("utf-8", "utf8", "us-ascii"):
        return None
    if _SVG_DECLARATION_RE.search(text):
        return None
    try:
        return ElementTree.fromstring(data)
    except (ElementTree.ParseError, ValueError):
        return None


def _self_contained(root: ElementTree.Element) -> bool:
    for element in root.iter():
        if not isinstance(element.tag, str):
            return False
        if _local(element.tag) in _SVG_FOREIGN_TAGS:
            return False
        for name, value in element.attrib.items():
            if _local(name) in ("href", "src") and not value.strip().startswith("#"):
                return False
            if not _svg_text_is_inert(value):
                return False
        if not (_svg_text_is_inert(element.text) and _svg_text_is_inert(element.tail)):
            return False
    return True


def _local(name: str) -> str:
    return name.rsplit("}", 1)[-1].lower()


def _depth(root: ElementTree.Element) -> int:
    deepest, level = 0, [root]
    while level and deepest <= MAX_SVG_DEPTH:
        deepest += 1
        level = [child for element in level for child in element]
    return deepest


def _expanded_size(root: ElementTree.Element) -> int:
    """How many elements *root* draws with every ``<use>`` replaced by what it names (counting
    stops just past the limit; a ``<use>`` that reaches itself counts as over it)."""
    over = MAX_SVG_ELEMENTS + 1
    ids = {element.get("id"): element for element in root.iter() if element.get("id")}

    def target(element: ElementTree.Element) -> ElementTree.Element | None:
        if _local(element.tag) != "use":
            return None
        for name, value in element.attrib.items():
            if _local(name) == "href" and value.strip().startswith("#"):
                return ids.get(value.strip()[1:])
        return None

    size: dict[int, int] = {}
    open_now: set[int] = set()
    stack: list[tuple[ElementTree.Element, bool]] = [(root, False)]
    while stack:
        element, children_done = stack.pop()
        key = id(element)
        named = target(element)
        if children_done:
            total = 1 + sum(size[id(child)] for child in element)
            if named is not None:
                total += size[id(named)]
            size[key] = min(total, over)
            open_now.discard(key)
            continue
        if key in size:
            continue
        if key in open_now:
            return over  # reached from itself: a loop of references
        open_now.add(key)
        stack.append((element, True))
        stack.extend((child, False) for child in element)
        if named is not None:
            stack.append((named, False))
    return size[id(root)]
