"""Filtering the audit log in SQL: by skill, action (exact or family), date range and text."""

from datetime import UTC, date, datetime

import pytest
from conftest import make

from skill_studio.core.review.lifecycle import move, set_trust


def stamped(store, rows):
    """Audit rows with chosen times: (at, actor, skill, action, reason)."""
    with store.transaction():
        for at, actor, skill, action, reason in rows:
            store._audit(skill, action, "a", "b", reason, actor, at)


@pytest.fixture
def log(store):
    stamped(store, [
        ("2025-01-10T08:00:00Z", "ana", "alpha", "promote", "ready for use"),
        ("2025-01-31T23:59:59Z", "ben", "beta", "state:lifecycle", "seeded"),
        ("2025-02-01T00:00:00Z", "ana", "beta", "state:trust_tier", "reviewed 100% of it"),
        ("2025-02-15T12:30:00Z", "cy", "alpha", "undo:lifecycle", "Undo promote"),
        ("2025-03-01T09:00:00Z", "ben", "gamma_x", "archive", "Merged into \"alpha\""),
    ])
    return store


def skills_of(entries):
    return [(e.skill, e.action) for e in entries]


def test_no_filter_gives_everything_newest_first(log):
    entries = log.audit_entries()
    assert [e.at for e in entries] == sorted((e.at for e in entries), reverse=True)
    assert len(entries) == 5
    assert entries == log.audit_log()


def test_skill_filter_is_exact(log):
    assert skills_of(log.audit_entries(skill="alpha")) == [("alpha", "undo:lifecycle"), ("alpha", "promote")]
    assert log.audit_entries(skill="alp") == []


def test_action_matches_exactly_or_as_a_family(log):
    assert skills_of(log.audit_entries(action="promote")) == [("alpha", "promote")]
    assert {e.action for e in log.audit_entries(action="state")} == {"state:lifecycle", "state:trust_tier"}
    assert skills_of(log.audit_entries(action="state:trust_tier")) == [("beta", "state:trust_tier")]
    assert log.audit_entries(action="stat") == []           # a prefix without the colon is no family
    assert log.audit_entries(action="s%") == []             # wildcards are literal


def test_dates_are_inclusive_and_until_covers_its_whole_day(log):
    january = log.audit_entries(since="2025-01-01", until="2025-01-31")
    assert [e.at for e in january] == ["2025-01-31T23:59:59Z", "2025-01-10T08:00:00Z"]
    assert len(log.audit_entries(since="2025-02-01")) == 3
    assert len(log.audit_entries(until=date(2025, 2, 1))) == 3
    assert len(log.audit_entries(since=date(2025, 2, 15), until=date(2025, 2, 15))) == 1
    exact = datetime(2025, 2, 15, 12, 30, tzinfo=UTC)
    assert len(log.audit_entries(until=exact)) == 4
    assert len(log.audit_entries(since="2025-02-15T12:30:01Z")) == 1


def test_text_matches_skill_actor_or_reason_case_insensitively(log):
    assert {e.skill for e in log.audit_entries(text="ANA")} == {"alpha", "beta"}   # actor
    assert skills_of(log.audit_entries(text="undo prom")) == [("alpha", "undo:lifecycle")]  # reason
    assert skills_of(log.audit_entries(text="gamma")) == [("gamma_x", "archive")]  # skill
    assert skills_of(log.audit_entries(text="100%")) == [("beta", "state:trust_tier")]
    assert log.audit_entries(text="1%0") == []   # % is literal
    assert skills_of(log.audit_entries(text="a_x")) == [("gamma_x", "archive")]
    assert log.audit_entries(text="mm_") == []   # _ is literal, not any character


def test_filters_combine_and_limit_applies(log):
    assert skills_of(log.audit_entries(skill="beta", action="state", text="review")) == \
        [("beta", "state:trust_tier")]
    assert log.audit_entries(skill="alpha", action="archive") == []
    assert len(log.audit_entries(limit=2)) == 2


def test_real_operations_and_actions_in_use(store):
    assert store.actions_in_use() == []
    store.add(make("one"))
    move(store, "one", "degrade", "broke twice")
    set_trust(store, "one", 2, "less sure")
    actions = store.actions_in_use()
    assert actions == sorted(set(actions))
    assert {"degrade", "trust"} <= set(actions)
    assert skills_of(store.audit_entries(action="degrade")) == [("one", "degrade")]
    assert store.audit_entries(action="trust")[0].reason == "less sure"
    assert store.audit_entries(text="broke")[0].action == "degrade"
    today = datetime.now(UTC).date()
    assert len(store.audit_entries(since=today, until=today)) == len(store.audit_entries())
