"""Fuzzing the SKILL.md codec and the validators: random bytes, text and YAML documents give only the
documented errors, every parseable input serialises back to the same bytes, and a one-field edit
changes that field alone.

``SKILL_STUDIO_FUZZ_EXAMPLES`` sets the number of examples per test (a few hundred by default; set
it to tens of thousands for a long run).
"""

from __future__ import annotations

import datetime
import os
import re
import string
import tempfile
from pathlib import Path

import yaml
from hypothesis import HealthCheck, assume, event, example, given, settings
from hypothesis import strategies as st

from skill_studio.core.format import skillmd, validate
from skill_studio.core.format.fields import LIST_FIELDS, _as_list, set_studio_field, to_skill
from skill_studio.core.format.frontmatter import set_field
from skill_studio.core.format.lenient import check_lenient
from skill_studio.core.format.skillmd import SkillParseError
from skill_studio.core.format.strict import check_strict
from skill_studio.core.format.yaml_guard import MAX_DEPTH, MAX_VALUES

EXAMPLES = int(os.environ.get("SKILL_STUDIO_FUZZ_EXAMPLES", "300"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                       HealthCheck.data_too_large])

# --- strategies --------------------------------------------------------------------

# Characters that matter to YAML and to the frontmatter split, and a few that YAML refuses.
_YAML_CHARS = ("-:#[]{}&*!|>'\"?,.%@`~=<\\/ \t\n\r" + string.ascii_letters[:8] + "019"
               + "\ufeff\x00\x1b\x85\u2028\u202e\u00e9\u0430\U0001f600\udcff")
yamlish_text = st.text(alphabet=st.sampled_from(_YAML_CHARS), max_size=300)
newlines = st.sampled_from(["\n", "\r\n", "\r"])

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=40),
    st.dates(), st.datetimes(timezones=st.none() | st.just(datetime.UTC)),
    st.binary(max_size=20),
)
documents = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.one_of(st.text(max_size=12), st.integers(), st.booleans()), children, max_size=4),
    max_leaves=20,
)


class _BlockRootDumper(yaml.SafeDumper):
    """Writes the top mapping in block style, whatever style the values inside take."""

    def serialize(self, node: yaml.Node) -> None:
        if isinstance(node, yaml.MappingNode):
            node.flow_style = False
        super().serialize(node)


@st.composite
def yaml_text(draw, garbage: bool = True) -> str:
    """A YAML document from a random value, in a random style; with ``garbage``, sometimes with
    random YAML-ish text inserted, else with its top mapping in block style (as frontmatter is)."""
    mappings = st.dictionaries(st.text(max_size=15), documents, max_size=6) | st.builds(
        lambda d, n: {"name": n, "description": "Does x. Use when y.", **d},
        st.dictionaries(st.text(max_size=15), documents, max_size=4), st.text(max_size=20))
    value = draw(mappings | documents if garbage else mappings)
    text = yaml.dump(value, Dumper=yaml.SafeDumper if garbage else _BlockRootDumper,
                     default_flow_style=draw(st.sampled_from([False, True, None])),
                     allow_unicode=draw(st.booleans()), width=draw(st.sampled_from([20, 80, 10_000])),
                     indent=draw(st.sampled_from([2, 4])), sort_keys=draw(st.booleans()))
    for _ in range(draw(st.integers(0, 3)) if garbage else 0):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(yamlish_text.filter(bool)) + text[at:]
    return text


@st.composite
def skill_md_text(draw, garbage: bool = True) -> str:
    """A SKILL.md: prefix, fences (with trailing blanks), a random YAML frontmatter, a random body."""
    nl = draw(newlines)
    prefix = draw(st.sampled_from(["", "\ufeff", "\n", "\ufeff\n\n", " \n"]))
    front = draw(yaml_text() | yamlish_text) if garbage else draw(yaml_text(garbage=False))
    body = draw(st.text(max_size=200) | yamlish_text)
    fence = draw(st.sampled_from(["---", "--- ", "---\t"]))
    text = prefix + fence + "\n" + front + ("" if front.endswith("\n") else "\n") + "---\n" + body
    if draw(st.booleans()):
        text = text.replace("\r\n", "\n").replace("\n", nl)
    return text


@st.composite
def aliased_yaml(draw) -> str:
    """Frontmatter whose entries anchor values and alias earlier ones (lists, merges, sometimes
    themselves): the shapes of alias bombs, at random sizes."""
    lines = ["name: fuzz", "description: Does x. Use when y."]
    anchors: list[str] = []
    maps: list[str] = []  # the anchors of mappings, which merge keys may take
    for i in range(draw(st.integers(1, 20))):
        kind = draw(st.sampled_from(["scalar", "flow", "block", "merge", "nested"]))
        pool = maps if kind == "merge" else anchors
        refs = [f"*{a}" for a in draw(st.lists(st.sampled_from(pool), max_size=8))] if pool else []
        refs *= draw(st.sampled_from([1, 1, 2, 5]))
        if draw(st.sampled_from([False] * 40 + [True])):
            refs.append(f"*a{i}")  # an alias inside the node it names
        if kind == "scalar" or not refs:
            lines.append(f"k{i}: &a{i} v{i}")
        elif kind == "flow":
            lines.append(f"k{i}: &a{i} [" + ", ".join(refs) + "]")
        elif kind == "block":
            lines += [f"k{i}: &a{i}"] + [f"  - {r}" for r in refs]
        elif kind == "merge":
            lines += [f"k{i}: &a{i}", "  <<: [" + ", ".join(refs) + "]", f"  own{i}: v"]
            maps.append(f"a{i}")
        else:
            lines += [f"k{i}: &a{i}", "  - - " + refs[0], "    - {x: " + refs[-1] + "}"]
        anchors.append(f"a{i}")
    return "---\n" + "\n".join(lines) + "\n---\nBody\n"


def _size_and_depth(value, budget: int) -> tuple[int, int]:
    """Values and nesting of loaded data, repeated references counted each time (stops past ``budget``)."""
    size, depth = 0, 0
    stack = [(value, 1)]
    while stack and size <= budget:
        item, level = stack.pop()
        size += 1
        depth = max(depth, level)
        if isinstance(item, dict):
            size += len(item)
            stack.extend((v, level + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, level + 1) for v in item)
    return size, depth


any_bytes = st.binary(max_size=3000)
any_text = st.one_of(st.text(max_size=600), yamlish_text, skill_md_text())


# --- the codec ---------------------------------------------------------------------


def _parse_or_refuse(data: bytes | str):
    try:
        doc = skillmd.parse_document(data, "fuzz/SKILL.md")
    except SkillParseError as e:
        assert e.path == "fuzz/SKILL.md" and str(e).startswith("fuzz/SKILL.md")
        assert e.line is None or e.line >= 1
        event("refused: " + re.sub(r"\d+|'[^']*'", "N", e.message)[:32])
        return None
    event("parsed")
    return doc


def _assert_round_trip(data: bytes | str, doc) -> None:
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    assert doc.text == text
    assert doc.head + doc.body == text
    assert doc.prefix + doc.open_fence + doc.frontmatter_text + doc.close_fence + doc.body == text
    if isinstance(data, bytes):
        assert (doc.head + doc.body).encode("utf-8") == data
    assert isinstance(doc.data, dict) and all(isinstance(k, str) for k in doc.data)
    skill = to_skill(doc, "fuzz")
    assert skill.skill_md == text and skill.content == doc.body


@FUZZ
@given(any_bytes | st.builds(lambda t: t.encode("utf-8", "surrogatepass"), any_text))
def test_bytes_give_a_document_or_a_parse_error(data):
    try:
        text = skillmd.decode(data, "fuzz/SKILL.md")
    except SkillParseError:
        text = None
    if text is not None:
        assert text.encode("utf-8", "surrogatepass") == data
        try:
            skillmd.split(text, "fuzz/SKILL.md")
        except SkillParseError:
            pass
    doc = _parse_or_refuse(data)
    if doc is not None:
        _assert_round_trip(data, doc)


@FUZZ
@given(any_text)
@example("---\nname: \ud800\ndescription: d\n---\n")  # a lone surrogate
@example("---\nk: " + "[" * 100_000 + "]" * 100_000 + "\n---\n")  # deeper than libyaml's binding survives
def test_text_gives_a_document_or_a_parse_error(text):
    doc = _parse_or_refuse(text)
    if doc is not None:
        _assert_round_trip(text, doc)


@FUZZ
@given(aliased_yaml())
def test_aliases_never_expand_past_the_bounds(text):
    doc = _parse_or_refuse(text)
    if doc is not None:
        size, depth = _size_and_depth(doc.data, MAX_VALUES)
        assert size <= MAX_VALUES and depth <= MAX_DEPTH + 1
        to_skill(doc, "fuzz")
    for profile in validate.PROFILES:
        validate.validate_text(text, "fuzz", profile)


@FUZZ
@given(st.one_of(yaml_text(), yamlish_text, st.text(max_size=300)))
@example("[[!!timestamp 0'2000-01-01\n      00:00:00']]\n")  # a tag the text does not fit
@example("a: !!bool maybe")
@example("n: 0x" + "f" * 5000)  # a number that cannot be printed back
@example("\udcff")  # a lone surrogate
def test_yaml_loads_or_gives_a_parse_error(text):
    for load in (skillmd.load_yaml, skillmd.compose_yaml):
        try:
            load(text, "fuzz/SKILL.md", 2)
        except SkillParseError as e:
            assert e.path == "fuzz/SKILL.md" and (e.line is None or e.line >= 2)


# --- the validators ------------------------------------------------------------------


@FUZZ
@given(any_bytes | any_text, st.sampled_from(validate.PROFILES), st.booleans())
def test_validators_return_diagnostics_and_never_raise(content, profile, as_bytes):
    if as_bytes and isinstance(content, str):
        content = content.encode("utf-8", "surrogatepass")
    diags = validate.validate_text(content, "fuzz", profile, files=["scripts/run.sh", "README.md"],
                                   library_names=["fuzz", "other-skill"], path="fuzz/SKILL.md")
    assert all(d.severity in ("error", "warning", "info") and isinstance(d.message, str) for d in diags)
    assert all(d.line is None or d.line >= 1 for d in diags)
    strict, _ = check_strict(content, "fuzz")
    lenient, _ = check_lenient(content, "fuzz", "fuzz/SKILL.md")
    if _parse_or_refuse(content) is None:  # what the codec refuses, lenient refuses with an error
        assert not validate.is_valid(lenient)
    for d in strict + lenient:
        assert d.code[0] in "SLW"


@settings(max_examples=max(20, EXAMPLES // 5), deadline=None, suppress_health_check=list(HealthCheck))
@given(any_bytes | st.builds(lambda t: t.encode("utf-8", "surrogatepass"), skill_md_text()))
def test_validate_dir_reads_any_file(data):
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "fuzz"
        folder.mkdir()
        (folder / "SKILL.md").write_bytes(data)
        for profile in validate.PROFILES:
            diags = validate.validate_dir(folder, profile)
            assert all(isinstance(d.message, str) for d in diags)


# --- editing one field ----------------------------------------------------------------

field_keys = st.one_of(st.sampled_from(["name", "description", "license", "compatibility", "metadata",
                                        "allowed-tools", "tags", "version"]), st.text(min_size=1, max_size=12))
field_values = st.one_of(st.none(), st.text(max_size=80), st.lists(st.text(max_size=20), max_size=4),
                         st.dictionaries(st.text(min_size=1, max_size=10), st.text(max_size=20), max_size=3))


@FUZZ
@given(skill_md_text(garbage=False), field_keys, field_values)
@example("---\n{}\n---\n", "name", "x")  # a flow mapping: refused, not broken
@example("---\n? ''\n: null\n---\n", "name", "")  # an explicit key
@example("---\n'0':\n  ? '\x85    '\n  : null\n---\n", "name", "")  # NEL ends a line for YAML
@example("---\nfalse: false\n---\n", "False", "")  # a key spelt otherwise than it reads
def test_setting_a_field_changes_that_field_alone(text, key, value):
    doc = _parse_or_refuse(text)
    assume(doc is not None)
    try:
        new_text = set_field(doc, key, value)
    except (SkillParseError, ValueError) as e:  # documented: the edit cannot be made in place
        assert str(e).startswith("fuzz/SKILL.md")
        event(f"refused: {type(e).__name__}: {str(e).split(': ', 1)[1][:60]}")
        return
    event("edited")
    new = skillmd.parse_document(new_text, "fuzz/SKILL.md")
    if value is None:
        assert key not in new.data
    else:
        assert new.data[key] == value
    assert {k: v for k, v in new.data.items() if k != key} == {k: v for k, v in doc.data.items() if k != key}
    assert (new.prefix, new.open_fence, new.close_fence, new.body) == \
        (doc.prefix, doc.open_fence, doc.close_fence, doc.body)
    # Only the field's own text changed: taking the field out of both gives the same text (unless
    # two spellings of the key, such as `false:` and `"False":`, both read as it).
    try:
        assert set_field(new, key, None) == set_field(doc, key, None)
    except ValueError as e:
        assert "cannot be edited in place" in str(e)
        event("removal refused")


@FUZZ
@given(skill_md_text(garbage=False), st.sampled_from(["tags", "depends_on", "conflicts_with", "trigger_pattern",
                                         "parent_skill_id"]),
       st.one_of(st.none(), st.text(alphabet=string.ascii_lowercase + "-| .", max_size=30),
                 st.lists(st.text(alphabet=string.ascii_lowercase + "-", min_size=1, max_size=10), max_size=3)))
@example("---\nmetadata: {0: null}\n---\n", "tags", None)  # a key that is not text
def test_setting_a_studio_field_reads_back(text, field_name, value):
    doc = _parse_or_refuse(text)
    assume(doc is not None)
    try:
        new_text = set_studio_field(doc, field_name, value)
    except (SkillParseError, ValueError) as e:
        assert str(e)
        return
    new = skillmd.parse_document(new_text, "fuzz/SKILL.md")
    assert new.body == doc.body
    got = getattr(to_skill(new, "fuzz"), field_name)
    if field_name in LIST_FIELDS:
        assert got == list(dict.fromkeys(_as_list(value)))
    else:
        assert got == (str(value).strip() if value is not None and str(value).strip() else None)
