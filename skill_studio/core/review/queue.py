"""What a reviewer works through: the queue of candidates and degraded skills, oldest first,
and each one's nearest existing skills (found with the full-text index's ranking until
vectors are available)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from skill_studio.core.model import REVIEW_STATES, Lifecycle, Skill
from skill_studio.core.store import Filters, Store

QUEUE_STATES = REVIEW_STATES

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]{2,}")
_STOP = frozenset("""the and for with that this from when what your you use used using into onto
are was were has have had not but all any can its it's their there then than them they will
would should could about each every also only more most some such skill skills""".split())


@dataclass(frozen=True)
class Neighbour:
    name: str
    score: float        # 1.0 for the best match, the others relative to it
    lifecycle: Lifecycle
    description: str


QUEUE_LIMIT = 1000   # a queue longer than this is shown from its longest-waiting end


def queue(store: Store, limit: int = QUEUE_LIMIT) -> list[Skill]:
    """Candidates and degraded skills, the longest waiting first (card fields only), at most ``limit``."""
    skills = [s for state in QUEUE_STATES
              for s in store.list(Filters(lifecycle=state.value), sort="created", limit=limit)]
    return sorted(skills, key=lambda s: (s.created_at or "", s.name))[:limit]


def queue_count(store: Store) -> int:
    counts = store.counts()["lifecycle"]
    return sum(counts[s.value] for s in QUEUE_STATES)


def _terms(skill: Skill, limit: int = 16) -> list[str]:
    words = _WORD.findall(f"{skill.name.replace('-', ' ')} {skill.description} {' '.join(skill.tags)}")
    out = []
    for w in words:
        w = w.lower()
        if w not in _STOP and w not in out:
            out.append(w)
    return out[:limit]


def _rarest(store: Store, terms: list[str], keep: int = 6) -> list[str]:
    """The ``keep`` terms found in the fewest other skills: they say most about a skill, and ranking
    by words that every skill has would read the whole index (seconds at 100,000 skills)."""
    if len(terms) <= keep:
        return terms
    docs = store.term_documents(terms)
    shared = [t for t in terms if docs.get(t, 0) > 1]  # a word only this skill has finds no neighbour
    return sorted(shared, key=lambda t: docs[t])[:keep] or terms[:keep]


def nearest(store: Store, name: str, k: int = 3) -> list[Neighbour]:
    """The ``k`` existing skills (not archived) closest to ``name`` by the full-text ranking of its
    name, description and tags; best first."""
    skill = store.get(name, with_files=False)
    terms = _rarest(store, _terms(skill))
    if not terms:
        return []
    rows = store.ranked_matches(terms, exclude=name, limit=k + 8)[:k]
    if not rows:
        return []
    best = rows[0][1] or -1.0  # bm25: more negative is better
    return [Neighbour(r[0], round(min(1.0, (r[1] or 0.0) / best), 3) if best else 0.0, Lifecycle(r[2]), r[3])
            for r in rows]
