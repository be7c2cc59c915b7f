"""Start to the first painted cards: ``skill-studio --store DB`` on a 100,000-skill store, from
process start to the first paint of the card view, against a bare window over the same store.

Usage: python benchmarks/bench_start.py [--db PATH | --n 100000] [--runs 7] [--root TREE]

Three fresh processes, run in turn (interleaved), each figure the minimum over the runs:
- project: the real start (``skill_studio.cli.main.main(["--store", DB])``: parser, store,
  application, main window), stopped at the first paint event of the card view's viewport;
- floor: a bare PySide6 QMainWindow with a QListView over a QAbstractListModel holding the
  store's skill names (read with sqlite3, one query), stopped at the list's first paint;
- hello: an empty QMainWindow's first paint (no store), for scale.
Each child runs offscreen with its own empty settings folder (the welcome page marked as seen,
as on every start after the first). Without --db the store is the synthetic one bench_query.py
builds (built if missing); a store given with --db is measured as it is, on a copy that the
children open (see stores.py): neither the measured code nor this script writes the store given.
Target: project at most 1.2x the floor (wall clock). The same figures as CPU time of each child
(from its start to the paint) follow: on a busy machine they vary less than the wall clock.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WINDOW = (1280, 800)   # the main window's first size


PAINTED: list[float] = []


def _report_first_paint(widget, t0: float) -> None:
    """Print seconds from ``t0`` to ``widget``'s first paint event, then end the process (or, with
    BENCH_START_QUIT=1, quit the application so that a profiler can write its figures)."""
    from PySide6.QtCore import QCoreApplication, QEvent, QObject

    class Spy(QObject):
        def eventFilter(self, obj, event):  # noqa: N802 - Qt's virtual
            if event.type() == QEvent.Paint and not PAINTED:
                PAINTED.append(time.time() - t0)
                cpu = time.process_time()   # this process's own work, less swayed by other processes
                sys.stdout.write(f"{PAINTED[0]:.4f} {cpu:.4f}\n")
                sys.stdout.flush()
                if not os.environ.get("BENCH_START_QUIT"):
                    os._exit(0)
                QCoreApplication.quit()
            return False

    widget._bench_spy = Spy(widget)   # kept alive with the widget
    widget.installEventFilter(widget._bench_spy)


def child_project(db: str, t0: float) -> None:
    from skill_studio.ui.shell import main_window

    show = main_window.MainWindow.show

    def show_and_watch(window) -> None:
        _report_first_paint(window.browser.card_view.viewport(), t0)
        show(window)

    main_window.MainWindow.show = show_and_watch   # type: ignore[method-assign]
    from skill_studio.cli.main import main

    main(["--store", db])
    if not PAINTED:
        print("nan")


def child_floor(db: str, t0: float, with_store: bool) -> None:
    import sqlite3

    from PySide6.QtCore import QAbstractListModel, QModelIndex, Qt
    from PySide6.QtWidgets import QApplication, QListView, QMainWindow

    app = QApplication([])
    names: list[str] = []
    if with_store:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        names = [n for (n,) in conn.execute("SELECT name FROM skill_cards ORDER BY name")]

    class Names(QAbstractListModel):
        def rowCount(self, parent=QModelIndex()):  # noqa: N802 - Qt's virtual
            return 0 if parent.isValid() else len(names)

        def data(self, index, role=Qt.DisplayRole):
            return names[index.row()] if role == Qt.DisplayRole else None

    window = QMainWindow()
    window.setWindowTitle("floor")
    if with_store:
        view = QListView(window)
        view.setUniformItemSizes(True)
        model = Names(view)
        view.setModel(model)
        window.setCentralWidget(view)
        watched = view.viewport()
    else:
        watched = window
    window.resize(*WINDOW)
    _report_first_paint(watched, t0)
    window.show()
    app.exec()
    if not PAINTED:
        print("nan")


def _settings_home() -> str:
    """An empty settings folder in which the welcome page was seen already."""
    home = tempfile.mkdtemp(prefix="bench-start-")
    folder = Path(home) / "skill-studio"
    folder.mkdir()
    (folder / "Skill Studio.conf").write_text("[help]\nwelcome_shown=true\n")
    return home


def _run(kind: str, db: Path, root: Path | None) -> tuple[float, float]:
    """Seconds from the start to the first paint: (wall clock, the child's CPU time)."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=_settings_home())
    env.pop("PYTHONDONTWRITEBYTECODE", None)   # compiled once (the warm-up run), as on a user's machine
    if root is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(root.resolve()), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    t0 = time.time()
    out = subprocess.run([sys.executable, __file__, "--child", kind, "--db", str(db), "--t0", repr(t0)],
                         env=env, capture_output=True, text=True, timeout=120)
    lines = out.stdout.strip().splitlines()
    try:
        wall, cpu = (float(x) for x in lines[-1].split())
        return wall, cpu
    except (IndexError, ValueError):
        raise SystemExit(f"bench_start: the {kind} child gave no time:\n"
                         f"{out.stdout[-500:]}{out.stderr[-2000:]}") from None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", type=Path, help="measure this store (on a copy: it is not written)")
    ap.add_argument("--n", type=int, help="skills in the synthetic store (default 100,000)")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--root", type=Path, default=None, help="run the project from this checkout")
    ap.add_argument("--child", choices=("project", "floor", "hello"), help=argparse.SUPPRESS)
    ap.add_argument("--t0", type=float, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child == "project":
        child_project(str(args.db), args.t0)
        return
    if args.child in ("floor", "hello"):
        child_floor(str(args.db), args.t0, args.child == "floor")
        return

    sys.path.insert(0, str(HERE))
    # The synthetic store is built by the code measured: a checkout before a schema change cannot
    # open a store a newer one migrated (its start would stop at the store's error dialog).
    sys.path.insert(0, str((args.root or ROOT).resolve()))
    import stores

    def build(path: Path, n: int) -> None:
        from bench_query import build as add

        from skill_studio.core.store import Store

        with Store(path) as store:
            add(store, n - len(store), start=len(store))

    with stores.measured(args.db, args.n, build, program="bench_start") as measured:
        print(f"{measured.summary}; {args.runs} runs each, interleaved, minima; project from {args.root or ROOT}",
              flush=True)
        measure(measured.path, measured.skills, args.runs, args.root)


def measure(db: Path, count: int, runs: int, root: Path | None) -> None:
    times: dict[str, list[tuple[float, float]]] = {"project": [], "floor": [], "hello": []}
    for kind in times:   # warm the file cache once (and let the project open a given store's copy once)
        _run(kind, db, root)
    for _ in range(runs):
        for kind in times:
            times[kind].append(_run(kind, db, root))
    project, floor, hello = (min(w for w, _ in times[k]) * 1000 for k in ("project", "floor", "hello"))
    print(f"start to first painted cards ({count:,} skills): project {project:.0f} ms, floor {floor:.0f} ms, "
          f"ratio {project / floor:.2f} (target <= 1.2); a bare empty window: {hello:.0f} ms "
          f"(project {project / hello:.1f}x)", flush=True)
    project, floor, hello = (min(c for _, c in times[k]) * 1000 for k in ("project", "floor", "hello"))
    print(f"  the same as CPU time of the process (less swayed by a busy machine): project {project:.0f} ms, "
          f"floor {floor:.0f} ms, ratio {project / floor:.2f}; a bare empty window: {hello:.0f} ms", flush=True)


if __name__ == "__main__":
    main()
