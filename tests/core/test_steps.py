"""Steps are whole CommonMark list items wherever they are read, written into the frontmatter or
merged: wrapped lines, code blocks and nested lists stay part of their step."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import make

from skill_studio.core.format.fields import set_studio_field, steps_from_body, studio_fields, to_skill
from skill_studio.core.format.frontmatter import compose
from skill_studio.core.format.skillmd import parse_document
from skill_studio.core.format.steps import find_step_list, render_steps, replace_step_list, without_step_list
from skill_studio.core.format.validate import errors, validate_text
from skill_studio.core.review import merge

SAMPLES = Path(__file__).resolve().parents[2] / "resources" / "samples"
SAMPLE_MDS = sorted(SAMPLES.glob("*/SKILL.md"))


def actions(body: str) -> list[str]:
    return [s["action"] for s in steps_from_body(body)]


# --- reading the body -------------------------------------------------------------------

@pytest.mark.parametrize("path", SAMPLE_MDS, ids=lambda p: p.parent.name)
def test_every_sample_step_is_whole(path):
    doc = parse_document(path.read_text(encoding="utf-8"))
    steps = actions(doc.body)
    section = doc.body.split("## Steps", 1)[1].split("\n## ", 1)[0]
    # As many steps as numbered lines at the margin, each starting with its own line's text.
    numbered = re.findall(r"^\d+\. (.*)$", section, re.MULTILINE)
    assert len(steps) == len(numbered) >= 5
    assert [s.split("\n")[0] for s in steps] == numbered
    # Every indented line of the list belongs to a step, code fences balanced within each.
    indented = [ln.strip() for ln in section.split("\n") if ln.startswith("   ") and ln.strip()]
    joined = "\n".join(steps)
    assert all(line in joined for line in indented)
    assert all(s.count("```") % 2 == 0 for s in steps)
    assert any("\n" in s for s in steps)  # each sample has wrapped or code-holding steps
    # Written back as a list, the body is byte for byte what it was.
    found = find_step_list(doc.body)
    assert replace_step_list(doc.body, found, found.items) == doc.body


WRAPPED = """\
# Demo

Intro that mentions 1. nothing.

## Steps

1. Read the staged diff, not the working tree,
   and list what changed.
2. Run the tests:
   ```bash
   python -m pytest -q

   echo done
   ```
   Stop when they fail.
3. Check the parts:
   - the parser
   - the writer, which
     wraps too
4. Lazy continuation
goes on without indent.

## Notes

1. Not a step.
"""


def test_wrapped_steps_code_blocks_nested_lists_and_lazy_lines_are_kept():
    assert actions(WRAPPED) == [
        "Read the staged diff, not the working tree,\nand list what changed.",
        "Run the tests:\n```bash\npython -m pytest -q\n\necho done\n```\nStop when they fail.",
        "Check the parts:\n- the parser\n- the writer, which\n  wraps too",
        "Lazy continuation\ngoes on without indent.",
    ]


@pytest.mark.parametrize("body, expected", [
    ("## Steps\n\n1) One\n   more\n2) Two\n", ["One\nmore", "Two"]),                     # ')' style
    ("## Steps\n\n3. Three\n4. Four\n", ["Three", "Four"]),                              # starts at 3
    ("## Steps\n\n9. Nine\n   wraps\n10. Ten\n    wraps\n", ["Nine\nwraps", "Ten\nwraps"]),  # wider markers
    ("## Steps\n\n1. One\n2) Other list\n", ["One"]),                                   # new delimiter, new list
    ("## Steps\n\n1. One\n\nAfter the list.\n", ["One"]),                               # a paragraph ends it
    ("## Steps\n\n1. One\n\n   Still one.\n2. Two\n", ["One\n\nStill one.", "Two"]),   # loose item
    ("## Steps\n\n1. One\n  ```\n  not indented enough\n  ```\n", ["One"]),             # fence below the column
    ("## Steps\n\n1.\tTabbed\n\tcontinued\n", ["Tabbed\ncontinued"]),                   # tabs
    ("## Steps\n\n1. One\n---\n2. Two\n", ["One"]),                                     # a rule ends the list
    ("## Steps\n\nDo this:\n2. not a list\n\n1. First\n", ["First"]),                   # only 1 interrupts
    ("## Steps\n\n- note\n  1. nested, not a step\n\n1. Real\n", ["Real"]),            # a bullet list's own
    ("## Steps\n\n```\n1. in code\n```\n\n1. Real\n", ["Real"]),                        # fenced code skipped
    ("```\n## Steps\n1. in code\n```\n## Workflow\n1. Real\n", ["Real"]),              # heading in code
    ("## Steps\n\nProse only.\n\n## Procedure\n\n1. Real\n", ["Real"]),                # first section with a list
    ("Steps\n-----\n\n1. Setext\n", ["Setext"]),                                        # setext heading
    ("## Steps\n\n1. One\n## Next\n1. Other\n", ["One"]),                               # the next heading ends it
    ("## Steps\n\n1. Only\n", ["Only"]),
    ("## Steps\r\n\r\n1. One\r\n   wraps\r\n2. Two\r\n", ["One\nwraps", "Two"]),      # CRLF
    ("# No steps here\n\n1. A list\n", []),
])
def test_list_item_rules(body, expected):
    assert actions(body) == expected


@pytest.mark.parametrize("items", [
    ["One"], ["Wrapped\nline", "Code:\n```sh\necho hi\n\necho bye\n```\nthen", "Nested:\n- a\n  - b"],
    [f"Step {n}\nwith more" for n in range(1, 13)],
])
@pytest.mark.parametrize("first, delimiter", [(1, "."), (1, ")"), (7, ".")])
def test_rendered_steps_read_back_whole(items, first, delimiter):
    body = "# T\n\n## Steps\n\n" + render_steps(items, first, delimiter) + "\n## After\n\ntext\n"
    assert actions(body) == items


def test_removing_the_source_list_keeps_the_rest():
    assert without_step_list("# S\n\n## Steps\n\n1. A\n2. B\n\n## More\n\nx\n") == "# S\n\n## More\n\nx\n"
    kept = without_step_list("# S\n\n## Steps\n\nIntro.\n\n1. A\n\nAfter.\n")
    assert kept == "# S\n\n## Steps\n\nIntro.\n\nAfter.\n"
    assert without_step_list("# S\n\nNo steps.\n") == "# S\n\nNo steps.\n"


# --- writing into the frontmatter ----------------------------------------------------------

def _reference_errors(text: str, folder: str) -> list[str]:
    skills_ref = pytest.importorskip("skills_ref")
    from skills_ref.parser import parse_frontmatter
    from skills_ref.validator import validate_metadata

    assert skills_ref
    metadata, _ = parse_frontmatter(text)
    return validate_metadata(metadata, Path("/skills") / folder)


@pytest.mark.parametrize("path", SAMPLE_MDS, ids=lambda p: p.parent.name)
def test_body_steps_copied_into_the_frontmatter_validate_and_read_back(path):
    doc = parse_document(path.read_text(encoding="utf-8"))
    steps = actions(doc.body)
    text = set_studio_field(doc, "steps", steps)
    folder = path.parent.name
    assert errors(validate_text(text, folder, "strict", lints=False)) == []
    assert _reference_errors(text, folder) == []
    again = parse_document(text)
    assert [s["action"] for s in studio_fields(again.data)["steps"]] == steps
    assert again.body == doc.body and isinstance(again.data["metadata"]["steps"], str)


def test_frontmatter_steps_keep_their_place_and_shape():
    multi = ["Read it:\n```bash\ncat x\n```", "Then\nwrap"]
    top = parse_document("---\nname: x\ndescription: d\nsteps:\n  - old\n---\nbody\n")
    text = set_studio_field(top, "steps", multi)
    assert isinstance(parse_document(text).data["steps"], list)
    assert [s["action"] for s in studio_fields(parse_document(text).data)["steps"]] == multi
    meta = parse_document(set_studio_field(parse_document("---\nname: x\ndescription: d\n---\nb\n"), "steps", multi))
    assert [s["action"] for s in studio_fields(meta.data)["steps"]] == multi
    cleared = set_studio_field(meta, "steps", [])
    assert cleared == "---\nname: x\ndescription: d\n---\nb\n"


def test_a_one_line_text_value_is_one_step():
    assert studio_fields({"metadata": {"steps": "Just do it"}})["steps"] == [{"n": 1, "action": "Just do it"}]


# --- merging and restoring -----------------------------------------------------------------

def _pair(store, target_body: str, source_body: str, target_meta: dict | None = None) -> None:
    store.add(make("target", "Writes notes. Use when releasing.", target_body, meta=target_meta))
    store.add(make("source", "Drafts posts. Use when announcing.", source_body))


TARGET_BODY = "# T\n\n## Steps\n\n1. Read the changelog\n   since the last tag.\n2. Write the notes.\n"
SOURCE_BODY = ("# S\n\n## Steps\n\n1. Read the  changelog since\n   the last tag!\n2. Post it:\n"
               "   ```sh\n   post --now\n   ```\n\n## Tips\n\nBe brief.\n")
MERGED = ["Read the changelog\nsince the last tag.", "Write the notes.", "Post it:\n```sh\npost --now\n```"]


def test_merge_writes_the_merged_steps_into_the_body_and_restore_gets_them_back(store):
    _pair(store, TARGET_BODY, SOURCE_BODY)
    merge.merge(store, "target", "source")
    merged = store.get("target")
    assert [s["action"] for s in merged.steps] == MERGED
    assert [s["action"] for s in to_skill(parse_document(merged.skill_md)).steps] == MERGED
    assert merged.skill_md.count("Read the") == 1   # the duplicate step is not appended again
    assert "Be brief." in merged.skill_md and "## Merged from source" in merged.skill_md
    store.update("target", make("target", body="# Rewritten\n"), merged.version)
    restored = store.restore("target", merged.version, merged.version + 1)
    assert [s["action"] for s in restored.steps] == MERGED


def test_merge_into_frontmatter_steps_writes_them_there(store):
    _pair(store, "# T\n\nBody.\n", SOURCE_BODY,
          target_meta={"steps": render_steps(["Read the changelog\nsince the last tag.", "Write the notes."])})
    merge.merge(store, "target", "source")
    merged = store.get("target")
    assert [s["action"] for s in studio_fields(parse_document(merged.skill_md).data)["steps"]] == MERGED
    assert errors(validate_text(merged.skill_md, "target", "strict", lints=False)) == []


def test_merge_into_a_target_without_steps_keeps_the_source_steps_in_the_file(store):
    _pair(store, "# T\n\n## Instructions\n\nJust prose.\n",
          "# S\n\n## Steps\n\n1. Post it.\n2. Post it!\n3. Tell people.\n")
    merge.merge(store, "target", "source")
    merged = store.get("target")
    assert [s["action"] for s in merged.steps] == ["Post it.", "Tell people."]
    assert [s["action"] for s in to_skill(parse_document(merged.skill_md)).steps] == ["Post it.", "Tell people."]


def test_merging_two_samples_keeps_every_step_whole_in_the_saved_file(seeded_store):
    preview = merge.merge_preview(seeded_store, "security-review", "code-review-checklist")
    from_text = [s["action"] for s in to_skill(parse_document(preview.merged.skill_md)).steps]
    assert from_text == [s["action"] for s in preview.merged.steps]
    assert any("```bash" in s for s in from_text) and len(from_text) == 14


def test_compose_helper_round_trip():
    text = compose({"name": "x", "description": "d"}, WRAPPED)
    assert len(to_skill(parse_document(text)).steps) == 4
