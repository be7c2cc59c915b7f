"""What POST /api/skills takes: every field of a skill written into its SKILL.md as the designer
writes it (the file and the store agree), or a 400 naming the key and why; promote's 'to'; and an
export that answers with the files instead of writing anywhere."""

from __future__ import annotations

import base64
import http.client
import json

import jsonschema
import pytest
from api_serving import serving

from skill_studio.api.openapi import EXPORT_ANSWER, openapi_document
from skill_studio.api.server import ApiServer
from skill_studio.core.format import skillmd
from skill_studio.core.format.fields import to_skill
from skill_studio.core.library.folder_write import export_folder
from skill_studio.core.model import Lifecycle, SkillFile, TrustTier
from skill_studio.core.ops.skills import FIELD_SPELLINGS, NEW_SKILL_FIELDS, STORE_KEPT, create_skill
from skill_studio.core.store import Store


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("fields") / "store.db")
    with serving(store) as server:
        yield server
    store.close()


def call(server: ApiServer, path: str, body: dict, method: str = "POST") -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=30)
    conn.request(method, path, json.dumps(body), {"Host": "127.0.0.1", "Authorization": f"Bearer {server.token}",
                                                  "Content-Type": "application/json"})
    response = conn.getresponse()
    answer = json.loads(response.read())
    conn.close()
    return response.status, answer


def create(server: ApiServer, name: str, **fields) -> tuple[int, dict]:
    return call(server, "/api/skills", {"name": name, "description": "Made over the API. Use when testing.",
                                        **fields})


# Each field a request may give, the Skill attribute it lands in, and what the store then holds.
FIELDS = [
    ("content", "# Mine\n\nMy own body: no template.\n", "content", "# Mine\n\nMy own body: no template.\n"),
    ("body", "Just a line.", "content", "Just a line."),
    ("content", "", "content", ""),
    ("steps", ["Read the form", {"action": "Fill it"}, {"n": 3, "action": "Check it"}], "steps",
     [{"n": 1, "action": "Read the form"}, {"n": 2, "action": "Fill it"}, {"n": 3, "action": "Check it"}]),
    ("tags", ["pdf", "forms", "pdf"], "tags", ["pdf", "forms"]),
    ("depends_on", ["release-notes", "other-skill"], "depends_on", ["release-notes", "other-skill"]),
    ("conflicts_with", ["rival"], "conflicts_with", ["rival"]),
    ("trigger_pattern", "when a PDF form: arrives", "trigger_pattern", "when a PDF form: arrives"),
    ("parent_skill_id", "documents", "parent_skill_id", "documents"),
    ("parent", "documents", "parent_skill_id", "documents"),
    ("license", "Apache-2.0", "license", "Apache-2.0"),
    ("compatibility", "Python 3.11 and poppler", "compatibility", "Python 3.11 and poppler"),
    ("allowed-tools", "Bash Read", "allowed_tools", "Bash Read"),
    ("allowed_tools", "Bash(git:*) Read", "allowed_tools", "Bash(git:*) Read"),
    ("metadata", {"author": "ann", "version": "1.0"}, "metadata", {"author": "ann", "version": "1.0"}),
]


@pytest.mark.parametrize("key, value, attr, stored", FIELDS, ids=[f"{f[0]}-{i}" for i, f in enumerate(FIELDS)])
def test_every_field_is_written_into_skill_md_and_the_store_agrees(server, key, value, attr, stored):
    name = f"field-{key.replace('_', '-')}-{FIELDS.index((key, value, attr, stored))}"
    status, data = create(server, name, **{key: value})
    assert status == 201, data
    skill = server.store.get(name)
    assert getattr(skill, attr) == stored and data.get(attr, stored) == stored
    # The SKILL.md, read again, gives the same: nothing lives only in the store.
    again = to_skill(skillmd.parse_document(skill.skill_md), name)
    assert getattr(again, attr) == stored
    assert data["skill_md"] == skill.skill_md


def test_every_field_at_once_as_the_core_writes_them(server, tmp_path):
    fields = {"content": "# All\n\n## Steps\n1. From the body\n", "steps": ["From the list"],
              "tags": ["a", "b"], "depends_on": ["x-skill"], "conflicts_with": ["y-skill"],
              "trigger_pattern": "all", "parent_skill_id": "root", "license": "MIT", "compatibility": "any",
              "allowed-tools": "Read", "metadata": {"team": "docs"}}
    assert set(fields) == set(NEW_SKILL_FIELDS)
    status, data = create(server, "every-field", **fields)
    assert status == 201, data
    with Store(tmp_path / "core.db") as core:
        made = create_skill(core, "every-field", "Made over the API. Use when testing.", fields=fields).skill
    stored = server.store.get("every-field")
    assert stored.skill_md == made.skill_md   # the API and the core write the same file
    assert stored.steps == [{"n": 1, "action": "From the list"}]   # the list wins over the body's
    assert stored.metadata == {"team": "docs", "tags": "a b", "depends-on": "x-skill",
                               "conflicts-with": "y-skill", "trigger-pattern": "all", "parent": "root"}
    assert stored.lifecycle == Lifecycle.CANDIDATE and stored.trust_tier == TrustTier.UNTRUSTED
    # The documented request body takes it.
    schema = openapi_document("http://x")["paths"]["/api/skills"]["post"]["requestBody"]["content"][
        "application/json"]["schema"]
    jsonschema.validate({"name": "every-field", "description": "d", **fields}, schema)


def test_without_content_the_template_body_is_used(server):
    status, data = create(server, "templated", template="script", tags=["ops"])
    skill = server.store.get("templated")
    assert status == 201 and "scripts/run.sh" in skill.content and skill.tags == ["ops"]
    assert [f["path"] for f in data["files"]] == ["scripts/run.sh"]


@pytest.mark.parametrize("fields, says", [
    ({"colour": "red"}, "unknown field 'colour'; a new skill takes name, description, template, origin, skill_md, "
                        "content,"),
    ({"colour": "red", "size": 3}, "unknown fields 'colour', 'size'"),
    ({"files": []}, "unknown field 'files'"),
    *[({key: "x"}, f"'{key}': the store keeps this") for key in STORE_KEPT],
    *[({alias: "x", real: "y"}, f"'{alias}' and '{real}' are one field") for alias, real in FIELD_SPELLINGS.items()],
    ({"content": "# Own", "template": "script"}, "'content' replaces the template's body"),
    ({"content": 5}, "'content' must be text, not int"),
    ({"license": ["MIT"]}, "'license' must be text, not list"),
    ({"compatibility": "x" * 501}, "'compatibility' has at most 500 characters (this one has 501)"),
    ({"tags": "pdf forms"}, "'tags' must be a list, not str"),
    ({"tags": ["two words"]}, "'tags' holds one word per item, without spaces or commas: 'two words'"),
    ({"depends_on": ["a,b"]}, "'depends_on' holds one word per item"),
    ({"conflicts_with": [""]}, "'conflicts_with' holds one word per item"),
    ({"depends_on": [3]}, "'depends_on' holds one word per item"),
    ({"steps": "do it"}, "'steps' must be a list, not str"),
    ({"steps": ["ok", "  "]}, "step 2 has no action text"),
    ({"steps": [{"action": "x", "why": "y"}]}, "step 1 must be a text or {\"action\": text}"),
    ({"steps": [{"n": 2, "action": "x"}]}, "step 1 must be a text or"),
    ({"steps": [{"n": True, "action": "x"}]}, "step 1 must be a text or"),
    ({"steps": [["x"]]}, "step 1 has no action text"),
    ({"metadata": {"a": 1}}, "'metadata' must be a map of text keys to text values"),
    ({"metadata": ["a"]}, "'metadata' must be a map"),
    ({"metadata": {"tags": "a"}, "tags": ["b"]}, "metadata 'tags' is the field given beside it"),
    ({"metadata": {"depends-on": "a"}, "depends_on": ["b"]}, "metadata 'depends-on' is the field given beside it"),
    ({"depends_on": ["refused"]}, "'depends_on' names the skill itself"),
    ({"conflicts_with": ["refused"]}, "'conflicts_with' names the skill itself"),
    ({"parent_skill_id": " refused "}, "'parent_skill_id' names the skill itself"),
    ({"parent": "two words"}, "'parent_skill_id' is one skill's name, without spaces"),
    ({"depends_on": ["a"], "conflicts_with": ["a"]}, "'a' is in both depends_on and conflicts_with"),
])
def test_a_field_that_cannot_be_applied_is_refused_by_name_and_nothing_is_written(server, fields, says):
    before = server.store.names()
    status, data = create(server, "refused", **fields)
    assert status == 400 and says in data["error"], data
    assert server.store.names() == before


@pytest.mark.parametrize("extra", [{"content": "# Other"}, {"tags": ["a"]}, {"description": "d"},
                                   {"template": "blank"}, {"steps": ["x"]}, {"body": "x", "license": "MIT"}])
def test_skill_md_goes_with_no_other_field(server, extra):
    text = "---\nname: whole-text\ndescription: Whole. Use when.\n---\n# Whole\n"
    status, data = call(server, "/api/skills", {"skill_md": text, **extra})
    assert status == 400 and "cannot go with 'skill_md', the whole SKILL.md text" in data["error"]
    assert all(f"'{k}'" in data["error"] for k in extra) and "whole-text" not in server.store
    status, data = call(server, "/api/skills", {"skill_md": text, "colour": "red"})
    assert status == 400 and data["error"].startswith("unknown field 'colour'")


def test_the_create_description_lists_every_field(server):
    body = openapi_document("http://x")["paths"]["/api/skills"]["post"]["requestBody"]["content"][
        "application/json"]["schema"]["properties"]
    assert set(NEW_SKILL_FIELDS) <= set(body)
    assert {"name", "description", "template", "origin", "skill_md"} <= set(body)


# --- promote to a state ----------------------------------------------------------------------

def _candidate(server: ApiServer, name: str) -> None:
    assert create(server, name)[0] == 201
    assert server.store.get(name).lifecycle == Lifecycle.CANDIDATE


def test_promote_to_released_takes_each_step(server):
    _candidate(server, "to-released")
    status, data = call(server, "/api/skills/promote", {"name": "to-released", "to": "released", "reason": "ok"})
    assert status == 200 and (data["from"], data["to"], data["through"]) == ("candidate", "released",
                                                                            ["verified", "released"])
    skill = server.store.get("to-released")
    assert skill.lifecycle == Lifecycle.RELEASED and skill.trust_tier == TrustTier.PROVISIONAL
    audit = [(e.from_value, e.to_value, e.reason) for e in server.store.audit_log("to-released")
             if e.action == "promote"]
    assert sorted(audit) == [("candidate", "verified", "ok"), ("verified", "released", "ok")]


def test_promote_to_the_next_state_is_one_step(server):
    _candidate(server, "to-verified")
    status, data = call(server, "/api/skills/promote", {"name": "to-verified", "to": "verified"})
    assert status == 200 and (data["to"], data["through"]) == ("verified", ["verified"])


@pytest.mark.parametrize("to, status, says", [
    ("candidate", 409, 'Cannot promote "{name}" to candidate: it is candidate already'),
    ("deprecated", 409, "promote takes it candidate → verified → released only; to make it deprecated, "
                        "deprecate it"),
    ("archived", 409, "archive it"),
    ("degraded", 409, "promote takes it candidate → verified → released only"),
    ("retired", 400, "unknown lifecycle state 'retired'"),
    (["released"], 400, "'to' must be a string"),
])
def test_promote_refuses_a_state_it_cannot_reach_and_moves_nothing(server, to, status, says):
    name = f"stays-{to if isinstance(to, str) else 'list'}"
    _candidate(server, name)
    got, data = call(server, "/api/skills/promote", {"name": name, "to": to})
    assert got == status and says.format(name=name) in data["error"], data
    assert server.store.get(name).lifecycle == Lifecycle.CANDIDATE and server.store.audit_log(name) == []


@pytest.mark.parametrize("path", ["/api/skills/promote", "/api/skills/deprecate"])
def test_a_move_refuses_keys_it_does_not_take(server, path):
    _candidate(server, f"typo-{path.rsplit('/', 1)[1]}")
    name = f"typo-{path.rsplit('/', 1)[1]}"
    status, data = call(server, path, {"name": name, "target": "released"})
    assert status == 400 and data["error"] == f"{path} does not take 'target'; it takes name, reason, to"
    assert server.store.get(name).lifecycle == Lifecycle.CANDIDATE


# --- export answers with the files -----------------------------------------------------------

def test_export_answers_with_every_file_to_write(server, tmp_path):
    from skill_studio.core.library.folders import build_skill
    from skill_studio.core.model import Origin

    files = [SkillFile("scripts/run.sh", b"#!/bin/sh\necho hi\n", 0o750), SkillFile("assets/logo.png",
                                                                                    b"\x89PNG\r\n\x1a\n\xff", 0o600)]
    text = "---\nname: exported\ndescription: Exported. Use when.\n---\r\nBody\r\n"
    server.store.add(build_skill(text.encode(), "exported", files, origin=Origin.HUMAN, source="x"))
    status, data = call(server, "/api/skills/export", {"name": "exported"})
    assert status == 200
    jsonschema.validate(data, EXPORT_ANSWER)
    assert [(f["path"], f["mode"], f["encoding"]) for f in data["files"]] == [
        ("SKILL.md", "644", "utf-8"), ("assets/logo.png", "644", "base64"), ("scripts/run.sh", "755", "utf-8")]
    # Written out by the client, the files are what an export to a folder writes, byte for byte.
    written = export_folder(server.store.get("exported"), tmp_path / "server")
    for f in data["files"]:
        raw = base64.b64decode(f["content"]) if f["encoding"] == "base64" else f["content"].encode("utf-8")
        on_disk = written / f["path"]
        assert raw == on_disk.read_bytes() and f["size"] == len(raw)
        assert f"{on_disk.stat().st_mode & 0o777:o}" == f["mode"]
    assert data["folder"] == written.name == "exported"


@pytest.mark.parametrize("key", ["path", "dest", "folder"])
def test_export_writes_nowhere_and_says_so(server, tmp_path, key):
    _candidate(server, f"not-written-{key}")
    status, data = call(server, "/api/skills/export", {"name": f"not-written-{key}", key: str(tmp_path)})
    assert status == 400 and f"does not take '{key}'" in data["error"] and "writes nothing" in data["error"]
    assert list(tmp_path.iterdir()) == []
    description = openapi_document("http://x")["paths"]["/api/skills/export"]["post"]["description"]
    assert description.startswith("Writes nothing on this machine")
