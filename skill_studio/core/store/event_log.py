"""The log of dispatched events, bounded by the "bus.retention" setting.

An event of a busy type considers hundreds of bindings, most of them the same way every time.
So each event is logged against a legend: the bindings it considered, in order, with the skill,
action and fixed skip reason (disabled, not exposed) of each. A legend is stored once (its id is
a hash of its text) and shared by every event dispatched against the same bindings; the event's
own row holds only what varies: for each binding, fired, skipped for a reason, or skipped for
its fixed reason, with its duration and, when it fired, its result.
"""

from __future__ import annotations

import hashlib
import json
import sys
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from skill_studio.core.health import scores
from skill_studio.core.store.connection import Connection, inserted_id
from skill_studio.core.store.errors import NotFound
from skill_studio.core.store.history import like_escape
from skill_studio.core.store.rows import to_json

if TYPE_CHECKING:   # numpy is imported where an event's arrays are built, not with the store
    import numpy as np

RETENTION = 1000     # events kept when the "bus.retention" setting is not set
#: The keys of each logged outcome.
OUTCOME_KEYS = ("binding", "skill", "action", "fired", "reason", "result", "duration_ms")
FIXED, FIRED = -1, -2   # codes of the per-binding reasons beside indexes into the event's reasons
_LEGEND_SWEEP = 256     # unused legends are deleted every this many events

_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False, default=str).encode
_EVENT_COLUMNS = ("e.id, e.at, e.event_type, e.payload, e.fired, e.considered, e.ok, e.outcomes, e.depth, e.parent, "
                  "l.legend, e.codes, e.ns")


@dataclass
class EventRecord:
    """One dispatched event as the log keeps it."""

    id: int
    at: str
    event_type: str
    payload: dict
    fired: int                  # bindings that fired
    considered: int             # bindings of its event type
    ok: bool                    # no action failed (in it or in the events it emitted)
    outcomes: list[dict] = field(default_factory=list)   # OUTCOME_KEYS of each binding considered
    depth: int = 0              # 0, or how many emit_event steps led to it
    parent: int | None = None   # the event whose emit_event action emitted it


class Legend:
    """The bindings an event considers, in order: (binding id, skill, action, fixed reason or None)."""

    __slots__ = ("text", "id", "stored")

    def __init__(self, entries: Iterable[Sequence]):
        self.text = _ENCODE([list(e) for e in entries])
        self.id = int.from_bytes(hashlib.blake2b(self.text.encode(), digest_size=8).digest(), "big", signed=True)
        # Which sweep of unused legends (EventLog._legend_sweeps) it was last written after: it
        # stays in the store until the next sweep. (A dispatch that fails drops its legends.)
        self.stored = -1


@dataclass
class OutcomeLog:
    """One event's outcomes in the log's form: for each binding of the legend, a code (FIXED,
    FIRED, or an index into ``reasons``); for each that fired, its duration in ns and its result.
    (A skipped binding does no work of its own: the conditions it shares with others are tested
    once per event.)"""

    legend: Legend
    reasons: list[str]
    codes: Sequence[int] | np.ndarray     # a list or a numpy array
    ns: list[int]
    results: Sequence[dict | None]   # None only for a fired outcome given without a result

    @classmethod
    def of(cls, outcomes: Sequence[dict]) -> OutcomeLog:
        """From dicts of OUTCOME_KEYS (duration_ms)."""
        index: dict[str, int] = {}
        codes: list[int] = []
        ns: list[int] = []
        results: list[dict | None] = []
        for o in outcomes:
            if o.get("fired"):
                codes.append(FIRED)
                ns.append(int((o.get("duration_ms") or 0) * 1e6))
                results.append(o.get("result"))
            else:
                codes.append(index.setdefault(o.get("reason") or "", len(index)))
        return cls(Legend((o.get("binding"), o.get("skill"), o.get("action"), None) for o in outcomes),
                   list(index), codes, ns, results)

    def text(self) -> str:
        return _ENCODE({"reasons": self.reasons, "results": self.results})

    def packed(self) -> tuple[bytes, bytes]:
        """The codes (int16, or int32 past 32,767 reasons) and durations (uint32 ns) as
        little-endian arrays."""
        try:
            ns = array("I", self.ns)
        except OverflowError:   # over 4.29 s: shown as that
            ns = array("I", [_u32(n) for n in self.ns])
        codes = self.codes
        numpy = sys.modules.get("numpy")   # (without numpy loaded, no code array is a numpy array)
        if numpy is not None and isinstance(codes, numpy.ndarray):
            # codes are at least FIRED; at most the last reason's index
            return codes.astype("<i4" if len(self.reasons) > 32767 else "<i2").tobytes(), _little(ns)
        try:
            packed = array("h", codes)
        except OverflowError:
            packed = array("i", codes)
        return _little(packed), _little(ns)


def _u32(n: int) -> int:
    return min(max(0, n), 0xFFFFFFFF)


class FireTimes:
    """When the bindings of one event type last fired, as the store keeps them: ``ids`` and, at
    the same positions, ``times`` (unix seconds, 0 = never; a numpy uint32 array)."""

    __slots__ = ("head", "times")

    def __init__(self, ids: Sequence[int], times: Sequence[int]):
        import numpy as np

        self.head = np.asarray(ids, dtype=np.int64).astype("<u4").tobytes()
        self.times = np.clip(np.asarray(times, dtype=np.int64), 0, 0xFFFFFFFF).astype(np.uint32)

    def packed(self, positions: Sequence[int] = (), at: int = 0) -> bytes:
        """The stored form, with the bindings at ``positions`` fired at ``at`` (in a copy)."""
        times = self.times
        if len(positions):
            times = times.copy()
            times[positions] = _u32(at)
        return self.head + times.astype("<u4").tobytes()


def unpack_fires(data: bytes | None) -> dict[int, int]:
    """{binding id: time} of a stored FireTimes (never-fired bindings left out)."""
    if not data:
        return {}
    values = _unpack("I", data)
    n = len(values) // 2
    return {i: t for i, t in zip(values[:n], values[n:]) if t}


def _little(a: array) -> bytes:
    if sys.byteorder == "big":
        a.byteswap()
    return a.tobytes()


def _unpack(kind: str, data: bytes) -> array:
    a = array(kind)
    a.frombytes(data)
    if sys.byteorder == "big":
        a.byteswap()
    return a


def decode_outcomes(text: str, legend: list, codes: bytes, spent: bytes) -> list[dict]:
    """The outcomes of a logged event as dicts of OUTCOME_KEYS (``legend``: its decoded legend)."""
    data = json.loads(text)
    reasons, results, durations = data["reasons"], iter(data["results"]), iter(_unpack("I", spent))
    out = []
    for (binding, skill, action, fixed), code in zip(legend, _unpack("i" if len(codes) == 4 * len(legend) else "h",
                                                                     codes)):
        fired = code == FIRED
        out.append({"binding": binding, "skill": skill, "action": action, "fired": fired,
                    "reason": "fired" if fired else fixed if code == FIXED else reasons[code],
                    "result": next(results) if fired else None,
                    "duration_ms": next(durations) / 1e6 if fired else 0.0})
    return out


def _records(rows: Sequence[Sequence[Any]]) -> list[EventRecord]:
    legends: dict[str, list] = {}   # events of one type mostly share their legend: decoded once
    out = []
    for r in rows:
        legend = legends.get(r[10])
        if legend is None:
            legend = legends[r[10]] = json.loads(r[10])
        out.append(EventRecord(r[0], r[1], r[2], json.loads(r[3]), r[4], r[5], bool(r[6]),
                               decode_outcomes(r[7], legend, r[11], r[12]), r[8], r[9]))
    return out


class EventLog(Connection):
    """Dispatched events, newest kept: "bus.retention" of them (RETENTION by default)."""

    _legend_sweeps = 0   # unused legends deleted by this connection so far (see Legend.stored)

    def event_retention(self) -> int:
        rows = self._rows_of("SELECT value FROM settings WHERE key = 'bus.retention'")
        try:
            return max(1, int(json.loads(rows[0][0]))) if rows else RETENTION
        except (TypeError, ValueError):
            return RETENTION

    def log_event(self, event_type: str, payload: dict, at: str, outcomes: OutcomeLog | Sequence[dict], *,
                  fired: int, considered: int, ok: bool, depth: int = 0, parent: int | None = None,
                  fired_ids: Iterable[int] = (), fires: bytes | None = None, retention: int | None = None) -> int:
        """Log one dispatched event and start the cooldown of the bindings of its type that fired
        (their last_fired_at becomes ``at``), in one transaction; the oldest events beyond the
        retention are deleted. ``fires``: the event type's FireTimes after this event, packed
        (else ``fired_ids`` are applied to the stored ones). Returns the event's id."""
        log = outcomes if isinstance(outcomes, OutcomeLog) else OutcomeLog.of(outcomes)
        text, (codes, spent) = log.text(), log.packed()
        keep = retention or self.event_retention()
        with self.transaction():
            if log.legend.stored != self._legend_sweeps:
                self._conn.execute("INSERT OR IGNORE INTO bus_legends (id, legend) VALUES (?, ?)",
                                   (log.legend.id, log.legend.text))
                log.legend.stored = self._legend_sweeps
            event_id = inserted_id(self._conn.execute(
                "INSERT INTO bus_events (at, event_type, payload, fired, considered, ok, legend, codes, ns, "
                "outcomes, depth, parent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (at, event_type, to_json(payload), fired, considered, int(bool(ok)), log.legend.id, codes, spent,
                 text, depth, parent)))
            if fires is None:
                fires = self._fired(event_type, fired_ids, at)
            if fires is not None:
                self._conn.execute("INSERT INTO binding_fires (event_type, fires) VALUES (?, ?) "
                                   "ON CONFLICT (event_type) DO UPDATE SET fires = excluded.fires", (event_type, fires))
            if event_id > keep:
                self._conn.execute("DELETE FROM bus_events WHERE id <= ?", (event_id - keep,))
            if event_id % _LEGEND_SWEEP == 0:
                self._conn.execute("DELETE FROM bus_legends WHERE id NOT IN (SELECT legend FROM bus_events)")
                self._legend_sweeps += 1
        return event_id

    def fire_times(self, event_type: str) -> dict[int, int]:
        """{binding id: unix seconds} of when the bindings of an event type last fired."""
        rows = self._rows_of("SELECT fires FROM binding_fires WHERE event_type = ?", (event_type,))
        return unpack_fires(rows[0][0]) if rows else {}

    def _fired(self, event_type: str, ids: Iterable[int], at: str) -> bytes | None:
        ids = list(ids)
        if not ids:
            return None
        t = scores.parse_time(at)
        if t is None:
            raise ValueError(f'"{at}" is not an ISO time')
        times = self.fire_times(event_type)
        times.update((i, int(t.timestamp())) for i in ids)
        return FireTimes(list(times), list(times.values())).packed()

    def mark_events_failed(self, ids: Iterable[int]) -> None:
        """Set ok to false on logged events (an event whose emitted events had a failed action)."""
        with self.transaction():
            self._conn.executemany("UPDATE bus_events SET ok = 0 WHERE id = ?", [(i,) for i in ids])

    def events(self, limit: int = 100, event_type: str | None = None, text: str | None = None) -> list[EventRecord]:
        """Logged events, newest first: of one type, and/or whose type, payload, skills, reasons or
        results contain ``text`` (case-insensitive)."""
        where, params = [], []
        if event_type:
            where.append("e.event_type = ?")
            params.append(event_type)
        if text:
            pattern = f"%{like_escape(text)}%"
            where.append("(e.event_type LIKE ? ESCAPE '\\' OR e.payload LIKE ? ESCAPE '\\' "
                         "OR e.outcomes LIKE ? ESCAPE '\\' OR l.legend LIKE ? ESCAPE '\\')")
            params += [pattern] * 4
        sql = (f"SELECT {_EVENT_COLUMNS} FROM bus_events e JOIN bus_legends l ON l.id = e.legend"
               + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY e.id DESC LIMIT ?")
        return _records(self._rows_of(sql, (*params, int(limit))))

    def event_record(self, event_id: int) -> EventRecord:
        """Raises NotFound."""
        rows = self._rows_of(f"SELECT {_EVENT_COLUMNS} FROM bus_events e JOIN bus_legends l ON l.id = e.legend "
                             "WHERE e.id = ?", (event_id,))
        if not rows:
            raise NotFound(f"no event {event_id} in the log")
        return _records(rows)[0]

    def logged_event_types(self) -> list[str]:
        """The event types in the log, sorted."""
        return [r[0] for r in self._rows_of("SELECT DISTINCT event_type FROM bus_events ORDER BY event_type")]

    def event_count(self) -> int:
        return self._rows_of("SELECT count(*) FROM bus_events")[0][0]

    def clear_events(self) -> None:
        with self.transaction():
            self._conn.execute("DELETE FROM bus_events")
            self._conn.execute("DELETE FROM bus_legends")
            self._legend_sweeps += 1
