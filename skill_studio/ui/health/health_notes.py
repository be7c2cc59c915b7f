"""What the health view says about its run and its plan: a one-line summary when a run ends, and
what became of the applied moves when the window reports a change (undone, applied again, or the
skills changed so the plan may be out of date)."""

from __future__ import annotations

from dataclasses import dataclass

from skill_studio.core.health.checks import HealthRun
from skill_studio.core.ops.changes import ChangeSet

#: What each stage of a run is doing, in words.
STAGES = {"vectors": "Reading skills", "pairs": "Comparing skills"}
NO_RUN = "Run a health check to score every skill"
OUT_OF_DATE = "Skills changed since this check ran: run it again for an up-to-date plan"


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def stage_text(stage: str, done: int, total: int) -> str:
    """"Reading skills: 312 of 880"."""
    return f"{STAGES.get(stage, stage.capitalize())}: {done:,} of {total:,}"


def run_summary(result: HealthRun | None, pairs: int) -> str:
    """"Checked 880 skills: 15 moves planned, 4 near-duplicate pairs (kept for trends)"."""
    if result is None:
        return NO_RUN
    moves = sum(1 for a in result.actions if a.applies)
    kept = "kept for trends" if result.run_id else "not kept"
    return (f"Checked {plural(len(result.skills), 'skill')}: {plural(moves, 'move')} planned, "
            f"{plural(pairs, 'near-duplicate pair')} ({kept})")


@dataclass
class Applied:
    """The plan moves the view applied: the change's label (its undo is "Undo: " + label), the
    skills moved, how many, and whether they stand undone now."""

    label: str
    skills: frozenset[str]
    count: int
    undone: bool = False

    def applied_text(self) -> str:
        return f"Applied {plural(self.count, 'move')}; run the check again to see the new scores"

    def follow(self, changes: ChangeSet) -> str | None:
        """The note after ``changes`` when it is this plan's undo or redo (``undone`` follows);
        None for any other change."""
        were = "was" if self.count == 1 else "were"
        if not self.label:
            return None
        if changes.label == f"Undo: {self.label}" and not self.undone:
            self.undone = True
            return f"The {plural(self.count, 'move')} {were} undone: the plan can be applied again"
        if changes.label == self.label and self.undone:
            self.undone = False
            return f"The {plural(self.count, 'move')} {were} applied again; run the check again to see the new scores"
        return None


def out_of_date(result: HealthRun, changes: ChangeSet) -> bool:
    """Whether ``changes`` touches what the run shows (skills came, went, or changed)."""
    return changes.unknown or changes.membership or changes.touches(s.name for s in result.skills)
