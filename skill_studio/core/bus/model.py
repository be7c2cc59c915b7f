"""What a binding is (SPEC §9) and the rules a valid one follows, apart from the store and the
dispatcher so that both can use them: conditions, actions and their parameters, validation, and
what dispatching an event gives back (Outcome, Dispatched)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

#: action -> (required parameters, optional parameters)
ACTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "invoke_skill": ((), ("arguments",)),
    "inject_context": (("text",), ()),
    "emit_event": (("event_type",), ("payload",)),
    "call_tool": (("tool",), ("arguments",)),
    "notify": (("message",), ("channel",)),
}

#: Event types offered by the GUI; any other name is allowed too.
KNOWN_EVENT_TYPES: tuple[str, ...] = (
    "session_start", "session_end", "user_prompt", "tool_call", "tool_result", "file_changed",
    "file_created", "test_failed", "test_passed", "build_failed", "build_finished", "commit_created",
    "pr_opened", "pr_merged", "deploy_finished", "error_logged",
)

MAX_DEPTH = 5   # emit_event chains stop here
MAX_PRIORITY = 1_000_000
MAX_COOLDOWN = 365 * 86400

#: The naming rule of agent tool registries: lowercase words joined by underscores.
TOOL_NAME = re.compile(r"^[a-z][a-z0-9_]*$")

MISSING: Any = object()


def lookup(payload: Any, path: str) -> Any:
    """The value of ``path`` in an event payload, or MISSING. A key holding the whole path wins;
    otherwise dots reach into nested objects ("file.path") and numbers into lists ("files.0")."""
    if isinstance(payload, dict) and path in payload:
        return payload[path]
    value = payload
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return MISSING
    return value


def text_of(value: Any) -> str:
    """How a payload value is compared: a string as it is, anything else as its compact JSON
    text (true, 3, 1.5, null, ["a"], {"k":1})."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


@dataclass(frozen=True)
class Condition:
    """One field of the event payload and what it must be: an exact value, or ``/regex/`` (found
    anywhere in the value, re.search). Non-string values are compared as their JSON text (see
    ``text_of``); a missing field never matches."""

    field: str
    value: str

    @property
    def is_regex(self) -> bool:
        return len(self.value) > 2 and self.value.startswith("/") and self.value.endswith("/")

    @property
    def pattern(self) -> str | None:
        return self.value[1:-1] if self.is_regex else None

    @property
    def label(self) -> str:
        """``file.path ~ /\\.py$/`` or ``branch = "main"``."""
        if self.is_regex:
            return f"{self.field} ~ {self.value}"
        return f"{self.field} = {json.dumps(self.value, ensure_ascii=False)}"

    def matches(self, payload: dict) -> bool:
        """Whether the payload meets this condition (False too for a regex that does not compile)."""
        found = lookup(payload, self.field)
        if found is MISSING:
            return False
        text = text_of(found)
        if not self.is_regex:
            return text == self.value
        try:
            return re.search(self.value[1:-1], text) is not None
        except re.error:
            return False


@dataclass
class Binding:
    """A skill wired to an event: when an event of ``event_type`` meets every condition, the
    action is taken (SPEC §9). ``id`` and ``last_fired_at`` are the store's."""

    skill: str
    event_type: str
    action: str = "invoke_skill"
    params: dict = field(default_factory=dict)
    conditions: list[Condition] = field(default_factory=list)
    priority: int = 0
    cooldown: float = 0.0          # seconds
    enabled: bool = True
    id: int | None = None
    last_fired_at: str | None = None


class BindingError(ValueError):
    """A binding that cannot be stored: ``errors`` maps each field ("skill", "event_type",
    "action", "params.<name>", "conditions[<i>].field", "conditions[<i>].value", "priority",
    "cooldown") to what is wrong with it. The message lists them, one per line."""

    def __init__(self, errors: dict[str, str]):
        self.errors = dict(errors)
        super().__init__("\n".join(f"{k}: {v}" for k, v in self.errors.items()))


def check_condition_value(value: str) -> str | None:
    """None, or why a ``/regex/`` condition value does not compile (as the user types it)."""
    if not (isinstance(value, str) and len(value) > 2 and value.startswith("/") and value.endswith("/")):
        return None
    try:
        re.compile(value[1:-1])
    except re.error as e:
        return f"invalid regex: {e}"
    return None


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip()) or value in ({}, [])


def check(b: Binding, has_skill: Callable[[str], bool]) -> dict[str, str]:
    """Every problem of a binding, by field ({} when it is valid). ``has_skill(name)`` says
    whether the store holds that skill."""
    errors: dict[str, str] = {}
    if not isinstance(b.skill, str) or not b.skill.strip():
        errors["skill"] = "a skill is required"
    elif not has_skill(b.skill):
        errors["skill"] = f'no skill named "{b.skill}"'
    if not isinstance(b.event_type, str) or not b.event_type.strip():
        errors["event_type"] = "an event type is required"
    elif b.event_type != b.event_type.strip():
        errors["event_type"] = "the event type has spaces around it"
    if b.action not in ACTIONS:
        errors["action"] = f'unknown action "{b.action}" (one of {", ".join(ACTIONS)})'
    else:
        errors.update(_check_params(b.action, b.params))
    if not isinstance(b.conditions, list):
        errors["conditions"] = "conditions must be a list of (field, value)"
    else:
        for i, c in enumerate(b.conditions):
            if not isinstance(c, Condition):
                errors[f"conditions[{i}].field"] = "not a condition (field and value)"
                continue
            if not isinstance(c.field, str) or not c.field.strip():
                errors[f"conditions[{i}].field"] = "the field is required"
            if not isinstance(c.value, str):
                errors[f"conditions[{i}].value"] = "the value must be text (an exact value or /regex/)"
            elif (problem := check_condition_value(c.value)) is not None:
                errors[f"conditions[{i}].value"] = problem
    if isinstance(b.priority, bool) or not isinstance(b.priority, int):
        errors["priority"] = "the priority must be a whole number"
    elif abs(b.priority) > MAX_PRIORITY:
        errors["priority"] = f"the priority must be between {-MAX_PRIORITY:,} and {MAX_PRIORITY:,}"
    if isinstance(b.cooldown, bool) or not isinstance(b.cooldown, (int, float)) or not math.isfinite(b.cooldown):
        errors["cooldown"] = "the cooldown must be a number of seconds"
    elif b.cooldown < 0:
        errors["cooldown"] = "the cooldown cannot be negative"
    elif b.cooldown > MAX_COOLDOWN:
        errors["cooldown"] = f"the cooldown can be at most {MAX_COOLDOWN:,} seconds (a year)"
    return errors


def _check_params(action: str, params: Any) -> dict[str, str]:
    if not isinstance(params, dict):
        return {"params": "parameters must be a mapping of names to values"}
    required, optional = ACTIONS[action]
    errors = {}
    for name in required:
        if _blank(params.get(name)):
            errors[f"params.{name}"] = f"{name} is required for {action}"
    for name in params:
        if name not in required and name not in optional:
            takes = ", ".join(required + optional) or "none"
            errors[f"params.{name}"] = f'{action} takes no parameter "{name}" (it takes: {takes})'
    if action == "call_tool" and "params.tool" not in errors:
        tool = params["tool"]
        if not isinstance(tool, str) or not TOOL_NAME.match(tool):
            errors["params.tool"] = (f'tool name "{tool}" must be lowercase letters, digits and underscores, '
                                     "starting with a letter (like word_count)")
    if action == "call_tool" and not isinstance(params.get("arguments", {}), dict):
        errors["params.arguments"] = "arguments must be a mapping of names to values (a JSON object)"
    if action == "emit_event" and not isinstance(params.get("payload", {}), dict):
        errors["params.payload"] = "the payload must be a mapping (a JSON object)"
    for name in ("text", "message", "event_type", "channel"):
        if name in params and f"params.{name}" not in errors and not isinstance(params[name], str):
            errors[f"params.{name}"] = f"{name} must be text"
    return errors


@dataclass
class Outcome:
    """What one binding did with an event: fired, or the reason it was skipped."""

    binding: Binding         # as the bus's index holds it: copy it before changing it
    fired: bool
    reason: str              # "fired", or why it was skipped
    result: dict | None      # what the action would do (fired bindings only)
    duration_ms: float       # the binding's own work: describing its action. A skipped binding has
                             # none (0.0): conditions are tested once per event for all bindings
                             # that share them, which the event's duration counts.

    @property
    def failed(self) -> bool:
        """It fired but its action could not be done (a skill gone, the depth limit)."""
        return self.result is not None and ("error" in self.result or "stopped" in self.result)


class Dispatched:
    """One dispatched event: every binding of its type considered, and the events it emitted.

    ``outcomes`` (priority desc, then id) may be given as a function that makes them, called the
    first time they are asked for; ``failed`` then tells whether an action failed."""

    def __init__(self, event_type: str, payload: dict, at: str, outcomes: list[Outcome] | Callable[[], list[Outcome]],
                 emitted: list[Dispatched], event_id: int | None, depth: int = 0, duration_ms: float = 0.0, *,
                 failed: bool | None = None):
        self.event_type, self.payload, self.at = event_type, payload, at
        self.emitted = emitted
        self.event_id = event_id         # its row in the log (None when not recorded)
        self.depth = depth               # 0, or how many emit_event steps led to it
        self.duration_ms = duration_ms   # this event alone (and its log row), without those it emitted
        # Exactly one is set: the outcomes, or the function that makes them.
        self._outcomes: list[Outcome] | None
        self._make: Callable[[], list[Outcome]] | None
        self._outcomes, self._make = (None, outcomes) if callable(outcomes) else (list(outcomes), None)
        self._failed = failed

    @property
    def outcomes(self) -> list[Outcome]:
        if self._outcomes is None:
            assert self._make is not None   # set whenever the outcomes are not
            self._outcomes, self._make = self._make(), None
        return self._outcomes

    @property
    def fired(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.fired]

    @property
    def ok(self) -> bool:
        """No action failed, here or in any event emitted from here."""
        if self._failed is None:
            self._failed = any(o.failed for o in self.outcomes)
        return not self._failed and all(e.ok for e in self.emitted)

    def __repr__(self) -> str:
        return f"Dispatched({self.event_type!r}, event_id={self.event_id}, depth={self.depth})"
