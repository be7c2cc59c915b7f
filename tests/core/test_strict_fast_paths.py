"""The strict profile's quick readings give exactly what its exact reading gives.

The exact reading is the pure-Python parser on the whole frontmatter (``_CParser`` set to None);
the quick ones are the C parser's events, the flow-collection refusal worded from its line
(``strict_yaml_flow``), and the quicker scans of the text (``_needs_exact``, ``_mark_text``,
the nesting bound's character count).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from conftest import REAL_WORLD, SAMPLES, skill_folders
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_validate import _line

import skill_studio.core.format.strict_yaml as strict_yaml
import skill_studio.core.format.strict_yaml_flow as strict_yaml_flow
from skill_studio.core.format.strict_yaml import DialectError, Where, load_strict
from skill_studio.core.format.strict_yaml_reader import _mark_text
from skill_studio.core.format.validate import validate_dir, validate_text
from skill_studio.core.format.yaml_nesting import _LINE_BREAK, _Scan, first_too_deep

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from validate_corpus import generated_texts


@pytest.fixture
def exact(monkeypatch):
    """Run a function with the C parser switched off (every text read by the exact parser)."""
    def run(fn, *args, **kwargs):
        with monkeypatch.context() as m:
            m.setattr(strict_yaml, "_CParser", None)
            return fn(*args, **kwargs)
    return run


def _load(text: str):
    try:
        data, lines, meta = load_strict(text, Where(1, 4))
    except DialectError as e:
        return ("error", e.message, e.line, e.column, e.hint)
    return ("data", repr(data), lines, meta)


# --- whole skills: the generated corpus and the real-world fixtures ----------------------------

_GENERATED = generated_texts(300, seed=7)


def test_the_corpus_has_what_the_fast_paths_must_handle():
    texts = [data.decode("utf-8") for _, data in _GENERATED]
    flow = [t for t in texts if "[" in t.split("\n---", 1)[0]]
    assert len(flow) > len(texts) // 2              # flow lists in most
    assert any("\r\n" in t for t in texts)          # CRLF sometimes
    messages = [d.message for name, data in _GENERATED for d in validate_text(data, name, "strict", lints=False)]
    refusals = [m for m in messages if m.startswith("Invalid YAML") and "JSONesque" not in m]
    assert len(refusals) >= 5                       # broken ones, besides the flow lists
    assert any(m.startswith("Unexpected fields") for m in messages)


def test_fast_and_exact_give_the_same_diagnostics_on_the_generated_corpus(exact):
    for name, data in _GENERATED:
        fast = validate_text(data, name, "strict", lints=False)
        assert fast == exact(validate_text, data, name, "strict", lints=False), name


@pytest.mark.parametrize("folder", skill_folders(REAL_WORLD) + skill_folders(SAMPLES), ids=lambda p: p.name)
def test_fast_and_exact_give_the_same_diagnostics_on_real_skills(folder, exact):
    for profile in ("strict", "claude-upload"):
        assert validate_dir(folder, profile, lints=False) == exact(validate_dir, folder, profile, lints=False)


# --- the refusal of a flow collection ----------------------------------------------------------

LONG = "Reviews pull requests for style, tests and naming, then explains each finding"

# Frontmatters whose flow collection is worded from its line alone (no parser reads it again).
DIRECT = [
    "name: a\nallowed-tools: [Bash, Read]\n",
    "name: a\nallowed-tools: []\n",
    "name: a\ntags: [a, b]\ndescription: x\n",
    "name: a\nrequires: {mcp: [rube]}\n",
    "name: a\nrequires: {mcp: [rube, github], os: linux}\n",
    "name: a\nallowed-tools: [Bash(git:*), Bash(npm run:*), mcp__github__create_issue]\n",
    "name: a\nkeywords: [\"a, b\", 'c d', plain words]\n",
    "name: a\ntags: [a, b]  # the tags\n\n# a comment\n\nlicense: MIT\n",
    "name: a\nmetadata:\n  author: me\n  tags: [git, review]\nlicense: MIT\n",
    "name: a\nlist:\n  - [a, b]\n  - c\n",
    "name: a\nlist:\n- x: [a]\n",
    f"name: a\nkeywords: [{LONG}, {LONG}]\n",
    f"name: {LONG}\ndescription: {LONG}\ntags: [a]",
    "name: a\ntags: [a, b,]\n- x\n",
]

# Frontmatters the quick path must leave to a parser, and that must read the same anyway.
OTHER = [
    "name: a\ntags: [a, b\nlicense: MIT\n",                 # not closed on its line
    "name: a\ntags: [a, b]\n\"unclosed\n",                  # the next token fails to scan
    "name: a\ntags: [a, b]\n&anchor\n",
    "name: a\ntags: [a, b]\n@x\n",
    "name: a\ntags: [a, b]\n'quoted': x\n",
    "name: a\ntags: [\"a\\tb\", c]\n",                       # an escape in a quoted item
    "name: a\ntags: [a]: b\n",                              # a collection as a key
    "name: a\ntags: [a] x\n",
    "name: a\ntags:\n  [a, b]\n",                           # at the start of its line
    "name: a\n[a, b]\n",
    "name: a\n[a, b]: c\n",
    "name: a\ntags: [a, {b: [c, [d]]}]\n",                  # nested deeper than the quick pattern
    "name: a\ntags: [*a]\n",
    "name: a\ntags: [? a]\n",
    "name: a\ntags: [- a]\n",
    "name: a\ntags: [a, b]\n  x: y\n",
    "name: a\n  tags: [a]\n",                               # over-indented key
    "name: a\ntags: [a]\nname: b\n",                        # duplicate key after the refusal
    "name: a\nmetadata:\n  a: x\n  tags: [a]\n extra: 1\n",
    "name: a\ntags: [a]\nx: \"\\U00110000\"\n",             # an escape the exact scanner refuses
    "name: a\ntags: [a]\nx: \x01\n",                        # a character YAML refuses
    "name: a\ntags: {a b: c}\n",
    "name: a\ntags: [a #b]\n",
    "name: a\ntags: !!seq [a]\n",
    "name: a\ntags: &t [a]\n",
]


@pytest.mark.parametrize("text", DIRECT + OTHER)
def test_flow_refusal_reads_as_the_exact_parser_reads_it(text, exact):
    assert _load(text) == exact(_load, text)


@pytest.mark.parametrize("text", DIRECT)
def test_a_simple_flow_collection_is_refused_without_reading_again(text, monkeypatch):
    def no_parser(*_args):
        raise AssertionError("the text was read again")
    monkeypatch.setattr(strict_yaml, "_compose_exact", no_parser)
    result = _load(text)
    assert result[0] == "error" and "Found ugly disallowed JSONesque flow mapping" in result[1]
    assert result[4] is not None and result[4].startswith("a flow-style")


def test_the_line_is_read_again_alone_when_the_quick_pattern_does_not_fit(full_reads):
    text = "name: a\ndescription: x\ntags: [\"a\\tb\", c]\nlicense: MIT\n"
    result = _load(text)
    assert result[0] == "error" and result[2] == 2 and "JSONesque" in result[1]
    assert full_reads == ["\n\ntags: [\"a\\tb\", c]\nlicense: MIT\n"]


_FLOW_LINES = ["tags: [a, b]", "tags: []", "requires: {mcp: [rube]}", "  tags: [a]", "- [a, b]",
               "tools: [Bash(git:*), 'x y', \"z\"]", "tags: [a]  # c", "tags: [a, b", "tags: [a]: b",
               "[a]", "tags: {a: b, c: [d]}", "x: [\"a\\\"\"]", "  - k: [v]"]
_flow_line = st.sampled_from(_FLOW_LINES)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(st.one_of(_line, _flow_line), max_size=8))
def test_fast_and_exact_agree_on_generated_frontmatter_with_flow_lines(lines):
    text = "\n".join(lines) + "\n"
    fast = _load(text)
    original = strict_yaml._CParser
    strict_yaml._CParser = None
    try:
        slow = _load(text)
    finally:
        strict_yaml._CParser = original
    assert fast == slow


def test_a_plain_equals_sign_is_not_text_on_either_path(exact):
    text = "---\nname: =\ndescription: x\n---\n"
    fast = validate_text(text, "x", "strict", lints=False)
    assert fast == exact(validate_text, text, "x", "strict", lints=False)
    assert [d.code for d in fast] == ["S013"]
    quoted = validate_text("---\nname: '='\ndescription: x\n---\n", "x", "strict", lints=False)
    assert "S013" not in [d.code for d in quoted]


# --- the quicker scans ---------------------------------------------------------------------------

def _mark_text_by_characters(mark) -> str:
    """A position as the reference's parser prints it, walking the line one character at a time."""
    where = f'  in "<unicode string>", line {mark.line + 1}, column {mark.column + 1}'
    buffer, pointer = mark.buffer, mark.pointer
    breaks = "\r\n\x85\u2028\u2029\0"
    head, start = "", pointer
    while start > 0 and buffer[start - 1] not in breaks:
        start -= 1
        if pointer - start > 75 / 2 - 1:
            head = " ... "
            start += 5
            break
    tail, end = "", pointer
    while end < len(buffer) and buffer[end] not in breaks:
        end += 1
        if end - pointer > 75 / 2 - 1:
            tail = " ... "
            end -= 5
            break
    caret = " " * (4 + pointer - start + len(head)) + f"^ (line: {mark.line + 1})"
    return f"{where}:\n    {head}{buffer[start:end]}{tail}\n{caret}"


class _Mark:
    def __init__(self, buffer: str, pointer: int):
        self.line, self.column, self.buffer, self.pointer = 3, 7, buffer, pointer


@settings(max_examples=300, deadline=None)
@given(buffer=st.text(alphabet="ab \n\r\x85\u2028\0", max_size=120), at=st.integers(0, 120))
def test_the_quoted_line_is_cut_as_the_reference_cuts_it(buffer, at):
    mark = _Mark(buffer, min(at, len(buffer)))
    assert _mark_text(mark) == _mark_text_by_characters(mark)


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="ab:-? .<>|%\n\t\r\ufeff\u2028", max_size=40))
def test_the_quick_test_for_exact_reading_matches_its_pattern(text):
    assert strict_yaml._needs_exact(text) == (strict_yaml._NEEDS_EXACT.search(text) is not None)


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet="ab:-?[{}] \n", max_size=60), limit=st.integers(1, 6))
def test_text_with_few_structure_characters_never_nests_too_deep(text, limit):
    # (the character count lets first_too_deep skip its scan: the scan would find nothing either)
    scan = _Scan(limit)
    found = next((c for c in map(scan.line, _LINE_BREAK.split(text)) if c is not None), None)
    if sum(text.count(c) for c in "-?:[{") <= limit:
        assert found is None
    assert (first_too_deep(text, limit) is None) == (found is None)


def test_the_flow_module_reports_nothing_for_a_position_that_is_no_collection():
    assert strict_yaml_flow.flow_refusal("a: b\n", 0, 3, Where(), strict_yaml._compose_exact) is None
    assert strict_yaml_flow.flow_refusal("a: b\n", 5, 0, Where(), strict_yaml._compose_exact) is None


# --- the folder itself: one status call says whether it is there and a folder ---------------------

def test_a_path_that_is_no_skill_folder_is_named_as_before(tmp_path):
    from skills_ref.validator import validate as reference

    (tmp_path / "file.txt").write_text("x", encoding="utf-8")
    (tmp_path / "empty").mkdir()
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    for name, code in (("missing", "S007"), ("file.txt", "S007"), ("empty", "S005")):
        [d] = validate_dir(tmp_path / name, "strict", lints=False)
        assert (d.code, d.message) == (code, reference(tmp_path / name)[0])
    for name, words in (("dangling", "which does not exist"), ("loop", "link loop")):
        [d] = validate_dir(tmp_path / name, "strict", lints=False)
        assert d.code == "S007" and words in d.message and name in d.message
    [d] = validate_dir(str(tmp_path / "file.txt") + "\0", "strict", lints=False)
    assert d.code == "S007"


# --- a tree the C parser read, refused after reading: the message quotes the text ------------------

AFTER_READING = [
    "name: a\ndescription: x\ndescription: y\n",
    "name: é😀 日本語\ndescription: x\nname: b\n",
    "metadata:\n  a: 日本\n  a: b\n",
    "metadata:\n  a: x\nextra:\n    b: y\n",
    f"name: a\ndescription: {LONG} {LONG}\ndescription: {LONG}\n",
    "list:\n  - k: v\n    k: w\n",
    "'1': a\n1: b\n",
    "a:\n  b: c\na:\n  d: e\n",
]


@pytest.mark.parametrize("text", AFTER_READING)
def test_a_refusal_after_reading_quotes_the_text_as_the_exact_parser_does(text, exact, monkeypatch):
    expected = exact(_load, text)
    assert expected[0] == "error"

    def no_parser(*_args):
        raise AssertionError("the text was read again")
    monkeypatch.setattr(strict_yaml, "_compose_exact", no_parser)
    assert _load(text) == expected
