"""Commands for linked folders (team libraries): ``link``, ``unlink``, ``sync``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable


def _print_report(r) -> bool:
    """Print one sync report; True when it needs the user (conflicts or errors)."""
    print(f"{r.folder}:")
    for label, names in (("imported from disk", r.imported), ("written to disk", r.written),
                         ("removed on disk (kept in the store)", r.gone_on_disk),
                         ("deleted in the studio (folder kept on disk)", r.gone_in_store)):
        if names:
            print(f"  {label}: {', '.join(names)}")
    for c in r.conflicts:
        print(f"  conflict: {c.name} ({c.path}) changed on disk and in the studio; nothing was overwritten. "
              f"Keep one: skill-studio sync {r.folder} --keep-disk {c.name} (or --keep-studio {c.name})")
    for e in r.errors:
        print(f"  error: {e}", file=sys.stderr)
    if not (r.changed or r.conflicts or r.errors):
        print("  in step")
    return bool(r.conflicts or r.errors)


def cmd_link(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import CliError, open_store
    from skill_studio.core.library import linked

    store = open_store(args)
    try:
        report = linked.link(store, args.folder)
    except linked.LinkError as e:
        raise CliError(str(e), 1) from None
    finally:
        store.close()
    return 1 if _print_report(report) else 0


def cmd_unlink(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import CliError, open_store
    from skill_studio.core.library import linked

    store = open_store(args)
    try:
        linked.unlink(store, args.folder)
    except linked.LinkError as e:
        raise CliError(str(e), 1) from None
    finally:
        store.close()
    print(f"unlinked {args.folder}: its skills stay in the store and its files on disk")
    return 0


def cmd_sync(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import CliError, open_store
    from skill_studio.core.library import linked

    store = open_store(args)
    try:
        if not linked.linked_folders(store):
            print("no folder is linked to this store (skill-studio link DIR)")
            return 0
        reports = linked.sync(store, args.folder)
        keep = {name: "disk" for name in args.keep_disk or []} | {name: "studio" for name in args.keep_studio or []}
        if keep:
            for r in reports:
                for c in r.conflicts:
                    if c.name in keep:
                        linked.resolve(store, c, keep.pop(c.name))
            if keep:
                raise CliError(f"not in conflict: {', '.join(sorted(keep))}", 1)
            reports = linked.sync(store, args.folder)
    except linked.LinkError as e:
        raise CliError(str(e), 1) from None
    finally:
        store.close()
    needs = [_print_report(r) for r in reports]
    return 1 if any(needs) else 0


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    lk = add("link", "link a folder of skills (a team's checkout) to the store: import it and keep it in step",
             cmd_link, json_flag=False)
    lk.add_argument("folder", metavar="DIR")
    ul = add("unlink", "stop keeping a linked folder in step", cmd_unlink, json_flag=False)
    ul.add_argument("folder", metavar="DIR")
    sy = add("sync", "bring linked folders and the store in step (changes on either side; conflicts reported)",
             cmd_sync, json_flag=False)
    sy.add_argument("folder", nargs="?", metavar="DIR")
    sy.add_argument("--keep-disk", action="append", metavar="NAME",
                    help="end a conflict by importing the folder over the studio's version")
    sy.add_argument("--keep-studio", action="append", metavar="NAME",
                    help="end a conflict by writing the studio's version over the folder")
