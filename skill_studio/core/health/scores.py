"""The per-skill scores of SPEC §4: decayed outcomes, success rate, utility, freshness."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

DECAY = 0.98
HALF_LIFE_DAYS = 30.0
FULL_CONFIDENCE_USES = 20


@dataclass(frozen=True)
class Outcomes:
    """Decayed success and failure weights and the count of all uses."""

    s: float = 0.0
    f: float = 0.0
    n: int = 0

    def record(self, success: bool, decay: float = DECAY) -> Outcomes:
        """The outcomes after one more use."""
        return Outcomes(decay * self.s + (1.0 if success else 0.0),
                        decay * self.f + (0.0 if success else 1.0),
                        self.n + 1)


def success_rate(o: Outcomes) -> float:
    """Beta(1,1)-smoothed success rate: 0.5 before any use."""
    return (o.s + 1.0) / (o.s + o.f + 2.0)


def utility(o: Outcomes, full_confidence: int = FULL_CONFIDENCE_USES) -> float:
    """Success rate scaled by confidence in the number of uses, in [0, 1]."""
    return success_rate(o) * (0.5 + 0.5 * min(1.0, o.n / full_confidence))


def freshness(last_used_at: str | None, created_at: str | None, now: datetime | None = None,
              half_life_days: float = HALF_LIFE_DAYS) -> float:
    """``2^(-days/half_life)`` since last use, or since creation when never used."""
    ref = parse_time(last_used_at) or parse_time(created_at)
    if ref is None:
        return 1.0
    now = now or utcnow()
    days = max(0.0, (now - ref).total_seconds() / 86400.0)
    return 2.0 ** (-days / half_life_days)


def utcnow() -> datetime:
    return datetime.now(UTC)


def format_time(t: datetime) -> str:
    """ISO-8601 UTC with a Z, to the second."""
    if t.tzinfo is not UTC:
        t = t.astimezone(UTC)
    return f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}Z"


def parse_time(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        t = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return t if t.tzinfo else t.replace(tzinfo=UTC)
