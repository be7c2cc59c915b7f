"""Commands for skills from git repositories and other folders: ``add``, ``outdated``, ``update``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable


def _errors():
    from skill_studio.core.sources.git import GitError
    from skill_studio.core.sources.spec import SourceError

    return SourceError, GitError


def cmd_add(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import CliError, emit_json, open_store
    from skill_studio.core.sources import ops

    store = open_store(args)
    try:
        if args.list:
            spec, commit, listed, problems = ops.list_source(store, args.source, ref=args.ref, path=args.path,
                                                             interactive=True)
            if args.json:
                emit_json({"source": spec.describe(), "commit": commit, "skills": [
                    {"path": s.path, "name": s.name, "description": s.description, "plugin": s.plugin,
                     "problem": s.problem} for s in listed], "problems": problems})
                return 0
            print(f"{spec.describe()}" + (f" at {commit[:12]}" if commit else "") + f": {len(listed)} skill(s)")
            for s in listed:
                plugin = f" [{s.plugin}]" if s.plugin else ""
                if s.problem:
                    print(f"  {s.path or '.'}{plugin}: cannot be added: {s.problem}")
                else:
                    print(f"  {s.name}{plugin} ({s.path or '.'}): {_short(s.description)}")
            for p in problems:
                print(f"  note: {p}", file=sys.stderr)
            return 0
        report = ops.add(store, args.source, names=args.skill, ref=args.ref, path=args.path, interactive=True)
    except _errors() as e:
        raise CliError(str(e), 1) from None
    finally:
        store.close()
    if args.json:
        emit_json({"source": report.source, "commit": report.commit, "entries": [
            {"source": e.source, "status": e.status, "name": e.name, "reason": e.reason,
             "warnings": e.warnings} for e in report.entries], "problems": report.problems})
        return 0 if report.added or not report.entries else 1
    head = f"{report.source}" + (f" at {report.commit[:12]}" if report.commit else "")
    print(f"{head}: added {len(report.added)} skill(s) as candidates" if report.added else f"{head}: nothing added")
    for e in report.entries:
        if e.status == "imported":
            print(f"  added {e.name}")
        else:
            print(f"  {e.status}: {e.reason or e.source}")
    for p in report.problems:
        print(f"  note: {p}")
    return 0 if report.added or not report.entries else 1


def _short(text: str, width: int = 90) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[:width - 1] + "…"


def _print_status(s, diffs: bool) -> None:
    from skill_studio.core.sources import ops

    where = s.record.source + (f"/{s.record.path}" if s.record.path else "")
    extra = f" ({s.detail})" if s.detail else ""
    print(f"  {s.name}: {s.state}{extra}  [{where}]")
    if diffs and s.state in (ops.UPSTREAM, ops.BOTH) and s.upstream_diff:
        print("    upstream:")
        sys.stdout.writelines(f"    {line}\n" for line in s.upstream_diff.splitlines())
    if diffs and s.state in (ops.HERE, ops.BOTH) and s.studio_diff:
        print("    in the studio:")
        sys.stdout.writelines(f"    {line}\n" for line in s.studio_diff.splitlines())


def cmd_outdated(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import CliError, emit_json, open_store
    from skill_studio.core.sources import ops

    store = open_store(args)
    try:
        statuses = ops.outdated(store, args.names or None, interactive=True, with_diffs=args.diff or args.json)
    except _errors() as e:
        raise CliError(str(e), 1) from None
    finally:
        store.close()
    if args.json:
        emit_json([{"name": s.name, "state": s.state, "source": s.record.source, "path": s.record.path,
                    "ref": s.record.ref, "commit": s.record.commit, "upstream_commit": s.commit, "detail": s.detail,
                    "upstream_diff": s.upstream_diff, "studio_diff": s.studio_diff} for s in statuses])
        return 0
    if not statuses:
        print("no skill was added from a source (skill-studio add SOURCE)")
        return 0
    waiting = [s for s in statuses if s.state != ops.CURRENT]
    print(f"{len(statuses)} skill(s) followed, {len(waiting)} not current")
    for s in statuses if args.all else waiting:
        _print_status(s, args.diff)
    return 0


def cmd_update(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import CliError, emit_json, open_store
    from skill_studio.core.sources import ops

    take = ops.TAKE_UPSTREAM if args.take_upstream else ops.TAKE_STUDIO if args.keep_studio else None
    store = open_store(args)
    try:
        report = ops.update(store, args.names or None, take=take, interactive=True)
    except _errors() as e:
        raise CliError(str(e), 1) from None
    finally:
        store.close()
    if args.json:
        emit_json({"updated": report.updated, "kept": report.kept, "current": report.current,
                   "conflicts": [c.name for c in report.conflicts], "gone": [g.name for g in report.gone],
                   "failed": report.failed})
        return 1 if report.conflicts or report.failed else 0
    for name in report.updated:
        print(f"  updated {name}")
    for name in report.kept:
        print(f"  kept the studio's {name} (the source's change marked as seen)")
    for c in report.conflicts:
        _print_status(c, True)
        print(f"    changed on both sides: nothing was overwritten. Choose: skill-studio update {c.name} "
              "--take-upstream (the studio's edits stay in its history) or --keep-studio")
    for g in report.gone:
        print(f"  {g.name}: {g.detail}; kept in the library")
    for f in report.failed:
        print(f"  error: {f}", file=sys.stderr)
    if not (report.updated or report.kept or report.conflicts or report.gone or report.failed):
        print(f"{len(report.current)} skill(s) up to date" if report.current else
              "no skill was added from a source (skill-studio add SOURCE)")
    return 1 if report.conflicts or report.failed else 0


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    ad = add("add", "add skills from a git repository (owner/repo, a URL, a path in it) or a folder, as candidates",
             cmd_add)
    ad.add_argument("source", metavar="SOURCE",
                    help="owner/repo (GitHub), owner/repo/path, a git URL (https, ssh, file, user@host:path), "
                         "a browser URL with /tree/REF/PATH, or a folder or repository on this machine")
    ad.add_argument("--skill", action="append", metavar="NAME", help="add only this skill (by name or folder)")
    ad.add_argument("--ref", metavar="REF", help="a branch, tag or commit (default: the default branch)")
    ad.add_argument("--path", metavar="PATH", help="look for skills only in this folder of the source")
    ad.add_argument("--list", action="store_true", help="list the skills the source offers; add nothing")
    od = add("outdated", "skills added from a source whose source changed since (--diff shows the changes)",
             cmd_outdated)
    od.add_argument("names", nargs="*", metavar="NAME")
    od.add_argument("--diff", action="store_true", help="show what changed upstream and in the studio")
    od.add_argument("--all", action="store_true", help="list the current ones too")
    up = add("update", "bring skills added from a source up to it (a new version each; two-sided changes asked)",
             cmd_update)
    up.add_argument("names", nargs="*", metavar="NAME")
    side = up.add_mutually_exclusive_group()
    side.add_argument("--take-upstream", action="store_true",
                      help="for skills changed on both sides, save the source's files (the studio's stay in history)")
    side.add_argument("--keep-studio", action="store_true",
                      help="for skills changed on both sides, keep the studio's and mark the source's change seen")
