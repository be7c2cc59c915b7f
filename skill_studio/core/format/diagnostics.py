"""Validation findings: severities, the Diagnostic record, and the parsed skill the profiles hand to the lints."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from skill_studio.core.format.skillmd import count_lines

__all__ = ["Diagnostic", "Parsed", "Severity", "count_lines", "err", "errors", "info", "is_valid", "warn"]


class Severity(str, enum.Enum):
    """How much a diagnostic matters: errors fail the profile, warnings and info do not."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class Diagnostic:
    """One finding: a stable code, its severity, a message, the 1-based SKILL.md line and a fix hint."""

    code: str
    severity: Severity
    message: str
    line: int | None = None
    hint: str | None = None


def errors(diags: Iterable[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics of severity error, in order."""
    return [d for d in diags if d.severity is Severity.ERROR]


def is_valid(diags: Iterable[Diagnostic]) -> bool:
    """True when no diagnostic is an error."""
    return not errors(diags)


def err(code: str, message: str, line: int | None = None, hint: str | None = None) -> Diagnostic:
    """An error diagnostic."""
    return Diagnostic(code, Severity.ERROR, message, line, hint)


def warn(code: str, message: str, line: int | None = None, hint: str | None = None) -> Diagnostic:
    """A warning diagnostic."""
    return Diagnostic(code, Severity.WARNING, message, line, hint)


def info(code: str, message: str, line: int | None = None, hint: str | None = None) -> Diagnostic:
    """An information diagnostic."""
    return Diagnostic(code, Severity.INFO, message, line, hint)


@dataclass
class Parsed:
    """What a profile read of SKILL.md, for the lints: frontmatter data, key lines and the body."""

    data: dict[str, Any] | None = None
    key_lines: dict[str, int] = field(default_factory=dict)    # 1-based SKILL.md lines
    meta_lines: dict[str, int] = field(default_factory=dict)
    body: str | None = None
    body_line: int = 1
