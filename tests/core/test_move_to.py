"""A move to a state asked for: each allowed step until the skill is there, or a refusal naming why."""

from __future__ import annotations

import itertools

import pytest
from conftest import make

from skill_studio.core.model import Lifecycle, Origin, TrustTier
from skill_studio.core.ops.review import move_skill, undo
from skill_studio.core.review import lifecycle
from skill_studio.core.review.lifecycle import MOVES, MoveRefused, TargetRefused, UndoStack, move_path
from skill_studio.core.store import ReadOnlySkill

L = Lifecycle


@pytest.mark.parametrize("action, state, to", list(itertools.product(MOVES, L, L)))
def test_a_path_is_allowed_steps_ending_at_the_state_or_a_refusal(action, state, to):
    try:
        path = move_path("s", action, state, to)
    except TargetRefused as e:
        assert to == state or to not in _reach(action, state)
        assert str(e).startswith(f'Cannot {action} "s" to {to.value}: it is {state.value}')
        return
    except MoveRefused:
        assert state not in MOVES[action] and to != state
        return
    assert path and path[-1] == to and to != state
    for before, after in zip([state, *path], path):
        assert MOVES[action][before] == after


def _reach(action: str, state: Lifecycle) -> list[Lifecycle]:
    out, step = [], MOVES[action].get(state)
    while step is not None and step not in out and step != state:
        out.append(step)
        step = MOVES[action].get(step)
    return out


@pytest.mark.parametrize("state, to, path", [
    (L.CANDIDATE, L.VERIFIED, [L.VERIFIED]), (L.CANDIDATE, L.RELEASED, [L.VERIFIED, L.RELEASED]),
    (L.DEGRADED, L.RELEASED, [L.VERIFIED, L.RELEASED]), (L.VERIFIED, "released", [L.RELEASED]),
])
def test_promote_paths(state, to, path):
    assert move_path("s", "promote", state, to) == path


@pytest.mark.parametrize("state, to, says", [
    (L.RELEASED, L.RELEASED, "it is released already"),
    (L.VERIFIED, L.CANDIDATE, "promote takes it verified → released only"),
    (L.CANDIDATE, L.DEPRECATED, "to make it deprecated, deprecate it"),
    (L.DEGRADED, L.ARCHIVED, "to make it archived, archive it"),
])
def test_promote_to_a_state_off_its_way_is_refused_naming_why(state, to, says):
    with pytest.raises(TargetRefused, match=says):
        move_path("s", "promote", state, to)


def test_unknown_states_and_moves_are_values_named():
    with pytest.raises(ValueError, match="unknown lifecycle state 'retired'; expected one of candidate"):
        move_path("s", "promote", L.CANDIDATE, "retired")
    with pytest.raises(ValueError, match="unknown move 'polish'"):
        move_path("s", "polish", L.CANDIDATE, L.VERIFIED)
    with pytest.raises(MoveRefused, match="allowed from released"):
        move_path("s", "promote", L.RELEASED, L.VERIFIED)


def test_a_candidate_promoted_to_released_takes_both_steps_in_one_undo(store):
    store.add(make("agent-made", origin=Origin.LLM))
    stack = UndoStack(store)
    done = move_skill(store, "agent-made", "promote", "reviewed twice", author="rev", to="released")
    stack.push(done.change)
    skill = store.get("agent-made")
    assert (skill.lifecycle, skill.trust_tier) == (L.RELEASED, TrustTier.PROVISIONAL)
    moves = [(e.from_value, e.to_value, e.reason) for e in store.audit_log("agent-made") if e.action == "promote"]
    assert sorted(moves) == [("candidate", "verified", "reviewed twice"), ("verified", "released", "reviewed twice")]
    assert done.change.label == "Promote agent-made to released" and done.changes.changed == {"agent-made"}
    undo(stack)
    back = store.get("agent-made")
    assert (back.lifecycle, back.trust_tier) == (L.CANDIDATE, TrustTier.UNTRUSTED)


def test_a_refused_target_moves_nothing(store):
    store.add(make("stays", origin=Origin.LLM))
    with pytest.raises(TargetRefused):
        lifecycle.move(store, "stays", "promote", "why", to="archived")
    assert store.get("stays").lifecycle == L.CANDIDATE and store.audit_log("stays") == []
    store.add(make("shipped", origin=Origin.BUILTIN))
    with pytest.raises(ReadOnlySkill):
        lifecycle.move(store, "shipped", "promote", "why", to="released")
