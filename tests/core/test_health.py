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


NOW = scores.parse_time("2026-06-01T12:00:00Z")


def _runs(store, *runs):
    """Keep earlier runs: (days before NOW, {skill: (health, uses)})."""
    for days, rows in runs:
        at = scores.format_time(NOW - timedelta(days=days))
        store.save_health_run({}, {}, [(n, 0, 0, 0, 0, h, u) for n, (h, u) in rows.items()], at=at)


def _drops(store, skills):
    return [a.skill for a in plan(store, skills, now=NOW) if a.rule == "sustained-drop"]


def test_a_sustained_drop_needs_runs_spread_over_a_week_with_use_between(store):
    _runs(store, (8, {"a": (0.45, 10), "b": (0.45, 10), "c": (0.45, 10), "d": (0.45, 10)}),
          (4, {"a": (0.44, 12), "b": (0.55, 12), "c": (0.44, 10), "d": (0.44, 11)}))
    skills = [sk("a", health_=0.4, uses=14), sk("b", health_=0.4, uses=14), sk("c", health_=0.4, uses=10),
              sk("d", health_=0.4, uses=11)]
    # a: three runs below 0.5 over 8 days, used between them. b: a run at 0.55 broke the streak.
    # c: never used between the runs. d: used between the first two only, which still counts.
    assert _drops(store, skills) == ["a", "d"]
    (action,) = [a for a in plan(store, skills, now=NOW) if a.skill == "a"]
    assert action.action == "degrade" and "3 runs over 8 days" in action.reason and "4 use(s)" in action.reason


def test_runs_close_together_are_no_new_evidence(store):
    # Three runs minutes apart, then the fourth: the first three count once.
    _runs(store, (8, {"a": (0.4, 5)}), (8 - 0.01, {"a": (0.4, 5)}), (8 - 0.02, {"a": (0.4, 6)}))
    assert _drops(store, [sk("a", health_=0.4, uses=7)]) == []
    _runs(store, (3, {"a": (0.4, 6)}))
    assert _drops(store, [sk("a", health_=0.4, uses=7)]) == ["a"]


def test_checks_a_few_minutes_apart_never_degrade_imported_skills(store):
    """Just imported, never used, checked three times in a row: no drop, whatever the health."""
    for minutes in (10, 5):
        at = scores.format_time(NOW - timedelta(minutes=minutes))
        store.save_health_run({}, {}, [(n, 0, 0, 0, 0, 0.42, 0) for n in "abc"], at=at)
    assert _drops(store, [sk(n, health_=0.42, uses=0) for n in "abc"]) == []


def test_a_skill_never_used_is_never_degraded_for_a_drop(store):
    _runs(store, (20, {"a": (0.4, 0)}), (10, {"a": (0.4, 0)}))
    assert _drops(store, [sk("a", health_=0.4, uses=0)]) == []


def test_runs_kept_without_use_counts_are_not_evidence(store):
    store.save_health_run({}, {}, [("a", 0, 0, 0, 0, 0.4)], at=scores.format_time(NOW - timedelta(days=9)))
    _runs(store, (4, {"a": (0.4, 8)}))
    assert _drops(store, [sk("a", health_=0.4, uses=9)]) == []        # two runs that count: not enough
    # Nor do they stand in the way of the runs that do count.
    store.save_health_run({}, {}, [("b", 0, 0, 0, 0, 0.4)], at=scores.format_time(NOW - timedelta(days=60)))
    _runs(store, (20, {"b": (0.4, 10)}), (10, {"b": (0.4, 12)}))
    assert _drops(store, [sk("b", health_=0.4, uses=15)]) == ["b"]


def test_a_failing_skill_is_degraded_whatever_its_freshness_and_stands_below_an_unused_one(store):
    now = scores.utcnow()
    store.add(make("flaky", origin=Origin.LLM))
    store.set_state("flaky", lifecycle=Lifecycle.VERIFIED, reason="set up")
    for ok in (True, False, False, False, False, False, False, False):      # fails 7 of 8, used today
        store.record_use("flaky", ok, now=now)
    store.add(make("unused", origin=Origin.LLM), now=now - timedelta(days=20))
    store.set_state("unused", lifecycle=Lifecycle.VERIFIED, reason="set up")
    result = health.run(store, now=now, keep=False)
    by = {s.name: s for s in result.skills}
    flaky, unused = by["flaky"], by["unused"]
    assert flaky.freshness == pytest.approx(1.0) and flaky.health >= 0.3      # the score alone would not say
    assert flaky.failing and flaky.band == "failing" and not unused.failing
    assert flaky.standing < unused.standing
    assert "fails most of its uses" in flaky.why
    (action,) = [a for a in result.actions if a.skill == "flaky"]
    assert (action.action, action.rule, action.applies) == ("degrade", "failing", True)
    assert result.summary["bands"]["failing"] == 1


@pytest.mark.parametrize("uses, rate, expected", [(5, 0.29, "degrade"), (5, 0.3, None), (4, 0.1, None)])
def test_failing_rule_at_its_boundary(store, uses, rate, expected):
    s = SkillHealth("a", Origin.LLM, Lifecycle.RELEASED, TrustTier.PROVISIONAL, False, uses, 0.3, 0.0, 1.0,
                    1 - rate, 0.55, health.is_failing(uses, rate, CFG))
    assert [a.action for a in plan(store, [s])] == ([expected] if expected else [])


@pytest.mark.parametrize("state, why", [(Lifecycle.CANDIDATE, "candidate: only a verified or released skill is "
                                                              "moved to degrade"),
                                        (Lifecycle.DEGRADED, "already degraded")])
def test_a_failing_skill_is_degraded_only_from_verified_or_released(store, state, why):
    s = SkillHealth("a", Origin.LLM, state, TrustTier.UNTRUSTED, False, 8, 0.1, 0.0, 1.0, 0.8, 0.45, True)
    (action,) = plan(store, [s])
    assert (action.action, action.rule, action.applies) == ("degrade", "failing", False)
    assert action.reason.endswith(why)


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
