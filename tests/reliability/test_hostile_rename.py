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
    assert session.save(text, session.base.files).name == "security-audit"
