"""How the skill bus dispatches: bindings indexed by event type, conditions compiled once and
tested once per event, cooldowns, emitted events (actions: core.bus.actions). ``core.bus.dispatch`` is
its front.

The index of a store holds, per event type, its bindings in the order they are considered, and
the gate and location of their skills. It is kept while the store's bindings, skills and
settings stay the same (Store.bus_state): logging events does not change it, and the cooldowns
an event starts are brought into it once that event is committed.
"""

from __future__ import annotations

import json
import re
import time
import weakref
from datetime import UTC, datetime

import numpy as np

from skill_studio.core.agents.gate import store_verdicts
from skill_studio.core.bus.actions import describer
from skill_studio.core.bus.model import MAX_DEPTH, MISSING, Binding, Condition, Dispatched, Outcome, lookup, text_of
from skill_studio.core.health import scores
from skill_studio.core.store import Store
from skill_studio.core.store.event_log import FIRED, FIXED, FireTimes, Legend, OutcomeLog

#: Events one dispatch may emit in all (chains branch: each level may emit several).
MAX_EMITTED = 100

_SHOWN = 60   # characters of a payload value quoted in a reason


_PLAIN = re.compile(r'[^"\\\x00-\x1f]*')   # text JSON quotes as it is


def _shown(text: str) -> str:
    """A payload value quoted (as JSON) in a reason, cut short when long."""
    if len(text) < _SHOWN - 2 and _PLAIN.fullmatch(text):
        return f'"{text}"'
    quoted = json.dumps(text, ensure_ascii=False)
    return quoted if len(quoted) <= _SHOWN else quoted[:_SHOWN - 2] + '…"'


def cooling_reason(until: float) -> str:
    return f"cooling down until {scores.format_time(datetime.fromtimestamp(until, UTC))}"


class _Cond:
    """A condition ready to test: the reason it fails, or None."""

    __slots__ = ("name", "dotted", "value", "regex", "label", "missing", "invalid")

    def __init__(self, c: Condition):
        self.name, self.value, self.label = c.field, c.value, c.label
        self.dotted = "." in c.field
        self.missing = f"condition {self.label} not met (field missing)"
        self.regex: re.Pattern[str] | None = None
        self.invalid: str | None = None
        if (pattern := c.pattern) is not None:   # a /regex/ condition
            try:
                self.regex = re.compile(pattern)
            except re.error as e:
                self.invalid = f"condition {self.label} is not a valid regex: {e}"

    def test(self, payload: dict) -> str | None:
        found = payload.get(self.name, MISSING)
        if found is MISSING and self.dotted:
            found = lookup(payload, self.name)
        if found is MISSING:
            return self.missing
        text = found if type(found) is str else text_of(found)
        if (self.regex.search(text) is not None) if self.regex is not None else text == self.value:
            return None
        return f"condition {self.label} not met (was {_shown(text)})"


class _Entry:
    """A binding ready to be tried: its fixed skip reason, conditions, cooldown, and ``describe``:
    ``describe(payload, texts)`` -> what its action would do (see dispatch)."""

    __slots__ = ("binding", "id", "skill", "action", "skip", "conds", "cooldown", "last", "static", "describe",
                 "emits")

    def __init__(self, b: Binding, gate: tuple[str | None, str | None], conds: list[_Cond], locate):
        self.binding, self.id, self.skill, self.action = b, b.id, b.skill, b.action
        reason, warning = gate
        invalid = next((c.invalid for c in conds if c.invalid), None)
        self.skip = "disabled" if not b.enabled else f"skill not exposed: {reason}" if reason else invalid
        self.conds = tuple(conds)
        self.cooldown = float(b.cooldown)
        t = scores.parse_time(b.last_fired_at)
        self.last = t.timestamp() if t else None
        # Skipped whatever the event: the same outcome every time.
        self.static = Outcome(b, False, self.skip, None, 0.0) if self.skip else None
        self.emits = b.action == "emit_event"
        self.describe = describer(b, warning, locate)


def _stored_id(e: _Entry) -> int:
    """The id of a binding a plan holds: a plan's bindings are read from the store, which numbers
    every binding it keeps."""
    if e.id is None:
        raise ValueError(f"a binding of {e.skill} without an id (not a stored binding) in a dispatch plan")
    return e.id


class _Outcomes:
    """An event's outcomes, built (once) when first asked for: most callers only log them."""

    __slots__ = ("entries", "codes", "reasons", "results", "spent")

    def __init__(self, entries, codes, reasons, results, spent):
        self.entries, self.codes, self.reasons, self.results, self.spent = entries, codes, reasons, results, spent

    def __call__(self) -> list[Outcome]:
        out = []
        fired = zip(self.results, self.spent)
        reasons = self.reasons
        for e, code in zip(self.entries, self.codes.tolist()):
            if code == FIXED:
                out.append(e.static)
            elif code == FIRED:
                result, ns = next(fired)
                out.append(Outcome(e.binding, True, "fired", result, ns / 1e6))
            else:
                out.append(Outcome(e.binding, False, reasons[code], None, 0.0))
        return out


class _Plan:
    """An event type's bindings, in order, as each event starts with them. Those skipped whatever
    the event keep their fixed outcome; the others ("dynamic") are tried together, as arrays:
    the set of conditions each needs, its cooldown and when it last fired."""

    __slots__ = ("entries", "codes", "conds", "sets", "pos", "fires", "dynamic", "dyn_pos", "dyn_set", "dyn_of",
                 "cooldown", "cools", "last")

    def __init__(self, entries: list[_Entry]):
        self.entries = entries
        self.pos = {e.id: i for i, e in enumerate(entries)}
        self.fires = FireTimes([_stored_id(e) for e in entries], [int(e.last or 0) for e in entries])
        self.codes = np.full(len(entries), FIXED, dtype=np.int32)
        # The distinct conditions and sets of conditions of the bindings tried: each is tested once
        # per event. ``sets`` holds, per set, the positions of its conditions in ``conds``, padded
        # with len(conds) (a condition that always holds).
        conds: dict[_Cond, int] = {}
        sets: dict[tuple, int] = {}
        dynamic, positions, set_of = [], [], []
        for i, e in enumerate(entries):
            if e.static is None:
                key = tuple(conds.setdefault(c, len(conds)) for c in e.conds)
                dynamic.append(e)
                positions.append(i)
                set_of.append(sets.setdefault(key, len(sets)))
        self.conds = tuple(conds)
        width = max((len(k) for k in sets), default=0) or 1
        self.sets = np.full((len(sets), width), len(conds), dtype=np.intp)
        for key, row in sets.items():
            self.sets[row, :len(key)] = key
        self.dynamic = tuple(dynamic)
        self.dyn_pos = np.array(positions, dtype=np.intp)
        self.dyn_set = np.array(set_of, dtype=np.intp)
        self.dyn_of = {e.id: j for j, e in enumerate(dynamic)}
        self.cooldown = np.array([e.cooldown for e in dynamic], dtype=np.float64)
        self.cools = self.cooldown > 0
        self.last = np.array([-np.inf if e.last is None else e.last for e in dynamic], dtype=np.float64)


class Index:
    """The bindings of each event type (read the first time that type is dispatched), and the
    gate and location of their skills, for one state of the store."""

    def __init__(self, store: Store, key: tuple | None):
        self.store, self.key = store, key
        self.types: dict[str, _Plan] = {}
        self.legends: dict[str, Legend] = {}
        self.conds: dict[tuple[str, str], _Cond] = {}
        self.gates: dict[str, tuple[str | None, str | None]] = {}
        self.locations: dict[str, tuple | None] = {}
        self._cooling: dict[float, str] = {}
        self.retention = store.event_retention()

    def entry(self, b: Binding) -> _Entry:
        conds = []
        for c in b.conditions:
            key = (c.field, c.value)
            if key not in self.conds:
                self.conds[key] = _Cond(c)
            conds.append(self.conds[key])
        return _Entry(b, self.gates[b.skill], conds, self.locate)

    def entries(self, store: Store, event_type: str) -> list[_Entry]:
        """The bindings of an event type in the order they are considered."""
        return self.plan(store, event_type).entries

    def plan(self, store: Store, event_type: str) -> _Plan:
        found = self.types.get(event_type)
        if found is None:
            bindings = store.bindings(event_type=event_type)
            self.gate(store, {b.skill for b in bindings})
            found = self.types[event_type] = _Plan([self.entry(b) for b in bindings])
        return found

    def legend(self, event_type: str) -> Legend:
        """The bindings of an event type as the log lists them (after ``entries``)."""
        found = self.legends.get(event_type)
        if found is None:
            found = self.legends[event_type] = Legend(
                (e.id, e.skill, e.action, e.skip) for e in self.types[event_type].entries)
        return found

    def gate(self, store: Store, names: set[str]) -> None:
        missing = names - self.gates.keys()
        if missing:
            found = store_verdicts(store, missing)
            for name in missing:
                self.gates[name] = found.get(name, (f'no skill named "{name}"', None))

    def cooling_reason(self, until: float) -> str:
        found = self._cooling.get(until)
        if found is None:
            found = self._cooling[until] = cooling_reason(until)
        return found

    def locate(self, name: str) -> tuple | None:
        """(version, content characters, location) of a skill, or None."""
        try:
            return self.locations[name]
        except KeyError:
            found = self.locations[name] = self.store.skill_location(name)
            return found

    def started(self, run: Run) -> None:
        """A recorded run is committed: the cooldowns of the bindings it fired run from now on."""
        stamp, at = run.stamp, run.fired_at
        for plan, fire in run.plans:
            plan.last[fire] = at
            plan.fires.times[plan.dyn_pos[fire]] = min(max(0, int(at)), 0xFFFFFFFF)
            dynamic = plan.dynamic
            for j in fire:
                dynamic[j].binding.last_fired_at = stamp


_INDEXES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def index_of(store: Store) -> Index:
    key = store.bus_state()
    index = _INDEXES.get(store)
    if index is None or index.key != key:
        index = _INDEXES[store] = Index(store, key)
    return index


def forget(store: Store) -> None:
    """Read everything again next time (after a dispatch inside a caller's transaction)."""
    _INDEXES.pop(store, None)


def _distinct(values: np.ndarray) -> tuple[list[float], np.ndarray]:
    """The distinct values, sorted, and the position of each value among them (np.unique's
    answer, without its overhead on arrays of a few hundred)."""
    order = np.argsort(values, kind="stable")
    ranked = values[order]
    new = np.empty(len(ranked), dtype=bool)
    new[0] = True
    np.not_equal(ranked[1:], ranked[:-1], out=new[1:])
    which = np.empty(len(ranked), dtype=np.intp)
    which[order] = np.cumsum(new) - 1
    return ranked[new].tolist(), which


class Run:
    """One dispatch and the events it emits: one time, and the bindings fired so far."""

    def __init__(self, store: Store, now: datetime, record: bool):
        self.store, self.record = store, record
        self.now = now.timestamp()
        self.stamp = scores.format_time(now)
        self.fired_at = float(int(self.now))    # what the log's time (to the second) reads back as
        self.fired: dict[int, float] = {}   # binding id -> fired_at, of the bindings fired so far
        self.plans: list[tuple[_Plan, list[int]]] = []   # the plans of its events, and which of their bindings fired
        self.emitted = 0

    def event(self, index: Index, event_type: str, payload: dict, depth: int, parent: int | None) -> Dispatched:
        clock = time.perf_counter_ns
        plan = index.plan(self.store, event_type)
        start = clock()
        reasons: list[str] = []
        code = self.test(plan, payload, reasons)   # per dynamic binding: -1 or why its conditions fail
        holds = code < 0
        last = plan.last
        if self.fired and not self.fired.keys().isdisjoint(plan.dyn_of):   # fired earlier in this chain
            last = last.copy()
            for binding_id, at in self.fired.items():
                j = plan.dyn_of.get(binding_id)
                if j is not None:
                    last[j] = at
        until = last + plan.cooldown   # -inf for bindings never fired
        cooling = holds & plan.cools & (self.now < until)
        if cooling.any():
            ends, which = _distinct(until[cooling])
            code[cooling] = len(reasons) + which
            reasons += [index.cooling_reason(u) for u in ends]
        fire = np.flatnonzero(holds & ~cooling).tolist()
        codes = plan.codes.copy()   # FIXED, FIRED or an index into reasons (the log's form)
        codes[plan.dyn_pos] = code
        spent: list[int] = []       # per binding fired: ns
        results, emits = [], []
        texts: dict = {}            # field -> its text, for the placeholders
        fired_now, fired_at, dynamic = self.fired, self.fired_at, plan.dynamic
        for j in fire:
            e = dynamic[j]
            t = clock()
            result = e.describe(payload, texts)
            if e.emits and self.emit(result, depth):
                emits.append((result["event_type"], result["payload"]))
            fired_now[_stored_id(e)] = fired_at
            results.append(result)
            spent.append(clock() - t)
        if fire:
            codes[plan.dyn_pos[fire]] = FIRED
            self.plans.append((plan, fire))
        failed = any("error" in r or "stopped" in r for r in results)
        d = Dispatched(event_type, payload, self.stamp, _Outcomes(plan.entries, codes, reasons, results, spent), [],
                       None, depth, failed=failed)
        event_id: int | None = None   # its row in the log, when recorded
        if self.record:
            pos = plan.pos
            fires = plan.fires.packed([pos[i] for i in fired_now if i in pos], int(fired_at)) if fire else None
            d.event_id = event_id = self.store.log_event(
                event_type, payload, self.stamp, OutcomeLog(index.legend(event_type), reasons, codes, spent, results),
                fired=len(fire), considered=len(codes), ok=not failed, depth=depth, parent=parent,
                fires=fires, retention=index.retention)
        d.duration_ms = (clock() - start) / 1e6
        for emitted_type, emitted_payload in emits:
            d.emitted.append(self.event(index, emitted_type, emitted_payload, depth + 1, d.event_id))
        if event_id is not None and not failed and not all(c.ok for c in d.emitted):
            self.store.mark_events_failed([event_id])
        return d

    @staticmethod
    def test(plan: _Plan, payload: dict, reasons: list[str]) -> np.ndarray:
        """For each dynamic binding of the plan, -1 when all its conditions hold, else the index in
        ``reasons`` (appended to) of why the first that fails does not."""
        held = np.full(len(plan.conds) + 1, -1, dtype=np.int32)   # the last: padding, always holds
        for k, cond in enumerate(plan.conds):
            why = cond.test(payload)
            if why is not None:
                held[k] = len(reasons)
                reasons.append(why)
        if not reasons:
            return np.full(len(plan.dynamic), -1, dtype=np.int32)
        per_set = held[plan.sets]
        first = (per_set >= 0).argmax(axis=1)   # the first that fails (or 0 when none does: -1 there)
        return per_set[np.arange(len(per_set)), first][plan.dyn_set]

    def emit(self, result: dict, depth: int) -> bool:
        """Whether an emit_event action's event is dispatched; if not, why goes in its result."""
        if depth >= MAX_DEPTH:
            result["stopped"] = f"depth limit {MAX_DEPTH} reached"
        elif self.emitted >= MAX_EMITTED:
            result["stopped"] = f"limit of {MAX_EMITTED} emitted events per dispatch reached"
        else:
            self.emitted += 1
            return True
        return False

    def one(self, index: Index, b: Binding, event_type: str, payload: dict) -> Outcome:
        """What one binding would do with an event, without writing or emitting anything."""
        t0 = time.perf_counter_ns()
        reason = f"event type is {event_type}" if b.event_type != event_type else None
        if reason is None:
            index.gate(self.store, {b.skill})
            e = index.entry(b)
            reason = e.skip or next((r for c in e.conds if (r := c.test(payload)) is not None), None)
            if reason is None and e.cooldown and e.last is not None and self.now < e.last + e.cooldown:
                reason = cooling_reason(e.last + e.cooldown)
        result = None
        if reason is None:
            result = e.describe(payload, {})
            if e.emits:
                self.emit(result, 0)
        return Outcome(b, reason is None, reason or "fired", result, (time.perf_counter_ns() - t0) / 1e6)
