"""The nesting bound is measured on the text, before any YAML parser reads it: a hostile input gets
the studio's own message whatever the installed PyYAML's parser does, and ordinary text is never
taken for deep nesting."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import skill_studio.core.format.yaml_guard as yaml_guard
from skill_studio.core.format import skillmd
from skill_studio.core.format.skillmd import SkillParseError
from skill_studio.core.format.strict import check_strict
from skill_studio.core.format.yaml_guard import MAX_DEPTH, YamlBoundError, check_bounds
from skill_studio.core.format.yaml_nesting import first_too_deep


def _depth(value) -> int:
    """Nesting of lists and mappings in a loaded value (a scalar is 0)."""
    if isinstance(value, dict):
        return 1 + max((max(_depth(k), _depth(v)) for k, v in value.items()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


class _NoParser:
    def __init__(self, text):
        raise AssertionError("the parser was asked before the nesting guard spoke")


def test_flow_nesting_is_refused_before_any_parser_runs(monkeypatch):
    monkeypatch.setattr(yaml_guard, "_EventParser", _NoParser)
    text = "name: x\ndeep: " + "[" * 10_000 + "]" * 10_000
    try:
        check_bounds(text)
    except YamlBoundError as e:
        assert str(e) == f"the frontmatter is nested more than {MAX_DEPTH} levels deep"
        assert (e.line, e.column) == (1, 6 + MAX_DEPTH - 1)  # the bracket that opens level 101
    else:
        raise AssertionError("not refused")


def test_block_nesting_is_refused_at_the_line_that_goes_too_deep():
    text = "".join(" " * i + f"k{i}:\n" for i in range(300)) + " " * 300 + "x\n"
    assert first_too_deep(text, MAX_DEPTH) == (MAX_DEPTH, MAX_DEPTH)
    compact = "deep:\n  " + "- " * 5000 + "x\n"
    assert first_too_deep(compact, MAX_DEPTH) == (1, 2 + 2 * (MAX_DEPTH - 1))


def test_the_bound_itself_is_allowed():
    assert first_too_deep("a: " + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1), MAX_DEPTH) is None
    assert first_too_deep("a: " + "[" * MAX_DEPTH + "]" * MAX_DEPTH, MAX_DEPTH) == (0, 3 + MAX_DEPTH - 1)


def test_brackets_that_are_text_are_not_nesting():
    brackets = "[{" * 300
    texts = [
        f"description: '{brackets}'\n",
        f'description: "{brackets} \\" {brackets}"\n',
        f"description: see a{brackets}\n",
        f"description: x # {brackets}\n",
        f"description: |\n  {brackets}\n    {brackets}\nname: y\n",
        f"- >-\n  {brackets}\n- z\n",
        f"description: 'it''s {brackets}\n  still quoted {brackets}'\n",
        f"list: ['a, {brackets}', \"{brackets}\"]\n",
        f"url: http://x/{brackets}\n",
        f"# {brackets}\nname: z\n",
        f"a: [!!str '{brackets}']\n",                      # a tag or an anchor before a quoted scalar
        f"a: {{b: !!str '{brackets}'}}\n",
        f"a: [&x '{brackets}']\n",
        f'{{"a":"{brackets}"}}\n',                        # JSON style: ':' right after a quoted key
        "".join(f'k{i}: {{"v":"["}}\n' for i in range(150)),
        f"a: x\n  {brackets}\n",                          # a plain scalar going on on the next line
        "a: x\n" + "".join(" " * (i + 2) + "- y\n" for i in range(150)),
        f"k0: v\n&a k: |\n  {brackets}\n",                 # an anchored key's block scalar
    ]
    for text in texts:
        assert first_too_deep(text, MAX_DEPTH) is None, text


def test_properties_before_keys_do_not_count_as_nesting():
    # 52 levels, each key written after a tag: the key's column is where its tag starts
    text = "".join(f"{' ' * 4 * i}k{i}a: v\n{' ' * 4 * i}! k{i}b:\n" for i in range(51)) + " " * 204 + "leaf: 1\n"
    assert _depth(yaml.safe_load(text)) == 52
    assert first_too_deep(text, MAX_DEPTH) is None


def test_deep_nesting_after_text_that_looks_like_structure_is_found():
    deep = "[" * 1001 + "]" * 1001
    texts = [
        f"a: [!!str ']', {deep}]",          # a bracket inside a tagged quoted scalar
        f"a: [&x ']', {deep}]",
        f"# c\x85a: {deep}",                # NEL ends a line for YAML 1.1 readers
        f"a: [a?'b, {deep}]",               # '?' inside a plain scalar is text
        f"a: 1\n\ufeff{deep}",              # a byte order mark at the start of a line
        f"|\n x\n...\n{deep}",               # a document marker ends a block scalar
        f'a: {{"k":"}} #", "z": {deep}}}',   # '#' inside a quoted scalar is text
    ]
    for text in texts:
        assert first_too_deep(text, MAX_DEPTH) is not None, text[:40]


def test_what_the_text_scan_misses_the_pure_python_parser_still_bounds(monkeypatch):
    """libyaml stops at 1,000 levels in its own words; should the scan of the text ever miss a
    deep structure, the events of the pure-Python parser (which has no such limit) still give
    the studio's message."""
    monkeypatch.setattr(yaml_guard, "first_too_deep", lambda text, limit: None)
    try:
        check_bounds("name: x\ndeep: " + "[" * 10_000 + "]" * 10_000)
    except YamlBoundError as e:
        assert str(e) == f"the frontmatter is nested more than {MAX_DEPTH} levels deep" and e.line == 1
    else:
        raise AssertionError("not refused")


def test_a_skill_nested_too_deep_names_the_file_and_line_in_every_profile():
    raw = "---\nname: deep-skill\ndescription: d\nx: " + "[" * 5000 + "]" * 5000 + "\n---\nbody\n"
    try:
        skillmd.parse_document(raw, "deep-skill/SKILL.md")
    except SkillParseError as e:
        assert e.line == 4 and "levels deep" in str(e) and "deep-skill/SKILL.md" in str(e)
    else:
        raise AssertionError("not refused")
    diagnostics, _ = check_strict(raw, "deep-skill")
    assert [d.line for d in diagnostics if "levels deep" in d.message] == [4], diagnostics


_scalars = st.one_of(st.integers(), st.booleans(), st.none(),
                     st.text(alphabet="ab[]{}:#,&!?*'\"-|> \n\t\x85\u2028", max_size=16))
_values = st.recursive(_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(alphabet="kxy[", min_size=1, max_size=3), inner,
                                                 max_size=3)), max_leaves=40)


def _nest(value, levels: int, as_map: bool):
    for i in range(levels):
        value = {f"k{i}": value} if as_map else [value]
    return value


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_values, st.integers(0, 130), st.booleans(), st.sampled_from([None, True, False]),
       st.sampled_from([None, '"', "'", "|", ">"]), st.booleans())
def test_never_deeper_than_the_document_and_exact_in_flow_style(value, levels, as_map, flow, style, start):
    value = _nest(value, levels, as_map)
    text = yaml.safe_dump({"root": value}, default_flow_style=flow, default_style=style, width=60,
                          explicit_start=start, allow_unicode=True)
    depth = _depth(yaml.safe_load(text))
    found = first_too_deep(text, MAX_DEPTH)
    if depth <= MAX_DEPTH:
        assert found is None, text[:400]
    elif flow:
        assert found is not None


def test_characters_yaml_refuses_are_reported_as_such_not_as_a_crash_of_the_guard():
    # long enough for the event pass, and refused by both YAML readers before any bound
    text = "---\nname: odd\ndescription: d\nx: [\x00, " + "[" * 60 + "]" * 61 + "\ny: " + "a" * 6000 + "\n---\nb\n"
    try:
        skillmd.parse_document(text, "odd/SKILL.md")
    except SkillParseError as e:
        assert "U+0000" in str(e) and e.line == 4
    else:
        raise AssertionError("not refused")


@pytest.mark.parametrize("text", ['---\n"""\\U01000000*\n---\n', '---\nname: "\\U7fffffff" *a\n---\n',
                                  '---\na: &a x\nb: "\\U00110000" *a\n---\n'])
def test_an_escape_past_unicode_is_a_parse_error_with_its_line(text):
    from skill_studio.core.format import skillmd

    with pytest.raises(skillmd.SkillParseError, match="invalid Unicode character escape"):
        skillmd.parse_document(text)


def test_the_strict_profile_names_an_escape_past_unicode_by_its_line():
    diags, _parsed = check_strict(b'---\nname: e\ndescription: "\\U7fffffff"\n---\n# X\n', "e")
    [error] = [d for d in diags if d.severity == "error"]
    assert "invalid Unicode character escape code \\U7fffffff at line 3" in error.message
