"""The Help menu: what the words mean (the glossary, its texts taken from the core's vocabularies)
and the keyboard shortcuts (listed from the window's own actions, grouped by menu)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from html import escape
from math import cos, pi, sin
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QPointF, Qt, QTimer
from PySide6.QtGui import QAction, QColor, QImage, QKeySequence, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QMenuBar,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from skill_studio.core.model import LIFECYCLE_TERMS, ORIGIN_TERMS, SCORE_TERMS, Lifecycle, Origin, TrustTier
from skill_studio.ui import theme
from skill_studio.ui.shell.feature import ActionSpec, Feature, PageSpec, at

if TYPE_CHECKING:
    from PySide6.QtCore import QUrl

#: The widest a page of text runs (longer lines are hard to read on a wide screen).
READABLE_WIDTH = 920
#: The Help menu's group for these entries: before About (group 0), which stays last.
HELP_GROUP = -1


# --- the glossary, as plain data --------------------------------------------------------------

@dataclass(frozen=True)
class Term:
    """One word explained. ``key`` is the core's value (a lifecycle state, a tier number, a score
    field, a band, an origin); ``role`` the colour role of its badge, ``stars`` its trust stars."""

    key: str
    name: str
    meaning: str
    role: str = ""
    stars: int = 0


@dataclass(frozen=True)
class Section:
    id: str
    title: str
    intro: str
    terms: tuple[Term, ...]


def _sentence(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def _stars(tier: TrustTier) -> str:
    return f"{int(tier)} star{'s' if int(tier) != 1 else ''}"


def _band_terms(cfg: Mapping) -> tuple[Term, ...]:
    from skill_studio.core.health import checks

    terms = []
    for i, (band, low) in enumerate(checks.BANDS):
        upper = checks.BANDS[i - 1][1] if i else None
        if upper is None:
            span = f"health of {low:.2f} or more"
        elif low <= 0:
            span = f"health under {upper:.2f}"
        else:
            span = f"health from {low:.2f} up to {upper:.2f}"
        terms.append(Term(band, band.capitalize(), _sentence(span), checks.BAND_ROLES[band]))
    uses, rate = int(cfg["health.low_min_uses"]), float(cfg["health.failing_rate"])
    terms.append(Term(checks.FAILING, checks.FAILING.capitalize(),
                      _sentence(f"used {uses} times or more and fewer than {rate:.0%} of the uses went well, "
                                "whatever its health: it stands below a skill never used"),
                      checks.BAND_ROLES[checks.FAILING]))
    return tuple(terms)


def glossary(cfg: Mapping | None = None) -> list[Section]:
    """Every word a new user meets on the cards and in the views, explained in plain words.
    ``cfg``: the health check's thresholds in force (its defaults if None)."""
    from skill_studio.core.health import checks

    cfg = cfg or checks.DEFAULTS
    return [
        Section("lifecycle", "Lifecycle", "Every skill is in one of these states. A skill moves from one to the "
                "next as it is reviewed, used and retired (the Skill menu's Lifecycle entries move it).",
                tuple(Term(s.value, t.label, _sentence(t.meaning), t.colour_role)
                      for s in Lifecycle for t in (LIFECYCLE_TERMS[s],))),
        Section("trust", "Trust", "Stars say how far a skill is trusted. Reviewers give one to three stars; "
                "four stars belong to the skills shipped with the studio.",
                tuple(Term(str(int(tier)), tier.label, _sentence(tier.meaning), stars=int(tier))
                      for tier in TrustTier)),
        Section("scores", "Scores", "Each score runs from 0 to 1, and higher is better. A skill's details show "
                "them as bars; they change as the skill is used.",
                tuple(Term(key, t.label, _sentence(t.meaning)) for key, t in SCORE_TERMS.items())),
        Section("bands", "Health bands", "The health check puts every skill in one band by its health.",
                _band_terms(cfg)),
        Section("origin", "Origin", "Where a skill came from. It sets the state and trust a skill starts with.",
                tuple(Term(o.value, o.value, _sentence(f"{t.meaning}; it starts as {t.entry[0].label} with "
                                                       f"{_stars(t.entry[1])} ({t.entry[1].label})"))
                      for o in Origin for t in (ORIGIN_TERMS[o],))),
    ]


# --- the glossary, shown ---------------------------------------------------------------------

def star_image(filled: bool, colour: str, size: int) -> QImage:
    """A five-pointed star ``size`` pixels across, painted (no font needs to hold a star)."""
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.Antialiasing)
    centre, outer, inner = size / 2, size * 0.48, size * 0.2
    points = [QPointF(centre + r * sin(k * pi / 5), centre + 0.06 * size - r * cos(k * pi / 5))
              for k in range(10) for r in ((outer if k % 2 == 0 else inner),)]
    painter.setPen(QPen(QColor(colour), max(1.0, size / 14)))
    painter.setBrush(QColor(colour) if filled else Qt.NoBrush)
    painter.drawPolygon(QPolygonF(points))
    painter.end()
    return image


STAR_PX = 14


class GlossaryView(QTextBrowser):
    """The glossary as a page of text in the current theme's colours (painted again when it changes)."""

    def __init__(self, sections: list[Section], parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("glossary")
        self.sections = sections
        self.setOpenLinks(False)
        self.setMinimumHeight(120)
        self.document().setDocumentMargin(10)
        self._repaint = QTimer(self, singleShot=True, interval=0)
        self._repaint.timeout.connect(self.render)
        self.render()

    def loadResource(self, kind: int, url: QUrl):
        if url.scheme() == "glossary-star":
            ratio = max(1, round(self.devicePixelRatioF()))
            image = star_image(url.path() == "full", theme.current_tokens().star, STAR_PX * ratio)
            image.setDevicePixelRatio(ratio)
            return image
        return super().loadResource(kind, url)

    def html(self) -> str:
        t = theme.current_tokens()
        parts = [f"<style>td {{ padding: 3px 8px 3px 0; }} h3 {{ margin-top: 14px; }} "
                 f".intro {{ color: {t.text_muted}; }}</style>"]
        for section in self.sections:
            parts.append(f'<h3><a name="{section.id}"></a>{escape(section.title)}</h3>'
                         f'<p class="intro">{escape(section.intro)}</p><table cellspacing="0">')
            for term in section.terms:
                parts.append(f"<tr>{self._mark(term)}<td>{escape(term.meaning)}</td></tr>")
            parts.append("</table>")
        return "".join(parts)

    @staticmethod
    def _mark(term: Term) -> str:
        """The cells before the meaning: a badge in its colour, the stars and the name, or the name."""
        name = escape(term.name)
        if term.role:
            return (f'<td><span style="background-color:{theme.ROLE_FILLS[term.role]}; color:{theme.ON_FILL};">'
                    f"&nbsp;{name}&nbsp;</span></td>")
        if term.stars:
            stars = "".join(f'<img src="glossary-star:{"full" if i < term.stars else "empty"}" '
                            f'width="{STAR_PX}" height="{STAR_PX}" style="vertical-align: middle">' for i in range(4))
            return f'<td valign="middle">{stars}</td><td><b>{name}</b></td>'
        return f"<td><b>{name}</b></td>"

    def render(self) -> None:
        bar = self.verticalScrollBar().value()
        self.document().clear()   # drops the star images painted for the last theme
        self.setHtml(self.html())
        self.verticalScrollBar().setValue(bar)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.PaletteChange, QEvent.StyleChange):   # the theme changed
            self._repaint.start()
        super().changeEvent(event)


class GlossaryPage(QWidget):
    """Help › What the words mean: the glossary under a title, no wider than reads well."""

    def __init__(self, sections: list[Section], parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("glossary_page")
        column = QWidget(self)
        column.setMaximumWidth(READABLE_WIDTH)
        title = QLabel("What the words mean", column)
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 1.4)
        font.setBold(True)
        title.setFont(font)
        self.view = GlossaryView(sections, column)
        layout = QVBoxLayout(column)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(title)
        layout.addWidget(self.view, 1)
        outer = QHBoxLayout(self)
        outer.setContentsMargins(16, 12, 16, 8)
        outer.addStretch(0)
        outer.addWidget(column, 1)
        outer.addStretch(0)


def _health_cfg(shell) -> Mapping:
    from skill_studio.core.health import checks

    return checks.settings(shell.store)


# --- the keyboard shortcuts -------------------------------------------------------------------

def _plain(title: str) -> str:
    return title.replace("&&", "\0").replace("&", "").replace("\0", "&")


def shortcut_groups(menu_bar: QMenuBar, actions: Iterable[QAction]) -> list[tuple[str, list[QAction]]]:
    """Every action with a shortcut, under the first menu that holds it ("View › Theme" for a
    submenu), in menu order; actions with a shortcut but in no menu come last, under "Other"."""
    groups: dict[str, list[QAction]] = {}
    seen: set[int] = set()

    def walk(menu: QMenu, path: str) -> None:
        for action in menu.actions():
            sub = action.menu()
            if isinstance(sub, QMenu):
                walk(sub, f"{path} › {_plain(sub.title())}")
            elif not action.isSeparator() and action.shortcuts() and id(action) not in seen:
                seen.add(id(action))
                groups.setdefault(path, []).append(action)

    for top in menu_bar.actions():
        if isinstance(top.menu(), QMenu):
            walk(top.menu(), _plain(top.menu().title()))
    rest = [a for a in actions if a.shortcuts() and id(a) not in seen]
    if rest:
        groups["Other"] = rest
    return list(groups.items())


def keys_text(action: QAction) -> str:
    return ", ".join(k.toString(QKeySequence.NativeText) for k in action.shortcuts())


class ShortcutsDialog(QDialog):
    """The window's keyboard shortcuts by menu, with a search (beside the window, not modal)."""

    def __init__(self, window, parent: QWidget | None = None):
        from PySide6.QtWidgets import QHeaderView, QTreeWidget

        super().__init__(parent)
        self.window_ = window
        self.setWindowTitle("Keyboard shortcuts")
        self.search = QLineEdit(self)
        self.search.setObjectName("shortcut_search")
        self.search.setPlaceholderText("Find a command or a key")
        self.search.setClearButtonEnabled(True)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("shortcut_list")
        self.tree.setHeaderLabels(["Command", "Keys", "Where"])
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        header = self.tree.header()
        header.setSectionResizeMode(0, QHeaderView.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeToContents)
        header.setStretchLastSection(False)
        self.count_label = QLabel(self)
        self.count_label.setProperty("role", "muted")
        buttons = QDialogButtonBox(QDialogButtonBox.Close, self)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.search)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.count_label)
        layout.addWidget(buttons)
        self.search.textChanged.connect(self.filter)
        self.rebuild()

    def rebuild(self) -> None:
        """List the window's actions as they are now (an action added since shows up)."""
        from PySide6.QtWidgets import QTreeWidgetItem

        self.tree.clear()
        w = self.window_
        for title, actions in shortcut_groups(w.menuBar(), w.actions.values()):
            group = QTreeWidgetItem(self.tree, [title])
            group.setFirstColumnSpanned(True)
            font = group.font(0)
            font.setBold(True)
            group.setFont(0, font)
            group.setFlags(Qt.ItemIsEnabled)
            for action in actions:
                scoped = action.shortcutContext() == Qt.WidgetWithChildrenShortcut
                text = _plain(action.text()).replace("…", "")
                item = QTreeWidgetItem(group, [text, keys_text(action),
                                               "Library page" if scoped else "Anywhere"])
                item.setToolTip(0, action.toolTip())
                item.setToolTip(2, "Works on the library page only: elsewhere (in a designer) the keys stay the "
                                   "editor's" if scoped else "Works anywhere in the window")
                item.setData(0, Qt.UserRole, action.objectName())
        self.tree.expandAll()
        self.filter(self.search.text())

    def filter(self, text: str) -> None:
        """Show the commands whose name or keys hold ``text``; a menu's title matches all of it."""
        words = text.strip().lower()
        shown = 0
        for i in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(i)
            whole = bool(words) and words in group.text(0).lower()
            visible = 0
            for j in range(group.childCount()):
                item = group.child(j)
                match = not words or whole or words in item.text(0).lower() or words in item.text(1).lower()
                item.setHidden(not match)
                visible += match
            group.setHidden(visible == 0)
            shown += visible
        if words and not shown:
            self.count_label.setText(f"No command or key matches “{text.strip()}”")
        else:
            self.count_label.setText(f"{shown} shortcut{'s' if shown != 1 else ''}"
                                     + (f" matching “{text.strip()}”" if words else ""))

    def shown_ids(self) -> list[str]:
        """The action ids listed and not hidden by the search."""
        out = []
        for i in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(i)
            out += [group.child(j).data(0, Qt.UserRole) for j in range(group.childCount())
                    if not group.child(j).isHidden() and not group.isHidden()]
        return out


# --- the feature ------------------------------------------------------------------------------

class HelpFeature(Feature):
    """Help › Keyboard shortcuts and Help › What the words mean."""

    id = "help"

    def __init__(self, shell):
        super().__init__(shell)
        self.shortcuts: ShortcutsDialog | None = None

    def action_specs(self) -> list[ActionSpec]:
        return [
            ActionSpec("shortcuts", "&Keyboard shortcuts", self.show_shortcuts, "Ctrl+/",
                       "Every command's keys, by menu", places=(at("Help", HELP_GROUP, 1),)),
            ActionSpec("glossary", "&What the words mean", self.show_glossary, None,
                       "Lifecycle states, trust stars, scores, health bands and origins explained",
                       places=(at("Help", HELP_GROUP, 2),)),
        ]

    def page_specs(self) -> list[PageSpec]:
        return [PageSpec("glossary", "What the words mean",
                         lambda parent: GlossaryPage(glossary(_health_cfg(self.shell)), parent))]

    def show_glossary(self) -> None:
        self.shell.open_page("glossary")

    def show_shortcuts(self) -> None:
        if self.shortcuts is None:
            self.shortcuts = ShortcutsDialog(self.shell, self.shell)
            screen = self.shell.screen().availableGeometry()
            self.shortcuts.resize(min(640, screen.width() - 40), min(600, screen.height() - 60))
        else:
            self.shortcuts.rebuild()
        self.shortcuts.show()
        self.shortcuts.raise_()
        self.shortcuts.activateWindow()
        self.shortcuts.search.setFocus()

    def shutdown(self) -> None:
        if self.shortcuts is not None:
            self.shortcuts.close()
