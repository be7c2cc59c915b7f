"""The maintenance commands of ``skill-studio``: health checks (for a nightly job), recording a
use's outcome (for agents and hooks), and near-duplicate pairs."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable


def _store(args: argparse.Namespace):
    from skill_studio.cli.common import open_store

    return open_store(args)


def _progress(stage: str, done: int, total: int) -> None:
    if sys.stderr.isatty():
        print(f"\r{stage}: {done}/{total}", end="", file=sys.stderr, flush=True)


def cmd_health(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import emit_json
    from skill_studio.core.health import checks as health

    store = _store(args)
    result = health.run(store, progress=_progress, author=args.as_, parallel=True)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    applied, refused = [], []
    if args.apply:
        change, refused = health.apply(store, result.actions, author=args.as_)
        applied = change.names
    if args.json:
        data = health.as_json(result)
        data["applied"], data["refused"] = applied, refused
        emit_json(data)
        return 0
    s = result.summary
    print(f"health run {result.run_id}: {s['skills']} skills — "
          + ", ".join(f"{n} {band}" for band, n in s["bands"].items()))
    if not result.actions:
        print("nothing to do")
    for a in result.actions:
        if a.rule == "template-family":
            print(f"{'family':<10} {a.reason}\n{'':<11}{', '.join(a.members)}")
            continue
        mark = "" if a.applies else "  (reported)"
        print(f"{a.action:<10} {a.skill:<32} {a.rule:<15} {a.reason}{mark}")
    if args.apply:
        print(f"applied: {len(applied)} move(s)" + (f"; refused: {len(refused)}" if refused else ""))
        for line in refused:
            print(f"  {line}")
    elif any(a.applies for a in result.actions):
        print("nothing was changed: run with --apply to make the moves")
    return 0


def cmd_use(args: argparse.Namespace) -> int:
    skill = _store(args).record_use(args.name, args.outcome == "success")
    print(f"{skill.name}: {skill.use_count} uses, success {skill.success_rate:.0%}, utility {skill.utility_score:.2f}")
    return 0


def cmd_duplicates(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import CliError, emit_json
    from skill_studio.core.health.similarity import SimilarityIndex

    store = _store(args)
    if args.dismiss:
        a, b = args.dismiss
        for name in (a, b):
            if name not in store:
                raise CliError(f'no skill named "{name}"', 1)
        store.dismiss_pair(a, b, actor=args.as_)
        print(f"{a} and {b}: not duplicates (never flagged again)")
        return 0
    from skill_studio.core.health import duplicates

    index = SimilarityIndex(store)
    index.refresh(parallel=True)
    candidates = index.near_duplicates(min(duplicates.CANDIDATE_FLOOR, args.threshold))
    verdicts = duplicates.judge(store, candidates, threshold=args.threshold, index=index)
    if args.json:
        emit_json({"duplicates": [{"a": d.a, "b": d.b, "similarity": round(d.similarity, 4), "reason": d.reason}
                                  for d in verdicts.duplicates],
                   "families": [{"members": list(f.members), "differ": list(f.differ),
                                 "similarity": f.similarity, "reason": f.reason} for f in verdicts.families]})
        return 0
    for d in verdicts.duplicates:
        print(f"{d.similarity:.3f}  {d.a}  ~  {d.b}  ({d.reason})")
    if not verdicts.duplicates:
        print("no duplicates to merge")
    for f in verdicts.families:
        print(f"family: {f.reason}\n        {', '.join(f.members)}")
    return 0


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    h = add("health", "score every skill and plan the maintenance moves (--apply makes them)", cmd_health)
    h.add_argument("--apply", action="store_true", help="make the planned moves (audited, like a reviewer's)")
    h.add_argument("--as", dest="as_", metavar="NAME", help="who the audit log records (default: you)")
    u = add("use", "record one use of a skill and its outcome", cmd_use, False)
    u.add_argument("name")
    outcome = u.add_mutually_exclusive_group(required=True)
    outcome.add_argument("--success", dest="outcome", action="store_const", const="success")
    outcome.add_argument("--failure", dest="outcome", action="store_const", const="failure")
    d = add("duplicates", "pairs of skills that are nearly the same", cmd_duplicates)
    d.add_argument("--threshold", type=float, default=0.75,
                   help="similar enough to be a duplicate on its own (same subject); less similar pairs count "
                        "when named the same, or when each is the other's closest skill on a shared subject")
    d.add_argument("--dismiss", nargs=2, metavar=("A", "B"), help="mark a pair as not duplicates")
    d.add_argument("--as", dest="as_", metavar="NAME")
