"""Matching a query to skills, and the reliability gate over a library (SPEC §8).

Two strategies find the skills a query is about:

- **vectors**: the query is embedded (core.health.embedding) and compared by cosine similarity with
  each skill's card: its name and description, the part of a skill written to say when to use
  it, and all an agent sees before loading one. Cards have the library's common direction
  taken out, as in core.health.similarity. Skills above MIN_SIMILARITY are ranked by
  ``similarity × utility × freshness``.
- **keywords**: the query's words, stop words dropped (and, of a long query, only the
  rarest in the library); skills whose trigger
  pattern matches the query come first, then the full-text index's bm25 order (SQLite FTS5). A
  hit's relevance is its bm25 rank relative to the best hit's (1.0 for the best), and it is
  ranked, after the trigger matches, by ``relevance × utility × freshness``.

Either way every result says how it was found and carries its breakdown. The gate (core.agents.gate)
decides what an agent may see: matches it keeps out are listed apart, with the rule.

What a query reads (the cards and their vectors) is kept per store while the store stays the
same; after a change only the cards whose skill changed are embedded again. So a query over
100,000 skills is one matrix-vector product.
"""

from __future__ import annotations

import math
import re
import weakref
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
import regex

from skill_studio.core.agents.gate import gate_reason, gate_warning
from skill_studio.core.health import scores
from skill_studio.core.health.embedding import STOP_WORDS, Embedder, HashedTfidfEmbedder
from skill_studio.core.model import UNSEARCHED_STATES, Lifecycle
from skill_studio.core.store import Store

STRATEGIES = ("auto", "vectors", "keywords")
MIN_SIMILARITY = 0.3        # vectors: skills at or below this are not about the query
CENTRE_PRIOR = 50.0         # as core.health.similarity: n / (n + 50) of the mean card is taken out
TEXT_CANDIDATES = 200       # keywords: full-text hits read before ranking
TRIGGER_SECONDS = 0.02      # the most one trigger pattern may take on a query
MAX_TRIGGER_QUERY = 1000    # characters of the query trigger patterns see
_WORD = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*", re.UNICODE)


@dataclass(frozen=True)
class Match:
    """One skill found for a query, and why it ranks where it does."""

    name: str
    description: str
    strategy: str              # "vectors" or "keywords": which found it
    similarity: float          # cosine similarity (vectors) or text relevance in [0, 1] (keywords)
    utility: float
    freshness: float
    score: float               # similarity × utility × freshness
    trigger: bool = False      # its trigger pattern matched the query (keywords)
    warning: str | None = None     # it passes the gate with this warning (degraded)
    excluded: str | None = None    # the gate rule that keeps it from agents, or None


@dataclass
class MatchResult:
    query: str
    strategy: str                                        # the strategy used
    matches: list[Match] = field(default_factory=list)   # what an agent would get, best first
    excluded: list[Match] = field(default_factory=list)  # found, but kept out by the gate
    note: str = ""                                       # e.g. why "auto" chose keywords


@dataclass(frozen=True)
class GateEntry:
    """A skill and the gate's answer: passed (maybe with a warning) or the rule that excludes it."""

    name: str
    description: str
    lifecycle: str
    passed: bool
    reason: str | None
    warning: str | None


def keywords(query: str) -> list[str]:
    """The query's words, lower case, stop words dropped, each once, in order."""
    words = [w.casefold() for w in _WORD.findall(query or "")]
    return list(dict.fromkeys(w for w in words if w not in STOP_WORDS and (len(w) > 1 or w.isdigit())))


class _Library:
    """What a query reads from one state of a store: the cards as arrays and, once a vector
    query asks, their vectors (those of an earlier state reused for unchanged skills)."""

    def __init__(self, store: Store, key: tuple | None, earlier: _Library | None = None):
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
        self.warning = [gate_warning(r[3]) for r in rows]
        self.archived = np.array([Lifecycle(r[3]) in UNSEARCHED_STATES for r in rows], dtype=bool)
        refs = []
        for r in rows:
            t = scores.parse_time(r[8]) or scores.parse_time(r[9])
            refs.append(t.timestamp() if t else math.nan)
        self.used = np.array(refs, dtype=np.float64)    # last use, else creation (unix seconds)
        self.half_life = float(store.setting("scores.half_life_days", scores.HALF_LIFE_DAYS))
        self._triggers: list | None = None
        self.docs: dict[str, int] = {}                  # word -> skills holding it (full-text index)
        # Card vectors: (model, {(name, content hash): row}, matrix), kept for the next state;
        # and what a query needs (see vectors).
        self._raw: tuple[str, dict[tuple[str, str], int], np.ndarray] | None = \
            earlier._raw if earlier is not None else None
        self._vectors: tuple | None = None

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


def _library(store: Store) -> _Library:
    key = store.match_state()
    found = _LIBRARIES.get(store)
    if found is None or key is None or found.key != key:
        found = _Library(store, key, found)
        if key is not None:
            _LIBRARIES[store] = found
    return found


def default_embedder() -> Embedder:
    global _EMBEDDER
    if _EMBEDDER is None:
        _EMBEDDER = HashedTfidfEmbedder()
    return _EMBEDDER


def match(store: Store, query: str, limit: int = 10, strategy: str = "auto", *, now: datetime | None = None,
          embedder: Embedder | None = None) -> MatchResult:
    """The skills ``query`` is about, best first: up to ``limit`` an agent may see, and those found
    that the gate keeps out (also up to ``limit``). ``strategy``: "vectors", "keywords", or
    "auto": vectors, and keywords when no skill is similar enough."""
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}: use one of {', '.join(STRATEGIES)}")
    query = (query or "").strip()
    if not query:
        raise ValueError("the query is empty")
    embedder = embedder or default_embedder()
    now = now or scores.utcnow()
    lib = _library(store)
    note = ""
    found = [] if strategy == "keywords" else _by_vectors(lib, query, embedder, now)
    if strategy == "keywords" or (strategy == "auto" and not found):
        if strategy == "auto":
            note = f"no skill is more than {MIN_SIMILARITY} similar to the query: found by keywords"
        strategy = "keywords"
        found, slow = _by_keywords(store, lib, query, now)
        if slow:
            note = "; ".join(filter(None, [note, "trigger pattern too slow, skipped: " + ", ".join(slow[:5])]))
    elif strategy == "auto":
        strategy = "vectors"
    result = MatchResult(query, strategy, note=note)
    for m in found:
        target = result.excluded if m.excluded else result.matches
        if len(target) < limit:
            target.append(m)
    return result


def _make(lib: _Library, i: int, strategy: str, similarity: float, fresh: float, trigger: bool = False) -> Match:
    utility = float(lib.utility[i])
    return Match(lib.names[i], lib.description[i], strategy, round(similarity, 6), utility, round(fresh, 6),
                 round(similarity * utility * fresh, 6), trigger, lib.warning[i], lib.reason[i])


def _by_vectors(lib: _Library, query: str, embedder: Embedder, now: datetime) -> list[Match]:
    rows, m, shift, norms = lib.vectors(embedder)
    if not len(rows):
        return []
    q = embedder.embed([query])[0].astype(np.float32) - shift
    size = float(np.linalg.norm(q))
    if size == 0:
        return []
    q /= size
    dots = m @ q
    dots -= np.float32(shift @ q)
    sims = np.divide(dots, norms, out=np.zeros_like(dots), where=norms > 0)
    keep = np.flatnonzero(sims > MIN_SIMILARITY)
    if not len(keep):
        return []
    at, sims = rows[keep], sims[keep]
    fresh = lib.freshness(now)[at]
    final = sims * lib.utility[at] * fresh
    order = np.lexsort((at, -final))   # best first; ties by name
    return [_make(lib, int(at[k]), "vectors", float(sims[k]), float(fresh[k])) for k in order.tolist()]


def _by_keywords(store: Store, lib: _Library, query: str, now: datetime) -> tuple[list[Match], list[str]]:
    words = _telling(store, lib, keywords(query))
    hits = store.text_matches(words, TEXT_CANDIDATES)
    best = hits[0][1] if hits else 0.0
    relevance = {lib.row[n]: (rank / best if best else 0.0) for n, rank in hits if n in lib.row}
    triggered, slow = set(), []
    text = query[:MAX_TRIGGER_QUERY]
    for i, pattern in lib.triggers():
        try:
            if pattern.search(text, timeout=TRIGGER_SECONDS):
                triggered.add(i)
        except TimeoutError:
            slow.append(lib.names[i])   # treated as not matching
    fresh = lib.freshness(now)
    out = []
    for i in triggered | relevance.keys():
        if lib.archived[i]:
            continue
        out.append(_make(lib, i, "keywords", float(relevance.get(i, 1.0 if i in triggered else 0.0)), float(fresh[i]),
                         i in triggered))
    out.sort(key=lambda m: (not m.trigger, -m.score, m.name))
    return out, slow


def _telling(store: Store, lib: _Library, words: list[str], keep: int = 5) -> list[str]:
    """The query's words that say most: a word in more than a fifth of the skills is dropped
    when rarer ones remain (ranking by it would read most of the index), then the ``keep``
    rarest are kept."""
    if len(words) <= 2:
        return words
    unknown = [w for w in words if w not in lib.docs]
    if unknown:   # counted once per library state (typing a query asks again and again)
        found = store.term_documents(unknown)
        lib.docs.update({w: found.get(w, 0) for w in unknown})
    docs = lib.docs
    common = max(50, len(lib.names) // 5)
    rare = [w for w in words if docs.get(w, 0) <= common]
    return sorted(rare, key=lambda w: docs.get(w, 0))[:keep] if rare else words[:keep]


def gate(store: Store, names: list[str] | None = None) -> list[GateEntry]:
    """The gate's answer for every skill (or the named ones), by name."""
    lib = _library(store)
    rows = range(len(lib.names)) if names is None else [lib.row[n] for n in names if n in lib.row]
    return [GateEntry(lib.names[i], lib.description[i], lib.lifecycle[i], lib.reason[i] is None, lib.reason[i],
                      lib.warning[i]) for i in rows]


def gated(store: Store, names: list[str] | None = None) -> list[str]:
    """The names an agent may see (of all skills, or of the named ones), by name."""
    return [e.name for e in gate(store, names) if e.passed]


__all__ = ["GateEntry", "MIN_SIMILARITY", "Match", "MatchResult", "STRATEGIES", "gate", "gated",
           "keywords", "match"]
