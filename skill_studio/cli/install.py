"""Commands that put skills in agents' folders: ``install`` (into folders, or for agents by name,
or from a project's lock file), ``uninstall``, ``installed`` and ``agents``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path


def _report(report, args, label: str = "") -> int:
    from skill_studio.cli.common import emit_json

    if getattr(args, "json", False):
        emit_json({"installed": report.installed, "unchanged": report.unchanged, "removed": report.removed,
                   "skipped": report.skipped, "warnings": report.warnings})
        return 1 if report.skipped else 0
    for w in report.warnings:
        print(f"warning: {w}", file=sys.stderr)
    for what, names in (("installed", report.installed), ("already current", report.unchanged),
                        ("removed", report.removed)):
        if names:
            print(f"{label}{what}: {', '.join(names)}")
    for name, why in report.skipped.items():
        print(f"{label}skipped {name}: {why}", file=sys.stderr)
    return 1 if report.skipped else 0


def _destinations(args) -> dict[Path, list[str]]:
    from skill_studio.cli.common import CliError
    from skill_studio.core.library.agent_install import targets

    project = Path(args.project) if args.project else None
    places: dict[Path, list[str]] = {}
    if args.to:
        places[Path(args.to)] = []
    try:
        for folder, agents in targets(args.agent or [], project).items():
            places.setdefault(folder, []).extend(agents)
    except ValueError as e:
        raise CliError(str(e), 2) from None
    if not places:
        if args.from_lock:
            return {Path(args.project or ".") / ".agents" / "skills": ["agents"]}
        raise CliError("install where? --to DIR, or --agent NAME (repeatable; with --project DIR for the "
                       "project's folders; 'skill-studio agents' lists them)", 2)
    return places


def cmd_install(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import CliError, open_store
    from skill_studio.core.library import install
    from skill_studio.core.sources.lock import LockError, lock_skills

    if args.from_lock and args.names:
        raise CliError("--from-lock installs the lock file's skills; name none", 2)
    places = _destinations(args)
    store = open_store(args)
    code = 0
    try:
        names = args.names or None
        if args.from_lock:
            from skill_studio.core.sources.restore import restore

            restored = restore(store, Path(args.project or "."), interactive=True)
            for name, why in restored.problems.items():
                print(f"not restored {name}: {why}", file=sys.stderr)
            if restored.added:
                print(f"added from their sources: {', '.join(restored.added)}")
            names, code = restored.ready, 1 if restored.problems else 0
        placed: set[str] = set()
        for folder, agents in places.items():
            report = install.install(store, folder, names, link=args.link, prune=args.prune, force=args.force)
            label = f"{folder}" + (f" ({', '.join(agents)})" if agents else "") + ": " if len(places) > 1 else ""
            code = max(code, _report(report, args, label))
            placed.update(report.installed, report.unchanged)
        if args.project and not args.from_lock and placed:
            path = lock_skills(store, Path(args.project), sorted(placed))
            if not args.json:
                print(f"locked {len(placed)} skill(s) in {path}")
    except (install.InstallError, LockError, OSError) as e:
        raise CliError(str(e), 1) from None
    finally:
        store.close()
    return code


def cmd_uninstall(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import CliError
    from skill_studio.core.library import install
    from skill_studio.core.sources.lock import LockError, unlock_skills

    try:
        report = install.uninstall(args.folder, args.names, force=args.force)
        if args.project:
            unlock_skills(Path(args.project), report.removed)
    except (install.InstallError, LockError, OSError) as e:
        raise CliError(str(e), 1) from None
    return _report(report, args)


def cmd_installed(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import CliError, emit_json, open_store
    from skill_studio.core.library import install

    store = open_store(args)
    try:
        rows = install.status(store, args.folder)
        if args.update:
            rows = install.update(store, args.folder, force=args.force)
    except (install.InstallError, OSError) as e:
        raise CliError(str(e), 1) from None
    finally:
        store.close()
    if args.json:
        emit_json([{"name": r.name, "mode": r.mode, "version": r.version, "current_version": r.current_version,
                    "state": r.state, "detail": r.detail} for r in rows])
        return 0
    if not rows:
        print(f"nothing installed by Skill Studio in {args.folder}")
    for r in rows:
        print(f"  {r.state:<18} {r.name} ({r.mode}, v{r.version})" + (f": {r.detail}" if r.detail else ""))
    return 0


def cmd_agents(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import emit_json
    from skill_studio.core.library.agent_folders import folders

    project = Path(args.project).resolve() if args.project else None
    rows = []
    for place in folders(project):
        count = sum(1 for p in place.path.iterdir() if (p / "SKILL.md").exists()) if place.path.is_dir() else 0
        rows.append((place, count))
    if args.json:
        emit_json([{"agent": p.agent.key, "name": p.agent.name, "scope": p.scope, "folder": str(p.path),
                    "present": p.present, "exists": p.path.is_dir(), "skills": n} for p, n in rows])
        return 0
    for p, n in rows:
        mark = "present" if p.present else "not found"
        held = f"{n} skill(s)" if p.path.is_dir() else "no folder yet"
        print(f"  {p.agent.key:<15} {p.scope:<8} {mark:<10} {held:<14} {p.path}")
    return 0


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    ins = add("install", "install skills into agents' skill folders (read-only copies; the gated set when none "
              "named)", cmd_install)
    ins.add_argument("names", nargs="*", metavar="NAME")
    ins.add_argument("--to", metavar="DIR", help="a folder, e.g. .claude/skills, .agents/skills, WORKSPACE/.skills")
    ins.add_argument("--agent", action="append", metavar="NAME",
                     help="an agent's folder (repeatable; 'skill-studio agents' lists them): its global folder, "
                          "or its folder in --project")
    ins.add_argument("--project", metavar="DIR",
                     help="the project: --agent installs into its folders, and its skills-lock.json records "
                          "what was installed")
    ins.add_argument("--from-lock", action="store_true",
                     help="install the skills of the project's skills-lock.json, adding those the library "
                          "lacks from their sources (into .agents/skills of the project unless --agent or --to)")
    ins.add_argument("--link", action="store_true",
                     help="link to the studio's copy of each skill's current version instead of copying: it "
                          "follows every save (beside the store, in STORE-managed/; the link is relative when "
                          "both are on one file system)")
    ins.add_argument("--prune", action="store_true",
                     help="remove skills installed there before that are not in the set")
    ins.add_argument("--force", action="store_true", help="also replace or remove installed skills changed by hand")
    un = add("uninstall", "remove skills the studio installed in a folder (nothing else there is touched)",
             cmd_uninstall)
    un.add_argument("folder", metavar="DIR")
    un.add_argument("names", nargs="+", metavar="NAME")
    un.add_argument("--force", action="store_true", help="also remove installed skills changed by hand")
    un.add_argument("--project", metavar="DIR", help="also drop them from this project's skills-lock.json")
    st = add("installed", "what the studio installed in a folder: current, stale, modified or missing", cmd_installed)
    st.add_argument("folder", metavar="DIR")
    st.add_argument("--update", action="store_true", help="reinstall the stale and missing ones")
    st.add_argument("--force", action="store_true", help="with --update: also those changed by hand")
    ag = add("agents", "the agents' skill folders on this machine (and in a project), and which are present",
             cmd_agents)
    ag.add_argument("--project", metavar="DIR", help="also the folders of this project")
