"""A frontmatter value that is not a plain string is stored as text a person can read, never as
a Python repr (``b'...'``, ``['a', 'b']``): a name that is binary data, a list or a mapping gives
no name (the folder's is used, with a warning that says so), and binary data elsewhere is read
as its text."""

from __future__ import annotations

import pytest

from skill_studio.core.format import skillmd
from skill_studio.core.format.fields import to_skill
from skill_studio.core.format.lenient import check_lenient

DESC = "description: Does things. Use when needed."


def _skill(frontmatter: str, folder: str = "folder-name"):
    text = f"---\n{frontmatter}\n---\n# Body\n"
    return to_skill(skillmd.parse_document(text), folder), check_lenient(text.encode(), folder, "x/SKILL.md")[0]


@pytest.mark.parametrize("value,what", [
    ("!!binary aG9zdGlsZS1za2lsbA==", "binary data"),
    ("[a, b]", "a list"),
    ("\n  - a\n  - b", "a list"),
    ("{a: 1}", "a mapping"),
    ("\n  key: value", "a mapping"),
])
def test_a_name_that_is_not_text_gives_the_folders_name(value, what):
    skill, diags = _skill(f"name: {value}\n{DESC}")
    assert skill.name == "folder-name"
    [warning] = [d for d in diags if d.code == "L011"]
    assert warning.message == f"name is {what}, not text; the folder name 'folder-name' is used"


@pytest.mark.parametrize("value,read", [("2024", "2024"), ("1.5", "1.5"), ("2024-01-02", "2024-01-02")])
def test_a_name_that_is_another_scalar_is_read_as_written(value, read):
    skill, diags = _skill(f"name: {value}\n{DESC}")
    assert skill.name == read and any(d.code == "L011" for d in diags)


def test_binary_data_elsewhere_is_stored_as_its_text():
    skill, _ = _skill(f"name: folder-name\n{DESC}\nlicense: !!binary TUlU\n"
                      "metadata:\n  data: !!binary aGVsbG8=\n  list: [!!binary aGk=, 2]")
    assert skill.license == "MIT"
    assert skill.metadata == {"data": "hello", "list": ["hi", 2]}
    assert "b'" not in repr(skill.metadata) + (skill.license or "")
