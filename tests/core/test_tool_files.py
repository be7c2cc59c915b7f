"""tools.yaml and sources.yaml beside SKILL.md: read safely, checked, each problem with its file and line."""

from __future__ import annotations

import os
import textwrap

import pytest
from conftest import SAMPLES

from skill_studio.cli import main
from skill_studio.core.format.diagnostics import Severity, is_valid
from skill_studio.core.format.tool_files import (
    MAX_PROBLEMS,
    MAX_TOOL_FILE_BYTES,
    check_sources,
    check_tool_file,
    check_tools,
    tool_name_problem,
)
from skill_studio.core.format.validate import validate_dir, validate_text

GOOD_DESC = "Search the issues of a repository. Use when the user asks about bugs; do not use for pull requests."


def yaml_text(s: str) -> str:
    return textwrap.dedent(s).lstrip("\n")


def found(problems) -> list[tuple[int | None, str]]:
    return [(p.line, p.code) for p in problems]


def one_tool(**fields) -> str:
    """A tools.yaml of one tool whose lines are: 1 tools:, 2 name, 3 description, 4 command?, ..."""
    lines = ["tools:", f"  - name: {fields.pop('name', 'search_issues')}",
             f"    description: {fields.pop('description', GOOD_DESC)}"]
    for key, value in fields.items():
        lines.append(f"    {key}:" + ("" if value.startswith("\n") else " ") + value)
    return "\n".join(lines) + "\n"


# --- the sample and well-formed files ---------------------------------------------------------

def test_the_sample_tools_file_passes():
    # Its tools are named after the programs they run (given as 'command'): no name problem; each
    # description says what the tool does, when to use it and when not to.
    assert check_tools((SAMPLES / "pdf-extract" / "tools.yaml").read_bytes()) == []


def test_a_description_that_does_not_say_when_is_named_at_its_line():
    problems = check_tools(b"tools:\n  - name: pdfinfo\n    command: pdfinfo\n"
                           b"    description: Print document metadata.\n")
    assert found(problems) == [(4, "W012")]
    assert problems[0].message == ("tool 'pdfinfo': the description says what the tool does but not when to "
                                   "use it or when not to")
    assert all(p.severity is Severity.WARNING and p.hint for p in problems)


@pytest.mark.parametrize("text", [
    "", "# nothing yet\n", "tools: []\n", "tools:\n",
    one_tool(),
    yaml_text("""
        - name: github.search_issues
          description: "GOOD"
          input_schema:
            type: object
            properties:
              query: {type: string, description: Search words, default: "is:open"}
              limit: {type: integer, minimum: 1, default: 20}
            required: [query]
        """).replace("GOOD", GOOD_DESC),
])
def test_well_formed_tools_files_have_no_problems(text):
    assert check_tools(text) == []
    assert check_tools(text.encode()) == []


# --- names ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["search_issues", "get_v2_report", "github.search_issues",
                                  "github__search_issues", "acme.crm.list_contacts", "a" * 64])
def test_names_that_keep_the_rules(name):
    assert tool_name_problem(name) is None


@pytest.mark.parametrize("name, why", [
    ("SearchIssues", "capital letters"),
    ("search-issues", "'-'"),
    ("search issues", "blanks"),
    ("2fa_check", "does not start with a letter"),
    ("github..search", "empty namespace"),
    ("github.", "empty namespace"),
    ("search_", "stray '_'"),
    ("search___issues", "stray '_'"),
    ("_search", "stray '_'"),
    ("search$", "characters other than"),
    ("a" * 65, "over the 64"),
    ("  ", "is empty"),
])
def test_names_that_break_the_rules_say_why(name, why):
    assert why in (tool_name_problem(name) or "")
    [p] = [p for p in check_tools(one_tool(name=repr(name))) if p.code != "W011"]
    assert (p.line, p.code) == (2, "W010") and why in p.message


@pytest.mark.parametrize("name, command, noted", [
    ("weather_report", None, True),
    ("acme.weather", None, True),
    ("get_weather", None, False),
    ("acme__fetch_forecast", None, False),
    ("pdfinfo", "pdfinfo", False),
    ("pdfinfo", "/usr/bin/pdfinfo -box", False),
    ("pdfinfo", "qpdf", True),
])
def test_a_name_starts_with_a_verb_unless_it_is_the_command_it_runs(name, command, noted):
    text = one_tool(name=name, **({"command": command} if command else {}))
    problems = [p for p in check_tools(text) if p.code == "W011"]
    assert bool(problems) is noted
    assert all(p.severity is Severity.INFO and p.line == 2 for p in problems)


# --- descriptions ---------------------------------------------------------------------------

@pytest.mark.parametrize("description, missing", [
    ("Search the issues.", "when to use it or when not to"),
    ("Search the issues. Use when the user asks about bugs.", "when not to"),
    ("Search the issues. Never for pull requests.", "when to use it"),
    (GOOD_DESC, None),
    ("Look up a contact; call it before writing an email, but not for bulk exports.", None),
])
def test_descriptions_say_what_when_and_when_not(description, missing):
    problems = [p for p in check_tools(one_tool(description=repr(description))) if p.code == "W012"]
    if missing is None:
        assert problems == []
    else:
        [p] = problems
        assert p.line == 3 and p.message.endswith(f"but not {missing}") and "Use when" in (p.hint or "")


@pytest.mark.parametrize("value", ["''", "null", "[a, b]", "42"])
def test_a_missing_or_empty_description_is_a_warning(value):
    [p] = check_tools(one_tool(description=value))
    assert (p.line, p.code, p.message) == (3, "W012", "tool 'search_issues' has no description")


# --- parameters --------------------------------------------------------------------------------

PARAM_LIST = """
      - name: repo
        type: string
        description: owner/name
      - name: limit
        type: int
        description: How many
      - name: page
        type: integer
        default: first
        description: Page number
      - name: draft
        type: boolean
        required: maybe
        description: Include drafts
      - name: path
        type: path
      - name: repo
        type: string
        description: again
      - type: string"""


def test_parameter_entries_are_checked_each_at_its_line():
    problems = check_tools(one_tool(parameters=PARAM_LIST))
    assert [(p.line, p.code) for p in problems] == [
        (9, "W013"), (13, "W013"), (17, "W013"), (19, "W012"), (21, "W013"), (24, "W013")]
    messages = [p.message.removeprefix("tool 'search_issues': ") for p in problems]
    assert messages[0].startswith("parameter 'limit' has the type 'int', which is not one of array, boolean")
    assert messages[1] == "parameter 'page': the default 'first' is not of type 'integer'"
    assert messages[2] == "parameter 'draft': required must be true or false"
    assert messages[3] == "parameter 'path' has no description"
    assert messages[4] == "parameter 'repo' is given twice"
    assert messages[5] == "parameter 7 has no name"


@pytest.mark.parametrize("schema, line, words", [
    ("\n      type: object\n      properties:\n        q: {type: strin}", 7, "'strin' is not a JSON Schema type"),
    ("\n      type: object\n      properties:\n        q: {type: string, minLength: -1}", 7,
     "parameters.properties.q.minLength: -1 is less than the minimum of 0"),
    ("\n      type: object\n      properties:\n        q: {type: string, pattern: '(unclosed'}", 7,
     "'(unclosed' is not a valid regular expression"),
    ("\n      type: object\n      properties:\n        q: {type: string}\n      required: [q, z]", 8,
     "'z' is required but not among the properties"),
    ("\n      type: object\n      required: q", 6, "parameters.required: 'q' is not of type 'array'"),
    ("\n      type: array\n      items: {type: string}", 5, "must describe an object"),
    ("\n      properties:\n        q: {type: integer, default: many}", 6,
     "parameter 'q': the default 'many' is not of type 'integer'"),
    ("\n      type: object\n      properties:\n        q: {type: string, default: 3}", 7,
     "the default 3 is not of type 'string'"),
    ("yes", 4, "must be a list of parameters or a JSON Schema object"),
])
@pytest.mark.parametrize("key", ["parameters", "input_schema", "inputSchema"])
def test_a_parameters_schema_is_checked_against_the_meta_schema(key, schema, line, words):
    problems = [p for p in check_tools(one_tool(**{key: schema})) if p.code == "W013"]
    assert any(p.line == line and words in p.message for p in problems), found(problems)


def test_a_schema_of_another_draft_is_checked_against_that_draft():
    draft7 = ("\n      $schema: 'http://json-schema.org/draft-07/schema#'\n      type: object\n"
              "      properties:\n        pair: {type: array, items: [{type: string}, {type: integer}]}")
    assert check_tools(one_tool(parameters=draft7)) == []


def test_a_default_under_a_remote_reference_is_not_fetched():
    schema = ("\n      type: object\n      properties:\n"
              "        q: {$ref: 'https://example.invalid/schema.json', default: 3}")
    assert check_tools(one_tool(parameters=schema)) == []


def test_parameters_given_twice_are_flagged():
    text = one_tool(parameters="[]", input_schema="{type: object}")
    [p] = check_tools(text)
    assert (p.line, p.code) == (5, "W009") and "gives its parameters twice" in p.message


# --- shape, duplicates, unknown keys -------------------------------------------------------------

def test_shape_problems_name_the_tool_and_line():
    text = yaml_text(f"""
        tools:
          - name: search_issues
            description: {GOOD_DESC}
            paramters: []
          - just a string
          - description: {GOOD_DESC}
          - name: search_issues
            description: {GOOD_DESC}
            name: search_issues
        """)
    problems = check_tools(text)
    assert found(problems) == [(4, "W015"), (5, "W009"), (6, "W009"), (9, "W009"), (9, "W009")]
    assert "paramters" in problems[0].message and problems[0].severity is Severity.INFO
    assert problems[1].message == "tool 2 is not a mapping"
    assert problems[2].message == "tool 3 has no name"
    # (the last of two keys is the one read, so the name is at the second one's line)
    assert problems[3].message == "the key 'name' is given twice in one mapping (the last one wins)"
    assert problems[4].message == "tool 'search_issues' is defined twice (first at line 2)"


@pytest.mark.parametrize("text", ["42\n", "tools: 42\n", "tools: {name: x}\n", "just words\n"])
def test_a_file_that_is_not_a_list_of_tools(text):
    [p] = check_tools(text)
    assert (p.line, p.code) == (1, "W009") and "must hold a list of tools" in p.message


def test_problems_are_capped():
    text = "tools:\n" + "  - 1\n" * (MAX_PROBLEMS + 30)
    problems = check_tools(text)
    assert len(problems) == MAX_PROBLEMS + 1
    assert problems[-1].message.startswith("30 more problems")


# --- unreadable files: a warning with the line, never a crash ----------------------------------------

@pytest.mark.parametrize("data, line, words", [
    ("tools:\n  - name: a\n    description: [unclosed\n", 3, "is not valid YAML"),
    ("tools:\n  - name: a\n   description: b\n", 3, "is not valid YAML"),
    ("tools: *nowhere\n", 1, "is not valid YAML: found undefined alias"),
    ("tools:\n  - !!python/object/apply:os.system [ls]\n", 2, "could not determine a constructor"),
    ("tools: []\n---\ntools: []\n", 2, "is not valid YAML"),
    (b"tools:\n  - name: caf\xe9\n", 2, "is not UTF-8 text (byte 0xe9)"),
    ("tools:\n  - name: a\x01b\n", 2, "a character YAML does not allow (U+0001)"),
    ("a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n" + "".join(
        f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
        for p, c in zip("abcdefgh", "bcdefghi", strict=True)), None, "aliases expand to more than"),
    ("x: " + "[" * 150 + "]" * 150 + "\n", 1, "nested more than 100 levels"),
    ("tools: [" * 2 + "\n", 1, "is not valid YAML"),
])
@pytest.mark.parametrize("file", ["tools.yaml", "sources.yaml"])
def test_unreadable_yaml_gives_one_warning_with_its_line(file, data, line, words):
    [p] = check_tool_file(file, data)
    assert p.code == "W008" and p.severity is Severity.WARNING and p.file == file and words in p.message
    assert line is None or p.line == line


def test_a_file_over_the_size_checked_is_not_parsed():
    [p] = check_tools("#" * (MAX_TOOL_FILE_BYTES + 1))
    assert (p.line, p.code) == (None, "W008") and "over the 1,024 KiB" in p.message


def test_a_byte_order_mark_is_allowed():
    assert check_tools(b"\xef\xbb\xbf" + one_tool().encode()) == []


def test_other_files_are_not_checked():
    assert check_tool_file("scripts/tools.yaml", b"[unclosed") == []
    assert check_tool_file("notes.yaml", b"[unclosed") == []


# --- sources.yaml -------------------------------------------------------------------------------------

def test_well_formed_sources_have_no_problems():
    text = yaml_text("""
        sources:
          - https://poppler.freedesktop.org/
          - url: https://www.rfc-editor.org/rfc/rfc3986
            title: URI generic syntax
            kind: standard
            license: public
            retrieved: 2025-01-20
          - url: git://example.org/repo.git
            retrieved: "2024-11-02"
            note: the parser we learned from
        """)
    assert check_sources(text) == []
    assert check_sources("- urn:isbn:0451450523\n- mailto:team@example.org\n") == []


@pytest.mark.parametrize("url, why", [
    ("example.org/guide", "has no scheme"),
    ("https://", "has no host"),
    ("https:///path", "has no host"),
    ("https://[::1/x", "does not parse"),
    ("https://example.org:99999/", "does not parse"),
    ("https://example.org/a b", "has blanks"),
    ("' https://example.org/'", "has blanks"),
    ("42", "must be text"),
    ("''", "must be text"),
])
def test_a_source_url_must_parse(url, why):
    for text in (f"- url: {url}\n", f"sources:\n  - title: T\n    url: {url}\n"):
        [p] = check_sources(text)
        assert p.code == "W014" and why in p.message and p.line == text.count("\n")


def test_source_entry_problems_name_the_entry_and_line():
    text = yaml_text("""
        sources:
          - url: https://example.org/a
            retrieved: last week
          - title: No address
          - url: https://example.org/a
          - url: https://example.org/b
            titel: B
            title: [not, text]
          - 7
        """)
    problems = check_sources(text)
    assert found(problems) == [(3, "W014"), (4, "W014"), (5, "W009"), (7, "W015"), (8, "W014"), (9, "W009")]
    assert problems[0].message == "source 1: retrieved 'last week' is not a date"
    assert problems[1].message == "source 2 has no url"
    assert problems[2].message == "source 3 repeats the url of line 2"
    assert problems[4].message == "source 4: title must be text"
    assert problems[5].message == "source 5 is neither a URL nor a mapping"


# --- the lints of validate -------------------------------------------------------------------

SKILL_MD = "---\nname: issue-search\ndescription: Finds issues. Use when asked about bugs.\n---\n# Issues\n"


def make_skill(tmp_path, tools: str | None = None, sources: str | None = None):
    skill = tmp_path / "issue-search"
    skill.mkdir()
    (skill / "SKILL.md").write_text(SKILL_MD)
    if tools is not None:
        (skill / "tools.yaml").write_text(tools)
    if sources is not None:
        (skill / "sources.yaml").write_text(sources)
    return skill


def test_validate_lints_the_tool_files_naming_file_and_line(tmp_path):
    skill = make_skill(tmp_path, one_tool(name="SearchIssues"), "- example.org\n")
    diags = validate_dir(skill, "strict")
    assert is_valid(diags)   # lints never fail a skill
    assert [(d.code, d.line, d.message.split(": ")[0]) for d in diags] == [
        ("W010", None, "tools.yaml:2"), ("W014", None, "sources.yaml:1")]
    assert validate_dir(skill, "lenient", lints=False) == []


def test_validate_text_lints_tool_files_it_is_given():
    diags = validate_text(SKILL_MD, "issue-search", "strict", file_contents={"tools.yaml": b"tools: ["})
    assert [(d.code, d.message.split(": ")[0]) for d in diags] == [("W008", "tools.yaml:1")]
    assert validate_text(SKILL_MD, "issue-search", "strict", lints=False,
                         file_contents={"tools.yaml": b"tools: ["}) == []


def test_validate_does_not_follow_a_linked_or_special_tool_file(tmp_path):
    skill = make_skill(tmp_path)
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text("tools: [")
    (skill / "tools.yaml").symlink_to(outside)
    os.mkfifo(skill / "sources.yaml")   # a plain read would wait for a writer forever
    diags = validate_dir(skill, "strict")
    assert [(d.code, d.message.split(":")[0]) for d in diags] == [("W008", "tools.yaml"), ("W008", "sources.yaml")]
    assert "is a link" in diags[0].message and "not a regular file" in diags[1].message


def test_the_command_line_shows_the_lints_with_file_and_line(tmp_path, capsys):
    skill = make_skill(tmp_path, one_tool(parameters="\n      type: object\n      required: q"))
    assert main(["validate", "--lints", str(skill)]) == 0
    err = capsys.readouterr().err
    assert "warning: tools.yaml:6: tool 'search_issues': parameters.required: 'q' is not of type 'array'" in err
    assert main(["validate", str(skill)]) == 0
    assert "tools.yaml" not in capsys.readouterr().err
