"""Bindings (SPEC §9): stored, checked, and read the way dispatching needs them."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from skill_studio.core.bus.model import Binding, BindingError, Condition, check
from skill_studio.core.health import scores
from skill_studio.core.model import GateCard
from skill_studio.core.store.connection import inserted_id
from skill_studio.core.store.errors import NotFound, StoreError
from skill_studio.core.store.event_log import EventLog, unpack_fires
from skill_studio.core.store.rows import to_json

_COLUMNS = "id, skill, event_type, action, params, conditions, priority, cooldown, enabled"
_ORDER = " ORDER BY priority DESC, id"


def binding_from_row(r: Sequence[Any], fired: int | None = None) -> Binding:
    """A binding from its row and when it last fired (unix seconds)."""
    return Binding(skill=r[1], event_type=r[2], action=r[3], params={} if r[4] == "{}" else json.loads(r[4]),
                   conditions=[] if r[5] == "[]" else [Condition(f, v) for f, v in json.loads(r[5])],
                   priority=r[6], cooldown=float(r[7]), enabled=bool(r[8]), id=r[0],
                   last_fired_at=_stamp(fired) if fired else None)


@functools.lru_cache(maxsize=4096)
def _stamp(seconds: int) -> str:
    return scores.format_time(datetime.fromtimestamp(seconds, UTC))


def _values(b: Binding) -> tuple:
    return (b.skill, b.event_type, b.action, to_json(b.params), to_json([[c.field, c.value] for c in b.conditions]),
            int(b.priority), float(b.cooldown), int(bool(b.enabled)))


class Bindings(EventLog):
    """Bindings, each tied to its skill (deleted with it, renamed with it), and (EventLog) the
    bounded log of dispatched events."""

    _bus_log_writes = 0   # commits of the event log (they leave the bindings' index as it was)

    # --- bindings -----------------------------------------------------------

    def _check_binding(self, b: Binding, prefix: str = "") -> dict[str, str]:
        errors = check(b, lambda name: bool(self._rows_of("SELECT 1 FROM skill_cards WHERE name = ?", (name,))))
        return {f"{prefix}{k}": v for k, v in errors.items()}

    def add_binding(self, b: Binding) -> Binding:
        """Store a new binding and return it with its id. Raises BindingError."""
        return self.add_bindings([b], numbered=False)[0]

    def add_bindings(self, bindings: Iterable[Binding], *, numbered: bool = True) -> list[Binding]:
        """Store many new bindings in one transaction, all or none; BindingError names each
        problem of every one ("binding 3: skill" when ``numbered``, counting from 1)."""
        batch = list(bindings)
        with self.transaction():
            errors: dict[str, str] = {}
            for i, b in enumerate(batch, 1):
                errors.update(self._check_binding(b, f"binding {i}: " if numbered else ""))
            if errors:
                raise BindingError(errors)
            ids = [inserted_id(self._conn.execute(
                "INSERT INTO bindings (skill, event_type, action, params, conditions, priority, cooldown, enabled) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", _values(b))) for b in batch]
        return [self.binding(i) for i in ids]

    def restore_bindings(self, bindings: Iterable[Binding]) -> list[Binding]:
        """Store bindings again as they were (a deleted skill put back): each keeps its id, and so
        its running cooldown, unless another binding took that id. Raises BindingError."""
        batch = list(bindings)
        with self.transaction():
            errors: dict[str, str] = {}
            for b in batch:
                errors.update(self._check_binding(b, f"binding {b.id}: "))
            if errors:
                raise BindingError(errors)
            ids = []
            for b in batch:
                free = b.id is not None and not self._rows_of("SELECT 1 FROM bindings WHERE id = ?", (b.id,))
                ids.append(inserted_id(self._conn.execute(
                    "INSERT INTO bindings (id, skill, event_type, action, params, conditions, priority, cooldown, "
                    "enabled) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", (b.id if free else None, *_values(b)))))
        return [self.binding(i) for i in ids]

    def update_binding(self, b: Binding) -> Binding:
        """Save a changed binding (found by its id; its cooldown keeps running). Raises NotFound,
        BindingError."""
        if b.id is None:
            raise StoreError("this binding is not stored yet (it has no id): add it instead")
        with self.transaction():
            old = self.binding(b.id)
            errors = self._check_binding(b)
            if errors:
                raise BindingError(errors)
            self._conn.execute(
                "UPDATE bindings SET skill = ?, event_type = ?, action = ?, params = ?, conditions = ?, "
                "priority = ?, cooldown = ?, enabled = ? WHERE id = ?", (*_values(b), b.id))
            if old.event_type != b.event_type and old.last_fired_at:   # its cooldown goes with it
                fired = self._fired(b.event_type, [b.id], old.last_fired_at)
                self._conn.execute("INSERT INTO binding_fires (event_type, fires) VALUES (?, ?) ON CONFLICT "
                                   "(event_type) DO UPDATE SET fires = excluded.fires", (b.event_type, fired))
            return self.binding(b.id)

    def delete_binding(self, binding_id: int) -> None:
        """Raises NotFound."""
        with self.transaction():
            if not self._conn.execute("DELETE FROM bindings WHERE id = ?", (binding_id,)).rowcount:
                raise NotFound(f"no binding {binding_id}")

    def set_binding_enabled(self, binding_id: int, on: bool) -> None:
        """Raises NotFound."""
        with self.transaction():
            if not self._conn.execute("UPDATE bindings SET enabled = ? WHERE id = ?",
                                      (int(bool(on)), binding_id)).rowcount:
                raise NotFound(f"no binding {binding_id}")

    def binding(self, binding_id: int) -> Binding:
        """Raises NotFound."""
        rows = self._rows_of(f"SELECT {_COLUMNS} FROM bindings WHERE id = ?", (binding_id,))
        if not rows:
            raise NotFound(f"no binding {binding_id}")
        return binding_from_row(rows[0], self.fire_times(rows[0][2]).get(binding_id))

    def bindings(self, skill: str | None = None, event_type: str | None = None) -> list[Binding]:
        """The bindings (of one skill, of one event type), highest priority first, then by id."""
        where, params = [], []
        for column, value in (("skill", skill), ("event_type", event_type)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        sql = f"SELECT {_COLUMNS} FROM bindings" + (" WHERE " + " AND ".join(where) if where else "")
        rows = self._rows_of(sql + _ORDER, params)
        fired = self._all_fire_times({r[2] for r in rows})
        return [binding_from_row(r, fired.get((r[2], r[0]))) for r in rows]

    def _all_fire_times(self, event_types: set[str]) -> dict[tuple[str, int], int]:
        """{(event type, binding id): unix seconds} of those event types."""
        out: dict[tuple[str, int], int] = {}
        for event_type, data in self._rows_of("SELECT event_type, fires FROM binding_fires WHERE event_type IN "
                                              "(SELECT value FROM json_each(?))", (to_json(sorted(event_types)),)):
            out.update(((event_type, i), t) for i, t in unpack_fires(data).items())
        return out

    def binding_counts(self) -> tuple[int, int]:
        """(total, enabled)."""
        total, enabled = self._rows_of("SELECT count(*), coalesce(sum(enabled), 0) FROM bindings")[0]
        return total, enabled

    def cooling_bindings(self, now: datetime) -> int:
        """How many enabled bindings are still in cooldown at ``now`` (last fired + cooldown > now)."""
        rows = self._rows_of("SELECT id, event_type, cooldown FROM bindings WHERE enabled = 1 AND cooldown > 0")
        fired = self._all_fire_times({r[1] for r in rows})
        at = now.timestamp()
        return sum(1 for i, event_type, cooldown in rows if fired.get((event_type, i), -cooldown) + cooldown > at)

    # --- what dispatching reads ---------------------------------------------

    def bus_state(self) -> tuple[int, int]:
        """A key that stays the same while bindings, skills and settings do: it changes with a
        commit of another connection or of this one, except commits of the event log."""
        return self._rows_of("PRAGMA data_version")[0][0], self._writes - self._bus_log_writes

    @contextmanager
    def bus_transaction(self) -> Iterator[bool]:
        """The transaction of one dispatch: it writes only the log and the fired bindings' times.
        Yields True when it is part of a caller's transaction (which may change anything)."""
        with self._lock:
            nested = self._conn.in_transaction
            with self.transaction():
                yield nested
            if not nested:
                self._bus_log_writes += 1

    def gate_cards(self, names: Iterable[str] | None = None) -> dict[str, GateCard]:
        """{name: GateCard} of the named skills in the store (all of them when ``names`` is None):
        the card columns the gate reads, and the redundancy of the latest health run."""
        where, params = ("", ()) if names is None else \
            ("WHERE c.name IN (SELECT value FROM json_each(?))", (to_json(sorted(set(names))),))
        return {r[0]: GateCard(*r[1:]) for r in self._rows_of(
            "SELECT c.name, c.lifecycle, c.trust_tier, c.origin, c.success_rate, c.use_count, c.utility_score, "
            "c.last_used_at, c.created_at, coalesce(h.redundancy, 0.0) FROM skill_cards c "
            "LEFT JOIN health_scores h ON h.skill = c.name AND h.run = (SELECT max(id) FROM health_runs) "
            f"{where} ORDER BY c.name", params)}

    def skill_location(self, name: str) -> tuple[int, int, str] | None:
        """(version, characters of content, location) of a skill, or None: the location is its
        source path, else its folder name, else "store"."""
        rows = self._rows_of("SELECT version, length(content), coalesce(source_path, folder_name, 'store') "
                             "FROM procedural_memory WHERE name = ?", (name,))
        return tuple(rows[0]) if rows else None
