"""Skills extracted by an agent (imported with origin ``llm``) that nearly repeat a skill the
library has (SPEC §5).

Into another unreviewed extracted skill, one is merged at once (reported, undoable). Into a
skill a person wrote or reviewed, it is only proposed: the new skill stays a candidate in the
review queue, and the proposal is in its audit trail, until a reviewer merges it (or not).
Untrusted text and files never reach a trusted skill without review."""

from __future__ import annotations

from dataclasses import dataclass

from skill_studio.core.model import UNSEARCHED_STATES, Lifecycle, Origin, Skill, TrustTier
from skill_studio.core.review.lifecycle import Change
from skill_studio.core.review.merge import merge
from skill_studio.core.store import Store, StoreError

SETTING = "import.merge_similarity"
DEFAULT_THRESHOLD = 0.78
#: The audit action of a merge proposed on import (the skill proposed, to: the library's skill).
PROPOSAL = "propose-merge"


@dataclass(frozen=True)
class Absorbed:
    name: str           # the imported skill (merged, then removed)
    target: str         # the library's skill it was merged into (or is proposed for)
    similarity: float
    proposed: bool = False   # left as a candidate for a reviewer to merge: the target was reviewed
    files: tuple[str, ...] = ()   # new files the merge added to the target


def reviewed(skill: Skill) -> bool:
    """Whether a person wrote, reviewed or trusted the skill: anything but an extracted
    candidate nobody has looked at yet."""
    return not (skill.origin == Origin.LLM and skill.lifecycle == Lifecycle.CANDIDATE
                and int(skill.trust_tier) <= int(TrustTier.UNTRUSTED))


def absorb(store: Store, names: list[str], *, threshold: float | None = None,
           author: str | None = None) -> tuple[list[Absorbed], Change]:
    """Merge each of the newly imported ``names`` whose nearest library skill (not one of the
    new ones, not archived) is at least ``threshold`` similar into that skill, then remove it;
    when that skill was reviewed (``reviewed``), only propose it (an audit entry on the new
    skill, which stays a candidate). Returns what was merged or proposed, and one change that
    undoes the merges."""
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
        if reviewed(store.get(target, with_files=False)):
            why = f'Proposed on import as a merge into "{target}" (similarity {similarity:.2f})'
            with store.transaction():
                store.set_state(name, author=author, lifecycle_reason=why)
                store.audit(name, PROPOSAL, None, target, f"{why}: kept as a candidate for a reviewer", author)
            done.append(Absorbed(name, target, similarity, proposed=True))
            continue
        try:
            with store.transaction():
                before_files = {f.path for f in store.get(target).files}
                merged = merge(store, target, name, author=author)
                bindings = store.bindings(skill=name)   # put back with it by an undo
                store.delete(name, author=author, reason=f'merged into "{target}" on import '
                                                         f"(similarity {similarity:.2f})")
        except StoreError:
            continue  # e.g. the library's skill is builtin: the new one stays as it is
        change.add(merged).after[name] = None  # merged, then removed
        if bindings:
            change.bindings[name] = bindings
        after = merged.after.get(target)
        added = tuple(sorted({f.path for f in after.files} - before_files)) if after is not None else ()
        done.append(Absorbed(name, target, similarity, files=added))
    return done, change
