"""Importing skills into the store: folders, trees and archives, with a report per skill."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from skill_studio.core.format import skillmd
from skill_studio.core.format.frontmatter import set_field
from skill_studio.core.format.names import LookAlikes, mixed_scripts, printable, skill_name_problem
from skill_studio.core.format.skillmd import SkillParseError
from skill_studio.core.library.folders import (
    skill_from_document,
)
from skill_studio.core.library.import_sources import ReadSkill, read_sources
from skill_studio.core.library.import_writer import ImportEntry, Writer
from skill_studio.core.model import Lifecycle, Origin, Skill, SkillFile
from skill_studio.core.store import NotFound, Store, content_hash

BATCH_SKILLS = 250
BATCH_BYTES = 32 * 1024 * 1024


@dataclass
class ImportReport:
    entries: list[ImportEntry] = field(default_factory=list)
    undo: Any = None   # a lifecycle.Change undoing the merges of extracted skills, when there were any

    def count(self, status: str) -> int:
        return sum(1 for e in self.entries if e.status == status)

    @property
    def failures(self) -> list[ImportEntry]:
        """The skills that could not be written to the store (see ImportEntry.failed)."""
        return [e for e in self.entries if e.failed]

    @property
    def summary(self) -> str:
        merged, failed = self.count("merged"), len(self.failures)
        proposed = sum(1 for e in self.entries if e.proposed_merge)
        return ", ".join(f"{self.count(s)} {s}" for s in ("imported", "updated", "unchanged", "skipped")) \
            + (f" ({failed} of them failed: not written to the store)" if failed else "") \
            + (f", {merged} merged into existing skills" if merged else "") \
            + (f", {proposed} proposed as merges into reviewed skills (in the review queue)" if proposed else "")

    @property
    def failure_advice(self) -> str:
        """What went wrong with the failed skills and what to do, in one line ("" when none failed)."""
        failures = self.failures
        if not failures:
            return ""
        full = any("disk is full" in e.reason or "No space left" in e.reason for e in failures)
        todo = "free some disk space" if full else "deal with the cause (or wait for the program using the store)"
        return (f"{len(failures)} skill{'s' if len(failures) != 1 else ''} could not be written to the store "
                f"(the first: {failures[0].reason}). Nothing already in the store was lost; {todo}, then run the "
                "same import again: what this one stored will show as unchanged.")


def import_paths(store: Store, paths: Iterable[str | os.PathLike], *, origin: Origin = Origin.HUMAN,
                 author: str | None = None, check_strict: bool = True,
                 progress: Callable[[int, str], bool] | None = None,
                 merge_similar: bool | None = None, index_later: bool = False,
                 note: str = "imported", lifecycle: Lifecycle | None = None,
                 keep_existing: bool = False) -> ImportReport:
    """Import skill folders, trees of them, SKILL.md files and .skill/.zip archives (lenient).

    Each skill is reported as imported, updated (a new version), unchanged or
    skipped with the reason (file and line where one applies). A name met
    twice in one import: the first path (in sorted order) keeps it, the next
    ones become ``name-2``, ``name-3``... An import never replaces a builtin
    skill (unless ``origin`` is builtin), and an ``llm`` import never replaces
    a skill that was reviewed. ``progress(done, source)`` may return False to
    stop early. New skills are written in batches, each one transaction.

    Skills extracted by an agent (``llm``) that nearly repeat a library skill (similarity at
    least the ``import.merge_similarity`` setting, 0.78; ``merge_similar`` defaults to True for
    llm imports) are merged into it instead of added when it is another unreviewed extracted
    skill: reported as "merged", and ``report.undo`` undoes it. A reviewed skill is never
    changed by an import: the new one stays a candidate with ``proposed_merge`` naming it.

    With ``index_later`` the new skills are left waiting for the search index (the import then
    reports done sooner): the caller indexes them (``store.index_pending``), or the first search
    does. Either way a search finds them as soon as this returns. ``note`` is the new skills'
    version note; ``lifecycle``, when given, the state new skills enter in instead of their
    origin's (skills from another's repository enter as candidates, for review). With
    ``keep_existing`` a skill whose name the library has already is skipped, never a new version.
    """
    report = _import(store, paths, origin=Origin(origin), author=author, check_strict=check_strict,
                     progress=progress, index_later=index_later, note=note, lifecycle=lifecycle,
                     keep_existing=keep_existing)
    if merge_similar if merge_similar is not None else Origin(origin) == Origin.LLM:
        from skill_studio.core.library.extracted import absorb

        added = [e.name for e in report.entries if e.status == "imported" and e.name]
        if added:
            absorbed, report.undo = absorb(store, added, author=author)
            by_name = {e.name: e for e in report.entries if e.status == "imported"}
            for a in absorbed:
                entry = by_name[a.name]
                if a.proposed:
                    entry.proposed_merge = a.target
                    entry.reason = (f'nearly repeats "{a.target}" (similarity {a.similarity:.2f}), which was '
                                    "reviewed: kept as a candidate, its merge proposed for review")
                    continue
                entry.status = "merged"
                entry.reason = f'merged into "{a.target}" (similarity {a.similarity:.2f})'
                if a.files:
                    entry.reason += f", with {len(a.files)} new file(s): {', '.join(a.files)}"
    return report


def _import(store: Store, paths: Iterable[str | os.PathLike], *, origin: Origin, author: str | None,
            check_strict: bool, progress: Callable[[int, str], bool] | None, index_later: bool,
            note: str = "imported", lifecycle: Lifecycle | None = None,
            keep_existing: bool = False) -> ImportReport:
    origin = Origin(origin)
    report = ImportReport()
    seen: dict[str, str] = {}
    known = store.import_state()
    look_alikes = LookAlikes(known)
    pending: list[tuple[ImportEntry, Skill]] = []
    pending_bytes = 0
    writer = Writer(store, author, index_later=index_later, note=note)
    done = 0

    def flush() -> None:
        nonlocal pending_bytes
        if pending:
            writer.add(list(pending))
            pending.clear()
            pending_bytes = 0

    try:
        for raw in paths:
            for read in read_sources(Path(raw)):
                entry = ImportEntry(read.source, "skipped", warnings=list(read.notes))
                report.entries.append(entry)
                parsed = _parse(read, origin, check_strict, entry)
                if parsed is None:
                    continue
                skill, name_line = parsed
                try:
                    skill = _dedupe_name(store, skill, seen, entry)
                except ValueError as e:  # a frontmatter whose name cannot be rewritten in place
                    entry.reason = (f'{printable(entry.source)}: the name "{skill.name}" is already taken in '
                                    f"this import by {printable(seen[skill.name])}, and cannot be changed "
                                    f"here ({e}); rename the skill")
                    continue
                if skill.name not in known and not _distinct(skill.name, name_line, look_alikes, entry):
                    continue
                entry.name = skill.name
                seen[skill.name] = entry.source
                look_alikes.add(skill.name)
                if skill.name in known and keep_existing:
                    entry.reason = (f'{printable(entry.source)}: the library has a skill named "{skill.name}" '
                                    "already; it is not replaced (rename or delete it first)")
                elif skill.name in known:
                    version, old_hash, old_origin, old_state = known[skill.name]
                    refusal = _replace_refusal(old_origin, old_state, origin)
                    if content_hash(skill.skill_md, skill.files) == old_hash:
                        entry.status = "unchanged"
                    elif refusal:
                        entry.reason = f'{entry.source}: "{skill.name}" {refusal}'
                    else:
                        entry.status = "updated"
                        writer.update(entry, skill, version)
                else:
                    entry.status = "imported"
                    if lifecycle is not None:
                        skill = replace(skill, lifecycle=lifecycle)
                    pending.append((entry, skill))
                    pending_bytes += len(skill.skill_md) + sum(len(f.data) for f in skill.files)
                    if len(pending) >= BATCH_SKILLS or pending_bytes >= BATCH_BYTES:
                        flush()
                done += 1
                if progress is not None and progress(done, entry.source) is False:
                    return report
        return report
    finally:
        try:
            flush()
        finally:
            writer.close()


def _parse(read: ReadSkill, origin: Origin, check_strict: bool, entry: ImportEntry) -> tuple[Skill, int] | None:
    """The skill read and the SKILL.md line of its name, or None (the entry says why)."""
    if read.error is not None:
        entry.reason = read.error
        return None
    try:
        doc = skillmd.parse_document(read.data, read.source)
        skill = skill_from_document(doc, read.folder_name, read.files, origin=origin, source=read.source)
    except SkillParseError as e:
        entry.reason = str(e)
        return None
    except (ValueError, TypeError) as e:  # frontmatter the studio cannot represent
        entry.reason = f"{read.source}: cannot read this skill: {e}"
        return None
    problem = skill_name_problem(skill.name)
    if problem:
        entry.reason = (f"{printable(read.source)}:{_name_line(doc)}: the skill name "
                        f"'{printable(skill.name)}' {problem}; rename the skill")
        return None
    if check_strict:
        entry.strict_errors, warnings = _diagnose(read.folder_name, read.files, doc)
        entry.warnings.extend(warnings)
    return skill, _name_line(doc)


def _name_line(doc: skillmd.SkillDocument) -> int:
    """The SKILL.md line of the frontmatter's name (the frontmatter's first line when it has none)."""
    if isinstance(doc.node, yaml.MappingNode):
        for key, _ in doc.node.value:
            if isinstance(key, yaml.ScalarNode) and key.value == "name":
                return doc.frontmatter_line + key.start_mark.line
    return doc.frontmatter_line


def _distinct(name: str, line: int, look_alikes: LookAlikes, entry: ImportEntry) -> bool:
    """False (the entry says why) when ``name`` reads like another skill's name: a near-collision."""
    other = look_alikes.near_collision(name)
    if other is not None:
        entry.reason = (f"{printable(entry.source)}:{line}: near-collision: the name '{name}' looks like "
                        f"the name of the skill '{other}' ({LookAlikes.difference(name, other)}); rename "
                        "the skill so that the two can be told apart")
        return False
    scripts = mixed_scripts(name)
    if scripts:
        entry.warnings.append(f"the name '{name}' mixes {' and '.join(s.title() for s in scripts)} letters, "
                              "which can look alike")
    return True


def _replace_refusal(old_origin: str, old_state: str, origin: Origin) -> str | None:
    """Why an import may not replace the stored skill of that name, or None."""
    if old_origin == Origin.BUILTIN.value and origin != Origin.BUILTIN:
        return "is a builtin skill and is not replaced by an import; copy it into a new skill"
    if origin == Origin.BUILTIN and old_origin != Origin.BUILTIN.value:
        return (f"already exists as a {old_origin} skill; a builtin import does not replace it (import it "
                "under another name)")
    if origin == Origin.LLM and not (old_origin == Origin.LLM.value and old_state == Lifecycle.CANDIDATE.value):
        return ("already exists and has been reviewed; an extracted (llm) version does not replace it "
                "(import it under another name to review it)")
    return None


def _dedupe_name(store: Store, skill: Skill, seen: dict[str, str], entry: ImportEntry) -> Skill:
    """Rename a skill whose name an earlier path of this import took, to the first free ``name-N``
    (free: not taken in this import, and not stored unless it came from this same source)."""
    if skill.name not in seen:
        return skill
    n = 2
    while True:
        new_name = f"{skill.name}-{n}"
        if new_name not in seen and _free_for(store, new_name, entry.source):
            break
        n += 1
    doc = skillmd.parse_document(skill.skill_md, entry.source)
    text = set_field(doc, "name", new_name)
    entry.warnings.append(f'name "{skill.name}" is already taken in this import by '
                          f'{seen[skill.name]}; imported as "{new_name}"')
    skill.name, skill.folder_name, skill.skill_md = new_name, new_name, text
    skill.content = skillmd.split(text, entry.source).body
    return skill


def _free_for(store: Store, name: str, source: str) -> bool:
    try:
        return store.get(name, with_files=False).source_path == source
    except NotFound:
        return True


def _diagnose(folder_name: str, files: list[SkillFile],
              doc: skillmd.SkillDocument) -> tuple[list[str], list[str]]:
    """What strict would say (errors) and the lenient warnings, for the import report.

    Both read the text ``doc`` was parsed from (valid UTF-8, so not decoded again); lenient reads
    ``doc`` itself. Strict parses the frontmatter once more, in its own YAML dialect."""
    from skill_studio.core.format import validate

    paths = [f.path for f in files]
    strict = validate.validate_text(doc.text, folder_name, "strict", files=paths, lints=False)
    lenient = validate.validate_text(doc.text, folder_name, "lenient", files=paths, lints=False, document=doc)
    return ([d.message for d in strict if d.severity == "error"],
            [d.message for d in lenient if d.severity == "warning"])


__all__ = ["BATCH_BYTES", "BATCH_SKILLS", "ImportEntry", "ImportReport", "import_paths"]
