"""The SKILL.md codec: lossless round trip, one-field edits, clear errors, generated skills."""

from __future__ import annotations

import string

import pytest
import yaml
from conftest import REAL_WORLD, skill_folders
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skill_studio.core.format import skillmd
from skill_studio.core.format.fields import steps_from_body, to_skill
from skill_studio.core.format.frontmatter import compose, set_field
from skill_studio.core.format.skillmd import SkillParseError, parse_document

LOADABLE = [p for p in skill_folders(REAL_WORLD)]


def _md(folder):
    return folder / ("SKILL.md" if (folder / "SKILL.md").exists() else "skill.md")


@pytest.mark.parametrize("folder", LOADABLE, ids=lambda p: str(p.relative_to(REAL_WORLD)))
def test_real_world_text_splits_back_to_the_same_bytes(folder):
    data = _md(folder).read_bytes()
    try:
        text = skillmd.decode(data)
        doc = skillmd.split(text)
    except SkillParseError:
        return  # refused files are covered by the error tests
    assert (doc.head + doc.body).encode("utf-8") == data
    assert doc.text.encode("utf-8") == data


def test_bom_crlf_and_missing_final_newline_are_kept():
    data = "\ufeff---\r\nname: x\r\ndescription: Does x. Use when y.\r\n---\r\nBody é".encode()
    doc = parse_document(data)
    assert doc.data == {"name": "x", "description": "Does x. Use when y."}
    assert doc.prefix == "\ufeff"
    assert doc.body == "Body é"
    assert doc.newline == "\r\n"
    assert doc.text.encode() == data


def test_blank_lines_before_the_frontmatter_are_tolerated():
    doc = parse_document(b"\n\n---\nname: a\ndescription: b\n---\n")
    assert doc.prefix == "\n\n" and doc.frontmatter_line == 4 and doc.data["name"] == "a"


def test_closing_fence_is_a_line_not_dashes_inside_a_value():
    doc = parse_document(b'---\nname: a\ndescription: "x --- y"\n---\nbody --- here\n')
    assert doc.data["description"] == "x --- y"
    assert doc.body == "body --- here\n"


@pytest.mark.parametrize("data, line, column, words", [
    (b"---\nname: a\ndescription: Use when: you need it\n---\n", 3, 22, "mapping values"),
    (b"---\nname: a\ndescription: [unclosed\n---\n", 4, 1, "invalid YAML"),
    (b"---\nname: a\n  bad: indent\n---\n", 3, 6, "invalid YAML"),
    (b"---\nname: a\ndescription: caf\xe9\n---\n", 3, 17, "invalid UTF-8"),
    (b"# just markdown\n", 1, 1, "must start with YAML frontmatter"),
    (b"---\nname: a\ndescription: b\n", 1, 1, "not properly closed"),
    (b"---\n- a\n- b\n---\n", 2, 1, "must be a YAML mapping"),
])
def test_errors_name_file_line_and_column(data, line, column, words):
    with pytest.raises(SkillParseError) as err:
        parse_document(data, "skills/a/SKILL.md")
    e = err.value
    assert (e.line, e.column) == (line, column)
    assert words in str(e)
    assert str(e).startswith(f"skills/a/SKILL.md:{line}:{column}: ")


def test_unquoted_colon_gets_the_quoted_fix_as_a_hint():
    with pytest.raises(SkillParseError) as err:
        parse_document(b"---\nname: a\ndescription: Use this when: you need X\n---\n", "a/SKILL.md")
    assert err.value.hint == 'the value holds \': \' unquoted; quote it: description: "Use this when: you need X"'
    fixed = yaml.safe_load(err.value.hint.split("quote it: ")[1])
    assert fixed == {"description": "Use this when: you need X"}


def test_oversize_file_is_refused_before_decoding():
    data = b"---\nname: a\ndescription: b\n---\n" + b"x" * skillmd.MAX_SKILL_MD_BYTES
    with pytest.raises(SkillParseError, match="limit"):
        parse_document(data, "big/SKILL.md")


ORIGINAL = """---
# The team's commit helper
name: commit-helper
description: >-
  Writes commit messages.
  Use when committing.
license: 'MIT'
metadata:
  author: "Dana"   # kept
  tags: git writing
allowed-tools: Bash(git:*)
---
# Commit helper

1. Stage.
"""


def _changed_lines(a: str, b: str) -> list[tuple[str, str]]:
    import difflib

    return [(op, line) for op, line in (
        (d[0], d[2:]) for d in difflib.ndiff(a.splitlines(), b.splitlines())) if op in "+-"]


def test_editing_one_field_rewrites_only_that_field():
    doc = parse_document(ORIGINAL)
    out = set_field(doc, "license", "Apache-2.0")
    assert _changed_lines(ORIGINAL, out) == [("-", "license: 'MIT'"), ("+", "license: Apache-2.0")]
    out = set_field(doc, "description", "Writes commit messages: short ones.\nUse when committing.")
    new = parse_document(out)
    assert new.data["description"] == "Writes commit messages: short ones.\nUse when committing."
    assert new.data["metadata"] == doc.data["metadata"] and "# kept" in out and new.body == doc.body
    assert out.startswith("---\n# The team's commit helper\nname: commit-helper\n")


def test_studio_field_goes_under_metadata_as_a_string():
    doc = parse_document(ORIGINAL)
    out = set_field(doc, "depends-on", "git-basics code-style", under="metadata")
    assert _changed_lines(ORIGINAL, out) == [("+", "  depends-on: git-basics code-style")]
    new = parse_document(out)
    assert new.data["metadata"]["depends-on"] == "git-basics code-style"
    assert to_skill(new).depends_on == ["git-basics", "code-style"]


def test_metadata_created_when_absent_and_crlf_kept():
    text = "---\r\nname: a\r\ndescription: b\r\n---\r\nbody\r\n"
    out = set_field(parse_document(text), "tags", "x y", under="metadata")
    assert out == "---\r\nname: a\r\ndescription: b\r\nmetadata:\r\n  tags: x y\r\n---\r\nbody\r\n"


def test_removing_a_field():
    doc = parse_document(ORIGINAL)
    out = set_field(doc, "author", None, under="metadata")
    assert _changed_lines(ORIGINAL, out) == [("-", '  author: "Dana"   # kept')]
    out = set_field(doc, "allowed-tools", None)
    assert "allowed-tools" not in parse_document(out).data


def test_studio_fields_read_from_either_place():
    top = parse_document("---\nname: a\ndescription: b\ntags: [x, y]\ndepends_on: [c]\n"
                         "triggerPattern: deploy|ship\nparent: root\nsteps:\n  - Do one\n  - action: Do two\n---\n")
    s = to_skill(top)
    assert (s.tags, s.depends_on, s.trigger_pattern, s.parent_skill_id) == (["x", "y"], ["c"], "deploy|ship", "root")
    assert s.steps == [{"n": 1, "action": "Do one"}, {"n": 2, "action": "Do two"}]
    meta = to_skill(parse_document('---\nname: a\ndescription: b\nmetadata:\n  tags: "x y"\n'
                                   '  conflicts-with: "z"\n  trigger-pattern: "on push"\n---\n'))
    assert (meta.tags, meta.conflicts_with, meta.trigger_pattern) == (["x", "y"], ["z"], "on push")


def test_steps_come_from_the_numbered_list_under_a_steps_heading():
    body = "# T\n\nIntro.\n\n## Steps\n\n1. First\n2. Second\n   more\n\n```\n3. not a step\n```\n## Next\n4. no\n"
    assert steps_from_body(body) == [{"n": 1, "action": "First"}, {"n": 2, "action": "Second\nmore"}]


# --- generated skills -----------------------------------------------------------

_name = st.text(alphabet=string.ascii_lowercase + string.digits, min_size=1, max_size=20)
_piece = (st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=8)
          | st.sampled_from(["\n", ": ", " #", "'", '"', "---", "- ", "yes", "null", "1.5", "\t", "\\", "|"]))
_text = st.lists(_piece, min_size=1, max_size=10).map("".join).filter(bool)
_line_text = _text.filter(lambda s: s.strip() and s == s.strip())


@st.composite
def skills(draw):
    fields = {"name": draw(_name), "description": draw(_line_text)}
    if draw(st.booleans()):
        fields["license"] = draw(_line_text)
    meta = draw(st.dictionaries(st.sampled_from(["tags", "depends-on", "trigger-pattern", "author"]),
                                _line_text, max_size=3))
    if meta:
        fields["metadata"] = meta
    body = draw(st.text(max_size=300))
    return fields, body


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(skills())
def test_generated_skill_serializes_and_parses_back(skill):
    fields, body = skill
    text = compose(fields, body)
    doc = parse_document(text)
    assert doc.data == fields
    assert doc.body == body
    assert doc.text == text


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(skills(), st.sampled_from(["\n", "\r\n"]), st.booleans(), st.booleans())
def test_unchanged_text_gives_back_the_same_bytes(skill, newline, bom, final_newline):
    fields, body = skill
    text = compose(fields, body.replace("\r", ""))
    if not final_newline:
        text = text.rstrip("\n")
    text = ("\ufeff" if bom else "") + text.replace("\n", newline)
    data = text.encode("utf-8")
    try:
        doc = parse_document(data)
    except SkillParseError:
        return  # e.g. a body that ends the frontmatter early is not this property's concern
    assert (doc.head + doc.body).encode("utf-8") == data


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(skills(), st.sampled_from(["description", "license", "compatibility"]), _text)
def test_setting_a_field_changes_only_that_field(skill, key, value):
    fields, body = skill
    doc = parse_document(compose(fields, body))
    new = parse_document(set_field(doc, key, value))
    expected = dict(fields)
    expected[key] = value
    assert new.data == expected
    assert new.body == body


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(skills(), st.sampled_from(["tags", "depends-on", "parent"]), _line_text)
def test_setting_a_metadata_field_keeps_everything_else(skill, key, value):
    fields, body = skill
    doc = parse_document(compose(fields, body))
    new = parse_document(set_field(doc, key, value, under="metadata"))
    expected = dict(fields)
    expected["metadata"] = {**fields.get("metadata", {}), key: value}
    assert new.data == expected


def test_studio_fields_are_written_where_they_are_or_under_metadata():
    from skill_studio.core.format.fields import set_studio_field

    cortex = parse_document("---\nname: a\ndescription: b\ntags: [x, y]\ntriggerPattern: ship it\n---\n")
    out = set_studio_field(cortex, "tags", ["x", "z"])
    assert _changed_lines(cortex.text, out) == [("-", "tags: [x, y]"), ("+", "tags:"), ("+", "  - x"), ("+", "  - z")]
    assert to_skill(parse_document(out)).tags == ["x", "z"]
    out = set_studio_field(cortex, "trigger_pattern", "deploy|ship")
    assert _changed_lines(cortex.text, out) == [("-", "triggerPattern: ship it"),
                                                ("+", 'triggerPattern: "deploy|ship"')]
    plain = parse_document(ORIGINAL)
    out = set_studio_field(plain, "depends_on", ["git-basics", "style"])
    assert _changed_lines(ORIGINAL, out) == [("+", "  depends-on: git-basics style")]
    out = set_studio_field(plain, "tags", [])
    assert "tags" not in parse_document(out).data["metadata"]
