"""The authoring commands: new from a template, save with the version check, history, diff, restore, drafts."""

from __future__ import annotations

import pytest

from skill_studio.cli import main
from skill_studio.core.format.templates import TEMPLATES, name_problem, new_skill, template_files
from skill_studio.core.store import Store


@pytest.fixture
def db(tmp_path):
    return str(tmp_path / "s.db")


def run(db, *argv):
    return main(["--store", db, *argv])


@pytest.mark.parametrize("key", list(TEMPLATES))
def test_every_template_makes_a_valid_skill(key):
    from skill_studio.core.format.validate import validate_text

    skill = new_skill("my-skill", "Does a thing. Use when asked.", key)
    assert "{name}" not in skill.skill_md and "# my-skill" in skill.skill_md
    assert [d for d in validate_text(skill.skill_md, "my-skill", "strict", lints=False)] == []
    _text, files = template_files(key)
    assert [f.path for f in skill.files] == [f.path for f in files]


def test_script_template_has_an_executable_script():
    skill = new_skill("runner", "Runs. Use when asked.", "script")
    (script,) = skill.files
    assert script.path == "scripts/run.sh" and script.mode == 0o755 and script.data.startswith(b"#!")
    assert "scripts/run.sh" in skill.content


def test_names_are_checked_like_the_reference_validator():
    assert name_problem("good-name") is None
    assert "lowercase" in name_problem("Bad_Name")
    assert "hyphen" in name_problem("-x")
    assert "already exists" in name_problem("taken", {"taken"})


def test_new_save_history_diff_restore(db, tmp_path, capsys):
    assert run(db, "new", "my-skill", "-d", "Does a thing. Use when asked.", "--template", "reference") == 0
    assert "created my-skill (version 1, 1 file(s)" in capsys.readouterr().out
    assert run(db, "new", "my-skill", "-d", "Again.") == 2
    assert "already exists" in capsys.readouterr().err
    store = Store(db)
    text = store.get("my-skill").skill_md
    edited = tmp_path / "SKILL.md"
    edited.write_text(text.replace("## Steps", "## Steps\n\nRead the guide first."), encoding="utf-8")
    assert run(db, "save", "my-skill", str(edited), "--note", "clearer") == 0
    assert "saved as version 2" in capsys.readouterr().out
    assert store.get("my-skill").files[0].path == "references/guide.md"  # files kept
    assert run(db, "save", "my-skill", str(edited), "--expect-version", "1") == 1  # stale: refused
    assert "changed elsewhere" in capsys.readouterr().err and store.get("my-skill").version == 2
    assert run(db, "history", "my-skill") == 0
    out = capsys.readouterr().out
    assert out.index("v2") < out.index("v1") and "clearer" in out
    assert run(db, "diff", "my-skill") == 0
    assert "+Read the guide first." in capsys.readouterr().out
    assert run(db, "restore-version", "my-skill", "1") == 0
    assert "restored as version 3" in capsys.readouterr().out
    assert store.get("my-skill").skill_md == text
    store.close()


def test_drafts_listed_and_discarded(db, capsys):
    store = Store(db)
    store.save_draft("alpha", "---\nname: alpha\n---\nbody\n", 3)
    store.close()
    assert run(db, "drafts") == 0
    assert "alpha: 4 lines" in capsys.readouterr().out
    assert run(db, "drafts", "--discard", "alpha") == 0
    assert run(db, "drafts", "--discard", "alpha") == 1
    assert "no draft" in capsys.readouterr().err
