"""Commands that get skills to agents: ``match``, ``gate``, ``load``, ``prompt`` and ``descriptor``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from skill_studio.core.agents.prompt import (
    MAX_BLOCK_DESCRIPTION,
    available_skills_block,
    block_entry,
    run_hint_problem,
    with_warning,
)


def cmd_prompt(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import CliError, get_skill, open_store
    from skill_studio.core.agents import matching
    from skill_studio.core.format import skillmd
    from skill_studio.core.format.fields import to_skill
    from skill_studio.core.library.folders import find_skill_md, read_skill_md
    from skill_studio.core.model import EXPOSED_STATES, Lifecycle

    entries: list[tuple[str, str, str]] = []
    cut: list[str] = []     # descriptions over what the block carries
    mount = args.run_hint
    if mount is not None and not args.gated:
        raise CliError("--run-hint goes with --gated (the block for a workspace whose .skills folder holds the "
                       "gated set); add --gated")
    if mount is not None and run_hint_problem(mount):
        raise CliError(f"--run-hint: {run_hint_problem(mount)}")
    store = None
    try:
        names: list[str] = []
        for arg in args.names:
            path = Path(arg)
            if path.exists():
                folder = path.parent if path.is_file() else path
                if find_skill_md(folder.resolve()) is None:
                    raise CliError(f"{arg}: SKILL.md not found")
                md, data = read_skill_md(folder.resolve())
                doc = skillmd.parse_document(data, str(md))
                skill = to_skill(doc, folder.name)
                if len(skill.description) > MAX_BLOCK_DESCRIPTION:
                    cut.append(skill.name)
                entries.append((skill.name, with_warning(skill.description, None), str(md)))
            else:
                names.append(arg)
        if names or not args.names:
            store = open_store(args)
            wanted = names or None
            warnings: dict[str, str | None] = {}
            if args.gated:
                passed = [e for e in matching.gate(store, wanted) if e.passed]
                wanted, warnings = [e.name for e in passed], {e.name: e.warning for e in passed}
            elif wanted is None:
                wanted = [e.name for e in matching.gate(store) if Lifecycle(e.lifecycle) in EXPOSED_STATES]
            left_out = []
            for name in wanted:
                s = get_skill(store, name)
                entry = block_entry(s, warnings.get(s.name), mount)
                if entry is None:
                    if names and not args.gated:
                        raise CliError(f'"{s.name}" has no SKILL.md on disk; export it first '
                                       f"(skill-studio export {s.name} --to DIR) and name that folder", 1)
                    left_out.append(s.name)
                    continue
                if len(s.description) > MAX_BLOCK_DESCRIPTION:
                    cut.append(s.name)
                entries.append(entry)
            if left_out:
                print(f"skill-studio: left out, no SKILL.md on disk (export or install them): {', '.join(left_out)}",
                      file=sys.stderr)
    finally:
        if store is not None:
            store.close()
    if cut:
        print(f"skill-studio: description cut to {MAX_BLOCK_DESCRIPTION:,} characters in the block (the format's "
              f"limit; shorten it): {', '.join(cut)}", file=sys.stderr)
    sys.stdout.write(available_skills_block(entries))
    sys.stdout.write("\n")
    return 0


def cmd_match(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import CliError, emit_json, open_store
    from skill_studio.core.agents import matching

    if args.limit < 1:
        raise CliError("--limit must be at least 1")
    store = open_store(args)
    try:
        result = matching.match(store, args.query, args.limit, args.strategy)
    except ValueError as e:
        raise CliError(str(e)) from None
    finally:
        store.close()
    if args.json:
        emit_json({"query": result.query, "strategy": result.strategy, "note": result.note,
                    "matches": [_match_json(m) for m in result.matches],
                    "excluded": [_match_json(m) for m in result.excluded]})
        return 0
    if result.note:
        print(f"({result.note})")
    if not result.matches:
        print(f"no skill an agent may see matches {result.query!r}")
    for rank, m in enumerate(result.matches, 1):
        print(f"{rank:>3}. {m.name}" + (f"  [{m.warning}]" if m.warning else ""))
        if args.explain:
            print(f"     {_breakdown(m)}")
    if args.explain and result.excluded:
        print("kept out by the gate:")
        for m in result.excluded:
            print(f"   - {m.name}: {m.excluded}  ({_breakdown(m)})")
    return 0


def _breakdown(m) -> str:
    if m.strategy == "product":
        return (f"similarity {m.similarity:.3f} × utility {m.utility:.3f} × freshness {m.freshness:.3f} "
                f"= {m.score:.3f} (the seed's product)")
    return (f"{', '.join(m.evidence())}: relevance {m.relevance:.3f} × prior {m.prior:.3f} "
            f"(0.8 + 0.2 × utility {m.utility:.3f} × freshness {m.freshness:.3f}) = {m.score:.3f} "
            f"(found by {m.found_by})")


def _match_json(m) -> dict:
    return {"name": m.name, "description": m.description, "strategy": m.strategy, "relevance": m.relevance,
            "lexical_rank": m.lexical_rank, "bm25": m.bm25, "vector_rank": m.vector_rank,
            "similarity": m.similarity, "utility": m.utility, "freshness": m.freshness, "prior": m.prior,
            "score": m.score, "trigger": m.trigger, "found_by": m.found_by, "warning": m.warning,
            "excluded": m.excluded}


def cmd_gate(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import emit_json, open_store
    from skill_studio.core.agents import matching

    store = open_store(args)
    try:
        entries = matching.gate(store, args.names or None)
    finally:
        store.close()
    if args.json:
        emit_json([{"name": e.name, "passed": e.passed, "reason": e.reason, "warning": e.warning}
                    for e in entries])
        return 0
    passed = [e for e in entries if e.passed]
    print(f"{len(passed)} of {len(entries)} skill(s) pass the gate")
    for e in entries:
        mark = "pass" if e.passed else "out "
        why = e.reason or e.warning or ""
        print(f"  {mark}  {e.name}" + (f": {why}" if why else ""))
    return 0


def cmd_load(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import CliError, get_skill, open_store

    store = open_store(args)
    try:
        s = get_skill(store, args.name)
        from skill_studio.core.agents.gate import store_verdicts

        reason, warning = store_verdicts(store, [s.name]).get(s.name, (None, None))
        if reason and not args.force:
            raise CliError(f'"{s.name}" is kept from agents by the gate ({reason}); --force loads it anyway', 1)
        store.mark_loaded(s.name)
    finally:
        store.close()
    if warning:
        sys.stdout.write(f"Warning ({s.name}): {warning}\n\n")
    sys.stdout.write(s.skill_md if s.skill_md.endswith("\n") else s.skill_md + "\n")
    return 0


def cmd_descriptor(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import CliError, emit_json, open_store
    from skill_studio.core.library import descriptor
    from skill_studio.core.library.install_manifest import InstallError

    if args.check:
        return _check_descriptor(args)
    if not args.root:
        raise CliError("descriptor needs the skills folder (--root DIR), or a descriptor to check (--check FILE)")
    rules = [descriptor.ConsumerRule(c["name"], tuple(c["only"]), tuple(c["exclude"])) for c in args.consumers or []]
    store = open_store(args)
    try:
        data = descriptor.build_descriptor(store, args.root, rules, bundle_root=args.bundle_root)
    except descriptor.DescriptorError as e:
        raise CliError(str(e)) from None
    except InstallError as e:
        raise CliError(str(e), 1) from None
    finally:
        store.close()
    emit_json(data)
    return 0


def _check_descriptor(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import CliError, open_store
    from skill_studio.core.library import descriptor

    if args.root or args.consumers:
        raise CliError("--check reads the root and the consumers from the file; leave out --root, "
                       "--consumer, --only and --exclude")
    try:
        read = descriptor.read_descriptor(args.check, bundle_root=args.bundle_root)
    except descriptor.DescriptorError as e:
        raise CliError(str(e), 1) from None
    store = open_store(args)
    try:
        findings = descriptor.check_descriptor(store, read)
    finally:
        store.close()
    for f in findings:
        print(f"  {f}")
    print(f"{args.check}: {len(findings)} problem(s); skills root {read.skills_root}; "
          f"consumers: {', '.join(read.consumers)}")
    return 1 if findings else 0


class _Consumer(argparse.Action):
    """``--consumer NAME`` starts a consumer; ``--only``/``--exclude`` add a selector to the one
    before them (to "default" when none was named yet)."""

    def __call__(self, parser, namespace, values, option_string=None):
        from skill_studio.core.library.descriptor import DEFAULT_CONSUMER

        consumers = getattr(namespace, "consumers", None) or []
        option = self.option_strings[0]     # as declared, whatever abbreviation was typed
        if option == "--consumer":
            consumers.append({"name": values, "only": [], "exclude": []})
        else:
            if not consumers:
                consumers.append({"name": DEFAULT_CONSUMER, "only": [], "exclude": []})
            consumers[-1][option.lstrip("-")].append(values)
        namespace.consumers = consumers


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    from skill_studio.core.agents.matching import ALIASES, DEFAULT_STRATEGY, STRATEGIES

    m = add("match", "the skills a query is about, most relevant first, and those the gate keeps out", cmd_match)
    m.add_argument("query")
    m.add_argument("--limit", type=int, default=10, help="at most this many (default 10)")
    m.add_argument("--strategy", choices=(*STRATEGIES, *ALIASES), default=DEFAULT_STRATEGY,
                   help="fused (the default: relevance from words and meaning together; the track record "
                        "only separates near ties), "
                        "keywords, vectors, or product (the seed's similarity × utility × freshness)")
    m.add_argument("--explain", action="store_true", help="show each score's breakdown and the skills kept out")
    g = add("gate", "which skills an agent may see, and why the others may not", cmd_gate)
    g.add_argument("names", nargs="*", metavar="NAME")
    ld = add("load", "print a skill's SKILL.md as an agent receives it, and record the use", cmd_load,
             json_flag=False)
    ld.add_argument("name")
    ld.add_argument("--force", action="store_true", help="load a skill the gate keeps out")
    pr = add("prompt", "print the <available_skills> block for skills (names or folders; the active ones when none)",
             cmd_prompt, json_flag=False)
    pr.add_argument("names", nargs="*", metavar="NAME|PATH")
    pr.add_argument("--gated", action="store_true", help="only the skills that pass the gate")
    pr.add_argument("--run-hint", metavar="DIR", help="with --gated: after each description, how to run the "
                                                      "skill's scripts from this workspace folder (e.g. .skills: "
                                                      "bash .skills/NAME/scripts/run.sh)")
    de = add("descriptor", "a JSON descriptor for runtimes: the skills root and, per consumer, the enabled "
             "and disabled skills (with why); or --check one written before", cmd_descriptor, json_flag=False)
    de.add_argument("--root", metavar="DIR", help="where the skills are installed")
    de.add_argument("--bundle-root", metavar="DIR", help="write the root relative to this folder (with --check: "
                                                         "resolve a relative root against it)")
    de.add_argument("--consumer", action=_Consumer, dest="consumers", metavar="NAME",
                    help="a consumer to configure (repeatable; \"default\" when none): the --only and --exclude "
                         "after it are its rule")
    de.add_argument("--only", action=_Consumer, dest="consumers", metavar="SKILL|tag:TAG",
                    help="the consumer takes only the skills matching one of these (repeatable)")
    de.add_argument("--exclude", action=_Consumer, dest="consumers", metavar="SKILL|tag:TAG",
                    help="the consumer leaves out the skills matching any of these (repeatable)")
    de.add_argument("--check", metavar="FILE", help="read a descriptor back and report what no longer holds: "
                                                    "unknown skills, enabled ones the gate or the folder "
                                                    "disagrees with now, new ones")
