"""Commands for a team's library in git: ``team`` (status, pull, commit, push of a linked working
copy) and ``publish`` (skills as a new repository)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable


def cmd_team(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import CliError, open_store
    from skill_studio.core.library import linked, team_git

    store = open_store(args)
    try:
        folders = [args.folder] if args.folder else [f for f in linked.linked_folders(store)
                                                      if team_git.is_working_copy(f)]
        if not folders:
            print("no linked folder is a git working copy (clone the team's repository, then skill-studio link it)")
            return 0
        code = 0
        for folder in folders:
            if args.action == "status":
                print(f"{folder}: {team_git.state(folder, fetch=not args.no_fetch, interactive=True).describe()}")
            elif args.action == "commit":
                commit = team_git.commit(store, folder, args.message)
                print(f"{folder}: committed {commit[:12]}")
            elif args.action == "push":
                print(f"{folder}: pushed; {team_git.push(folder, interactive=True).describe()}")
            else:
                keep = {p: team_git.TEAM for p in args.keep_team or []} | \
                    {p: team_git.STUDIO for p in args.keep_studio or []}
                report = team_git.pull(store, folder, keep=keep, interactive=True)
                for c in report.conflicts:
                    print(f"{folder}: {c.path} changed by the team and in the studio; nothing was pulled. Choose: "
                          f"skill-studio team pull {folder} --keep-team {c.path} (or --keep-studio {c.path})")
                    code = 1
                if report.pulled:
                    imported = [n for r in report.syncs for n in r.imported]
                    print(f"{folder}: pulled" + (f"; new versions of {', '.join(imported)}" if imported else "")
                          + f"; {report.state.describe()}")
                elif not report.conflicts:
                    print(f"{folder}: nothing to pull; {report.state.describe()}")
        return code
    except (team_git.TeamError, linked.LinkError, ValueError) as e:
        raise CliError(str(e), 1) from None
    finally:
        store.close()


def cmd_publish(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import CliError, open_store
    from skill_studio.core.library import team_git
    from skill_studio.core.store import NotFound

    store = open_store(args)
    try:
        dest = team_git.publish(store, args.names, args.to, title=args.title)
    except (team_git.TeamError, NotFound) as e:
        raise CliError(str(e), 1) from None
    finally:
        store.close()
    print(f"published {len(args.names)} skill(s) as a git repository in {dest}; add a remote and push it "
          "(git -C DIR remote add origin URL && git -C DIR push -u origin main)", file=sys.stdout)
    return 0


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    tm = add("team", "a linked folder that is a git working copy: status, pull (two-sided changes asked), commit, "
             "push", cmd_team, json_flag=False)
    tm.add_argument("action", choices=("status", "pull", "commit", "push"))
    tm.add_argument("folder", nargs="?", metavar="DIR", help="the linked folder (default: every linked working copy)")
    tm.add_argument("--message", "-m", metavar="TEXT", help="commit: the message (default: the save notes)")
    tm.add_argument("--no-fetch", action="store_true", help="status: do not fetch the team's commits first")
    tm.add_argument("--keep-team", action="append", metavar="PATH",
                    help="pull: for this skill folder changed on both sides, take the team's")
    tm.add_argument("--keep-studio", action="append", metavar="PATH",
                    help="pull: for this skill folder changed on both sides, keep the studio's")
    pb = add("publish", "write skills as a new git repository (skills/, a README index, a plugin marketplace file)",
             cmd_publish, json_flag=False)
    pb.add_argument("names", nargs="+", metavar="NAME")
    pb.add_argument("--to", required=True, metavar="DIR", help="a new or empty folder")
    pb.add_argument("--title", metavar="TEXT", help="the library's name (default: the folder's)")
