"""The reliability gate of SPEC §8 on a skill's card columns: whether an agent may see a skill,
and if not, the rule that keeps it out; and the warning a skill that passes is shown with.

Exclusion needs no health run: lifecycle, trust tier, origin and success rate are on every card.
The warning also looks at use: a degraded skill, and a skill of any origin whose health is under
the degrade threshold or that fails most of its uses (after enough uses to say so), passes with a
warning that travels with it (the gated prompt block, ``load``, the APIs).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from skill_studio.core.health import scores
from skill_studio.core.health.checks import DEFAULTS, below, health_score
from skill_studio.core.model import EXPOSED_STATES, GateCard, Lifecycle, Origin, TrustTier

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
        return f"llm skill with success rate {below(success_rate, MIN_LLM_SUCCESS)} < {MIN_LLM_SUCCESS:.2f}"
    return None


def gate_warning(lifecycle, uses: int = 0, success_rate: float = 0.5, health: float | None = None,
                 cfg: Mapping | None = None) -> str | None:
    """The warning a skill that passes the gate is shown with, or None: degraded; or, after at
    least ``health.low_min_uses`` uses, failing most of them (success rate under
    ``health.failing_rate``) or a health under the degrade threshold (``health.low``)."""
    if Lifecycle(lifecycle) == Lifecycle.DEGRADED:
        return DEGRADED_WARNING
    cfg = cfg or DEFAULTS
    if uses < cfg["health.low_min_uses"]:
        return None
    if success_rate < cfg["health.failing_rate"]:
        return (f"fails most of its uses: success rate {below(success_rate, cfg['health.failing_rate'])} "
                f"after {uses} uses")
    if health is not None and health < cfg["health.low"]:
        return f"health {below(health, cfg['health.low'])} < {cfg['health.low']:.2f} after {uses} uses"
    return None


def judge(card: GateCard, cfg: Mapping, now: datetime | None = None,
          half_life: float = scores.HALF_LIFE_DAYS) -> tuple[str | None, str | None]:
    """(the rule that keeps the skill from agents, or None; the warning it passes with, or None).
    Its health is the §4 score now: freshness from its last use, redundancy from the latest run."""
    reason = gate_reason(card.lifecycle, card.trust_tier, card.origin, card.success_rate)
    if reason is not None:
        return reason, None
    fresh = scores.freshness(card.last_used_at, card.created_at, now, half_life)
    health = health_score(card.utility, card.redundancy, fresh, 1.0 - card.success_rate, cfg)
    return None, gate_warning(card.lifecycle, card.uses, card.success_rate, health, cfg)


def store_verdicts(store, names=None, now: datetime | None = None) -> dict[str, tuple[str | None, str | None]]:
    """:func:`judge` of the named skills (all when None) of a store, by name."""
    from skill_studio.core.health.checks import settings

    cfg = settings(store)
    half_life = float(store.setting("scores.half_life_days", scores.HALF_LIFE_DAYS))
    now = now or scores.utcnow()
    return {name: judge(card, cfg, now, half_life) for name, card in store.gate_cards(names).items()}


def skill_gate(skill) -> str | None:
    """``gate_reason`` of a Skill (or any object with the four card attributes)."""
    return gate_reason(skill.lifecycle, skill.trust_tier, skill.origin, skill.success_rate)
