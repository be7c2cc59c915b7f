"""A rename in the designer is held to the import's name rules: no name a folder cannot have, and
none that reads like another skill's."""

from __future__ import annotations

import pytest

from skill_studio.ui.designer.session import EditSession


@pytest.mark.parametrize("new_name, why", [
    ("pdf-extr\u0430ct", "reads like the skill \"pdf-extract\""),      # Cyrillic а
    ("release\u202enotes", "invisible character"),
    ("con", "Windows reserves"),
    ("csv/cleanup", "path separator"),
])
def test_a_rename_to_a_bad_or_look_alike_name_is_refused(seeded_store, new_name, why):
    session = EditSession(seeded_store, "security-review")
    text = session.base.skill_md.replace("name: security-review", f"name: {new_name}", 1)
    before = seeded_store.get("security-review")
    with pytest.raises(ValueError, match=why):
        session.save(text, session.base.files)
    assert seeded_store.get("security-review").version == before.version
    assert new_name not in seeded_store


def test_a_plain_rename_still_works(seeded_store):
    session = EditSession(seeded_store, "security-review")
    text = session.base.skill_md.replace("name: security-review", "name: security-audit", 1)
    assert session.save(text, session.base.files).skill.name == "security-audit"


_REFUSED = [("pdf-extr\u0430ct", 'reads like the skill "pdf-extract"'), ("release\u202enotes", "invisible character"),
            ("con", "Windows reserves"), ("csv/cleanup", "path separator")]


@pytest.mark.parametrize("new_name, why", _REFUSED)
def test_the_command_line_refuses_the_renames_the_designer_refuses(seeded_store, tmp_path, capsys, new_name, why):
    from skill_studio.cli import main

    before = seeded_store.get("security-review")
    edited = tmp_path / "SKILL.md"
    edited.write_text(before.skill_md.replace("name: security-review", f"name: {new_name}", 1), encoding="utf-8")
    assert main(["--store", str(seeded_store.path), "save", "security-review", str(edited)]) == 1
    err = capsys.readouterr().err
    assert 'cannot rename "security-review"' in err and why in err
    assert seeded_store.get("security-review").version == before.version
    assert new_name not in seeded_store


@pytest.mark.parametrize("new_name, why", _REFUSED)
def test_the_store_refuses_them_for_every_caller(seeded_store, new_name, why):
    from dataclasses import replace

    from skill_studio.core.store import StoreError

    before = seeded_store.get("security-review")
    with pytest.raises(StoreError, match=why):
        seeded_store.update("security-review", replace(before, name=new_name), before.version)
    assert seeded_store.get("security-review").version == before.version
