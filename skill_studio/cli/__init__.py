"""The ``skill-studio`` command line: headless commands over the core."""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skill_studio import __version__
from skill_studio.core.model import Lifecycle, Origin, Skill, TrustTier


class CliError(Exception):
    """An error shown as one line on stderr, with an exit code."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


def _open_store(args: argparse.Namespace):
    from skill_studio.core.library.samples import open_default
    from skill_studio.core.paths import default_store_path
    from skill_studio.core.store import Store

    if args.store:
        return Store(Path(args.store))
    return open_default(default_store_path())


def _emit_json(data: Any) -> None:
    json.dump(data, sys.stdout, ensure_ascii=False, indent=2, default=str)
    sys.stdout.write("\n")


# --- validate -----------------------------------------------------------------

def cmd_validate(args: argparse.Namespace) -> int:
    from skill_studio.core.format import validate
    from skill_studio.core.format.names import printable
    from skill_studio.core.library.folders import discover, has_skill_md, missing_path_reason

    results: list[tuple[Path, list]] = []
    single = len(args.paths) == 1
    for raw in args.paths:
        path = Path(raw)
        if not path.exists():
            if path.is_symlink():
                raise CliError(f"{printable(raw)}: {missing_path_reason(path)}", 1)
            raise CliError(f"Path '{printable(raw)}' does not exist.")
        if path.name.lower() == "skill.md" and not path.is_dir():
            path = path.parent
        folders = discover(path) if path.is_dir() and not has_skill_md(path) else []
        if folders:  # a tree of skills
            single = False
            results += [(f, validate.validate_dir(f, args.profile, lints=args.lints)) for f in folders]
        else:
            results.append((path, validate.validate_dir(path, args.profile, lints=args.lints)))
    invalid = sum(1 for _, d in results if not validate.is_valid(d))
    if args.json:
        _emit_json({"profile": args.profile, "valid": len(results) - invalid, "invalid": invalid,
                    "skills": [{"path": str(p), "valid": validate.is_valid(d),
                                "diagnostics": [_diag_json(x) for x in d]} for p, d in results]})
        return 1 if invalid else 0
    for path, diags in results:
        errs = [d for d in diags if d.severity == "error"]
        others = [d for d in diags if d.severity != "error"]
        if errs:
            print(f"Validation failed for {printable(str(path))}:", file=sys.stderr)
            for d in errs:
                print(f"  - {printable(d.message)}", file=sys.stderr)
        elif single:
            print(f"Valid skill: {printable(str(path))}")
        for d in others if (args.profile != "strict" or args.lints) else []:
            line = f" (line {d.line})" if d.line else ""
            print(f"  {_severity(d)}: {printable(d.message)}{line}", file=sys.stderr)
    if not single:
        print(f"{len(results)} skills: {len(results) - invalid} valid, {invalid} invalid "
              f"({args.profile} profile)")
    return 1 if invalid else 0


def _severity(d) -> str:
    return str(getattr(d.severity, "value", d.severity))


def _diag_json(d) -> dict[str, Any]:
    return {"code": d.code, "severity": _severity(d),
            "message": d.message, "line": d.line, "hint": d.hint}


# --- import / export ----------------------------------------------------------

def cmd_import(args: argparse.Namespace) -> int:
    from skill_studio.core.format.names import printable
    from skill_studio.core.library.importer import import_paths

    with _open_store(args) as store:
        report = import_paths(store, args.paths, origin=Origin(args.origin))
    if args.json:
        entries = [{**vars(e), "source": printable(e.source), "reason": printable(e.reason),
                    "name": e.name and printable(e.name), "warnings": [printable(w) for w in e.warnings]}
                   for e in report.entries]
        _emit_json({"summary": report.summary, "entries": entries})
    else:
        for e in report.entries:
            what = f"{e.status:9} {printable(e.name or '-')}"
            print(f"{what}  {printable(e.reason or e.source)}")
            for w in e.warnings:
                print(f"          warning: {printable(w)}")
        print(report.summary)
    return 1 if report.count("skipped") and not (report.count("imported") or report.count("updated")
                                                 or report.count("unchanged")) else 0


def cmd_export(args: argparse.Namespace) -> int:
    from skill_studio.core.library.folders import export_archive, export_folder

    if not args.names and not args.all:
        raise CliError("name the skills to export, or use --all")
    written = []
    with _open_store(args) as store:
        names = store.names() if args.all else args.names
        skills = [_get(store, name) for name in names]
        folders: dict[str, str] = {}
        for s in skills:
            other = folders.setdefault((s.folder_name or s.name).casefold(), s.name)
            if other != s.name:
                raise CliError(f'"{other}" and "{s.name}" would both be written to the folder '
                               f'"{s.folder_name or s.name}"; export them to different places', 1)
        for skill in skills:
            out = export_archive(skill, args.to) if args.zip else export_folder(skill, args.to)
            written.append({"name": skill.name, "path": str(out)})
    if args.json:
        _emit_json({"exported": written})
    else:
        for w in written:
            print(f"exported {w['name']} -> {w['path']}")
    return 0


# --- list / show / prompt -----------------------------------------------------

def cmd_list(args: argparse.Namespace) -> int:
    from skill_studio.core.store import Filters

    flt = Filters(lifecycle=args.lifecycle, origin=args.origin, tag=args.tag, text=args.search)
    with _open_store(args) as store:
        sort = "relevance" if args.search and args.sort == "name" else args.sort
        skills = store.list(flt, sort=sort, limit=args.limit)
        total = store.count(flt)
    if args.json:
        from skill_studio.core.agents.skill_json import summary_json

        _emit_json({"total": total, "skills": [summary_json(s) for s in skills]})
        return 0
    width = max((len(s.name) for s in skills), default=4)
    for s in skills:
        desc = " ".join(s.description.split())
        desc = desc if len(desc) <= 70 else desc[:69] + "…"
        print(f"{s.stars}  {s.lifecycle.value:10}  {s.name:{width}}  {desc}")
    shown = f"{len(skills)} of {total}" if len(skills) < total else str(total)
    print(f"{shown} skill{'s' if total != 1 else ''}")
    return 0


def _get(store, name: str) -> Skill:
    from skill_studio.core.store import NotFound

    try:
        return store.get(name)
    except NotFound:
        raise CliError(f'no skill named "{name}" in {store.path}', 1) from None


def cmd_show(args: argparse.Namespace) -> int:
    from skill_studio.core.agents.skill_json import detail_json

    with _open_store(args) as store:
        s = _get(store, args.name)
        if args.json:
            _emit_json(detail_json(store, s))
            return 0
        versions = store.versions(s.name)
        dependents = store.dependents(s.name)
    tier = TrustTier(s.trust_tier)
    rows = [
        ("name", s.name), ("description", s.description),
        ("lifecycle", s.lifecycle.value + (f" ({s.lifecycle_reason})" if s.lifecycle_reason else "")),
        ("trust", f"{tier.stars} {tier.label}"), ("origin", s.origin.value),
        ("version", str(s.version)), ("tags", " ".join(s.tags) or "-"),
        ("depends on", ", ".join(s.depends_on) or "-"), ("needed by", ", ".join(dependents) or "-"),
        ("conflicts with", ", ".join(s.conflicts_with) or "-"), ("parent", s.parent_skill_id or "-"),
        ("trigger", s.trigger_pattern or "-"),
        ("scores", f"success {s.success_rate:.2f}  utility {s.utility_score:.2f}  "
                   f"freshness {s.freshness:.2f}  uses {s.use_count}"),
        ("last used", s.last_used_at or "never"), ("updated", s.updated_at or "-"),
        ("steps", str(len(s.steps))), ("pinned", "yes" if s.pinned else "no"),
    ]
    for label, value in rows:
        print(f"{label:>14}: {value}")
    print(f"{'files':>14}: SKILL.md ({len(s.skill_md.encode()):,} bytes)")
    for f in s.files:
        print(f"{'':>16}{f.path} ({len(f.data):,} bytes{', executable' if f.executable else ''})")
    print(f"{'history':>14}: " + ", ".join(f"v{v.version} {v.created_at} {v.note}" for v in versions[:5]))
    return 0


def cmd_window(args: argparse.Namespace) -> int:
    """No command: open the window on the store (created and seeded on first run).

    Where no display can be opened, the library is shown as text instead.
    """
    from skill_studio.ui.shell.app import display_available, start

    if not display_available():
        print("skill-studio: no display to open the window on; showing the library as text",
              file=sys.stderr)
        return cmd_overview(args)
    return start(lambda: _open_store(args))


def cmd_overview(args: argparse.Namespace) -> int:
    """The store and its library as text."""
    with _open_store(args) as store:
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

    v = add("validate", "check skill folders, SKILL.md files or trees of skills", cmd_validate)
    v.add_argument("paths", nargs="+", metavar="PATH")
    v.add_argument("--profile", choices=("strict", "lenient", "claude-upload"), default="strict")
    v.add_argument("--lints", action="store_true", help="also show the studio lints with strict")

    i = add("import", "import skill folders, trees of them, and .skill/.zip archives", cmd_import)
    i.add_argument("paths", nargs="+", metavar="PATH")
    i.add_argument("--origin", choices=[o.value for o in Origin], default="human")

    e = add("export", "write skills as folders (or zip archives)", cmd_export)
    e.add_argument("names", nargs="*", metavar="NAME")
    e.add_argument("--all", action="store_true", help="every skill in the store")
    e.add_argument("--to", required=True, metavar="DIR")
    e.add_argument("--zip", action="store_true", help="one <name>.zip per skill")

    ls = add("list", "list skills with their trust stars and lifecycle", cmd_list)
    ls.add_argument("--lifecycle", choices=[s.value for s in Lifecycle])
    ls.add_argument("--origin", choices=[o.value for o in Origin])
    ls.add_argument("--tag")
    ls.add_argument("--search", metavar="TEXT")
    ls.add_argument("--sort", default="name",
                    choices=["name", "lifecycle", "trust", "origin", "success", "utility", "freshness",
                             "last_used", "updated", "created", "relevance"])
    ls.add_argument("--limit", type=int)

    s = add("show", "show one skill: fields, scores, files, history", cmd_show)
    s.add_argument("name")

    from skill_studio.cli import agents as cli_agents
    from skill_studio.cli import authoring as cli_authoring
    from skill_studio.cli import bus as cli_bus
    from skill_studio.cli import graph as cli_graph
    from skill_studio.cli import health as cli_health
    from skill_studio.cli import linked as cli_linked
    from skill_studio.cli import review as cli_review
    from skill_studio.cli import runtime as cli_runtime
    from skill_studio.cli import store as cli_store

    for module in (cli_authoring, cli_review, cli_health, cli_graph, cli_bus, cli_agents, cli_linked,
                   cli_runtime, cli_store):   # each area
        module.register(add)
    return p


def main(argv: Sequence[str] | None = None) -> int:
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
