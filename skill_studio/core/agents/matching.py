"""Matching a query to skills, and the reliability gate over a library (SPEC §8).

Relevance comes first. Two signals say how much a skill is about a query:

- **lexical**: the query's words (stop words dropped; each also in the other forms the library
  uses, so "invoices" finds "invoice" and "invoicing") ranked by the full-text index's bm25 over name,
  description, tags, trigger pattern and body, the first four weighted above the body (SQLite FTS5);
- **vectors**: the cosine similarity of the query's vector (core.health.embedding) with each
  skill's card (its name and description: what an agent sees before loading one), with the
  library's common direction taken out, as in core.health.similarity.

The strategies:

- **fused** (the default): both, combined by reciprocal rank fusion; a skill whose trigger
  pattern matches the query ranks first, and skills found by neither signal well enough (past
  RANK_DEPTH in both lists; by the words alone with under a quarter of the best hit's bm25; or
  under the vector floor with no word in common) are left out;
- **keywords** and **vectors**: one signal alone;
- **product**: the seed's ranking, ``similarity × utility × freshness`` over vectors.

Every strategy but ``product`` ranks by ``relevance × (0.8 + 0.2 × utility × freshness)``: use
reorders skills of similar relevance and never lifts an unrelated one over a relevant one. Every
result carries its breakdown: lexical rank and bm25, similarity, relevance, prior and score. The
gate (core.agents.gate) decides what an agent may see: matches it keeps out are listed apart,
with the rule, and those it lets through with a warning carry it.

What a query reads (core.agents.match_library: the cards and their vectors) is kept per store while the store stays the
same; after a change only the cards whose skill changed are embedded again. So a query over
100,000 skills is one matrix-vector product and one full-text query.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from skill_studio.core.agents.match_library import Library, default_embedder, library
from skill_studio.core.health import scores
from skill_studio.core.health.embedding import STOP_WORDS, Embedder
from skill_studio.core.store import Store

STRATEGIES = ("fused", "keywords", "vectors", "product")
DEFAULT_STRATEGY = "fused"
ALIASES = {"auto": "fused"}   # the name the default had before fusion
MIN_SIMILARITY = 0.3        # product: skills at or below this are not about the query
NOISE_Z = 3.0               # others: a card this many deviations above the background is about the query
MIN_BACKGROUND = 20         # skills it takes to tell the background
TEXT_CANDIDATES = 200       # full-text hits read before ranking
MIN_COMMON = 50             # a word in fewer skills than this is never too common to rank by
RANK_DEPTH = 50             # fused: a skill ranked past this in both signals is not about the query
LEXICAL_FLOOR = 0.25        # a hit of the words alone under this share of the best hit's bm25 is left out
VECTOR_WEIGHT = 0.5         # fused: the built-in embedder's similarity weighs half the words' bm25
PRIOR_FLOOR = 0.8           # score = relevance × (PRIOR_FLOOR + (1 - PRIOR_FLOOR) × utility × freshness)
TRIGGER_SECONDS = 0.02      # the most one trigger pattern may take on a query
MAX_TRIGGER_QUERY = 1000    # characters of the query trigger patterns see
_WORD = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*", re.UNICODE)
_SUFFIXES = ("ations", "ation", "ions", "ion", "ings", "ing", "ies", "es", "ed", "s")
FORM_LETTERS = 4            # a form of a word is its stem and at most this many letters


@dataclass(frozen=True)
class Match:
    """One skill found for a query, and why it ranks where it does."""

    name: str
    description: str
    strategy: str              # the strategy that ranked it
    similarity: float          # cosine similarity of query and card (0.0 when vectors were not used)
    utility: float
    freshness: float
    score: float               # what it is ranked by (see relevance and prior)
    trigger: bool = False      # its trigger pattern matched the query
    warning: str | None = None     # it passes the gate with this warning
    excluded: str | None = None    # the gate rule that keeps it from agents, or None
    relevance: float = 0.0     # how much it is about the query, in [0, 1] (1.0: first in every signal)
    lexical_rank: int | None = None    # its place in the full-text ranking (1 = best), None if not found
    vector_rank: int | None = None     # its place by similarity among the skills above the floor
    bm25: float = 0.0          # its full-text score (higher is better; 0 when not found)
    prior: float = 1.0         # the use prior the relevance was multiplied by

    def evidence(self) -> list[str]:
        """What found it, one phrase a signal: the trigger, its words' place and bm25, its vector's
        place and similarity."""
        parts = []
        if self.trigger:
            parts.append("trigger pattern matched the query")
        if self.lexical_rank is not None:
            parts.append(f"words #{self.lexical_rank} (bm25 {self.bm25:.2f})")
        if self.vector_rank is not None:
            parts.append(f"vectors #{self.vector_rank} (similarity {self.similarity:.3f})")
        return parts

    @property
    def found_by(self) -> str:
        """Which signals found it, in words."""
        parts = [p for p, on in (("trigger", self.trigger), ("words", self.lexical_rank is not None),
                                 ("vectors", self.vector_rank is not None)) if on]
        return " + ".join(parts) or self.strategy


@dataclass
class MatchResult:
    query: str
    strategy: str                                        # the strategy used
    matches: list[Match] = field(default_factory=list)   # what an agent would get, best first
    excluded: list[Match] = field(default_factory=list)  # found, but kept out by the gate
    note: str = ""                                       # e.g. a trigger pattern that was too slow


@dataclass(frozen=True)
class GateEntry:
    """A skill and the gate's answer: passed (maybe with a warning) or the rule that excludes it."""

    name: str
    description: str
    lifecycle: str
    passed: bool
    reason: str | None
    warning: str | None


#: Words of a request that say who asks and how, never what about: question words, pronouns, please.
REQUEST_WORDS = frozenset("what how why who whom whose where i i'm me my mine we our ours us please".split())


def keywords(query: str) -> list[str]:
    """The query's words, lower case, stop words and REQUEST_WORDS dropped, each once, in order."""
    words = [w.casefold() for w in _WORD.findall(query or "")]
    return list(dict.fromkeys(w for w in words if w not in STOP_WORDS and w not in REQUEST_WORDS
                              and (len(w) > 1 or w.isdigit())))


def stem(word: str) -> str:
    """A word less a common English ending, kept at 4 letters or more ("invoices" -> "invoic",
    "extracting" -> "extract"): the words that begin with it are the word's other forms."""
    if not word.isalpha():
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[:-len(suffix)]
    return word


def prior(utility: float, freshness: float) -> float:
    """The bounded use prior (SPEC §8), in [PRIOR_FLOOR, 1]."""
    return PRIOR_FLOOR + (1.0 - PRIOR_FLOOR) * utility * freshness


def match(store: Store, query: str, limit: int = 10, strategy: str = DEFAULT_STRATEGY, *,
          now: datetime | None = None, embedder: Embedder | None = None) -> MatchResult:
    """The skills ``query`` is about, best first: up to ``limit`` an agent may see, and those found
    that the gate keeps out (also up to ``limit``). ``strategy``: one of STRATEGIES (see the
    module docstring)."""
    strategy = ALIASES.get(strategy, strategy)
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}: use one of {', '.join(STRATEGIES)}")
    query = (query or "").strip()
    if not query:
        raise ValueError("the query is empty")
    embedder = embedder or default_embedder()
    now = now or scores.utcnow()
    lib = library(store)
    fresh = lib.freshness(now)
    sims, floor = ({}, MIN_SIMILARITY) if strategy == "keywords" else \
        _similarities(lib, query, embedder, MIN_SIMILARITY if strategy == "product" else None)
    words: dict[int, float] = {}
    triggered: set[int] = set()
    slow: list[str] = []
    if strategy in ("fused", "keywords"):
        words = _bm25(store, lib, query)
        triggered, slow = _triggered(lib, query)
    if strategy == "product":
        found = _product(lib, sims, fresh)
    else:
        found = _ranked(lib, strategy, words, sims, triggered, fresh, floor)
    result = MatchResult(query, strategy)
    if slow:
        result.note = "trigger pattern too slow, skipped: " + ", ".join(slow[:5])
    for m in found:
        target = result.excluded if m.excluded else result.matches
        if len(target) < limit:
            target.append(m)
    return result


def _similarities(lib: Library, query: str, embedder: Embedder,
                  floor: float | None = None) -> tuple[dict[int, float], float]:
    """({row: cosine similarity} of the skills above ``floor`` to the query, the floor): by
    default the floor is the library's background (see _floor)."""
    rows, m, shift, norms = lib.vectors(embedder)
    if not len(rows):
        return {}, floor or MIN_SIMILARITY
    q = embedder.embed([query])[0].astype(np.float32) - shift
    size = float(np.linalg.norm(q))
    if size == 0:
        return {}, floor or MIN_SIMILARITY
    q /= size
    dots = m @ q
    dots -= np.float32(shift @ q)
    sims = np.divide(dots, norms, out=np.zeros_like(dots), where=norms > 0)
    background = floor is None
    floor = _floor(sims) if floor is None else floor
    keep = np.flatnonzero(sims > floor)
    if background and len(keep) > RANK_DEPTH:     # past RANK_DEPTH a place counts for nothing
        keep = keep[np.argpartition(-sims[keep], RANK_DEPTH - 1)[:RANK_DEPTH]]
    return dict(zip(rows[keep].tolist(), sims[keep].astype(float).tolist())), floor


def _floor(sims: np.ndarray) -> float:
    """The similarity a card must pass to be about the query: NOISE_Z robust deviations above the
    library's median similarity to it (most skills are not about any one query, so the median and
    its spread are the background), and never under MIN_SIMILARITY in a library too small to tell."""
    if len(sims) < MIN_BACKGROUND:
        return MIN_SIMILARITY
    median = float(np.median(sims))
    spread = 1.4826 * float(np.median(np.abs(sims - median)))
    return min(MIN_SIMILARITY, median + NOISE_Z * spread)


def _bm25(store: Store, lib: Library, query: str) -> dict[int, float]:
    """{row: bm25 score (higher is better)} of the skills the query's words, or other forms of
    them, find."""
    terms = []
    for w in _telling(store, lib, keywords(query)):
        terms.append(w)
        terms += _forms(store, lib, w)
    terms = list(dict.fromkeys(terms))
    return {lib.row[n]: -rank for n, rank in store.text_matches(terms, TEXT_CANDIDATES) if n in lib.row}


def _forms(store: Store, lib: Library, word: str) -> list[str]:
    """Other forms of ``word`` the library uses: words that begin with its stem and are at most
    FORM_LETTERS longer ("invoices" -> invoice, invoicing; not "tablespoon" for "tables"), less
    those in more than half the skills (they would rank most of the library and say nothing)."""
    root = stem(word)
    if root == word:
        return []
    if root not in lib.forms:
        lib.forms.update(store.term_forms([root]))
    common = max(MIN_COMMON, len(lib.names) // 2)
    return [t for t, docs in lib.forms.get(root, []) if t != word and len(t) <= len(root) + FORM_LETTERS
            and docs <= common]


def _triggered(lib: Library, query: str) -> tuple[set[int], list[str]]:
    """The rows whose trigger pattern matches the query, and the names of those too slow to tell."""
    found, slow = set(), []
    text = query[:MAX_TRIGGER_QUERY]
    for i, pattern in lib.triggers():
        try:
            if pattern.search(text, timeout=TRIGGER_SECONDS):
                found.add(i)
        except TimeoutError:
            slow.append(lib.names[i])   # treated as not matching
    return found, slow


def _ranks(values: dict[int, float], lib: Library) -> dict[int, int]:
    """{row: 1-based place} by value, best first; equal values (to six places) share a place."""
    order = sorted(values, key=lambda i: (-values[i], lib.names[i]))
    out: dict[int, int] = {}
    for k, i in enumerate(order, 1):
        before = order[k - 2] if k > 1 else None
        same = before is not None and round(values[before], 6) == round(values[i], 6)
        out[i] = out[before] if same and before is not None else k
    return out


def _ranked(lib: Library, strategy: str, words: dict[int, float], sims: dict[int, float],
            triggered: set[int], fresh: np.ndarray, floor: float) -> list[Match]:
    """The relevance-first ranking: relevance from the signals the strategy uses, each as a share
    of its best hit (bm25 over the best bm25; similarity above the background over the best's),
    weighted and summed so that the best in every signal is 1.0; times the bounded use prior;
    trigger matches first (a trigger match found by no signal has relevance 1.0)."""
    if words:   # words alone that score a small share of the best hit's bm25 are not about the query
        top = max(words.values())
        words = {i: v for i, v in words.items() if v >= LEXICAL_FLOOR * top or i in sims}
    lexical, vector = _ranks(words, lib), _ranks(sims, lib)
    best_words = max(words.values(), default=0.0)
    best_sim = max(sims.values(), default=0.0)
    weights = (1.0 if strategy != "vectors" else 0.0,
               0.0 if strategy == "keywords" else VECTOR_WEIGHT if strategy == "fused" else 1.0)

    def share(i: int) -> float:
        parts = (words.get(i, 0.0) / best_words if best_words > 0 else 0.0,
                 (sims[i] - floor) / (best_sim - floor) if i in sims and best_sim > floor else 0.0)
        used = [w for w, on in zip(weights, (bool(words), bool(sims))) if on and w]
        return sum(w * x for w, x in zip(weights, parts)) / sum(used) if used else 0.0

    out = []
    for i in set(triggered) | set(lexical) | set(vector):
        if lib.archived[i]:
            continue
        in_depth = (lexical.get(i, RANK_DEPTH + 1) <= RANK_DEPTH and weights[0]) or \
                   (vector.get(i, RANK_DEPTH + 1) <= RANK_DEPTH and weights[1])
        if strategy == "fused" and i not in lexical and sims.get(i, 0.0) < MIN_SIMILARITY:
            in_depth = False     # no word in common and only faintly similar: not about the query
        if not in_depth and i not in triggered:
            continue
        relevance = share(i) if in_depth else 1.0
        utility, f = float(lib.utility[i]), float(fresh[i])
        p = prior(utility, f)
        out.append(Match(lib.names[i], lib.description[i], strategy, round(sims.get(i, 0.0), 6), utility,
                         round(f, 6), round(relevance * p, 6), i in triggered, lib.warning[i], lib.reason[i],
                         round(relevance, 6), lexical.get(i), vector.get(i), round(words.get(i, 0.0), 6),
                         round(p, 6)))
    out.sort(key=lambda m: (not m.trigger, -m.score, m.name))
    return out


def _product(lib: Library, sims: dict[int, float], fresh: np.ndarray) -> list[Match]:
    """The seed's ranking: similarity × utility × freshness, over the skills above the floor."""
    vector = _ranks(sims, lib)
    out = []
    for i, sim in sims.items():
        utility, f = float(lib.utility[i]), float(fresh[i])
        out.append(Match(lib.names[i], lib.description[i], "product", round(sim, 6), utility, round(f, 6),
                         round(sim * utility * f, 6), False, lib.warning[i], lib.reason[i], round(sim, 6),
                         None, vector[i], 0.0, round(utility * f, 6)))
    out.sort(key=lambda m: (-m.score, m.name))
    return out


def _telling(store: Store, lib: Library, words: list[str], keep: int = 8) -> list[str]:
    """The query's words that say something: a word in more than half the skills says next to
    nothing (bm25 gives it almost no weight) and would make the index rank most of the library,
    so it is dropped; so is a word in more than a fifth of them when rarer ones remain. Then the
    ``keep`` rarest are kept. A word in fewer than MIN_COMMON skills is never dropped."""
    if not words:
        return words
    unknown = [w for w in words if w not in lib.docs]
    if unknown:   # counted once per library state (typing a query asks again and again)
        found = store.term_documents(unknown)
        lib.docs.update({w: found.get(w, 0) for w in unknown})
    docs = lib.docs
    said = [w for w in words if docs.get(w, 0) <= max(MIN_COMMON, len(lib.names) // 2)]
    rare = [w for w in said if docs.get(w, 0) <= max(MIN_COMMON, len(lib.names) // 5)]
    return sorted(rare or said, key=lambda w: docs.get(w, 0))[:keep]


def gate(store: Store, names: list[str] | None = None) -> list[GateEntry]:
    """The gate's answer for every skill (or the named ones), by name."""
    lib = library(store)
    rows = range(len(lib.names)) if names is None else [lib.row[n] for n in names if n in lib.row]
    return [GateEntry(lib.names[i], lib.description[i], lib.lifecycle[i], lib.reason[i] is None, lib.reason[i],
                      lib.warning[i]) for i in rows]


def gated(store: Store, names: list[str] | None = None) -> list[str]:
    """The names an agent may see (of all skills, or of the named ones), by name."""
    return [e.name for e in gate(store, names) if e.passed]


__all__ = ["DEFAULT_STRATEGY", "GateEntry", "MIN_SIMILARITY", "Match", "MatchResult", "STRATEGIES", "gate", "gated",
           "keywords", "match", "prior", "stem"]
