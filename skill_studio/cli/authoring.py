"""The authoring commands of ``skill-studio``: what the designer does, without the window.

new (from a template), save (a SKILL.md file as a new version, refused when the skill
changed since the version named), history, diff between versions, restore-version, drafts.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Callable
from pathlib import Path

from skill_studio.core.format.templates import TEMPLATES


def _store(args: argparse.Namespace):
    from skill_studio.cli.common import open_store

    return open_store(args)


def _error(message: str, code: int = 2):
    from skill_studio.cli.common import CliError

    return CliError(message, code)


def cmd_new(args: argparse.Namespace) -> int:
    from skill_studio.core.ops.skills import CreateRefused, create_skill
    from skill_studio.core.store import AlreadyExists

    try:
        skill = create_skill(_store(args), args.name, args.description, args.template).skill
    except (CreateRefused, AlreadyExists) as e:
        raise _error(str(e)) from None
    print(f"created {skill.name} (version {skill.version}, {len(skill.files)} file(s) beside SKILL.md)")
    return 0


def cmd_save(args: argparse.Namespace) -> int:
    from skill_studio.core.format.fields import to_skill
    from skill_studio.core.format.skillmd import MAX_SKILL_MD_BYTES, parse_document
    from skill_studio.core.library.bounded_read import ReadRefused, read_bounded
    from skill_studio.core.ops.skills import save_skill
    from skill_studio.core.store import VersionConflict

    store = _store(args)
    current = store.get(args.name)
    path = Path(args.file)
    try:
        data, _mode = read_bounded(path, MAX_SKILL_MD_BYTES, what="SKILL.md")
    except ReadRefused as e:
        raise _error(f"{e}; nothing was saved", 1) from None
    doc = parse_document(data, str(path))
    skill = to_skill(doc, current.folder_name, files=current.files, md_filename=current.md_filename,
                     source_path=current.source_path)
    expected = args.expect_version if args.expect_version is not None else current.version
    try:
        saved = save_skill(store, args.name, skill, expected, note=args.note or "edited").skill
    except VersionConflict as e:
        raise _error(f"{e}; nothing was saved (see: skill-studio diff {args.name})", 1) from None
    if saved.version == current.version:
        print(f"{saved.name}: unchanged (version {saved.version})")
    elif saved.name != current.name:
        print(f"{current.name}: renamed to {saved.name}, saved as version {saved.version}")
    else:
        print(f"{saved.name}: saved as version {saved.version}")
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import emit_json

    versions = _store(args).versions(args.name)
    if not versions:
        raise _error(f'no history for "{args.name}"', 1)
    if args.json:
        emit_json([v.__dict__ for v in versions])
        return 0
    for v in versions:
        print(f"v{v.version:<4} {v.created_at}  {v.author:<12} {v.note}")
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    store = _store(args)
    versions = [v.version for v in store.versions(args.name)]
    if not versions:
        raise _error(f'no history for "{args.name}"', 1)
    new = args.new if args.new is not None else versions[0]
    old = args.old if args.old is not None else next((v for v in versions if v < new), new)
    old_text, _ = store.version_text(args.name, old)
    new_text, _ = store.version_text(args.name, new)
    sys.stdout.writelines(difflib.unified_diff(
        old_text.splitlines(keepends=True), new_text.splitlines(keepends=True),
        f"{args.name} version {old}", f"{args.name} version {new}"))
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    from skill_studio.core.ops.skills import restore_version

    store = _store(args)
    current = store.get(args.name, with_files=False)
    restored = restore_version(store, args.name, args.version, current.version).skill
    print(f"{args.name}: version {args.version} restored as version {restored.version}")
    return 0


def cmd_drafts(args: argparse.Namespace) -> int:
    store = _store(args)
    if args.discard:
        if store.draft(args.discard) is None:
            raise _error(f'no draft for "{args.discard}"', 1)
        store.discard_draft(args.discard)
        print(f"draft of {args.discard} discarded")
        return 0
    keys = store.drafts()
    if not keys:
        print("no unsaved drafts")
    for key in keys:
        text, base, at = store.draft(key)
        print(f"{key}: {len(text.splitlines())} lines, saved {at}, based on version {base}")
    return 0


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    """Add the authoring commands to the parser (``add(name, help, func, json_flag)``)."""
    n = add("new", "create a skill from a template", cmd_new, False)
    n.add_argument("name")
    n.add_argument("--description", "-d", required=True)
    n.add_argument("--template", choices=list(TEMPLATES), default="blank")

    s = add("save", "save a SKILL.md file as the next version of a skill", cmd_save, False)
    s.add_argument("name")
    s.add_argument("file", metavar="SKILL.md")
    s.add_argument("--note", default="")
    s.add_argument("--expect-version", type=int, metavar="N",
                   help="refuse to save if the skill is no longer at version N")

    h = add("history", "list a skill's versions", cmd_history)
    h.add_argument("name")

    d = add("diff", "unified diff between two versions (default: the last two)", cmd_diff, False)
    d.add_argument("name")
    d.add_argument("old", nargs="?", type=int)
    d.add_argument("new", nargs="?", type=int)

    r = add("restore-version", "make an earlier version current again (as a new version)", cmd_restore, False)
    r.add_argument("name")
    r.add_argument("version", type=int)

    dr = add("drafts", "list unsaved drafts left by the designer", cmd_drafts, False)
    dr.add_argument("--discard", metavar="NAME", help="throw one draft away")
