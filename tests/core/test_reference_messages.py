"""The strict profile's YAML refusals read exactly as the reference validator prints them."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_validate import _EXTRA, _KEYS, _VALUES, DESC, _ref_in_memory, fm, write_skill

from skill_studio.cli import main
from skill_studio.core.format.validate import is_valid, validate_dir, validate_text

skills_ref = pytest.importorskip("skills_ref")
from skills_ref.cli import main as reference_main  # noqa: E402
from skills_ref.validator import validate as ref_validate  # noqa: E402

LONG = "Reviews pull requests for style, tests and naming, then explains each finding in plain words"

# Frontmatter the reference's YAML parser refuses, as it is found in published skills:
# (id, frontmatter lines after 'name' and 'description').
REFUSED: list[tuple[str, list[str]]] = [
    ("flow-list", ["mcp: [rube]"]),
    ("flow-list-in-metadata", ["metadata:", "  tags: [git, review]"]),
    ("empty-flow-list", ["allowed-tools: []"]),
    ("flow-mapping", ["tags: {a: b}"]),
    ("nested-flow", ["requires: {mcp: [rube]}"]),
    ("flow-list-after-comment", ["# tools it needs", "", "mcp: [rube, github]"]),
    ("flow-list-on-long-line", [f"keywords: [{LONG}, {LONG}]"]),
    ("duplicate-key", ["license: MIT", "license: Apache-2.0"]),
    ("duplicate-metadata-key", ["metadata:", "  version: '1'", "  version: '2'"]),
    ("duplicate-key-after-nested-value", ["metadata:", "  a: x", "metadata:", "  b: y"]),
    ("duplicate-empty-keys", [": a", ": b"]),
    ("tab-indent", ["metadata:", "\tauthor: me"]),
    ("tab-before-list-item", ["allowed-tools:", "\t- Read"]),
    ("anchor", ["license: &l MIT"]),
    ("anchor-and-alias", ["license: &l MIT", "metadata:", "  license: *l"]),
    ("alias-only", ["license: *mit"]),
    ("explicit-tag", ["version: !!str 1.0"]),
    ("local-tag", ["license: !spdx MIT"]),
    ("block-scalar-unindented", ["notes: |", "first line", "second line"]),
    ("block-scalar-dedented", ["notes: >", "    first line", "  second line: x"]),
    ("unquoted-colon", ["compatibility: Works with: Python 3"]),
    ("unquoted-colon-in-metadata", ["metadata:", "  usage: Run it when: needed"]),
    ("unquoted-colon-long-value", [f"compatibility: {LONG}: {LONG}"]),
    ("unclosed-quote", ["license: 'MIT"]),
    ("unclosed-double-quote-at-end", ['license: "MIT']),
    ("merge-of-nothing", ["metadata:", "  <<:"]),
    ("merge-of-text", ["metadata:", "  <<: base"]),
    ("merge-of-list-with-text", ["metadata:", "  <<:", "    - a: 1", "    - plain"]),
    ("inconsistent-indentation", ["metadata:", "  a: x", "extra:", "    b: y"]),
    ("second-document", ["...", "license: MIT"]),
    ("list-after-value", ["allowed-tools: - Read"]),
    ("over-indented-key", ["license: MIT", "  compatibility: linux"]),
    ("list-then-key", ["allowed-tools:", "- Read", "  x: y"]),
    ("key-with-trailing-comment-then-error", ["license: MIT  # the licence", "metadata:", "\tx: 1"]),
    ("empty-value-then-flow", ["metadata:", "", "", "tags: [a]"]),
    ("question-mark-key", ["? [a, b]", ": v"]),
]


def _text(lines: list[str]) -> str:
    return fm("name: demo", f"description: {DESC}", *lines)


@pytest.mark.parametrize("lines", [c[1] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_refusal_reads_as_the_reference_prints_it(tmp_path, lines):
    skill = write_skill(tmp_path, "demo", _text(lines))
    expected = ref_validate(skill)
    diags = validate_dir(skill, "strict", lints=False)
    assert [d.message for d in diags] == expected
    assert len(expected) == 1 and expected[0].startswith("Invalid YAML in frontmatter: ")
    [d] = diags
    assert d.code == "S003" and d.line is not None
    # The studio's own advice is the hint, never part of the message.
    assert d.hint is None or d.hint not in d.message


def test_refusals_in_crlf_files_and_on_the_opening_line(tmp_path):
    for folder, content in [("crlf", _text(["mcp: [rube]"]).replace("\n", "\r\n")),
                            ("opening", "--- [a]\nname: opening\n---\n"),
                            ("at-end", "---\nname: at-end\ndescription: 'unclosed\n---\n")]:
        skill = write_skill(tmp_path, folder, content)
        assert [d.message for d in validate_dir(skill, "strict", lints=False)] == ref_validate(skill)


def test_message_positions_are_the_references():
    [d] = validate_text(_text(["mcp: [rube]"]), "demo", "strict", lints=False)
    assert d.line == 4
    assert d.message.splitlines()[1:4] == ['  in "<unicode string>", line 4, column 6:', "    mcp: [rube]",
                                           "         ^ (line: 4)"]
    assert "flow-style list" in (d.hint or "")


def test_long_lines_are_cut_as_the_reference_cuts_them():
    [d] = validate_text(_text([f"keywords: [{LONG}, {LONG}]"]), "demo", "strict", lints=False)
    snippet = d.message.splitlines()[2]
    assert snippet.startswith("    keywords: [") and snippet.endswith(" ... ")
    assert [d.message] == _ref_in_memory(_text([f"keywords: [{LONG}, {LONG}]"]), "demo")


def test_lenient_keeps_its_own_words_and_hint():
    text = _text(["compatibility: Works with: Python 3"])
    [strict] = validate_text(text, "demo", "strict", lints=False)
    lenient = [d for d in validate_text(text, "demo", "lenient", lints=False) if d.severity == "error"]
    assert strict.message.startswith("Invalid YAML in frontmatter: mapping values are not allowed here\n")
    assert lenient and lenient[0].code == "L003" and lenient[0].hint and "quote" in lenient[0].hint
    assert "<unicode string>" not in lenient[0].message


# --- the class of input: frontmatter with comments, blank lines and flow markup ------------

_MORE_VALUES = [" [rube]", " {a: b}", " # c", " x # c", " 'x", ' "a # b"', " |", " >", " - [a]", " *x", " &a"]
_MORE_LINES = ["# c", "", "  # c", "key: # c", "  k: # c", "  - # c", "- ", "\tx: 1", "<<: x", "  <<:",
               "? k", ": v", "  ? [a]", "  ...", "a: [b]"]
_any_line = st.one_of(
    st.builds(lambda k, v: k + ":" + v, st.sampled_from(_KEYS), st.sampled_from(_VALUES + _MORE_VALUES)),
    st.sampled_from(_EXTRA + _MORE_LINES))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(_any_line, max_size=8))
def test_generated_frontmatter_reads_as_the_reference_prints_it(lines):
    text = "\n".join(["---", *lines, "---", "Body"]) + "\n"
    if "---" in "\n".join(lines):  # the reference's split on any '---' (see test_validate)
        return
    try:
        expected = _ref_in_memory(text, "demo")
    except Exception:  # noqa: BLE001 - the reference fails outright on a few inputs
        return
    assert [d.message for d in validate_text(text, "demo", "strict", lints=False)] == expected, text


# --- the command line -------------------------------------------------------------------------

def _both(capsys, skill: Path):
    ref = CliRunner().invoke(reference_main, ["validate", str(skill)])
    code = main(["validate", "--profile", "strict", str(skill)])
    out = capsys.readouterr()
    return ref, code, out.out, out.err


@pytest.mark.parametrize("lines", [c[1] for c in REFUSED[:8]], ids=[c[0] for c in REFUSED[:8]])
def test_command_line_verdict_matches_the_reference(tmp_path, capsys, lines):
    skill = write_skill(tmp_path, "demo", _text(lines))
    ref, code, out, err = _both(capsys, skill)
    assert code == ref.exit_code == 1 and out == ref.stdout == ""
    assert err.splitlines()[0] == ref.stderr.splitlines()[0] == f"Validation failed for {skill}:"
    assert not is_valid(validate_dir(skill, "strict"))


@pytest.mark.parametrize("lines", [c[1] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_command_line_prints_the_references_report(tmp_path, capsys, lines):
    skill = write_skill(tmp_path, "demo", _text(lines))
    ref, code, out, err = _both(capsys, skill)
    assert (code, out, err) == (ref.exit_code, ref.stdout, ref.stderr)
