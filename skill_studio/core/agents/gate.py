"""The reliability gate of SPEC §8 on a skill's card columns: whether an agent may see a skill,
and if not, the rule that keeps it out.

It needs no health run: lifecycle, trust tier, origin and success rate are on every card. A
degraded skill passes the gate (a health check moved it there because its health fell below the
degrade threshold) but is shown with a warning.
"""

from __future__ import annotations

from skill_studio.core.model import EXPOSED_STATES, Lifecycle, Origin, TrustTier

MIN_TRUST = TrustTier.PROVISIONAL      # trust tier 2 or more
MIN_LLM_SUCCESS = 0.3                  # llm skills need at least this success rate
DEGRADED_WARNING = "degraded: shown with a warning"


def gate_reason(lifecycle, trust_tier, origin, success_rate) -> str | None:
    """None when an agent may see the skill; otherwise the first rule that excludes it, as one
    readable line (lifecycle, then trust, then an llm skill's success rate). Each argument may
    be the enum or its plain value."""
    state = Lifecycle(lifecycle)
    if state not in EXPOSED_STATES:
        return f"lifecycle is {state.value} (not exposed)"
    tier = int(trust_tier)
    if tier < MIN_TRUST:
        return f"trust {tier} < {int(MIN_TRUST)}"
    if Origin(origin) == Origin.LLM and success_rate < MIN_LLM_SUCCESS:
        return f"llm skill with success rate {_below(success_rate, MIN_LLM_SUCCESS)} < {MIN_LLM_SUCCESS:.2f}"
    return None


def gate_warning(lifecycle) -> str | None:
    """The warning a skill that passes the gate is shown with, or None."""
    return DEGRADED_WARNING if Lifecycle(lifecycle) == Lifecycle.DEGRADED else None


def skill_gate(skill) -> str | None:
    """``gate_reason`` of a Skill (or any object with the four card attributes)."""
    return gate_reason(skill.lifecycle, skill.trust_tier, skill.origin, skill.success_rate)


def _below(value: float, limit: float) -> str:
    """``value`` with two decimals, or as many more as it takes not to read as ``limit``."""
    for digits in (2, 3, 4, 6):
        text = f"{value:.{digits}f}"
        if float(text) < limit:
            return text
    return repr(value)
