"""The studio's fields in a SKILL.md: tags, dependencies, triggers, parent and steps, wherever a tool put them."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from skill_studio.core.format.skillmd import SkillDocument

# (steps, the numbered-list reader, is imported where steps are read or written: checking a
# skill needs none of it)

if TYPE_CHECKING:
    from skill_studio.core.model import Skill

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
        import json  # (a list or a map written as text: rare, and never while checking a skill)

        return json.dumps(_jsonable(value), ensure_ascii=False, default=str)
    return _leaf_text(value)


def _leaf_text(value: Any) -> str:
    """A YAML scalar that is not a string as text: a number or a date as written; binary data
    (``!!binary``) as its UTF-8 text (never a Python ``b'...'`` repr)."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="replace")
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


def name_value(value: Any) -> str | None:
    """The text a frontmatter's ``name`` value gives a skill, or None when it gives none (absent,
    empty, a list, a mapping or binary data: then the folder's name is used)."""
    if value is None or isinstance(value, (dict, list, bytes, bytearray)):
        return None
    text = (value if isinstance(value, str) else _leaf_text(value)).strip()
    return text or None


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
    loc = steps_location(data)
    raw = None if loc is None else data[loc[1]] if loc[0] is None else data["metadata"][loc[1]]
    out["steps"] = _steps(raw)
    return out


def steps_location(data: dict[str, Any]) -> tuple[str | None, str] | None:
    """Where a frontmatter keeps its steps: a top-level ``steps`` (None, "steps"), the studio's
    place ("metadata", "steps"), or None when it has none there."""
    if "steps" in data:
        return None, "steps"
    meta = data.get("metadata")
    if isinstance(meta, dict) and "steps" in meta:
        return "metadata", "steps"
    return None


def _steps(raw: Any) -> list[dict[str, Any]]:
    actions: list[str] = []
    if isinstance(raw, list):
        for item in raw:
            if isinstance(item, dict):
                action = item.get("action") or item.get("step") or item.get("description")
            else:
                action = item
            if action is not None and str(action).strip():
                actions.append(str(action).strip())
    elif isinstance(raw, str):
        from skill_studio.core.format.steps import steps_from_text

        actions = steps_from_text(raw)
    return [{"n": n, "action": a} for n, a in enumerate(actions, 1)]


def steps_from_body(body: str) -> list[dict[str, Any]]:
    """The numbered list under the first 'Steps'-like heading of the body that has one, as steps:
    each one a whole list item (its wrapped lines, code blocks and nested lists kept)."""
    from skill_studio.core.format.steps import find_step_list

    found = find_step_list(body)
    actions = [] if found is None else [a for a in found.items if a]
    return [{"n": n, "action": a} for n, a in enumerate(actions, 1)]


def _jsonable(value: Any) -> Any:
    """The value with every key a string and every leaf JSON can hold (dates as ISO text)."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return _leaf_text(value)


def to_skill(doc: SkillDocument, folder_name: str | None = None, **overrides: Any) -> Skill:
    """The store's view of a parsed SKILL.md (review state left at the model's defaults).

    The name is the frontmatter's (stripped), else the folder's.
    """
    from skill_studio.core.model import Skill

    data = doc.data
    name = name_value(data.get("name")) or folder_name or ""
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
        metadata=_jsonable(meta) if isinstance(meta, dict) else {},
        extra=_jsonable(extra),
        folder_name=folder_name,
        skill_md=doc.text,
        **fields,
        **overrides,
    )


def set_studio_field(doc: SkillDocument, field_name: str, value: Any) -> str:
    """SKILL.md text with one studio field (tags, depends_on, conflicts_with, trigger_pattern,
    parent_skill_id, steps) set, everything else unchanged.

    A field the file already has is rewritten where it is, in the same shape (a
    top-level list stays a list); a new one goes under ``metadata`` as a
    string, lists space-separated, steps as a numbered Markdown list, so the
    file still passes the strict profile. An empty value removes the field.
    """
    from skill_studio.core.format.frontmatter import set_field

    if field_name == "steps":
        return _set_steps(doc, value, set_field)
    if field_name in LIST_FIELDS:
        items = _as_list(value)
        value = items or None
    else:
        value = str(value).strip() if value is not None and str(value).strip() else None
    loc = field_location(doc.data, field_name)
    if loc is not None and loc[0] is None:  # top level, as Cortex-style files have it
        key = loc[1]
        if value is not None and field_name in LIST_FIELDS and not isinstance(doc.data[key], list):
            value = " ".join(value)
        return set_field(doc, key, value)
    if isinstance(value, list):
        value = " ".join(value)
    return set_field(doc, metadata_key(field_name), value, under="metadata")


def _set_steps(doc: SkillDocument, value: Any, set_field: Any) -> str:
    """The text with the steps (texts, or ``{"action": ...}`` items) written where the file keeps
    them: a top-level list stays a list of texts; anywhere else they are one numbered list."""
    from skill_studio.core.format.steps import render_steps

    items = [v.get("action") if isinstance(v, dict) else v for v in (value or [])]
    actions = [str(a).strip() for a in items if a is not None and str(a).strip()]
    loc = steps_location(doc.data)
    if loc is not None and loc[0] is None:
        if isinstance(doc.data["steps"], list):
            return set_field(doc, "steps", actions or None)
        return set_field(doc, "steps", render_steps(actions).rstrip("\n") or None)
    return set_field(doc, "steps", render_steps(actions).rstrip("\n") or None, under="metadata")
