"""Skills extracted by an agent (imported with origin ``llm``) that nearly repeat a skill the
library has: merged into it instead of added (SPEC §5), reported, and undoable."""

from __future__ import annotations

from dataclasses import dataclass

from skill_studio.core.model import UNSEARCHED_STATES
from skill_studio.core.review.lifecycle import Change
from skill_studio.core.review.merge import merge
from skill_studio.core.store import Store, StoreError

SETTING = "import.merge_similarity"
DEFAULT_THRESHOLD = 0.78


@dataclass(frozen=True)
class Absorbed:
    name: str           # the imported skill (merged, then removed)
    target: str         # the library's skill it was merged into
    similarity: float


def absorb(store: Store, names: list[str], *, threshold: float | None = None,
           author: str | None = None) -> tuple[list[Absorbed], Change]:
    """Merge each of the newly imported ``names`` whose nearest library skill (not one of the
    new ones, not archived) is at least ``threshold`` similar into that skill, then remove it.
    Returns what was absorbed and one change that undoes all of it."""
    from skill_studio.core.health.duplicates import different_subjects
    from skill_studio.core.health.similarity import SimilarityIndex

    threshold = float(store.setting(SETTING, DEFAULT_THRESHOLD) if threshold is None else threshold)
    new = set(names)
    index = SimilarityIndex(store)
    index.refresh()
    done: list[Absorbed] = []
    change = Change(f"Merge {len(names)} extracted skill(s) into the library")
    for name in names:
        if name not in store:
            continue
        candidates = [(other, sim) for other, sim in index.similar_to(name, k=len(new) + 5)
                      if other not in new and sim >= threshold]
        differ = different_subjects(store, name, dict(candidates)) if candidates else {}
        target = next((other for other, _sim in candidates if other in store
                       and store.get(other, with_files=False).lifecycle not in UNSEARCHED_STATES
                       and not differ.get(other)), None)
        if target is None:
            continue
        similarity = next(sim for other, sim in candidates if other == target)
        try:
            with store.transaction():
                merged = merge(store, target, name, author=author)
                bindings = store.bindings(skill=name)   # put back with it by an undo
                store.delete(name, author=author, reason=f'merged into "{target}" on import '
                                                         f"(similarity {similarity:.2f})")
        except StoreError:
            continue  # e.g. the library's skill is builtin: the new one stays as it is
        change.add(merged).after[name] = None  # merged, then removed
        if bindings:
            change.bindings[name] = bindings
        done.append(Absorbed(name, target, similarity))
    return done, change
