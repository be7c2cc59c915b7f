"""Operations on whole skills: what each refuses and the change set each returns."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from conftest import make

from skill_studio.core.bus.model import Binding
from skill_studio.core.format import skillmd
from skill_studio.core.format.fields import to_skill
from skill_studio.core.format.frontmatter import set_field
from skill_studio.core.model import Lifecycle, Origin, TrustTier
from skill_studio.core.ops.changes import ChangeSet
from skill_studio.core.ops.review import undo
from skill_studio.core.ops.skills import (
    FIELD_SPELLINGS,
    NEW_SKILL_FIELDS,
    STORE_KEPT,
    CreateRefused,
    RenameRefused,
    create_problem,
    create_skill,
    delete_skills,
    description_problem,
    fields_problem,
    new_name_problem,
    restore_version,
    save_skill,
)
from skill_studio.core.review.lifecycle import UndoStack
from skill_studio.core.store import (
    AlreadyExists,
    DependentsExist,
    NotFound,
    ReadOnlySkill,
    StoreError,
    VersionConflict,
)


def renamed(skill, new):
    doc = skillmd.parse_document(skill.skill_md)
    return to_skill(skillmd.parse_document(set_field(doc, "name", new)), None, files=list(skill.files))


def edited(skill, body="# Title\n\nNew body.\n"):
    return make(skill.name, body=body, origin=skill.origin)


def test_save_returns_the_stored_skill_and_names_it_changed(store):
    v1 = store.add(make("pdf-tools"))
    saved = save_skill(store, "pdf-tools", edited(v1), v1.version, author="ann", note="tidied")
    assert saved.skill == store.get("pdf-tools")
    assert saved.skill.version == 2 and "New body." in saved.skill.skill_md
    assert saved.changes == ChangeSet.of(changed={"pdf-tools"}, label="Save pdf-tools")
    assert max(store.versions("pdf-tools"), key=lambda v: v.version).author == "ann"


def test_a_save_that_changes_nothing_changes_nothing(store):
    v1 = store.add(make("pdf-tools"))
    saved = save_skill(store, "pdf-tools", replace(v1), v1.version)
    assert saved.skill.version == 1
    assert not saved.changes


def test_a_rename_is_reported_as_one_pair(store):
    v1 = store.add(make("pdf-tools"))
    saved = save_skill(store, "pdf-tools", renamed(v1, "pdf-kit"), v1.version)
    assert saved.skill.name == "pdf-kit" and "pdf-tools" not in store
    assert saved.changes.renamed == (("pdf-tools", "pdf-kit"),)
    assert saved.changes.skills == {"pdf-tools", "pdf-kit"} and not saved.changes.changed


@pytest.mark.parametrize("new, says", [
    ("pdf-t\u043eols", "reads like the skill"),   # Cyrillic o
    ("pdf/tools", "path separator"),
    ("con", "reserves for a device"),
    ("x" * 300, "too long"),
])
def test_a_rename_to_a_refused_name_writes_nothing(store, new, says):
    store.add(make("pdf-tools"))
    v1 = store.add(make("notes"))
    with pytest.raises(RenameRefused, match=says) as e:
        save_skill(store, "notes", renamed(v1, new), v1.version)
    assert isinstance(e.value, StoreError) and isinstance(e.value, ValueError)
    assert str(e.value) == f'cannot rename "notes": {store.rename_problem("notes", new)}'   # the store's rule
    assert store.get("notes").version == 1 and new not in store


def test_a_stale_version_is_a_conflict_and_nothing_is_written(store):
    v1 = store.add(make("pdf-tools"))
    save_skill(store, "pdf-tools", edited(v1), 1)
    with pytest.raises(VersionConflict) as e:
        save_skill(store, "pdf-tools", edited(v1, "# Other\n"), 1)
    assert (e.value.expected, e.value.current) == (1, 2)
    assert store.get("pdf-tools").version == 2


def test_rename_refusals_of_the_store_stand(store):
    store.add(make("base"))
    store.add(make("user", meta={"depends-on": "base"}))
    store.add(make("taken"))
    base = store.get("base")
    with pytest.raises(AlreadyExists):
        save_skill(store, "base", renamed(base, "taken"), 1)
    with pytest.raises(DependentsExist):
        save_skill(store, "base", renamed(base, "fresh"), 1)
    store.add(make("shipped", origin=Origin.BUILTIN))
    with pytest.raises(ReadOnlySkill):
        save_skill(store, "shipped", edited(store.get("shipped")), 1)


# --- create -----------------------------------------------------------------------------

def test_create_adds_a_skill_from_the_template_and_names_it_added(store):
    made = create_skill(store, "pdf-tools", "Fills PDF forms. Use when a form arrives.", "script", author="ann")
    assert made.skill == store.get("pdf-tools")
    assert made.skill.origin == Origin.HUMAN and made.skill.folder_name == "pdf-tools"
    assert [f.path for f in made.skill.files] == ["scripts/run.sh"]
    assert made.changes == ChangeSet.of(added={"pdf-tools"}, label="Create pdf-tools")
    assert store.versions("pdf-tools")[0].note == "created from the script-backed template"


@pytest.mark.parametrize("name, says", [
    ("", "Enter a name"), ("Pdf-Tools", "lowercase"), ("pdf tools", "lowercase"), ("x" * 65, "At most 64"),
    ("-pdf", "hyphen"), ("pdf--tools", "two hyphens"), ("con", "reserves for a device"),
    ("pdf-tools", "reads like the skill"),
])
def test_create_refuses_a_bad_or_look_alike_name_and_writes_nothing(store, name, says):
    store.add(make("pdf-t\u043eols"))   # with a Cyrillic o, as imported
    assert says in (new_name_problem(store, name) or "")
    with pytest.raises(CreateRefused, match=says):
        create_skill(store, name, "Does a thing. Use when needed.")
    assert store.names() == ["pdf-t\u043eols"]


def test_create_refuses_a_name_taken_a_missing_description_and_an_unknown_template(store):
    store.add(make("taken"))
    with pytest.raises(AlreadyExists, match="already exists"):
        create_skill(store, "taken", "Does a thing.")
    for description, says in (("  ", "description is required"), ("x" * 1025, "at most 1024")):
        assert says in description_problem(description)
        with pytest.raises(CreateRefused, match=says):
            create_skill(store, "fresh", description)
    assert create_problem(store, "fresh", "Does a thing.", "nope").startswith("Unknown template 'nope'")
    with pytest.raises(CreateRefused, match="Unknown template"):
        create_skill(store, "fresh", "Does a thing.", "nope")
    assert "fresh" not in store and create_problem(store, "fresh", "Does a thing.") is None


def test_a_skill_created_for_a_program_starts_as_an_untrusted_candidate(store):
    made = create_skill(store, "agent-made", "Made by an agent. Use when testing.", origin=Origin.LLM)
    assert (made.skill.lifecycle, made.skill.trust_tier) == (Lifecycle.CANDIDATE, TrustTier.UNTRUSTED)


# A value for each field a new skill may be given, and what the store then holds (attribute, value).
GIVEN = {
    "content": ("# Own\n\nMy body.\n", "content", "# Own\n\nMy body.\n"),
    "steps": (["One", {"action": " Two "}, {"n": 3, "action": "Three"}], "steps",
              [{"n": 1, "action": "One"}, {"n": 2, "action": "Two"}, {"n": 3, "action": "Three"}]),
    "tags": (["pdf", "forms"], "tags", ["pdf", "forms"]),
    "depends_on": (["base-skill"], "depends_on", ["base-skill"]),
    "conflicts_with": (["rival-skill"], "conflicts_with", ["rival-skill"]),
    "trigger_pattern": ("on: a form", "trigger_pattern", "on: a form"),
    "parent_skill_id": ("documents", "parent_skill_id", "documents"),
    "license": ("MIT", "license", "MIT"),
    "compatibility": ("Python 3", "compatibility", "Python 3"),
    "allowed-tools": ("Bash Read", "allowed_tools", "Bash Read"),
    "metadata": ({"author": "ann"}, "metadata", {"author": "ann"}),
}


def test_every_new_skill_field_has_a_case():
    assert set(GIVEN) == set(NEW_SKILL_FIELDS) and set(FIELD_SPELLINGS.values()) <= set(NEW_SKILL_FIELDS)


@pytest.mark.parametrize("key", sorted(GIVEN))
def test_create_writes_each_field_into_skill_md_and_the_store_agrees(store, key):
    value, attr, expected = GIVEN[key]
    made = create_skill(store, "given", "Does a thing. Use when needed.", fields={key: value}).skill
    assert getattr(made, attr) == expected == getattr(store.get("given"), attr)
    assert getattr(to_skill(skillmd.parse_document(made.skill_md), "given"), attr) == expected
    plain = create_skill(store, "plain", "Does a thing. Use when needed.").skill
    assert made.skill_md != plain.skill_md and getattr(plain, attr) != expected


@pytest.mark.parametrize("alias", sorted(FIELD_SPELLINGS))
def test_another_spelling_is_the_same_field(store, alias):
    value, attr, expected = GIVEN[FIELD_SPELLINGS[alias]]
    made = create_skill(store, "spelt", "Does a thing. Use when needed.", fields={alias: value}).skill
    assert getattr(made, attr) == expected


def test_empty_values_are_fields_not_given(store):
    empty = create_skill(store, "empty", "Does a thing.", fields={"tags": [], "trigger_pattern": "", "license": None,
                                                                 "metadata": {}, "steps": []}).skill
    assert empty.skill_md == create_skill(store, "bare", "Does a thing.").skill.skill_md.replace("bare", "empty")


@pytest.mark.parametrize("fields, says", [
    ({"colour": "red"}, "unknown field 'colour'; a new skill takes content, steps"),
    ({"name": "other"}, "unknown field 'name'"),
    *[({key: 1}, "the store keeps this") for key in STORE_KEPT],
    ({"content": "a", "body": "b"}, "'body' and 'content' are one field"),
    ({"tags": "a b"}, "'tags' must be a list"),
    ({"tags": ["a b"]}, "one word per item"),
    ({"steps": [{"action": ""}]}, "step 1 has no action text"),
    ({"metadata": {"k": None}}, "map of text keys to text values"),
    ({"parent_skill_id": "given"}, "names the skill itself"),
    ({"metadata": {"parent": "p"}, "parent_skill_id": "q"}, "metadata 'parent' is the field given beside it"),
])
def test_create_refuses_a_field_it_cannot_apply_and_writes_nothing(store, fields, says):
    with pytest.raises(CreateRefused, match=f'cannot create "given": .*{re.escape(says)}'):
        create_skill(store, "given", "Does a thing. Use when needed.", fields=fields)
    assert "given" not in store


def test_content_goes_with_the_blank_template_only(store):
    with pytest.raises(CreateRefused, match="the script template's files go with its body"):
        create_skill(store, "given", "Does a thing.", "script", fields={"content": "# Mine"})
    made = create_skill(store, "given", "Does a thing.", "blank", fields={"content": "# Mine"}).skill
    assert made.content == "# Mine"


def test_fields_problem_takes_the_callers_own_keys():
    assert fields_problem(["name", "tags"]) is None
    assert fields_problem(["origin"]).startswith("unknown field 'origin'")
    assert fields_problem(["origin"], also=["origin"]) is None


# --- restore --------------------------------------------------------------------------------

def test_restore_version_is_a_new_version_of_the_same_skill(store):
    v1 = store.add(make("pdf-tools"))
    save_skill(store, "pdf-tools", edited(v1), 1)
    restored = restore_version(store, "pdf-tools", 1, 2)
    assert restored.skill.version == 3 and restored.skill.skill_md == v1.skill_md
    assert restored.changes.changed == {"pdf-tools"} and not restored.changes.membership
    with pytest.raises(VersionConflict):
        restore_version(store, "pdf-tools", 1, 2)


# --- delete ---------------------------------------------------------------------------------

def test_delete_takes_selected_dependents_along_and_refuses_the_rest(store):
    store.add(make("base"))
    store.add(make("user", meta={"depends-on": "base"}))
    store.add(make("lib"))
    store.add(make("keeper", meta={"depends-on": "lib"}))
    store.add(make("shipped", origin=Origin.BUILTIN))
    store.add_binding(Binding(skill="user", event_type="file.saved"))
    done = delete_skills(store, ["base", "user", "lib", "shipped", "ghost"], reason="tidy", author="ann")
    assert set(done.change.before) == {"base", "user"} and "base" not in store and "user" not in store
    assert done.changes.removed == {"base", "user"} and done.changes.bindings
    assert isinstance(done.refused["lib"], DependentsExist) and done.refused["lib"].dependents == ["keeper"]
    assert "keeper" in str(done.refused["lib"])
    assert isinstance(done.refused["shipped"], ReadOnlySkill) and isinstance(done.refused["ghost"], NotFound)
    assert {"lib", "keeper", "shipped"} <= set(store.names())
    assert store.audit_log("base")[0].reason == "tidy"


def test_a_delete_is_undone_whole_bindings_included(store):
    store.add(make("base"))
    store.add(make("user", meta={"depends-on": "base"}))
    store.add_binding(Binding(skill="user", event_type="file.saved"))
    stack = UndoStack(store)
    stack.push(delete_skills(store, ["base", "user"]).change)
    undone = undo(stack)
    assert {"base", "user"} <= set(store.names()) and len(store.bindings(skill="user")) == 1
    assert undone.changes.added == {"base", "user"} and undone.changes.bindings
