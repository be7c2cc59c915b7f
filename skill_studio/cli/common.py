"""What every command of ``skill-studio`` shares: the one-line error, opening the store, finding a
skill, and writing JSON."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skill_studio.core.model import Skill
    from skill_studio.core.store import Store

__all__ = ["CliError", "emit_json", "get_skill", "open_store"]


class CliError(Exception):
    """An error shown as one line on stderr, with an exit code."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


def open_store(args: argparse.Namespace) -> Store:
    """The store named by ``--store``, else the user's own (created and seeded on first use)."""
    from skill_studio.core.store import Store

    if args.store:
        return Store(Path(args.store))
    from skill_studio.core.library.samples import open_default
    from skill_studio.core.paths import default_store_path

    return open_default(default_store_path())


def emit_json(data: Any) -> None:
    import json  # (only the commands given --json write it)

    json.dump(data, sys.stdout, ensure_ascii=False, indent=2, default=str)
    sys.stdout.write("\n")


def get_skill(store: Store, name: str) -> Skill:
    """The skill ``name``; CliError (exit code 1) naming the store when there is none."""
    from skill_studio.core.store import NotFound

    try:
        return store.get(name)
    except NotFound:
        raise CliError(f'no skill named "{name}" in {store.path}', 1) from None
