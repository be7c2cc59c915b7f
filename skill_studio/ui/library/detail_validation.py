"""What the details panel says of a skill's validation: the strict profile's outcome, the lenient
one's, and the first problems of both (each once), in plain words. The validator (and the YAML
parser) loads when a skill is first shown, not at start."""

from __future__ import annotations

from dataclasses import dataclass, field

from skill_studio.core.model import Skill

MAX_MESSAGES = 4      # problems listed; the rest counted


@dataclass
class ValidationWords:
    strict: str                       # "Passes the strict profile · 1 warning", "Strict: 2 errors, 0 warnings"
    strict_passes: bool
    lenient: str                      # "Loads as agents load it (lenient)", "Lenient: 1 error, 0 warnings"
    problems: list[tuple[str, str]] = field(default_factory=list)   # (text, hint) of the first ones
    more: int = 0                     # problems not listed


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def validation_words(skill: Skill, paths: list[str]) -> ValidationWords:
    """Both profiles' verdicts on ``skill`` (its files beside SKILL.md at ``paths``), lints included."""
    from skill_studio.core.format.diagnostics import Severity
    from skill_studio.core.format.validate import validate_text

    folder = skill.folder_name or skill.name
    strict = validate_text(skill.skill_md, folder, "strict", files=paths, lints=True)
    lenient = validate_text(skill.skill_md, folder, "lenient", files=paths, lints=True)

    def said(diags, passes: str, name: str) -> tuple[str, bool]:
        errors = sum(d.severity is Severity.ERROR for d in diags)
        warnings = sum(d.severity is Severity.WARNING for d in diags)
        if errors:
            return f"{name}: {_count(errors, 'error')}, {_count(warnings, 'warning')}", False
        return passes + (f" · {_count(warnings, 'warning')}" if warnings else ""), True

    strict_text, strict_passes = said(strict, "Passes the strict profile", "Strict")
    lenient_text, _ = said(lenient, "Loads as agents load it (lenient)", "Lenient")
    seen, shown = set(), []
    for d in [*strict, *lenient]:
        if d.severity is Severity.INFO or (d.message, d.line) in seen:
            continue
        seen.add((d.message, d.line))
        where = f"line {d.line}: " if d.line else ""
        shown.append((f"{'Error' if d.severity is Severity.ERROR else 'Warning'}, {where}{d.message}", d.hint or ""))
    return ValidationWords(strict_text, strict_passes, lenient_text, shown[:MAX_MESSAGES],
                           max(0, len(shown) - MAX_MESSAGES))
