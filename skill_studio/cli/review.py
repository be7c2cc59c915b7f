"""The review commands of ``skill-studio``: lifecycle moves, trust, pins, merge, delete, audit."""

from __future__ import annotations

import argparse
import csv
import sys
from collections.abc import Callable

from skill_studio.core.review.lifecycle import MOVE_TERMS


def _store(args: argparse.Namespace):
    from skill_studio.cli.common import open_store

    return open_store(args)


def _author(args: argparse.Namespace) -> str | None:
    return getattr(args, "as_", None)


def cmd_move(args: argparse.Namespace) -> int:
    from skill_studio.core.ops.review import move_skill

    change = move_skill(_store(args), args.name, args.command, args.reason, author=_author(args)).change
    before, after = change.before[args.name], change.after[args.name]
    extra = f", trust {after.trust_tier.stars}" if after.trust_tier != before.trust_tier else ""
    print(f"{args.name}: {before.lifecycle.value} → {after.lifecycle.value}{extra}")
    return 0


def cmd_trust(args: argparse.Namespace) -> int:
    from skill_studio.core.ops.review import set_trust

    change = set_trust(_store(args), args.name, args.tier, args.reason or "", author=_author(args)).change
    after = change.after[args.name]
    print(f"{args.name}: trust {after.trust_tier.stars} {after.trust_tier.label}")
    return 0


def cmd_pin(args: argparse.Namespace) -> int:
    from skill_studio.core.ops.review import set_pinned

    done = set_pinned(_store(args), [args.name], args.command == "pin", args.reason or "", author=_author(args))
    if done.refused:
        raise next(iter(done.refused.values()))
    print(f"{args.name}: {'pinned' if args.command == 'pin' else 'unpinned'}")
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    from skill_studio.core.ops.review import merge_skills
    from skill_studio.core.review.merge import merge_preview

    store = _store(args)
    preview = merge_preview(store, args.target, args.source, with_files=args.with_files)
    if preview.new_files and preview.with_files:
        files = f"  files added: {len(preview.new_files)}" + "".join(f"\n    + {p}" for p in preview.new_files)
    elif preview.new_files:
        files = (f"  files not added: {len(preview.new_files)} (--with-files adds them)"
                 + "".join(f"\n    - {p}" for p in preview.new_files))
    else:
        files = "  files added: 0"
    lines = [f'merge "{args.source}" into "{args.target}"',
             f"  steps added: {len(preview.added_steps)}" + "".join(f"\n    + {s}" for s in preview.added_steps),
             files,
             f"  tags: {', '.join(preview.merged.tags) or '-'}",
             f"  depends on: {', '.join(preview.merged.depends_on) or '-'}",
             f"  dependents rewritten: {', '.join(preview.dependents) or 'none'}",
             f'  "{args.source}" will be archived']
    if preview.description_cut:
        lines.append("  the combined description was cut to 1,024 characters")
    print("\n".join(lines))
    if args.dry_run:
        print("dry run: nothing was written")
        return 0
    change = merge_skills(store, args.target, args.source, author=_author(args),
                          with_files=preview.with_files).change
    print(f'merged: "{args.target}" is now version {change.after[args.target].version}')
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import CliError
    from skill_studio.core.ops.skills import delete_skills

    done = delete_skills(_store(args), args.names, reason=args.reason or "", author=_author(args))
    for name in done.change.before:
        print(f"{name}: deleted (its history and audit are kept)")
    if done.refused:
        raise CliError("; ".join(str(e) for e in done.refused.values()), 1)
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import emit_json

    entries = _store(args).audit_log(args.skill, limit=args.limit)
    if args.action:
        entries = [e for e in entries if e.action == args.action or e.action.startswith(args.action + ":")]
    if args.json:
        emit_json([e.__dict__ for e in entries])
    elif args.csv:
        out = csv.writer(sys.stdout)
        out.writerow(["at", "actor", "skill", "action", "from", "to", "reason"])
        for e in entries:
            out.writerow([e.at, e.actor, e.skill, e.action, e.from_value or "", e.to_value or "", e.reason])
    else:
        for e in entries:
            change = f"{e.from_value or '-'} → {e.to_value or '-'}"
            print(f"{e.at}  {e.actor:<10} {e.skill:<28} {e.action:<12} {change:<24} {e.reason}")
        if not entries:
            print("no audit entries")
    return 0


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    """Add the review commands to the parser (``add(name, help, func, json_flag)``)."""
    for action, terms in MOVE_TERMS.items():
        p = add(action, terms.summary, cmd_move, False)
        p.add_argument("name")
        p.add_argument("--reason", "-r", required=True, help="why (kept in the audit log)")
        p.add_argument("--as", dest="as_", metavar="REVIEWER", help="who is doing it (default: you)")
    t = add("trust", "set a skill's trust tier (1-3)", cmd_trust, False)
    t.add_argument("name")
    t.add_argument("tier", type=int, choices=[1, 2, 3])
    t.add_argument("--reason", "-r")
    t.add_argument("--as", dest="as_", metavar="REVIEWER")
    for action, help_ in (("pin", "keep a skill out of the health check's moves"), ("unpin", "undo pin")):
        p = add(action, help_, cmd_pin, False)
        p.add_argument("name")
        p.add_argument("--reason", "-r")
        p.add_argument("--as", dest="as_", metavar="REVIEWER")
    m = add("merge", "merge SOURCE into TARGET (the source is archived)", cmd_merge, False)
    m.add_argument("target")
    m.add_argument("source")
    m.add_argument("--dry-run", action="store_true", help="show what would change; write nothing")
    files = m.add_mutually_exclusive_group()
    files.add_argument("--with-files", dest="with_files", action="store_true", default=None,
                       help="also add the source's files the target lacks (by default only when the source is "
                            "trusted at least as much as the target)")
    files.add_argument("--without-files", dest="with_files", action="store_false",
                       help="add none of the source's files")
    m.add_argument("--as", dest="as_", metavar="REVIEWER")
    d = add("delete", "delete skills (one that a skill not named depends on is refused)", cmd_delete, False)
    d.add_argument("names", nargs="+", metavar="NAME")
    d.add_argument("--reason", "-r")
    d.add_argument("--as", dest="as_", metavar="REVIEWER")
    a = add("audit", "the audit log: who changed what, when and why", cmd_audit)
    a.add_argument("--skill")
    a.add_argument("--action", help="only this action (promote, trust, merge, delete, ...)")
    a.add_argument("--limit", type=int, default=500)
    a.add_argument("--csv", action="store_true", help="comma-separated values")
