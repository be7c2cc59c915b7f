"""The skill bus: conditions, priority, cooldowns, disabled and gated bindings, emitted events and
their depth limit, the described actions, validation, YAML, the event log, and bindings that
follow their skill."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from conftest import make

from skill_studio.core.bus import dispatch as bus
from skill_studio.core.bus.dispatch import MAX_DEPTH, Binding, BindingError, Condition, dispatch
from skill_studio.core.model import Origin
from skill_studio.core.store import NotFound, Store

T0 = datetime(2030, 1, 1, 12, 0, 0, tzinfo=UTC)


@pytest.fixture
def bstore(store):
    for name in ("lint", "fmt", "deploy"):
        store.add(make(name))
    return store


def add(store, skill="lint", event="file_changed", action="invoke_skill", params=None, when=(), **kw):
    return store.add_binding(Binding(skill, event, action, params or {}, [Condition(f, v) for f, v in when], **kw))


def reasons(d):
    return [(o.binding.id, o.reason) for o in d.outcomes]


# --- conditions ----------------------------------------------------------------

@pytest.mark.parametrize("field, value, payload, matches", [
    ("branch", "main", {"branch": "main"}, True),
    ("branch", "main", {"branch": "main-2"}, False),                     # exact means exact
    ("path", r"/\.py$/", {"path": "src/a.py"}, True),
    ("path", r"/\.py$/", {"path": "a.txt"}, False),
    ("path", "/src/", {"path": "lib/src/x"}, True),                       # re.search: anywhere
    ("file.path", r"/\.py$/", {"file": {"path": "a.py"}}, True),         # dotted path
    ("file.path", "a.py", {"file.path": "a.py"}, True),                  # a key holding the whole path
    ("files.1", "b", {"files": ["a", "b"]}, True),                        # a list index
    ("count", "3", {"count": 3}, True),                                   # non-strings: their JSON text
    ("ok", "true", {"ok": True}, True),
    ("ok", "True", {"ok": True}, False),
    ("gone", "null", {"gone": None}, True),
    ("tags", '["a","b"]', {"tags": ["a", "b"]}, True),
    ("ratio", "/^0\\.5/", {"ratio": 0.5}, True),
    ("missing", "x", {}, False),
    ("file.path", "x", {"file": "not an object"}, False),
    ("v", "/", {"v": "/"}, True),                                         # "/" and "//" are exact values
    ("v", "//", {"v": "//"}, True),
])
def test_condition_matching(field, value, payload, matches):
    assert Condition(field, value).matches(payload) is matches


def test_condition_regex_flags_and_check():
    assert Condition("v", "/x/").is_regex and not Condition("v", "//").is_regex
    assert bus.check_condition_value("/(?i)readme/") is None and bus.check_condition_value("plain (") is None
    assert bus.check_condition_value("/(/").startswith("invalid regex: missing )")
    assert Condition("v", "/(/").matches({"v": "("}) is False


def test_reasons_name_the_condition_and_the_value(bstore):
    add(bstore, when=[("file.path", r"/\.py$/")])
    add(bstore, when=[("branch", "main")])
    d = dispatch(bstore, "file_changed", {"file": {"path": "a.txt"}}, T0)
    assert reasons(d) == [(1, 'condition file.path ~ /\\.py$/ not met (was "a.txt")'),
                          (2, 'condition branch = "main" not met (field missing)')]
    assert not d.fired and d.ok


# --- order, disabled, gate -------------------------------------------------------

def test_priority_order_then_id_and_only_the_event_type(bstore):
    low, high, other, tie = (add(bstore, priority=1), add(bstore, "fmt", priority=9),
                             add(bstore, event="commit_created", priority=99), add(bstore, "deploy", priority=1))
    d = dispatch(bstore, "file_changed", {}, T0)
    assert [o.binding.id for o in d.outcomes] == [high.id, low.id, tie.id]
    assert [o.binding.id for o in d.fired] == [high.id, low.id, tie.id]
    assert other.id not in [o.binding.id for o in d.outcomes]


def test_disabled_bindings_are_listed_as_skipped(bstore):
    b = add(bstore, enabled=False)
    d = dispatch(bstore, "file_changed", {}, T0)
    assert reasons(d) == [(b.id, "disabled")] and d.outcomes[0].duration_ms == 0.0
    bstore.set_binding_enabled(b.id, True)
    assert dispatch(bstore, "file_changed", {}, T0).outcomes[0].fired


def test_gated_skills_are_skipped_with_the_rule(bstore):
    bstore.add(make("cand", origin=Origin.LLM))                           # candidate, trust 1
    bstore.add(make("untrusted"))
    bstore.set_state("untrusted", trust_tier=1)
    bstore.add(make("weak", origin=Origin.LLM))
    bstore.set_state("weak", lifecycle="verified", trust_tier=2, success_rate=0.2)
    bstore.add(make("tired"))
    bstore.set_state("tired", lifecycle="degraded")
    ids = [add(bstore, name).id for name in ("cand", "untrusted", "weak", "tired")]
    d = dispatch(bstore, "file_changed", {}, T0)
    assert reasons(d) == [(ids[0], "skill not exposed: lifecycle is candidate (not exposed)"),
                          (ids[1], "skill not exposed: trust 1 < 2"),
                          (ids[2], "skill not exposed: llm skill with success rate 0.20 < 0.30"),
                          (ids[3], "fired")]
    assert d.outcomes[3].result["warning"] == "degraded: shown with a warning"
    bstore.set_state("cand", lifecycle="verified", trust_tier=2, success_rate=0.9)   # the index follows
    assert dispatch(bstore, "file_changed", {}, T0).outcomes[0].fired


# --- cooldowns -------------------------------------------------------------------

def test_cooldown_starts_when_fired_and_expires(bstore):
    b = add(bstore, cooldown=60)
    assert dispatch(bstore, "file_changed", {}, T0).outcomes[0].fired
    assert bstore.binding(b.id).last_fired_at == "2030-01-01T12:00:00Z"
    d = dispatch(bstore, "file_changed", {}, T0 + timedelta(seconds=59))
    assert reasons(d) == [(b.id, "cooling down until 2030-01-01T12:01:00Z")]
    assert bus.status(bstore, T0 + timedelta(seconds=59)) == bus.BusStatus(1, 1, 1)
    assert bus.status(bstore, T0 + timedelta(seconds=60)).cooling == 0       # expired: not counted
    assert dispatch(bstore, "file_changed", {}, T0 + timedelta(seconds=60)).outcomes[0].fired


def test_cooldown_survives_reopening_and_a_skipped_event_does_not_restart_it(bstore, tmp_path):
    b = add(bstore, cooldown=30, when=[("x", "1")])
    dispatch(bstore, "file_changed", {"x": 1}, T0)
    dispatch(bstore, "file_changed", {"x": 2}, T0 + timedelta(seconds=20))   # skipped by its condition
    with Store(bstore.path) as other:
        d = dispatch(other, "file_changed", {"x": 1}, T0 + timedelta(seconds=29))
        assert d.outcomes[0].reason == "cooling down until 2030-01-01T12:00:30Z"
        assert dispatch(other, "file_changed", {"x": 1}, T0 + timedelta(seconds=30)).fired
    # This connection sees the other's firing (its index is read again).
    assert dispatch(bstore, "file_changed", {"x": 1}, T0 + timedelta(seconds=31)).outcomes[0].reason == \
        "cooling down until 2030-01-01T12:01:00Z"
    assert bstore.binding(b.id).last_fired_at == "2030-01-01T12:00:30Z"


def test_a_dry_run_writes_nothing(bstore):
    b = add(bstore, cooldown=60)
    d = dispatch(bstore, "file_changed", {}, T0, record=False)
    assert d.fired and d.event_id is None
    assert bstore.events() == [] and bstore.binding(b.id).last_fired_at is None
    assert dispatch(bstore, "file_changed", {}, T0, record=False).fired


# --- actions ---------------------------------------------------------------------

def test_actions_are_described(bstore):
    bstore.add(make("located"))
    add(bstore, "lint", params={"arguments": {"path": "{file.path}", "n": "{count}"}}, priority=5)
    add(bstore, "fmt", "file_changed", "inject_context", {"text": "Changed {file.path} ({missing})"}, priority=4)
    add(bstore, "fmt", "file_changed", "call_tool", {"tool": "word_count", "arguments": {"n": "{count}"}}, priority=3)
    add(bstore, "fmt", "file_changed", "notify", {"message": "{count} file(s)"}, priority=2)
    add(bstore, "fmt", "file_changed", "notify", {"message": "x", "channel": "ops"}, priority=1)
    d = dispatch(bstore, "file_changed", {"file": {"path": "a.py"}, "count": 2}, T0)
    assert [o.result for o in d.outcomes] == [
        {"skill": "lint", "version": 1, "content_chars": len(bstore.get("lint").content), "location": "lint",
         "arguments": {"path": "a.py", "n": 2}},
        {"text": "Changed a.py ({missing})"},
        {"tool": "word_count", "arguments": {"n": 2}},
        {"channel": "default", "message": "2 file(s)"},
        {"channel": "ops", "message": "x"}]
    assert all(o.reason == "fired" and o.duration_ms > 0 for o in d.outcomes)


def test_an_action_that_fails_makes_the_event_not_ok(bstore, monkeypatch):
    add(bstore)
    monkeypatch.setattr(Store, "skill_location", lambda self, name: None)    # gone meanwhile
    d = dispatch(bstore, "file_changed", {}, T0)
    assert d.outcomes[0].failed and not d.ok
    assert d.outcomes[0].result == {"skill": "lint", "error": 'no skill named "lint" any more'}
    assert bstore.event_record(d.event_id).ok is False


def test_emitted_events_are_dispatched_in_turn(bstore):
    add(bstore, "deploy", "build_failed", "emit_event", {"event_type": "notify_team", "payload": {"who": "{author}"}})
    add(bstore, "fmt", "notify_team", "notify", {"message": "{who} broke it"}, when=[("who", "/./")])
    d = dispatch(bstore, "build_failed", {"author": "ann"}, T0)
    assert d.fired[0].result == {"event_type": "notify_team", "payload": {"who": "ann"}}
    [child] = d.emitted
    assert (child.event_type, child.depth, child.payload) == ("notify_team", 1, {"who": "ann"})
    assert child.fired[0].result["message"] == "ann broke it" and d.ok
    assert bstore.event_record(child.event_id).parent == d.event_id


def test_an_emit_loop_stops_at_the_depth_limit(bstore):
    add(bstore, "deploy", "ping", "emit_event", {"event_type": "ping"})
    d = dispatch(bstore, "ping", {}, T0)
    chain = [d]
    while chain[-1].emitted:
        chain.append(chain[-1].emitted[0])
    assert [e.depth for e in chain] == list(range(MAX_DEPTH + 1))
    last = chain[-1].outcomes[0]
    assert last.fired and last.failed and last.result["stopped"] == f"depth limit {MAX_DEPTH} reached"
    assert not d.ok and not chain[-2].ok
    logged = bstore.events()
    assert len(logged) == MAX_DEPTH + 1 and not any(e.ok for e in logged)
    assert [e.parent for e in reversed(logged)] == [None] + [e.event_id for e in chain[:-1]]


def test_a_cooldown_breaks_a_loop_and_fan_out_is_bounded(bstore):
    add(bstore, "deploy", "ping", "emit_event", {"event_type": "ping"}, cooldown=10)
    d = dispatch(bstore, "ping", {}, T0)
    assert d.emitted[0].outcomes[0].reason == "cooling down until 2030-01-01T12:00:10Z" and d.ok
    for _ in range(3):                     # each event emits three: 3 + 9 + 27 + ... > MAX_EMITTED
        add(bstore, "fmt", "fan", "emit_event", {"event_type": "fan"})
    d = dispatch(bstore, "fan", {}, T0, record=False)
    stopped = []
    stack = [d]
    while stack:
        e = stack.pop()
        stopped += [o.result["stopped"] for o in e.fired if "stopped" in o.result]
        stack += e.emitted
    assert f"limit of {bus.MAX_EMITTED} emitted events per dispatch reached" in stopped


def test_explain_one_binding(bstore):
    b = add(bstore, when=[("x", "1")])
    assert bus.explain(bstore, b, "commit_created").reason == "event type is commit_created"
    assert bus.explain(bstore, b, "file_changed", {"x": "2"}).reason == 'condition x = "1" not met (was "2")'
    assert bus.explain(bstore, b, "file_changed", {"x": "1"}).fired
    assert bstore.events() == []


# --- validation --------------------------------------------------------------------

def test_every_validation_error(bstore):
    bad = Binding("nope", " ", "call_tool", {"tool": "WordCount", "extra": 1},
                  [Condition("", "/(/"), Condition("ok", "/[a-z]+/")], priority=1.5, cooldown=-1)
    errors = bus.validate(bstore, bad)
    assert errors == {
        "skill": 'no skill named "nope"', "event_type": "an event type is required",
        "params.extra": 'call_tool takes no parameter "extra" (it takes: tool, arguments)',
        "params.tool": 'tool name "WordCount" must be lowercase letters, digits and underscores, starting with '
                       "a letter (like word_count)",
        "conditions[0].field": "the field is required",
        "conditions[0].value": "invalid regex: missing ), unterminated subpattern at position 0",
        "priority": "the priority must be a whole number", "cooldown": "the cooldown cannot be negative"}
    with pytest.raises(BindingError) as e:
        bstore.add_binding(bad)
    assert e.value.errors == errors and str(e.value).splitlines()[0] == 'skill: no skill named "nope"'
    assert bstore.bindings() == []


@pytest.mark.parametrize("action, params, field, message", [
    ("shout", {}, "action", 'unknown action "shout" (one of invoke_skill, inject_context, emit_event, '
                            "call_tool, notify)"),
    ("inject_context", {"text": ""}, "params.text", "text is required for inject_context"),
    ("notify", {}, "params.message", "message is required for notify"),
    ("emit_event", {"event_type": "x", "payload": [1]}, "params.payload",
     "the payload must be a mapping (a JSON object)"),
    ("emit_event", {}, "params.event_type", "event_type is required for emit_event"),
    ("call_tool", {"tool": "word-count"}, "params.tool", None),
    ("call_tool", {"tool": "word_count", "arguments": "x"}, "params.arguments",
     "arguments must be a mapping of names to values (a JSON object)"),
])
def test_action_parameters(bstore, action, params, field, message):
    errors = bus.validate(bstore, Binding("lint", "e", action, params))
    assert list(errors) == [field] and (message is None or errors[field] == message)
    assert bus.validate(bstore, Binding("lint", "e", "call_tool", {"tool": "word_count"})) == {}


def test_update_and_delete(bstore):
    b = add(bstore)
    b.priority, b.event_type = 7, "commit_created"
    assert bstore.update_binding(b).priority == 7 and bstore.bindings(event_type="commit_created") == [b]
    dispatch(bstore, "commit_created", {}, T0)
    b.event_type = "pr_opened"                                  # its last firing goes with it
    assert bstore.update_binding(b).last_fired_at == "2030-01-01T12:00:00Z"
    b.cooldown = -5
    with pytest.raises(BindingError):
        bstore.update_binding(b)
    bstore.delete_binding(b.id)
    for call in (lambda: bstore.binding(b.id), lambda: bstore.delete_binding(b.id),
                 lambda: bstore.set_binding_enabled(b.id, False), lambda: bstore.update_binding(b)):
        with pytest.raises(NotFound):
            call()
    assert bstore.binding_counts() == (0, 0)


# --- YAML ------------------------------------------------------------------------

def test_yaml_round_trip(bstore, tmp_path):
    add(bstore, when=[("file.path", r"/\.py$/"), ("n", "3")], priority=2, cooldown=1.5)
    add(bstore, "fmt", "x", "call_tool", {"tool": "word_count", "arguments": {"a": [1, "{b}"]}}, enabled=False)
    text = bus.export_yaml(bstore.bindings())
    assert "id:" not in text and "last_fired_at" not in text
    with Store(tmp_path / "other.db") as other:
        for name in ("lint", "fmt"):
            other.add(make(name))
        added = bus.import_yaml(other, text)
        assert [a.id for a in added] == [1, 2]
        assert bus.export_yaml(other.bindings()) == text


def test_an_import_with_one_bad_entry_adds_nothing(bstore):
    text = ("- {skill: lint, event_type: a}\n- {skill: ghost, event_type: b, cooldown: -1}\n"
            "- {skill: fmt, event_type: c, colour: red, match: {path: /(/}}\n")
    with pytest.raises(BindingError) as e:
        bus.import_yaml(bstore, text)
    assert e.value.errors == {"binding 2: skill": 'no skill named "ghost"',
                              "binding 2: cooldown": "the cooldown cannot be negative",
                              "binding 3: colour": "unknown key (expected: skill, event_type, action, params, "
                                                   "conditions, priority, cooldown, enabled)",
                              "binding 3: conditions[0].value": "invalid regex: missing ), unterminated "
                                                                "subpattern at position 0"}
    assert bstore.bindings() == []
    with pytest.raises(BindingError) as e:
        bus.import_yaml(bstore, "- skill: lint\n  event_type: [a\n")
    assert list(e.value.errors) == ["yaml"] and e.value.errors["yaml"].startswith("line 3, column 1:")
    assert bus.import_yaml(bstore, "") == []


# --- the log, and bindings that follow their skill -----------------------------------

def test_log_records_every_binding_and_is_bounded(bstore):
    add(bstore, when=[("x", "1")])
    add(bstore, "fmt", enabled=False)
    bstore.set_setting("bus.retention", 3)
    ids = [dispatch(bstore, "file_changed", {"x": i}, T0).event_id for i in range(5)]
    assert bstore.event_count() == 3 and [e.id for e in bstore.events()] == ids[:1:-1]
    rec = bstore.event_record(ids[1 + 3])
    assert (rec.fired, rec.considered, rec.ok, rec.payload) == (0, 2, True, {"x": 4})
    assert [(o["binding"], o["fired"], o["reason"]) for o in rec.outcomes] == [
        (1, False, 'condition x = "1" not met (was "4")'), (2, False, "disabled")]
    with pytest.raises(NotFound):
        bstore.event_record(ids[0])
    first = bstore.event_record(ids[2])
    assert first.outcomes[0] == {"binding": 1, "skill": "lint", "action": "invoke_skill", "fired": False,
                                 "reason": 'condition x = "1" not met (was "2")', "result": None,
                                 "duration_ms": 0.0}
    dispatch(bstore, "other", {"q": "needle"}, T0)
    assert [e.event_type for e in bstore.events(event_type="other")] == ["other"]
    assert [e.event_type for e in bstore.events(text="needle")] == ["other"]
    assert len(bstore.events(text="fmt")) == 2            # a skill they considered (one was trimmed)
    bstore.clear_events()
    assert bstore.events() == []


def test_log_event_from_plain_outcomes(bstore):
    b = add(bstore, event="x")
    row = {"binding": b.id, "skill": "lint", "action": "invoke_skill", "fired": True, "reason": "fired",
           "result": {"skill": "lint"}, "duration_ms": 0.5}
    event_id = bstore.log_event("x", {"k": 1}, "2030-01-01T12:00:00Z", [row], fired=1, considered=1, ok=True,
                                fired_ids=[b.id])
    assert bstore.event_record(event_id).outcomes == [row]
    assert bstore.binding(b.id).last_fired_at == "2030-01-01T12:00:00Z"


def test_legends_of_trimmed_events_are_swept_and_written_again(bstore):
    add(bstore, event="a")
    add(bstore, event="b")
    bstore.set_setting("bus.retention", 2)
    dispatch(bstore, "a", {}, T0)
    for _ in range(300):                   # the unused legend of "a" is deleted on the way
        dispatch(bstore, "b", {}, T0, record=True)
    assert bstore._rows_of("SELECT count(*) FROM bus_legends")[0][0] == 1
    last = dispatch(bstore, "a", {}, T0)
    assert [e.id for e in bstore.events(event_type="a")] == [last.event_id]
    assert bstore.event_record(last.event_id).outcomes[0]["skill"] == "lint"


def test_bindings_go_with_their_skill(bstore):
    b = add(bstore, "fmt")
    add(bstore, "lint")
    renamed = make("formatter")
    renamed.folder_name = "fmt"
    bstore.update("fmt", renamed, 1)
    assert bstore.binding(b.id).skill == "formatter"
    assert dispatch(bstore, "file_changed", {}, T0).outcomes[0].binding.skill == "formatter"
    bstore.delete("formatter")
    assert [x.skill for x in bstore.bindings()] == ["lint"]
    assert [o.binding.skill for o in dispatch(bstore, "file_changed", {}, T0).outcomes] == ["lint"]


def test_undoing_a_delete_puts_the_bindings_back_with_their_cooldowns(bstore):
    from skill_studio.core.review.lifecycle import UndoStack, delete

    kept = add(bstore, "fmt", when=[("path", r"/\.py$/")], priority=3, cooldown=600)
    add(bstore, "lint")
    dispatch(bstore, "file_changed", {"path": "a.py"}, T0)
    undo = UndoStack(bstore)
    undo.push(delete(bstore, "fmt", "not needed"))
    assert [b.skill for b in bstore.bindings()] == ["lint"]
    undo.undo()
    back = bstore.binding(kept.id)          # the same id, so its cooldown still runs
    assert (back.skill, back.conditions, back.priority, back.last_fired_at) == (
        "fmt", kept.conditions, 3, "2030-01-01T12:00:00Z")
    assert dispatch(bstore, "file_changed", {"path": "a.py"}, T0 + timedelta(seconds=1)).outcomes[0].reason == \
        "cooling down until 2030-01-01T12:10:00Z"
    undo.redo()
    assert [b.skill for b in bstore.bindings()] == ["lint"]
    undo.undo()
    assert bstore.binding(kept.id).skill == "fmt"


def test_restored_bindings_take_a_new_id_when_theirs_is_taken(bstore):
    b = add(bstore, "fmt")
    bstore.delete_binding(b.id)
    other = add(bstore, "lint")
    b.id = other.id                          # as if another binding had taken its id meanwhile
    (again,) = bstore.restore_bindings([b])
    assert again.skill == "fmt" and again.id != other.id and bstore.binding(other.id).skill == "lint"
    with pytest.raises(BindingError):
        bstore.restore_bindings([Binding("gone", "x", id=99)])


def test_outcomes_read_later_are_what_the_log_holds(bstore):
    add(bstore, "fmt", when=[("path", r"/\.py$/")], cooldown=60)
    add(bstore, "lint", when=[("path", "x")])
    add(bstore, "deploy", enabled=False)
    add(bstore, "lint", "file_changed", "notify", {"message": "{path} changed"}, priority=-1)
    for second, path in enumerate(["a.py", "x", "b.py"]):
        d = dispatch(bstore, "file_changed", {"path": path}, T0 + timedelta(seconds=second))
        logged = bstore.event_record(d.event_id).outcomes
        assert [(o.binding.id, o.fired, o.reason, o.result) for o in d.outcomes] == [
            (o["binding"], o["fired"], o["reason"], o["result"]) for o in logged]
    assert [o.reason for o in d.outcomes] == ["cooling down until 2030-01-01T12:01:00Z",
                                              'condition path = "x" not met (was "b.py")', "disabled", "fired"]


def test_dispatch_inside_a_caller_transaction(bstore):
    add(bstore, cooldown=60)
    with bstore.transaction():
        assert dispatch(bstore, "file_changed", {}, T0).fired
    assert dispatch(bstore, "file_changed", {}, T0).outcomes[0].reason.startswith("cooling down")


def test_bad_arguments(bstore):
    with pytest.raises(ValueError):
        dispatch(bstore, "", {})
    with pytest.raises(ValueError):
        dispatch(bstore, "x", [1])
    assert dispatch(bstore, "nobody_listens", None, T0).outcomes == []


def test_priority_and_cooldown_have_bounds(bstore):
    name = bstore.names()[0]
    errors = bus.validate(bstore, Binding(name, "x", priority=10 ** 20, cooldown=10 ** 12))
    assert "between" in errors["priority"] and "at most" in errors["cooldown"]
    assert bus.validate(bstore, Binding(name, "x", priority=bus.MAX_PRIORITY, cooldown=bus.MAX_COOLDOWN)) == {}
