"""The command line and the REST API refuse what the window refuses: the window's checks
(the new-skill dialog's, the designer's rename) and theirs are the same operations."""

from __future__ import annotations

import http.client
import json
import threading

import pytest
from conftest import make

from skill_studio.api.server import ApiServer
from skill_studio.cli import main
from skill_studio.core.ops.skills import new_name_problem
from skill_studio.core.store import Store, StoreError

LOOK_ALIKE = "pdf-t\u043eols"   # "pdf-tools" with a Cyrillic o


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "s.db"
    with Store(path) as store:
        store.add(make(LOOK_ALIKE))
        store.add(make("notes"))
        store.add(make("base"))
        store.add(make("user", meta={"depends-on": "base"}))
    return path


@pytest.fixture
def api(db):
    store = Store(db)
    server = ApiServer(store, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def call(method: str, path: str, body=None):
        conn = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=60)
        headers = {"Host": f"127.0.0.1:{server.server_address[1]}", "Authorization": f"Bearer {server.token}",
                   "Content-Type": "application/json"}
        conn.request(method, path, body=json.dumps(body).encode() if body is not None else None, headers=headers)
        response = conn.getresponse()
        data = json.loads(response.read())
        conn.close()
        return response.status, data

    yield call
    server.shutdown()
    server.server_close()
    thread.join(5)
    store.close()


def names(db) -> list[str]:
    with Store(db) as store:
        return store.names()


BAD_NAMES = ["Pdf-Tools", "pdf tools", "x" * 65, "pdf--tools", "con", "pdf-tools"]


@pytest.mark.parametrize("name", BAD_NAMES)
def test_a_name_the_new_skill_dialog_refuses_the_cli_and_the_api_refuse(db, api, capsys, name):
    with Store(db) as store:
        problem = new_name_problem(store, name)   # what the dialog shows as the name is typed
    assert problem is not None
    before = names(db)
    assert main(["--store", str(db), "new", name, "-d", "Does a thing. Use when needed."]) == 2
    assert problem in capsys.readouterr().err
    status, data = api("POST", "/api/skills", {"name": name, "description": "Does a thing. Use when needed."})
    assert status == 400 and problem in data["error"]
    text = f"---\nname: {name}\ndescription: Does a thing. Use when needed.\n---\nBody\n"
    status, data = api("POST", "/api/skills", {"skill_md": text})
    assert status == 400 and problem in data["error"]
    assert names(db) == before


def test_a_taken_name_is_refused_by_both(db, api, capsys):
    assert main(["--store", str(db), "new", "notes", "-d", "Again. Use when needed."]) == 2
    assert "already exists" in capsys.readouterr().err
    assert api("POST", "/api/skills", {"name": "notes", "description": "Again. Use when needed."})[0] == 409


def test_the_cli_refuses_a_rename_to_a_look_alike_as_the_designer_does(db, tmp_path, capsys):
    from skill_studio.ui.designer.session import EditSession

    with Store(db) as store:
        text = store.get("notes").skill_md.replace("name: notes", "name: pdf-tools")
        session = EditSession(store, "notes")
        with pytest.raises((ValueError, StoreError), match="reads like the skill"):
            session.save(text, [])
    edited = tmp_path / "SKILL.md"
    edited.write_text(text, encoding="utf-8")
    assert main(["--store", str(db), "save", "notes", str(edited)]) == 1
    assert "reads like the skill" in capsys.readouterr().err
    assert "notes" in names(db) and "pdf-tools" not in names(db)


def test_a_delete_with_an_unselected_dependent_is_refused_everywhere(db, api, capsys):
    from skill_studio.core.ops.skills import delete_skills

    with Store(db) as store:
        refused = delete_skills(store, ["base"]).refused   # what the window's delete runs
    assert "user" in str(refused["base"])
    assert main(["--store", str(db), "delete", "base"]) == 1
    assert "depend on it: user" in capsys.readouterr().err
    status, data = api("DELETE", "/api/skills?name=base")
    assert status == 409 and "depend on it: user" in data["error"]
    assert {"base", "user"} <= set(names(db))
    assert main(["--store", str(db), "delete", "base", "user"]) == 0   # the dependent selected too
    assert not {"base", "user"} & set(names(db))
