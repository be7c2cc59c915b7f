"""What a reviewer works through: the queue of candidates and degraded skills, oldest first,
and each one's nearest existing skills, by the similarity the near-duplicate list uses
(core.health.similarity), shown as a value with its band in words."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from skill_studio.core.health.bands import COPY_BANDS, NEIGHBOUR_FLOOR, similarity_band
from skill_studio.core.model import REVIEW_STATES, Lifecycle, Skill
from skill_studio.core.store import Filters, Store

if TYPE_CHECKING:   # the vectors (and numpy) are loaded by the first search for neighbours
    from skill_studio.core.health.similarity import SimilarityIndex

QUEUE_STATES = REVIEW_STATES

@dataclass(frozen=True)
class Neighbour:
    name: str
    similarity: float   # cosine similarity, as in the near-duplicate list
    band: str           # same skill, near copy, related (see core.health.similarity)
    lifecycle: Lifecycle
    description: str
    differs: tuple[str, ...] = ()   # words showing the two are about different things (a template's siblings)

    @property
    def copy(self) -> bool:
        """Close enough that a diff (and a merge) is worth offering."""
        return self.band in COPY_BANDS


QUEUE_LIMIT = 1000   # a queue longer than this is shown from its longest-waiting end


def queue(store: Store, limit: int = QUEUE_LIMIT) -> list[Skill]:
    """Candidates and degraded skills, the longest waiting first (card fields only), at most ``limit``."""
    skills = [s for state in QUEUE_STATES
              for s in store.list(Filters(lifecycle=state.value), sort="created", limit=limit)]
    return sorted(skills, key=lambda s: (s.created_at or "", s.name))[:limit]


def queue_count(store: Store) -> int:
    counts = store.counts()["lifecycle"]
    return sum(counts[s.value] for s in QUEUE_STATES)


def nearest(store: Store, name: str, k: int = 3, *, index: SimilarityIndex | None = None,
            cancelled: Callable[[], bool] | None = None) -> list[Neighbour]:
    """The ``k`` existing skills (not archived) most similar to ``name``, best first, of those at
    least NEIGHBOUR_FLOOR similar. Vectors missing or out of date are computed first (raises
    InterruptedError when ``cancelled``). A neighbour about something else, however similar (a
    sibling made from the same template: Zoho Books beside Zoho Invoice), is only related, with
    the words that tell them apart (core.health.duplicates)."""
    from skill_studio.core.health.duplicates import different_subjects
    from skill_studio.core.health.similarity import SimilarityIndex

    index = index or SimilarityIndex(store)
    index.refresh(cancelled=cancelled)
    if cancelled and cancelled():
        raise InterruptedError("looking for similar skills was cancelled")
    found = [(n, sim) for n, sim in index.similar_to(name, k) if sim >= NEIGHBOUR_FLOOR]
    if not found:
        return []
    cards = {s.name: s for s in store.cards([n for n, _ in found])}
    close = {n: sim for n, sim in found if similarity_band(sim) in COPY_BANDS}   # where a subject could veto
    differ = different_subjects(store, name, close) if close else {}
    out = []
    for n, sim in found:
        if n in cards:
            words = tuple(differ.get(n, ()))
            band = "related" if words else similarity_band(sim)   # siblings of a template are no copies
            out.append(Neighbour(n, round(sim, 3), band, cards[n].lifecycle, cards[n].description, words))
    return out
