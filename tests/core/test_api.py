"""The local skills API over a real socket: every endpoint, its errors, the token, the size limit,
the loopback checks, and the OpenAPI description that lists them all."""

from __future__ import annotations

import http.client
import json
from pathlib import Path

import pytest
from api_serving import serving

from skill_studio.api import SERVER_SETTING
from skill_studio.api.routes import ROUTES
from skill_studio.api.server import MAX_BODY_BYTES, ApiServer
from skill_studio.core.model import Lifecycle


@pytest.fixture
def api(seeded_store):
    with serving(seeded_store) as server:
        yield Client(server)


class Client:
    def __init__(self, server: ApiServer):
        self.server, self.port, self.token = server, server.server_address[1], server.token

    def call(self, method: str, path: str, body=None, *, token: str | None = "default", headers=None,
             raw: bytes | None = None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        sent = {"Host": f"127.0.0.1:{self.port}", **(headers or {})}
        if token == "default":
            token = self.token
        if token:
            sent["Authorization"] = f"Bearer {token}"
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        if data is not None:
            sent["Content-Type"] = "application/json"
        conn.request(method, path, body=data, headers=sent)
        response = conn.getresponse()
        payload = response.read()
        conn.close()
        assert response.getheader("Content-Type", "").startswith("application/json")
        return response.status, json.loads(payload)


# --- reading ----------------------------------------------------------------------------

def test_list_and_filters(api, seeded_store):
    status, data = api.call("GET", "/api/skills")
    assert status == 200 and data["total"] == len(seeded_store) == len(data["skills"])
    status, data = api.call("GET", "/api/skills?origin=llm")
    assert status == 200 and data["total"] >= 1 and {s["origin"] for s in data["skills"]} == {"llm"}
    status, data = api.call("GET", "/api/skills?lifecycle=released&origin=human")
    assert {(s["lifecycle"], s["origin"]) for s in data["skills"]} == {("released", "human")}
    assert api.call("GET", "/api/skills?origin=robot") == (400, {"error": "unknown origin 'robot'; expected one "
                                                                          "of human, llm, builtin", "status": 400})
    assert api.call("GET", "/api/skills?lifecycle=retired")[0] == 400


def test_stats(api, seeded_store):
    status, data = api.call("GET", "/api/skills/stats")
    assert status == 200 and data["total"] == len(seeded_store)
    assert sum(data["by_lifecycle"].values()) == data["total"] and set(data["by_origin"]) == {"human", "llm",
                                                                                            "builtin"}
    assert data["bindings"] == {"total": 0, "enabled": 0}


def test_detail(api, seeded_store):
    status, data = api.call("GET", "/api/skills/detail?name=release-notes")
    stored = seeded_store.get("release-notes")
    assert status == 200 and data["skill_md"] == stored.skill_md and data["version"] == stored.version
    assert data["depends_on"] == stored.depends_on and data["versions"][0]["version"] == stored.version
    assert api.call("GET", "/api/skills/detail?name=nope") == (404, {"error": 'no skill named "nope"', "status": 404})
    assert api.call("GET", "/api/skills/detail") == (400, {"error": "missing 'name'", "status": 400})


def test_dependencies(api):
    status, data = api.call("GET", "/api/skills/dependencies?name=release-notes")
    assert status == 200 and [d["name"] for d in data["load_order"]][-1] == "changelog-writer"
    status, data = api.call("GET", "/api/skills/dependencies?name=changelog-writer")
    assert "release-notes" in data["dependents"]
    assert api.call("GET", "/api/skills/dependencies?name=nope")[0] == 404


def test_health(api):
    status, data = api.call("GET", "/api/skills/health?name=release-notes")
    assert status == 200 and data["name"] == "release-notes" and 0 <= data["health"] <= 1
    assert set(data["weights"]) == {"utility", "redundancy", "freshness", "failure"}
    status, plan = api.call("GET", "/api/skills/health")
    assert status == 200 and plan["applied"] is False and "bands" in plan["summary"]
    assert api.call("GET", "/api/skills/health?name=nope")[0] == 404


def test_bindings(api, seeded_store):
    from skill_studio.core.bus import dispatch as bus
    from skill_studio.core.bus.model import Binding

    seeded_store.add_binding(Binding(skill="release-notes", event_type="release.published", action="invoke_skill"))
    bus.dispatch(seeded_store, "release.published", {"tag": "v1"})
    status, data = api.call("GET", "/api/skills/bindings")
    assert status == 200 and data["status"] == {"total": 1, "enabled": 1, "cooling": 0}
    (b,) = data["bindings"]
    assert b["skill"] == "release-notes" and b["skill_description"].startswith("Turns the changelog")
    assert data["events"][0]["event_type"] == "release.published"


# --- writing ----------------------------------------------------------------------------

def test_create_from_a_template_and_from_text(api, seeded_store):
    status, data = api.call("POST", "/api/skills", {"name": "api-made", "description": "Made over the API. Use "
                                                                                          "when testing."})
    assert status == 201 and data["name"] == "api-made" and seeded_store.get("api-made").version == 1
    text = "---\nname: from-text\ndescription: Written whole. Use when testing.\n---\n# From text\n"
    status, data = api.call("POST", "/api/skills", {"skill_md": text, "origin": "llm"})
    assert status == 201 and seeded_store.get("from-text").skill_md == text
    assert seeded_store.get("from-text").lifecycle == Lifecycle.CANDIDATE
    assert api.call("POST", "/api/skills", {"name": "api-made", "description": "Again. Use when."})[0] == 409
    assert api.call("POST", "/api/skills", {"name": "Bad Name", "description": "x"})[0] == 400
    assert api.call("POST", "/api/skills", {"name": "no-description"}) == (400, {"error": "missing 'description'",
                                                                                 "status": 400})
    status, data = api.call("POST", "/api/skills", {"skill_md": "---\nname: [broken\n---\n"})
    assert status == 400 and data["error"].startswith("request/SKILL.md:3:")
    assert api.call("POST", "/api/skills", {"name": "x-y", "description": "d", "template": "nope"})[0] == 400
    assert api.call("POST", "/api/skills", {"name": "x-y", "description": "d", "origin": "builtin"})[0] == 400


def test_promote_and_deprecate(api, seeded_store):
    assert seeded_store.get("python-test-writer").lifecycle == Lifecycle.CANDIDATE
    status, data = api.call("POST", "/api/skills/promote", {"name": "python-test-writer", "reason": "reviewed"})
    assert status == 200 and (data["from"], data["to"], data["through"]) == ("candidate", "verified", ["verified"])
    assert seeded_store.audit_log("python-test-writer")[0].reason == "reviewed"
    status, data = api.call("POST", "/api/skills/deprecate", {"name": "csv-cleanup"})   # archived already
    assert status == 409 and "allowed from archived: restore" in data["error"]
    assert api.call("POST", "/api/skills/promote", {"name": "changelog-writer"})[0] == 409   # builtin
    status, data = api.call("POST", "/api/skills/promote", {"name": "python-test-writer", "to": "verified"})
    assert status == 409 and data["error"].endswith("it is verified already")
    status, data = api.call("POST", "/api/skills/promote", {"name": "python-test-writer", "to": "released"})
    assert status == 200 and (data["from"], data["to"]) == ("verified", "released")
    assert api.call("POST", "/api/skills/deprecate", {"name": "nope"})[0] == 404
    status, _ = api.call("POST", "/api/skills/deprecate", {"name": "python-test-writer", "reason": "replaced"})
    assert status == 200 and seeded_store.get("python-test-writer").lifecycle == Lifecycle.DEPRECATED


def test_merge(api, seeded_store):
    status, data = api.call("POST", "/api/skills/merge", {"target": "git-commit-message", "source": "gitmoji-commits",
                                                          "dry_run": True})
    assert status == 409   # the target is builtin: read-only
    before = seeded_store.get("security-review").version
    status, data = api.call("POST", "/api/skills/merge", {"target": "security-review", "source": "gitmoji-commits",
                                                          "dry_run": True})
    assert status == 200 and data["dry_run"] and seeded_store.get("security-review").version == before
    status, data = api.call("POST", "/api/skills/merge", {"target": "security-review", "source": "gitmoji-commits"})
    assert status == 200 and data["version"] == before + 1 and data["source_lifecycle"] == "archived"
    assert api.call("POST", "/api/skills/merge", {"target": "security-review", "source": "security-review"})[0] == 409
    assert api.call("POST", "/api/skills/merge", {"target": "security-review"})[0] == 400
    assert api.call("POST", "/api/skills/merge", {"target": "security-review", "source": "nope"})[0] == 404


def test_load_human(api, seeded_store, tmp_path):
    folder = tmp_path / ".cortex" / "skills" / "handwritten"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: handwritten\ndescription: By hand. Use when needed.\n---\nBody\n")
    status, data = api.call("POST", "/api/skills/load-human", {"path": str(tmp_path / ".cortex" / "skills")})
    assert status == 200 and data["entries"][0]["status"] == "imported"
    assert seeded_store.get("handwritten").origin.value == "human"
    assert api.call("POST", "/api/skills/load-human", {"path": str(tmp_path / "missing")})[0] == 400


def test_export(api, seeded_store):
    status, data = api.call("POST", "/api/skills/export", {"name": "pdf-extract"})
    stored = seeded_store.get("pdf-extract")
    assert status == 200 and data["skill_md"] == stored.skill_md and data["folder"] == "pdf-extract"
    assert [f["path"] for f in data["files"]] == ["SKILL.md", "tools.yaml"]
    assert data["files"][0]["content"] == stored.skill_md and data["files"][1]["encoding"] == "utf-8"
    assert data["files"][1]["content"].encode() == stored.files[0].data
    assert api.call("POST", "/api/skills/export", {"name": "nope"})[0] == 404


def test_delete(api, seeded_store):
    from skill_studio.core.library.folders import build_skill
    from skill_studio.core.model import Origin

    text = ("---\nname: needs-review\ndescription: Needs the review. Use when.\nmetadata:\n"
            "  depends-on: security-review\n---\n")
    seeded_store.add(build_skill(text.encode(), "needs-review", [], origin=Origin.HUMAN, source="x"))
    status, data = api.call("DELETE", "/api/skills?name=security-review")
    assert status == 409 and "1 other skill(s) depend on it: needs-review" in data["error"]
    status, data = api.call("DELETE", "/api/skills?name=needs-review&reason=obsolete")
    assert status == 200 and "needs-review" not in seeded_store
    assert seeded_store.audit_log("needs-review")[0].reason == "obsolete"
    assert api.call("DELETE", "/api/skills?name=changelog-writer")[0] == 409   # builtin
    assert api.call("DELETE", "/api/skills?name=nope")[0] == 404


# --- the rules of the server ----------------------------------------------------------

def test_every_write_needs_the_token(api, seeded_store):
    writes = [(r.method, r.path) for r in ROUTES if r.writes]
    assert len(writes) == 6
    before = len(seeded_store)
    for method, path in writes:
        assert api.call(method, path, {"name": "release-notes"}, token=None)[0] == 401
        status, data = api.call(method, path, {"name": "release-notes"}, token="wrong")
        assert (status, data["error"]) == (401, "wrong token")
    assert len(seeded_store) == before and seeded_store.get("release-notes").version == 1
    # Reads need none.
    assert api.call("GET", "/api/skills", token=None)[0] == 200


def test_bad_requests_are_named(api):
    assert api.call("POST", "/api/skills", raw=b"{not json")[0] == 400
    assert api.call("POST", "/api/skills", raw=b"[1, 2]") == (400, {"error": "the body must be a JSON object",
                                                                      "status": 400})
    assert api.call("POST", "/api/skills", raw=b"\xff\xfe")[0] == 400
    assert api.call("POST", "/api/skills", {"name": 5, "description": "x"})[0] == 400
    assert api.call("GET", "/api/nothing-here") == (404, {"error": "no endpoint /api/nothing-here", "status": 404})
    status, data = api.call("PATCH", "/api/skills/stats")
    assert status == 405 and "use GET" in data["error"]


def test_a_body_over_the_limit_is_refused_unread(api, seeded_store):
    import socket

    with socket.create_connection(("127.0.0.1", api.port), timeout=30) as sock:
        sock.sendall(f"POST /api/skills HTTP/1.1\r\nHost: 127.0.0.1:{api.port}\r\nAuthorization: Bearer {api.token}"
                     f"\r\nContent-Type: application/json\r\nContent-Length: {MAX_BODY_BYTES + 1}\r\n\r\n"
                     '{"name": "huge", '.encode())
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413") and b"at most" in body
    assert "huge" not in seeded_store


def test_requests_addressed_elsewhere_are_refused(api):
    status, data = api.call("GET", "/api/skills", headers={"Host": "evil.example:80"})
    assert status == 403 and "127.0.0.1" in data["error"]
    assert api.call("GET", "/api/skills", headers={"Host": f"localhost:{api.port}"})[0] == 200


def test_the_server_listens_on_the_loopback_only(api):
    assert api.server.server_address[0] == "127.0.0.1"


def test_the_openapi_description_lists_every_endpoint(api):
    status, doc = api.call("GET", "/api/openapi.json")
    assert status == 200 and doc["openapi"].startswith("3.")
    listed = {(m.upper(), p) for p, ops in doc["paths"].items() for m in ops}
    assert {(r.method, r.path) for r in ROUTES} | {("GET", "/api/openapi.json")} == listed
    for r in ROUTES:
        op = doc["paths"][r.path][r.method.lower()]
        assert ("security" in op) == r.writes and "404" in op["responses"]
        assert set(op.get("requestBody", {}).get("content", {}).get("application/json", {}).get(
            "schema", {}).get("properties", {})) == set(r.body)
    assert "writes nothing" in doc["paths"]["/api/skills/export"]["post"]["description"].lower()
    assert "to" in doc["paths"]["/api/skills/promote"]["post"]["requestBody"]["content"]["application/json"][
        "schema"]["properties"]


def test_serve_prints_the_token_and_leaves_it_for_the_window(tmp_path):
    import subprocess
    import sys

    from skill_studio.core.store import Store

    db = tmp_path / "store.db"
    Store(db).close()
    proc = subprocess.Popen([sys.executable, "-m", "skill_studio", "--store", str(db), "serve", "--port", "0",
                             "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first, token_line = proc.stdout.readline(), proc.stdout.readline()
        url = first.split(" on ")[1].split()[0]
        token = token_line.split(": ")[1].strip()
        with Store(db) as store:
            assert store.setting(SERVER_SETTING)["token"] == token
            assert store.setting(SERVER_SETTING)["url"] == url
        port = int(url.rsplit(":", 1)[1])
        client = Client.__new__(Client)
        client.port, client.token = port, token
        assert client.call("POST", "/api/skills", {"name": "served", "description": "Over the wire. Use when."})[0] \
            == 201
    finally:
        proc.terminate()
        proc.wait(20)
    with Store(db) as store:
        assert "served" in store and store.setting(SERVER_SETTING) is None   # withdrawn on the way out
    assert Path(db).exists()


# --- what a careless or hostile client may send ------------------------------------------

def _raw(api, request: bytes) -> list[bytes]:
    """Send raw bytes on one connection; the answers' status lines, in order."""
    import socket

    with socket.create_connection(("127.0.0.1", api.port), timeout=30) as sock:
        sock.sendall(request)
        sock.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    import re

    return re.findall(rb"HTTP/1\.1 \d{3}[^\r]*", answer)


def test_an_unread_body_is_never_taken_for_the_next_request(api, seeded_store):
    """A refused POST whose body holds another request: the connection closes after the refusal."""
    hidden = f"DELETE /api/skills?name=security-review HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " \
             f"{api.token}\r\n\r\n".encode()
    request = (f"POST /api/skills HTTP/1.1\r\nHost: 127.0.0.1:{api.port}\r\nContent-Length: {len(hidden)}\r\n\r\n"
               .encode() + hidden)
    assert _raw(api, request) == [b"HTTP/1.1 401 Unauthorized"]
    assert "security-review" in seeded_store
    # Keep-alive still works when the body was read.
    body = json.dumps({"name": "security-review"}).encode()
    two = (f"POST /api/skills/export HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {len(body)}\r\n\r\n".encode()
           + body + b"GET /api/skills/stats HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert _raw(api, two) == [b"HTTP/1.1 200 OK", b"HTTP/1.1 200 OK"]


def test_dry_run_as_text_and_a_bad_flag(api, seeded_store):
    before = seeded_store.get("security-review").version
    for value in ("true", "1", True):
        status, data = api.call("POST", "/api/skills/merge", {"target": "security-review",
                                                              "source": "gitmoji-commits", "dry_run": value})
        assert status == 200 and data["dry_run"] is True
    status, _ = api.call("POST", "/api/skills/merge?dry_run=true", {"target": "security-review",
                                                                    "source": "gitmoji-commits"})
    assert status == 200 and seeded_store.get("security-review").version == before
    assert api.call("POST", "/api/skills/merge", {"target": "security-review", "source": "gitmoji-commits",
                                                  "dry_run": "perhaps"})[0] == 400
    assert seeded_store.get("gitmoji-commits").lifecycle.value != "archived"


@pytest.mark.parametrize("method, path", [("GET", "/api/skills/dependencies"), ("POST", "/api/skills/promote"),
                                          ("POST", "/api/skills/deprecate"), ("POST", "/api/skills/export"),
                                          ("DELETE", "/api/skills"), ("POST", "/api/skills/load-human")])
def test_a_missing_name_is_named(api, method, path):
    status, data = api.call(method, path, {} if method != "GET" else None)
    assert status == 400 and data["error"].startswith("missing '")


def test_methods_http_server_would_answer_in_html(api):
    status_head = http.client.HTTPConnection("127.0.0.1", api.port, timeout=30)
    status_head.request("HEAD", "/api/skills", headers={"Host": "127.0.0.1"})
    response = status_head.getresponse()
    assert response.status == 405 and response.getheader("Allow") == "DELETE, GET, POST"
    assert response.read() == b""
    status_head.close()
    status, data = api.call("OPTIONS", "/api/skills/stats")
    assert status == 405 and data["error"].startswith("OPTIONS is not allowed")
    lines = _raw(api, b"BREW /api/skills HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert lines == [b"HTTP/1.1 501 Not Implemented"]
    import socket

    with socket.create_connection(("127.0.0.1", api.port), timeout=30) as sock:   # not even HTTP
        sock.sendall(b"this is not http\r\n\r\n")
        sock.shutdown(socket.SHUT_WR)
        garbled = sock.recv(65536)
    assert json.loads(garbled) == {"error": "Bad request version ('http')", "status": 400}


def test_odd_bodies_and_numbers(api):
    assert api.call("POST", "/api/skills", raw=b"[" * 100000)[0] == 400
    assert _raw(api, b"POST /api/skills/export HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -1\r\n\r\n") == \
        [b"HTTP/1.1 400 Bad Request"]
    assert _raw(api, b"POST /api/skills/export HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                     b"0\r\n\r\n") == [b"HTTP/1.1 400 Bad Request"]
    status, data = api.call("GET", "/api/skills/bindings?events=abc")
    assert status == 400 and data["error"] == "'events' must be a whole number"


def test_load_human_needs_an_absolute_folder_with_skills(api, tmp_path):
    status, data = api.call("POST", "/api/skills/load-human", {"path": "relative/skills"})
    assert status == 400 and "absolute" in data["error"]
    (tmp_path / "empty").mkdir()
    status, data = api.call("POST", "/api/skills/load-human", {"path": str(tmp_path / "empty")})
    assert status == 400 and data["error"].startswith("nothing was imported")


def test_a_name_that_is_not_the_texts_and_a_folder_from_the_request(api, seeded_store):
    text = "---\nname: plain\ndescription: Plain. Use when.\n---\n"
    status, data = api.call("POST", "/api/skills", {"skill_md": text, "name": "/tmp/elsewhere"})
    assert status == 400 and "'name' is '/tmp/elsewhere'" in data["error"]
    status, data = api.call("POST", "/api/skills", {"skill_md": text})
    stored = seeded_store.get("plain")
    assert status == 201 and stored.folder_name == "plain" and stored.source_path is None
    assert stored.origin.value == "llm" and data["skill_md"] == text   # a candidate until reviewed


def test_a_busy_store_answers_503(api, seeded_store, monkeypatch):
    from skill_studio.core.store import StoreBusy

    def busy(*args, **kwargs):
        raise StoreBusy(f"{seeded_store.path}: cannot write to the skill store: database is locked")

    monkeypatch.setattr(seeded_store, "add", busy)
    conn = http.client.HTTPConnection("127.0.0.1", api.port, timeout=30)
    conn.request("POST", "/api/skills", json.dumps({"name": "later", "description": "Later. Use when."}),
                 {"Host": "127.0.0.1", "Authorization": f"Bearer {api.token}"})
    response = conn.getresponse()
    assert response.status == 503 and response.getheader("Retry-After") == "5"
    assert "locked" in json.loads(response.read())["error"]
    conn.close()
