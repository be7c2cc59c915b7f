"""The Graph tab: the whole library and the skills around one, problems beside it, filters,
search, zoom, clicks, exports, and the window keeping it in step; screenshots to look at."""

from __future__ import annotations

import json
import time
import xml.etree.ElementTree as ET

import networkx as nx
import pytest
import shiboken6
from conftest import SCREENSHOTS, make
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from skill_studio.core.model import Lifecycle
from skill_studio.core.ops.changes import ChangeSet
from skill_studio.ui import theme
from skill_studio.ui.graph.graph_canvas import LABEL_SCALE
from skill_studio.ui.graph.graph_view import GraphView
from skill_studio.ui.settings import StudioSettings
from skill_studio.ui.shell.main_window import MainWindow


def skill(name, deps=(), conflicts=(), parent=None, lifecycle=Lifecycle.RELEASED):
    """A skill whose SKILL.md names its dependencies, conflicts and parent in its metadata."""
    meta = {k: v for k, v in (("depends-on", list(deps)), ("conflicts-with", list(conflicts)),
                              ("parent", parent)) if v}
    s = make(name, f"Does {name} work. Use when {name} is needed.", f"# {name}\n", meta=meta or None)
    assert (s.depends_on, s.conflicts_with, s.parent_skill_id) == (list(deps), list(conflicts), parent)
    s.lifecycle = lifecycle
    return s


LIBRARY = [
    skill("git-basics"), skill("commit-messages", ["git-basics"]),
    skill("release-notes", ["commit-messages", "changelog-format"]), skill("changelog-format"),
    skill("deploy", ["release-notes", "ci-runner"], lifecycle=Lifecycle.VERIFIED),
    skill("ci-runner", ["deploy"], lifecycle=Lifecycle.CANDIDATE),                       # a cycle
    skill("old-deploy", ["git-basics"], conflicts=["deploy"], lifecycle=Lifecycle.DEPRECATED),
    skill("hotfix", ["deploy", "missing-skill"], parent="deploy", lifecycle=Lifecycle.DEGRADED),
    skill("pdf-extract"), skill("pdf-forms", ["pdf-extract"], parent="pdf-extract"),
    skill("lint", conflicts=["format"]), skill("format", lifecycle=Lifecycle.VERIFIED),
]


@pytest.fixture
def graph_store(store):
    store.add_many([skill(s.name, s.depends_on, s.conflicts_with, s.parent_skill_id, s.lifecycle) for s in LIBRARY])
    return store


def loaded(qtbot, view):
    qtbot.waitUntil(lambda: view.prepared is not None and not view.is_running(), timeout=15000)
    return view


@pytest.fixture
def view(qtbot, graph_store):
    theme.apply_theme(QApplication.instance(), theme.LIGHT)
    v = GraphView(graph_store)
    qtbot.addWidget(v, before_close_func=lambda w: w.shutdown())
    v.resize(1280, 800)
    v.show()
    qtbot.waitExposed(v)
    v.reload()
    return loaded(qtbot, v)


def test_whole_library_with_ghosts_cycles_and_problems(view, qtbot):
    assert set(view.scene.nodes) == {s.name for s in LIBRARY} | {"missing-skill"}
    ghost = view.scene.nodes["missing-skill"]
    assert ghost.node.missing and ghost.pen().style() == Qt.DashLine
    assert view.scene.nodes["deploy"].in_cycle and view.scene.nodes["ci-runner"].in_cycle
    assert not view.scene.nodes["git-basics"].in_cycle
    texts = [view.problem_list.item(i).text() for i in range(view.problem_list.count())]
    assert any("ci-runner" in t and "deploy" in t and "cycle" in t.lower() for t in texts)
    assert any("missing-skill" in t for t in texts)
    assert any("lint" in t and "format" in t for t in texts)
    assert view.problems_title.text() == "Problems: 1 error, 2 warnings"
    tip = view.scene.nodes["deploy"].toolTip()   # what hovering shows
    assert "Does deploy work" in tip and "Verified" in tip and "utility" in tip and "freshness" in tip
    assert "trust 3 – Trusted" in tip and "Depends on: ci-runner, release-notes" in tip
    assert "Needed by: ci-runner, hotfix" in tip and "Conflicts with: old-deploy" in tip
    assert "Extended by: hotfix" in view.scene.nodes["deploy"].toolTip()
    assert view.status.text().startswith("13 of 13 skills")
    # prerequisites sit above what needs them
    y = {n: item.pos().y() for n, item in view.scene.nodes.items()}
    assert y["git-basics"] < y["commit-messages"] < y["release-notes"] < y["deploy"] < y["hotfix"]
    view.grab().save(str(SCREENSHOTS / "graph-library.png"))
    light = view.scene.nodes["deploy"].brush().color()
    theme.apply_theme(QApplication.instance(), theme.DARK)   # the graph follows the theme
    qtbot.waitUntil(lambda: view.scene.nodes["deploy"].brush().color() != light, timeout=3000)
    assert view.scene.backgroundBrush().color().lightness() < 80
    view.grab().save(str(SCREENSHOTS / "graph-library-dark.png"))
    theme.apply_theme(QApplication.instance(), theme.LIGHT)


def test_focus_on_a_skill_with_hops_and_the_problem_list(view, qtbot):
    view.set_selected("hotfix")
    view.depth.setValue(1)
    view.scope_combo.setCurrentIndex(1)   # around the selected skill
    loaded(qtbot, view)
    qtbot.waitUntil(lambda: set(view.scene.nodes) == {"hotfix", "deploy", "missing-skill"}, timeout=10000)
    assert view.scene.highlighted == {"hotfix"}
    view.depth.setValue(2)
    qtbot.waitUntil(lambda: "ci-runner" in view.scene.nodes and not view.is_running(), timeout=10000)
    assert {"release-notes", "old-deploy", "ci-runner", "missing-skill"} <= set(view.scene.nodes)
    assert "git-basics" not in view.scene.nodes and "pdf-forms" not in view.scene.nodes
    view.grab().save(str(SCREENSHOTS / "graph-focused-cycle-missing.png"))
    # a problem about skills out of view brings them in and outlines them
    row = next(i for i in range(view.problem_list.count()) if "lint" in view.problem_list.item(i).text())
    item = view.problem_list.item(row)
    qtbot.mouseClick(view.problem_list.viewport(), Qt.LeftButton,
                     pos=view.problem_list.visualItemRect(item).center())
    qtbot.waitUntil(lambda: {"lint", "format"} <= set(view.scene.nodes) and not view.is_running(), timeout=10000)
    qtbot.waitUntil(lambda: {"lint", "format"} <= view.scene.highlighted, timeout=5000)
    view.scope_combo.setCurrentIndex(0)
    qtbot.waitUntil(lambda: len(view.scene.nodes) == 13 and not view.is_running(), timeout=10000)


def test_filters_search_zoom_and_clicks(view, qtbot):
    deprecated = next(a for a in view.lifecycle_button.menu().actions() if a.data() == "deprecated")
    deprecated.setChecked(False)
    qtbot.waitUntil(lambda: "old-deploy" not in view.scene.nodes and not view.is_running(), timeout=10000)
    assert "deploy" in view.scene.nodes
    deprecated.setChecked(True)
    qtbot.waitUntil(lambda: "old-deploy" in view.scene.nodes and not view.is_running(), timeout=10000)

    view.search.setText("pdf")
    assert view.scene.highlighted == {"pdf-extract", "pdf-forms"}
    with qtbot.waitSignal(view.skillSelected) as sel:
        qtbot.keyClick(view.search, Qt.Key_Return)
    assert sel.args == ["pdf-extract"]
    view.search.clear()

    canvas = view.canvas
    canvas.fit()
    canvas.zoom_by(LABEL_SCALE / canvas.transform().m11() * 0.5)
    assert not view.scene.nodes["deploy"].label.isVisible()
    canvas.setFocus()
    qtbot.keyClick(canvas, Qt.Key_F)
    assert view.scene.nodes["deploy"].label.isVisible() == (canvas.transform().m11() >= LABEL_SCALE)
    canvas.resetTransform()
    canvas.centerOn(view.scene.nodes["deploy"])
    canvas.update_detail()
    assert view.scene.nodes["deploy"].label.isVisible()

    with qtbot.waitSignal(view.skillSelected) as sel:
        qtbot.mouseClick(canvas.viewport(), Qt.LeftButton, pos=canvas.point_of("deploy"))
    assert sel.args == ["deploy"] and "deploy" in view.scene.highlighted
    with qtbot.waitSignal(view.openRequested) as opened:
        qtbot.mouseDClick(canvas.viewport(), Qt.LeftButton, pos=canvas.point_of("deploy"))
    assert opened.args == ["deploy"]


def test_positions_are_kept_until_the_graph_changes(view, qtbot, graph_store, monkeypatch):
    from skill_studio.core.graph import layout as graph_layout

    calls = []
    real = graph_layout.LAYOUTS["layered"]
    monkeypatch.setitem(graph_layout.LAYOUTS, "layered", lambda g: calls.append(len(g)) or real(g))
    before = {n: item.pos() for n, item in view.scene.nodes.items()}
    s = graph_store.get("lint")   # a change that leaves the graph as it is
    graph_store.update("lint", skill("lint", conflicts=["format"]), s.version)
    assert view.apply_changes(ChangeSet.of(changed={"lint"}))
    qtbot.waitUntil(lambda: not view.is_running(), timeout=10000)
    assert calls == [] and {n: item.pos() for n, item in view.scene.nodes.items()} == before
    s = graph_store.get("format")   # a new edge: laid out again
    graph_store.update("format", skill("format", ["git-basics"], lifecycle=Lifecycle.VERIFIED), s.version)
    assert view.apply_changes(ChangeSet.of(changed={"format"}))
    qtbot.waitUntil(lambda: bool(calls) and not view.is_running(), timeout=10000)
    assert ("format", "git-basics", "depends") in view.prepared.view.edges()


def test_exports_parse_back(view, tmp_path):
    out = tmp_path / "exports"
    out.mkdir()
    paths = iter([out / "g.png", out / "g.svg", out / "g.graphml", out / "g.gv", out / "g.json", ""])
    view.ask_save_path = lambda title, name, flt: str(next(paths))
    for kind in ("png", "svg", "graphml", "dot", "json"):
        assert view.export(kind), kind
    assert not view.export("png")   # cancelled: nothing written
    image = QImage(str(out / "g.png"))
    assert not image.isNull() and image.width() > 400
    svg = ET.parse(out / "g.svg").getroot()
    assert svg.tag.endswith("svg") and "deploy" in (out / "g.svg").read_text()
    g = nx.read_graphml(out / "g.graphml")
    assert set(g.nodes) == {s.name for s in LIBRARY} | {"missing-skill"}
    assert g.has_edge("hotfix", "missing-skill")
    assert '"ci-runner"' in (out / "g.gv").read_text()
    data = json.loads((out / "g.json").read_text())
    assert {n["name"] for n in data["nodes"]} == set(g.nodes) and all("x" in n for n in data["nodes"])
    assert sorted(p.name for p in out.iterdir()) == ["g.graphml", "g.gv", "g.json", "g.png", "g.svg"]  # no leftovers
    assert {p.stat().st_mode & 0o777 for p in out.iterdir()} == {0o644}   # readable like any saved file


@pytest.fixture
def window(qtbot, graph_store, tmp_path):
    settings = StudioSettings(QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat))
    w = MainWindow(graph_store, settings)
    qtbot.addWidget(w, before_close_func=lambda w: w.feature("graph").view and w.feature("graph").view.shutdown())
    w.resize(1300, 820)
    w.show()
    qtbot.waitExposed(w)
    return w


def test_the_window_keeps_the_graph_in_step(window, qtbot, graph_store):
    window.browser.select_name("release-notes")
    window.actions["show_graph"].trigger()
    view = loaded(qtbot, window.feature("graph").view)
    assert window.workspace.currentWidget() is view
    assert view.scene.highlighted == {"release-notes"}
    window.browser.select_name("pdf-forms")       # the browser's selection is outlined
    assert view.scene.highlighted == {"pdf-forms"}
    with qtbot.waitSignal(view.skillSelected):
        qtbot.mouseClick(view.canvas.viewport(), Qt.LeftButton, pos=view.canvas.point_of("lint"))
    assert window.browser.selected_names() == ["lint"]
    s = graph_store.get("format")
    changed = skill("format", ["lint"], lifecycle=Lifecycle.VERIFIED)
    graph_store.update("format", changed, s.version)   # a change elsewhere shows up
    window.publish(ChangeSet.of(changed={"format"}))
    qtbot.waitUntil(lambda: ("format", "lint", "depends") in view.prepared.view.edges() and not view.is_running(),
                    timeout=10000)
    window.actions["show_graph"].trigger()
    ws = window.workspace
    assert [ws.tabText(i) for i in range(ws.count())].count("Graph") == 1   # opened once
    with qtbot.waitSignal(view.openRequested):
        qtbot.mouseDClick(view.canvas.viewport(), Qt.LeftButton, pos=view.canvas.point_of("deploy"))
    qtbot.waitUntil(lambda: window.workspace.current_designer() is not None, timeout=5000)
    assert window.workspace.current_designer().session.name == "deploy"
    # closed, the tab opens again; selections and changes meanwhile do no harm
    ws.close_designer(ws.indexOf(view))
    qtbot.waitUntil(lambda: not shiboken6.isValid(view), timeout=5000)   # the closed view is deleted
    window.browser.select_name("lint")
    window.publish(ChangeSet.of(changed={"lint"}))
    window.actions["show_graph"].trigger()
    again = loaded(qtbot, window.feature("graph").view)
    assert again is not view and ws.currentWidget() is again and again.scene.highlighted == {"lint"}


def test_big_graph_edges_drawn_from_pictures_look_the_same(view, qtbot, monkeypatch):
    """Zoomed in or out on a big graph, the edges come from a picture drawn once; it shows what
    the edge items themselves would."""
    from skill_studio.ui.graph import graph_canvas

    canvas = view.canvas

    def grab(pictured):
        monkeypatch.setattr(graph_canvas, "PICTURE_EDGES", 1 if pictured else 10 ** 9)
        monkeypatch.setattr(graph_canvas, "OVERVIEW_PIXELS", 10 ** 9 if pictured else 0)
        canvas._picture = None
        canvas.update_detail()
        return canvas.viewport().grab().toImage()

    def differing(a, b):
        """How far apart two frames look: mean grey difference after shrinking both 4 times
        (so a line drawn half a pixel aside counts for little, a line missing for much)."""
        small = [QImage(i).scaled(i.width() // 4, i.height() // 4, Qt.IgnoreAspectRatio, Qt.SmoothTransformation)
                 .convertToFormat(QImage.Format_Grayscale8) for i in (a, b)]
        w, h = small[0].width(), small[0].height()
        total = sum(abs(small[0].pixelColor(x, y).value() - small[1].pixelColor(x, y).value())
                    for x in range(w) for y in range(h))
        return total / (w * h)

    def bare():   # a picture with nothing in it: what missing edges would look like
        with monkeypatch.context() as m:
            m.setattr(view.scene, "render_edges", lambda image, source: None)
            m.setattr(view.scene, "render_overview", lambda image, source: None)
            return grab(True)

    for scale in (1.0, 0.3):   # life size; zoomed out past the labels
        canvas.resetTransform()
        canvas.scale(scale, scale)
        canvas.centerOn(view.scene.nodes["release-notes"])
        pictured = grab(True)
        assert not view.scene.edges_shown
        direct = grab(False)
        assert view.scene.edges_shown   # drawn by the items themselves
        assert differing(pictured, direct) < differing(bare(), direct) / 5, scale
    canvas.horizontalScrollBar().setValue(canvas.horizontalScrollBar().value() + 900)   # out of the picture
    pictured, direct = grab(True), grab(False)
    assert differing(pictured, direct) < differing(bare(), direct) / 5


def test_filters_that_hide_the_focus_the_search_hits_or_everything(view, qtbot):
    told = []
    view.tell = lambda title, text: told.append(text)
    view.set_selected("old-deploy")
    view.layout_combo.setCurrentIndex(view.layout_combo.findData("radial"))
    view.scope_combo.setCurrentIndex(1)
    qtbot.waitUntil(lambda: not view.is_running() and "old-deploy" in view.scene.nodes, timeout=10000)
    view.search.setText("old-deploy")
    assert view._hits == ["old-deploy"]
    deprecated = next(a for a in view.lifecycle_button.menu().actions() if a.data() == "deprecated")
    deprecated.setChecked(False)      # hides the focused skill and the search hit
    qtbot.waitUntil(lambda: not view.is_running() and "old-deploy" not in view.scene.nodes, timeout=10000)
    assert told == [] and view.scene.nodes   # laid out around what is left, layered
    assert view._hits == []
    qtbot.keyClick(view.search, Qt.Key_Return)   # nothing to go to, nothing breaks
    view.scope_combo.setCurrentIndex(0)
    view.canvas.resetTransform()
    view.canvas.scale(0.3, 0.3)
    for action in view.lifecycle_button.menu().actions():   # nothing at all to show
        action.setChecked(False)
    qtbot.waitUntil(lambda: not view.is_running() and not view.scene.nodes, timeout=10000)
    view.canvas.update_detail()
    assert not view.canvas.viewport().grab().isNull() and told == []
    assert view.status.text().startswith("0 of 13 skills")


def test_closing_while_a_reload_waits_starts_nothing_more(view, qtbot, monkeypatch):
    from skill_studio.ui.graph import graph_view

    real = graph_view.prepare

    def held(*args, cancelled, **kwargs):   # the first load goes on until it is cancelled
        for _ in range(6000):
            if cancelled():
                break
            time.sleep(0.01)
        return real(*args, cancelled=cancelled, **kwargs)

    monkeypatch.setattr(graph_view, "prepare", held)
    view.reload()
    view.apply_changes(ChangeSet.outside())   # a second load waits for the first
    assert view.is_running() and view._again
    thread = view._thread
    view.shutdown()                   # cancels the first load and waits for its thread
    assert not thread.isRunning()
    # The first load's result arrives after the shutdown: it ends the run, and starts nothing more.
    qtbot.waitUntil(lambda: not view.is_running(), timeout=10000)
    assert view._thread is thread and not thread.isRunning() and not view._again
