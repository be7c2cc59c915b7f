"""One skill's box in the graph: its name (whole, on two lines when long: broken where the name
has a hyphen, never cut in the middle), its trust stars, its lifecycle colour, and its tooltip
(name, lifecycle, trust and relations)."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPathItem, QGraphicsSimpleTextItem

from skill_studio.core.graph.dependencies import EDGE_CONFLICTS, EDGE_DEPENDS, EDGE_PARENT, EDGE_TERMS, Node
from skill_studio.core.model import TrustTier
from skill_studio.ui import theme

#: A box is as wide as its name needs, between these (scene pixels); one line of text high, or two.
BOX_W, MAX_W, BOX_H = 170.0, 240.0, 46.0
PAD = 16.0
NAME_ROLE = 0            # QGraphicsItem.data key holding a node's skill name
CYCLE_RED = theme.ROLE_FILLS["danger"]   # cycles and conflicts
#: How many names of each relation a tooltip lists before "and N more".
TIP_NAMES = 6

_BREAKS = "-_. /"


def label_lines(name: str, metrics: QFontMetrics, room: float) -> list[str]:
    """The name on one line when it fits ``room`` pixels, else on two, broken after the hyphen
    (or other separator) nearest the middle that lets both fit; a name too long even so ends its
    second line with '…' (the tooltip holds it whole)."""
    if metrics.horizontalAdvance(name) <= room:
        return [name]
    cuts = [i + 1 for i, ch in enumerate(name[:-1]) if ch in _BREAKS]
    fitting = [i for i in cuts if metrics.horizontalAdvance(name[:i]) <= room
               and metrics.horizontalAdvance(name[i:]) <= room]
    if fitting:
        cut = min(fitting, key=lambda i: abs(2 * i - len(name)))
    else:   # the longest first line that fits, at a separator when there is one
        cut = 1
        while cut < len(name) and metrics.horizontalAdvance(name[:cut + 1]) <= room:
            cut += 1
        cut = max([i for i in cuts if i <= cut and i > cut // 2] or [cut])
    rest = metrics.elidedText(name[cut:], Qt.ElideRight, int(room))
    return [name[:cut], rest]


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _names(names: list[str]) -> str:
    shown = ", ".join(_html(n) for n in names[:TIP_NAMES])
    return shown + (f" and {len(names) - TIP_NAMES} more" if len(names) > TIP_NAMES else "")


def relation_lines(graph, name: str) -> list[str]:
    """A node's relations in words: what it depends on, what needs it, its conflicts, its parent
    and the skills that extend it (``graph`` is a networkx multigraph keyed by relation kind)."""
    out: dict[str, list[str]] = {}
    into: dict[str, list[str]] = {}
    for _, v, kind in graph.out_edges(name, keys=True):
        if v != name:
            out.setdefault(kind, []).append(v)
    for u, _, kind in graph.in_edges(name, keys=True):
        if u != name:
            into.setdefault(kind, []).append(u)
    lines = []
    if graph.has_edge(name, name, EDGE_DEPENDS):
        lines.append("Depends on itself")
    rows = ((EDGE_TERMS[EDGE_DEPENDS].label, out.get(EDGE_DEPENDS)), ("Needed by", into.get(EDGE_DEPENDS)),
            (EDGE_TERMS[EDGE_CONFLICTS].label, sorted(set(out.get(EDGE_CONFLICTS, []) + into.get(EDGE_CONFLICTS, [])))),
            (EDGE_TERMS[EDGE_PARENT].label, out.get(EDGE_PARENT)), ("Extended by", into.get(EDGE_PARENT)))
    for label, names in rows:
        if names:
            lines.append(f"{label}: {_names(sorted(names))}")
    return lines or ["No relations"]


def node_tooltip(node: Node, relations: list[str]) -> str:
    if node.missing:
        head = f"<b>{_html(node.name)}</b><br>Not in the library: some skill depends on it."
        return head + "<br>" + "<br>".join(relations)
    tier = TrustTier(min(4, max(1, int(node.trust_tier))))
    desc = node.description if len(node.description) <= 300 else node.description[:299] + "…"
    return (f"<b>{_html(node.name)}</b><br>{node.lifecycle.label} · trust {int(tier)} – {tier.label} "
            f"{tier.stars} · {node.origin.value}<br>{_html(desc)}<br><br>" + "<br>".join(relations)
            + f"<br><br>utility {node.utility:.2f} · freshness {node.freshness:.2f} · "
            f"success {node.success_rate:.0%} · {node.uses} use(s)")


_PATHS: dict[tuple[int, int], QPainterPath] = {}


def box_path(w: float, h: float) -> QPainterPath:
    key = (round(w), round(h))
    path = _PATHS.get(key)
    if path is None:
        path = _PATHS[key] = QPainterPath()
        path.addRoundedRect(QRectF(-key[0] / 2, -key[1] / 2, key[0], key[1]), 8, 8)
    return path


class NodeItem(QGraphicsPathItem):
    """One skill's box; its name and stars are child items (hidden when zoomed far out).
    ``mark`` is how it is shown now: None, "near" (a neighbour of what is selected) or "hit"."""

    def __init__(self, node: Node, font: QFont, small: QFont, tokens: theme.Tokens):
        super().__init__()
        self.node = node
        self.setData(NAME_ROLE, node.name)
        self.setAcceptHoverEvents(False)
        self.setFlag(QGraphicsItem.ItemIsSelectable, False)
        metrics = QFontMetrics(font)
        self.lines = label_lines(node.name, metrics, MAX_W - PAD)
        widths = [metrics.horizontalAdvance(line) for line in self.lines]
        self.w = min(MAX_W, max(BOX_W, max(widths) + PAD))
        self.h = BOX_H + (len(self.lines) - 1) * metrics.lineSpacing()
        self.setPath(box_path(self.w, self.h))
        self.label = QGraphicsSimpleTextItem("\n".join(self.lines), self)
        self.label.setFont(font)
        self.label.setPos(-max(widths) / 2, -self.h / 2 + 5)
        if node.missing:
            stars_text = "missing"
        else:
            tier = int(node.trust_tier)
            stars_text = "★" * tier + "☆" * (4 - tier)
        self.stars = QGraphicsSimpleTextItem(stars_text, self)
        self.stars.setFont(small)
        self.stars.setPos(-QFontMetrics(small).horizontalAdvance(stars_text) / 2, self.h / 2 - 20)
        self.in_cycle = False
        self.mark: str | None = None
        self.restyle(tokens, None)

    def shown_name(self) -> str:
        """The name as the box shows it (its lines joined)."""
        return "".join(self.lines)

    def restyle(self, tokens: theme.Tokens, mark: str | None) -> None:
        self.mark = mark
        node = self.node
        if node.missing:
            colour = QColor(tokens.text_muted)
            pen = QPen(colour, 1.5, Qt.DashLine)
            fill = QColor(tokens.window)
            text = colour
        else:
            colour = QColor(theme.LIFECYCLE_COLORS[node.lifecycle])
            pen = QPen(colour, 2.0)
            fill = QColor(tokens.surface)
            tint = QColor(colour)
            tint.setAlpha(40 if tokens.dark else 28)
            fill = _blend(fill, tint)
            text = QColor(tokens.text)
        if self.in_cycle:
            pen = QPen(QColor(CYCLE_RED), 3.0, pen.style())
        if mark == "hit":
            pen = QPen(QColor(tokens.accent), 4.0)
            fill = QColor(tokens.selection)
        elif mark == "near":
            pen = QPen(QColor(tokens.accent), 2.5, pen.style())
        self.setPen(pen)
        self.setBrush(QBrush(fill))
        self.label.setBrush(QBrush(text))
        self.stars.setBrush(QBrush(QColor(tokens.text_muted if node.missing else tokens.star)))
        self.setZValue(2 if mark else 1)


def _blend(base: QColor, over: QColor) -> QColor:
    a = over.alphaF()
    return QColor.fromRgbF(base.redF() * (1 - a) + over.redF() * a, base.greenF() * (1 - a) + over.greenF() * a,
                           base.blueF() * (1 - a) + over.blueF() * a)
