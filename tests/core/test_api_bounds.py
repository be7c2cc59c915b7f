"""What one request may ask of the local API: JSON nested past a plain depth is refused in words
before it is decoded, and an import is refused from the file system's root or a system folder and
past a number of skills, counted before anything is written."""

from __future__ import annotations

import http.client
import json
import os
from pathlib import Path

import pytest
from api_serving import serving

from skill_studio.api import routes, sources
from skill_studio.api.server import ApiServer
from skill_studio.core.format.json_nesting import MAX_JSON_DEPTH, json_too_deep


@pytest.fixture
def api(seeded_store):
    with serving(seeded_store) as server:
        yield server


def post(server: ApiServer, path: str, body: bytes) -> tuple[int, dict]:
    port = server.server_address[1]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("POST", path, body=body, headers={"Host": f"127.0.0.1:{port}", "Content-Type": "application/json",
                                                   "Authorization": f"Bearer {server.token}"})
    response = conn.getresponse()
    data = json.loads(response.read())
    conn.close()
    return response.status, data


# --- nesting -------------------------------------------------------------------------------

@pytest.mark.parametrize("text, at", [
    ("[" * 60000, MAX_JSON_DEPTH + 1),
    ('{"a": ' * 60000, 6 * MAX_JSON_DEPTH + 1),
    ('{"a": [' + "[{}, " * 200, 494),     # the '{' of the 98th "[{}, ": 2 + 98 + 1 levels
    ("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH + 1),
    ('["\\"", ' + "[" * MAX_JSON_DEPTH, 7 + MAX_JSON_DEPTH),     # an escaped quote does not end a string
    ('["\\\\", ' + "[" * MAX_JSON_DEPTH, 7 + MAX_JSON_DEPTH),   # an escaped backslash ends its escape
])
def test_json_past_the_depth_is_named_with_where(text, at):
    assert json_too_deep(text) == (f"the JSON is nested more than {MAX_JSON_DEPTH} levels deep "
                                   f"(at character {at})")


@pytest.mark.parametrize("text", [
    "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH,
    '{"a": "' + "[{" * 5000 + '"}',                     # brackets in a string are text
    "[]" * 10000,                                       # many, none deep
    '"' + "[" * 5000,                                   # an unclosed string: the decoder names it
])
def test_json_within_the_depth_passes(text):
    assert json_too_deep(text) is None


@pytest.mark.parametrize("body", ["[" * 60000, '{"name": ' + "[" * 5000 + "]" * 5000 + "}",
                                  '{"name": "x", "description": ' + '{"a": ' * 60000])
def test_an_api_body_nested_too_deep_is_a_plain_400(api, seeded_store, body):
    before = len(seeded_store)
    status, data = post(api, "/api/skills", body.encode())
    assert status == 400
    assert data["error"].startswith(f"the body cannot be read: the JSON is nested more than {MAX_JSON_DEPTH} "
                                    "levels deep (at character ")
    assert len(seeded_store) == before


# --- what an import over the API may read ------------------------------------------------

SYSTEM = ["/", "/proc", "/proc/self/cwd", "/sys", "/sys/kernel", "/dev", "/dev/shm", "/run", "/run/user",
          "/usr", "/etc", "/var", "/boot", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "//", "/usr/.."]


@pytest.mark.skipif(os.name != "posix", reason="posix file system layout")
@pytest.mark.parametrize("path", SYSTEM)
def test_an_import_from_the_root_or_a_system_folder_is_refused(api, seeded_store, path):
    before = len(seeded_store)
    status, data = post(api, "/api/skills/load-human", json.dumps({"path": path}).encode())
    assert status == 400
    assert data["error"].startswith(f"{Path(path)} ")
    assert any(words in data["error"] for words in ("is the root of the file system", "a view of the running system",
                                                     "is a folder of the system itself"))
    assert "give the folder that holds the skills" in data["error"]
    assert len(seeded_store) == before


@pytest.mark.skipif(os.name != "posix", reason="symbolic links")
def test_a_link_to_the_root_is_refused_as_the_root(api, seeded_store, tmp_path):
    link = tmp_path / "everything"
    link.symlink_to("/")
    status, data = post(api, "/api/skills/load-human", json.dumps({"path": str(link)}).encode())
    assert status == 400 and f"{link} is the root of the file system" in data["error"]


def skill_folders(root, count: int) -> None:
    for i in range(count):
        folder = root / f"group-{i % 2}" / f"hand-{i}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: hand-{i}\ndescription: By hand {i}. Use when needed.\n---\n")


def test_an_import_of_more_skills_than_the_cap_writes_nothing(api, seeded_store, tmp_path, monkeypatch):
    monkeypatch.setattr(sources, "MAX_API_IMPORT_SKILLS", 3)
    skill_folders(tmp_path / "many", 4)
    before = len(seeded_store)
    status, data = post(api, "/api/skills/load-human", json.dumps({"path": str(tmp_path / "many")}).encode())
    assert status == 400
    assert data["error"] == (f"{tmp_path / 'many'} holds 4 skills; one import over the API brings at most 3: "
                             "nothing was imported. Give a folder with fewer, or import it with skill-studio import")
    assert (data["found"], data["limit"]) == (4, 3)
    assert len(seeded_store) == before and "hand-0" not in seeded_store


def test_an_import_up_to_the_cap_is_done(api, seeded_store, tmp_path, monkeypatch):
    monkeypatch.setattr(sources, "MAX_API_IMPORT_SKILLS", 3)
    skill_folders(tmp_path / "few", 3)
    status, data = post(api, "/api/skills/load-human", json.dumps({"path": str(tmp_path / "few")}).encode())
    assert status == 200 and [e["status"] for e in data["entries"]] == ["imported"] * 3
    assert all(f"hand-{i}" in seeded_store for i in range(3))


def test_the_cap_is_two_thousand_and_the_description_says_so():
    assert sources.MAX_API_IMPORT_SKILLS == 2000
    route = next(r for r in routes.ROUTES if r.path == "/api/skills/load-human")
    assert "at most 2,000" in route.summary
