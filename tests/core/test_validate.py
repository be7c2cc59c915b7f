"""Tests for skill validation: strict (against the reference validator), lenient, claude-upload, lints."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skill_studio.core.format.validate import (
    PROFILES,
    Diagnostic,
    Severity,
    errors,
    is_valid,
    validate_dir,
    validate_text,
)

skills_ref = pytest.importorskip("skills_ref")
from skills_ref.errors import ParseError  # noqa: E402
from skills_ref.parser import parse_frontmatter  # noqa: E402
from skills_ref.validator import validate as ref_validate  # noqa: E402
from skills_ref.validator import validate_metadata  # noqa: E402

INVALID_YAML = "Invalid YAML in frontmatter: "
REAL_WORLD = Path(__file__).resolve().parents[1] / "fixtures" / "real_world"
ALLOWED = "Only ['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name'] are allowed."
DESC = "Checks things. Use when the user asks for it."


def fm(*lines: str, body: str = "# Title\n\nBody text.\n") -> str:
    return "---\n" + "".join(line + "\n" for line in lines) + "---\n" + body


def comparable(messages: list[str]) -> list[str]:
    """Messages with the YAML parser's wording cut to the common prefix (for inputs read differently)."""
    return [INVALID_YAML if m.startswith(INVALID_YAML) else m for m in messages]


def write_skill(root: Path, folder: str, content: str | bytes | None, filename: str = "SKILL.md") -> Path:
    skill = root / folder
    skill.mkdir(parents=True)
    if content is not None:
        data = content.encode("utf-8") if isinstance(content, str) else content
        (skill / filename).write_bytes(data)
    return skill


# --- the differential corpus ------------------------------------------------------
#
# (id, folder name, SKILL.md content; bytes are written as they are, str as UTF-8)

LONG_65 = "a" * 65
LONG_64 = "b" * 64

CORPUS: list[tuple[str, str, str | bytes | None]] = [
    ("valid-minimal", "pdf-tools", fm("name: pdf-tools", f"description: {DESC}")),
    ("valid-all-fields", "report-kit", fm(
        "name: report-kit", f"description: {DESC}", "license: Apache-2.0",
        "compatibility: Needs Python 3.11 and network access", "allowed-tools: Bash(git:*) Read",
        "metadata:", "  author: someone", "  version: '1.0'")),
    ("no-frontmatter", "plain", "# Just Markdown\n\nNo frontmatter.\n"),
    ("utf8-bom", "bom-skill", b"\xef\xbb\xbf" + fm("name: bom-skill", f"description: {DESC}").encode()),
    ("blank-line-first", "blank-first", "\n" + fm("name: blank-first", f"description: {DESC}")),
    ("space-before-fence", "space-first", " " + fm("name: space-first", f"description: {DESC}")),
    ("crlf", "crlf-skill", fm("name: crlf-skill", f"description: {DESC}").replace("\n", "\r\n")),
    ("cr-only", "cr-skill", fm("name: cr-skill", f"description: {DESC}").replace("\n", "\r")),
    ("not-closed", "open-ended", "---\nname: open-ended\ndescription: d\n\n# Body\n"),
    ("only-opening-fence", "fence-only", "---"),
    ("empty-frontmatter", "empty-fm", "---\n---\nBody\n"),
    ("comment-only-frontmatter", "comment-fm", fm("# nothing here")),
    ("scalar-frontmatter", "scalar-fm", fm("just some text")),
    ("list-frontmatter", "list-fm", fm("- name: list-fm", "- description: d")),
    ("flow-list", "flow-list", fm("name: flow-list", f"description: {DESC}", "metadata:", "  tags: [a, b]")),
    ("flow-mapping", "flow-map", fm("name: flow-map", f"description: {DESC}", "requires: {mcp: [rube]}")),
    ("empty-flow-list", "empty-flow", fm("name: empty-flow", f"description: {DESC}", "allowed-tools: []")),
    ("anchor-alias", "anchored", fm("name: &n anchored", f"description: {DESC}", "license: *n")),
    ("explicit-tag", "tagged", fm("name: tagged", f"description: !!str {DESC}")),
    ("local-tag", "local-tag", fm("name: !thing local-tag", f"description: {DESC}")),
    ("duplicate-key", "dup-key", fm("name: dup-key", "description: first", "description: second")),
    ("duplicate-key-by-string", "dup-str", fm("name: dup-str", f"description: {DESC}", "metadata:",
                                              "  1: one", "  '1': uno")),
    ("unquoted-colon", "colon", fm("name: colon", "description: Use this when: you need it")),
    ("tab-indent", "tabbed", fm("name: tabbed", f"description: {DESC}", "metadata:", "\tauthor: me")),
    ("inconsistent-indentation", "indent", fm("name: indent", f"description: {DESC}", "metadata:",
                                              "  a: x", "extra:", "    b: y")),
    ("unexpected-fields", "extra-keys", fm("name: extra-keys", f"description: {DESC}", "version: 1.0",
                                           "tags:", "  - a", "author: me", "Name: Upper")),
    ("missing-name", "no-name", fm(f"description: {DESC}")),
    ("missing-description", "no-desc", fm("name: no-desc")),
    ("missing-both", "nothing", fm("license: MIT")),
    ("empty-name-value", "empty-name", fm("name:", f"description: {DESC}")),
    ("empty-quoted-name", "empty-quoted", fm('name: ""', f"description: {DESC}")),
    ("whitespace-name", "ws-name", fm("name: '   '", f"description: {DESC}")),
    ("name-is-mapping", "map-name", fm("name:", "  first: a", f"description: {DESC}")),
    ("name-is-list", "list-name", fm("name:", "  - a", f"description: {DESC}")),
    ("numeric-name", "123", fm("name: 123", f"description: {DESC}")),
    ("boolean-and-null-values", "yes", fm("name: yes", "description: null", "license: ~")),
    ("empty-description-value", "empty-desc", fm("name: empty-desc", "description:")),
    ("empty-quoted-description", "empty-qdesc", fm("name: empty-qdesc", "description: ''")),
    ("description-is-list", "list-desc", fm("name: list-desc", "description:", "  - a")),
    ("uppercase-name", "PDF-Tools", fm("name: PDF-Tools", f"description: {DESC}")),
    ("title-case-with-space", "pdf-tools", fm("name: Pdf Tools", f"description: {DESC}")),
    ("underscore-name", "capsule_crm", fm("name: capsule_crm", f"description: {DESC}")),
    ("leading-hyphen", "-lint-fix", fm("name: -lint-fix", f"description: {DESC}")),
    ("trailing-hyphen", "lint-fix-", fm("name: lint-fix-", f"description: {DESC}")),
    ("consecutive-hyphens", "pdf--merge", fm("name: pdf--merge", f"description: {DESC}")),
    ("name-too-long", LONG_65, fm(f"name: {LONG_65}", f"description: {DESC}")),
    ("name-at-limit", LONG_64, fm(f"name: {LONG_64}", f"description: {DESC}")),
    ("folder-mismatch", "slack-notify", fm("name: slack-notifier", f"description: {DESC}")),
    ("unicode-letter-name", "café-tools", fm("name: café-tools", f"description: {DESC}")),
    ("cyrillic-name", "данные", fm("name: данные", f"description: {DESC}")),
    ("cjk-name", "数据工具", fm("name: 数据工具", f"description: {DESC}")),
    ("greek-uppercase-name", "ΔΕΔΟΜΕΝΑ", fm("name: ΔΕΔΟΜΕΝΑ", f"description: {DESC}")),
    ("nfkc-ligature-name", "file-search", fm("name: ﬁle-search", f"description: {DESC}")),
    ("nfkc-fullwidth-name", "pdf", fm("name: ｐｄｆ", f"description: {DESC}")),
    ("nfkc-fullwidth-folder", "ｐｄｆ", fm("name: pdf", f"description: {DESC}")),
    ("symbol-in-name", "pdf+tools", fm("name: pdf+tools", f"description: {DESC}")),
    ("padded-name", "pdf-merge", fm("name: '  pdf-merge  '", f"description: {DESC}")),
    ("description-too-long", "long-desc", fm("name: long-desc", "description: " + "x" * 1025)),
    ("description-at-limit", "limit-desc", fm("name: limit-desc", "description: " + "x" * 1024)),
    ("description-measured-before-strip", "strip-desc",
     fm("name: strip-desc", "description: '" + "x" * 1020 + "     '")),
    ("block-literal-description", "literal", fm("name: literal", "description: |", "  Line one.",
                                                "  Use when asked.")),
    ("folded-strip-description", "folded", fm("name: folded", "description: >-", "  Folded text",
                                              "  over lines.")),
    ("compatibility-not-string", "compat-list", fm("name: compat-list", f"description: {DESC}",
                                                   "compatibility:", "  - linux")),
    ("compatibility-too-long", "compat-long", fm("name: compat-long", f"description: {DESC}",
                                                 "compatibility: " + "c" * 501)),
    ("compatibility-empty", "compat-empty", fm("name: compat-empty", f"description: {DESC}",
                                               "compatibility: ''")),
    ("metadata-nested-values", "meta-nested", fm("name: meta-nested", f"description: {DESC}", "metadata:",
                                                 "  count: 3", "  enabled: true", "  tags:", "    - x",
                                                 "    - y", "  nested:", "    deep: 1")),
    ("metadata-scalar", "meta-scalar", fm("name: meta-scalar", f"description: {DESC}", "metadata: plain")),
    ("many-errors-in-order", "Bad_Name-", fm("name: Bad_Name-", "compatibility:", "  a: b", "zeta: 1",
                                             "alpha: 2")),
    ("lowercase-skill-md", "lower-md", None),
    ("missing-skill-md", "no-file", None),
    ("no-final-newline", "no-newline", "---\nname: no-newline\ndescription: d\n---"),
    ("closing-fence-trailing-spaces", "trailing-fence", "---\nname: trailing-fence\ndescription: d\n---   \n"),
    ("opening-fence-comment", "fence-comment", "--- # a comment\nname: fence-comment\ndescription: d\n---\n"),
    ("document-end-marker", "doc-end", fm("name: doc-end", f"description: {DESC}", "...")),
    ("content-after-document-end", "after-end", fm("name: after-end", "...", f"description: {DESC}")),
    ("empty-key-line", "empty-key", fm("name: empty-key", f"description: {DESC}", ": orphan")),
    ("merge-key-top-level", "merged", fm("<<:", "  name: merged", f"description: {DESC}")),
    ("merge-key-scalar", "merge-scalar", fm("name: merge-scalar", f"description: {DESC}", "metadata:",
                                            "  <<: text")),
    ("merge-sign-as-value", "merge-value", fm("name: <<", f"description: {DESC}")),
    ("quoted-keys", "quoted-keys", fm('"name": quoted-keys', f"'description': {DESC}")),
    ("comment-after-value", "commented", fm("name: commented  # the id", f"description: {DESC}")),
    ("top-level-block-scalar", "block-root", fm("|", "name: block-root", f"description: {DESC}")),
    ("tab-after-blank-line", "tab-after-blank", fm("name: tab-after-blank", "", "\tdescription: d")),
    ("body-only-dashes", "body-dashes", fm("name: body-dashes", f"description: {DESC}",
                                          body="Intro\n\n---\n\nMore\n")),
]


def _content_for(case_id: str, content: str | bytes | None) -> tuple[str | bytes | None, str]:
    if case_id == "lowercase-skill-md":
        return fm("name: lower-md", f"description: {DESC}"), "skill.md"
    return content, "SKILL.md"


def test_corpus_is_large_enough():
    assert len(CORPUS) >= 40
    assert len({case[0] for case in CORPUS}) == len(CORPUS)


@pytest.mark.parametrize("case_id,folder,content", CORPUS, ids=[c[0] for c in CORPUS])
def test_strict_matches_reference(tmp_path, case_id, folder, content):
    content, filename = _content_for(case_id, content)
    skill = write_skill(tmp_path, folder, content, filename)
    expected = ref_validate(skill)
    diags = validate_dir(skill, "strict", lints=False)
    got = [d.message for d in diags]
    assert is_valid(diags) == (expected == [])
    assert all(d.severity is Severity.ERROR for d in diags)
    assert got == expected


def test_strict_invalid_yaml_names_the_problem_and_place(tmp_path):
    skill = write_skill(tmp_path, "flow-map", fm("name: flow-map", f"description: {DESC}",
                                                 "requires: {mcp: [rube]}"))
    [d] = validate_dir(skill, "strict", lints=False)
    assert d.code == "S003" and d.line == 4
    assert d.message.startswith(INVALID_YAML)
    assert "flow" in d.message and "line 4, column 11" in d.message


@pytest.mark.parametrize("text,line,words", [
    (fm("name: a", "description: &x d"), 3, ["anchor"]),
    (fm("name: a", "description: !!str d"), 3, ["tag"]),
    (fm("name: a", "description: d", "description: e"), 4, ["'description'"]),
    (fm("name: a", "metadata:", "  a: [1]"), 4, ["flow-style list"]),
    (fm("name: a", "metadata:", "  x:", "    p: 1", "  y:", "      q: 2"), 7, ["indent"]),
])
def test_strict_dialect_errors_are_the_references_with_the_studios_hint(text, line, words):
    [d] = validate_text(text, "a", "strict", lints=False)
    assert d.code == "S003" and d.line == line
    assert [d.message] == _ref_in_memory(text, "a")
    assert d.hint is not None
    for w in words:
        assert w in d.hint


# --- the reference's split-on-'---' quirk: we follow the format -----------------------

QUIRKS = [
    # A '---' inside a quoted value: the reference's YAML stops inside the string.
    ("dashes-in-quoted-value", "typo",
     fm("name: typo", 'description: "Turns -- and --- into dashes. Use when editing prose."'), []),
    # A '---' inside a plain value: the reference silently drops everything after it.
    ("dashes-in-plain-value", "cut",
     fm("name: cut", "description: Splits on --- markers; use when asked", "compatibility: " + "c" * 600),
     ["Compatibility exceeds 500 character limit (600 chars)"]),
    # No closing fence line, only a '---' inside the body text.
    ("no-closing-line-dashes-in-body", "unclosed",
     "---\nname: unclosed\ndescription: d\n\nSome text --- more text\n",
     ["SKILL.md frontmatter not properly closed with ---"]),
    # A line that starts with '---' but is not a fence does not close the frontmatter.
    ("dashes-with-text-is-not-a-fence", "not-fence",
     "---\nname: not-fence\ndescription: d\n--- not a fence\n",
     ["SKILL.md frontmatter not properly closed with ---"]),
    # An indented '---' inside a block scalar is content, not a fence; the
    # reference never sees the field after it.
    ("indented-dashes-in-block-scalar", "steps",
     fm("name: steps", "description: |", "  Step one", "  ---", "  Step two. Use when asked.",
        "compatibility:", "  - linux"),
     ["Field 'compatibility' must be a string"]),
]


@pytest.mark.parametrize("case_id,folder,content,ours", QUIRKS, ids=[q[0] for q in QUIRKS])
def test_strict_follows_the_format_where_the_reference_splits_on_any_dashes(
        tmp_path, case_id, folder, content, ours):
    skill = write_skill(tmp_path, folder, content)
    got = [d.message for d in validate_dir(skill, "strict", lints=False)]
    assert got == ours
    # The reference reads these differently (that is the quirk).
    assert comparable(ref_validate(skill)) != comparable(got)


def test_invalid_utf8_is_an_error_where_the_reference_crashes(tmp_path):
    skill = write_skill(tmp_path, "latin", b"---\nname: latin\ndescription: caf\xe9\n---\n")
    with pytest.raises(UnicodeDecodeError):
        ref_validate(skill)
    [d] = validate_dir(skill, "strict")
    assert d.code == "S006" and d.severity is Severity.ERROR and d.line == 3
    assert "UTF-8" in d.message


def test_missing_paths(tmp_path):
    assert [d.message for d in validate_dir(tmp_path / "nope")] == ref_validate(tmp_path / "nope")
    f = tmp_path / "file.txt"
    f.write_text("x")
    assert [d.message for d in validate_dir(f)] == ref_validate(f)
    empty = tmp_path / "empty"
    empty.mkdir()
    for profile in PROFILES:
        assert [d.message for d in validate_dir(empty, profile)] == ["Missing required file: SKILL.md"]


# --- a property: our strict reader agrees with the reference on random frontmatter -----

def _ref_in_memory(text: str, folder: str) -> list[str]:
    content = text.replace("\r\n", "\n").replace("\r", "\n")
    try:
        metadata, _ = parse_frontmatter(content)
    except ParseError as e:
        return [str(e)]
    return validate_metadata(metadata, Path("/skills") / folder)


_KEYS = ["name", "description", "compatibility", "metadata", "license", "extra", "'name'", "1", "<<"]
_VALUES = ["", " demo", " Demo Skill", " 123", " yes", " null", " ~", " ''", ' "q: x"', " a: b", " [a]",
           " {a: 1}", " &a x", " *a", " !!str x", " |", " >-", " -", " - x", " café", " ｄｅｍｏ", " x # c",
           " demo--x", " -demo", " " + "n" * 70, " " + "d" * 1030]
_EXTRA = ["  a: 1", "    b: 2", "  - x", "   c: 3", "\tx", "  text", "# comment", "", "...", ": x", "  <<:",
          "    k: v", "  dup: 1", "  dup: 2", "  'quoted", '  "line"']
_line = st.one_of(st.builds(lambda k, v: k + ":" + v, st.sampled_from(_KEYS), st.sampled_from(_VALUES)),
                  st.sampled_from(_EXTRA))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(_line, max_size=7), folder=st.sampled_from(["demo", "Demo", "ｄｅｍｏ", "x"]),
       newline=st.sampled_from(["\n", "\r\n"]))
def test_strict_agrees_with_reference_on_generated_frontmatter(lines, folder, newline):
    text = newline.join(["---", *lines, "---", "Body"]) + newline
    if "---" in newline.join(lines):  # the split quirk, covered above
        return
    try:
        expected = _ref_in_memory(text, folder)
    except Exception:  # noqa: BLE001 - the reference itself crashes on a few inputs
        return
    got = [d.message for d in validate_text(text, folder, "strict", lints=False)]
    assert got == expected, text


# --- real-world fixtures ---------------------------------------------------------------

def _fixture_skills() -> list[Path]:
    if not REAL_WORLD.is_dir():
        return []
    found = {p.parent for name in ("SKILL.md", "skill.md") for p in REAL_WORLD.rglob(name)}
    return sorted(found)


def _reference_splits_differently(skill_md: Path) -> bool:
    """True when the reference's split on the first '---' differs from the fence line."""
    text = skill_md.read_bytes().decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    if not text.startswith("---"):
        return False
    parts = text.split("---", 2)
    lines = text.split("\n")
    pos = len(lines[0]) + 1
    ours = None
    for line in lines[1:]:
        if line.rstrip(" \t") == "---":
            ours = text[3:pos]
            break
        pos += len(line) + 1
    return (parts[1] if len(parts) == 3 else None) != ours


@pytest.mark.skipif(not _fixture_skills(), reason="no real-world fixtures")
@pytest.mark.parametrize("skill", _fixture_skills(), ids=lambda p: str(p.relative_to(REAL_WORLD)))
def test_real_world_fixture_strict_verdict_matches_reference(skill):
    skill_md = skill / "SKILL.md" if (skill / "SKILL.md").is_file() else skill / "skill.md"
    diags = validate_dir(skill, "strict", lints=False)
    try:
        skill_md.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        with pytest.raises(UnicodeDecodeError):
            ref_validate(skill)
        assert not is_valid(diags)
        return
    if _reference_splits_differently(skill_md):
        pytest.skip("the reference cuts this frontmatter at a '---' inside it")
    expected = ref_validate(skill)
    assert is_valid(diags) == (expected == [])
    assert [d.message for d in diags] == expected


# --- lenient -------------------------------------------------------------------------------

def codes(diags: list[Diagnostic]) -> list[str]:
    return [d.code for d in diags]


def by_code(diags: list[Diagnostic], code: str) -> Diagnostic:
    [d] = [d for d in diags if d.code == code]
    return d


def test_lenient_title_case_name_is_a_warning():
    diags = validate_text(fm("name: PDF Tools", f"description: {DESC}"), "pdf-tools", "lenient")
    assert is_valid(diags)
    d = by_code(diags, "L013")
    assert d.severity is Severity.WARNING and d.line == 2
    assert "uppercase" in d.message and "spaces" in d.message
    assert d.hint == "name: pdf-tools"
    assert by_code(diags, "L014").severity is Severity.WARNING


def test_lenient_underscore_name_is_a_warning():
    diags = validate_text(fm("name: capsule_crm", f"description: {DESC}"), "capsule_crm", "lenient")
    assert is_valid(diags)
    assert "underscores" in by_code(diags, "L013").message
    assert "L014" not in codes(diags)


def test_lenient_folder_mismatch_is_a_warning():
    diags = validate_text(fm("name: slack-notifier", f"description: {DESC}"), "slack-notify", "lenient")
    assert is_valid(diags)
    d = by_code(diags, "L014")
    assert "slack-notifier" in d.message and "slack-notify" in d.message and d.line == 2


def test_lenient_long_name_is_a_warning():
    diags = validate_text(fm(f"name: {LONG_65}", f"description: {DESC}"), LONG_65, "lenient")
    assert is_valid(diags)
    assert by_code(diags, "L012").severity is Severity.WARNING


def test_lenient_missing_name_uses_the_folder():
    diags = validate_text(fm(f"description: {DESC}"), "http-debug", "lenient")
    assert is_valid(diags)
    d = by_code(diags, "L010")
    assert d.severity is Severity.WARNING and "'http-debug'" in d.message


def test_lenient_unknown_keys_are_one_info():
    text = fm("name: jira-triage", f"description: {DESC}", "version: 1.2", "author: me",
              "requires: {mcp: [rube]}", "tags: [a, b]")
    diags = validate_text(text, "jira-triage", "lenient")
    assert is_valid(diags)
    d = by_code(diags, "L020")
    assert d.severity is Severity.INFO and d.line == 4
    for key in ("version", "author", "requires", "tags"):
        assert key in d.message


def test_lenient_unquoted_colon_is_an_error_with_line_and_hint():
    text = fm("name: api-pagination", "description: Use this when: you need every page")
    [d] = validate_text(text, "api-pagination", "lenient", path="skills/api-pagination/SKILL.md")
    assert d.code == "L003" and d.severity is Severity.ERROR and d.line == 3
    assert d.message.startswith("skills/api-pagination/SKILL.md:3:")
    assert d.hint is not None and "quote" in d.hint
    assert 'description: "Use this when: you need every page"' in d.hint


def test_lenient_missing_description_is_an_error():
    diags = validate_text(fm("name: dependency-audit"), "dependency-audit", "lenient", path="x/SKILL.md")
    [d] = errors(diags)
    assert d.code == "L006" and "x/SKILL.md" in d.message and d.line == 1


@pytest.mark.parametrize("value", ["description:", "description: ''", "description: '   '"])
def test_lenient_empty_description_is_an_error(value):
    diags = validate_text(fm("name: log-search", value), "log-search", "lenient")
    [d] = errors(diags)
    assert d.code == "L007" and d.line == 3


def test_lenient_description_list_is_an_error():
    [d] = errors(validate_text(fm("name: a", "description:", "  - x"), "a", "lenient"))
    assert d.code == "L007"


@pytest.mark.parametrize("content,code,line", [
    ("# no frontmatter\n", "L001", 1),
    ("---\nname: a\ndescription: d\n", "L002", 1),
    ("---\n- a\n- b\n---\n", "L004", 2),
    (b"---\nname: a\ndescription: caf\xe9\n---\n", "L005", 3),
])
def test_lenient_refuses_unreadable_frontmatter(content, code, line):
    [d] = errors(validate_text(content, "a", "lenient"))
    assert (d.code, d.line) == (code, line)


def test_lenient_loads_what_strict_refuses():
    text = "\ufeff\n" + fm("name: Demo_Skill", "description: !!str Does things. Use when asked.",
                           "license: &l MIT", "tags: [a, b]", "metadata:", "  count: 3")
    assert is_valid(validate_text(text, "demo-skill", "lenient"))
    assert not is_valid(validate_text(text, "demo-skill", "strict"))


def test_lenient_warns_about_text_before_the_frontmatter_and_duplicates():
    diags = validate_text("\n" + fm("name: a", "description: one", "description: two"), "a", "lenient")
    assert is_valid(diags)
    assert by_code(diags, "L008").line == 1
    assert by_code(diags, "L009").line == 5


def test_lenient_notes_normalised_names():
    diags = validate_text(fm("name: ﬁle-search", f"description: {DESC}"), "file-search", "lenient")
    assert codes([d for d in diags if d.severity is not Severity.INFO]) == []
    assert "file-search" in by_code(diags, "L019").message


# --- claude-upload -----------------------------------------------------------------------

def test_claude_upload_refuses_reserved_words_after_strict_errors():
    text = fm("name: claude-helper", f"description: {DESC}", "extra: 1")
    strict = validate_text(text, "claude-helper", "strict", lints=False)
    upload = validate_text(text, "claude-helper", "claude-upload", lints=False)
    assert codes(strict) == ["S010"]
    assert codes(upload) == ["S010", "C001"]
    assert upload[1].line == 2 and "claude" in upload[1].message


def test_claude_upload_reserved_word_anthropic():
    text = fm("name: anthropic-tools", f"description: {DESC}")
    assert is_valid(validate_text(text, "anthropic-tools", "strict"))
    assert codes(errors(validate_text(text, "anthropic-tools", "claude-upload"))) == ["C001"]


def test_claude_upload_refuses_xml_tags():
    text = fm("name: html-email", "description: Builds <table> layouts & more. Use when asked.")
    assert is_valid(validate_text(text, "html-email", "strict"))
    [d] = errors(validate_text(text, "html-email", "claude-upload"))
    assert d.code == "C003" and d.line == 3 and "<table>" in d.message
    name_tag = fm("name: <b>x</b>", f"description: {DESC}")
    assert codes(errors(validate_text(name_tag, "x", "claude-upload")))[-1] == "C002"


def test_claude_upload_accepts_comparisons_that_are_not_tags():
    text = fm("name: math-help", "description: Checks that a < b and c > d. Use when asked.")
    assert is_valid(validate_text(text, "math-help", "claude-upload"))


# --- studio lints --------------------------------------------------------------------------

def test_lint_long_body():
    short = fm("name: a", f"description: {DESC}", body="line\n" * 500)
    long = fm("name: a", f"description: {DESC}", body="line\n" * 501)
    assert "W001" not in codes(validate_text(short, "a"))
    d = by_code(validate_text(long, "a"), "W001")
    assert d.severity is Severity.WARNING and d.line == 5
    assert is_valid(validate_text(long, "a"))


LINK_BODY = """# Guide

See [the guide](reference/guide.md) and [setup](reference/setup.md#install).
![diagram](assets/missing.png) and [site](https://example.com/scripts/x.py), [mail](mailto:a@b.c),
[top](#guide), [up](../other/SKILL.md), [dir](scripts/).
Run `python scripts/run.py` then scripts/missing.sh, or {baseDir}/scripts/run.py.

```
[not a link](nowhere.md)
```
"""


def test_lint_broken_links_and_script_paths():
    text = fm("name: a", f"description: {DESC}", body=LINK_BODY)
    files = ["SKILL.md", "reference/setup.md", "scripts/run.py"]
    diags = validate_text(text, "a", "strict", files=files)
    assert is_valid(diags)
    broken = [d for d in diags if d.code == "W002"]
    assert [d.message.split("'")[1] for d in broken] == [
        "reference/guide.md", "assets/missing.png", "scripts/missing.sh"]
    assert [d.line for d in broken] == [7, 8, 10]
    assert all(d.severity is Severity.WARNING for d in broken)
    # Without the file list there is nothing to check against.
    assert "W002" not in codes(validate_text(text, "a", "strict"))


def test_lint_links_found_by_validate_dir(tmp_path):
    skill = write_skill(tmp_path, "linked", fm("name: linked", f"description: {DESC}",
                                               body="[ok](references/a.md) [bad](references/b.md)\n"))
    (skill / "references").mkdir()
    (skill / "references" / "a.md").write_text("x")
    broken = [d for d in validate_dir(skill) if d.code == "W002"]
    assert [d.message.split("'")[1] for d in broken] == ["references/b.md"]


@pytest.mark.parametrize("description,flagged", [
    ("Extracts tables from PDF files.", True),
    ("Extracts tables from PDF files. Use when the user uploads a PDF.", False),
    ("Use this skill to review SQL migrations.", False),
    ("Helps with invoices for small businesses.", False),
    ("Run when a deploy fails", False),
    ("PDF から表を抽出します。", False),
])
def test_lint_description_says_when(description, flagged):
    diags = validate_text(fm("name: a", f"description: {description}"), "a")
    assert ("W003" in codes(diags)) == flagged
    if flagged:
        assert by_code(diags, "W003").severity is Severity.INFO


def test_lint_near_duplicate_names():
    text = fm("name: capsule-crm", f"description: {DESC}")
    diags = validate_text(text, "capsule-crm", library_names=["capsule-crm", "Capsule_CRM", "crm"])
    d = by_code(diags, "W004")
    assert "Capsule_CRM" in d.message and d.severity is Severity.WARNING and d.line == 2
    assert "W004" not in codes(validate_text(text, "capsule-crm", library_names=["capsule-crm", "crm"]))
    assert "W004" not in codes(validate_text(text, "capsule-crm"))


def test_lint_studio_fields_naming_unknown_skills():
    text = fm("name: deploy", f"description: {DESC}", "metadata:", '  depends-on: "build test-suite"',
              "  conflicts-with: legacy-deploy", "  parent: release")
    library = ["deploy", "build", "Test_Suite"]
    diags = validate_text(text, "deploy", library_names=library)
    assert is_valid(diags)
    dep = by_code(diags, "W005")
    assert "test-suite" in dep.message and dep.line == 5 and dep.hint == "did you mean 'Test_Suite'?"
    assert by_code(diags, "W006").severity is Severity.INFO
    assert "release" in by_code(diags, "W007").message
    assert not {"W005", "W006", "W007"} & set(codes(validate_text(text, "deploy")))


def test_lint_top_level_studio_fields():
    text = fm("name: a", f"description: {DESC}", "depends_on:", "  - b", "  - c")
    diags = validate_text(text, "a", "lenient", library_names=["a", "b"])
    d = by_code(diags, "W005")
    assert "'c'" in d.message and d.line == 4


def test_lints_never_change_the_strict_verdict():
    text = fm("name: claude-x", "description: Does PDF stuff.", "metadata:", "  depends-on: nothing-here",
              body="[gone](gone.md)\n" + "x\n" * 600)
    diags = validate_text(text, "claude-x", "strict", files=["SKILL.md"], library_names=["Claude_X"])
    assert is_valid(diags)
    assert {"W001", "W002", "W003", "W004", "W005"} <= set(codes(diags))
    assert all(d.severity is not Severity.ERROR for d in diags)
    assert validate_text(text, "claude-x", "strict", lints=False) == []


def test_lints_run_on_the_body_even_when_the_yaml_is_invalid():
    text = fm("name: a", "description: bad: colon", body="x\n" * 501)
    diags = validate_text(text, "a", "strict")
    assert codes(diags) == ["S003", "W001"]


# --- line numbers ---------------------------------------------------------------------------

def test_line_numbers_point_at_keys():
    text = fm("license: MIT", "name: Bad_Name", "version: 2", "description: ''", "compatibility:", "  - x")
    diags = validate_text(text, "other", "strict", lints=False)
    lines = {d.code: d.line for d in diags}
    assert lines == {"S010": 4, "S015": 3, "S018": 3, "S019": 3, "S020": 5, "S022": 6}


def test_line_numbers_with_crlf_and_yaml_errors():
    text = fm("name: a", "description: d", "metadata:", "  x: 1", "  x: 2").replace("\n", "\r\n")
    [d] = validate_text(text.encode(), "a", "strict", lints=False)
    assert d.code == "S003" and d.line == 6 and "line 6" in d.message


def test_line_of_yaml_error_on_the_opening_line():
    # As the reference counts: columns of the opening line from just after its '---'.
    [d] = validate_text("--- [a]\nname: a\n---\n", "a", "strict", lints=False)
    assert d.code == "S003" and d.line == 1 and "line 1, column 2:" in d.message


# --- the API ----------------------------------------------------------------------------------

def test_api_basics():
    assert PROFILES == ("strict", "lenient", "claude-upload")
    assert Severity.ERROR == "error" and Severity("warning") is Severity.WARNING
    d = Diagnostic("S001", Severity.ERROR, "m")
    assert d.line is None and d.hint is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.code = "x"  # type: ignore[misc]
    assert errors([d, Diagnostic("W001", Severity.WARNING, "w")]) == [d]
    assert is_valid([Diagnostic("W001", Severity.WARNING, "w")]) and not is_valid([d])
    with pytest.raises(ValueError):
        validate_text("---\n---\n", "a", "nope")


def test_text_and_bytes_agree():
    text = fm("name: café", f"description: {DESC}")
    assert validate_text(text, "café") == validate_text(text.encode("utf-8"), "café")


def test_validate_without_folder_skips_the_folder_check():
    text = fm("name: anything", f"description: {DESC}")
    assert validate_text(text, None, lints=False) == []


@pytest.mark.skipif(os.name == "nt", reason="POSIX file names")
def test_validate_dir_uses_the_resolved_folder_name(tmp_path, monkeypatch):
    skill = write_skill(tmp_path, "here", fm("name: here", f"description: {DESC}"))
    monkeypatch.chdir(skill)
    assert validate_dir(".", lints=False) == []
