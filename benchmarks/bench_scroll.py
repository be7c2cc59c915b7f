"""Scrolling the card view top to bottom, offscreen, next to its floor: a bare QListView over the
same number of rows, laid out and scrolled the same way, with a trivial delegate.

Usage: python benchmarks/bench_scroll.py [--db PATH] [--sizes 10000,100000,300000] [--runs 3]
                                         [--frames 400] [--wheel 600]

Two ways of scrolling, each timed frame by frame (set the scroll bar, repaint, let events run):
"jump" drags the bar from top to bottom in --frames steps (every frame shows new cards, fetched
from the store), "wheel" turns the wheel a notch at a time (--wheel frames, three card rows a
notch, much of each frame was on the one before). The project and the floor alternate, --runs
times; the figures are the minima over the runs of each run's worst frame and 99th percentile.

Sizes above the store's own count repeat its skills under new names (the cards come from the
store all the same), so 300,000 or 1,000,000 rows need only the 100,000-skill synthetic store
that bench_query.py builds (built here too if missing). A store given with --db is used as it
is, on a copy, and never written (see stores.py).

Targets: worst frame <= 16 ms, p99 <= 10 ms.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

WORST_TARGET, P99_TARGET = 16.0, 10.0
VIEW_SIZE = (1200, 820)   # the card area of a 1400 x 900 window: four columns


class Tiled:
    """A store of ``size`` rows made of the real store's skills repeated under suffixed names."""

    def __init__(self, store, size: int):
        self._store = store
        base = store.names()
        self._names = [base[i % len(base)] + (f"~{i // len(base)}" if i >= len(base) else "")
                       for i in range(size)]

    def names(self, *_args, **_kwargs) -> list[str]:
        return list(self._names)

    def cards(self, names: list[str]):
        real = [n.split("~")[0] for n in names]
        by_name = {s.name: s for s in self._store.cards(real)}
        out = []
        for name, base in zip(names, real):
            skill = by_name.get(base)
            if skill is not None:
                skill = skill.model_copy(update={"name": name}) if hasattr(skill, "model_copy") \
                    else _renamed(skill, name)
                out.append(skill)
        return out

    def __getattr__(self, attr):
        return getattr(self._store, attr)


def _renamed(skill, name: str):
    import copy

    twin = copy.copy(skill)
    twin.name = name
    return twin


def _percentile(times: list[float], q: float) -> float:
    ts = sorted(times)
    return ts[min(len(ts) - 1, int(round(q * (len(ts) - 1))))]


def _scroll(app, view, values: list[int]) -> list[float]:
    bar = view.verticalScrollBar()
    frames = []
    for value in values:
        t0 = time.perf_counter()
        bar.setValue(value)
        view.viewport().repaint()
        app.processEvents()
        frames.append((time.perf_counter() - t0) * 1000)
    return frames


def _positions(view, kind: str, frames: int, wheel: int) -> list[int]:
    bar = view.verticalScrollBar()
    if kind == "jump":
        step = max(1, bar.maximum() // frames)
        return list(range(0, bar.maximum() + 1, step))
    from PySide6.QtWidgets import QApplication

    notch = max(1, bar.singleStep() * QApplication.wheelScrollLines())   # what one wheel notch scrolls
    start = bar.maximum() // 3
    return [min(bar.maximum(), start + i * notch) for i in range(wheel)]


def _floor_view(rows: int, card: tuple[int, int]):
    from PySide6.QtCore import QSize, Qt
    from PySide6.QtGui import QColor, QStandardItemModel
    from PySide6.QtWidgets import QAbstractItemView, QListView, QStyledItemDelegate

    class Trivial(QStyledItemDelegate):
        def sizeHint(self, option, index):  # noqa: N802 - Qt's virtual
            return QSize(*card)

        def paint(self, painter, option, index):
            painter.fillRect(option.rect.adjusted(5, 5, -5, -5), QColor("#eef1f6"))

    view = QListView()
    view.setFlow(QListView.LeftToRight)
    view.setWrapping(True)
    view.setMovement(QListView.Static)
    view.setResizeMode(QListView.Adjust)
    view.setUniformItemSizes(True)
    view.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
    view.setVerticalScrollBarPolicy(Qt.ScrollBarAlwaysOn)
    view.setVerticalScrollMode(QAbstractItemView.ScrollPerPixel)
    view.setItemDelegate(delegate := Trivial(view))
    view._delegate = delegate  # type: ignore[attr-defined]  # kept alive with the view
    model = QStandardItemModel(rows, 1, view)
    view.setModel(model)
    return view


def _idle(app, model, limit: float = 60.0) -> None:
    """Let the project's background checks of the cards it showed finish (they would otherwise
    run during the next pass, the floor's as well)."""
    deadline = time.monotonic() + limit
    while model.verdicts.busy() and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.005)


def _project_view(store, app):
    from skill_studio.ui.library.card_view import CardView
    from skill_studio.ui.library.models import SkillListModel

    model = SkillListModel(store)
    view = CardView()
    view.setModel(model)
    model.reload()
    return view, model


def measure(store, rows: int, runs: int, frames: int, wheel: int, app) -> dict[str, dict[str, list]]:
    project, model = _project_view(Tiled(store, rows) if rows != len(store) else store, app)
    project.resize(*VIEW_SIZE)
    project.show()
    app.processEvents()
    card = project.visualRect(model.index(0, 0)).size()
    floor = _floor_view(model.rowCount(), (card.width(), card.height()))
    floor.resize(*VIEW_SIZE)
    floor.show()
    app.processEvents()
    results: dict[str, dict[str, list]] = {"jump": {"project": [], "floor": []},
                                           "wheel": {"project": [], "floor": []}}
    for _ in range(runs):
        for kind in ("jump", "wheel"):
            for who, view in (("project", project), ("floor", floor)):
                _idle(app, model)
                results[kind][who].append(_scroll(app, view, _positions(view, kind, frames, wheel)))
    model.verdicts.shutdown()
    project.close()
    floor.close()
    project.deleteLater()
    floor.deleteLater()
    app.processEvents()
    return results


def report(rows: int, results: dict[str, dict[str, list]]) -> None:
    for kind, by in results.items():
        worst = {who: min(max(f) for f in runs) for who, runs in by.items()}
        p99 = {who: min(_percentile(f, 0.99) for f in runs) for who, runs in by.items()}
        p50 = {who: min(_percentile(f, 0.5) for f in runs) for who, runs in by.items()}
        n = len(by["project"][0])
        print(f"scroll {kind} {rows:,} cards ({n} frames) worst frame: project {worst['project']:.1f} ms, "
              f"floor {worst['floor']:.1f} ms, ratio {worst['project'] / worst['floor']:.1f} "
              f"(target <= {WORST_TARGET:.0f} ms)")
        print(f"scroll {kind} {rows:,} cards p99: project {p99['project']:.1f} ms, floor {p99['floor']:.1f} ms, "
              f"ratio {p99['project'] / p99['floor']:.1f} (target <= {P99_TARGET:.0f} ms); "
              f"p50 {p50['project']:.1f} / {p50['floor']:.1f} ms", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", type=Path, help="scroll the cards of this store (on a copy: it is not written)")
    ap.add_argument("--sizes", default="100000")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--frames", type=int, default=400)
    ap.add_argument("--wheel", type=int, default=600)
    ap.add_argument("--dark", action="store_true", help="the dark theme")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    import stores

    from skill_studio.core.store import Store

    def build_to(path: Path, n: int) -> None:
        from bench_query import build

        with Store(path) as store:
            build(store, n - len(store), start=len(store))

    with stores.measured(args.db, None, build_to, program="bench_scroll") as measured, \
            Store(measured.path) as store:
        run(store, measured.summary, sizes, args)


def run(store, summary: str, sizes: list[int], args: argparse.Namespace) -> None:
    from PySide6.QtWidgets import QApplication

    from skill_studio.ui import theme

    app = QApplication.instance() or QApplication([])
    theme.apply_theme(app, theme.DARK if args.dark else theme.LIGHT)
    print(f"{summary}; view {VIEW_SIZE[0]} x {VIEW_SIZE[1]}, {args.runs} runs", flush=True)
    for rows in sizes:
        report(rows, measure(store, rows, args.runs, args.frames, args.wheel, app))


if __name__ == "__main__":
    main()
