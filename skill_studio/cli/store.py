"""Commands about the store file itself: ``rescue`` (the skills of a damaged store, as folders)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path


def store_path(args: argparse.Namespace) -> Path:
    """The store file a command works on: --store, else the default store."""
    from skill_studio.core.paths import default_store_path

    return Path(args.store) if args.store else default_store_path()


def cmd_rescue(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import emit_json
    from skill_studio.core.store.rescue import rescue

    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty() and (done % 200 == 0 or done == total):
            print(f"\r{done}/{total} rows read", end="", file=sys.stderr)

    report = rescue(store_path(args), args.to, progress)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    if args.json:
        from dataclasses import asdict

        emit_json(asdict(report))
    else:
        for problem in report.damage:
            print(f"damage: {problem}")
        for s in report.rescued:
            print(f"rescued  {s.name:<32} version {s.version}" + (f"  ({s.note})" if s.note else ""))
        for line in report.lost:
            print(f"lost     {line}")
        print(report.summary)
        print(f"Import them into a new store with: skill-studio --store NEW.db import {args.to}")
    return 1 if report.lost else 0


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    r = add("rescue", "write every skill a damaged store still holds as folders (the store is only read)",
            cmd_rescue)
    r.add_argument("--to", required=True, metavar="DIR", help="a new or empty folder")
