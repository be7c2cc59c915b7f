"""The runtime descriptor: several consumers each with its rule, enabled and disabled skills with
why, a skills root relative to a bundle root, reading it back and checking it against the store."""

from __future__ import annotations

import json

import pytest
from conftest import make

from skill_studio.cli import main
from skill_studio.core.library.descriptor import (
    NOT_INSTALLED,
    ConsumerRule,
    DescriptorError,
    build_descriptor,
    check_descriptor,
    read_descriptor,
    save_descriptor,
)
from skill_studio.core.library.install_manifest import write_manifest

CANDIDATE = "lifecycle is candidate (not exposed)"


@pytest.fixture
def lib(agents_library):
    """pdf-extract (tags pdf, documents …) and release-notes (release, writing …) pass the gate;
    python-test-writer is a candidate the gate keeps out."""
    return agents_library


def put(lib, root, names):
    """A folder holding ``names`` as an install by the studio leaves it (folders and manifest)."""
    root.mkdir(parents=True, exist_ok=True)
    entries = {}
    for name in names:
        skill = lib.get(name)
        (root / name).mkdir()
        (root / name / "SKILL.md").write_text(skill.skill_md)
        entries[name] = {"mode": "copy", "version": skill.version, "content_hash": skill.content_hash or "",
                         "files": {}}
    write_manifest(root, {"skills": entries})


def disabled(config, consumer):
    return {d["name"]: d["reason"] for d in config["agents_config"][consumer]["disabled"]}


def test_each_consumer_has_its_rule_and_every_skill_is_enabled_or_disabled_with_why(lib, tmp_path):
    rules = [ConsumerRule("claude"), ConsumerRule("ci", only=("tag:pdf",)),
             ConsumerRule("docs", exclude=("pdf-extract",)), ConsumerRule("writers", exclude=("tag:writing",)),
             ConsumerRule("both", only=("release-notes", "tag:ocr"))]
    d = build_descriptor(lib, tmp_path / "skills", rules)
    assert d["version"] == 2 and list(d["agents_config"]) == ["claude", "ci", "docs", "writers", "both"]
    enabled = {name: c["enabled"] for name, c in d["agents_config"].items()}
    assert enabled == {"claude": ["pdf-extract", "release-notes"], "ci": ["pdf-extract"], "docs": ["release-notes"],
                       "writers": ["pdf-extract"], "both": ["pdf-extract", "release-notes"]}
    assert disabled(d, "ci") == {"python-test-writer": CANDIDATE,
                                 "release-notes": "not selected for ci (only tag:pdf)"}
    assert disabled(d, "docs")["pdf-extract"] == "excluded for docs (pdf-extract)"
    assert disabled(d, "writers")["release-notes"] == "excluded for writers (tag:writing)"
    for name, c in d["agents_config"].items():     # the gate holds for every consumer, whatever its rule
        assert disabled(d, name)["python-test-writer"] == CANDIDATE
        assert sorted(c["enabled"] + [x["name"] for x in c["disabled"]]) == sorted(lib.names())
    assert d["agents_config"]["ci"]["only"] == ["tag:pdf"] and d["agents_config"]["docs"]["exclude"] == ["pdf-extract"]


def test_the_gate_wins_over_a_rule_that_names_the_skill(lib, tmp_path):
    d = build_descriptor(lib, tmp_path / "skills", [ConsumerRule("tests", only=("python-test-writer",))])
    assert d["agents_config"]["tests"]["enabled"] == []
    assert disabled(d, "tests")["python-test-writer"] == CANDIDATE


def test_only_what_the_folder_holds_is_enabled(lib, tmp_path):
    root = tmp_path / "skills"
    put(lib, root, ["pdf-extract"])
    d = build_descriptor(lib, root, [ConsumerRule("a"), ConsumerRule("b", exclude=("release-notes",))])
    assert d["agents_config"]["a"]["enabled"] == ["pdf-extract"] == d["agents_config"]["b"]["enabled"]
    assert disabled(d, "a")["release-notes"] == NOT_INSTALLED
    assert disabled(d, "b")["release-notes"] == "excluded for b (release-notes)"   # the rule says more


@pytest.mark.parametrize("root, written", [("bundle/skills", "skills"), ("bundle/.agents/skills", ".agents/skills"),
                                           ("bundle", ".")])
def test_a_root_inside_the_bundle_is_written_relative_to_it(lib, tmp_path, root, written):
    d = build_descriptor(lib, tmp_path / root, bundle_root=tmp_path / "bundle")
    assert d["custom_skills_root"] == written and d["bundle_root"] == str(tmp_path / "bundle")
    assert read_descriptor(d).skills_root == tmp_path / root


def test_a_bundle_reached_through_a_link_still_holds_its_root(lib, tmp_path):
    (tmp_path / "real" / "skills").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    d = build_descriptor(lib, tmp_path / "real" / "skills", bundle_root=tmp_path / "link")
    assert d["custom_skills_root"] == "skills"


@pytest.mark.parametrize("root", ["elsewhere/skills", "bundle-2/skills", "."])
def test_a_root_outside_the_bundle_is_refused_by_name(lib, tmp_path, root):
    with pytest.raises(DescriptorError, match="is not inside the bundle root .*absolute path"):
        build_descriptor(lib, tmp_path / root, bundle_root=tmp_path / "bundle")


def test_without_a_bundle_root_the_root_is_absolute(lib, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    d = build_descriptor(lib, "skills")
    assert d["bundle_root"] is None and d["custom_skills_root"] == str((tmp_path / "skills").resolve())


@pytest.mark.parametrize("rules, message", [
    ([ConsumerRule("ci", only=("pdf-extrct",))], 'consumer "ci": no skill named "pdf-extrct"'),
    ([ConsumerRule("ci", exclude=("tag:nope",))], 'consumer "ci": no skill of the store has the tag "nope"'),
    ([ConsumerRule("ci", only=("tag:",))], '"tag:" selects nothing'),
    ([ConsumerRule("ci", only=("",))], '"" selects nothing'),
    ([ConsumerRule("ci"), ConsumerRule("ci", only=("tag:pdf",))], 'the consumer "ci" is named twice'),
    ([ConsumerRule("")], "not a consumer name"),
    ([ConsumerRule(" ci")], "not a consumer name"),
])
def test_a_consumer_that_cannot_be_meant_is_refused(lib, tmp_path, rules, message):
    with pytest.raises(DescriptorError, match=message):
        build_descriptor(lib, tmp_path / "skills", rules)


def test_written_and_read_back(lib, tmp_path):
    bundle = tmp_path / "bundle"
    rules = [ConsumerRule("claude"), ConsumerRule("ci", only=("tag:pdf",), exclude=("release-notes",))]
    data = build_descriptor(lib, bundle / "skills", rules, bundle_root=bundle)
    path = save_descriptor(data, bundle / "skills-descriptor.json")
    assert json.loads(path.read_text()) == data and [p.name for p in bundle.iterdir()] == [path.name]
    back = read_descriptor(path)
    assert back.version == 2 and back.skills_root == bundle / "skills" and back.bundle_root == bundle
    assert back.custom_skills_root == "skills" and list(back.consumers) == ["claude", "ci"]
    ci = back.consumers["ci"]
    assert ci.rule == rules[1] and ci.enabled == ("pdf-extract",)
    assert dict(ci.disabled) == disabled(data, "ci")


def test_a_relative_root_follows_the_bundle_it_is_read_with(lib, tmp_path):
    data = build_descriptor(lib, tmp_path / "bundle" / "skills", bundle_root=tmp_path / "bundle")
    moved = tmp_path / "unpacked"
    assert read_descriptor(data, bundle_root=moved).skills_root == moved / "skills"
    data["bundle_root"] = None
    with pytest.raises(DescriptorError, match='"skills" is relative but no bundle root is given.*--bundle-root'):
        read_descriptor(data)
    data["bundle_root"] = ".."       # relative to the descriptor's own folder
    path = save_descriptor(data, tmp_path / "unpacked" / "meta" / "d.json")
    assert read_descriptor(path).skills_root == tmp_path / "unpacked" / "skills"


def test_the_single_consumer_shape_is_still_read(tmp_path):
    old = {"skills_root": str(tmp_path / "skills"),
           "consumers": {"default": {"enabled": ["a"], "disabled": [{"name": "b", "reason": "trust 1 < 2"}]}}}
    back = read_descriptor(old)
    assert back.version == 1 and back.skills_root == tmp_path / "skills" and back.bundle_root is None
    assert back.consumers["default"].enabled == ("a",) and back.consumers["default"].disabled == (("b", "trust 1 < 2"),)


GOOD = {"version": 2, "bundle_root": None, "custom_skills_root": "/abs/skills",
        "agents_config": {"claude": {"enabled": ["a"], "disabled": [{"name": "b", "reason": "why"}]}}}


def changed(**top):
    data = json.loads(json.dumps(GOOD))
    data.update(top)
    return data


def consumer(**fields):
    return changed(agents_config={"claude": {**GOOD["agents_config"]["claude"], **fields}})


@pytest.mark.parametrize("data, message", [
    ([1, 2], "expected a JSON object"),
    (changed(version=3), "version 3 is not one this studio reads"),
    (changed(version=True), "version True is not one"),
    (changed(version="2"), "version '2' is not one"),
    (changed(custom_skills_root=""), '"custom_skills_root" must be the skills folder'),
    (changed(custom_skills_root=None), '"custom_skills_root" must be the skills folder'),
    (changed(bundle_root=7), '"bundle_root" must be a path or null'),
    (changed(agents_config={}), '"agents_config" must map each consumer'),
    (changed(agents_config=["claude"]), '"agents_config" must map each consumer'),
    (changed(agents_config={"claude": "all"}), 'consumer "claude": must be an object'),
    (consumer(enabled="a"), '"enabled" must be a list of names'),
    (consumer(enabled=[1]), '"enabled" must be a list of names'),
    (consumer(only="tag:x"), '"only" must be a list of names'),
    (consumer(disabled=[{"name": "b"}]), '"disabled" must be a list of'),
    (consumer(disabled=["b"]), '"disabled" must be a list of'),
    (consumer(disabled=None), '"disabled" must be a list of'),
    (consumer(enabled=["b"]), "listed more than once: b"),
    (consumer(enabled=["a", "a"]), "listed more than once: a"),
])
def test_a_descriptor_of_the_wrong_shape_is_refused_by_name(tmp_path, data, message):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(DescriptorError, match=message) as e:
        read_descriptor(path)
    assert str(path) in str(e.value)


@pytest.mark.parametrize("content", [None, "{not json", b"\xff\xfe{}"])
def test_a_file_that_is_not_a_descriptor_is_refused_by_name(tmp_path, content):
    path = tmp_path / "d.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    with pytest.raises(DescriptorError, match="d.json"):
        read_descriptor(path)


def test_a_fresh_descriptor_has_nothing_to_report(lib, tmp_path):
    root = tmp_path / "skills"
    put(lib, root, ["pdf-extract", "release-notes"])
    data = build_descriptor(lib, root, [ConsumerRule("claude"), ConsumerRule("ci", only=("tag:pdf",))])
    assert check_descriptor(lib, read_descriptor(data)) == []


def test_the_check_reports_what_no_longer_holds(lib, tmp_path):
    root = tmp_path / "skills"
    put(lib, root, ["pdf-extract", "release-notes"])
    data = build_descriptor(lib, root, [ConsumerRule("claude"), ConsumerRule("ci", only=("tag:pdf",))])
    lib.set_state("release-notes", lifecycle="candidate")       # enabled, now kept out by the gate
    lib.set_state("python-test-writer", lifecycle="released")   # disabled by the gate, passes now …
    lib.delete("pdf-extract")                                   # enabled, gone from the store
    lib.add(make("csv-tidy", "Tidies CSV files. Use when cleaning CSV data."))       # not listed
    lib.set_state("csv-tidy", lifecycle="released")
    found = {(f.consumer, f.name): f.problem for f in check_descriptor(lib, read_descriptor(data))}
    assert found[("claude", "pdf-extract")] == found[("ci", "pdf-extract")] == "unknown to the store"
    assert found[("claude", "release-notes")] == f"enabled, but now disabled: {CANDIDATE}"
    assert ("ci", "release-notes") not in found      # disabled for ci before and now
    assert ("claude", "python-test-writer") not in found     # … but is not in the folder
    assert found[("claude", "csv-tidy")] == ("not listed (new since it was written; it would be disabled: "
                                             f"{NOT_INSTALLED})")
    assert "not selected for ci" in found[("ci", "csv-tidy")]


def test_the_check_reports_a_skill_that_would_be_enabled_now_and_missing_folders(lib, tmp_path):
    root = tmp_path / "skills"
    data = build_descriptor(lib, root)          # a folder the studio did not install into: the gated set
    root.mkdir()
    (root / "pdf-extract").mkdir()
    lib.set_state("python-test-writer", lifecycle="released")
    found = [str(f) for f in check_descriptor(lib, read_descriptor(data))]
    assert found == [f"default: release-notes: enabled, but {root / 'release-notes'} is missing",
                     "default: python-test-writer: disabled, but would be enabled now"]
    (root / "pdf-extract").rmdir()
    root.rmdir()
    assert f"the skills root {root} is not a folder" in [str(f) for f in check_descriptor(lib, read_descriptor(data))]


def test_the_check_reports_an_unreadable_manifest_instead_of_failing(lib, tmp_path):
    root = tmp_path / "skills"
    put(lib, root, ["pdf-extract", "release-notes"])
    data = build_descriptor(lib, root)
    (root / ".skill-studio-install.json").write_text("[1]")
    found = [str(f) for f in check_descriptor(lib, read_descriptor(data))]
    assert len(found) == 1 and "not an install manifest" in found[0]


def test_the_command_writes_several_consumers_and_checks_them(lib, tmp_path, capsys):
    store, bundle = str(lib.path), tmp_path / "bundle"
    put(lib, bundle / "skills", ["pdf-extract", "release-notes"])
    assert main(["--store", store, "descriptor", "--root", str(bundle / "skills"), "--bundle-root", str(bundle),
                 "--consumer", "claude", "--consumer", "ci", "--only", "tag:pdf", "--exclude", "release-notes",
                 "--consumer", "docs", "--exclude", "tag:ocr"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["custom_skills_root"] == "skills" and list(data["agents_config"]) == ["claude", "ci", "docs"]
    assert data["agents_config"]["ci"]["only"] == ["tag:pdf"] and data["agents_config"]["ci"]["enabled"] == [
        "pdf-extract"]
    assert data["agents_config"]["docs"]["enabled"] == ["release-notes"]
    path = save_descriptor(data, tmp_path / "d.json")
    assert main(["--store", store, "descriptor", "--check", str(path)]) == 0
    assert "0 problem(s)" in capsys.readouterr().out
    moved = tmp_path / "moved"
    assert main(["--store", store, "descriptor", "--check", str(path), "--bundle-root", str(moved)]) == 1
    assert f"the skills root {moved / 'skills'} is not a folder" in capsys.readouterr().out
    lib.set_state("pdf-extract", lifecycle="candidate")
    assert main(["--store", store, "descriptor", "--check", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"ci: pdf-extract: enabled, but now disabled: {CANDIDATE}" in out and "2 problem(s)" in out


def test_a_selector_before_any_consumer_is_the_default_consumers(lib, tmp_path, capsys):
    assert main(["--store", str(lib.path), "descriptor", "--root", str(tmp_path), "--only", "tag:release"]) == 0
    config = json.loads(capsys.readouterr().out)["agents_config"]
    assert list(config) == ["default"] and config["default"]["enabled"] == ["release-notes"]


@pytest.mark.parametrize("argv, code, message", [
    (["descriptor"], 2, "needs the skills folder (--root DIR)"),
    (["descriptor", "--root", "R", "--consumer", "ci", "--only", "nope"], 2, 'consumer "ci": no skill named "nope"'),
    (["descriptor", "--root", "R", "--consumer", "x", "--consumer", "x"], 2, "named twice"),
    (["descriptor", "--root", "R", "--bundle-root", "elsewhere"], 2, "is not inside the bundle root"),
    (["descriptor", "--check", "D", "--root", "R"], 2, "leave out --root"),
    (["descriptor", "--check", "D", "--consumer", "ci"], 2, "leave out --root"),
    (["descriptor", "--check", "missing.json"], 1, "missing.json"),
])
def test_the_command_says_what_is_wrong(lib, tmp_path, capsys, monkeypatch, argv, code, message):
    monkeypatch.chdir(tmp_path)
    assert main(["--store", str(lib.path), *argv]) == code
    assert message in capsys.readouterr().err
