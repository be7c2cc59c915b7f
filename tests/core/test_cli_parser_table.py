"""The command line's parser is built from a light table of its commands (cli/commands.py): every
``--help`` reads as it did when every area's module was imported first, the table says what the
modules register, and a command parses to the same arguments whichever way the parser was built."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

import pytest

from skill_studio import __version__
from skill_studio.cli.commands import AREAS, area_of, command_in

cli_main = importlib.import_module("skill_studio.cli.main")   # (the package's ``main`` is the function)

HELP = json.loads((Path(__file__).parents[1] / "fixtures" / "cli_help.json").read_text(encoding="utf-8"))


def _run_main(argv: list[str], capsys) -> tuple[int, str, str]:
    try:
        code = cli_main.main(argv)
    except SystemExit as e:
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("path", sorted(HELP), ids=lambda p: p or "(top)")
def test_every_help_reads_as_before(path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")   # argparse wraps to the terminal's width
    code, out, _err = _run_main([*path.split(), "--help"], capsys)
    assert code == 0
    assert out == HELP[path]


def test_version(capsys):
    code, out, _err = _run_main(["--version"], capsys)
    assert (code, out) == (0, f"skill-studio {__version__}\n")


def _registered(area: str) -> list[tuple[str, str]]:
    seen: list[tuple[str, str]] = []

    def add(name, help_, func, json_flag=True):
        seen.append((name, help_))
        return argparse.ArgumentParser(prog=name)

    importlib.import_module(f"skill_studio.cli.{area}").register(add)
    return seen


@pytest.mark.parametrize("area", [a for a, _ in AREAS])
def test_the_table_lists_what_each_area_registers(area):
    assert list(dict(AREAS)[area]) == _registered(area)


def test_every_command_module_is_in_the_table():
    cli = Path(cli_main.__file__).parent
    registering = sorted(p.stem for p in cli.glob("*.py") if "\ndef register(" in p.read_text(encoding="utf-8"))
    assert registering == sorted(a for a, _ in AREAS)
    names = [n for _, commands in AREAS for n, _ in commands]
    assert len(names) == len(set(names))


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices


def test_a_parser_with_no_area_loaded_lists_the_same_commands():
    light, full = cli_main.build_parser([]), cli_main.build_parser()
    assert list(_subparsers(light)) == list(_subparsers(full))
    assert light.format_help() == full.format_help()


# One command line per command (and a few shapes of the options before it).
ARGVS = [
    ["validate", "a", "b", "--profile", "strict", "--json"], ["import", "x"], ["export", "s", "-o", "out"],
    ["list", "--lifecycle", "active", "--json"], ["show", "s"], ["new", "s"], ["save", "SKILL.md"],
    ["history", "s"], ["diff", "s"], ["restore-version", "s", "2"], ["drafts"], ["promote", "s"],
    ["degrade", "s"], ["deprecate", "s"], ["archive", "s"], ["restore", "s"], ["trust", "s", "2"],
    ["pin", "s"], ["unpin", "s"], ["merge", "a", "b"], ["delete", "s"], ["audit"], ["health"],
    ["use", "s", "--outcome", "success"], ["duplicates"], ["graph"], ["deps", "s"], ["dependents", "s"],
    ["load-order"], ["bindings"], ["bindings", "list"], ["dispatch", "e"], ["events"], ["match", "q"],
    ["gate"], ["load", "s"], ["prompt"], ["install", "dir"], ["uninstall", "dir"], ["installed", "dir"],
    ["descriptor"], ["link", "dir"], ["unlink", "dir"], ["sync"], ["serve"], ["run", "s", "x.py", "--", "-v"],
    ["run-limits"], ["rescue", "out"],
    ["--store", "list", "list"], ["--store=validate", "list"], ["--sto", "x", "show", "s"], ["--selftest"], [],
]


def _parsed(parse, argv: list[str]) -> dict | str:
    try:
        ns = parse(argv)
    except SystemExit as e:
        return f"exit {e.code}"
    out = dict(vars(ns))
    if "func" in out:
        out["func"] = f"{out['func'].__module__}.{out['func'].__qualname__}"
    return out


@pytest.mark.parametrize("argv", ARGVS, ids=" ".join)
def test_a_command_parses_the_same_as_with_every_area_loaded(argv, capsys):
    from skill_studio.cli.runtime import split_script_args

    light = _parsed(cli_main.parse_args, list(argv))
    full = _parsed(lambda a: split_script_args(cli_main.build_parser(), a), list(argv))
    assert light == full
    if argv and argv[0] in ("validate", "list", "run") and isinstance(light, dict):
        assert light.get("func")   # the command's own function, not a listing's


@pytest.mark.parametrize("argv", [["lisst"], ["list", "--no-such-option"], ["validate"], ["-5", "list"],
                                  ["show"], ["bindings", "nope"]], ids=" ".join)
def test_usage_mistakes_read_the_same(argv, capsys):
    from skill_studio.cli.runtime import split_script_args

    def messages(parse):
        try:
            parse(list(argv))
        except SystemExit as e:
            return e.code, capsys.readouterr()
        return None

    assert messages(cli_main.parse_args) == messages(lambda a: split_script_args(cli_main.build_parser(), a))


def test_a_wrong_guess_falls_back_to_every_area(monkeypatch):
    """Whatever the command is taken to be, the parser decides: a command listed by name only is
    parsed with the whole parser."""
    monkeypatch.setattr(cli_main, "command_in", lambda argv: "validate")
    args = cli_main.parse_args(["list", "--json"])
    assert args.func.__module__ == "skill_studio.cli.library" and args.func.__name__ == "cmd_list"
    assert args.json is True
    monkeypatch.setattr(cli_main, "command_in", lambda argv: None)
    args = cli_main.parse_args(["graph", "--problems"])
    assert args.func.__module__ == "skill_studio.cli.graph"


@pytest.mark.parametrize(("argv", "command"), [
    ([], None), (["--help"], None), (["list"], "list"), (["--store", "x", "show", "s"], "show"),
    (["--store=x", "audit"], "audit"), (["--st", "validate", "list"], "list"), (["--selftest"], None),
    (["--", "list"], "list"), (["-", "list"], "-"),
])
def test_command_in(argv, command):
    assert command_in(argv) == command


def test_area_of():
    assert area_of("validate") == "library" and area_of("run") == "runtime" and area_of("nope") is None


def test_main_reads_sys_argv(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["skill-studio", "--version"])
    code, out, _err = _run_main(None, capsys)  # type: ignore[arg-type]
    assert code == 0 and out.startswith("skill-studio ")


def test_a_database_error_is_one_line(monkeypatch, capsys):
    import sqlite3

    import skill_studio.cli.library as cli_library

    def locked(args):
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(cli_library, "cmd_list", locked)
    code, out, err = _run_main(["list"], capsys)
    assert (code, out, err) == (1, "", "skill-studio: database is locked\n")
