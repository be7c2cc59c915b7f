"""SKILL.md codec: split, parse and edit the file without losing a byte."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterator

import yaml

try:  # The C loader is several times faster; fall back to pure Python when absent.
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

MAX_SKILL_MD_BYTES = 5 * 1024 * 1024

_FENCE = re.compile(r"---[ \t]*")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\n|\r)?")


class SkillParseError(ValueError):
    """A SKILL.md that cannot be read: names the file, the 1-based line and column."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None,
                 column: int | None = None, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line
        self.column = column
        self.hint = hint

    def __str__(self) -> str:
        where = self.path or "SKILL.md"
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        text = f"{where}: {self.message}"
        if self.hint:
            text += f" ({self.hint})"
        return text


@dataclass
class SkillDocument:
    """A SKILL.md split into its parts; ``text == prefix + open_fence + frontmatter_text + close_fence + body``."""

    text: str
    prefix: str
    open_fence: str
    frontmatter_text: str
    close_fence: str
    body: str
    data: dict[str, Any] = field(default_factory=dict)
    path: str | None = None

    @property
    def head(self) -> str:
        """Everything before the body."""
        return self.prefix + self.open_fence + self.frontmatter_text + self.close_fence

    @property
    def frontmatter_line(self) -> int:
        """1-based line of SKILL.md where the frontmatter's first line sits."""
        return _count_lines(self.prefix + self.open_fence) + 1

    @property
    def body_line(self) -> int:
        return _count_lines(self.head) + 1

    @property
    def newline(self) -> str:
        m = re.search(r"\r\n|\n|\r", self.text)
        return m.group(0) if m else "\n"


def _count_lines(text: str) -> int:
    return text.count("\n") + text.count("\r") - text.count("\r\n")


def decode(data: bytes, path: str | None = None) -> str:
    """Decode SKILL.md bytes exactly (BOM kept as U+FEFF, line endings untouched).

    Raises SkillParseError for files over the size limit and invalid UTF-8.
    """
    if len(data) > MAX_SKILL_MD_BYTES:
        raise SkillParseError(
            f"file is {len(data):,} bytes, over the {MAX_SKILL_MD_BYTES:,}-byte limit for SKILL.md",
            path, 1, 1)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        before = data[: e.start]
        line = before.count(b"\n") + 1
        column = e.start - (before.rfind(b"\n") + 1) + 1
        raise SkillParseError(
            f"invalid UTF-8 (byte 0x{data[e.start]:02x}); SKILL.md must be UTF-8 text",
            path, line, column) from None


def split(text: str, path: str | None = None) -> SkillDocument:
    """Split SKILL.md text into prefix, fences, frontmatter and body without parsing YAML.

    Leading BOM and blank lines are tolerated (kept in ``prefix``). The closing
    fence is the first line that is ``---`` by itself (unlike the reference
    validator, which splits on ``---`` anywhere in the text; the format says
    the frontmatter ends at the next ``---`` line).
    Raises SkillParseError when there is no frontmatter or it is not closed.
    """
    if len(text) > MAX_SKILL_MD_BYTES:
        raise SkillParseError(f"file is over the {MAX_SKILL_MD_BYTES:,}-byte limit for SKILL.md",
                              path, 1, 1)
    pos = 0
    if text.startswith("\ufeff"):
        pos = 1
    lines = _LINE.finditer(text, pos)
    open_start = open_end = None
    line_no = 0
    for m in lines:
        line_no += 1
        if m.start() == m.end():
            break
        raw = m.group(0).rstrip("\r\n")
        if not raw.strip():
            continue
        if _FENCE.fullmatch(raw):
            open_start, open_end = m.start(), m.end()
        break
    if open_start is None:
        raise SkillParseError("SKILL.md must start with YAML frontmatter (---)", path, max(line_no, 1), 1)
    fm_start = open_end
    for m in _LINE.finditer(text, fm_start):
        if m.start() == m.end():
            break
        line_no += 1
        raw = m.group(0).rstrip("\r\n")
        if _FENCE.fullmatch(raw):
            return SkillDocument(
                text=text, prefix=text[:open_start], open_fence=text[open_start:open_end],
                frontmatter_text=text[fm_start:m.start()], close_fence=m.group(0),
                body=text[m.end():], path=path)
    raise SkillParseError("SKILL.md frontmatter not properly closed with ---", path,
                          _count_lines(text[:open_start]) + 1, 1)


def load_yaml(text: str, path: str | None = None, first_line: int = 1) -> Any:
    """Load frontmatter YAML with the ordinary (safe) parser; errors carry SKILL.md line numbers."""
    try:
        return yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as e:
        raise _yaml_error(e, text, path, first_line) from None


def _yaml_error(e: yaml.YAMLError, text: str, path: str | None, first_line: int) -> SkillParseError:
    mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
    problem = getattr(e, "problem", None) or str(e)
    context = getattr(e, "context", None)
    message = f"invalid YAML in frontmatter: {problem}"
    if context:
        message += f" ({context})"
    line = column = None
    hint = None
    if mark is not None:
        line = first_line + mark.line
        column = mark.column + 1
        if "mapping values are not allowed" in problem:
            hint, line = colon_hint(text, mark.line, first_line)
    return SkillParseError(message, path, line, column, hint)


def colon_hint(text: str, bad_line: int, first_line: int) -> tuple[str | None, int]:
    """The common real mistake: an unquoted value holding ': '. Offer the quoted form.

    ``bad_line`` is 0-based in ``text``, whose first line is SKILL.md line ``first_line``.
    Returns the hint (None when the line is not that mistake) and the SKILL.md line.
    """
    lines = text.splitlines()
    if 0 <= bad_line < len(lines):
        m = re.match(r"^(\s*)([A-Za-z0-9_-]+):[ \t]+(.*\S)\s*$", lines[bad_line])
        if m and ": " in m.group(3) and m.group(3)[0] not in "\"'|>[{":
            fixed = f"{m.group(1)}{m.group(2)}: {quote_scalar_double(m.group(3))}"
            return f"the value holds ': ' unquoted; quote it: {fixed.strip()}", first_line + bad_line
    return None, first_line + bad_line


def parse_document(data: bytes | str, path: str | None = None) -> SkillDocument:
    """Parse SKILL.md (bytes or text) leniently: any YAML the ordinary parser accepts.

    Returns the split document with ``data`` holding the frontmatter mapping.
    Raises SkillParseError (file, line, column) for invalid UTF-8, oversize
    files, missing or unclosed frontmatter, unparseable YAML, or frontmatter
    that is not a mapping.
    """
    text = decode(data, path) if isinstance(data, (bytes, bytearray)) else data
    doc = split(text, path)
    first = doc.frontmatter_line
    loaded = load_yaml(doc.frontmatter_text, path, first)
    if loaded is None:
        loaded = {}
    if not isinstance(loaded, dict):
        raise SkillParseError("SKILL.md frontmatter must be a YAML mapping", path, first, 1)
    doc.data = {str(k): v for k, v in loaded.items()}
    return doc


# --- writing ---------------------------------------------------------------

_PLAIN_OK = re.compile(r"[A-Za-z0-9_./()][A-Za-z0-9 _./,()'+*&%$@!?=~-]*")


def quote_scalar_double(value: str) -> str:
    """A double-quoted YAML scalar that reads back as exactly ``value``."""
    return json.dumps(value, ensure_ascii=False)


def _reads_as(candidate: str, value: Any) -> bool:
    try:
        return yaml.load(f"k: {candidate}\n", Loader=_Loader) == {"k": value}
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


def _format_key(key: str) -> str:
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


def _line_offsets(text: str) -> list[int]:
    offsets = [0]
    for m in _LINE.finditer(text):
        if m.start() == m.end():
            break
        offsets.append(m.end())
    return offsets


def _field_spans(text: str, mapping: yaml.MappingNode) -> dict[str, tuple[_Span, yaml.Node, yaml.Node]]:
    offsets = _line_offsets(text)
    spans: dict[str, tuple[_Span, yaml.Node, yaml.Node]] = {}
    pairs = mapping.value
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
        spans[str(knode.value)] = (_Span(start, end), knode, vnode)
    return spans


def _compose(text: str) -> yaml.Node | None:
    return yaml.compose(text, Loader=_Loader)


def set_field(doc: SkillDocument, key: str, value: Any, *, under: str | None = None) -> str:
    """The SKILL.md text with one frontmatter field set, everything else unchanged.

    ``under="metadata"`` sets a key of the ``metadata`` map (created if absent).
    ``value=None`` removes the field. Returns the new text; ``doc`` is untouched.
    """
    fm = doc.frontmatter_text
    nl = doc.newline
    root = _compose(fm)
    if root is None:
        root = yaml.MappingNode("tag:yaml.org,2002:map", [])
    if not isinstance(root, yaml.MappingNode):
        raise SkillParseError("SKILL.md frontmatter must be a YAML mapping", doc.path, doc.frontmatter_line)
    if fm and not fm.endswith(("\n", "\r")):
        fm += nl
    spans = _field_spans(fm, root)
    if under is None:
        new_fm = _set_in_mapping(fm, spans, key, value, "", nl, 0, len(fm))
    else:
        parent = spans.get(under)
        if parent is None or not isinstance(parent[2], yaml.MappingNode) or parent[2].flow_style:
            current = doc.data.get(under) if isinstance(doc.data.get(under), dict) else {}
            merged = dict(current)
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = value
            return set_field(doc, under, merged or None)
        span, knode, vnode = parent
        inner = _field_spans(fm, vnode)
        indent = " " * (vnode.value[0][0].start_mark.column if vnode.value else knode.start_mark.column + 2)
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


# --- the studio's view of the frontmatter -------------------------------------

STANDARD_KEYS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")

# Where each studio field may sit: top-level spellings, then the metadata key.
_STUDIO_FIELDS: dict[str, tuple[tuple[str, ...], str]] = {
    "tags": (("tags",), "tags"),
    "depends_on": (("depends_on", "depends-on", "dependsOn"), "depends-on"),
    "conflicts_with": (("conflicts_with", "conflicts-with", "conflictsWith"), "conflicts-with"),
    "trigger_pattern": (("trigger_pattern", "triggerPattern", "trigger-pattern"), "trigger-pattern"),
    "parent_skill_id": (("parent", "parent_skill_id", "parent-skill"), "parent"),
}
LIST_FIELDS = frozenset({"tags", "depends_on", "conflicts_with"})


def metadata_key(field_name: str) -> str:
    """The key under ``metadata`` where the studio writes a field the file did not have."""
    return _STUDIO_FIELDS[field_name][1]


def field_location(data: dict[str, Any], field_name: str) -> tuple[str | None, str] | None:
    """Where a studio field sits in the frontmatter: (None, key) top level, ("metadata", key), or None."""
    top, meta_key = _STUDIO_FIELDS[field_name]
    for key in top:
        if key in data:
            return None, key
    meta = data.get("metadata")
    if isinstance(meta, dict) and meta_key in meta:
        return "metadata", meta_key
    return None


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [p for p in re.split(r"[\s,]+", value) if p]
    if isinstance(value, (list, tuple)):
        return [str(v).strip() for v in value if v is not None and str(v).strip()]
    return [str(value)]


def _as_text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


def studio_fields(data: dict[str, Any]) -> dict[str, Any]:
    """The store's fields read from a frontmatter mapping (either place a tool puts them)."""
    out: dict[str, Any] = {}
    for field_name in _STUDIO_FIELDS:
        loc = field_location(data, field_name)
        raw = None
        if loc is not None:
            raw = data[loc[1]] if loc[0] is None else data["metadata"][loc[1]]
        if field_name in LIST_FIELDS:
            out[field_name] = list(dict.fromkeys(_as_list(raw)))
        else:
            text = _as_text(raw)
            out[field_name] = text.strip() if text and text.strip() else None
    out["steps"] = _steps(data.get("steps"))
    return out


def _steps(raw: Any) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = []
    if isinstance(raw, list):
        for item in raw:
            if isinstance(item, dict):
                action = item.get("action") or item.get("step") or item.get("description")
            else:
                action = item
            if action is not None and str(action).strip():
                steps.append({"n": len(steps) + 1, "action": str(action).strip()})
    return steps


_STEPS_HEADING = re.compile(r"^#{1,6}\s+(steps|procedure|workflow|instructions|how to use)\b.*$",
                            re.IGNORECASE | re.MULTILINE)
_NUMBERED = re.compile(r"^\s{0,3}(\d+)[.)]\s+(.+?)\s*$")


def _lines_from(text: str, pos: int) -> Iterator[str]:
    """The lines of ``text`` from ``pos`` on, produced one at a time."""
    n = len(text)
    while pos < n:
        end = text.find("\n", pos)
        end = n if end < 0 else end
        yield text[pos:end].rstrip("\r")
        pos = end + 1


def steps_from_body(body: str) -> list[dict[str, Any]]:
    """The numbered list under the first 'Steps'-like heading of the body, as steps."""
    m = _STEPS_HEADING.search(body)
    if not m:
        return []
    steps: list[dict[str, Any]] = []
    in_fence = False
    for line in _lines_from(body, m.end()):
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if line.startswith("#"):
            break
        num = _NUMBERED.match(line)
        if num:
            steps.append({"n": len(steps) + 1, "action": num.group(2)})
        elif steps and line.strip() and not line.startswith((" ", "\t")):
            break
    return steps


def to_skill(doc: SkillDocument, folder_name: str | None = None, **overrides: Any) -> "Skill":
    """The store's view of a parsed SKILL.md (review state left at the model's defaults).

    The name is the frontmatter's (stripped), else the folder's.
    """
    from skill_studio.core.model import Skill

    data = doc.data
    name = data.get("name")
    name = str(name).strip() if name is not None and str(name).strip() else (folder_name or "")
    fields = studio_fields(data)
    if not fields["steps"]:
        fields["steps"] = steps_from_body(doc.body)
    meta = data.get("metadata")
    extra = {k: v for k, v in data.items() if k not in STANDARD_KEYS}
    desc = data.get("description")
    return Skill(
        name=name,
        description=(_as_text(desc) or "").strip(),
        content=doc.body,
        license=_as_text(data.get("license")),
        compatibility=_as_text(data.get("compatibility")),
        allowed_tools=_as_text(data.get("allowed-tools")),
        metadata=json.loads(json.dumps(meta, default=str)) if isinstance(meta, dict) else {},
        extra=json.loads(json.dumps(extra, default=str)),
        folder_name=folder_name,
        skill_md=doc.text,
        **fields,
        **overrides,
    )
