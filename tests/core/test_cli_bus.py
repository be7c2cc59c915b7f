"""Bus commands: bindings list/add/edit/remove/enable/disable/export/import, dispatch, events; their
errors (validation: exit 1, a line per field; bad JSON: exit 2 with its position)."""

from __future__ import annotations

import json

import pytest
from conftest import make

from skill_studio.cli import main
from skill_studio.core.store import Store


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "s.db"
    with Store(path) as store:
        store.add(make("lint"))
        store.add(make("fmt"))
    return str(path)


def run(db, capsys, *argv):
    code = main(["--store", db, *argv])
    out, err = capsys.readouterr()
    return code, out, err


def stored(db):
    with Store(db) as store:
        return store.bindings()


def test_add_and_list(db, capsys):
    code, out, _ = run(db, capsys, "bindings", "add", "lint", "file_changed", "--when", r"file.path=/\.py$/",
                       "--when", "repo=api", "--priority", "5", "--cooldown", "60")
    assert code == 0 and out.startswith("added #1 lint on file_changed when file.path ~ /\\.py$/ and ")
    code, out, _ = run(db, capsys, "bindings", "add", "fmt", "commit_created", "--action", "call_tool",
                       "--param", "tool=word_count", "--param", 'arguments={"path": "{file}"}', "--disabled")
    assert code == 0 and "call_tool (disabled)" in out
    [first, second] = stored(db)
    assert (first.priority, first.cooldown, [(c.field, c.value) for c in first.conditions]) == \
        (5, 60.0, [("file.path", r"/\.py$/"), ("repo", "api")])
    assert second.params == {"tool": "word_count", "arguments": {"path": "{file}"}} and not second.enabled
    code, out, _ = run(db, capsys, "bindings")
    assert code == 0 and "#1 lint on file_changed" in out and out.rstrip().endswith("2 bindings")
    code, out, _ = run(db, capsys, "bindings", "list", "--event", "commit_created", "--json")
    data = json.loads(out)
    assert [b["id"] for b in data] == [2] and data[0]["params"]["tool"] == "word_count"
    assert data[0]["last_fired_at"] is None and "conditions" in data[0]
    code, out, _ = run(db, capsys, "bindings", "list", "--skill", "lint")
    assert "#1" in out and "#2" not in out


def test_add_refuses_a_bad_binding_with_a_line_per_field(db, capsys):
    code, out, err = run(db, capsys, "bindings", "add", "ghost", "x", "--action", "call_tool",
                         "--param", "tool=Word-Count", "--when", "f=/(/", "--cooldown", "-1")
    assert code == 1 and out == ""
    assert err.splitlines() == [
        'skill-studio: skill: no skill named "ghost"',
        'skill-studio: params.tool: tool name "Word-Count" must be lowercase letters, digits and underscores, '
        "starting with a letter (like word_count)",
        "skill-studio: conditions[0].value: invalid regex: missing ), unterminated subpattern at position 0",
        "skill-studio: cooldown: the cooldown cannot be negative"]
    code, _, err = run(db, capsys, "bindings", "add", "lint", "x", "--param", "arguments={oops")
    assert code == 2 and "--param arguments: invalid JSON at line 1, column 2" in err
    code, _, err = run(db, capsys, "bindings", "add", "lint", "x", "--when", "no-equals-sign")
    assert code == 2 and "expected FIELD=VALUE" in err
    assert stored(db) == []


def test_edit(db, capsys):
    run(db, capsys, "bindings", "add", "lint", "e", "--action", "notify", "--param", "message=hi", "--when", "a=1")
    code, out, _ = run(db, capsys, "bindings", "edit", "1", "--action", "call_tool", "--param", "tool=word_count",
                       "--priority", "3", "--disabled")
    assert code == 0 and out.startswith("saved #1")
    [b] = stored(db)
    assert (b.action, b.params, b.priority, b.enabled) == ("call_tool", {"tool": "word_count"}, 3, False)
    assert [(c.field, c.value) for c in b.conditions] == [("a", "1")]          # not given: kept
    run(db, capsys, "bindings", "edit", "1", "--clear-conditions", "--enabled", "--event", "f", "--skill", "fmt")
    [b] = stored(db)
    assert (b.conditions, b.enabled, b.event_type, b.skill) == ([], True, "f", "fmt")
    code, _, err = run(db, capsys, "bindings", "edit", "1", "--cooldown", "-2")
    assert code == 1 and err.strip() == "skill-studio: cooldown: the cooldown cannot be negative"
    code, _, err = run(db, capsys, "bindings", "edit", "9", "--priority", "1")
    assert code == 1 and "no binding 9" in err


def test_remove_enable_disable(db, capsys):
    run(db, capsys, "bindings", "add", "lint", "e")
    assert run(db, capsys, "bindings", "disable", "1")[:2] == (0, "binding 1: disabled\n")
    assert not stored(db)[0].enabled
    assert run(db, capsys, "bindings", "enable", "1")[:2] == (0, "binding 1: enabled\n")
    assert stored(db)[0].enabled
    assert run(db, capsys, "bindings", "remove", "1")[:2] == (0, "removed binding 1 (lint on e)\n")
    assert stored(db) == []
    for action in ("remove", "enable", "disable"):
        code, _, err = run(db, capsys, "bindings", action, "1")
        assert code == 1 and "no binding 1" in err


def test_export_and_import(db, capsys, tmp_path):
    run(db, capsys, "bindings", "add", "lint", "e", "--when", r"p=/\.md$/", "--cooldown", "5")
    run(db, capsys, "bindings", "add", "fmt", "e", "--action", "inject_context", "--param", "text=see {p}")
    code, out, _ = run(db, capsys, "bindings", "export")
    assert code == 0 and out.startswith("- skill: lint\n  event_type: e\n")
    target = tmp_path / "b.yaml"
    code, out, _ = run(db, capsys, "bindings", "export", str(target))
    assert code == 0 and out == f"exported 2 binding(s) to {target}\n" and target.read_text() == \
        run(db, capsys, "bindings", "export")[1]
    code, out, _ = run(db, capsys, "bindings", "import", str(target))
    assert code == 0 and out.rstrip().endswith("imported 2 binding(s)")
    assert [b.id for b in stored(db)] == [1, 2, 3, 4]
    bad = tmp_path / "bad.yaml"
    bad.write_text("- {skill: lint, event_type: e}\n- {skill: ghost, event_type: e}\n")
    code, _, err = run(db, capsys, "bindings", "import", str(bad))
    assert code == 1 and "nothing was imported" in err and 'binding 2: skill: no skill named "ghost"' in err
    assert len(stored(db)) == 4
    code, _, err = run(db, capsys, "bindings", "import", str(tmp_path / "missing.yaml"))
    assert code == 1 and "missing.yaml" in err


def test_dispatch(db, capsys):
    run(db, capsys, "bindings", "add", "lint", "file_changed", "--when", r"file.path=/\.py$/", "--cooldown", "60")
    run(db, capsys, "bindings", "add", "fmt", "file_changed", "--action", "notify", "--param", "message={file.path}")
    payload = '{"file": {"path": "a.py"}}'
    code, out, _ = run(db, capsys, "dispatch", "file_changed", "--payload", payload, "--at", "2030-01-01T00:00:00Z")
    assert code == 0 and out.splitlines()[0].startswith("file_changed: 2 binding(s) considered, 2 fired (event 1,")
    assert '"message": "a.py"' in out
    code, out, _ = run(db, capsys, "dispatch", "file_changed", "--payload", payload, "--at", "2030-01-01T00:00:30Z")
    assert "skipped  #1     lint  invoke_skill: cooling down until 2030-01-01T00:01:00Z" in out
    code, out, _ = run(db, capsys, "dispatch", "file_changed", "--payload", '{"file": {"path": "a.txt"}}',
                       "--json", "--dry-run")
    data = json.loads(out)
    assert code == 0 and data["event_id"] is None and data["ok"] is True
    assert [(o["binding"], o["fired"], o["reason"]) for o in data["outcomes"]] == [
        (1, False, 'condition file.path ~ /\\.py$/ not met (was "a.txt")'), (2, True, "fired")]
    code, out, _ = run(db, capsys, "dispatch", "nobody")
    assert code == 0 and "no binding listens to nobody" in out


@pytest.mark.parametrize("payload, message", [
    ('{"a": 1,', "--payload: invalid JSON at line 1, column 9 (character 9): Expecting property name"),
    ("[1, 2]", "--payload: the payload must be a JSON object"),
])
def test_dispatch_bad_payload(db, capsys, payload, message):
    code, out, err = run(db, capsys, "dispatch", "x", "--payload", payload)
    assert code == 2 and out == "" and message in err


def test_events(db, capsys):
    run(db, capsys, "bindings", "add", "lint", "build_failed", "--action", "emit_event",
        "--param", "event_type=notify_team", "--param", 'payload={"who": "{author}"}')
    run(db, capsys, "dispatch", "build_failed", "--payload", '{"author": "ann"}')
    code, out, _ = run(db, capsys, "events")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 2
    assert "notify_team" in lines[0] and "(emitted by 1)" in lines[0] and "build_failed" in lines[1]
    code, out, _ = run(db, capsys, "events", "--json", "--limit", "1")
    [e] = json.loads(out)
    assert (e["event_type"], e["parent"], e["depth"], e["payload"]) == ("notify_team", 1, 1, {"who": "ann"})
    code, out, _ = run(db, capsys, "events", "--type", "build_failed", "--json")
    [e] = json.loads(out)
    assert e["outcomes"][0]["result"] == {"event_type": "notify_team", "payload": {"who": "ann"}}
    code, out, _ = run(db, capsys, "events", "--search", "nobody-has-this")
    assert out.strip() == "no events logged"


@pytest.mark.parametrize("text", ["[" * 60000, '{"a": ' * 60000, '{"a": [' + "[{}," * 200 + "]}",
                                  "[" * 101 + "]" * 101])
def test_json_nested_too_deep_is_named_plainly(db, capsys, text):
    for argv in (["dispatch", "x", "--payload", text],
                 ["bindings", "add", "lint", "file_changed", "--action", "call_tool", "--param", "tool=t",
                  "--param", f"arguments={text}"]):
        code, out, err = run(db, capsys, *argv)
        assert code == 2 and out == ""
        assert "is nested more than 100 levels deep (at character" in err and "recursion" not in err
    assert stored(db) == []


def test_brackets_in_strings_do_not_count_and_100_levels_are_read(db, capsys):
    text = '{"note": "' + "[" * 500 + '", "deep": ' + "[" * 99 + "]" * 99 + "}"
    code, _, err = run(db, capsys, "dispatch", "x", "--payload", text, "--dry-run")
    assert code == 0 and err == ""
