"""The ``skill-studio`` command: its parser, each area's commands registered into it, and ``main``."""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
from collections.abc import Sequence

from skill_studio import __version__
from skill_studio.cli.common import CliError, open_store
from skill_studio.cli.library import cmd_list


def cmd_window(args: argparse.Namespace) -> int:
    """No command: open the window on the store (created and seeded on first run).

    Where no display can be opened, the library is shown as text instead.
    """
    from skill_studio.ui.shell.app import display_available, start

    if not display_available():
        print("skill-studio: no display to open the window on; showing the library as text",
              file=sys.stderr)
        return cmd_overview(args)
    return start(lambda: open_store(args))


def cmd_overview(args: argparse.Namespace) -> int:
    """The store and its library as text."""
    with open_store(args) as store:
        stats = store.stats()
        path = store.path
    print(f"Skill store: {path}")
    print(f"{stats['total']} skills, {stats['active']} active, {stats['candidates']} awaiting review")
    args.lifecycle = args.origin = args.tag = args.search = None
    args.sort, args.limit, args.json = "name", None, False
    cmd_list(args)
    print("\nCommands: validate, import, export, list, show, prompt, new, save, history, diff, restore-version, "
          "drafts, promote, degrade, deprecate, archive, trust, pin, merge, delete, audit, health, use, "
          "duplicates (skill-studio --help)")
    return 0


# --- parser -------------------------------------------------------------------

class _Parser(argparse.ArgumentParser):
    """Usage mistakes are one line too (``--help`` still shows the whole usage)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="skill-studio", description="Build, review and maintain agent skills.")
    p.add_argument("--version", action="version", version=f"skill-studio {__version__}")
    p.add_argument("--selftest", action="store_true",
                   help="open the window offscreen on a temporary sample store, try each part once, exit 0 or 1")
    p.add_argument("--store", metavar="PATH", help="the store file (default: the user's store)")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    def add(name: str, help_: str, func, json_flag: bool = True) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help_, description=help_)
        sp.set_defaults(func=func)
        if json_flag:
            sp.add_argument("--json", action="store_true", help="machine-readable output")
        return sp

    import skill_studio.cli.agents as cli_agents
    import skill_studio.cli.authoring as cli_authoring
    import skill_studio.cli.bus as cli_bus
    import skill_studio.cli.graph as cli_graph
    import skill_studio.cli.health as cli_health
    import skill_studio.cli.library as cli_library
    import skill_studio.cli.linked as cli_linked
    import skill_studio.cli.review as cli_review
    import skill_studio.cli.runtime as cli_runtime
    import skill_studio.cli.store as cli_store

    for module in (cli_library, cli_authoring, cli_review, cli_health, cli_graph, cli_bus, cli_agents, cli_linked,
                   cli_runtime, cli_store):   # each area
        module.register(add)
    return p


class _Shown:
    """A terminal's output stream that shows control characters instead of sending them (a
    skill's text may hold an escape that writes the clipboard or clears the screen); what goes
    to a file or a pipe is left as it is."""

    def __init__(self, stream) -> None:
        from skill_studio.core.runtime.visible import VisibleStream

        self._stream, self._visible = stream, VisibleStream()

    def write(self, text: str) -> int:
        self._stream.write(self._visible.feed(text))
        return len(text)

    def flush(self) -> None:
        self._stream.flush()

    def end(self) -> None:
        self._stream.write(self._visible.end())

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def main(argv: Sequence[str] | None = None) -> int:
    real = sys.stdout
    shown = _Shown(real) if real is not None and real.isatty() else None
    if shown is not None:
        sys.stdout = shown   # type: ignore[assignment]  # (a text stream in all that is used)
    try:
        return _main(argv)
    finally:
        if shown is not None:
            shown.end()
            sys.stdout = real


def _main(argv: Sequence[str] | None) -> int:
    from skill_studio.cli.runtime import split_script_args

    args = split_script_args(build_parser(), list(sys.argv[1:] if argv is None else argv))
    if args.selftest:
        from skill_studio import selftest

        return selftest.run()
    func = getattr(args, "func", cmd_window)
    try:
        return func(args)
    except CliError as e:
        print(f"skill-studio: {e}", file=sys.stderr)
        return e.code
    except KeyboardInterrupt:
        print("skill-studio: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except (OSError, ValueError, sqlite3.Error, RuntimeError) as e:
        # StoreError, SkillParseError, FolderError and ArchiveError are ValueErrors or
        # StoreErrors with a message that names the file; never show a traceback.
        print(f"skill-studio: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 - last resort: one line, not a traceback
        from skill_studio.core.store import StoreError

        if isinstance(e, StoreError):
            print(f"skill-studio: {e}", file=sys.stderr)
            return 1
        print(f"skill-studio: unexpected error: {type(e).__name__}: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
