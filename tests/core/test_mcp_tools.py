"""The Model Context Protocol tools as plain calls: what the gate lets agents see, loading (the use
recorded), files confined to their skill, outcomes feeding the scores, and what agents may write
(candidates for review; reviewed skills only with --allow-manage), all in the audit log."""

from __future__ import annotations

from dataclasses import replace

import pytest
import yaml
from conftest import make

from skill_studio.core.format.tool_files import check_tools
from skill_studio.core.model import Lifecycle, Origin, SkillFile, TrustTier
from skill_studio.core.review.queue import queue
from skill_studio.mcp_server import tools
from skill_studio.mcp_server.tools import AGENT, ToolRefused


@pytest.fixture
def library(store):
    store.add(make("pdf-forms", "Fill PDF forms field by field. Use when a task has a .pdf form.",
                   files=[SkillFile("references/fields.md", b"# Fields\nName, date.\n", 0o644),
                          SkillFile("assets/logo.png", b"\x89PNG\r\n\x1a\n\0\0\0binary", 0o644)]))
    store.add(replace(make("release-notes", "Write release notes from merged changes. Use when preparing a "
                           "release."), tags=["writing"]))
    hidden = make("draft-idea", "An unreviewed idea. Use when never.")
    hidden.origin, hidden.lifecycle, hidden.trust_tier = Origin.LLM, Lifecycle.CANDIDATE, TrustTier.UNTRUSTED
    store.add(hidden)
    return store


def test_the_tools_keep_the_studios_own_tool_rules():
    text = yaml.safe_dump({"tools": [{"name": t.name, "description": t.description, "parameters": t.schema}
                                     for t in tools.TOOLS]})
    assert check_tools(text) == []


def test_list_and_search_show_only_what_the_gate_lets_through(library):
    listed = tools.list_skills(library)
    assert [s["name"] for s in listed] == ["pdf-forms", "release-notes"]
    assert listed[0]["stars"] == "★★★☆" and listed[0]["lifecycle"] == "released"
    assert [s["name"] for s in tools.list_skills(library, tag="writing")] == ["release-notes"]
    assert tools.list_skills(library, origin="llm") == []
    found = tools.search_skills(library, "fill a pdf form")
    assert found["skills"][0]["name"] == "pdf-forms" and found["skills"][0]["score"] > 0
    assert "draft-idea" not in [s["name"] for s in tools.search_skills(library, "unreviewed idea")["skills"]]
    with pytest.raises(ToolRefused, match="query is empty"):
        tools.search_skills(library, "  ")


def test_load_gives_the_skill_md_and_records_the_use(library):
    before = library.get("pdf-forms", with_files=False).last_used_at
    text = tools.load_skill(library, "pdf-forms")
    assert text.startswith("---\nname: pdf-forms")
    assert library.get("pdf-forms", with_files=False).last_used_at != before
    with pytest.raises(ToolRefused, match='"draft-idea" is kept from agents'):
        tools.load_skill(library, "draft-idea")
    with pytest.raises(ToolRefused, match='no skill named "nope"'):
        tools.load_skill(library, "nope")


def test_a_file_is_read_inside_its_skill_only(library):
    assert tools.read_skill_file(library, "pdf-forms", "references/fields.md") == "# Fields\nName, date.\n"
    assert tools.read_skill_file(library, "pdf-forms", "./references/fields.md").startswith("# Fields")
    with pytest.raises(ToolRefused, match=r"binary file \(17 bytes\)"):
        tools.read_skill_file(library, "pdf-forms", "assets/logo.png")
    for escape in ("../release-notes/SKILL.md", "/etc/passwd", "references/../../x", ""):
        with pytest.raises(ToolRefused, match="a path inside the skill"):
            tools.read_skill_file(library, "pdf-forms", escape)
    with pytest.raises(ToolRefused, match="its files: references/fields.md, assets/logo.png|its files: assets"):
        tools.read_skill_file(library, "pdf-forms", "missing.md")
    with pytest.raises(ToolRefused, match="load_skill"):
        tools.read_skill_file(library, "pdf-forms", "SKILL.md")


def test_an_outcome_moves_the_scores_and_is_audited(library):
    before = library.get("release-notes", with_files=False)
    result = tools.record_outcome(library, "release-notes", False, "the changelog format was wrong")
    after = library.get("release-notes", with_files=False)
    assert after.use_count == before.use_count + 1 and after.success_rate < before.success_rate
    assert result["uses"] == after.use_count
    (entry,) = [e for e in library.audit_log("release-notes") if e.action == "use"]
    assert (entry.actor, entry.to_value, entry.reason) == (AGENT, "failure", "the changelog format was wrong")


def test_a_created_skill_is_a_candidate_in_the_review_queue(library):
    made = tools.manage_skill(library, "create", name="csv-cleanup", description="Clean a CSV file. Use when a "
                              "CSV has stray quotes.", reason="found while fixing exports")
    assert made["created"] == "csv-cleanup"
    skill = library.get("csv-cleanup", with_files=False)
    assert (skill.origin, skill.lifecycle, int(skill.trust_tier)) == (Origin.LLM, Lifecycle.CANDIDATE, 1)
    assert "csv-cleanup" in [s.name for s in queue(library)]
    assert library.versions("csv-cleanup")[0].author == AGENT


def test_an_update_is_proposed_as_a_candidate_and_the_reviewed_skill_is_untouched(library):
    original = library.get("release-notes").skill_md
    text = original.replace("Body text.", "Body text.\n\nGroup the changes by area.")
    result = tools.manage_skill(library, "propose_update", name="release-notes", skill_md=text, reason="clearer")
    assert result == {"proposed": "release-notes-proposal", "update_of": "release-notes",
                      "note": 'a candidate for review; a reviewer may merge it into "release-notes"'}
    assert library.get("release-notes").skill_md == original
    proposal = library.get("release-notes-proposal")
    assert proposal.lifecycle == Lifecycle.CANDIDATE and "Group the changes by area." in proposal.skill_md
    (entry,) = [e for e in library.audit_log("release-notes-proposal") if e.action == "propose-merge"]
    assert entry.to_value == "release-notes"
    assert tools.manage_skill(library, "propose_update", name="release-notes", skill_md=text)["proposed"] == \
        "release-notes-proposal-2"


@pytest.mark.parametrize("action", ["update", "delete", "merge", "promote", "deprecate", "dependents"])
def test_managing_reviewed_skills_needs_allow_manage(library, action):
    with pytest.raises(ToolRefused, match="--allow-manage"):
        tools.manage_skill(library, action, name="release-notes", reason="x")
    assert "release-notes" in library


def test_with_allow_manage_the_seed_set_runs_through_the_same_operations(library):
    assert tools.manage_skill(library, "promote", allow_manage=True, name="draft-idea",
                              reason="checked")["lifecycle"] == "verified"
    assert tools.manage_skill(library, "dependents", allow_manage=True, name="pdf-forms") == {
        "name": "pdf-forms", "dependents": []}
    tools.manage_skill(library, "delete", allow_manage=True, name="draft-idea", reason="done with it")
    assert "draft-idea" not in library
    assert any(e.actor == AGENT and e.action == "delete" for e in library.audit_log())
    assert tools.manage_skill(library, "deprecate", allow_manage=True, name="pdf-forms")["lifecycle"] == "deprecated"
    (moved,) = [e for e in library.audit_log("pdf-forms") if e.action == "deprecate"]
    assert (moved.actor, moved.reason) == (AGENT, "asked by an agent")
