"""The skill bus commands of ``skill-studio``: bindings (list, add, edit, remove, enable, disable,
export, import), dispatching an event as the simulator does, and the event log."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skill_studio.core.bus.dispatch import Binding, Dispatched


def _store(args: argparse.Namespace):
    from skill_studio.cli.common import open_store

    return open_store(args)


def _invalid(e) -> int:
    """A binding that was refused: each field's problem on its own line; exit code 1."""
    for field_, message in e.errors.items():
        print(f"skill-studio: {field_}: {message}", file=sys.stderr)
    return 1


def _json_arg(text: str, what: str) -> Any:
    from skill_studio.cli.common import CliError
    from skill_studio.core.format.json_nesting import json_too_deep

    deep = json_too_deep(text)
    if deep:
        raise CliError(f"{what}: {deep}", 2)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise CliError(f"{what}: invalid JSON at line {e.lineno}, column {e.colno} (character {e.pos + 1}): "
                       f"{e.msg}", 2) from None


#: Parameters that hold JSON data (the others are text, placeholders such as {file.path} included).
_DATA_PARAMS = ("arguments", "payload")


def _params(items: list[str]) -> dict[str, Any]:
    """``k=v`` pairs; the value of arguments or payload is read as JSON when it starts with { or [."""
    from skill_studio.cli.common import CliError

    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise CliError(f'--param "{item}": expected NAME=VALUE')
        data = key in _DATA_PARAMS and value.lstrip()[:1] in ("{", "[")
        out[key] = _json_arg(value, f"--param {key}") if data else value
    return out


def _conditions(items: list[str]):
    from skill_studio.cli.common import CliError
    from skill_studio.core.bus.dispatch import Condition

    out = []
    for item in items:
        name, sep, value = item.partition("=")
        if not sep:
            raise CliError(f'--when "{item}": expected FIELD=VALUE (a value /.../ is a regex)')
        out.append(Condition(name.strip(), value))
    return out


def _describe(b: Binding) -> str:
    from skill_studio.core.bus.dispatch import describe

    params = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in b.params.items())
    fired = f"; last fired {b.last_fired_at}" if b.last_fired_at else ""
    return describe(b) + (f"\n      {params}" if params else "") + (f"\n     {fired[1:]}" if fired else "")


# --- bindings -------------------------------------------------------------------

def cmd_list(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import emit_json
    from skill_studio.core.bus.dispatch import binding_json

    with _store(args) as store:
        found = store.bindings(skill=args.skill, event_type=args.event)
    if args.json:
        emit_json([binding_json(b) for b in found])
        return 0
    for b in found:
        print(_describe(b))
    print(f"{len(found)} binding{'s' if len(found) != 1 else ''}")
    return 0


def cmd_add(args: argparse.Namespace) -> int:
    from skill_studio.core.bus.dispatch import Binding, BindingError

    b = Binding(args.skill, args.event_type, args.action or "invoke_skill", _params(args.param),
                _conditions(args.when), priority=args.priority or 0, cooldown=args.cooldown or 0.0,
                enabled=not args.disabled)
    with _store(args) as store:
        try:
            b = store.add_binding(b)
        except BindingError as e:
            return _invalid(e)
    print(f"added {_describe(b)}")
    return 0


def cmd_edit(args: argparse.Namespace) -> int:
    from skill_studio.core.bus.dispatch import ACTIONS, BindingError

    with _store(args) as store:
        b = store.binding(args.id)
        if args.skill is not None:
            b.skill = args.skill
        if args.event is not None:
            b.event_type = args.event
        if args.action is not None and args.action != b.action:
            required, optional = ACTIONS.get(args.action, ((), ()))
            b.action = args.action   # the parameters the new action does not take are dropped
            b.params = {k: v for k, v in b.params.items() if k in required + optional}
        if args.clear_params:
            b.params = {}
        b.params.update(_params(args.param))
        if args.clear_conditions:
            b.conditions = []
        if args.when:
            b.conditions = _conditions(args.when)
        if args.priority is not None:
            b.priority = args.priority
        if args.cooldown is not None:
            b.cooldown = args.cooldown
        if args.disabled or args.enabled:
            b.enabled = bool(args.enabled)
        try:
            b = store.update_binding(b)
        except BindingError as e:
            return _invalid(e)
    print(f"saved {_describe(b)}")
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    with _store(args) as store:
        b = store.binding(args.id)
        store.delete_binding(args.id)
    print(f"removed binding {b.id} ({b.skill} on {b.event_type})")
    return 0


def cmd_enable(args: argparse.Namespace) -> int:
    on = args.bindings_command == "enable"
    with _store(args) as store:
        store.set_binding_enabled(args.id, on)
    print(f"binding {args.id}: {'enabled' if on else 'disabled'}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from skill_studio.core.bus.dispatch import export_yaml

    with _store(args) as store:
        found = store.bindings(skill=args.skill, event_type=args.event)
    text = export_yaml(found)
    if not args.file or args.file == "-":
        sys.stdout.write(text)
        return 0
    path = Path(args.file)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent if str(path.parent) else ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    print(f"exported {len(found)} binding(s) to {path}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import CliError
    from skill_studio.core.bus.dispatch import BindingError, import_yaml
    from skill_studio.core.bus.yaml_io import MAX_FILE_BYTES
    from skill_studio.core.library.bounded_read import ReadRefused, decode_utf8, read_stream_bounded, read_text_bounded

    try:
        if args.file == "-":
            text = decode_utf8(read_stream_bounded(sys.stdin.buffer, MAX_FILE_BYTES, what="bindings file"),
                               "standard input")
        else:
            text = read_text_bounded(args.file, MAX_FILE_BYTES, what="bindings file")
    except ReadRefused as e:
        raise CliError(f"{e}; nothing was imported", 1) from None
    with _store(args) as store:
        try:
            added = import_yaml(store, text)
        except BindingError as e:
            print(f"skill-studio: {args.file}: nothing was imported", file=sys.stderr)
            return _invalid(e)
    for b in added:
        print(f"added {_describe(b)}")
    print(f"imported {len(added)} binding(s)")
    return 0


# --- dispatch and the log -------------------------------------------------------

def _print_dispatched(d: Dispatched, indent: str = "") -> None:
    where = f"event {d.event_id}" if d.event_id is not None else "not logged"
    print(f"{indent}{d.event_type}: {len(d.outcomes)} binding(s) considered, {len(d.fired)} fired"
          f"{'' if d.ok else ', an action failed'} ({where}, {d.duration_ms:.2f} ms)")
    for o in d.outcomes:
        b = o.binding
        line = f"{indent}  {'fired' if o.fired else 'skipped':7}  #{b.id:<5} {b.skill}  {b.action}"
        if o.fired:
            print(f"{line}  {json.dumps(o.result, ensure_ascii=False)}")
        else:
            print(f"{line}: {o.reason}")
    for e in d.emitted:
        _print_dispatched(e, indent + "    ")


def cmd_dispatch(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import CliError, emit_json
    from skill_studio.core.bus.dispatch import dispatch, dispatched_json
    from skill_studio.core.health import scores

    payload = _json_arg(args.payload, "--payload") if args.payload is not None else {}
    if not isinstance(payload, dict):
        raise CliError("--payload: the payload must be a JSON object ({...})", 2)
    now = None
    if args.at:
        now = scores.parse_time(args.at)
        if now is None:
            raise CliError(f'--at "{args.at}": expected an ISO time such as 2025-01-31T12:00:00Z', 2)
    with _store(args) as store:
        d = dispatch(store, args.event_type, payload, now, record=not args.dry_run)
    if args.json:
        emit_json(dispatched_json(d))
    else:
        _print_dispatched(d)
        if not d.outcomes:
            print(f"no binding listens to {args.event_type}")
    return 0


def cmd_events(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from skill_studio.cli.common import emit_json

    with _store(args) as store:
        found = store.events(args.limit, event_type=args.type, text=args.search)
    if args.json:
        emit_json([asdict(e) for e in found])
        return 0
    for e in found:
        state = "ok" if e.ok else "FAIL"
        origin = f"  (emitted by {e.parent})" if e.parent is not None else ""
        print(f"{e.id:>7}  {e.at}  {e.event_type:<24} {e.fired:>4}/{e.considered:<5} fired  {state}{origin}")
    if not found:
        print("no events logged")
    return 0


# --- the parser -----------------------------------------------------------------

def _binding_options(p: argparse.ArgumentParser) -> None:
    from skill_studio.core.bus.dispatch import ACTIONS

    p.add_argument("--action", choices=list(ACTIONS), help="what firing does (default: invoke_skill)")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="an action parameter (repeat; arguments and payload take JSON: {...})")
    p.add_argument("--when", action="append", default=[], metavar="FIELD=VALUE",
                   help="a condition: the payload field (dotted path) equals VALUE, or matches /regex/ (repeat)")
    p.add_argument("--priority", type=int, help="higher fires first (default 0)")
    p.add_argument("--cooldown", type=float, metavar="SECONDS", help="quiet time after it fires (default 0)")


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    b = add("bindings", "bindings of skills to events: list (the default), add, edit, remove, enable, "
                        "disable, export, import", cmd_list)
    b.set_defaults(skill=None, event=None)
    sub = b.add_subparsers(dest="bindings_command", metavar="ACTION")
    ls = sub.add_parser("list", help="list bindings, highest priority first")
    ls.set_defaults(func=cmd_list)
    ls.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="machine-readable output")
    ls.add_argument("--skill", help="only this skill's bindings")
    ls.add_argument("--event", metavar="EVENT_TYPE", help="only bindings of this event type")
    a = sub.add_parser("add", help="bind a skill to an event type")
    a.set_defaults(func=cmd_add)
    a.add_argument("skill")
    a.add_argument("event_type")
    _binding_options(a)
    a.add_argument("--disabled", action="store_true", help="add it switched off")
    e = sub.add_parser("edit", help="change a binding (only the options given)")
    e.set_defaults(func=cmd_edit)
    e.add_argument("id", type=int)
    e.add_argument("--skill", help="bind another skill")
    e.add_argument("--event", metavar="EVENT_TYPE", help="listen to another event type")
    _binding_options(e)
    e.add_argument("--clear-params", action="store_true", help="drop the parameters first")
    e.add_argument("--clear-conditions", action="store_true", help="fire on every event of its type")
    state = e.add_mutually_exclusive_group()
    state.add_argument("--disabled", action="store_true", help="switch it off")
    state.add_argument("--enabled", action="store_true", help="switch it on")
    for name, func, help_ in (("remove", cmd_remove, "delete a binding"), ("enable", cmd_enable, "switch a binding on"),
                              ("disable", cmd_enable, "switch a binding off")):
        p = sub.add_parser(name, help=help_)
        p.set_defaults(func=func)
        p.add_argument("id", type=int)
    x = sub.add_parser("export", help="write bindings as YAML (to FILE, or standard output)")
    x.set_defaults(func=cmd_export)
    x.add_argument("file", nargs="?", metavar="FILE")
    x.add_argument("--skill", help="only this skill's bindings")
    x.add_argument("--event", metavar="EVENT_TYPE", help="only bindings of this event type")
    i = sub.add_parser("import", help="add the bindings of a YAML file (all of them, or none if one is wrong)")
    i.set_defaults(func=cmd_import)
    i.add_argument("file", metavar="FILE", help='a YAML file ("-": standard input)')

    d = add("dispatch", "dispatch an event: every binding of its type, fired or skipped and why (logged)",
            cmd_dispatch)
    d.add_argument("event_type", metavar="EVENT_TYPE")
    d.add_argument("--payload", metavar="JSON", help="the event's payload, a JSON object")
    d.add_argument("--at", metavar="TIME", help="the time of the event (ISO; default now), to try cooldowns")
    d.add_argument("--dry-run", action="store_true", help="log nothing and start no cooldown")

    ev = add("events", "the log of dispatched events, newest first", cmd_events)
    ev.add_argument("--limit", type=int, default=20)
    ev.add_argument("--type", metavar="EVENT_TYPE", help="only events of this type")
    ev.add_argument("--search", metavar="TEXT", help="only events whose type, payload, skills or results contain TEXT")

