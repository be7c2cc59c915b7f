"""Operations on skills as a whole: create, save (and rename), restore an earlier version, delete."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from skill_studio.core.format import skillmd
from skill_studio.core.format.fields import LIST_FIELDS, metadata_key, set_studio_field
from skill_studio.core.format.frontmatter import compose, set_field
from skill_studio.core.format.strict import MAX_COMPATIBILITY_LENGTH, MAX_DESCRIPTION_LENGTH
from skill_studio.core.format.templates import TEMPLATES, name_problem, new_skill_md, template_files
from skill_studio.core.library.folders import build_skill
from skill_studio.core.model import ENTRY_DEFAULTS, Origin, Skill
from skill_studio.core.ops.changes import ChangeSet
from skill_studio.core.ops.review import Outcome, outcome
from skill_studio.core.review import lifecycle
from skill_studio.core.store import AlreadyExists, Store, StoreError

__all__ = ["NEW_SKILL_FIELDS", "CreateRefused", "RenameRefused", "Saved", "create_problem", "create_skill",
           "create_skill_from", "delete_skills", "description_problem", "fields_problem", "new_name_problem",
           "restore_version", "save_skill"]


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
                 origin: Origin = Origin.HUMAN, author: str | None = None, note: str | None = None,
                 fields: Mapping[str, Any] | None = None) -> Saved:
    """Add a new skill from a template, checked by :func:`create_problem`, with ``fields`` (keys
    of :data:`NEW_SKILL_FIELDS`, or their other spellings) written into its SKILL.md the way the
    designer writes them, so the file and the store agree (None or an empty value: not given).

    Raises AlreadyExists for a name taken, CreateRefused for any other refusal (nothing written):
    a key that names no field, state the store keeps, a field given twice, a value of the wrong
    shape, ``content`` with a template other than blank, a skill that needs itself.
    The lifecycle and trust tier are those a new skill of ``origin`` starts with.
    """
    _refuse(store, name, create_problem(store, name, description, template))
    given = _checked_fields(name, template, fields or {})
    text = _new_skill_text(name, description.strip(), template, given)
    skill = build_skill(text.encode("utf-8"), name, template_files(template)[1], origin=Origin.HUMAN,
                        source=f"new:{name}")
    skill.source_path = None
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


# --- a new skill's fields -------------------------------------------------------------------

#: What a new skill may be given beside its name, description and template (SPEC §1 and the
#: frontmatter of SKILL-FORMAT.md): key -> (the shape of its value, what it is).
NEW_SKILL_FIELDS: dict[str, tuple[str, str]] = {
    "content": ("text", "the Markdown body, instead of the blank template's"),
    "steps": ("steps", 'ordered steps, each a text or {"action": text}; written as a top-level steps: list'),
    "tags": ("words", "tags, one word each"),
    "depends_on": ("words", "the names of the skills it needs"),
    "conflicts_with": ("words", "the names of the skills it cannot be used with"),
    "trigger_pattern": ("text", "when to suggest it"),
    "parent_skill_id": ("text", "its parent skill's name"),
    "license": ("text", "a short licence name, or the name of a bundled licence file"),
    "compatibility": ("text", f"what it needs of the environment, at most {MAX_COMPATIBILITY_LENGTH} characters"),
    "allowed-tools": ("text", "space-separated tool names"),
    "metadata": ("map", "string keys to string values"),
}
#: Other spellings of a field.
FIELD_SPELLINGS = {"body": "content", "allowed_tools": "allowed-tools", "parent": "parent_skill_id"}
#: A skill's review state, scores and bookkeeping: the store keeps them, a new skill is never given them.
STORE_KEPT = ("lifecycle", "trust_tier", "version", "success_rate", "utility_score", "freshness", "last_used_at",
              "created_at", "updated_at", "use_count", "success_count", "failure_count", "lifecycle_reason",
              "pinned", "content_hash", "source_path")
_STUDIO_KEYS = ("tags", "depends_on", "conflicts_with", "trigger_pattern", "parent_skill_id")
_NAMES = ("depends_on", "conflicts_with", "parent_skill_id")


def _listed(keys: Iterable[str]) -> str:
    return ", ".join(f"'{k}'" for k in keys)


def fields_problem(keys: Iterable[str], *, also: Iterable[str] = ("name", "description", "template")) -> str | None:
    """Why a new skill cannot be given ``keys``, or None: keys that name no field (the message lists
    those there are, ``also`` first: the caller's own keys), state the store keeps, a field given
    under two spellings."""
    keys, also = list(keys), list(also)
    kept = [k for k in keys if k in STORE_KEPT]
    if kept:
        return (f"{_listed(kept)}: the store keeps {'this' if len(kept) == 1 else 'these'}, a new skill is not "
                "given them (it starts as its origin says; promote, set trust or pin it afterwards)")
    unknown = [k for k in keys if k not in NEW_SKILL_FIELDS and k not in FIELD_SPELLINGS and k not in also]
    if unknown:
        return (f"unknown field{'s' if len(unknown) > 1 else ''} {_listed(unknown)}; a new skill takes "
                f"{', '.join([*also, *NEW_SKILL_FIELDS])}")
    for other, field_name in FIELD_SPELLINGS.items():
        if other in keys and field_name in keys:
            return f"'{other}' and '{field_name}' are one field: give one of them"
    return None


def _checked_fields(name: str, template: str, given: Mapping[str, Any]) -> dict[str, Any]:
    """``given`` under the fields' own keys without empty values, each checked (CreateRefused)."""
    _refuse_if(name, fields_problem(given, also=()))
    out: dict[str, Any] = {}
    for key, value in given.items():
        key = FIELD_SPELLINGS.get(key, key)
        if value is None:
            continue
        try:
            value = _checked_value(key, NEW_SKILL_FIELDS[key][0], value)
        except CreateRefused as e:
            _refuse_if(name, str(e))
        if value or (key == "content" and value == ""):
            out[key] = value
    if "content" in out and template != "blank":
        _refuse_if(name, f"'content' replaces the template's body, and the {template} template's files go "
                         "with its body: give content with the blank template, or leave content out")
    meta = out.get("metadata", {})
    clash = [metadata_key(k) for k in _STUDIO_KEYS if k in out and metadata_key(k) in meta]
    if clash:
        _refuse_if(name, f"metadata {_listed(clash)} is the field given beside it: give it once")
    for key in _NAMES:
        if name in (out.get(key, []) if key in LIST_FIELDS else [str(out.get(key, "")).strip()]):
            _refuse_if(name, f"'{key}' names the skill itself")
    both = sorted(set(out.get("depends_on", ())) & set(out.get("conflicts_with", ())))
    if both:
        _refuse_if(name, f"{_listed(both)} is in both depends_on and conflicts_with")
    return out


def _checked_value(key: str, shape: str, value: Any) -> Any:
    where = f"'{key}'"
    if shape == "text":
        if not isinstance(value, str):
            raise CreateRefused(f"{where} must be text, not {type(value).__name__}")
        if key == "compatibility" and len(value) > MAX_COMPATIBILITY_LENGTH:
            raise CreateRefused(f"{where} has at most {MAX_COMPATIBILITY_LENGTH} characters (this one has "
                                f"{len(value)})")
        if key == "parent_skill_id" and value.strip() and len(value.split()) > 1:
            raise CreateRefused(f"{where} is one skill's name, without spaces: {value!r}")
        return value
    if shape == "map":
        if not isinstance(value, dict) or not all(isinstance(k, str) and k and isinstance(v, str)
                                                  for k, v in value.items()):
            raise CreateRefused(f"{where} must be a map of text keys to text values")
        return dict(value)
    if not isinstance(value, list):
        raise CreateRefused(f"{where} must be a list, not {type(value).__name__}")
    if shape == "words":
        for item in value:
            if not isinstance(item, str) or not item.strip() or any(c.isspace() or c == "," for c in item.strip()):
                raise CreateRefused(f"{where} holds one word per item, without spaces or commas: {item!r}")
        return list(dict.fromkeys(item.strip() for item in value))
    return [_step(i, item) for i, item in enumerate(value, 1)]


def _step(n: int, item: Any) -> str:
    """A step's action: a text, or {"action": text} (with "n" its place, if given)."""
    action = item
    if isinstance(item, dict):
        extra = sorted(set(item) - {"n", "action"})
        if extra or item.get("n", n) != n or isinstance(item.get("n"), bool):
            raise CreateRefused(f"step {n} must be a text or {{\"action\": text}} (\"n\", if given, is its place, "
                                f"{n}): {item!r}")
        action = item.get("action")
    if not isinstance(action, str) or not action.strip():
        raise CreateRefused(f"step {n} has no action text: {item!r}")
    return action.strip()


def _new_skill_text(name: str, description: str, template: str, fields: dict[str, Any]) -> str:
    """The new skill's SKILL.md: the template's (or the given body), then each field set as the
    designer's form and steps editor set it."""
    if "content" in fields:
        text = compose({"name": name, "description": description}, fields["content"])
    else:
        text = new_skill_md(name, description, template)
    where = f"new:{name}/SKILL.md"
    for key in ("license", "compatibility", "allowed-tools", "metadata"):
        if key in fields:
            text = set_field(skillmd.parse_document(text, where), key, fields[key])
    for key in _STUDIO_KEYS:
        if key in fields:
            text = set_studio_field(skillmd.parse_document(text, where), key, fields[key])
    if "steps" in fields:
        text = set_field(skillmd.parse_document(text, where), "steps", fields["steps"])
    return text


def _refuse_if(name: str, problem: str | None) -> None:
    if problem is not None:
        raise CreateRefused(f'cannot create "{name}": {problem}')


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
    return Saved(saved, follow_links(store, _saved_changes(name, saved, expected_version, f"Save {name}")))


def restore_version(store: Store, name: str, version: int, expected_version: int, *,
                    author: str | None = None) -> Saved:
    """Make version ``version`` of ``name`` current again, as a new version (never a rename).
    Raises NotFound, VersionConflict, ReadOnlySkill."""
    restored = store.restore(name, version, expected_version, author=author)
    return Saved(restored, follow_links(store, _saved_changes(name, restored, expected_version,
                                                               f"Restore {name} to version {version}")))


def follow_links(store: Store, changes: ChangeSet) -> ChangeSet:
    """After a write: bring the studio's copies that installed links point at in step with the
    skills ``changes`` names (core.library.managed). The write stands even when a copy cannot be
    written; ``installed`` then shows those links stale."""
    if changes.skills:
        from skill_studio.core.library.managed import refresh

        refresh(store, changes.skills)
    return changes


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
    done_outcome = outcome(change, refused)
    follow_links(store, done_outcome.changes)
    return done_outcome
