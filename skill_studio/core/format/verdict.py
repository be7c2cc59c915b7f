"""A skill's strict-profile verdict in a few words (pass or fail, how many problems, the first one),
for lists of many skills: what a card's or a row's validation mark says."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from skill_studio.core.model import Skill


@dataclass(frozen=True)
class Verdict:
    """The strict profile's errors of one SKILL.md: how many, and the first one's message."""

    errors: int
    first: str = ""

    @property
    def valid(self) -> bool:
        return self.errors == 0

    def summary(self) -> str:
        """'Passes the strict check', or 'Fails the strict check: <first problem> (and 2 more)'."""
        if self.valid:
            return "Passes the strict check"
        more = f" (and {self.errors - 1} more)" if self.errors > 1 else ""
        return f"Fails the strict check: {self.first}{more}"


def verdict_of(skill_md: str | bytes, folder_name: str | None) -> Verdict:
    """The strict verdict of one SKILL.md text (the studio's lints left out: they never fail)."""
    # The validator (and the YAML parser) is loaded by the first check, off the GUI thread, not
    # with the window.
    from skill_studio.core.format.diagnostics import Severity
    from skill_studio.core.format.validate import validate_text

    problems = [d for d in validate_text(skill_md, folder_name, "strict", lints=False)
                if d.severity is Severity.ERROR]
    if not problems:
        return Verdict(0)
    first = problems[0]
    where = f"line {first.line}: " if first.line else ""
    return Verdict(len(problems), where + first.message)


def verdicts(skills: Iterable[Skill], *,
             cancelled: Callable[[], bool] | None = None) -> dict[str, tuple[int, Verdict]]:
    """name -> (version checked, verdict) for each skill (with its SKILL.md text). Raises
    InterruptedError when ``cancelled`` says so between two skills."""
    out: dict[str, tuple[int, Verdict]] = {}
    for skill in skills:
        if cancelled is not None and cancelled():
            raise InterruptedError("checking the skills was cancelled")
        out[skill.name] = (skill.version, verdict_of(skill.skill_md, skill.folder_name or skill.name))
    return out
