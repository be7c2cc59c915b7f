"""What a feature tells the shell about itself: its actions and where they go (menus, toolbar, the
skills' context menu), the pages it adds to the central area, and what it does with a change set.

A feature never builds a menu or finds one: it declares :class:`ActionSpec` and :class:`MenuSpec`
entries and the shell builds every menu and the toolbar from all declarations in one place. It
reaches the window only through the :class:`Shell` protocol.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from skill_studio.core.ops.changes import ChangeSet

if TYPE_CHECKING:
    from PySide6.QtGui import QAction, QIcon, QKeySequence
    from PySide6.QtWidgets import QWidget

    from skill_studio.core.store import Store

#: The skills' right-click menu, as a menu path.
CONTEXT = "context"


@dataclass(frozen=True)
class Place:
    """Where an entry goes: in ``menu`` (a path such as "View" or "Skill/Lifecycle", or
    :data:`CONTEXT`), in ``group`` (groups are separated), at ``order`` within the group."""

    menu: str
    group: int
    order: int = 0


def at(menu: str, group: int, order: int = 0) -> Place:
    return Place(menu, group, order)


@dataclass(frozen=True)
class ActionSpec:
    """One action: its stable id, what it shows, what it does, and where it appears.

    ``scope`` keeps the shortcut to a part of the window ("library": the library page, "browser":
    the skills' views) so that the same keys stay the editor's in a designer. ``enabled`` is asked
    whenever the selection or the current tab changes. Actions sharing an ``exclusive`` name are
    checked one at a time.
    """

    id: str
    text: str
    triggered: Callable[..., Any]
    shortcut: QKeySequence | QKeySequence.StandardKey | str | None = None
    tip: str = ""
    places: tuple[Place, ...] = ()
    toolbar: tuple[int, int] | None = None   # (group, order) on the main toolbar
    icon: QIcon | None = None
    checkable: bool = False
    checked: bool = False
    exclusive: str = ""
    scope: str = ""
    enabled: Callable[[Shell], bool] | None = None


@dataclass(frozen=True)
class MenuSpec:
    """A submenu (``path`` such as "Skill/Lifecycle") and where it appears in its parents."""

    path: str
    title: str
    places: tuple[Place, ...]


@dataclass(frozen=True)
class PageSpec:
    """A page of the central area. ``kind``: "fixed" (a tab made at start that stays open, after
    the library), "tab" (made when first opened, closable), "library" (shown in place of the
    skills' views on the library page). ``create(parent)`` makes the widget."""

    id: str
    title: str
    create: Callable[[QWidget], QWidget]
    kind: str = "tab"


class Shell(Protocol):
    """What the main window offers its features."""

    store: Store
    actions: dict[str, QAction]

    def action(self, action_id: str) -> QAction: ...
    def publish(self, changes: ChangeSet) -> None: ...
    def batch(self) -> Any: ...
    def feature(self, feature_id: str) -> Feature | None: ...
    def open_page(self, page_id: str) -> QWidget: ...
    def page(self, page_id: str) -> QWidget | None: ...
    def set_page_title(self, page_id: str, title: str) -> None: ...
    def show_browser(self) -> None: ...
    def selected_names(self) -> list[str]: ...
    def current_designer(self) -> Any: ...
    def reveal(self, name: str) -> None: ...
    def open_designer(self, name: str) -> Any: ...
    def show_status(self, text: str, timeout_ms: int = 0) -> None: ...
    def add_status_widget(self, widget: QWidget) -> None: ...
    def after_first_paint(self, task: Callable[[], None]) -> None: ...


class Feature:
    """A part of the window. Subclasses set ``id`` and override what they declare."""

    id = ""

    def __init__(self, shell: Any):
        self.shell = shell

    def action_specs(self) -> Sequence[ActionSpec]:
        return ()

    def menu_specs(self) -> Sequence[MenuSpec]:
        return ()

    def page_specs(self) -> Sequence[PageSpec]:
        return ()

    def attach(self) -> None:
        """Called once every feature's actions and fixed pages exist."""

    def changes_applied(self, changes: ChangeSet) -> None:
        """The store changed as ``changes`` says (once per operation, or noticed from outside)."""

    def selection_changed(self, names: list[str]) -> None:
        """The skills selected in the browser."""

    def shutdown(self) -> None:
        """The window is closing."""


def any_selected(shell: Shell) -> bool:
    return bool(shell.selected_names())


def one_selected(shell: Shell) -> bool:
    return len(shell.selected_names()) == 1


def in_designer(shell: Shell) -> bool:
    return shell.current_designer() is not None


def groups(entries: Sequence[tuple[Place, object]]) -> Iterator[list[object]]:
    """The entries of one menu in their groups, each group in order (declaration order breaks ties)."""
    ordered = sorted(enumerate(entries), key=lambda e: (e[1][0].group, e[1][0].order, e[0]))
    current: list[object] = []
    group = None
    for _i, (place, item) in ordered:
        if group is not None and place.group != group:
            yield current
            current = []
        group = place.group
        current.append(item)
    if current:
        yield current
