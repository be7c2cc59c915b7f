"""The list view of the browser: columns that share the width (no sideways scrolling), trust drawn
as the cards draw it, clickable stars, and cells that show their whole text as a tooltip when cut."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QRect, Qt, Signal
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QHeaderView, QStyle, QStyledItemDelegate, QTableView, QToolTip

from skill_studio.ui.library.marks import draw_stars, star_at, stars_width
from skill_studio.ui.library.models import COLUMNS, NAME_ROLE, TRUST_ROLE
from skill_studio.ui.safe_text import literal
from skill_studio.ui.theme import current_tokens

#: Columns that take the width left over, with their stretch, and the least they get.
STRETCH = {"name": 3, "description": 4}
MIN_STRETCH = {"name": 140, "description": 120}
#: The text a short column is sized to hold (besides its header).
SAMPLES = {"lifecycle": "Deprecated", "origin": "imported", "success": "100%", "utility": "0.00",
           "freshness": "0.00", "last_used": "11 mo ago", "updated": "11 mo ago"}
#: Short columns hidden first when the view is too narrow for every one of them.
DROP_ORDER = ("description", "last_used", "freshness", "success", "origin", "utility", "updated")
KEYS = [key for key, _ in COLUMNS]


class ListDelegate(QStyledItemDelegate):
    """Stars in the trust column (the cards' drawing, clickable); text elsewhere."""

    starClicked = Signal(str, int)   # skill name, tier

    def _stars_row(self, option) -> QRect:
        size = max(8, QFontMetrics(option.font).height() - 3)
        rect = option.rect
        return QRect(rect.left() + 6, rect.top() + (rect.height() - size) // 2, stars_width(size), size)

    def paint(self, painter, option, index) -> None:
        if KEYS[index.column()] != "trust":
            super().paint(painter, option, index)
            return
        self.initStyleOption(option, index)
        option.text = ""
        style = option.widget.style() if option.widget is not None else None
        if style is not None:
            style.drawControl(QStyle.CE_ItemViewItem, option, painter, option.widget)
        tier = index.data(TRUST_ROLE)
        if tier is not None:
            draw_stars(painter, self._stars_row(option), int(tier), current_tokens())

    def sizeHint(self, option, index):
        hint = super().sizeHint(option, index)
        if KEYS[index.column()] == "trust":
            hint.setWidth(self._stars_row(option).width() + 12)
        return hint

    def editorEvent(self, event, model, option, index) -> bool:
        if (KEYS[index.column()] == "trust" and event.type() == QEvent.MouseButtonRelease
                and event.button() == Qt.LeftButton):
            tier = star_at(self._stars_row(option), event.position().toPoint().x())
            name = index.data(NAME_ROLE)
            if tier is not None and name:
                self.starClicked.emit(name, tier)
                return True
        return super().editorEvent(event, model, option, index)


class SkillTable(QTableView):
    """The skills as rows; name and description share the slack, short columns fit their content,
    and columns are dropped (least useful first) rather than ever scrolling sideways."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.list_delegate = ListDelegate(self)
        self.setItemDelegate(self.list_delegate)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setTextElideMode(Qt.ElideRight)
        self.setMouseTracking(True)

    def setModel(self, model) -> None:
        super().setModel(model)
        header = self.horizontalHeader()
        header.setStretchLastSection(False)
        header.setMinimumSectionSize(24)
        self.fit_columns()

    def column_widths(self) -> dict[str, int]:
        """The width each short column needs: its header (with the sort arrow) or its content."""
        fm = self.fontMetrics()
        head = self.horizontalHeader().fontMetrics()
        out = {}
        for key, title in COLUMNS:
            if key in STRETCH:
                continue
            content = fm.horizontalAdvance(SAMPLES.get(key, "")) + 16
            if key == "trust":
                content = stars_width(max(8, fm.height() - 3)) + 14
            out[key] = max(head.horizontalAdvance(title) + 30, content)
        return out

    def fit_columns(self) -> None:
        """Share the viewport's width among the columns (see the class)."""
        header = self.horizontalHeader()
        if self.model() is None or header.count() != len(COLUMNS):
            return
        width = self.viewport().width() - 8   # the header frame and rounding
        fixed = self.column_widths()
        hidden: set[str] = set()

        def need() -> int:
            return (sum(w for k, w in fixed.items() if k not in hidden)
                    + sum(m for k, m in MIN_STRETCH.items() if k not in hidden))
        for key in DROP_ORDER:
            if need() <= width:
                break
            hidden.add(key)
        for i, key in enumerate(KEYS):
            header.setSectionHidden(i, key in hidden)
            if key in STRETCH:
                header.setSectionResizeMode(i, QHeaderView.Stretch if "description" in hidden or key == "description"
                                            else QHeaderView.Interactive)
            else:
                header.setSectionResizeMode(i, QHeaderView.Fixed)
                header.resizeSection(i, fixed[key])
        if "description" not in hidden:
            # Name gets its share of the slack, description the rest (it stretches).
            slack = max(0, width - need() + sum(MIN_STRETCH.values()))
            name = max(MIN_STRETCH["name"], slack * STRETCH["name"] // sum(STRETCH.values()))
            header.resizeSection(KEYS.index("name"), name)

    def hidden_columns(self) -> list[str]:
        return [key for i, key in enumerate(KEYS) if self.horizontalHeader().isSectionHidden(i)]

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit_columns()

    def viewportEvent(self, event) -> bool:
        if event.type() == QEvent.ToolTip:
            index = self.indexAt(event.pos())
            if not index.isValid():
                return super().viewportEvent(event)
            text = index.data(Qt.DisplayRole) or ""
            rect = self.visualRect(index)
            # A cut cell without a tooltip of its own shows its whole text.
            if index.data(Qt.ToolTipRole) is None and text \
                    and self.fontMetrics().horizontalAdvance(text) + 12 > rect.width():
                QToolTip.showText(event.globalPos(), literal(text), self)
                return True
        return super().viewportEvent(event)
