"""What a query reads from one state of a store (core.agents.matching): every skill's card as
arrays (name, description, trigger pattern, lifecycle, utility, last use), the gate's verdict and
warning of each, the card vectors once a vector query asks for them, and the word counts and
forms the full-text side looks up. Kept per store while it stays the same; after a change only
the cards whose skill changed are embedded again.
"""

from __future__ import annotations

import math
import weakref
from datetime import datetime

import numpy as np
import regex

from skill_studio.core.agents.gate import gate_reason, gate_warning
from skill_studio.core.health import checks, scores
from skill_studio.core.health.embedding import Embedder, HashedTfidfEmbedder
from skill_studio.core.model import UNSEARCHED_STATES, Lifecycle
from skill_studio.core.store import Store

CENTRE_PRIOR = 50.0         # as core.health.similarity: n / (n + 50) of the mean card is taken out


class Library:
    """What a query reads from one state of a store: the cards as arrays and, once a vector
    query asks, their vectors (those of an earlier state reused for unchanged skills)."""

    def __init__(self, store: Store, key: tuple | None, earlier: Library | None = None):
        self.key = key
        rows = store.match_cards()
        self.names = [r[0] for r in rows]
        self.row = {n: i for i, n in enumerate(self.names)}
        self.description = [r[1] for r in rows]
        self.trigger = [r[2] for r in rows]
        self.lifecycle = [r[3] for r in rows]
        self.hash = [r[10] for r in rows]
        self.utility = np.array([r[7] for r in rows], dtype=np.float64)
        self.reason = [gate_reason(r[3], r[4], r[5], r[6]) for r in rows]
        self.archived = np.array([Lifecycle(r[3]) in UNSEARCHED_STATES for r in rows], dtype=bool)
        refs = []
        for r in rows:
            t = scores.parse_time(r[8]) or scores.parse_time(r[9])
            refs.append(t.timestamp() if t else math.nan)
        self.used = np.array(refs, dtype=np.float64)    # last use, else creation (unix seconds)
        self.half_life = float(store.setting("scores.half_life_days", scores.HALF_LIFE_DAYS))
        self.warning = self._warnings(rows, checks.settings(store), scores.utcnow())
        self._triggers: list | None = None
        self.docs: dict[str, int] = {}                  # word -> skills holding it (full-text index)
        self.forms: dict[str, list[tuple[str, int]]] = {}   # stem -> [(word, skills holding it)]
        # Card vectors: (model, {(name, content hash): row}, matrix), kept for the next state;
        # and what a query needs (see vectors).
        self._raw: tuple[str, dict[tuple[str, str], int], np.ndarray] | None = \
            earlier._raw if earlier is not None else None
        self._vectors: tuple | None = None

    def _warnings(self, rows: list[tuple], cfg: dict, now: datetime) -> list[str | None]:
        """The gate's warning of every skill (core.agents.gate.judge), the health of all of them
        computed at once: only the few with a reason to be warned about are looked at one by one."""
        n = len(rows)
        success = np.array([r[6] for r in rows], dtype=np.float64)
        uses = np.array([r[11] for r in rows], dtype=np.int64)
        health = checks.health_score(self.utility, np.array([r[12] for r in rows], dtype=np.float64),
                                     self.freshness(now), 1.0 - success, cfg)
        passed = np.array([reason is None for reason in self.reason], dtype=bool)
        degraded = np.array([r[3] == Lifecycle.DEGRADED.value for r in rows], dtype=bool)
        used = uses >= cfg["health.low_min_uses"]
        maybe = passed & (degraded | (used & ((success < cfg["health.failing_rate"]) | (health < cfg["health.low"]))))
        out: list[str | None] = [None] * n
        for i in np.flatnonzero(maybe).tolist():
            out[i] = gate_warning(rows[i][3], int(uses[i]), float(success[i]), float(health[i]), cfg)
        return out

    def freshness(self, now: datetime) -> np.ndarray:
        days = np.maximum(0.0, (now.timestamp() - self.used) / 86400.0)
        return np.where(np.isnan(days), 1.0, np.exp2(-days / self.half_life))

    def triggers(self) -> list[tuple[int, regex.Pattern]]:
        """The skills with a trigger pattern that compiles (case-insensitive), as (row, pattern).
        Patterns come with downloaded skills: they run with the ``regex`` engine and a time limit
        (see _by_keywords), so one written to backtrack for ever cannot hang a query."""
        if self._triggers is None:
            found = []
            for i, text in enumerate(self.trigger):
                if text:
                    try:
                        found.append((i, regex.compile(text, regex.IGNORECASE | regex.V0)))
                    except (regex.error, ValueError, OverflowError):
                        pass   # the validator reports it; a broken pattern matches nothing
            self._triggers = found
        return self._triggers

    def vectors(self, embedder: Embedder) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(rows, card vectors of those rows, the shift, the norm of each vector less the shift)
        of the skills that are not archived. A query's cosine with a centred card (core.health.similarity)
        is ``(m @ q - shift @ q) / norm`` for the query ``q`` less the shift, normalised: the
        centred matrix is never made."""
        if self._vectors is None or self._vectors[0] != embedder.model:
            model = embedder.model
            before_model, before, before_m = self._raw if self._raw is not None else (None, {}, None)
            if before_model != model:
                before = {}
            rows = np.flatnonzero(~self.archived)
            keys = [(self.names[i], self.hash[i]) for i in rows.tolist()]
            take = np.array([before.get(k, -1) for k in keys], dtype=np.intp)
            todo = np.flatnonzero(take < 0)
            made = embedder.embed([card_text(*self._card(keys[i])) for i in todo.tolist()]) if len(todo) else None
            dim = made.shape[1] if made is not None else (before_m.shape[1] if before_m is not None else 1)
            m = np.empty((len(keys), dim), dtype=np.float32)
            if len(todo) < len(keys):
                assert before_m is not None   # rows found in ``before``, which comes with its matrix
                m[take >= 0] = before_m[take[take >= 0]]
            if made is not None:
                m[todo] = made
            self._raw = (model, {k: i for i, k in enumerate(keys)}, m)
            n = len(m)
            shift = (m.mean(axis=0, dtype=np.float64) * (n / (n + CENTRE_PRIOR))).astype(np.float32) if n else \
                np.zeros(dim, np.float32)
            norms = np.empty(n, dtype=np.float32)
            for start in range(0, n, 8192):   # blocks: no second matrix of the whole library
                norms[start:start + 8192] = np.linalg.norm(m[start:start + 8192] - shift, axis=1)
            self._vectors = (model, rows, m, shift, norms)
        return self._vectors[1:]

    def _card(self, key: tuple[str, str]) -> tuple[str, str]:
        return key[0], self.description[self.row[key[0]]]


def card_text(name: str, description: str) -> str:
    """What a skill's card vector is embedded from: its name as words, and its description."""
    return f"{name.replace('-', ' ')}\n{description}"


_LIBRARIES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_EMBEDDER: HashedTfidfEmbedder | None = None


def library(store: Store) -> Library:
    key = store.match_state()
    found = _LIBRARIES.get(store)
    if found is None or key is None or found.key != key:
        found = Library(store, key, found)
        if key is not None:
            _LIBRARIES[store] = found
    return found


def default_embedder() -> Embedder:
    global _EMBEDDER
    if _EMBEDDER is None:
        _EMBEDDER = HashedTfidfEmbedder()
    return _EMBEDDER
