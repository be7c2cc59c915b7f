"""The bindings as a feature of the window: the Bindings toggle (a link icon) beside Cards and List (toolbar, View
menu, Ctrl+3) switches the library page between the browser and the bindings panel; the
detail panel lists the bindings of the skill it shows."""

from __future__ import annotations

import html
import importlib.resources

from PySide6.QtGui import QIcon, QImage, QPixmap

from skill_studio.core.ops.changes import ChangeSet
from skill_studio.ui.bindings.binding_cards import condition_text, cooldown_text
from skill_studio.ui.shell.feature import ActionSpec, Feature, PageSpec, at


class BindingsFeature(Feature):
    id = "bindings"

    def __init__(self, shell):
        super().__init__(shell)
        self._own: ChangeSet | None = None   # the change this panel made and already shows

    def action_specs(self) -> list[ActionSpec]:
        return [ActionSpec("view_bindings", "&Bindings", self.show, "Ctrl+3",
                           "Wire skills to events: the bindings, the event simulator and the event log",
                           places=(at("View", 0, 2),), toolbar=(1, 2), icon=link_icon(), checkable=True,
                           exclusive="view")]

    def page_specs(self) -> list[PageSpec]:
        return [PageSpec("bindings", "Bindings", self._make, kind="library")]

    def attach(self) -> None:
        self.shell.details.extra_sections.append(self._detail_section)

    @property
    def panel(self):
        """The bindings panel once it was first shown, else None."""
        return self.shell.page("bindings")

    def is_shown(self) -> bool:
        return self.shell.showing("bindings")

    def _make(self, parent):
        from skill_studio.ui.bindings.bindings_panel import BindingsPanel

        panel = BindingsPanel(self.shell.store, parent)
        panel.skillSelected.connect(self.shell.details.show_skill)
        panel.changed.connect(self._panel_changed)
        return panel

    def show(self, skill: str | None = None) -> None:
        """The bindings panel in place of the browser (the bindings of ``skill`` only, if given)."""
        opened = self.panel is not None
        panel = self.shell.open_page("bindings")
        self.shell.action("view_bindings").setChecked(True)
        if isinstance(skill, str) and skill:
            panel.show_skill(skill)
        elif opened:
            panel.refresh()
        panel.list.setFocus()

    def hide(self) -> None:
        self.shell.show_browser()

    def _panel_changed(self) -> None:
        self._own = ChangeSet.of(bindings=True, label="bindings")
        try:
            self.shell.publish(self._own)
        finally:
            self._own = None

    def changes_applied(self, changes: ChangeSet) -> None:
        if self.panel is not None and changes is not self._own:
            self.panel.apply_changes(changes)

    def _detail_section(self, panel, skill, col) -> None:
        """The detail panel's Bindings section: each binding of the skill, and a link to them."""
        bindings = self.shell.store.bindings(skill=skill.name)
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


__all__ = ["BindingsFeature"]
