"""The skill bus (SPEC §9): bindings wire skills to events; dispatching an event fires the
bindings whose conditions hold, by priority, and logs what each one did or why it was skipped.

Actions are described, never executed against a real agent: ``invoke_skill`` resolves the skill
(version, content size, location), ``inject_context`` fills in the text, ``emit_event``
dispatches the emitted event in turn (up to MAX_DEPTH), ``call_tool`` and ``notify`` say what
would be sent. Bindings are indexed by event type per store, kept while the store's bindings,
skills and settings stay the same, so dispatching never scans them all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from skill_studio.core.bus.actions import fill_text, fill_value
from skill_studio.core.bus.engine import MAX_EMITTED, Index, Run, forget, index_of
from skill_studio.core.bus.model import (
    ACTIONS,
    KNOWN_EVENT_TYPES,
    MAX_COOLDOWN,
    MAX_DEPTH,
    MAX_PRIORITY,
    Binding,
    BindingError,
    Condition,
    Dispatched,
    Outcome,
    check,
    check_condition_value,
)
from skill_studio.core.bus.yaml_io import as_mapping, export_yaml, import_yaml
from skill_studio.core.health import scores
from skill_studio.core.store import EventRecord, Store

__all__ = ["ACTIONS", "KNOWN_EVENT_TYPES", "MAX_COOLDOWN", "MAX_DEPTH", "MAX_PRIORITY", "MAX_EMITTED", "Binding",
           "BindingError", "BusStatus",
           "Condition", "Dispatched", "EventRecord", "Outcome", "binding_json", "check_condition_value", "describe",
           "dispatch", "dispatched_json", "explain", "export_yaml", "fill_text", "fill_value", "import_yaml",
           "status", "validate"]


def validate(store: Store, b: Binding) -> dict[str, str]:
    """Every problem of a binding by field ({} when valid); see BindingError for the fields."""
    return check(b, store.__contains__)


@dataclass
class BusStatus:
    """The bus status line (SPEC §9)."""

    total: int
    enabled: int
    cooling: int                 # enabled bindings whose cooldown has not expired
    recent: list[EventRecord] = field(default_factory=list)


def status(store: Store, now: datetime | None = None, *, recent: int = 0) -> BusStatus:
    """Bindings in total, enabled, in cooldown at ``now``, and the latest ``recent`` events."""
    total, enabled = store.binding_counts()
    return BusStatus(total, enabled, store.cooling_bindings(_utc(now)),
                     store.events(recent) if recent else [])


# --- dispatching -------------------------------------------------------------

def _utc(now: datetime | None) -> datetime:
    if now is None:
        return scores.utcnow()
    return now if now.tzinfo else now.replace(tzinfo=UTC)


def dispatch(store: Store, event_type: str, payload: dict | None = None, now: datetime | None = None, *,
             record: bool = True, depth: int = 0) -> Dispatched:
    """Dispatch an event (SPEC §9) at ``now`` and return what every binding did.

    The bindings considered are those whose event type is the event's (bindings of other types
    are not listed), highest priority first, then by id. Each is skipped when disabled, when
    its skill does not pass the gate (core.agents.gate, on the skill's card), when a condition does
    not hold or while it cools down (until its last firing + cooldown seconds, compared with
    ``now``, so a clock offset tries cooldowns); the others fire. Events emitted by fired
    ``emit_event`` actions are dispatched in turn, each one level deeper; at MAX_DEPTH (or
    once MAX_EMITTED events were emitted) the emitted event is not dispatched and that action
    counts as failed.

    With ``record``, every event of the chain is logged, and the fired bindings' cooldowns
    start, in one transaction. Without it nothing is written (a dry run). A naive ``now`` is
    UTC; ``depth`` dispatches the event as if emitted that many steps down a chain.
    """
    if not isinstance(event_type, str) or not event_type.strip():
        raise ValueError("an event type is required")
    payload = {} if payload is None else payload
    if not isinstance(payload, dict):
        raise ValueError("the payload must be a mapping (a JSON object)")
    run = Run(store, _utc(now), record)
    if not record:
        return run.event(index_of(store), event_type, payload, depth, None)
    try:
        with store.bus_transaction() as nested:
            index = index_of(store)
            result = run.event(index, event_type, payload, depth, None)
    except BaseException:   # undone: what the index learnt while writing may not hold
        forget(store)
        raise
    if nested:  # the caller's transaction may still be undone: read everything again next time
        forget(store)
    else:
        index.started(run)
    return result


def explain(store: Store, b: Binding, event_type: str, payload: dict | None = None,
            now: datetime | None = None) -> Outcome:
    """What one binding (stored or not) would do with an event, writing nothing and emitting
    nothing: the reason also says when the event is of another type."""
    return Run(store, _utc(now), False).one(Index(store, None), b, event_type, payload or {})


def describe(b: Binding) -> str:
    """One line: ``#3 lint on file_changed when file.path ~ /\\.py$/ -> invoke_skill``."""
    when = " and ".join(c.label for c in b.conditions)
    extra = [f"priority {b.priority}"] if b.priority else []
    if b.cooldown:
        extra.append(f"cooldown {b.cooldown:g}s")
    if not b.enabled:
        extra.append("disabled")
    head = f"#{b.id} " if b.id is not None else ""
    return (f"{head}{b.skill} on {b.event_type}" + (f" when {when}" if when else "") + f" -> {b.action}"
            + (f" ({', '.join(extra)})" if extra else ""))


def binding_json(b: Binding) -> dict:
    """A binding as JSON data: the YAML mapping with its id and when it last fired."""
    return {"id": b.id, **as_mapping(b), "last_fired_at": b.last_fired_at}


def dispatched_json(d: Dispatched) -> dict:
    """A dispatched event and the events it emitted, as JSON data."""
    return {"event_type": d.event_type, "payload": d.payload, "at": d.at, "event_id": d.event_id, "depth": d.depth,
            "ok": d.ok, "duration_ms": round(d.duration_ms, 4),
            "outcomes": [{"binding": o.binding.id, "skill": o.binding.skill, "action": o.binding.action,
                          "fired": o.fired, "reason": o.reason, "result": o.result,
                          "duration_ms": round(o.duration_ms, 4)} for o in d.outcomes],
            "emitted": [dispatched_json(e) for e in d.emitted]}
