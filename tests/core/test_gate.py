"""The reliability gate on card columns: each rule at its boundary, the order they are checked in,
and the degraded warning."""

from __future__ import annotations

import pytest
from conftest import make

from skill_studio.core.agents.gate import gate_reason, gate_warning, skill_gate
from skill_studio.core.model import Lifecycle, Origin, TrustTier


@pytest.mark.parametrize("state, exposed", [("candidate", False), ("verified", True), ("released", True),
                                            ("degraded", True), ("deprecated", False), ("archived", False)])
def test_lifecycle_rule(state, exposed):
    reason = gate_reason(state, 3, "human", 0.5)
    assert (reason is None) == exposed
    if not exposed:
        assert reason == f"lifecycle is {state} (not exposed)"


@pytest.mark.parametrize("tier, reason", [(1, "trust 1 < 2"), (2, None), (3, None), (4, None)])
def test_trust_rule(tier, reason):
    assert gate_reason(Lifecycle.RELEASED, tier, Origin.HUMAN, 0.5) == reason
    assert gate_reason(Lifecycle.RELEASED, TrustTier(tier), Origin.HUMAN, 0.5) == reason


def test_llm_success_rate_rule_at_its_boundary():
    assert gate_reason("verified", 2, "llm", 0.2) == "llm skill with success rate 0.20 < 0.30"
    assert gate_reason("verified", 2, "llm", 0.3) is None
    # Just below the limit does not read as the limit itself.
    assert gate_reason("verified", 2, "llm", 0.2999) == "llm skill with success rate 0.2999 < 0.30"
    assert gate_reason("verified", 2, "human", 0.0) is None      # only llm skills need the rate
    assert gate_reason("released", 4, "builtin", 0.0) is None


def test_rules_are_checked_in_order():
    assert gate_reason("candidate", 1, "llm", 0.0) == "lifecycle is candidate (not exposed)"
    assert gate_reason("verified", 1, "llm", 0.0) == "trust 1 < 2"


def test_degraded_warning():
    assert gate_warning("degraded") == "degraded: shown with a warning"
    assert gate_warning(Lifecycle.DEGRADED) == "degraded: shown with a warning"
    for state in ("verified", "released", "candidate", "archived"):
        assert gate_warning(state) is None


def test_gate_of_a_stored_skill(store):
    s = store.add(make("new-llm", origin=Origin.LLM))                 # llm skills enter as candidates
    assert skill_gate(s) == "lifecycle is candidate (not exposed)"
    s = store.set_state("new-llm", lifecycle="verified", trust_tier=2, success_rate=0.25)
    assert skill_gate(s) == "llm skill with success rate 0.25 < 0.30"
    assert skill_gate(store.add(make("human"))) is None


def test_unknown_values_are_refused():
    with pytest.raises(ValueError):
        gate_reason("live", 3, "human", 0.5)
    with pytest.raises(ValueError):
        gate_reason("released", 3, "robot", 0.5)


def test_health_warnings_for_every_origin():
    from skill_studio.core.health.checks import DEFAULTS

    # A human skill with health 0.26 after 12 uses, one failing most uses, one with too few uses to tell.
    assert gate_warning("released", 12, 0.5, 0.26, DEFAULTS) == "health 0.26 < 0.30 after 12 uses"
    assert gate_warning("verified", 8, 0.2, 0.5, DEFAULTS) == "fails most of its uses: success rate 0.20 after 8 uses"
    assert gate_warning("released", 4, 0.1, 0.1, DEFAULTS) is None
    assert gate_warning("released", 12, 0.5, 0.3, DEFAULTS) is None
    assert gate_warning("degraded", 0) == "degraded: shown with a warning"


def test_the_gate_reads_health_from_the_store(store):
    from datetime import timedelta

    from skill_studio.core.agents.gate import store_verdicts
    from skill_studio.core.health import checks, scores

    now = scores.utcnow()
    store.add(make("human-skill"), now=now - timedelta(days=200))
    store.add(make("human-skill-copy"), now=now - timedelta(days=200))    # the same text: fully redundant
    for ok in (True, False, False, True, False, False):       # used long ago, most of it failed
        store.record_use("human-skill", ok, now=now - timedelta(days=150))
    run = checks.run(store, now=now)                           # keeps its redundancy
    redundancy = next(x.redundancy for x in run.skills if x.name == "human-skill")
    reason, warning = store_verdicts(store, ["human-skill"], now=now)["human-skill"]
    s = store.get("human-skill")
    fresh = scores.freshness(s.last_used_at, s.created_at, now)
    health = checks.health_score(s.utility_score, redundancy, fresh, 1 - s.success_rate, checks.DEFAULTS)
    assert reason is None and health < 0.3 and s.success_rate >= 0.3 and redundancy > 0
    assert warning == f"health {health:.2f} < 0.30 after 6 uses"
    store.record_use("human-skill", True, now=now)              # used today: fresh again, health back up
    assert store_verdicts(store, ["human-skill"], now=now)["human-skill"] == (None, None)
