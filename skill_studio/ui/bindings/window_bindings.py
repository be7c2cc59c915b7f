"""The bindings in the main window: the Bindings toggle (a link icon) beside Cards and List (toolbar, View
menu, Ctrl+3) switches the library page between the browser and the bindings panel; the
detail panel lists the bindings of the skill it shows."""

from __future__ import annotations

import html
import importlib.resources
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QIcon, QImage, QPixmap
from PySide6.QtWidgets import QStackedWidget, QToolBar

from skill_studio.ui.bindings.binding_cards import condition_text, cooldown_text

if TYPE_CHECKING:
    from skill_studio.ui.shell.main_window import MainWindow


class WindowBindings:
    def __init__(self, window: MainWindow):
        self.window = w = window
        self.panel = None
        left = w.browser.parentWidget()
        self.stack = QStackedWidget(left)
        left.layout().replaceWidget(w.browser, self.stack)
        self.stack.addWidget(w.browser)
        action = w._action("view_bindings", "&Bindings", self.show, "Ctrl+3",
                           "Wire skills to events: the bindings, the event simulator and the event log")
        action.setCheckable(True)
        action.setIcon(link_icon())
        w.actions["view_cards"].actionGroup().addAction(action)
        for key in ("view_cards", "view_list"):
            w.actions[key].triggered.connect(self.hide)
        view_menu = next(m.menu() for m in w.menuBar().actions() if m.text().replace("&", "") == "View")
        view_menu.insertAction(_after(view_menu, w.actions["view_list"]), action)
        toolbar = w.findChild(QToolBar, "main_toolbar")
        if toolbar is not None:
            toolbar.insertAction(_after(toolbar, w.actions["view_list"]), action)
            button = toolbar.widgetForAction(action)
            if button is not None:   # the link icon beside the word, as the toggle is known by it
                button.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
        for signal in (w.storeChanged, w.watcher.changedElsewhere, w.workspace.storeChanged):
            signal.connect(self._store_changed)
        w.details.extra_sections.append(self._detail_section)

    def is_shown(self) -> bool:
        return self.panel is not None and self.stack.currentWidget() is self.panel

    def show(self, skill: str | None = None) -> None:
        """The bindings panel in place of the browser (the bindings of ``skill`` only, if given)."""
        from skill_studio.ui.bindings.bindings_panel import BindingsPanel

        w = self.window
        if self.panel is None:
            self.panel = BindingsPanel(w.store, self.stack)
            self.panel.skillSelected.connect(w.details.show_skill)
            self.panel.changed.connect(w.details.refresh)
            self.stack.addWidget(self.panel)
        w.workspace.setCurrentIndex(0)
        self.stack.setCurrentWidget(self.panel)
        w.actions["view_bindings"].setChecked(True)
        if isinstance(skill, str) and skill:
            self.panel.show_skill(skill)
        else:
            self.panel.refresh()
        self.panel.list.setFocus()

    def hide(self) -> None:
        self.stack.setCurrentWidget(self.window.browser)

    def _store_changed(self) -> None:
        if self.panel is not None:
            self.panel.store_changed()

    def _detail_section(self, panel, skill, col) -> None:
        """The detail panel's Bindings section: each binding of the skill, and a link to them."""
        bindings = self.window.store.bindings(skill=skill.name)
        panel.add_section(col, "Bindings")
        if not bindings:
            text = "none — <a href='bindings'>add one</a>"
        else:
            lines = [f"{'●' if b.enabled else '○'} on <b>{html.escape(b.event_type)}</b> → {html.escape(b.action)}"
                     f" · priority {b.priority} · {cooldown_text(b.cooldown)} · when {html.escape(condition_text(b))}"
                     for b in bindings]
            text = "<br>".join(lines) + "<br><a href='bindings'>Show in the bindings panel</a>"
        label = panel.add_label(col, text, key="bindings", rich=True)
        label.linkActivated.connect(lambda _link, name=skill.name: self.show(name))


def link_icon() -> QIcon:
    """The bindings' link icon (drawn from resources/icons/link.svg, so no emoji font is needed)."""
    data = (importlib.resources.files("skill_studio.resources") / "icons" / "link.svg").read_bytes()
    image = QImage.fromData(data, "SVG")
    return QIcon(QPixmap.fromImage(image)) if not image.isNull() else QIcon()


def _after(widget, action):
    """The action after ``action`` in ``widget`` (None at the end): where to insert next to it."""
    actions = widget.actions()
    i = actions.index(action) if action in actions else len(actions) - 1
    return actions[i + 1] if i + 1 < len(actions) else None


__all__ = ["WindowBindings"]
