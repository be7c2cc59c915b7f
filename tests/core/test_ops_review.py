"""Review operations: each returns the undo step and the change set of what it touched."""

from __future__ import annotations

import pytest
from conftest import make
from test_lifecycle import put

from skill_studio.core.model import Lifecycle, Origin, TrustTier
from skill_studio.core.ops.changes import ChangeSet
from skill_studio.core.ops.review import merge_skills, move_skill, move_skills, redo, set_pinned, set_trust, undo
from skill_studio.core.review.lifecycle import MoveRefused, UndoStack
from skill_studio.core.store import NotFound, ReadOnlySkill

L = Lifecycle


def test_a_move_changes_one_skill(store):
    put(store, "a", L.CANDIDATE)
    done = move_skill(store, "a", "promote", "reviewed", author="rev")
    assert done.changes == ChangeSet.of(changed={"a"}, label="Promote a")
    assert done.change.after["a"].lifecycle == L.VERIFIED and not done.refused


def test_moving_many_moves_what_it_may_and_names_the_refused(store):
    put(store, "a", L.CANDIDATE)
    put(store, "b", L.ARCHIVED)
    put(store, "c", L.CANDIDATE)
    put(store, "shipped", L.RELEASED, origin=Origin.BUILTIN)
    done = move_skills(store, ["a", "b", "c", "shipped", "ghost"], "promote", "reviewed")
    assert done.changes.changed == {"a", "c"} and done.change.label == "Promote 2 skills"
    assert isinstance(done.refused["b"], MoveRefused) and "restore" in str(done.refused["b"])
    assert isinstance(done.refused["shipped"], ReadOnlySkill) and isinstance(done.refused["ghost"], NotFound)
    assert store.get("b").lifecycle == L.ARCHIVED
    with pytest.raises(ValueError, match="reason"):
        move_skills(store, ["a"], "promote", " ")
    with pytest.raises(ValueError, match="unknown move"):
        move_skills(store, ["a"], "fly", "why")


def test_trust_and_pins_change_the_skills_they_name(store):
    put(store, "a", L.CANDIDATE)
    put(store, "b", L.CANDIDATE)
    assert set_trust(store, "a", 3).changes.changed == {"a"}
    assert store.get("a").trust_tier == TrustTier(3)
    pinned = set_pinned(store, ["a", "b", "ghost"], True)
    assert pinned.changes.changed == {"a", "b"} and set(pinned.refused) == {"ghost"}
    assert store.get("b").pinned


def test_a_merge_changes_the_target_the_source_and_the_dependents(store):
    store.add(make("target"))
    store.add(make("source"))
    store.add(make("user", meta={"depends-on": "source"}))
    done = merge_skills(store, "target", "source")
    assert done.changes.changed == {"target", "source", "user"} and not done.changes.membership
    assert store.get("source").lifecycle == L.ARCHIVED


def test_undo_and_redo_name_what_they_put_back(store):
    put(store, "a", L.CANDIDATE)
    stack = UndoStack(store)
    stack.push(move_skill(store, "a", "promote", "reviewed").change)
    undone = undo(stack)
    assert undone.changes.changed == {"a"} and store.get("a").lifecycle == L.CANDIDATE
    assert redo(stack).changes.changed == {"a"} and store.get("a").lifecycle == L.VERIFIED
    with pytest.raises(IndexError):
        redo(stack)
