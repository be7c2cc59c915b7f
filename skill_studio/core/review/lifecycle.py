"""A reviewer's operations (SPEC §2, §3): lifecycle moves, trust, pinning and delete, each one
audited transaction that returns what changed; and undoing or redoing them.

Merging lives in :mod:`skill_studio.core.review.merge`. Every operation returns a :class:`Change`
holding each affected skill as it was before and as it is after, which is all
:class:`UndoStack` needs to put the store back.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from skill_studio.core.bus.model import Binding
from skill_studio.core.model import Lifecycle, Origin, Skill, TrustTier
from skill_studio.core.store import NotFound, ReadOnlySkill, Store, StoreError

L = Lifecycle



@dataclass(frozen=True)
class MoveTerms:
    """One lifecycle move (SPEC §2): the states it goes from and to, and what people read about it."""

    #: {from state: to state}
    steps: dict[Lifecycle, Lifecycle]
    #: The menu and dialog text.
    title: str
    #: What the reviewer is asked (the answer is the audit entry's reason).
    question: str
    #: One line for the command line's help.
    summary: str


MOVE_TERMS: dict[str, MoveTerms] = {
    "promote": MoveTerms({L.CANDIDATE: L.VERIFIED, L.VERIFIED: L.RELEASED, L.DEGRADED: L.VERIFIED},
                         "Promote", "Why is it ready to promote?",
                         "candidate → verified → released; degraded → verified"),
    "degrade": MoveTerms({L.VERIFIED: L.DEGRADED, L.RELEASED: L.DEGRADED},
                         "Degrade", "What went wrong?", "verified or released → degraded"),
    "deprecate": MoveTerms({s: L.DEPRECATED for s in (L.CANDIDATE, L.VERIFIED, L.RELEASED, L.DEGRADED)},
                           "Deprecate", "Why retire it (and what replaces it)?", "schedule a skill for removal"),
    "archive": MoveTerms({s: L.ARCHIVED for s in L if s is not L.ARCHIVED},
                         "Archive", "Why archive it?", "retire a skill (kept for history)"),
    "restore": MoveTerms({L.DEPRECATED: L.CANDIDATE, L.ARCHIVED: L.CANDIDATE},
                         "Restore to candidate", "Why bring it back for review?", "deprecated or archived → candidate"),
}
#: action -> {from state: to state}
MOVES: dict[str, dict[Lifecycle, Lifecycle]] = {action: t.steps for action, t in MOVE_TERMS.items()}

#: Review state an undo puts back (the SKILL.md text and files go back through a version).
REVIEW_FIELDS = ("lifecycle", "trust_tier", "pinned", "lifecycle_reason", "success_rate", "utility_score",
                 "freshness", "last_used_at", "use_count", "success_count", "failure_count",
                 "success_decayed", "failure_decayed")


class MoveRefused(StoreError):
    """A lifecycle move that SPEC §2 does not allow from the skill's state."""

    def __init__(self, name: str, action: str, state: Lifecycle, allowed: list[str]):
        moves = ", ".join(f"{a} (→ {MOVES[a][state].value})" for a in allowed) or "none"
        super().__init__(f'Cannot {action} "{name}": it is {state.value}; allowed from {state.value}: {moves}')
        self.name, self.action, self.state, self.allowed = name, action, state, allowed


class TargetRefused(StoreError):
    """A state asked of a move that repeating the move cannot reach from the skill's state (SPEC §2)."""

    def __init__(self, name: str, action: str, state: Lifecycle, to: Lifecycle, reach: list[Lifecycle]):
        if to == state:
            why = f"it is {state.value} already"
        else:
            way = " → ".join(s.value for s in [state, *reach])
            why = f"it is {state.value}, and {action} takes it {way} only"
            other = next((a for a, table in MOVES.items() if table.get(state) == to), None)
            if other is not None:
                why += f"; to make it {to.value}, {other} it"
        super().__init__(f'Cannot {action} "{name}" to {to.value}: {why}')
        self.name, self.action, self.state, self.to, self.reach = name, action, state, to, reach


class PinnedSkill(StoreError):
    def __init__(self, name: str):
        super().__init__(f'"{name}" is pinned: health checks never move it (unpin it first)')
        self.name = name


@dataclass
class Change:
    """What one operation did: each affected skill before and after (None: absent)."""

    label: str
    before: dict[str, Skill | None] = field(default_factory=dict)
    after: dict[str, Skill | None] = field(default_factory=dict)
    #: The bindings of skills it deleted (removed with them), put back when they come back.
    bindings: dict[str, list[Binding]] = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        return list(dict.fromkeys([*self.before, *self.after]))

    def add(self, later: Change) -> Change:
        """Fold a later change into this one (one undo step): the earliest before, the latest after."""
        for name, skill in later.before.items():
            self.before.setdefault(name, skill)
        for name, bindings in later.bindings.items():
            self.bindings.setdefault(name, bindings)
        self.after.update(later.after)
        return self


def allowed_moves(state: Lifecycle | str) -> list[str]:
    state = Lifecycle(state)
    return [action for action, table in MOVES.items() if state in table]


def move_path(name: str, action: str, state: Lifecycle | str, to: Lifecycle | str) -> list[Lifecycle]:
    """The states that repeating ``action`` takes a skill through from ``state`` until it is ``to``,
    ``to`` last: promoting a candidate to released passes [verified, released], each step one that
    SPEC §2 allows. Raises ValueError for an unknown action or state, MoveRefused when ``action``
    is not allowed from ``state`` at all, TargetRefused when ``to`` is not on its way."""
    if action not in MOVES:
        raise ValueError(f"unknown move {action!r}; expected one of {', '.join(MOVES)}")
    state = Lifecycle(state)
    try:
        target = Lifecycle(to)
    except ValueError:
        raise ValueError(f"unknown lifecycle state {to!r}; expected one of {', '.join(s.value for s in L)}") \
            from None
    path: list[Lifecycle] = []
    step = MOVES[action].get(state)
    while target != state and step is not None and step not in path and step != state:
        path.append(step)
        if step == target:
            return path
        step = MOVES[action].get(step)
    if not path and target != state:
        raise MoveRefused(name, action, state, allowed_moves(state))
    raise TargetRefused(name, action, state, target, path)


def _reason(reason: str, what: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise ValueError(f"{what} needs a reason")
    return reason


def _snapshot(store: Store, name: str) -> Skill | None:
    try:
        return store.get(name)
    except NotFound:
        return None


def move(store: Store, name: str, action: str, reason: str, *, author: str | None = None,
         by_health: bool = False, to: Lifecycle | str | None = None) -> Change:
    """Move a skill through its lifecycle (SPEC §2), with a reason, in one audited transaction.

    One step, or with ``to`` the steps of :func:`move_path` until the skill is ``to``, each
    audited with the reason (one change: one undo).
    Raises MoveRefused (naming the allowed moves), TargetRefused (a ``to`` not on the move's way),
    ReadOnlySkill for builtin skills, PinnedSkill when ``by_health`` and the skill is pinned,
    NotFound, ValueError (unknown action or state, empty reason).
    """
    if action not in MOVES:
        raise ValueError(f"unknown move {action!r}; expected one of {', '.join(MOVES)}")
    reason = _reason(reason, f'{action.capitalize()} "{name}"')
    with store.transaction():
        before = store.get(name)
        if before.origin == Origin.BUILTIN:
            raise ReadOnlySkill(name)
        if by_health and before.pinned:
            raise PinnedSkill(name)
        if to is not None:
            targets = move_path(name, action, before.lifecycle, to)
        else:
            step = MOVES[action].get(before.lifecycle)
            if step is None:
                raise MoveRefused(name, action, before.lifecycle, allowed_moves(before.lifecycle))
            targets = [step]
        now = before
        for target in targets:
            changes: dict = {"lifecycle": target, "lifecycle_reason": reason}
            if action == "promote" and now.origin == Origin.LLM and now.trust_tier == TrustTier.UNTRUSTED \
                    and now.lifecycle == L.CANDIDATE:
                changes["trust_tier"] = TrustTier.PROVISIONAL  # reviewed once
            store.set_state(name, author=author, reason=reason, action=action, **changes)
            now = store.get(name)
        label = f"{action.capitalize()} {name}" + (f" to {targets[-1].value}" if len(targets) > 1 else "")
        return Change(label, {name: before}, {name: now})


def set_trust(store: Store, name: str, tier: int, reason: str = "", *, author: str | None = None) -> Change:
    """Set a non-builtin skill's trust tier (1-3; tier 4 belongs to builtin skills), audited."""
    tier = TrustTier(int(tier))
    with store.transaction():
        before = store.get(name)
        if before.origin == Origin.BUILTIN:
            raise ReadOnlySkill(name)
        if tier == TrustTier.VETTED:
            raise StoreError(f'Cannot set "{name}" to tier 4 (Vetted): that tier belongs to builtin skills; '
                             "reviewers set tiers 1-3")
        store.set_state(name, author=author, reason=reason or f"set to {tier.label}", action="trust",
                        trust_tier=tier)
        return Change(f"Set trust of {name} to {tier.stars}", {name: before}, {name: store.get(name)})


def set_pinned(store: Store, name: str, pinned: bool, reason: str = "", *, author: str | None = None) -> Change:
    """Pin (health checks never move it) or unpin a skill, audited."""
    with store.transaction():
        before = store.get(name)
        if before.origin == Origin.BUILTIN:
            raise ReadOnlySkill(name)
        store.set_state(name, author=author, reason=reason or ("pinned" if pinned else "unpinned"),
                        action="pin" if pinned else "unpin", pinned=bool(pinned))
        return Change(f"{'Pin' if pinned else 'Unpin'} {name}", {name: before}, {name: store.get(name)})


def delete(store: Store, name: str, reason: str = "", *, author: str | None = None) -> Change:
    """Delete a skill (refused while others depend on it); its history and audit stay."""
    with store.transaction():
        before = store.get(name)
        if before.origin == Origin.BUILTIN:
            raise ReadOnlySkill(name)
        bindings = store.bindings(skill=name)
        store.delete(name, author=author, reason=reason)
        return Change(f"Delete {name}", {name: before}, {name: None}, {name: bindings} if bindings else {})


def put_back(store: Store, states: dict[str, Skill | None], *, note: str, author: str | None = None,
             bindings: dict[str, list[Binding]] | None = None) -> None:
    """Make each named skill what ``states`` holds (None: absent), in one transaction. The text and
    files return as a new version when they differ (history is never rewritten); review state and
    scores are written back as they were. A skill that comes back gets its ``bindings`` back."""
    with store.transaction():
        # Skills that come back first, so that dependencies of the others exist; removals last.
        for name, wanted in sorted(states.items(), key=lambda kv: kv[1] is None):
            current = _snapshot(store, name)
            if wanted is None:
                if current is not None:
                    store.delete(name, author=author, reason=note)
                continue
            if current is None:
                store.add(replace(wanted, files=list(wanted.files)), author=author, note=note)
                if bindings and bindings.get(name):
                    store.restore_bindings(bindings[name])
            elif current.content_hash != wanted.content_hash:
                store.update(name, replace(wanted, files=list(wanted.files)), current.version,
                             author=author, note=note)
            state = {f: getattr(wanted, f) for f in REVIEW_FIELDS}
            store.set_state(name, author=author, reason=note, action="undo" if "undo" in note else "redo",
                            steps=wanted.steps, created_at=wanted.created_at, **state)


class UndoStack:
    """Undo and redo of a session's operations (moves, trust, pins, merges, deletes)."""

    def __init__(self, store: Store, limit: int = 100):
        self.store = store
        self.limit = limit
        self._done: list[Change] = []
        self._undone: list[Change] = []

    def push(self, change: Change) -> Change:
        self._done.append(change)
        del self._done[:-self.limit]
        self._undone.clear()
        return change

    def can_undo(self) -> bool:
        return bool(self._done)

    def can_redo(self) -> bool:
        return bool(self._undone)

    def undo_label(self) -> str | None:
        return self._done[-1].label if self._done else None

    def redo_label(self) -> str | None:
        return self._undone[-1].label if self._undone else None

    def undo(self, *, author: str | None = None) -> Change:
        """Put back what the last operation changed; raises IndexError when there is none."""
        change = self._done[-1]
        put_back(self.store, change.before, note=f"undo: {change.label}", author=author, bindings=change.bindings)
        self._undone.append(self._done.pop())
        return change

    def redo(self, *, author: str | None = None) -> Change:
        change = self._undone[-1]
        put_back(self.store, change.after, note=f"redo: {change.label}", author=author)
        self._done.append(self._undone.pop())
        return change
