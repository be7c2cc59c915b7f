"""Refusals the C parser meets are worded exactly as the exact parser words them, without the
whole frontmatter being read again: scanner errors, a tab where a token starts, an unclosed
quoted scalar, anchors and tags, and a flow collection in a text that holds a tab (or another
feature the parsers read differently) further on. The exact reading is the pure-Python parser
on the whole text (``_CParser`` set to None)."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_strict_fast_paths import _load

import skill_studio.core.format.strict_yaml as strict_yaml
from skill_studio.core.format.validate import validate_text

# Lines of frontmatter, valid and not: what the quick wordings handle (colons in values, list
# entries after a key, unclosed quotes, tabs, anchors, tags, flow collections) and what must
# send them back to the exact reading (comments, blank lines, NEL, document markers, merges...).
PIECES = [
    "name: a", "description: x", "description: Use this when: you need it", "a: b: c", "x: - Read",
    "license: 'MIT", 'license: "MIT', 'd: "open \\" escape', "\tauthor: me", "  \tauthor: me", "\t", "",
    "# c", "  # c", "x: y # c", "a: b # c: d", "tags: [a, b]", "tags: [a,", "  b]", "a: [b, c]  # c",
    "license: &lic MIT", "meta: *lic", "version: !!str 1.0", "k: !t &a v", "k: &a !t v", "k:\t&a v",
    "metadata:", "  author: me", "  - item", "- item", "- - a", "list:", "  - [a]", "first line", "  cont",
    " x: y", "a: b\tc", "a:\tb", "a:\t- b", "- \tx", "  \t- a", "key: |", "  block", "\tblock", "a: >",
    "? q", ": v", "---", "...", "%YAML 1.2", "<<: {a: b}", "a: \x85b", "a: b\u2028c", "deep:", "    deeper: x",
    "@x", "`x", "z:  - a", "'open", '"open', "x: 'open", "\t'open", "  - x: y: z", "key: value: more",
    "desc: 'it''s'", "r: '#'", "s: a #b", "k: [a]: b", "k: {a: b}", "- [a, b]", "\t# c", "a: b\t# c",
    "description: 日本語のドキュメント: x", "name: é😀 Über", "tags: [日本, 😀]", "ü: 'ö", "\x01",
]


def _exactly(fn, *args, **kwargs):
    original = strict_yaml._CParser
    strict_yaml._CParser = None
    try:
        return fn(*args, **kwargs)
    finally:
        strict_yaml._CParser = original



def test_fast_and_exact_agree_on_a_seeded_corpus_of_broken_frontmatter():
    rng = random.Random(3)
    texts = ["\n".join(rng.choice(PIECES) for _ in range(rng.randint(1, 9))) + rng.choice(["\n", "", "\n\n"])
             for _ in range(1500)]
    kinds = {"tab": 0, "error": 0}
    for text in texts:
        fast = _load(text)
        assert fast == _exactly(_load, text), text
        kinds["tab"] += "\t" in text
        kinds["error"] += fast[0] == "error"
    assert kinds["tab"] > 300 and kinds["error"] > 1000   # the corpus holds what it is for


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(st.sampled_from(PIECES), min_size=1, max_size=8), end=st.sampled_from(["\n", "", "\n\n"]))
def test_fast_and_exact_agree_on_generated_broken_frontmatter(lines, end):
    text = "\n".join(lines) + end
    assert _load(text) == _exactly(_load, text)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(st.sampled_from(PIECES), min_size=1, max_size=6), folder=st.sampled_from(["a", "x"]))
def test_whole_skills_read_the_same_on_both_paths(lines, folder):
    text = "---\n" + "\n".join(lines) + "\n---\nBody\n"
    assert validate_text(text, folder, "strict", lints=False) == \
        _exactly(validate_text, text, folder, "strict", lints=False)


# --- each quick wording is used where it applies, and reads as the exact parser's ------------------

WORDED_WITHOUT_READING = [
    "name: a\ndescription: Use this when: you need a review\n",            # mapping values
    "name: a\nallowed-tools: - Read\n",                                    # sequence entries
    "name: a\nlicense: 'MIT\n",                                            # unclosed quotes
    'name: a\nlicense: "MIT\n',
    "name: a\nmetadata:\n\tauthor: me\n",                                  # a tab that starts a token
    "name: a\nmetadata:\n  \tauthor: me\n",
    "name: a\nx: - Read\n# c\n'open\n",                                  # (the first refusal is before the comment)
    "name: a\ndescription: Use this when: you need it\n\tauthor: me\n",   # a colon, then a tab
    "name: a\ntags: [a, b]\nlicense: MIT\nmetadata:\n\tauthor: me\n",     # a flow list, then a tab
    "name: a\ntags: [a, b]\nx: y\n\tz\n",
]


@pytest.mark.parametrize("text", WORDED_WITHOUT_READING)
def test_a_refusal_before_anything_the_parsers_read_differently_is_worded_directly(text, full_reads):
    expected = _exactly(_load, text)
    full_reads.clear()
    assert expected[0] == "error"
    assert _load(text) == expected
    assert full_reads == []


FROM_THEIR_LINE = [
    "name: a\nlicense: &lic MIT\nmetadata:\n  license: *lic\n",
    "name: a\nversion: !!str 1.0\n",
    "name: a\nmetadata:\n  k: !t &a v\n",
    "name: a\ntags: [a, b\nlicense: MIT\n\tx: y\n",
]


@pytest.mark.parametrize("text", FROM_THEIR_LINE)
def test_an_anchor_or_a_tag_is_refused_from_its_line(text, full_reads):
    expected = _exactly(_load, text)
    full_reads.clear()
    assert _load(text) == expected
    assert all(read.startswith("\n") for read in full_reads)   # (never the whole text from its first line)


READ_AGAIN = [
    "name: a\nlicense: &lic MIT\n\t\n",            # the tab comes within what is read ahead
    "name: a\nversion: !!str 1.0\n\tblock\n",
    "list:\nfirst line\n\tauthor: me\n",           # a tab after a plain scalar: another refusal first
    "name: a\n- [a, b]\n# c\n\tblock\n",           # a tab after a comment
    "name: a\n\n\tauthor: me\n",                   # a tab after an empty line is skipped there
    "name: a\na: b\tc\nx: y: z\n",                 # a tab before the refusal
    "name: a\nk: &a !t v\n\tauthor: me\n",
    "name: a\nmetadata:\n  a: x\n  \t- b\n",      # ... a tab in a plain scalar's indentation
    "name: a\n# c\n'open\n",                       # an unclosed quote after a comment
    'name: a\nd: "open \\" escape\n',              # ... or holding an escape
    "name: a\ntags: [a]\n\tx\n",                   # a flow list, the tab in what is read ahead
    "name: a\ndescription: \x85x\nb: c: d\n",
]


@pytest.mark.parametrize("text", READ_AGAIN)
def test_what_the_quick_wordings_cannot_tell_is_read_exactly(text, full_reads):
    expected = _exactly(_load, text)
    full_reads.clear()
    assert _load(text) == expected
    assert full_reads   # the exact parser read it (and agreed)


# --- where the exact reading is needed from --------------------------------------------------------

@settings(max_examples=400, deadline=None)
@given(text=st.text(alphabet="ab:-? .<>|%#\n\t\r\ufeff\u2028\x85", max_size=40))
def test_the_first_feature_needing_the_exact_parser_is_where_its_pattern_finds_it(text):
    found = strict_yaml._NEEDS_EXACT.search(text)
    assert strict_yaml._first_needing_exact(text) == (-1 if found is None else found.start())
    assert strict_yaml._needs_exact(text) == (found is not None)


@settings(max_examples=400, deadline=None)
@given(text=st.text(alphabet="-\n \tab", max_size=40))
def test_the_closing_fence_is_found_where_its_pattern_finds_it(text):
    from skill_studio.core.format import strict

    first_end = text.find("\n")
    if first_end >= 0:
        found = strict._CLOSE_FENCE.search(text, first_end + 1)
        assert strict._close_fence(text, first_end) == ((-1, -1) if found is None else found.span())
