"""Operations on skills as a whole: create, save (and rename), restore an earlier version, delete."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from skill_studio.core.format.strict import MAX_DESCRIPTION_LENGTH
from skill_studio.core.format.templates import TEMPLATES, name_problem, new_skill
from skill_studio.core.model import ENTRY_DEFAULTS, Origin, Skill
from skill_studio.core.ops.changes import ChangeSet
from skill_studio.core.ops.review import Outcome, outcome
from skill_studio.core.review import lifecycle
from skill_studio.core.store import AlreadyExists, Store, StoreError

__all__ = ["CreateRefused", "RenameRefused", "Saved", "create_problem", "create_skill", "create_skill_from",
           "delete_skills", "description_problem", "new_name_problem", "restore_version", "save_skill"]


@dataclass(frozen=True)
class Saved:
    """A skill as stored after an operation, and what the operation changed."""

    skill: Skill
    changes: ChangeSet


class CreateRefused(ValueError):
    """A new skill the rules refuse: its name, description or template. The message says why."""


class RenameRefused(StoreError, ValueError):
    """A rename to a name no folder can have or one that reads like another skill's (a store
    error, and a value the author must change)."""


# --- create ---------------------------------------------------------------------------------

def new_name_problem(store: Store, name: str) -> str | None:
    """Why ``name`` cannot name a new skill in ``store``, as a sentence to show, or None.

    The strict format's name rule (lowercase letters, digits and single hyphens, at most 64
    characters), then a name taken, then what every rename refuses too: a name no folder can
    have (a device name such as "con") and one that reads like another skill's.
    """
    problem = name_problem(name)
    if problem is not None:
        return problem
    if name in store:
        return f'A skill named "{name}" already exists.'
    rename = store.rename_problem("", name)
    return None if rename is None else rename[0].upper() + rename[1:] + "."


def description_problem(description: str) -> str | None:
    """Why ``description`` cannot describe a new skill, or None: it is required and has a limit."""
    text = description.strip()
    if not text:
        return "A description is required: what the skill does and when to use it."
    if len(text) > MAX_DESCRIPTION_LENGTH:
        return f"A description has at most {MAX_DESCRIPTION_LENGTH} characters (this one has {len(text)})."
    return None


def create_problem(store: Store, name: str, description: str, template: str = "blank") -> str | None:
    """The first reason a skill ``name`` with ``description`` from ``template`` cannot be created, or None."""
    if template not in TEMPLATES:
        return f"Unknown template {template!r}; expected one of {', '.join(TEMPLATES)}."
    return new_name_problem(store, name) or description_problem(description)


def create_skill(store: Store, name: str, description: str, template: str = "blank", *,
                 origin: Origin = Origin.HUMAN, author: str | None = None, note: str | None = None) -> Saved:
    """Add a new skill from a template, checked by :func:`create_problem`.

    Raises AlreadyExists for a name taken, CreateRefused for any other refusal (nothing written).
    The lifecycle and trust tier are those a new skill of ``origin`` starts with.
    """
    _refuse(store, name, create_problem(store, name, description, template))
    skill = new_skill(name, description.strip(), template)
    note = note or f"created from the {TEMPLATES[template].label.lower()} template"
    return _add(store, skill, origin, author, note)


def create_skill_from(store: Store, skill: Skill, *, origin: Origin = Origin.HUMAN, author: str | None = None,
                      note: str = "created") -> Saved:
    """Add a skill whose SKILL.md text was written whole (read with ``build_skill``), under the
    same rules as :func:`create_skill`; its folder follows its name."""
    _refuse(store, skill.name, new_name_problem(store, skill.name) or description_problem(skill.description))
    skill.folder_name, skill.source_path = skill.name, None
    return _add(store, skill, origin, author, note)


def _refuse(store: Store, name: str, problem: str | None) -> None:
    if problem is None:
        return
    if name and name in store:
        raise AlreadyExists(f'cannot create "{name}": {problem}')
    raise CreateRefused(f'cannot create "{name}": {problem}')


def _add(store: Store, skill: Skill, origin: Origin, author: str | None, note: str) -> Saved:
    skill.origin = Origin(origin)
    skill.lifecycle, skill.trust_tier = ENTRY_DEFAULTS[skill.origin]
    stored = store.add(skill, author=author, note=note)
    return Saved(stored, ChangeSet.of(added=[stored.name], label=f"Create {stored.name}"))


# --- save, restore --------------------------------------------------------------------------

def save_skill(store: Store, name: str, skill: Skill, expected_version: int, *, author: str | None = None,
               note: str = "") -> Saved:
    """Save ``skill`` as the next version of the stored skill ``name``; a different ``skill.name``
    renames it.

    ``expected_version`` is the version the caller read: VersionConflict when the store holds
    another (nothing written). A rename follows :meth:`Store.rename_problem` (RenameRefused, a
    StoreError, for a name no folder can have or one that reads like another skill's), AlreadyExists
    for a name taken now or by a deleted skill's history, DependentsExist while others depend on
    the old name.
    ReadOnlySkill for a builtin skill. A save that changes nothing writes nothing and changes nothing.
    On a rename the folder follows the name, unless the skill is kept under a folder of another name.
    """
    if skill.name != name:
        problem = store.rename_problem(name, skill.name)
        if problem is not None:
            raise RenameRefused(f'cannot rename "{name}": {problem}')
        if skill.folder_name in (None, name):
            skill = replace(skill, folder_name=skill.name)
    saved = store.update(name, skill, expected_version, author=author, note=note)
    return Saved(saved, _saved_changes(name, saved, expected_version, f"Save {name}"))


def restore_version(store: Store, name: str, version: int, expected_version: int, *,
                    author: str | None = None) -> Saved:
    """Make version ``version`` of ``name`` current again, as a new version (never a rename).
    Raises NotFound, VersionConflict, ReadOnlySkill."""
    restored = store.restore(name, version, expected_version, author=author)
    return Saved(restored, _saved_changes(name, restored, expected_version, f"Restore {name} to version {version}"))


def _saved_changes(name: str, saved: Skill, expected_version: int, label: str) -> ChangeSet:
    if saved.name != name:
        return ChangeSet.of(renamed=[(name, saved.name)], label=f"Rename {name} to {saved.name}")
    if saved.version != expected_version:
        return ChangeSet.of(changed=[name], label=label)
    return ChangeSet(label=label)


# --- delete ---------------------------------------------------------------------------------

def delete_skills(store: Store, names: Iterable[str], *, reason: str = "", author: str | None = None) -> Outcome:
    """Delete the named skills in one transaction; their history and audit stay.

    A selected skill that only selected skills depend on goes with them (dependents first). One
    that a skill not being deleted depends on is refused (DependentsExist naming those skills), as
    are builtin skills (ReadOnlySkill) and names not in the store (NotFound); the rest are deleted.
    The outcome's ``change`` undoes it all, bindings of the deleted skills included.
    """
    done: list[lifecycle.Change] = []
    refused: dict[str, Exception] = {}
    pending = list(dict.fromkeys(names))
    with store.transaction():
        while pending:   # a pass deletes what nothing left needs; a refusal writes nothing
            refused = {}
            for name in pending:
                try:
                    done.append(lifecycle.delete(store, name, reason, author=author))
                except StoreError as e:
                    refused[name] = e
            if len(refused) == len(pending):
                break
            pending = list(refused)
    label = done[0].label if len(done) == 1 else f"Delete {len(done)} skills"
    change = lifecycle.Change(label)
    for c in done:
        change.add(c)
    return outcome(change, refused)
