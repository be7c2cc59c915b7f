"""The library commands of ``skill-studio``: validate folders, import, export, list and show skills."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from skill_studio.cli.common import CliError, emit_json, get_skill, open_store
from skill_studio.core.model import Lifecycle, Origin, TrustTier

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
        emit_json({"profile": args.profile, "valid": len(results) - invalid, "invalid": invalid,
                    "skills": [{"path": str(p), "valid": validate.is_valid(d),
                                "diagnostics": [_diag_json(x) for x in d]} for p, d in results]})
        return 1 if invalid else 0
    for path, diags in results:
        errs = [d for d in diags if d.severity == "error"]
        others = [d for d in diags if d.severity != "error"]
        if errs:
            print(f"Validation failed for {printable(str(path))}:", file=sys.stderr)
            for d in errs:
                print(f"  - {_report_text(d.message)}", file=sys.stderr)
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
    from skill_studio.core.ops.library import import_skills

    with open_store(args) as store:
        report = import_skills(store, args.paths, origin=Origin(args.origin)).report
    if args.json:
        entries = [{**vars(e), "source": printable(e.source), "reason": printable(e.reason),
                    "name": e.name and printable(e.name), "warnings": [printable(w) for w in e.warnings]}
                   for e in report.entries]
        emit_json({"summary": report.summary, "entries": entries})
    else:
        for e in report.entries:
            what = f"{e.status:9} {printable(e.name or '-')}"
            print(f"{what}  {printable(e.reason or e.source)}")
            for w in e.warnings:
                print(f"          warning: {printable(w)}")
        print(report.summary)
    if report.failures:   # not a rule's refusal: the store could not take them
        print(f"skill-studio: {printable(report.failure_advice)}", file=sys.stderr)
        return 1
    return 1 if report.count("skipped") and not (report.count("imported") or report.count("updated")
                                                 or report.count("unchanged")) else 0


def cmd_export(args: argparse.Namespace) -> int:
    from skill_studio.core.library.folder_write import ExportClash
    from skill_studio.core.ops.library import export_skills

    if not args.names and not args.all:
        raise CliError("name the skills to export, or use --all")
    with open_store(args) as store:
        names = store.names() if args.all else args.names
        for name in names:
            get_skill(store, name)
        try:
            exported = export_skills(store, names, args.to, as_zip=args.zip)
        except ExportClash as e:
            raise CliError(str(e), 1) from None
    written = [{"name": name, "path": str(path)} for name, path in exported.written]
    if args.json:
        emit_json({"exported": written, "failed": dict(exported.failed)})
    else:
        for w in written:
            print(f"exported {w['name']} -> {w['path']}")
    if exported.failed:
        raise CliError("not exported: " + "; ".join(f'"{n}": {why}' for n, why in exported.failed.items()), 1)
    return 0


# --- list / show / prompt -----------------------------------------------------

def cmd_list(args: argparse.Namespace) -> int:
    from skill_studio.core.store import Filters

    flt = Filters(lifecycle=args.lifecycle, origin=args.origin, tag=args.tag, text=args.search)
    with open_store(args) as store:
        sort = "relevance" if args.search and args.sort == "name" else args.sort
        skills = store.list(flt, sort=sort, limit=args.limit)
        total = store.count(flt)
    if args.json:
        from skill_studio.core.agents.skill_json import summary_json

        emit_json({"total": total, "skills": [summary_json(s) for s in skills]})
        return 0
    width = max((len(s.name) for s in skills), default=4)
    for s in skills:
        desc = " ".join(s.description.split())
        desc = desc if len(desc) <= 70 else desc[:69] + "…"
        print(f"{s.stars}  {s.lifecycle.value:10}  {s.name:{width}}  {desc}")
    shown = f"{len(skills)} of {total}" if len(skills) < total else str(total)
    print(f"{shown} skill{'s' if total != 1 else ''}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from skill_studio.core.agents.skill_json import detail_json

    with open_store(args) as store:
        s = get_skill(store, args.name)
        if args.json:
            emit_json(detail_json(store, s))
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




def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    """Add the library commands to the parser (``add(name, help, func, json_flag)``)."""
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


def _report_text(message: str) -> str:
    """A message as the reference prints it: its line breaks and tabs kept (a YAML error quotes
    the line and points at the column), every other hidden character escaped."""
    from skill_studio.core.format.names import printable

    return "\n".join("\t".join(printable(p) for p in line.split("\t")) for line in message.split("\n"))

