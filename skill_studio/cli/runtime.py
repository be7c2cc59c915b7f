"""Commands for agent runtimes and script authors: ``serve`` (the local skills API) and ``run`` (a
test run of one of a skill's scripts in a temporary copy)."""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Callable


def _interrupt(*_args) -> None:
    raise KeyboardInterrupt


def cmd_serve(args: argparse.Namespace) -> int:
    from skill_studio.api.server import ApiServer
    from skill_studio.cli.common import CliError, open_store

    store = open_store(args)
    try:
        server = ApiServer(store, args.port, quiet=args.quiet)
    except OSError as e:
        store.close()
        raise CliError(f"cannot listen on 127.0.0.1:{args.port}: {e.strerror or e}", 1) from None
    server.announce()
    print(f"Skill Studio API on {server.url} (store {store.path})")
    print(f"Write token: {server.token}")
    print(f"Description: {server.url}/api/openapi.json   Stop with Ctrl+C.", flush=True)
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        server.withdraw()
        store.close()
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import CliError, get_skill, open_store
    from skill_studio.core.runtime import limits, script_run
    from skill_studio.core.runtime.visible import VisibleStream, visible

    with open_store(args) as store:
        skill = get_skill(store, args.name)
        try:
            run_limits = limits.from_settings(store.setting)
        except limits.LimitError as e:
            raise CliError(f"{e} (in {store.path})", 1) from None
    question = script_run.trust_question(skill)
    if question and not args.yes:
        if not sys.stdin.isatty():
            raise CliError(f"{question}. Run it anyway with --yes", 1)
        print(f"{question}.", file=sys.stderr)
        if input("Run it anyway? [y/N] ").strip().lower() not in ("y", "yes"):
            print("not run", file=sys.stderr)
            return 1
    try:
        plan = script_run.plan(skill, args.script, args.args, use_sandbox=not args.no_sandbox, limits=run_limits)
    except script_run.RunError as e:
        raise CliError(str(e), 1) from None
    # Ended from outside (SIGTERM) as by Ctrl+C: the run's own cleanup stops the script and its copy goes.
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        where = "sandboxed (no network, only the copy writable)" if plan.sandboxed else \
            f"NOT sandboxed: {plan.sandbox_note}"
        print(visible(f"running {plan.script} of {skill.name} in a temporary copy, {where}"), file=sys.stderr,
              flush=True)
        # What the script writes is shown, never acted on by the terminal (colours, titles, clipboard).
        streams = {"stdout": VisibleStream(), "stderr": VisibleStream()}

        def show(stream: str, text: str) -> None:
            out = sys.stdout if stream == "stdout" else sys.stderr
            out.write(streams[stream].feed(text))
            out.flush()

        try:
            result = script_run.run(plan, timeout=args.timeout, on_output=show)
        except script_run.RunError as e:
            raise CliError(str(e), 1) from None
        for name, stream in streams.items():
            show(name, stream.end())
        print(visible(f"\n{plan.script}: {result.summary}"), file=sys.stderr)
        for o in result.outputs:   # (a name's control characters written out: it cannot fake a line)
            print(f"  output {'(new) ' if o.new else '(changed) '}{o.shown} ({o.size:,} bytes)", file=sys.stderr)
        saved = None
        if args.outputs and result.outputs:
            saved = script_run.save_outputs(plan, args.outputs, result.outputs)
            for line in saved.problems():
                print(f"  {line}", file=sys.stderr)
            print(visible(f"  {len(saved.written)} output file(s) copied to {args.outputs}"
                          + (f", {len(saved.skipped)} not copied (named above)" if saved.skipped else "")),
                  file=sys.stderr)
    finally:
        plan.cleanup()
    code = _exit_code(result)
    if saved is not None and saved.skipped and code == 0:
        print(f"skill-studio: the script ended well, but {len(saved.skipped)} of its output file(s) could not be "
              "copied: exit code 1", file=sys.stderr)
        return 1
    return code


def _exit_code(result) -> int:
    if result.timed_out:
        return 124
    if result.exit_code is None:
        return 1
    return result.exit_code if result.exit_code >= 0 else 128 - result.exit_code   # (killed by a signal)


def _timeout(text: str) -> float:
    from skill_studio.core.runtime import limits

    try:
        return limits.check_timeout(text)
    except limits.LimitError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def split_script_args(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """Parse ``argv``; for ``run``, what follows the first ``--`` goes to the script untouched."""
    if "--" in argv:
        cut = argv.index("--")
        head, _extra = parser.parse_known_args(argv[:cut])
        if getattr(head, "command", None) == "run":
            args = parser.parse_args(argv[:cut])
            args.args = argv[cut + 1:]
            return args
    return parser.parse_args(argv)


def cmd_run_limits(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import CliError, emit_json, open_store
    from skill_studio.core.runtime import limits

    store = open_store(args)
    try:
        if args.limit is not None and args.value is None:
            raise CliError(f"give a value for {args.limit} (or 'default')", 2)
        if args.limit is not None:
            s = limits.set_limit(store, args.limit, None if args.value == "default" else args.value)
            value = getattr(limits.from_settings(store.setting), s.key.removeprefix("run."))
            print(f"{s.key}: {value}{' ' + s.unit if s.unit else ''}")
            return 0
        current = limits.from_settings(store.setting)
    except limits.LimitError as e:
        raise CliError(str(e), 2) from None
    rows = [(s.key, getattr(current, name), s.default, s.unit, s.meaning) for name, s in limits.SETTINGS.items()]
    if getattr(args, "json", False):
        emit_json([{"setting": k, "value": v, "default": d, "unit": u, "meaning": m} for k, v, d, u, m in rows])
        return 0
    for key, value, default, unit, meaning in rows:
        shown = f"{value} {unit}".strip()
        print(f"{key:17} {shown:10} {meaning}" + ("" if value == default else f" (default {default})"))
    return 0


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    s = add("serve", "serve the local skills API on 127.0.0.1 (reads open, writes with the token it prints)",
            cmd_serve, json_flag=False)
    s.add_argument("--port", type=int, default=8765, help="the port (0: any free one); default 8765")
    s.add_argument("--quiet", action="store_true", help="no line per request or per client that hangs up early")
    r = add("run", "try one of a skill's scripts in a temporary copy of its folder (sandboxed where bubblewrap "
                   "is installed)", cmd_run, json_flag=False)
    from skill_studio.core.runtime import limits

    r.epilog = ("The script's own arguments follow --: skill-studio run NAME SCRIPT -- ARG... "
                "A run is held to limits, each a setting of the store: " + limits.settings_help() + ". "
                "The limit that stopped a run is named in its summary. When the studio runs as root, the run "
                "(sandboxed or not) starts as user nobody; otherwise without the sandbox it runs as your own user, "
                "with all your user may do. Its TMPDIR (also TMP and TEMP) is a folder beside its copy, limited and "
                "removed with it; without the sandbox the machine's own /tmp and /dev/shm are not limited and not "
                "cleaned up after it. Control characters in its output are shown as ^[ and the like, and in "
                "the names of its output files as \\x1b and the like, never passed to the terminal. With "
                "--outputs, a file whose name cannot be written safely is skipped and named, the others copied, "
                "and the command exits non-zero.")
    lim = add("run-limits", "show the limits script runs are held to, or set one", cmd_run_limits)
    lim.add_argument("limit", nargs="?", help="one of: " + ", ".join(limits.SETTINGS))
    lim.add_argument("value", nargs="?", help="a whole number in the limit's range; 'default' puts the default back")
    r.add_argument("name")
    r.add_argument("script", nargs="?", help="run.sh, main.py or scripts/...; the first of them when left out")
    r.set_defaults(args=[])   # what follows "--" (see split_script_args)
    r.add_argument("--timeout", type=_timeout, default=limits.DEFAULT_TIMEOUT_S, metavar="SECONDS",
                   help=f"stop it after this long (default {limits.DEFAULT_TIMEOUT_S:.0f}, at most "
                        f"{limits.MAX_TIMEOUT_S:.0f})")
    r.add_argument("--yes", action="store_true", help="run a skill below trust tier 3 without asking")
    r.add_argument("--outputs", metavar="DIR",
                   help="copy the files the script wrote into DIR (one whose name cannot be written safely is "
                        "skipped and named, and the command then exits non-zero)")
    r.add_argument("--no-sandbox", action="store_true", help="run without bubblewrap even where it is installed")
