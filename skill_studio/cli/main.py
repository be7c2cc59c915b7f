"""The ``skill-studio`` command: its parser, each area's commands registered into it, and ``main``."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Iterable, Sequence

from skill_studio import __version__
from skill_studio.cli.commands import AREAS, area_of, command_in
from skill_studio.cli.common import CliError, open_store


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
    from skill_studio.cli.library import cmd_list

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

class _NotLoaded(Exception):
    """The parser went into a command whose area was listed by name only."""


class _Parser(argparse.ArgumentParser):
    """Usage mistakes are one line too (``--help`` still shows the whole usage)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


class _Listed:
    """A command listed by name and help only (its area's module not imported: see
    :func:`build_parser`): it has no arguments here, so reaching them means the whole parser is
    needed after all."""

    def __init__(self, prog: str) -> None:
        self.prog = prog

    def parse_known_args(self, args=None, namespace=None):
        raise _NotLoaded(self.prog)


class _Commands(argparse._SubParsersAction):
    """The commands: those of the areas registered in full get their own parser; the others are
    listed (``--help`` shows them the same) without building one each, which a command that
    runs would pay for on every start."""

    def add_listed(self, name: str, help_: str) -> None:
        # (what ``add_parser(name, help=help_)`` records for the listing and the choice, without
        # the parser: the help line, and the name the parser looks the command up by)
        self._choices_actions.append(self._ChoicesPseudoAction(name, (), help_))
        self._name_parser_map[name] = _Listed(f"{self._prog_prefix} {name}")  # type: ignore[assignment]


def build_parser(areas: Iterable[str] | None = None) -> argparse.ArgumentParser:
    """The whole parser; with ``areas``, only those areas' commands are registered in full (their
    modules imported) and the others listed by name and help, which ``--help`` shows the same."""
    full = None if areas is None else set(areas)
    p = _Parser(prog="skill-studio", description="Build, review and maintain agent skills.")
    p.add_argument("--version", action="version", version=f"skill-studio {__version__}")
    p.add_argument("--selftest", action="store_true",
                   help="open the window offscreen on a temporary sample store, try each part once, exit 0 or 1")
    p.add_argument("--store", metavar="PATH", help="the store file (default: the user's store)")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser, action=_Commands)

    def add(name: str, help_: str, func, json_flag: bool = True) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help_, description=help_)
        sp.set_defaults(func=func)
        if json_flag:
            sp.add_argument("--json", action="store_true", help="machine-readable output")
        return sp

    for area, commands in AREAS:   # each area, in the order --help lists them
        if full is None or area in full:
            importlib.import_module(f"skill_studio.cli.{area}").register(add)
        else:
            for name, help_ in commands:
                sub.add_listed(name, help_)
    return p


def parse_args(argv: list[str]) -> argparse.Namespace:
    """``argv`` parsed with the areas it needs: the named command's (none for ``--help``, the
    window or ``--version``), or every area when the command is not where it was looked for."""
    command = command_in(argv)
    area = area_of(command) if command is not None else None
    try:
        return _parse(build_parser([area] if area else []), argv)
    except _NotLoaded:
        return _parse(build_parser(), argv)


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """``argv`` parsed; a ``--`` (what follows it may go to a script ``run`` tries) is left to
    ``runtime``, which is imported only then."""
    if "--" not in argv:
        return parser.parse_args(argv)
    from skill_studio.cli.runtime import split_script_args

    return split_script_args(parser, argv)


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
    args = parse_args(list(sys.argv[1:] if argv is None else argv))
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
    except (OSError, ValueError, RuntimeError) as e:
        # StoreError, SkillParseError, FolderError and ArchiveError are ValueErrors or
        # StoreErrors with a message that names the file; never show a traceback.
        print(f"skill-studio: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 - last resort: one line, not a traceback
        sqlite3 = sys.modules.get("sqlite3")   # (a command that used no database raised none)
        if sqlite3 is not None and isinstance(e, sqlite3.Error):
            print(f"skill-studio: {e}", file=sys.stderr)
            return 1
        from skill_studio.core.store import StoreError

        if isinstance(e, StoreError):
            print(f"skill-studio: {e}", file=sys.stderr)
            return 1
        print(f"skill-studio: unexpected error: {type(e).__name__}: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
