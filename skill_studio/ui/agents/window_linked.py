"""Linked folders in the main window: File ▸ Link a folder of skills… and Linked folders…; the
linked folders are watched, and every change on disk or save in the studio starts a sync (after a
short pause); a conflict is shown with both versions side by side for the user to choose.

The folders are read, watched and caught up with after the window's first paint; the dialogs
(:mod:`.linked_dialogs`) and the sync's code load when first needed."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QFileSystemWatcher, QTimer
from PySide6.QtWidgets import QFileDialog

from skill_studio.core.ops.changes import ChangeSet
from skill_studio.ui.safe_text import information
from skill_studio.ui.shell.feature import ActionSpec, Feature, any_selected, at

if TYPE_CHECKING:
    from skill_studio.core.library import linked

SYNC_DELAY_MS = 600


def __getattr__(name: str) -> Any:
    """The dialogs, still found here (they live in :mod:`.linked_dialogs`, loaded on first use)."""
    if name in ("ConflictDialog", "LinksDialog"):
        from skill_studio.ui.agents import linked_dialogs

        return getattr(linked_dialogs, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _linked():
    """The linked folders' core (its import reads the folder format's modules: not at start)."""
    from skill_studio.core.library import linked

    return linked


class LinkedFeature(Feature):
    id = "linked"

    def __init__(self, shell):
        super().__init__(shell)
        self.pick_folder = lambda: QFileDialog.getExistingDirectory(shell, "Folder of skills to link")
        self.pick_new_folder = lambda: QFileDialog.getExistingDirectory(shell, "An empty folder for the repository")
        self.ask_conflict = self._ask_conflict        # (conflict) -> "disk" | "studio" | None
        self.ask_team_conflict = self._ask_team_conflict   # the same, "disk" being the team's side
        self.tell = lambda text: information(shell, "Linked folders", text)
        self.last: list[linked.SyncReport] = []
        self._syncing = False
        self._waiting: set[str] = set()               # conflicts already asked about (folder/path)
        self.watch = QFileSystemWatcher(shell)
        self.watch.directoryChanged.connect(lambda _p: self.schedule())
        self.watch.fileChanged.connect(lambda _p: self.schedule())
        self.timer = QTimer(shell, singleShot=True, interval=SYNC_DELAY_MS)
        self.timer.timeout.connect(self.sync)

    @staticmethod
    def summary(report: linked.SyncReport) -> str:
        """What a sync did, in a line (for the status bar and the dialogs)."""
        return summary(report)

    def action_specs(self) -> list[ActionSpec]:
        return [
            ActionSpec("link_folder", "&Link a folder of skills…", self.link_folder, None,
                       "Keep the library in step with a folder of skills, such as a team's checkout",
                       places=(at("File", 3, 10),)),
            ActionSpec("linked_folders", "Lin&ked folders…", self.show_links, None,
                       "The linked folders: sync now or unlink; a team's git working copy: pull, commit, push",
                       places=(at("File", 3, 11),)),
            ActionSpec("publish_repository", "&Publish selection as a repository…", self.publish, None,
                       "Write the selected skills as a new git repository: skills/, a README index and a plugin "
                       "marketplace file, ready for the skills tool and Claude Code", places=(at("File", 3, 12),),
                       enabled=any_selected),
        ]

    def publish(self, folder: str | None = None) -> str | None:
        """Publish the selected skills into a new folder (asked for); returns the folder, or None."""
        from skill_studio.core.library import team_git

        names = self.shell.selected_names()
        if not names:
            return None
        folder = folder or self.pick_new_folder()
        if not folder:
            return None
        try:
            dest = team_git.publish(self.shell.store, names, folder)
        except (team_git.TeamError, OSError) as e:
            self.tell(f"Nothing was published: {e}")
            return None
        self.tell(f"Published {len(names)} skill(s) as a git repository in {dest}. Add the team's remote and push "
                  "it (git remote add origin URL, then git push -u origin main); link the folder to keep it in step "
                  "with the library.")
        return str(dest)

    def attach(self) -> None:
        self.shell.after_first_paint(self._start)

    def _start(self) -> None:
        self.rewatch()
        if _linked().linked_folders(self.shell.store):   # catch up with what changed while the studio was closed
            self.timer.start()

    def changes_applied(self, changes: ChangeSet) -> None:
        if changes.skills or changes.unknown:
            self.schedule()

    def shutdown(self) -> None:
        self.timer.stop()   # no sync starts after the window is gone

    # --- linking ----------------------------------------------------------------------

    def link_folder(self, folder: str | None = None) -> linked.SyncReport | None:
        folder = folder or self.pick_folder()
        if not folder:
            return None
        linked = _linked()
        try:
            report = linked.link(self.shell.store, folder)
        except linked.LinkError as e:
            self.tell(str(e))
            return None
        self._after([report])
        self.tell(f"Linked {folder}: {summary(report)}")
        return report

    def show_links(self) -> None:
        from skill_studio.ui.agents.linked_dialogs import LinksDialog

        dialog = LinksDialog(self, self.shell)
        dialog.exec()

    # --- keeping in step --------------------------------------------------------------

    def schedule(self) -> None:
        if self.shell.isVisible() and not self._syncing and _linked().linked_folders(self.shell.store):
            self.timer.start()

    def sync(self) -> list[linked.SyncReport]:
        self.timer.stop()
        w, linked = self.shell, _linked()
        if not w.isVisible() or not linked.linked_folders(w.store):   # a closed window's store may be closed
            return []
        self._syncing = True
        try:
            reports = linked.sync(w.store)
        except Exception as e:   # noqa: BLE001 - a slot must not raise: the next change tries again
            w.show_status(f"Linked folders: the sync stopped: {e}", 12000)
            return []
        finally:
            self._syncing = False
        self._after(reports)
        return reports

    def conflicts(self) -> list[linked.Conflict]:
        """The conflicts of the last sync."""
        return [c for r in self.last for c in r.conflicts]

    def _after(self, reports: list[linked.SyncReport]) -> None:
        w = self.shell
        self.last = reports
        self.rewatch()
        if any(r.imported or r.gone_on_disk or r.renamed for r in reports):
            self._publish(sync_changes(reports))
        done = [summary(r) for r in reports if r.changed or r.errors or r.conflicts]
        if done:
            w.show_status("Linked folders: " + "; ".join(done), 12000)
        current = {f"{c.folder}/{c.path}" for c in self.conflicts()}
        self._waiting &= current   # settled elsewhere: a new conflict there is asked about again
        for c in self.conflicts():
            key = f"{c.folder}/{c.path}"
            if key not in self._waiting:
                self._waiting.add(key)
                self.settle(c)

    def settle(self, conflict: linked.Conflict) -> bool:
        """Ask which side of a conflict to keep, and keep it; True when it was settled."""
        w, linked = self.shell, _linked()
        choice = self.ask_conflict(conflict)
        if choice not in ("disk", "studio"):
            return False
        try:
            linked.resolve(w.store, conflict, choice)
        except (linked.LinkError, OSError) as e:
            self.tell(f"{conflict.name} was not changed: {e}")
            self._waiting.discard(f"{conflict.folder}/{conflict.path}")
            self.schedule()
            return False
        self._waiting.discard(f"{conflict.folder}/{conflict.path}")
        for r in self.last:
            r.conflicts = [c for c in r.conflicts if c is not conflict]
        if choice == "disk":
            self._publish(ChangeSet.of(changed=[conflict.name], label="linked folders"))
        self.schedule()
        return True

    # --- a linked folder that is a team's git working copy ------------------------------

    def team_state(self, folder: str) -> str | None:
        """Where the folder's working copy stands (without fetching), or None when it is not one."""
        from skill_studio.core.library import team_git

        try:
            return team_git.state(folder).describe() if team_git.is_working_copy(folder) else None
        except team_git.TeamError as e:
            return str(e)

    def team(self, folder: str, action: str) -> str:
        """Check, pull, commit or push the folder's working copy (on a worker thread, with a progress
        dialog); a skill changed by the team and in the studio is asked about before anything is
        pulled. Returns what happened, in a line."""
        from skill_studio.core.library import team_git

        keep: dict[str, str] = {}
        while True:
            run = self._team_run(folder, action, keep)
            if run.error:
                return run.error
            ok, result = run.result   # type: ignore[misc]
            if not ok:
                return str(result)
            if action == "status":
                return str(result)
            if action == "commit":
                self.schedule()
                return f"Committed {str(result)[:12]} in {folder}."
            if action == "push":
                return f"Pushed: {result}"
            report: team_git.PullReport = result   # type: ignore[assignment]
            if report.conflicts:
                for c in report.conflicts:
                    side = self.ask_team_conflict(self._as_conflict(folder, c))
                    if side is None:
                        return "Nothing was pulled: a skill changed by the team and in the studio waits for a choice."
                    keep[c.path] = team_git.TEAM if side == "disk" else team_git.STUDIO
                continue
            self._after(report.syncs)
            return f"Pulled; {report.state.describe()}" if report.pulled else f"Nothing to pull; " \
                f"{report.state.describe()}"

    def _team_run(self, folder: str, action: str, keep: dict[str, str]):
        from skill_studio.core.library import team_git
        from skill_studio.ui.long_task import TaskRun, run_in_progress_dialog

        def work(store, progress, cancelled):
            try:   # (done, what it gave or why not)
                if action == "status":
                    return True, team_git.state(folder, fetch=True).describe()
                if action == "commit":
                    return True, team_git.commit(store, folder)
                if action == "push":
                    return True, team_git.push(folder).describe()
                return True, team_git.pull(store, folder, keep=keep)
            except (team_git.TeamError, _linked().LinkError) as e:
                return False, str(e)

        words = {"status": "Fetching the team's commits…", "pull": "Pulling…", "commit": "Committing…",
                 "push": "Pushing…"}[action]
        self._syncing = True   # the folder's files change under git: one sync after, not one per file
        try:
            return run_in_progress_dialog(self.shell, "Team repository", words, TaskRun(work, self.shell.store,
                                                                                         self.shell, "team"))
        finally:
            self._syncing = False

    def _as_conflict(self, folder: str, c) -> linked.Conflict:
        return _linked().Conflict(folder, c.path, c.path, c.team_text, c.studio_text)

    def _ask_team_conflict(self, conflict: linked.Conflict) -> str | None:
        from skill_studio.ui.agents.linked_dialogs import ConflictDialog

        dialog = ConflictDialog(conflict, self.shell, titles=("The team's", "In the studio"),
                                keeps=("Take the team's", "Keep the studio's"),
                                why="was changed by the team and in the studio since they last met.")
        dialog.exec()
        return dialog.choice

    def _publish(self, changes: ChangeSet) -> None:
        self._syncing = True   # what the views do with it is not a change to write back
        try:
            self.shell.publish(changes)
        finally:
            self._syncing = False

    def _ask_conflict(self, conflict: linked.Conflict) -> str | None:
        from skill_studio.ui.agents.linked_dialogs import ConflictDialog

        dialog = ConflictDialog(conflict, self.shell)
        dialog.exec()
        return dialog.choice

    def rewatch(self) -> None:
        """Watch each linked folder and its skills' folders and files (set again only when they change)."""
        from skill_studio.core.library.folders import discover

        paths = set()
        for folder in _linked().linked_folders(self.shell.store):
            root = Path(folder)
            if root.is_dir():
                paths.add(str(root))
                for skill in discover(root):
                    paths.add(str(skill))
                    paths.update(str(p) for p in skill.rglob("*") if not p.is_symlink())   # edits in place too
        watched = set(self.watch.directories()) | set(self.watch.files())   # Qt drops paths that went away
        if paths == watched:
            return
        if watched - paths:
            self.watch.removePaths(sorted(watched - paths))
        if paths - watched:
            self.watch.addPaths(sorted(paths - watched))


def summary(r: linked.SyncReport) -> str:
    parts = [f"{len(r.imported)} imported" if r.imported else "", f"{len(r.written)} written back" if r.written else "",
             f"renamed on disk: {', '.join(r.renamed)}" if r.renamed else "",
             f"{len(r.conflicts)} changed on both sides" if r.conflicts else "",
             f"{len(r.gone_on_disk)} removed on disk (kept)" if r.gone_on_disk else "",
             f"{len(r.gone_in_store)} deleted in the studio (folders kept)" if r.gone_in_store else "",
             f"{len(r.errors)} could not be read: {r.errors[0]}" if r.errors else ""]
    return ", ".join(p for p in parts if p) or "in step"


def sync_changes(reports: list[linked.SyncReport]) -> ChangeSet:
    """What a sync changed in the store: the skills read from disk (new or changed there, and those
    renamed on disk, under their new names)."""
    names = [n for r in reports for n in r.imported] + [e.split(" → ")[-1] for r in reports for e in r.renamed]
    return ChangeSet.of(added=names, links=True, label="linked folders")
