"""The window's actions, menus, toolbar and the skills' context menu, built in one place from what
the features declare: no feature builds a menu or looks one up."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu, QWidget

from skill_studio.ui.shell.feature import CONTEXT, ActionSpec, Feature, MenuSpec, Place, Shell, groups

#: The menu bar, in this order: (path, title).
TOP_MENUS = (("File", "&File"), ("Edit", "&Edit"), ("View", "&View"), ("Skill", "&Skill"), ("Help", "&Help"))


class Commands:
    """Every declared action by id, the menus by path, the main toolbar and the context menu's entries.

    ``scopes`` names the widgets a scoped action's shortcut is kept to ("browser", "library").
    """

    def __init__(self, window: QMainWindow, scopes: dict[str, QWidget]):
        self.window = window
        self.scopes = scopes
        self.actions: dict[str, QAction] = {}
        self.specs: dict[str, ActionSpec] = {}
        self.menus: dict[str, QMenu] = {}
        self.context_entries: list[tuple[Place, object]] = []

    def build(self, features: Sequence[Feature]) -> None:
        """Make every feature's actions and submenus, then the menu bar, the toolbar and the context
        menu's entries from where they say they go. Two actions with one id, or an entry for a menu
        no one declares, is a programming error (ValueError)."""
        w = self.window
        exclusive: dict[str, QActionGroup] = {}
        entries: dict[str, list[tuple[Place, object]]] = {}
        toolbar: list[tuple[Place, object]] = []
        for feature in features:
            for spec in feature.action_specs():
                action = self._make_action(spec)
                if spec.exclusive:
                    exclusive.setdefault(spec.exclusive, QActionGroup(w)).addAction(action)
                for place in spec.places:
                    entries.setdefault(place.menu, []).append((place, spec.id))
                if spec.toolbar is not None:
                    toolbar.append((Place("", *spec.toolbar), spec.id))
            for menu in feature.menu_specs():
                self.menus[menu.path] = QMenu(menu.title, w)
                for place in menu.places:
                    entries.setdefault(place.menu, []).append((place, menu))
        unknown = set(entries) - set(self.menus) - {path for path, _ in TOP_MENUS} - {CONTEXT}
        if unknown:
            raise ValueError(f"entries declared for menus no one declares: {', '.join(sorted(unknown))}")
        bar = w.menuBar()
        for path, title in TOP_MENUS:
            self.menus[path] = bar.addMenu(title)
        for path, menu in self.menus.items():
            self._fill(menu, entries.get(path, []))
        tb = w.addToolBar("Main")
        tb.setObjectName("main_toolbar")
        tb.setMovable(False)
        tb.setToolButtonStyle(Qt.ToolButtonTextOnly)
        for i, group in enumerate(groups(toolbar)):
            if i:
                tb.addSeparator()
            for action_id in group:
                action = self.actions[str(action_id)]
                tb.addAction(action)
                button = tb.widgetForAction(action)
                if button is not None and not action.icon().isNull():   # an icon is shown beside the word
                    button.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
        self.context_entries = entries.get(CONTEXT, [])

    def _make_action(self, spec: ActionSpec) -> QAction:
        if spec.id in self.actions:
            raise ValueError(f"two features declare the action {spec.id!r}")
        action = QAction(spec.text, self.window)
        action.setObjectName(spec.id)
        if spec.shortcut is not None:
            action.setShortcut(QKeySequence(spec.shortcut))
        action.setToolTip(spec.tip or spec.text.replace("&", "").replace("…", ""))
        action.setStatusTip(action.toolTip())
        if spec.icon is not None:
            action.setIcon(spec.icon)
        if spec.checkable:
            action.setCheckable(True)
            action.setChecked(spec.checked)
        action.triggered.connect(spec.triggered)
        if spec.scope:
            # Keys that act on the library work there only, so that in a designer Delete, Ctrl+F,
            # Ctrl+A and Ctrl+C stay the editor's.
            action.setShortcutContext(Qt.WidgetWithChildrenShortcut)
            self.scopes[spec.scope].addAction(action)
        self.actions[spec.id] = action
        self.specs[spec.id] = spec
        return action

    def _fill(self, menu: QMenu, entries: list[tuple[Place, object]]) -> None:
        for i, group in enumerate(groups(entries)):
            if i:
                menu.addSeparator()
            for item in group:
                if isinstance(item, MenuSpec):
                    menu.addMenu(self.menus[item.path])
                else:
                    menu.addAction(self.actions[str(item)])

    def context_menu(self) -> QMenu:
        """What a right click on the selected skills offers (a new menu each time)."""
        menu = QMenu(self.window)
        self._fill(menu, self.context_entries)
        return menu

    def update_enabled(self, shell: Shell) -> None:
        """Ask each action's enabled rule again (the selection or the current tab changed)."""
        for action_id, spec in self.specs.items():
            if spec.enabled is not None:
                self.actions[action_id].setEnabled(bool(spec.enabled(shell)))
