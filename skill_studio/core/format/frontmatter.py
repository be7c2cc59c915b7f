"""Writing frontmatter: YAML values that read back exactly, and one-field edits in place."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import yaml

from skill_studio.core.format.skillmd import (
    SkillDocument,
    SkillLoader,
    SkillParseError,
    compose_yaml,
    parse_document,
    quote_scalar_double,
)

_PLAIN_OK = re.compile(r"[A-Za-z0-9_./()][A-Za-z0-9 _./,()'+*&%$@!?=~-]*")


def _reads_as(candidate: str, value: Any) -> bool:
    try:
        return yaml.load(f"k: {candidate}\n", Loader=SkillLoader) == {"k": value}
    except yaml.YAMLError:
        return False


def format_scalar(value: str, indent: str = "") -> str:
    """The text of a YAML value for a string: plain when that reads back exactly,
    a literal block for multi-line text, else double-quoted."""
    if "\n" not in value and _PLAIN_OK.fullmatch(value) and not value.endswith(" ") \
            and _reads_as(value, value):
        return value
    if "\n" in value and "\r" not in value and value.strip() and not value[0].isspace():
        body = value.rstrip("\n")
        trailing = len(value) - len(body)
        chomp = "-" if trailing == 0 else ("" if trailing == 1 else "+")
        block_lines = value.split("\n") if chomp == "+" else body.split("\n")
        if chomp == "+":
            block_lines = block_lines[:-1]
        pad = indent + "  "
        candidate = f"|{chomp}\n" + "\n".join((pad + ln) if ln else "" for ln in block_lines)
        if all(not ln or ln == ln.rstrip() for ln in block_lines) and _reads_as(candidate, value):
            return candidate
    return quote_scalar_double(value)


def format_value(value: Any, indent: str = "") -> str:
    """YAML text for a value of a frontmatter field (strings, lists of strings, maps)."""
    if isinstance(value, str):
        return format_scalar(value, indent)
    if isinstance(value, bool) or value is None or isinstance(value, (int, float)):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        return "".join(f"\n{indent}  - {format_value(v, indent + '    ')}" for v in value)
    if isinstance(value, dict):
        if not value:
            return "{}"
        return "".join("\n" + _entry(k, v, indent + "  ") for k, v in value.items())
    return quote_scalar_double(str(value))


def _entry(key: str, value: Any, indent: str = "") -> str:
    """``key: value`` (no trailing line break); block values start on the next line."""
    text = format_value(value, indent)
    sep = ":" if text.startswith("\n") else ": "
    return f"{indent}{_format_key(key)}{sep}{text}"


def _format_key(key: Any) -> str:
    """A mapping key's text. Keys that are not text (numbers, booleans, null, as YAML allows) are
    written as themselves when that reads back; others raise ValueError."""
    if not isinstance(key, str):
        text = json.dumps(key) if key is None or isinstance(key, (bool, int, float)) else None
        try:
            if text is not None and yaml.load(f"{text}: v\n", Loader=SkillLoader) == {key: "v"}:
                return text
        except yaml.YAMLError:
            pass
        raise ValueError(f"the key {key!r} cannot be written back as it is")
    return key if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", key) and _reads_as(key, key) \
        else quote_scalar_double(key)


def dump_frontmatter(fields: dict[str, Any]) -> str:
    """Frontmatter text (without fences) for a mapping, in the given key order."""
    return "".join(_entry(k, v) + "\n" for k, v in fields.items())


def compose(fields: dict[str, Any], body: str) -> str:
    """A whole SKILL.md from frontmatter fields and a body."""
    return "---\n" + dump_frontmatter(fields) + "---\n" + body


# --- editing one field in place ---------------------------------------------

@dataclass(frozen=True)
class _Span:
    start: int  # offset in the frontmatter text of the key's line start
    end: int    # offset just past the value's last line (line break included)


# Lines as the YAML reader counts them (its marks say where a node is): NEL, LS and PS end one too.
_YAML_LINE = re.compile("[^\r\n\x85\u2028\u2029]*(?:\r\n|[\r\n\x85\u2028\u2029])?")


def _line_offsets(text: str) -> list[int]:
    offsets = [0]
    for m in _YAML_LINE.finditer(text):
        if m.start() == m.end():
            break
        offsets.append(m.end())
    return offsets


def _field_spans(text: str, mapping: yaml.MappingNode) -> dict[str, tuple[_Span, yaml.Node, yaml.Node]]:
    offsets = _line_offsets(text)
    spans: dict[str, tuple[_Span, yaml.Node, yaml.Node]] = {}
    pairs = mapping.value
    loader = SkillLoader("")
    for i, (knode, vnode) in enumerate(pairs):
        start = offsets[knode.start_mark.line]
        end_mark = vnode.end_mark
        # A value ends at its end mark; take the rest of that line too, unless
        # the mark sits at a line start (block values end on the next line).
        end_line = end_mark.line if end_mark.column > 0 else end_mark.line - 1
        end_line = max(end_line, knode.start_mark.line)
        if i + 1 < len(pairs):
            end_line = min(end_line, pairs[i + 1][0].start_mark.line - 1)
        end = offsets[min(end_line + 1, len(offsets) - 1)]
        spans[_key_text(loader, knode)] = (_Span(start, end), knode, vnode)
    loader.dispose()
    return spans


def _key_text(loader: SkillLoader, node: yaml.Node) -> str:
    """A key as the parsed frontmatter has it: the loaded key as text (``false:`` is 'False')."""
    if isinstance(node, yaml.ScalarNode):
        try:
            return str(loader.construct_object(node))
        except yaml.YAMLError:
            return node.value
    return f"\0{id(node)}"  # a list or a map as a key: never a field's name


def _compose(doc: SkillDocument, text: str) -> yaml.Node | None:
    return compose_yaml(text, doc.path, doc.frontmatter_line)


def set_field(doc: SkillDocument, key: str, value: Any, *, under: str | None = None) -> str:
    """The SKILL.md text with one frontmatter field set, everything else unchanged.

    ``under="metadata"`` sets a key of the ``metadata`` map (created if absent).
    ``value=None`` removes the field. Returns the new text; ``doc`` is untouched.

    Raises SkillParseError when the frontmatter is not a YAML mapping, and
    ValueError (naming the file) when the field cannot be edited in place: a
    frontmatter written as one flow mapping, ``under`` naming a value that is not
    a mapping, or a layout a one-field edit cannot keep (the new text is read back
    to make sure that only the field changed).
    """
    try:
        text = _edit(doc, key, value, under)
    except SkillParseError:
        raise
    except ValueError as e:
        where = doc.path or "SKILL.md"
        if str(e).startswith(where):
            raise
        raise ValueError(f"{where}:{doc.frontmatter_line}: '{key}' cannot be edited in place in this "
                         f"frontmatter: {e}") from None
    _check_edit(doc, text, key, value, under)
    return text


def _edit(doc: SkillDocument, key: str, value: Any, under: str | None) -> str:
    fm = doc.frontmatter_text
    nl = doc.newline
    root = _compose(doc, fm)
    if root is None:
        root = yaml.MappingNode("tag:yaml.org,2002:map", [])
    if not isinstance(root, yaml.MappingNode):
        raise SkillParseError("SKILL.md frontmatter must be a YAML mapping", doc.path, doc.frontmatter_line)
    if root.flow_style:
        raise ValueError(f"{doc.path or 'SKILL.md'}:{doc.frontmatter_line}: the frontmatter is written as one "
                         "flow mapping ({...}); write it one key per line to edit a field in place")
    if fm and not fm.endswith(("\n", "\r")):
        fm += nl
    spans = _field_spans(fm, root)
    if under is None:
        indent = " " * (root.start_mark.column if root.value else 0)
        new_fm = _set_in_mapping(fm, spans, key, value, indent, nl, 0, len(fm))
    else:
        parent = spans.get(under)
        vnode = parent[2] if parent is not None else None
        current = doc.data.get(under)
        if current is not None and not isinstance(current, dict):
            raise ValueError(f"{doc.path or 'SKILL.md'}: '{under}' is not a mapping, so '{key}' cannot "
                             f"be written under it; make '{under}' a mapping first")
        if parent is None or not isinstance(vnode, yaml.MappingNode) or vnode.flow_style:
            merged = dict(current or {})
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = value
            return _edit(doc, under, merged or None, None)
        if value is None and set(current or {}) <= {key}:
            return _edit(doc, under, None, None)  # the last key goes, and the empty map with it
        span, knode, _ = parent
        inner = _field_spans(fm, vnode)
        indent = " " * (vnode.start_mark.column if vnode.value else knode.start_mark.column + 2)
        new_fm = _set_in_mapping(fm, inner, key, value, indent, nl, span.start, span.end)
    return doc.prefix + doc.open_fence + new_fm + doc.close_fence + doc.body


def _set_in_mapping(fm: str, spans: dict, key: str, value: Any, indent: str, nl: str,
                    region_start: int, region_end: int) -> str:
    line = ""
    if value is not None:
        line = _entry(key, value, indent).replace("\n", nl) + nl
    if key in spans:
        span = spans[key][0]
        return fm[: span.start] + line + fm[span.end:]
    if value is None:
        return fm
    # Append after the last entry of this mapping, before any trailing comments/blank lines.
    insert_at = max((s.end for s, _, _ in spans.values()), default=region_start)
    insert_at = max(min(insert_at, region_end), region_start)
    if not spans and region_start == 0:
        insert_at = len(fm)
    return fm[:insert_at] + line + fm[insert_at:]


def _plain(value: Any) -> bool:
    """True for values that read back as themselves once written: text, numbers, booleans, None,
    and lists and maps of them."""
    if value is None or isinstance(value, (str, bool, int)):
        return True
    if isinstance(value, float):
        return value == value and value not in (float("inf"), float("-inf"))
    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    return False


def _same(a: Any, b: Any) -> bool:
    return a == b or repr(a) == repr(b)


def _check_edit(doc: SkillDocument, text: str, key: str, value: Any, under: str | None) -> None:
    """Raise ValueError unless ``text`` reads as ``doc`` with only that field changed: what cannot be
    edited in place (explicit keys, anchors, odd layouts) is refused rather than written wrong."""
    where = f"{doc.path or 'SKILL.md'}:{doc.frontmatter_line}"
    what = f"'{under}.{key}'" if under else f"'{key}'"
    try:
        new = parse_document(text, doc.path)
    except SkillParseError as e:
        raise ValueError(f"{where}: {what} cannot be edited in place in this frontmatter "
                         f"(the result would not read: {e.message})") from None
    old_data, new_data = dict(doc.data), dict(new.data)
    if under is not None:
        old_inner = dict(old_data.pop(under, None) or {})
        new_inner = dict(new_data.pop(under, None) or {})
        old_data, new_data = old_inner, new_inner
    got = new_data.pop(key, None)
    old_data.pop(key, None)
    changed = not _same(old_data, new_data) or (new.body, new.prefix) != (doc.body, doc.prefix)
    if not changed and _plain(value):
        changed = not _same(got, list(value) if isinstance(value, tuple) else value)
    if changed:
        raise ValueError(f"{where}: {what} cannot be edited in place in this frontmatter (its layout "
                         "is beyond what a one-field edit can keep); edit the file as text")
