"""What a review operation did, in one sentence that names the skills and the values, in the
domain's own words (lifecycle labels and trust names come from core): the status bar shows it, and
Undo and Redo repeat it ("Undid: trust of pdf set to 2 – Provisional")."""

from __future__ import annotations

from collections.abc import Sequence

from skill_studio.core.model import LIFECYCLE_TERMS, Skill, TrustTier
from skill_studio.core.review.lifecycle import Change

#: How many names a sentence lists before it says "and N more".
NAMES_SHOWN = 3


def names_text(names: Sequence[str]) -> str:
    """"pdf", "pdf and csv", "pdf, csv and docx", "5 skills (pdf, csv, docx and 2 more)"."""
    names = list(names)
    if len(names) <= 1:
        return names[0] if names else "no skills"
    if len(names) <= NAMES_SHOWN:
        return f"{', '.join(names[:-1])} and {names[-1]}"
    return f"{len(names)} skills ({', '.join(names[:NAMES_SHOWN])} and {len(names) - NAMES_SHOWN} more)"


def _past(action: str) -> str:
    return action + ("d" if action.endswith("e") else "ed")


def moved(action: str, change: Change) -> str:
    """"pdf promoted to Released", "pdf degraded", "a and b promoted (a to Verified, b to Released)"."""
    after = {name: skill for name, skill in change.after.items() if isinstance(skill, Skill)}
    past = _past(action)
    labels = {name: LIFECYCLE_TERMS[skill.lifecycle].label for name, skill in after.items()}
    if not labels:
        return f"No skill {past}"
    if len(set(labels.values())) == 1:
        label = next(iter(labels.values()))
        to = "" if label.lower() == past else f" to {label}"
        return f"{names_text(list(labels))} {past}{to}"
    pairs = ", ".join(f"{name} to {label}" for name, label in list(labels.items())[:NAMES_SHOWN])
    more = f" and {len(labels) - NAMES_SHOWN} more" if len(labels) > NAMES_SHOWN else ""
    return f"{len(labels)} skills {past} ({pairs}{more})"


def trust(name: str, tier: int) -> str:
    """"Trust of pdf set to 2 – Provisional"."""
    return f"Trust of {name} set to {int(tier)} \u2013 {TrustTier(int(tier)).label}"


def pinned(names: Sequence[str], pin: bool) -> str:
    return f"{names_text(names)} {'pinned' if pin else 'unpinned'}"


def deleted(names: Sequence[str]) -> str:
    return f"{names_text(names)} deleted"


def merged(source: str, target: str) -> str:
    return f"Merged {source} into {target}"


def health_applied(count: int) -> str:
    return f"Health plan applied: {count} move{'' if count == 1 else 's'}"


def stepped(what: str, said: str) -> str:
    """"Undid: trust of pdf set to 2 – Provisional", "Redid: pdf promoted to Released"."""
    first = said.split(" ", 1)[0]
    if first[:1].isupper() and not first.isupper() and first[1:].islower():
        said = said[:1].lower() + said[1:]
    return f"{'Undid' if what == 'Undo' else 'Redid'}: {said}"


__all__ = ["deleted", "health_applied", "merged", "moved", "names_text", "pinned", "stepped", "trust"]
