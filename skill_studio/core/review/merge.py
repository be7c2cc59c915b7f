"""Merging one skill into another (SPEC §6): a preview that writes nothing, and the merge itself
in one transaction that returns a :class:`~skill_studio.core.review.lifecycle.Change` for undo."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from skill_studio.core.format import skillmd
from skill_studio.core.format.fields import set_studio_field, steps_location, to_skill
from skill_studio.core.format.frontmatter import set_field
from skill_studio.core.format.steps import find_step_list, replace_step_list, without_step_list
from skill_studio.core.health import scores
from skill_studio.core.model import Lifecycle, Origin, Skill
from skill_studio.core.review.lifecycle import Change
from skill_studio.core.store import ReadOnlySkill, Store, StoreError


@dataclass
class MergePreview:
    target: Skill                 # as it is now
    source: Skill
    merged: Skill                 # the target as it will be (text, fields, scores)
    added_steps: list[str]        # the source's steps that are new to the target
    dependents: list[str]         # skills whose depends_on will name the target instead
    description_cut: bool         # the combined description was cut to the format's limit
    new_files: list[str]          # the source's files the target does not have (paths)
    with_files: bool              # whether the merge adds them (see ``carries_files``)


def carries_files(target: Skill, source: Skill) -> bool:
    """Whether a merge adds the source's new files unless told: only when the source is trusted
    at least as much as the target. Files (scripts above all) of a less trusted skill never
    reach a more trusted one unless a reviewer asks for them by name."""
    return int(source.trust_tier) >= int(target.trust_tier)


def _norm(action: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", action.lower()).split())


def _union(*lists: list[str], without: tuple[str, ...]) -> list[str]:
    return [x for x in dict.fromkeys(x for lst in lists for x in lst) if x not in without]


def _combined_description(target: str, source: str) -> tuple[str, bool]:
    if not source.strip() or _norm(source) in _norm(target):
        return target, False
    from skill_studio.core.format.strict import MAX_DESCRIPTION_LENGTH  # the strict checks' module: on use

    text = f"{target.rstrip()} {source.strip()}"
    if len(text) <= MAX_DESCRIPTION_LENGTH:
        return text, False
    cut = text[:MAX_DESCRIPTION_LENGTH - 1].rsplit(" ", 1)[0].rstrip(" ,;:") + "…"
    return cut, True


def _check(store: Store, target_name: str, source_name: str) -> tuple[Skill, Skill]:
    if target_name == source_name:
        raise StoreError(f'Cannot merge "{target_name}" into itself')
    target, source = store.get(target_name), store.get(source_name)
    if source.origin == Origin.BUILTIN:
        raise StoreError(f'Cannot merge the builtin skill "{source_name}" into another: builtin skills '
                         "are read-only (merge the other way, or copy it first)")
    if target.origin == Origin.BUILTIN:
        raise ReadOnlySkill(target_name)
    return target, source


def merge_preview(store: Store, target_name: str, source_name: str, *,
                  with_files: bool | None = None) -> MergePreview:
    """What merging ``source`` into ``target`` would give, without writing anything. The
    source's new files are added when ``with_files``; by default (None) as ``carries_files``
    decides."""
    target, source = _check(store, target_name, source_name)
    new_files = _new_files(target, source)
    if with_files is None:
        with_files = carries_files(target, source)
    known = {_norm(s["action"]) for s in target.steps}
    added: list[str] = []
    for s in source.steps:
        key = _norm(s["action"])
        if key not in known:
            known.add(key)   # also drops repeats within the source
            added.append(s["action"])
    steps = [{"n": i + 1, "action": a} for i, a in enumerate([s["action"] for s in target.steps] + added)]
    description, cut = _combined_description(target.description, source.description)
    both = (target.name, source.name)
    tags = _union(target.tags, source.tags, without=())
    depends = _union(target.depends_on, source.depends_on, without=both)
    conflicts = _union(target.conflicts_with, source.conflicts_with, without=both)
    body = target.content.rstrip("\n")
    source_body = source.content
    if steps and (target.steps or _has_frontmatter_steps(target.skill_md)) \
            and not _has_frontmatter_steps(source.skill_md):
        source_body = without_step_list(source_body)  # its steps are in the target's list now
    if source_body.strip():
        body += f"\n\n## Merged from {source.name}\n\n{source_body.strip()}\n"
    text = _rewrite(target.skill_md, target.content, body, target.name, description=description, tags=tags,
                    depends_on=depends, conflicts_with=conflicts)
    text = _with_steps(text, [s["action"] for s in steps], target.name)
    doc = skillmd.parse_document(text, f"{target.name}/{target.md_filename}")
    merged = to_skill(doc, target.folder_name, files=list(target.files) + (new_files if with_files else []),
                      md_filename=target.md_filename, source_path=target.source_path)
    merged.steps = steps
    outcomes = scores.Outcomes(target.success_decayed + source.success_decayed,
                               target.failure_decayed + source.failure_decayed,
                               target.use_count + source.use_count)
    merged = replace(merged, use_count=outcomes.n, success_count=target.success_count + source.success_count,
                     failure_count=target.failure_count + source.failure_count,
                     success_decayed=outcomes.s, failure_decayed=outcomes.f,
                     success_rate=scores.success_rate(outcomes), utility_score=scores.utility(outcomes),
                     last_used_at=max(filter(None, [target.last_used_at, source.last_used_at]), default=None))
    dependents = [n for n in store.dependents(source.name) if n not in both]
    return MergePreview(target, source, merged, added, dependents, cut, [f.path for f in new_files],
                        bool(with_files and new_files))


def _has_frontmatter_steps(text: str) -> bool:
    return steps_location(skillmd.parse_document(text).data) is not None


def _with_steps(text: str, actions: list[str], name: str) -> str:
    """The merged text holding exactly ``actions`` as its steps, so that reading the file (a
    restore of this version) gives back what the store shows: in the frontmatter when the target
    keeps them there, else as the body's steps list; the frontmatter takes them when the body
    cannot."""
    doc = skillmd.parse_document(text, f"{name}/SKILL.md")
    if not actions and not to_skill(doc, name).steps:
        return text
    if steps_location(doc.data) is None:
        found = find_step_list(doc.body)
        if found is not None:
            body = replace_step_list(doc.body, found, actions)
            text = text[:len(text) - len(doc.body)] + body
            doc = skillmd.parse_document(text, f"{name}/SKILL.md")
            if [s["action"] for s in to_skill(doc, name).steps] == actions:
                return text
    return set_studio_field(doc, "steps", actions)


def _new_files(target: Skill, source: Skill) -> list:
    """The source's files that the target does not have (same path: the target's is kept)."""
    paths = {f.path for f in target.files}
    return [f for f in source.files if f.path not in paths]


def _rewrite(text: str, old_body: str, body: str, name: str, **fields) -> str:
    head = text[:len(text) - len(old_body)] if old_body and text.endswith(old_body) else text
    text = head + body
    for key, value in fields.items():
        if value is None:
            continue
        doc = skillmd.parse_document(text, f"{name}/SKILL.md")
        if key == "description":
            text = set_field(doc, "description", value)
        else:
            current = getattr(to_skill(doc, name), key)
            if list(current) != list(value):
                text = set_studio_field(doc, key, value)
    return text


def merge(store: Store, target_name: str, source_name: str, *, author: str | None = None,
          with_files: bool | None = None) -> Change:
    """Merge ``source`` into ``target`` (SPEC §6) in one transaction: the target's new version,
    dependents rewritten to need the target, the source archived with the reason
    ``Merged into "<target>"``. The source's new files come too when ``with_files`` (by default,
    as ``carries_files`` decides); the audit names them. Returns the change (every skill
    touched, before and after)."""
    with store.transaction():
        preview = merge_preview(store, target_name, source_name, with_files=with_files)
        target, source = preview.target, preview.source
        dependents = {name: store.get(name) for name in preview.dependents}
        before: dict[str, Skill | None] = {target.name: target, source.name: source, **dependents}
        note = f'merged "{source.name}" into it'
        store.update(target.name, preview.merged, target.version, author=author, note=note)
        merged = preview.merged
        store.set_state(target.name, author=author, reason=f'Merged "{source.name}" into "{target.name}"',
                        action="merge", use_count=merged.use_count, success_count=merged.success_count,
                        failure_count=merged.failure_count, success_decayed=merged.success_decayed,
                        failure_decayed=merged.failure_decayed, success_rate=merged.success_rate,
                        utility_score=merged.utility_score, last_used_at=merged.last_used_at,
                        steps=merged.steps)
        files = (f" with {len(preview.new_files)} new file(s): {', '.join(preview.new_files)}" if preview.with_files
                 else f" without its {len(preview.new_files)} new file(s)" if preview.new_files else "")
        store.audit(target.name, "merge", source.name, target.name,
                    f'Merged "{source.name}" into "{target.name}"{files}', author)
        for name in preview.dependents:
            dep = dependents[name]
            doc = skillmd.parse_document(dep.skill_md, f"{name}/{dep.md_filename}")
            needs = [target.name if d == source.name else d for d in dep.depends_on]
            text = set_studio_field(doc, "depends_on", list(dict.fromkeys(needs)))
            rewritten = to_skill(skillmd.parse_document(text), dep.folder_name, files=dep.files,
                                 md_filename=dep.md_filename, source_path=dep.source_path)
            store.update(name, rewritten, dep.version, author=author,
                         note=f'depends on "{target.name}" instead of "{source.name}" (merged)')
        reason = f'Merged into "{target.name}"'
        if source.lifecycle != Lifecycle.ARCHIVED:
            store.set_state(source.name, author=author, reason=reason, action="archive",
                            lifecycle=Lifecycle.ARCHIVED, lifecycle_reason=reason)
        else:
            store.set_state(source.name, author=author, reason=reason, lifecycle_reason=reason)
        after: dict[str, Skill | None] = {name: store.get(name) for name in before}
        return Change(f'Merge "{source.name}" into "{target.name}"', before, after)
