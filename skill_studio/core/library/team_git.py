"""A team's library in a git repository: a linked folder (core.library.linked) that is a git
working copy, kept in step with the team through git, and a selection published as a new one.

This is the user's own repository: git runs there with the user's config and hooks, as it would
from a terminal (unlike a source's repository, core.sources.git, which is never trusted).

- ``state``: branch, upstream, commits ahead and behind, changed files;
- ``pull``: the studio's saves are written to the folder first (a sync); the team's commits are
  merged; then the folder is synced again, so their changes come in as new versions. A skill
  changed by the team and also in the studio (saved, not yet pushed) is a two-sided change, as in
  a sync: nothing is pulled until each such skill has a side chosen (``keep``: "team" or
  "studio"); the side not kept stays in the store's history;
- ``commit``: everything changed in the folder, with a message made of the save notes;
- ``push``;
- ``publish``: skills written as a new repository, with a README index and a plugin marketplace
  file (``.claude-plugin/marketplace.json``), committed, ready for the ``skills`` tool and Claude
  Code's marketplaces.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from skill_studio.core.library import linked
from skill_studio.core.library.folder_write import export_folder
from skill_studio.core.sources.git import git_program

TEAM, STUDIO = "team", "studio"


class TeamError(Exception):
    """A git step failed or cannot be taken now (the message says what to do)."""


def _git(folder: Path, *args: str, data: bytes | None = None, interactive: bool = False) -> str:
    env = {**os.environ, "LC_ALL": "C"}
    if not interactive:
        env["GIT_TERMINAL_PROMPT"] = "0"
    try:
        done = subprocess.run([git_program(), "-C", str(folder), *args], input=data, capture_output=True, env=env,
                              timeout=600, stdin=None if data is not None else subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise TeamError(f"git {args[0]} took longer than 10 minutes and was stopped") from None
    if done.returncode != 0:
        words = [w.strip() for w in (done.stderr + done.stdout).decode("utf-8", "replace").splitlines() if w.strip()]
        raise TeamError(f"git {args[0]} in {folder}: " + ("; ".join(words[-3:]) or "failed"))
    return done.stdout.decode("utf-8", "replace")


@dataclass
class TeamState:
    folder: str
    branch: str = ""
    upstream: str = ""           # "" when the branch follows none
    ahead: int = 0
    behind: int = 0
    changed: list[str] = field(default_factory=list)   # paths (relative to the repository) changed or new

    def describe(self) -> str:
        if not self.upstream:
            where = f"on {self.branch or 'no branch'}, following no remote branch"
        elif self.ahead or self.behind:
            where = f"on {self.branch}: {self.ahead} commit(s) to push, {self.behind} to pull"
        else:
            where = f"on {self.branch}, in step with {self.upstream}"
        return where + (f"; {len(self.changed)} changed file(s) to commit" if self.changed else "")


def is_working_copy(folder: str | os.PathLike) -> bool:
    try:
        return _git(Path(folder), "rev-parse", "--is-inside-work-tree").strip() == "true"
    except TeamError:
        return False


def state(folder: str | os.PathLike, *, fetch: bool = False, interactive: bool = False) -> TeamState:
    """Where the working copy at ``folder`` stands (after fetching the team's commits when ``fetch``)."""
    folder = Path(folder)
    if not is_working_copy(folder):
        raise TeamError(f"{folder}: not a git working copy (clone the team's repository, then link the clone)")
    out = TeamState(str(folder))
    if fetch and _has_upstream(folder):
        _git(folder, "fetch", "--quiet", interactive=interactive)
    records = iter(_git(folder, "status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all", "--",
                        ".").split("\0"))
    for record in records:
        if record.startswith("# branch.head "):
            out.branch = record.split(" ", 2)[2]
        elif record.startswith("# branch.upstream "):
            out.upstream = record.split(" ", 2)[2]
        elif record.startswith("# branch.ab "):
            ahead, behind = record.split(" ")[2:4]
            out.ahead, out.behind = int(ahead), -int(behind)
        elif record[:2] in ("1 ", "2 ", "u "):
            out.changed.append(record.split(" ", {"1": 8, "2": 9, "u": 10}[record[0]])[-1])
            if record[0] == "2":   # a rename: the path it had comes as the next record
                out.changed.append(next(records, ""))
        elif record.startswith("? "):
            out.changed.append(record[2:])
    return out


def _has_upstream(folder: Path) -> bool:
    try:
        return bool(_git(folder, "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}").strip())
    except TeamError:
        return False


def _upstream(folder: Path) -> str:
    try:
        return _git(folder, "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}").strip()
    except TeamError:
        raise TeamError(f"{folder}: the branch follows no remote branch (git push -u origin BRANCH once)") from None


@dataclass(frozen=True)
class TeamConflict:
    """A skill the team changed and the studio changed too, since they last met."""

    path: str          # the skill's folder, relative to the linked folder
    team_text: str     # its SKILL.md as the team has it now
    studio_text: str   # as the studio wrote it to the folder


def _skill_folder(root: Path, rel: str, tree: set[str]) -> str | None:
    parts = Path(rel).parts
    for i in range(len(parts) - 1, 0, -1):
        candidate = "/".join(parts[:i])
        if (root / candidate / "SKILL.md").exists() or f"{candidate}/SKILL.md" in tree:
            return candidate
    return "." if (root / "SKILL.md").exists() else None


def _changed_paths(folder: Path, *args: str) -> list[str]:
    return [p for p in _git(folder, "diff", "--name-only", "--relative", "-z", *args).split("\0") if p]


def _both_sides(folder: Path) -> tuple[str, set[str], set[str | None], set[str | None], list[str]]:
    """(upstream, the team's tree as paths in the folder, the skill folders the team changed, those
    changed here, the files outside any skill folder changed on both sides)."""
    upstream = _upstream(folder)
    prefix = _git(folder, "rev-parse", "--show-prefix").strip()
    listed = _git(folder, "ls-tree", "-r", "-z", "--name-only", "--full-name", upstream).split("\0")
    tree = {p[len(prefix):] for p in listed if p and p.startswith(prefix)}
    incoming = _changed_paths(folder, f"HEAD...{upstream}", "--", ".")
    st = state(folder)
    top = Path(_git(folder, "rev-parse", "--show-toplevel").strip())
    here = folder.resolve()
    local = [str((top / p).relative_to(here)) for p in st.changed if (top / p).is_relative_to(here)]
    local += _changed_paths(folder, f"{upstream}...HEAD", "--", ".")
    theirs = {_skill_folder(folder, p, tree) for p in incoming}
    ours = {_skill_folder(folder, p, tree) for p in local}
    loose = sorted({p for p in incoming if _skill_folder(folder, p, tree) is None} &
                   {p for p in local if _skill_folder(folder, p, tree) is None})
    return upstream, tree, theirs, ours, loose


def conflicts(folder: str | os.PathLike) -> list[TeamConflict]:
    """The skills changed both by the team (fetched, not merged) and here (saved or committed,
    not pushed)."""
    return _conflicts(Path(folder), _both_sides(Path(folder)))


def _conflicts(folder: Path, sides: tuple) -> list[TeamConflict]:
    upstream, _tree, theirs, ours, _loose = sides
    prefix = _git(folder, "rev-parse", "--show-prefix").strip()
    out = []
    for path in sorted(p for p in theirs & ours if p is not None):
        rel = f"{prefix}{path}/SKILL.md" if path != "." else f"{prefix}SKILL.md"
        try:
            team_text = _git(folder, "show", f"{upstream}:{rel}")
        except TeamError:
            team_text = ""   # deleted by the team
        md = folder / path / "SKILL.md"
        studio_text = md.read_text(encoding="utf-8", errors="replace") if md.exists() else ""
        out.append(TeamConflict(path, team_text, studio_text))
    return out


@dataclass
class PullReport:
    state: TeamState
    conflicts: list[TeamConflict] = field(default_factory=list)   # not pulled: choose a side for each
    syncs: list[linked.SyncReport] = field(default_factory=list)
    pulled: bool = False


def _read_tree(folder: Path) -> dict[str, bytes]:
    """The files of a skill folder (never git's own: a skill may be the linked folder itself)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*")
            if p.is_file() and not p.is_symlink() and ".git" not in p.relative_to(folder).parts}


def _set_aside(folder: Path, path: str) -> None:
    """The skill folder ``path`` as the last commit has it (or gone, when it is new here)."""
    if _git(folder, "ls-tree", "--name-only", "HEAD", "--", path).strip():
        _git(folder, "checkout", "HEAD", "--", path)
    _git(folder, "clean", "-fdq", "--", path)


def _replace_folder(target: Path, files: dict[str, bytes]) -> None:
    """``target`` holding exactly ``files`` (any other file in it removed)."""
    if target.is_dir():
        for p in sorted(target.rglob("*"), reverse=True):
            if ".git" in p.relative_to(target).parts:
                continue
            rel = str(p.relative_to(target))
            if (p.is_file() or p.is_symlink()) and rel not in files:
                p.unlink()
            elif p.is_dir() and not any(p.iterdir()):
                p.rmdir()
    for rel, data in files.items():
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        (target / rel).write_bytes(data)


def pull(store, folder: str | os.PathLike, *, keep: dict[str, str] | None = None,
         interactive: bool = False) -> PullReport:
    """Bring the team's commits into the folder and the store (see the module docstring)."""
    folder = Path(folder).resolve()
    keep = dict(keep or {})
    if str(folder) not in linked.linked_folders(store):
        raise TeamError(f"{folder}: not linked to this store (link it first)")
    syncs = linked.sync(store, folder)
    if any(r.conflicts for r in syncs):
        raise TeamError(f"{folder}: the folder and the studio disagree on a skill already; settle the sync "
                        "conflicts first (Linked folders…, or skill-studio sync --keep-…)")
    upstream = _upstream(folder)
    _git(folder, "fetch", "--quiet", interactive=interactive)
    st = state(folder)
    report = PullReport(st, syncs=syncs)
    if not st.behind:
        return report
    sides = _both_sides(folder)
    found = _conflicts(folder, sides)
    bad = [k for k, side in keep.items() if side not in (TEAM, STUDIO)]
    if bad:
        raise ValueError(f"keep {TEAM!r} or {STUDIO!r}")
    open_ones = [c for c in found if c.path not in keep]
    if open_ones:
        report.conflicts = open_ones
        return report
    loose = sides[4]
    if loose:
        raise TeamError(f"{folder}: {', '.join(loose[:5])} changed by the team and here, outside any skill; "
                        "commit or undo that change in git first. Nothing was pulled.")
    _merge(folder, upstream, st.ahead > 0, {c.path: keep[c.path] for c in found})
    report.syncs = linked.sync(store, folder)
    report.state = state(folder)
    report.pulled = True
    return report


def _merge(folder: Path, upstream: str, diverged: bool, sides: dict[str, str]) -> None:
    """Merge ``upstream`` into the working copy, each skill of ``sides`` taking the side named there.

    Both sides of such a skill stay safe until the merge is done: the studio's files in memory (and
    in the store), the team's in its commits. If anything fails, the working copy is put back as it
    was (the studio's files included) and TeamError says why."""
    studio = {path: _read_tree(folder / path) for path in sides if (folder / path).is_dir()}
    for path in sides:
        _set_aside(folder, path)
    stashed = bool(state(folder).changed)
    if stashed:
        _git(folder, "stash", "push", "--include-untracked", "--quiet", "-m", "skill-studio: before pull", "--", ".")
    before = _git(folder, "rev-parse", "HEAD").strip()

    def undo(why: str) -> TeamError:
        subprocess.run([git_program(), "-C", str(folder), "merge", "--abort"], capture_output=True)
        subprocess.run([git_program(), "-C", str(folder), "reset", "--quiet", "--keep", before],
                       capture_output=True)
        if stashed:
            subprocess.run([git_program(), "-C", str(folder), "stash", "pop", "--quiet"], capture_output=True)
        for path, files in studio.items():   # nothing pulled: the studio's files back as they were
            _replace_folder(folder / path, files)
        return TeamError(f"{why}; nothing was pulled")

    try:
        if not diverged:
            _git(folder, "merge", "--quiet", "--ff-only", upstream)
        else:   # the studio's commits and the team's: each two-sided skill takes its side, then one commit
            try:
                _git(folder, "merge", "--no-ff", "--no-commit", "--quiet", upstream)
            except TeamError:
                pass   # conflicts: the two-sided skills are settled below, anything else refuses the pull
            for path, side in sides.items():
                source = upstream if side == TEAM else "HEAD"
                if _git(folder, "ls-tree", "--name-only", source, "--", path).strip():
                    _git(folder, "restore", f"--source={source}", "--staged", "--worktree", "--", path)
                else:
                    _git(folder, "rm", "-r", "-q", "--cached", "--ignore-unmatch", "--", path)
                    _git(folder, "clean", "-fdq", "--", path)
            unmerged = _changed_paths(folder, "--diff-filter=U", "--", ".")
            if unmerged:
                raise TeamError(f"git merge in {folder}: {', '.join(unmerged[:5])} changed on both sides")
            _git(folder, "commit", "--quiet", "--no-edit", "--allow-empty")
    except TeamError as e:
        raise undo(str(e)) from None
    if stashed:
        try:
            _git(folder, "stash", "pop", "--quiet")
        except TeamError as e:
            raise undo(f"{e} (an edit here and the team's change meet)") from None
    for path, side in sides.items():   # the studio's side, exactly, over the team's
        if side == STUDIO and path in studio:
            _replace_folder(folder / path, studio[path])


def commit_message(store, folder: Path, changed: list[str]) -> str:
    """A message made of the save notes of the skills whose folders changed."""
    names: list[str] = []
    links = store.setting(linked.SETTING, {}).get(str(folder), {}).get("skills", {})
    for path, rec in sorted(links.items()):
        if any(c == path or c.startswith(path.rstrip("/") + "/") for c in changed) and rec.get("name"):
            names.append(rec["name"])
    if not names:
        return "Update skills"
    lines = []
    for name in names:
        try:
            v = store.versions(name)[0]
        except IndexError:
            continue
        lines.append(f"- {name} v{v.version}: {v.note or 'saved'}")
    head = f"Update {', '.join(names[:4])}" + (f" and {len(names) - 4} more" if len(names) > 4 else "")
    return head + "\n\n" + "\n".join(lines) + "\n"


def commit(store, folder: str | os.PathLike, message: str | None = None) -> str:
    """Commit everything changed in the folder (the studio's saves are written there first); the
    new commit's id. TeamError when there is nothing to commit."""
    folder = Path(folder).resolve()
    if str(folder) not in linked.linked_folders(store):
        raise TeamError(f"{folder}: not linked to this store (link it first)")
    linked.sync(store, folder)
    st = state(folder)
    if not st.changed:
        raise TeamError(f"{folder}: nothing to commit")
    top = Path(_git(folder, "rev-parse", "--show-toplevel").strip())
    local = [str((top / p).relative_to(folder)) for p in st.changed if (top / p).is_relative_to(folder)]
    _git(folder, "add", "--all", "--", ".")
    # only the linked folder: whatever else is staged in the repository stays staged, uncommitted
    _git(folder, "commit", "--quiet", "-F", "-", "--", ".",
         data=(message or commit_message(store, folder, local)).encode())
    return _git(folder, "rev-parse", "HEAD").strip()


def push(folder: str | os.PathLike, *, interactive: bool = False) -> TeamState:
    folder = Path(folder).resolve()
    _upstream(folder)
    _git(folder, "push", "--quiet", interactive=interactive)
    return state(folder)


def publish(store, names: list[str], dest: str | os.PathLike, *, title: str | None = None,
            owner: str | None = None) -> Path:
    """Write the named skills as a new git repository at ``dest`` (an empty or new folder): the
    skills under ``skills/``, a README index and a plugin marketplace file, committed."""
    dest = Path(dest)
    if dest.exists() and any(dest.iterdir()):
        raise TeamError(f"{dest}: not empty; publish into a new folder")
    skills = [store.get(n) for n in names]
    if not skills:
        raise TeamError("name the skills to publish")
    dest.mkdir(parents=True, exist_ok=True)
    for skill in skills:
        export_folder(skill, dest / "skills")
    name = title or dest.name
    rows = "\n".join(f"| [{s.name}](skills/{s.folder_name or s.name}/SKILL.md) | "
                     f"{' '.join((s.description or '').split()).replace('|', '/')} |" for s in skills)
    (dest / "README.md").write_text(
        f"# {name}\n\n{len(skills)} agent skill(s), published from Skill Studio.\n\n"
        f"Add them with `npx skills add OWNER/REPO`, `skill-studio add OWNER/REPO`, or in Claude Code with "
        f"`/plugin marketplace add OWNER/REPO`.\n\n| skill | what it does |\n|---|---|\n{rows}\n", encoding="utf-8")
    market = {"name": name, "owner": {"name": owner or store.actor},
              "plugins": [{"name": name, "description": f"{len(skills)} skill(s) published from Skill Studio",
                           "source": "./", "strict": False,
                           "skills": [f"./skills/{s.folder_name or s.name}" for s in skills]}]}
    (dest / ".claude-plugin").mkdir()
    (dest / ".claude-plugin" / "marketplace.json").write_text(json.dumps(market, indent=2) + "\n", encoding="utf-8")
    _git(dest, "init", "--quiet", "-b", "main")
    _git(dest, "add", "--all")
    _git(dest, "commit", "--quiet", "-m", f"Publish {len(skills)} skill(s) from Skill Studio")
    return dest


__all__ = ["STUDIO", "TEAM", "PullReport", "TeamConflict", "TeamError", "TeamState", "commit", "commit_message",
           "conflicts", "is_working_copy", "publish", "pull", "push", "state"]
