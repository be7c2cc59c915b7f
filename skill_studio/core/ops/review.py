"""A reviewer's operations: lifecycle moves, trust, pins, merge, and undoing or redoing them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from skill_studio.core.ops.changes import ChangeSet
from skill_studio.core.review import lifecycle
from skill_studio.core.review import merge as merging
from skill_studio.core.review.lifecycle import Change, UndoStack
from skill_studio.core.store import Store, StoreError

__all__ = ["Outcome", "merge_skills", "move_skill", "move_skills", "outcome", "redo", "set_pinned", "set_trust",
           "undo"]


@dataclass(frozen=True)
class Outcome:
    """What a review operation did: the step that undoes it, what changed, and each skill it
    refused with the reason (the others were done)."""

    change: Change
    changes: ChangeSet
    refused: Mapping[str, Exception] = field(default_factory=dict)


def outcome(change: Change, refused: Mapping[str, Exception] | None = None) -> Outcome:
    """The outcome of ``change``: the skills it changed, added or removed (bindings, when
    deleted skills took theirs along)."""
    changes = ChangeSet.from_states(change.before, change.after, label=change.label, bindings=bool(change.bindings))
    return Outcome(change, changes, dict(refused or {}))


def _joined(changes: list[Change], label: str) -> Change:
    if len(changes) == 1:
        return changes[0]
    out = Change(label)
    for c in changes:
        out.add(c)
    return out


def move_skill(store: Store, name: str, action: str, reason: str, *, author: str | None = None,
               by_health: bool = False, to: str | None = None) -> Outcome:
    """Move one skill through its lifecycle (SPEC §2): one step, or with ``to`` each step of the
    move until the skill is ``to`` (one undo); raises what :func:`lifecycle.move` raises."""
    return outcome(lifecycle.move(store, name, action, reason, author=author, by_health=by_health, to=to))


def move_skills(store: Store, names: Iterable[str], action: str, reason: str, *,
                author: str | None = None) -> Outcome:
    """Move each skill with one reason, in one transaction. A skill the move is not allowed for
    (MoveRefused names the moves allowed), a builtin or a missing one is refused; the others move.
    ValueError for an unknown move or an empty reason (nothing moved)."""
    if action not in lifecycle.MOVES:
        raise ValueError(f"unknown move {action!r}; expected one of {', '.join(lifecycle.MOVES)}")
    if not (reason or "").strip():
        raise ValueError(f"{action.capitalize()} needs a reason")
    done, refused = [], {}
    with store.transaction():
        for name in dict.fromkeys(names):
            try:
                done.append(lifecycle.move(store, name, action, reason, author=author))
            except (StoreError, ValueError) as e:
                refused[name] = e
    return outcome(_joined(done, f"{action.capitalize()} {len(done)} skills"), refused)


def set_trust(store: Store, name: str, tier: int, reason: str = "", *, author: str | None = None) -> Outcome:
    """Set a skill's trust tier (1-3); raises ReadOnlySkill, StoreError for tier 4, NotFound."""
    return outcome(lifecycle.set_trust(store, name, tier, reason, author=author))


def set_pinned(store: Store, names: Iterable[str], pinned: bool, reason: str = "", *,
               author: str | None = None) -> Outcome:
    """Pin or unpin each skill in one transaction; builtin and missing skills are refused."""
    done, refused = [], {}
    with store.transaction():
        for name in dict.fromkeys(names):
            try:
                done.append(lifecycle.set_pinned(store, name, pinned, reason, author=author))
            except StoreError as e:
                refused[name] = e
    return outcome(_joined(done, f"{'Pin' if pinned else 'Unpin'} {len(done)} skills"), refused)


def merge_skills(store: Store, target: str, source: str, *, author: str | None = None,
                 with_files: bool | None = None) -> Outcome:
    """Merge ``source`` into ``target`` (SPEC §6): the target's new version, dependents rewritten,
    the source archived; the source's new files too when ``with_files`` (by default only from a
    source trusted at least as much as the target). Raises StoreError (itself, a builtin
    source), ReadOnlySkill, NotFound."""
    return _followed(store, outcome(merging.merge(store, target, source, author=author, with_files=with_files)))


def undo(stack: UndoStack, *, author: str | None = None) -> Outcome:
    """Put back what the stack's last operation changed; IndexError when there is none."""
    change = stack.undo(author=author)
    return _followed(stack.store, _reversed(change, f"Undo: {change.label}"))


def redo(stack: UndoStack, *, author: str | None = None) -> Outcome:
    """Do again what was last undone; IndexError when there is none."""
    change = stack.redo(author=author)
    return _followed(stack.store, outcome(change))


def _followed(store: Store, done: Outcome) -> Outcome:
    """``done``, after the copies installed links point at caught up with what it changed."""
    if done.changes.skills:
        from skill_studio.core.library.managed import refresh

        refresh(store, done.changes.skills)
    return done


def _reversed(change: Change, label: str) -> Outcome:
    changes = ChangeSet.from_states(change.after, change.before, label=label, bindings=bool(change.bindings))
    return Outcome(change, changes)
