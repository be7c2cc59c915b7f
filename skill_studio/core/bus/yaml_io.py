"""Bindings as YAML: a list of mappings, one per binding, without ids or cooldown state.

    - skill: lint-python
      event_type: file_changed
      action: invoke_skill
      params: {}
      conditions:
      - field: file.path
        value: /\\.py$/
      priority: 5
      cooldown: 60
      enabled: true

An import checks every entry first and adds all of them in one transaction, or none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import yaml

from skill_studio.core.bus.model import Binding, BindingError, Condition, check, text_of
from skill_studio.core.format.yaml_guard import YamlBoundError, check_bounds

try:
    from yaml import CSafeDumper as _Dumper
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - PyYAML without libyaml
    from yaml import SafeDumper as _Dumper  # type: ignore[assignment]  # the C classes' pure-Python twins
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]  # the same

if TYPE_CHECKING:
    from skill_studio.core.store import Store

#: The largest bindings file read (thousands of bindings fit in far less).
MAX_FILE_BYTES = 10 * 1024 * 1024
#: Most values a bindings file may hold once its aliases are expanded (some 20,000 bindings).
MAX_VALUES = 200_000

KEYS = ("skill", "event_type", "action", "params", "conditions", "priority", "cooldown", "enabled")
_IGNORED = ("id", "last_fired_at")     # a store's own state: never imported


def as_mapping(b: Binding) -> dict[str, Any]:
    cooldown = b.cooldown
    if isinstance(cooldown, float) and cooldown.is_integer():
        cooldown = int(cooldown)
    return {"skill": b.skill, "event_type": b.event_type, "action": b.action, "params": dict(b.params),
            "conditions": [{"field": c.field, "value": c.value} for c in b.conditions],
            "priority": b.priority, "cooldown": cooldown, "enabled": bool(b.enabled)}


def export_yaml(bindings: list[Binding]) -> str:
    """A YAML document listing the bindings, keys always in the same order."""
    return yaml.dump([as_mapping(b) for b in bindings], Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                     default_flow_style=False, width=100)


def import_yaml(store: Store, text: str) -> list[Binding]:
    """Read bindings from YAML, check every one, add them all (one transaction) and return them
    with their ids. Raises BindingError naming each bad entry ("binding 3: skill", counting
    from 1) or the YAML error with its line, and then adds none."""
    try:
        check_bounds(text, max_values=MAX_VALUES, what="bindings file")
    except YamlBoundError as e:
        raise BindingError({"yaml": f"line {e.line + 1}, column {e.column + 1}: {e}"}) from None
    try:
        data = yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as e:
        raise BindingError({"yaml": _yaml_problem(e)}) from None
    if data is None:
        return []
    if isinstance(data, dict) and isinstance(data.get("bindings"), list):
        data = data["bindings"]
    if not isinstance(data, list):
        raise BindingError({"yaml": "expected a list of bindings (mappings with skill, event_type, action, ...)"})
    errors: dict[str, str] = {}
    batch: list[Binding] = []
    for i, entry in enumerate(data, 1):
        b, problems = from_mapping(entry)
        if b is not None:
            problems.update(check(b, store.__contains__))
            batch.append(b)
        # (no binding comes with a problem of the entry itself: then nothing is added)
        errors.update({f"binding {i}: {k}" if k else f"binding {i}": v for k, v in problems.items()})
    if errors:
        raise BindingError(errors)
    return store.add_bindings(batch)


def from_mapping(entry: Any) -> tuple[Binding | None, dict[str, str]]:
    """A binding from one YAML entry, and what is wrong with its shape (by field; "" for the
    entry itself). Conditions may be a list of {field, value} or a mapping field -> value
    (also under the key ``match``); non-text values are read as their JSON text."""
    if not isinstance(entry, dict):
        return None, {"": "must be a mapping with skill, event_type, action, ..."}
    problems: dict[str, str] = {}
    entry = dict(entry)
    if "match" in entry and "conditions" not in entry:
        entry["conditions"] = entry.pop("match")
    for key in entry:
        if key not in KEYS and key not in _IGNORED:
            problems[str(key)] = f"unknown key (expected: {', '.join(KEYS)})"
    conditions: list[Condition] = []
    raw = entry.get("conditions") or []
    if isinstance(raw, dict):
        raw = [{"field": k, "value": v} for k, v in raw.items()]
    if not isinstance(raw, list):
        problems["conditions"] = "conditions must be a list of {field, value}"
        raw = []
    for i, c in enumerate(raw):
        if not isinstance(c, dict) or set(c) - {"field", "value"} or "field" not in c:
            problems[f"conditions[{i}]"] = "a condition is a mapping with field and value"
            continue
        value = c.get("value", "")
        conditions.append(Condition("" if c["field"] is None else str(c["field"]),
                                    value if isinstance(value, str) else text_of(value)))
    params = entry.get("params")
    enabled = entry.get("enabled", True)
    if not isinstance(enabled, bool):
        problems["enabled"] = "enabled must be true or false"
    b = Binding(skill=_text(entry.get("skill")), event_type=_text(entry.get("event_type")),
                action=_text(entry.get("action", "invoke_skill")), params={} if params is None else params,
                conditions=conditions, priority=entry.get("priority", 0), cooldown=entry.get("cooldown", 0.0),
                enabled=enabled is not False)
    return b, problems


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _yaml_problem(e: yaml.YAMLError) -> str:
    mark = getattr(e, "problem_mark", None)
    problem = getattr(e, "problem", None) or str(e)
    if mark is None:
        return problem
    return f"line {mark.line + 1}, column {mark.column + 1}: {problem}"
