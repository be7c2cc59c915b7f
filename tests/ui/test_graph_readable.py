"""The whole-library graph as a new user meets it on a big library: the skills without relations
set apart and hidden (counted, and shown on request), clusters apart, names whole when zoomed in,
a legend of what is drawn, Find zooming in, the problems panel only when there are problems, the
toolbar fitting 1024x700, and a slow layout showing progress and stopping on Cancel."""

from __future__ import annotations

import threading

import pytest
from conftest import make
from layout_fit import fit_problems
from PySide6.QtCore import QSize
from PySide6.QtWidgets import QApplication

from skill_studio.core.graph.dependencies import EDGE_TERMS, MARK_TERMS
from skill_studio.core.model import LIFECYCLE_TERMS, Lifecycle
from skill_studio.ui import theme
from skill_studio.ui.graph import graph_view
from skill_studio.ui.graph.graph_canvas import READABLE_SCALE
from skill_studio.ui.graph.graph_prep import BIG_LIBRARY
from skill_studio.ui.graph.graph_view import GraphView

LONG = "code-review-security-checklist-for-python-services"


def skill(name, deps=(), conflicts=(), parent=None, lifecycle=Lifecycle.RELEASED):
    meta = {k: v for k, v in (("depends-on", list(deps)), ("conflicts-with", list(conflicts)),
                              ("parent", parent)) if v}
    s = make(name, f"Does {name} work. Use when {name} is needed.", f"# {name}\n", meta=meta or None)
    s.lifecycle = lifecycle
    return s


ALONE = [f"standalone-helper-{i:03d}" for i in range(BIG_LIBRARY + 20)]
CLUSTERS = [
    skill("git-basics"), skill("commit-messages", ["git-basics"]), skill(LONG, ["commit-messages"]),
    skill("deploy", ["ci-runner"], lifecycle=Lifecycle.VERIFIED),
    skill("ci-runner", ["deploy"], lifecycle=Lifecycle.CANDIDATE),                        # a cycle
    skill("hotfix", ["deploy", "missing-skill"], parent="deploy", lifecycle=Lifecycle.DEGRADED),
    skill("lint", conflicts=["format"]), skill("format", lifecycle=Lifecycle.VERIFIED),
    skill("pdf-extract"), skill("pdf-forms", ["pdf-extract"], parent="pdf-extract"),
]


def loaded(qtbot, view):
    qtbot.waitUntil(lambda: view.prepared is not None and not view.is_running(), timeout=15000)
    return view


def open_view(qtbot, store, size=(1280, 800)):
    theme.apply_theme(QApplication.instance(), theme.LIGHT)
    v = GraphView(store)
    qtbot.addWidget(v, before_close_func=lambda w: w.shutdown())
    v.resize(*size)
    v.show()
    qtbot.waitExposed(v)
    v.reload()
    return loaded(qtbot, v)


@pytest.fixture
def big_store(store):
    store.add_many([skill(n) for n in ALONE] + CLUSTERS)
    return store


@pytest.fixture
def clean_store(store):
    store.add_many([skill(n) for n in ALONE[:20]] + [skill("a"), skill("b", ["a"]), skill("c", parent="a")])
    return store


def related():
    return {s.name for s in CLUSTERS} | {"missing-skill"}


def test_skills_without_relations_are_hidden_counted_and_shown_on_request(qtbot, big_store):
    view = open_view(qtbot, big_store)
    assert set(view.scene.nodes) == related()
    count = len(ALONE)
    assert f"{count} skills without relations hidden" in view.status.full_text()
    assert not view.isolated_box.isChecked() and f"({count})" in view.isolated_box.text()
    view.isolated_box.setChecked(True)
    qtbot.waitUntil(lambda: not view.is_running() and len(view.scene.nodes) == len(related()) + count,
                    timeout=10000)
    assert "without relations hidden" not in view.status.full_text()
    nodes = view.scene.nodes
    below = max(nodes[n].sceneBoundingRect().bottom() for n in related())
    assert min(nodes[n].sceneBoundingRect().top() for n in ALONE) > below      # gathered apart, below
    view.layout_combo.setCurrentIndex(view.layout_combo.findData("spring"))   # the choice is kept
    qtbot.waitUntil(lambda: not view.is_running() and view.prepared.scope.layout == "spring", timeout=10000)
    assert view.isolated_box.isChecked() and len(view.scene.nodes) == len(related()) + count
    view.isolated_box.setChecked(False)
    qtbot.waitUntil(lambda: not view.is_running() and set(view.scene.nodes) == related(), timeout=10000)


def test_a_small_library_shows_every_skill(qtbot, clean_store):
    view = open_view(qtbot, clean_store)
    assert len(view.scene.nodes) == 23 and view.isolated_box.isChecked()
    assert "hidden" not in view.status.full_text()


@pytest.mark.parametrize("layout", ["layered", "spring"])
def test_clusters_do_not_overlap(qtbot, big_store, layout):
    view = open_view(qtbot, big_store)
    view.layout_combo.setCurrentIndex(view.layout_combo.findData(layout))
    qtbot.waitUntil(lambda: not view.is_running() and view.prepared.scope.layout == layout, timeout=10000)
    groups = [{"git-basics", "commit-messages", LONG}, {"deploy", "ci-runner", "hotfix", "missing-skill"},
              {"lint", "format"}, {"pdf-extract", "pdf-forms"}]
    rects = [view.scene.bounds_of(g) for g in groups]
    for i, a in enumerate(rects):
        for b in rects[i + 1:]:
            assert not a.intersects(b)
    boxes = [view.scene.nodes[n].sceneBoundingRect() for n in view.scene.nodes]
    assert not any(a.intersects(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])


def test_names_are_whole_at_a_readable_zoom_and_the_tooltip_tells_the_relations(qtbot, big_store):
    view = open_view(qtbot, big_store)
    item = view.scene.nodes[LONG]
    assert item.shown_name() == LONG and "…" not in item.label.text()
    assert len(item.lines) == 2 and all(line for line in item.lines)   # broken at a hyphen, not cut
    assert item.label.boundingRect().width() <= item.boundingRect().width()
    view.canvas.zoom_to(item.sceneBoundingRect())
    assert item.label.isVisible()
    view.canvas.zoom_by(0.2)                        # far out: boxes only
    assert not item.label.isVisible()
    tip = item.toolTip()
    assert LONG in tip and "Released" in tip and "trust" in tip and "Depends on: commit-messages" in tip


def test_the_legend_lists_each_style_the_scene_draws(qtbot, big_store):
    view = open_view(qtbot, big_store)
    used = view.scene.used
    assert {"released", "verified", "candidate", "degraded", "missing", "cycle", "depends", "conflicts",
            "parent", "ghost"} <= used
    assert used <= set(view.legend.keys())
    texts = "\n".join(view.legend.texts())
    for state in (Lifecycle.RELEASED, Lifecycle.DEGRADED):
        assert LIFECYCLE_TERMS[state].label in texts and LIFECYCLE_TERMS[state].meaning in texts
    for terms in (*EDGE_TERMS.values(), *MARK_TERMS.values()):
        assert terms.label in texts
    assert "deprecated" not in view.legend.keys()            # not drawn, not listed
    assert "§" not in texts


def test_find_zooms_to_the_skill_selects_it_and_outlines_its_neighbours(qtbot, big_store):
    view = open_view(qtbot, big_store)
    view.canvas.fit()
    view.search.setText("deploy")
    with qtbot.waitSignal(view.skillSelected) as sel:
        view.search.returnPressed.emit()
    assert sel.args == ["deploy"] and view.selected == "deploy"
    item = view.scene.nodes["deploy"]
    on_screen = view.canvas.mapFromScene(item.sceneBoundingRect()).boundingRect()
    assert on_screen.width() >= 150 and view.canvas.viewport().rect().contains(on_screen)
    assert item.label.isVisible() and view.canvas.transform().m11() >= READABLE_SCALE
    assert "deploy" in view.scene.highlighted and {"ci-runner", "hotfix"} <= view.scene.near
    view.search.setText("pdf")
    view.search.returnPressed.emit()
    view.search.returnPressed.emit()                # Enter: the next match
    assert view.selected == "pdf-forms" and "2 of 2" in view.status.full_text()
    view.search.setText("standalone-helper-007")     # hidden: the status line says why
    view.search.returnPressed.emit()
    assert "no relations" in view.status.full_text()


def test_problems_panel_only_when_there_are_problems(qtbot, big_store, clean_store_factory):
    view = open_view(qtbot, big_store)
    assert view.problems_side.isVisible() and view.problem_list.count() == 3
    assert view.problems_note.text() == "3 problems"
    view.problems_note.click()                       # the note hides and shows the list
    assert not view.problems_side.isVisible()
    view.problems_note.click()
    assert view.problems_side.isVisible()
    clean = open_view(qtbot, clean_store_factory())
    assert not clean.problems_side.isVisible() and clean.problems_note.text() == "No problems"
    assert clean.canvas.width() > clean.width() - 40   # the canvas takes the whole width


@pytest.fixture
def clean_store_factory(tmp_path):
    from skill_studio.core.store import Store

    def make_store():
        s = Store(tmp_path / "clean.db")
        s.add_many([skill("a"), skill("b", ["a"]), skill("c", parent="a")])
        return s
    return make_store


def settled_fit_problems(qtbot, view, size):
    """The view's fit problems once its layouts have taken the texts just set (they lay out later)."""
    try:
        qtbot.waitUntil(lambda: not fit_problems(view, QSize(*size)), timeout=2000)
    except qtbot.TimeoutError:
        pass
    return fit_problems(view, QSize(*size))


@pytest.mark.parametrize("size", [(1024, 700), (1280, 800)])
def test_the_view_fits(qtbot, big_store, size):
    view = open_view(qtbot, big_store, size)
    assert settled_fit_problems(qtbot, view, size) == []
    view.problems_note.click()                       # the problems list hidden
    assert settled_fit_problems(qtbot, view, size) == []
    view.scope_combo.setCurrentIndex(1)              # around a skill: the hops show instead
    qtbot.waitUntil(lambda: not view.is_running(), timeout=10000)
    assert view.depth.isVisible() and not view.isolated_box.isVisible()
    assert settled_fit_problems(qtbot, view, size) == []


def test_a_slow_layout_shows_progress_and_stops_on_cancel(qtbot, big_store, monkeypatch):
    view = open_view(qtbot, big_store)
    before = set(view.scene.nodes)
    release = threading.Event()
    real = graph_view.prepare

    def slow(store, scope, cache, *, progress=None, cancelled=None):
        progress("Laying out the graph", 1, 3)
        while not cancelled() and not release.wait(0.01):
            pass
        if cancelled():
            raise InterruptedError("cancelled")
        return real(store, scope, cache, progress=progress, cancelled=cancelled)

    monkeypatch.setattr(graph_view, "prepare", slow)
    monkeypatch.setattr(graph_view, "PROGRESS_DELAY", 0)
    view.reload()
    qtbot.waitUntil(lambda: view.cancel_button.isVisible() and view.progress.isVisible(), timeout=5000)
    qtbot.waitUntil(lambda: view.progress.maximum() == 3, timeout=5000)
    view.cancel_button.click()
    qtbot.waitUntil(lambda: not view.is_running(), timeout=5000)
    assert not view.cancel_button.isVisible() and "Stopped" in view.status.full_text()
    assert set(view.scene.nodes) == before          # the graph shown before stays
    release.set()
