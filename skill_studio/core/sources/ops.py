"""Adding skills from a source, and following it: what changed upstream since, and updating.

An add takes the skill folders of a source through the import's rules (everything an import
refuses is refused from a repository too) as candidates, and records for each where it came
from. A name the library already has is never replaced by an add.

Following compares three things per skill: the source's files now, the files taken then (their
hash), and the skill in the store now against the store right after it was taken. Only upstream
changed: an update saves the source's files as a new version, the commit in its note. Only the
studio changed: nothing to do. Both: a two-sided change, shown with both diffs; an update then
takes a side only when told which (``take``), and never overwrites silently. A skill gone from
the source is reported and kept.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from skill_studio.core.format.skillmd import SkillParseError
from skill_studio.core.library.folders import FolderError, build_skill
from skill_studio.core.library.importer import ImportEntry, import_paths
from skill_studio.core.model import Lifecycle, Origin
from skill_studio.core.sources.git import GitError
from skill_studio.core.sources.snapshot import Item, Snapshot, describe_source, read_item, snapshot
from skill_studio.core.sources.spec import SourceError, SourceSpec, parse_source
from skill_studio.core.store import NotFound, Store, StoreError
from skill_studio.core.store.sources import SourceRecord

CURRENT, UPSTREAM, HERE, BOTH, GONE, UNREACHABLE = (
    "current", "changed upstream", "changed here", "changed on both sides", "gone upstream", "unreachable")
TAKE_UPSTREAM, TAKE_STUDIO = "upstream", "studio"


@dataclass
class Listed:
    """A skill a source offers."""

    path: str
    name: str | None           # None when its SKILL.md cannot be read
    description: str
    plugin: str | None
    problem: str | None        # why it cannot be added


@dataclass
class AddReport:
    source: str
    commit: str | None
    entries: list[ImportEntry] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def added(self) -> list[str]:
        return [e.name for e in self.entries if e.status == "imported" and e.name]


@dataclass
class Status:
    """Where a followed skill stands against its source."""

    name: str
    record: SourceRecord
    state: str                     # CURRENT, UPSTREAM, HERE, BOTH, GONE or UNREACHABLE
    commit: str | None = None      # the source's commit now
    detail: str = ""
    upstream_diff: str = ""        # what was taken → the source now (unified, with the files' changes)
    studio_diff: str = ""          # what was taken → the store now
    taken_text: str = ""           # SKILL.md as taken, as the source has it now, as the store has it now
    upstream_text: str = ""
    studio_text: str = ""
    upstream_files: list[str] = field(default_factory=list)   # "new file x (12 bytes)", "removed file y"…
    studio_files: list[str] = field(default_factory=list)
    item: Item | None = field(default=None, repr=False)


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _read_name(item: Item) -> tuple[str | None, str, str | None]:
    if item.problem:
        return None, "", item.problem
    try:
        data, files, _ = read_item(item)
        skill = build_skill(data, item.folder.name, files, origin=Origin.HUMAN, source=item.path or ".")
    except (FolderError, OSError, SkillParseError, ValueError, TypeError) as e:
        return None, "", str(e)
    return skill.name, skill.description or "", None


def list_source(store: Store, source: str, *, ref: str | None = None, path: str | None = None,
                interactive: bool = False) -> tuple[SourceSpec, str | None, list[Listed], list[str]]:
    """The skills ``source`` offers now: (the source, its commit, the skills, problems)."""
    spec = parse_source(source, ref, path)
    with snapshot(store, spec, interactive=interactive) as snap:
        listed = []
        for item in snap.items:
            name, description, problem = _read_name(item)
            listed.append(Listed(item.path, name, description, item.plugin, problem))
        return spec, snap.commit, listed, snap.problems


def _choose(snap: Snapshot, names: list[str] | None) -> list[Item]:
    """The items ``names`` ask for: a skill's name first, else its path in the source, else its
    folder's name (a name never picks another skill that has it as a folder name)."""
    if not names:
        return [i for i in snap.items if i.problem is None]
    by_name: dict[str, Item] = {}
    for item in snap.items:
        name, _, _ = _read_name(item)
        if name:
            by_name.setdefault(name, item)
    by_path = {i.path: i for i in snap.items}
    by_folder: dict[str, Item] = {}
    for item in snap.items:
        by_folder.setdefault(item.path.rsplit("/", 1)[-1], item)
    found = {n: by_name.get(n) or by_path.get(n) or by_folder.get(n) for n in names}
    missing = [n for n, item in found.items() if item is None]
    if missing:
        offered = sorted(by_name)
        raise SourceError(f"{snap.spec.describe()} has no skill {', '.join(missing)}; it offers "
                          + (", ".join(offered[:20]) + (" …" if len(offered) > 20 else "") if offered else "none"))
    chosen = list({id(i): i for i in found.values() if i is not None}.values())
    refused = [i for i in chosen if i.problem]
    if refused:
        raise SourceError("; ".join(f"{i.path}: {i.problem}" for i in refused))
    return chosen


def add(store: Store, source: str, *, names: list[str] | None = None, ref: str | None = None,
        path: str | None = None, interactive: bool = False, author: str | None = None,
        progress: Callable[[int, str], bool] | None = None, at_commit: str | None = None) -> AddReport:
    """Add the skills of ``source`` (those named, by skill name or folder; all when None) as
    candidates, recording where each came from. ``at_commit`` takes that commit's files while the
    record keeps following ``ref`` (a restore from a lock file). Raises SourceError or GitError
    when the source cannot be read; a skill that cannot be added is reported in the entries."""
    spec = parse_source(source, ref, path)
    fetched = replace(spec, ref=at_commit) if at_commit and spec.is_git else spec
    with snapshot(store, fetched, interactive=interactive) as snap:
        report = AddReport(spec.describe(), snap.commit, problems=list(snap.problems))
        chosen = _choose(snap, names)
        followed = {(r.url, r.path): r.skill for r in store.source_records()}
        taken: list[Item] = []
        for item in chosen:
            there = followed.get((spec.url, item.path))
            if there is not None:
                report.entries.append(ImportEntry(item.path or ".", "skipped", there,
                                                  f'added before as "{there}": "skill-studio update {there}" '
                                                  "brings the source's changes"))
                continue
            taken.append(item)
            report.problems += [f"{item.path or '.'}/{note}" for note in item.left_out]
        if not taken:
            return report
        imported = import_paths(store, [i.folder for i in taken], author=author, progress=progress,
                                note=f"added from {describe_source(spec, snap.commit)}",
                                lifecycle=Lifecycle.CANDIDATE, keep_existing=True)
        stamp = _now()
        records = []
        by_folder = {str(i.folder): i for i in taken}
        for entry in imported.entries:
            origin = _item_of(entry.source, by_folder)
            if origin is not None:
                entry.source = f"{spec.describe()}: {origin.path or '.'}"
                entry.reason = entry.reason.replace(str(origin.folder), f"{spec.describe()}: {origin.path or '.'}")
            report.entries.append(entry)
            if origin is None or entry.status != "imported" or not entry.name:
                continue
            _, _, source_hash = read_item(origin)
            records.append(SourceRecord(entry.name, spec.source, spec.kind, spec.url, spec.ref, snap.commit,
                                        origin.path, source_hash,
                                        store.get(entry.name, with_files=False).content_hash or "", stamp))
        store.record_sources(records)
        return report


def _item_of(source: str, by_folder: dict[str, Item]) -> Item | None:
    """The item whose folder ``source`` (a path an import reports) is, or is in."""
    path = Path(source)
    for candidate in (path, *path.parents):
        found = by_folder.get(str(candidate))
        if found is not None:
            return found
    return None


def _file_changes(old_files: dict[str, bytes], new_files: dict[str, bytes]) -> list[str]:
    lines = []
    for p in sorted(set(old_files) | set(new_files)):
        if p not in new_files:
            lines.append(f"removed file {p}")
        elif p not in old_files:
            lines.append(f"new file {p} ({len(new_files[p])} bytes)")
        elif old_files[p] != new_files[p]:
            lines.append(f"changed file {p} ({len(old_files[p])} → {len(new_files[p])} bytes)")
    return lines


def _diff(old: str, new: str, old_label: str, new_label: str, files: list[str]) -> str:
    lines = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True), old_label, new_label)
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines) + "".join(f + "\n" for f in files)


def _taken(store: Store, record: SourceRecord) -> tuple[str, dict[str, bytes]] | None:
    """SKILL.md and the files of the version the add or last update stored, or None if gone."""
    for v in store.versions(record.skill):
        if v.content_hash == record.store_hash:
            text, files = store.version_text(record.skill, v.version)
            return text, {f.path: f.data for f in files}
    return None


def _group(records: list[SourceRecord]) -> dict[tuple[str, str, str | None], list[SourceRecord]]:
    groups: dict[tuple[str, str, str | None], list[SourceRecord]] = {}
    for r in records:
        groups.setdefault((r.source_type, r.url, r.ref), []).append(r)
    return groups


def outdated(store: Store, names: list[str] | None = None, *, interactive: bool = False,
             with_diffs: bool = True, visit: Callable[[Status], None] | None = None) -> list[Status]:
    """Where each followed skill (those named; all when None) stands against its source now.
    ``visit(status)`` is called for each while the source's files can still be read (an update
    takes them then)."""
    records = store.source_records(names)
    if names:
        unknown = sorted(set(names) - {r.skill for r in records})
        if unknown:
            raise SourceError(", ".join(unknown) + ": not added from a source (nothing to follow)")
    statuses: list[Status] = []
    for (kind, url, ref), group in _group(records).items():
        spec = SourceSpec(kind, group[0].source, url, ref, "")
        try:
            with snapshot(store, spec, interactive=interactive, wanted_paths={r.path for r in group}) as snap:
                items = snap.by_path()
                for r in group:
                    status = _status(store, r, items.get(r.path), snap.commit, with_diffs)
                    if visit is not None:
                        visit(status)
                    statuses.append(status)
        except (SourceError, GitError, OSError) as e:
            for r in group:
                status = Status(r.skill, r, UNREACHABLE, detail=str(e))
                if visit is not None:
                    visit(status)
                statuses.append(status)
    return sorted(statuses, key=lambda s: s.name)


def _status(store: Store, record: SourceRecord, item: Item | None, commit: str | None, with_diffs: bool) -> Status:
    where = f"{record.source}" + (f"/{record.path}" if record.path else "")
    if item is None:
        return Status(record.skill, record, GONE, commit, f"{where} is not in the source any more"
                      + (f" (commit {commit[:12]})" if commit else ""))
    if item.problem:
        return Status(record.skill, record, UNREACHABLE, commit, f"{where}: {item.problem}")
    try:
        data, files, source_hash = read_item(item)
        current = store.get(record.skill)
    except (FolderError, OSError) as e:
        return Status(record.skill, record, UNREACHABLE, commit, f"{where}: {e}")
    upstream = source_hash != record.source_hash
    here = current.content_hash != record.store_hash
    state = BOTH if upstream and here else UPSTREAM if upstream else HERE if here else CURRENT
    status = Status(record.skill, record, state, commit, item=item)
    if record.commit and commit and record.commit != commit:
        status.detail = f"{record.commit[:12]} → {commit[:12]}"
    if with_diffs and state != CURRENT:
        base = _taken(store, record)
        base_text, base_files = base if base is not None else ("", {})
        label = f"{record.skill} as taken" + (f" ({record.commit[:12]})" if record.commit else "")
        status.taken_text = base_text
        if upstream:
            status.upstream_text = data.decode("utf-8", "replace")
            status.upstream_files = _file_changes(base_files, {f.path: f.data for f in files})
            status.upstream_diff = _diff(base_text, status.upstream_text, label,
                                         f"{record.skill} upstream" + (f" ({commit[:12]})" if commit else ""),
                                         status.upstream_files)
        if here:
            status.studio_text = current.skill_md
            status.studio_files = _file_changes(base_files, {f.path: f.data for f in current.files})
            status.studio_diff = _diff(base_text, current.skill_md, label,
                                       f"{record.skill} in the studio (version {current.version})",
                                       status.studio_files)
    return status


@dataclass
class UpdateReport:
    updated: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)          # both changed; the studio's side kept
    conflicts: list[Status] = field(default_factory=list)  # both changed; no side chosen: nothing done
    current: list[str] = field(default_factory=list)
    gone: list[Status] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)        # "name: why"


def update(store: Store, names: list[str] | None = None, *, take: str | None = None, interactive: bool = False,
           author: str | None = None) -> UpdateReport:
    """Bring followed skills (those named; all when None) up to their sources. A skill changed on
    both sides is left alone unless ``take`` says which side wins: TAKE_UPSTREAM saves the
    source's files over the studio's edits (kept in the history), TAKE_STUDIO keeps the store
    and marks the source's change as seen."""
    if take not in (None, TAKE_UPSTREAM, TAKE_STUDIO):
        raise ValueError(f"take {TAKE_UPSTREAM!r} or {TAKE_STUDIO!r}")
    report = UpdateReport()

    def act(status: Status) -> None:
        if status.state in (CURRENT, HERE):
            report.current.append(status.name)
        elif status.state == GONE:
            report.gone.append(status)
        elif status.state == UNREACHABLE:
            report.failed.append(f"{status.name}: {status.detail}")
        elif status.state == BOTH and take is None:
            report.conflicts.append(status)
        elif status.state == BOTH and take == TAKE_STUDIO:
            assert status.item is not None
            _, _, source_hash = read_item(status.item)
            # the source's change is seen; the studio's edits stay "changed here"
            store.record_sources([_moved(status, source_hash, status.record.store_hash)])
            report.kept.append(status.name)
        else:
            try:
                _take_upstream(store, status, author)
                report.updated.append(status.name)
            except (StoreError, FolderError, OSError, SkillParseError, ValueError) as e:
                report.failed.append(f"{status.name}: {e}")

    outdated(store, names, interactive=interactive, with_diffs=True, visit=act)
    for found in (report.updated, report.kept, report.current, report.failed):
        found.sort()
    return report


def _moved(status: Status, source_hash: str, store_hash: str) -> SourceRecord:
    r = status.record
    return SourceRecord(status.name, r.source, r.source_type, r.url, r.ref, status.commit, r.path, source_hash,
                        store_hash, _now())


def _take_upstream(store: Store, status: Status, author: str | None) -> None:
    assert status.item is not None
    data, files, source_hash = read_item(status.item)
    try:
        current = store.get(status.name)
    except NotFound:
        raise StoreError(f"{status.name} is not in the library any more") from None
    skill = build_skill(data, status.item.folder.name, files, origin=current.origin,
                        source=f"{status.record.source}:{status.record.path or '.'}")
    if skill.name != current.name:   # named otherwise in the studio (renamed, or a second skill of one name)
        from skill_studio.core.format import skillmd
        from skill_studio.core.format.frontmatter import set_field

        text = set_field(skillmd.parse_document(data, skill.source_path or "SKILL.md"), "name", current.name)
        skill = build_skill(text.encode("utf-8"), current.folder_name or current.name, files,
                            origin=current.origin, source=f"{status.record.source}:{status.record.path or '.'}")
    spec = SourceSpec(status.record.source_type, status.record.source, status.record.url, status.record.ref, "")
    saved = store.update(status.name, skill, current.version, author=author,
                         note=f"updated from {describe_source(spec, status.commit)}")
    store.record_sources([replace(_moved(status, source_hash, saved.content_hash or ""), skill=saved.name)])


__all__ = ["AddReport", "BOTH", "CURRENT", "GONE", "HERE", "Listed", "Status", "TAKE_STUDIO", "TAKE_UPSTREAM",
           "UNREACHABLE", "UPSTREAM", "UpdateReport", "add", "list_source", "outdated", "update"]
