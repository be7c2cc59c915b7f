"""Health checks: each formula by hand, each rule of the plan at its boundary, apply and its limits."""

from __future__ import annotations

from datetime import timedelta

import pytest
from conftest import make

from skill_studio.core.health import checks as health
from skill_studio.core.health import scores
from skill_studio.core.health.checks import PlannedAction, SkillHealth, plan
from skill_studio.core.model import Lifecycle, Origin, TrustTier

CFG = dict(health.DEFAULTS)


def test_formulas_by_hand():
    assert health.redundancy(0.6) == 0.0 and health.redundancy(1.0) == 1.0
    assert health.redundancy(0.8) == pytest.approx(0.5)
    assert health.redundancy(0.3) == 0.0
    # 0.5*0.4 + (1-0.25)*0.2 + 0.8*0.2 + (1-0.1)*0.2 = 0.2 + 0.15 + 0.16 + 0.18
    assert health.health_score(0.5, 0.25, 0.8, 0.1, CFG) == pytest.approx(0.69)
    o = scores.Outcomes(0.98 * 1 + 1, 0.0, 2)  # two successes
    assert scores.success_rate(o) == pytest.approx((1.98 + 1) / (1.98 + 2))
    assert scores.utility(o) == pytest.approx(scores.success_rate(o) * (0.5 + 0.5 * 2 / 20))
    assert health.band(0.7) == "healthy" and health.band(0.69) == "fair" and health.band(0.29) == "critical"


def sk(name, *, origin=Origin.LLM, lifecycle=Lifecycle.RELEASED, uses=10, freshness=0.5, health_=0.6,
       pinned=False, tier=TrustTier.PROVISIONAL, utility=0.5):
    return SkillHealth(name, origin, lifecycle, tier, pinned, uses, utility, 0.0, freshness, 0.2, health_)


@pytest.mark.parametrize("freshness, uses, planned", [(0.099, 2, True), (0.1, 2, False), (0.05, 3, False)])
def test_stale_rule_at_its_boundary(store, freshness, uses, planned):
    actions = plan(store, [sk("a", freshness=freshness, uses=uses)])
    assert [(a.action, a.rule) for a in actions] == ([("deprecate", "stale")] if planned else [])


@pytest.mark.parametrize("h, uses, state, expected", [
    (0.299, 5, Lifecycle.RELEASED, "degrade"), (0.3, 5, Lifecycle.RELEASED, None),
    (0.299, 4, Lifecycle.RELEASED, None), (0.2, 9, Lifecycle.CANDIDATE, "deprecate"),
    (0.2, 9, Lifecycle.DEGRADED, "deprecate")])
def test_low_health_rule_at_its_boundary(store, h, uses, state, expected):
    actions = plan(store, [sk("a", health_=h, uses=uses, lifecycle=state)])
    assert [a.action for a in actions] == ([expected] if expected else [])


def test_sustained_drop_needs_every_one_of_the_last_three_runs(store):
    store.save_health_run({}, {}, [("a", 0, 0, 0, 0, 0.45), ("b", 0, 0, 0, 0, 0.45)])
    store.save_health_run({}, {}, [("a", 0, 0, 0, 0, 0.49), ("b", 0, 0, 0, 0, 0.5)])
    actions = plan(store, [sk("a", health_=0.4), sk("b", health_=0.4), sk("c", health_=0.4)])
    assert [(a.skill, a.rule) for a in actions] == [("a", "sustained-drop")]


def test_only_unpinned_llm_skills_are_moved_by_default(store):
    skills = [sk("h", origin=Origin.HUMAN, freshness=0.01, uses=0),
              sk("b", origin=Origin.BUILTIN, freshness=0.01, uses=0),
              sk("p", pinned=True, freshness=0.01, uses=0), sk("l", freshness=0.01, uses=0)]
    actions = {a.skill: a for a in plan(store, skills)}
    assert [n for n, a in actions.items() if a.applies] == ["l"]
    assert "reported" in actions["h"].reason and "pinned" in actions["p"].reason and "builtin" in actions["b"].reason
    store.set_setting("health.only_llm", False)
    assert {a.skill for a in plan(store, skills) if a.applies} == {"h", "l"}


def test_near_duplicate_pairs_suggest_the_higher_trust_then_utility_target(store):
    from types import SimpleNamespace

    skills = [sk("x", tier=TrustTier.TRUSTED, utility=0.1), sk("y", tier=TrustTier.PROVISIONAL, utility=0.9)]
    (action,) = plan(store, skills, [SimpleNamespace(a="x", b="y", similarity=0.8)])
    assert (action.skill, action.target, action.applies, action.rule) == ("y", "x", False, "near-duplicate")


def test_apply_changes_exactly_the_planned_rows(store):
    for name in ("a", "b", "c"):
        store.add(make(name, origin=Origin.LLM))
        store.set_state(name, lifecycle=Lifecycle.VERIFIED, reason="set up")
    actions = [PlannedAction("a", "degrade", "low-health", "r"), PlannedAction("b", "deprecate", "stale", "r"),
               PlannedAction("c", "degrade", "low-health", "r", applies=False)]
    change, refused = health.apply(store, actions, exclude={"b"}, author="nightly")
    assert refused == [] and change.names == ["a"]
    assert [store.get(n).lifecycle for n in "abc"] == [Lifecycle.DEGRADED, Lifecycle.VERIFIED, Lifecycle.VERIFIED]
    entry = store.audit_log("a")[0]
    assert entry.actor == "nightly" and entry.reason.startswith("health check (low-health)")
    store.set_state("b", pinned=True, reason="keep")
    _change, refused = health.apply(store, [PlannedAction("b", "deprecate", "stale", "r")])
    assert refused and "pinned" in refused[0] and store.get("b").lifecycle == Lifecycle.VERIFIED


def test_a_run_keeps_every_skills_scores_and_cancel_writes_nothing(store):
    now = scores.utcnow()
    store.add(make("old-one", origin=Origin.LLM), now=now - timedelta(days=400))
    store.add(make("fresh-one"))
    runs = len(store.health_runs())
    with pytest.raises(InterruptedError):
        health.run(store, now=now, cancelled=lambda: True)
    assert len(store.health_runs()) == runs
    result = health.run(store, now=now)
    assert result.run_id and {s.name for s in result.skills} == {"old-one", "fresh-one"}
    assert [(a.skill, a.rule) for a in result.actions] == [("old-one", "stale")]
    assert result.summary["skills"] == 2 and sum(result.summary["bands"].values()) == 2
    history = store.health_history("old-one")
    assert len(history) == 1 and history[0][2] == next(s.health for s in result.skills if s.name == "old-one")
    assert store.get("old-one").lifecycle == Lifecycle.CANDIDATE  # a run alone moves nothing
