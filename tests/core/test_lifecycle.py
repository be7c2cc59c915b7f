"""Reviewer operations: every move of SPEC §2 and every refusal, trust, pins, merge, delete, undo."""

from __future__ import annotations

import pytest
from conftest import make

from skill_studio.core.model import Lifecycle, Origin, TrustTier
from skill_studio.core.review import lifecycle, merge
from skill_studio.core.review.lifecycle import MOVES, MoveRefused, PinnedSkill, UndoStack, allowed_moves
from skill_studio.core.store import DependentsExist, ReadOnlySkill, Store, StoreError

L = Lifecycle


def put(store, name, state, origin=Origin.LLM, **kw):
    store.add(make(name, origin=origin, **kw))
    if store.get(name).lifecycle != state:
        store.set_state(name, lifecycle=state, reason="set up")
    return store.get(name)


@pytest.mark.parametrize("state", list(L))
@pytest.mark.parametrize("action", list(MOVES))
def test_every_move_from_every_state(store, state, action):
    put(store, "s", state)
    if state in MOVES[action]:
        change = lifecycle.move(store, "s", action, "because", author="rev")
        assert store.get("s").lifecycle == MOVES[action][state]
        assert change.before["s"].lifecycle == state and change.after["s"].lifecycle == MOVES[action][state]
        entry = next(e for e in store.audit_log("s") if e.action == action)
        assert (entry.action, entry.from_value, entry.to_value, entry.reason, entry.actor) == \
               (action, state.value, MOVES[action][state].value, "because", "rev")
        assert store.get("s").lifecycle_reason == "because"
    else:
        with pytest.raises(MoveRefused) as e:
            lifecycle.move(store, "s", action, "because")
        for allowed in allowed_moves(state):
            assert allowed in str(e.value)
        assert store.get("s").lifecycle == state


def test_allowed_moves_follow_the_spec_table():
    assert allowed_moves("candidate") == ["promote", "deprecate", "archive"]
    assert allowed_moves("archived") == ["restore"]
    assert allowed_moves("released") == ["degrade", "deprecate", "archive"]


def test_promoting_an_untrusted_llm_candidate_raises_it_to_provisional(store):
    put(store, "x", L.CANDIDATE)
    lifecycle.move(store, "x", "promote", "reviewed")
    skill = store.get("x")
    assert (skill.lifecycle, skill.trust_tier) == (L.VERIFIED, TrustTier.PROVISIONAL)
    assert {e.action for e in store.audit_log("x")} >= {"promote"}


def test_a_move_needs_a_reason_and_builtin_skills_are_read_only(store):
    put(store, "x", L.CANDIDATE)
    with pytest.raises(ValueError, match="reason"):
        lifecycle.move(store, "x", "promote", "  ")
    put(store, "b", L.RELEASED, origin=Origin.BUILTIN)
    for call in (lambda: lifecycle.move(store, "b", "deprecate", "old"),
                 lambda: lifecycle.set_trust(store, "b", 2), lambda: lifecycle.set_pinned(store, "b", True),
                 lambda: lifecycle.delete(store, "b")):
        with pytest.raises(ReadOnlySkill):
            call()
    assert store.get("b").lifecycle == L.RELEASED


def test_health_checks_never_move_a_pinned_skill(store):
    put(store, "x", L.RELEASED)
    lifecycle.set_pinned(store, "x", True)
    with pytest.raises(PinnedSkill):
        lifecycle.move(store, "x", "degrade", "low health", by_health=True)
    lifecycle.move(store, "x", "degrade", "a reviewer decided")  # a person may
    assert store.get("x").lifecycle == L.DEGRADED


def test_trust_tiers_one_to_three_only(store):
    put(store, "x", L.VERIFIED)
    lifecycle.set_trust(store, "x", 3, "vetted by the team")
    assert store.get("x").trust_tier == TrustTier.TRUSTED
    with pytest.raises(StoreError, match="tier 4"):
        lifecycle.set_trust(store, "x", 4)
    entry = store.audit_log("x")[0]
    assert (entry.action, entry.to_value) == ("trust", "3")


def test_undo_and_redo_restore_exactly_the_previous_state(store):
    put(store, "x", L.CANDIDATE)
    stack = UndoStack(store)
    original = store.get("x")
    stack.push(lifecycle.move(store, "x", "promote", "ok"))
    stack.push(lifecycle.set_trust(store, "x", 3))
    assert stack.undo_label() == "Set trust of x to ★★★☆"
    stack.undo()
    stack.undo()
    back = store.get("x")
    for f in lifecycle.REVIEW_FIELDS:
        assert getattr(back, f) == getattr(original, f), f
    assert back.skill_md == original.skill_md and not stack.can_undo() and stack.can_redo()
    stack.redo()
    assert store.get("x").lifecycle == L.VERIFIED


def test_delete_is_refused_with_the_dependents_and_undone_with_files_and_scores(store):
    from skill_studio.core.model import SkillFile

    store.add(make("base", files=[SkillFile("scripts/a.sh", b"#!/bin/sh\n", 0o755)]))
    store.record_use("base", True)
    store.add(make("user", meta={"depends-on": "base"}))
    with pytest.raises(DependentsExist, match="user"):
        lifecycle.delete(store, "base")
    stack = UndoStack(store)
    stack.push(lifecycle.delete(store, "user", "not needed"))
    before = store.get("base")
    stack.push(lifecycle.delete(store, "base", "gone"))
    assert "base" not in store and store.audit_log("base")[0].action == "delete"
    stack.undo()
    again = store.get("base")
    assert again.files == before.files and again.use_count == 1 and again.skill_md == before.skill_md
    assert again.created_at == before.created_at
    stack.undo()
    assert "user" in store


def two_to_merge(store):
    store.add(make("target", "Writes release notes. Use when releasing.",
                   "# T\n\n## Steps\n\n1. Read the changelog.\n2. Write the notes.\n",
                   meta={"tags": "release notes", "depends-on": "helper"}))
    store.add(make("source", "Drafts announcements. Use when announcing.",
                   "# S\n\n## Steps\n\n1. Read the  CHANGELOG!\n2. Post the announcement.\n",
                   meta={"tags": "notes announce", "depends-on": "target other"}))
    store.add(make("helper"))
    store.add(make("other"))
    store.add(make("fan", meta={"depends-on": "source helper"}))
    store.record_use("target", True)
    store.record_use("source", False)


def test_merge_preview_writes_nothing(store):
    two_to_merge(store)
    versions = {n: store.get(n).version for n in store.names()}
    preview = merge.merge_preview(store, "target", "source")
    assert preview.added_steps == ["Post the announcement."]  # "Read the  CHANGELOG!" is the same step
    assert [s["n"] for s in preview.merged.steps] == [1, 2, 3]
    assert preview.merged.tags == ["release", "notes", "announce"]
    assert preview.merged.depends_on == ["helper", "other"]  # the two skills themselves left out
    assert preview.dependents == ["fan"]
    assert "Drafts announcements" in preview.merged.description
    assert "## Merged from source" in preview.merged.content
    assert {n: store.get(n).version for n in store.names()} == versions


def test_merge_follows_the_spec_and_undo_puts_everything_back(store):
    two_to_merge(store)
    before = {n: store.get(n) for n in store.names()}
    stack = UndoStack(store)
    change = stack.push(merge.merge(store, "target", "source", author="rev"))
    target, source, fan = store.get("target"), store.get("source"), store.get("fan")
    assert target.version == before["target"].version + 1
    assert [s["action"] for s in target.steps] == ["Read the changelog.", "Write the notes.", "Post the announcement."]
    assert target.use_count == 2 and target.success_count == 1 and target.failure_count == 1
    assert source.lifecycle == L.ARCHIVED and source.lifecycle_reason == 'Merged into "target"'
    assert fan.depends_on == ["target", "helper"] and "target" in fan.skill_md
    assert {"merge", "archive"} <= {e.action for e in store.audit_log()}
    assert set(change.names) == {"target", "source", "fan"}
    stack.undo()
    for name in ("target", "source", "fan"):
        now, was = store.get(name), before[name]
        assert now.skill_md == was.skill_md and now.files == was.files
        assert [getattr(now, f) for f in lifecycle.REVIEW_FIELDS] == [getattr(was, f) for f in lifecycle.REVIEW_FIELDS]
        assert now.steps == was.steps and now.depends_on == was.depends_on


def test_merge_refusals(store):
    two_to_merge(store)
    with pytest.raises(StoreError, match="itself"):
        merge.merge(store, "target", "target")
    store.add(make("shipped", origin=Origin.BUILTIN))
    with pytest.raises(StoreError, match="builtin"):
        merge.merge(store, "target", "shipped")
    with pytest.raises(ReadOnlySkill):
        merge.merge(store, "shipped", "target")


def test_a_merge_that_fails_midway_changes_nothing(store, monkeypatch):
    two_to_merge(store)
    before = {n: (s.version, s.skill_md, s.lifecycle) for n in store.names() for s in [store.get(n)]}
    audit = len(store.audit_log())
    real = Store.set_state

    def failing(self, name, **kw):
        if name == "source":
            raise StoreError("disk full (injected)")
        return real(self, name, **kw)

    monkeypatch.setattr(Store, "set_state", failing)
    with pytest.raises(StoreError, match="injected"):
        merge.merge(store, "target", "source")
    monkeypatch.undo()
    assert {n: (s.version, s.skill_md, s.lifecycle) for n in store.names() for s in [store.get(n)]} == before
    assert len(store.audit_log()) == audit
