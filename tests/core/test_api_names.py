"""One rule for a name: every name the import refuses, the API's create refuses too (from a template
or from SKILL.md text), for the same reason; every name of the strict format that the import takes,
the API's create takes too."""

from __future__ import annotations

import http.client
import json

import pytest
from api_serving import serving

from skill_studio.api.server import ApiServer
from skill_studio.core.format.names import skill_name_problem
from skill_studio.core.format.templates import name_problem
from skill_studio.core.ops.skills import create_skill
from skill_studio.core.store import Store

NAMES = [
    # Device names Windows reserves, in any case, with or without something like an extension.
    "con", "prn", "aux", "nul", "com1", "com9", "lpt1", "lpt9", "CON", "Nul", "cOm3", "con.txt", "NUL.tar.gz",
    "aux.", "lpt5.md", "conin$", "CONOUT$", "com\u00b9", "con ",
    # What no folder can be called, or hides what it is.
    ".", "..", "a/b", "a\\b", "ends-with-a-dot.", "x\u200by", "x\u202ey", "tab\there", "\ufb01le", "e\u0301",
    "\uff41\uff42", "a" * 256,
    # Reads like the stored "release-notes".
    "rel\u0435ase-notes",
    # Close to a device name, but none.
    "com0", "lpt10", "con-x", "x-con", "console", "nul1", "auxiliary",
    # Ordinary names, and ones only the strict format refuses.
    "good-name", "a" * 64, "123", "Upper", "with space", "a--b", "-lead", "a" * 65, "v1.2",
]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    first = Store(tmp_path_factory.mktemp("first") / "store.db")
    with serving(first) as server:
        yield server
    first.close()


def call(server: ApiServer, method: str, path: str, body: dict) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=30)
    conn.request(method, path, json.dumps(body), {"Host": "127.0.0.1", "Authorization": f"Bearer {server.token}"})
    response = conn.getresponse()
    answer = json.loads(response.read())
    conn.close()
    return response.status, answer


def skill_md(name: str) -> str:
    return f"---\nname: {json.dumps(name)}\ndescription: Does a thing. Use when needed.\n---\n# Body\n"


def on_a_store(server: ApiServer, tmp_path, label: str, method: str, path: str, body: dict) -> tuple[int, dict]:
    """The answer of ``path`` on a store of its own that holds "release-notes"."""
    with Store(tmp_path / f"{label}.db") as store:
        create_skill(store, "release-notes", "Writes release notes. Use when releasing.")
        served = server.store
        server.store = store
        try:
            return call(server, method, path, body)
        finally:
            server.store = served


@pytest.mark.parametrize("name", NAMES, ids=[ascii(n)[1:-1][:24] for n in NAMES])
def test_the_api_refuses_what_the_import_refuses(server, tmp_path, name):
    folder = tmp_path / "skills" / "one"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(skill_md(name), encoding="utf-8")
    status, imported = on_a_store(server, tmp_path, "import", "POST", "/api/skills/load-human",
                                  {"path": str(tmp_path / "skills")})
    import_takes = status == 200 and imported["entries"][0]["status"] == "imported"
    template = on_a_store(server, tmp_path, "template", "POST", "/api/skills",
                          {"name": name, "description": "Does a thing. Use when needed."})
    text = on_a_store(server, tmp_path, "text", "POST", "/api/skills", {"skill_md": skill_md(name)})

    if not import_takes:
        reason = imported.get("error", "")
        assert template[0] in (400, 409) and text[0] in (400, 409), (name, reason, template, text)
        folder_rule = skill_name_problem(name.strip())
        if folder_rule and name_problem(name) is None:   # in the format, refused for what it names
            assert folder_rule in reason and folder_rule in template[1]["error"] and folder_rule in text[1]["error"]
    elif name_problem(name) is None:
        assert (template[0], text[0]) == (201, 201), (name, template, text)
    else:
        # The import keeps a folder whose name is outside the strict format (it was written
        # elsewhere); a new skill follows the format, as in the window and skill-studio new.
        assert (template[0], text[0]) == (400, 400)
        assert template[1]["error"].endswith(name_problem(name))


def test_the_table_covers_both_verdicts():
    refused = [n for n in NAMES if skill_name_problem(n)]
    assert len(refused) > 20 and len(NAMES) - len(refused) > 10
