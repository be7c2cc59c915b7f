"""Text a downloaded skill brings (name, description, tags, reasons, file paths, messages quoting
them) shows literally in every label, tooltip and message of the app: Qt never reads it as HTML
that could load a file or carry a link."""

from __future__ import annotations

import pytest
from conftest import SCREENSHOTS
from PySide6 import QtGui
from PySide6.QtCore import QEvent, QModelIndex, QPoint, QSettings, Qt, QTimer
from PySide6.QtGui import QHelpEvent, QImage, QTextDocument
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QGraphicsView,
    QLabel,
    QMessageBox,
    QStyleOptionViewItem,
    QTabBar,
    QToolTip,
    QWidget,
)

from skill_studio.core.format.diagnostics import err
from skill_studio.core.health.checks import PlannedAction
from skill_studio.core.library import linked
from skill_studio.core.library.folders import build_skill
from skill_studio.core.model import Lifecycle, Origin, SkillFile, TrustTier
from skill_studio.core.store import Store
from skill_studio.ui import safe_text
from skill_studio.ui.agents.install_dialog import InstallDialog
from skill_studio.ui.agents.query_panel import QueryPanel
from skill_studio.ui.agents.window_linked import ConflictDialog as LinkedConflictDialog
from skill_studio.ui.designer.conflict import ConflictDialog
from skill_studio.ui.designer.editor import CodeEditor
from skill_studio.ui.designer.files_panel import FilesPanel
from skill_studio.ui.designer.problems import ProblemsPanel
from skill_studio.ui.graph.graph_view import GraphView
from skill_studio.ui.health.health_models import PairModel, PlanModel
from skill_studio.ui.library.browser import BrowserWidget
from skill_studio.ui.library.card_delegate import CardFonts, card_layout
from skill_studio.ui.library.detail_panel import DetailPanel
from skill_studio.ui.library.models import SkillListModel
from skill_studio.ui.review.queue_view import ReviewQueueView
from skill_studio.ui.settings import StudioSettings
from skill_studio.ui.shell.main_window import MainWindow

SPY_COLOUR = "#e0119d"
#: Link targets hostile text tries to plant (trust:4 would raise a skill's trust from the detail panel).
PLANTED = ("trust:4", "evil.invalid", "javascript")


class RecordingDocument(QTextDocument):
    """A document like the one a label or tooltip builds, noting every resource it asks for."""

    def __init__(self) -> None:
        super().__init__()
        self.requested: list[str] = []

    def loadResource(self, type_, url):  # noqa: N802 (Qt override)
        self.requested.append(url.toString())
        return QImage() if type_ == QTextDocument.ResourceType.ImageResource.value else ""


def live_parts(text: str, fmt: Qt.TextFormat = Qt.TextFormat.AutoText) -> list[str]:
    """The resources a label or tooltip showing *text* in format *fmt* would load, and the planted
    link targets it would carry: [] when it is inert."""
    if not text or fmt == Qt.TextFormat.PlainText:
        return []
    if fmt == Qt.TextFormat.AutoText and not QtGui.Qt.mightBeRichText(text):
        return []
    doc = RecordingDocument()
    doc.setHtml(text)
    doc.size()
    found = [f"loads {u}" for u in doc.requested]
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            href = it.fragment().charFormat().anchorHref()
            if any(p in href for p in PLANTED):
                found.append(f"links {href}")
            it += 1
        block = block.next()
    return found


def _indexes(model, parent=QModelIndex(), limit=400):
    try:
        columns = model.columnCount(parent)
    except TypeError:   # a list model keeps columnCount private
        columns = 1
    for row in range(min(model.rowCount(parent), limit)):
        for col in range(columns):
            index = model.index(row, col, parent)
            yield index
            if col == 0 and model.rowCount(index) > 0:
                yield from _indexes(model, index, limit)


def reads(text: str) -> str:
    """What a tooltip or auto-format label showing *text* puts on the screen."""
    if not safe_text.reads_as_html(text):
        return text
    doc = QTextDocument()
    doc.setHtml(text)
    return doc.toPlainText()


def surfaces(root: QWidget) -> list[tuple[str, str, Qt.TextFormat]]:
    """(where, text, format) for every label, tooltip, item tooltip and scene tooltip under root."""
    found = []
    for w in [root, *root.findChildren(QWidget)]:
        where = w.objectName() or type(w).__name__
        if w.toolTip():
            found.append((f"tooltip of {where}", w.toolTip(), Qt.TextFormat.AutoText))
        if isinstance(w, QLabel):
            found.append((f"label {where}", w.text(), w.textFormat()))
        if isinstance(w, QAbstractItemView) and w.model() is not None:
            for index in _indexes(w.model()):
                tip = index.data(Qt.ItemDataRole.ToolTipRole)
                if isinstance(tip, str):
                    found.append((f"item tooltip in {where}", tip, Qt.TextFormat.AutoText))
        if isinstance(w, QTabBar):
            found += [(f"tab tooltip in {where}", w.tabToolTip(i), Qt.TextFormat.AutoText) for i in range(w.count())]
        if isinstance(w, QGraphicsView) and w.scene() is not None:
            found += [(f"scene tooltip in {where}", i.toolTip(), Qt.TextFormat.AutoText)
                      for i in w.scene().items() if i.toolTip()]
    return found


def assert_inert(root: QWidget, *, expect_hostile: bool = True) -> None:
    seen = surfaces(root)
    live = [(where, text[:80], parts) for where, text, fmt in seen if (parts := live_parts(text, fmt))]
    assert live == []
    if expect_hostile:   # the hostile text did reach the surfaces checked
        assert any("<img" in text or "&lt;img" in text for _, text, _ in seen)


def spy_shown(widget: QWidget) -> bool:
    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    data, c = bytes(image.constBits()), QtGui.QColor(SPY_COLOUR)
    pattern, at = bytes((c.blue(), c.green(), c.red(), 0xFF)), 0
    while (at := data.find(pattern, at)) >= 0:
        if at % 4 == 0:
            return True
        at += 1
    return False


@pytest.fixture(scope="module")
def spy(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("outside") / "spy.png"
    image = QImage(40, 30, QImage.Format.Format_ARGB32)
    image.fill(QtGui.QColor(SPY_COLOUR))
    image.save(str(path))
    return str(path)


@pytest.fixture
def hostile(spy):
    img = f'<img src="{spy}">'
    return {
        "name": f"evil{img}",
        "description": f'{img} <a href="trust:4">raise trust</a> <a href="https://evil.invalid/">x</a>. '
                       "Use when testing.",
        "dependency": f"helper{img}",
        "tag": img,
        "file": f"refs/{img}.md",
        "img": img,
    }


@pytest.fixture
def store(tmp_path, hostile):
    md = (f"---\nname: '{hostile['name']}'\ndescription: '{hostile['description']}'\nmetadata:\n"
          f"  tags: ['{hostile['tag']}']\n  depends-on: ['{hostile['dependency']}']\n---\n# Body\n\nSteps.\n")
    near = md.replace("name: 'evil", "name: 'twin")
    with Store(tmp_path / "store.db", actor="tester") as s:
        for text, folder in ((md, "evil"), (near, "twin")):   # the store keeps folder names plain
            skill = build_skill(text.encode(), folder, [SkillFile(hostile["file"], b"x")], origin=Origin.LLM,
                                source="download")
            s.add(skill)
            s.set_state(skill.name, author="tester", reason=f"{hostile['img']} moved", lifecycle=skill.lifecycle,
                        trust_tier=skill.trust_tier, pinned=False, lifecycle_reason=f"{hostile['img']} why")
        yield s


def shown(qtbot, widget: QWidget, size=(1100, 700)) -> QWidget:
    qtbot.addWidget(widget)
    widget.resize(*size)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def test_literal_shows_any_text_exactly_and_inertly(qapp, spy):
    for text in (f'<img src="{spy}">', f'a <b>b</b>\n<img src="{spy}">', "&lt;img&gt; &amp;", "plain & simple",
                 '<a href="trust:4">x</a>', "<qt><img src='data:image/png;base64,AAAA'></qt>"):
        shown_text = safe_text.literal(text)
        assert live_parts(shown_text) == []
        assert reads(shown_text) == text


def test_detail_panel(qtbot, store, hostile):
    panel = shown(qtbot, DetailPanel(store), (420, 900))
    panel.show_skill(hostile["name"])
    assert panel.plain_text("name") == hostile["name"]
    assert_inert(panel)
    assert not spy_shown(panel)
    SCREENSHOTS.mkdir(exist_ok=True)
    panel.grab().save(str(SCREENSHOTS / "hostile-skill-detail-panel.png"))


def test_review_queue_list_detail_and_neighbours(qtbot, store, hostile):
    view = shown(qtbot, ReviewQueueView(store), (1200, 750))
    assert view.select_name(hostile["name"])
    assert view.detail.text("name") == hostile["name"]
    assert_inert(view)
    assert not spy_shown(view)
    SCREENSHOTS.mkdir(exist_ok=True)
    view.grab().save(str(SCREENSHOTS / "hostile-skill-review-queue.png"))


def test_library_cards_table_and_their_tooltips(qtbot, store, hostile):
    browser = shown(qtbot, BrowserWidget(SkillListModel(store)), (1000, 700))
    assert_inert(browser)
    view, index = browser.card_view, browser.model.index(browser.model.row_of(hostile["name"]), 0)
    option = QStyleOptionViewItem()
    option.rect, option.font = view.visualRect(index), view.font()
    point = card_layout(option.rect, CardFonts.of(option.font), "Candidate").description.center()
    QApplication.sendEvent(view.viewport(), QHelpEvent(QEvent.Type.ToolTip, point, view.viewport().mapToGlobal(point)))
    assert hostile["img"] in reads(QToolTip.text())
    assert live_parts(QToolTip.text()) == []
    QToolTip.hideText()
    assert not spy_shown(browser)


def test_query_panel(qtbot, store, hostile):
    panel = shown(qtbot, QueryPanel(store))
    panel.set_query("testing raise trust", "keywords")
    qtbot.waitUntil(lambda: panel.matches.rowCount() + panel.excluded.rowCount() > 0, timeout=3000)
    assert_inert(panel)


def test_main_window_with_the_skill_open_in_the_designer(qtbot, store, hostile, tmp_path):
    window = MainWindow(store, StudioSettings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)))
    shown(qtbot, window, (1400, 860))
    assert window.browser.select_name(hostile["name"])
    designer = window.open_designer(hostile["name"])
    designer.ask_unsaved = lambda: "discard"
    designer.open_file(hostile["file"])
    assert_inert(window)
    assert not spy_shown(window)


def test_install_dialog(qtbot, store, hostile):
    store.set_state(hostile["name"], author="tester", reason="released for agents", lifecycle=Lifecycle.RELEASED,
                    trust_tier=TrustTier(3), pinned=False, lifecycle_reason="released")
    assert_inert(shown(qtbot, InstallDialog(store)))


def test_health_plan_and_pair_tooltips(qtbot, hostile):
    plan, pairs = PlanModel(), PairModel()
    plan.set_actions([PlannedAction(hostile["name"], "deprecate", "stale", f"unused: {hostile['description']}")])
    pairs.set_pairs([(hostile["name"], hostile["dependency"], 0.93)])
    tips = [m.index(r, c).data(Qt.ItemDataRole.ToolTipRole) for m in (plan, pairs)
            for r in range(m.rowCount()) for c in range(m.columnCount())]
    tips = [t for t in tips if isinstance(t, str)]
    assert any(hostile["img"] in reads(t) for t in tips)
    assert [t for t in tips if live_parts(t)] == []


def test_graph_tooltips(qtbot, store, hostile):
    view = GraphView(store)
    qtbot.addWidget(view, before_close_func=lambda w: w.shutdown())
    view.resize(1000, 700)
    view.show()
    view.reload()
    qtbot.waitUntil(lambda: view.prepared is not None and not view.is_running(), timeout=15000)
    assert_inert(view)
    assert not spy_shown(view)


def test_problems_and_editor_diagnostic_tooltips(qtbot, hostile):
    message = f"Skill name '{hostile['name']}' must be lowercase"
    problems = shown(qtbot, ProblemsPanel())
    problems.set_diagnostics([err("name", message, 2, hint=hostile["description"])])
    problems.tree.setCurrentItem(problems.tree.topLevelItem(0))
    assert_inert(problems)
    editor = shown(qtbot, CodeEditor(), (600, 300))
    editor.setPlainText("---\nname: x\n---\n")
    editor.set_diagnostics([(2, "error", message)])
    editor.show_diagnostic_tip(2, editor.mapToGlobal(QPoint(10, 10)), editor)
    assert reads(QToolTip.text()) == f"Error: {message}"
    assert live_parts(QToolTip.text()) == []
    QToolTip.hideText()


def test_files_panel(qtbot, hostile):
    panel = shown(qtbot, FilesPanel(), (500, 400))
    panel.set_files([SkillFile(hostile["file"], b"x")])
    panel.select(hostile["file"])
    assert hostile["img"] in panel.details.text()
    assert_inert(panel)
    assert not spy_shown(panel)


def test_conflict_dialogs(qtbot, hostile):
    assert_inert(shown(qtbot, ConflictDialog(hostile["name"], "a\n", "b\n")))
    conflict = linked.Conflict(folder=f"/skills/{hostile['img']}", path=hostile["file"], name=hostile["name"],
                               disk_text="a\n", store_text="b\n")
    dialog = shown(qtbot, LinkedConflictDialog(conflict))
    assert_inert(dialog)
    assert not spy_shown(dialog)


def test_message_boxes_show_the_text_literally(qtbot, hostile):
    seen = []

    def read_and_close():
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(10, read_and_close)
            return
        seen.append((box.text(), box.textFormat(), spy_shown(box)))
        box.close()

    for ask in (safe_text.warning, safe_text.information, safe_text.question):
        QTimer.singleShot(0, read_and_close)
        ask(None, "Title", f"Could not import {hostile['name']}: {hostile['description']}")
    assert len(seen) == 3
    for text, fmt, spied in seen:
        assert live_parts(text, fmt) == [] and not spied
