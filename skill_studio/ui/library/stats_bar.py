"""A slim bar under the browser: library totals and, when a filter is active, the same figures for the view."""

from __future__ import annotations

from dataclasses import astuple
from typing import Any

from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QWidget

from skill_studio.core.store import Filters, Store
from skill_studio.ui.elided import ElidedLabel
from skill_studio.ui.theme import current_tokens


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _avg(value: float | None, fmt: str) -> str:
    return "–" if value is None else format(value, fmt)


def summary(stats: dict[str, Any]) -> str:
    """'10 skills · 7 active · 2 awaiting review': what the bar shows (the review count only when
    there is one; it counts what the review queue holds)."""
    parts = [_plural(stats["total"], "skill"), f"{stats['active']} active"]
    if stats["awaiting_review"]:   # a zero here is noise on a bar that must stay short
        parts.append(f"{stats['awaiting_review']} awaiting review")
    return " · ".join(parts)


def averages(stats: dict[str, Any]) -> str:
    """'Average success 71%, utility 0.61, freshness 0.68' (in the tooltip)."""
    return (f"Average success {_avg(stats['avg_success_rate'], '.0%')}, "
            f"utility {_avg(stats['avg_utility'], '.2f')}, freshness {_avg(stats['avg_freshness'], '.2f')}")


def _breakdown(stats: dict[str, Any], filters: Filters | None = None) -> str:
    # The store counts each dimension ignoring its own filter, so a filtered dimension is left out.
    lines = []
    for key, heading, skip in (("by_lifecycle", "By lifecycle", filters and filters.lifecycle),
                               ("by_origin", "By origin", filters and filters.origin)):
        if not skip:
            parts = ", ".join(f"{n} {value}" for value, n in stats[key].items() if n)
            lines.append(f"{heading}: {parts or 'none'}")
    return "\n".join(lines)


def is_filtered(filters: Filters | None) -> bool:
    """True when the filters restrict anything."""
    return filters is not None and any(v not in (None, "") for v in astuple(filters))


class StatsBar(QWidget):
    """Library totals, then the current view's, on one line. Each update costs at most two stats queries."""

    def __init__(self, store: Store, parent=None, *, load: bool = True):
        """``load=False`` leaves the bar empty until the first :meth:`update_stats`."""
        self._library: dict | None = None
        super().__init__(parent)
        self._store = store
        self.library_label = ElidedLabel(parent=self)
        self.separator = QLabel("|", self)
        self.view_label = ElidedLabel(parent=self)
        self.separator.setSizePolicy(QSizePolicy.Fixed, QSizePolicy.Preferred)
        row = QHBoxLayout(self)
        row.setContentsMargins(10, 3, 10, 3)
        row.setSpacing(10)
        row.addWidget(self.library_label)
        row.addWidget(self.separator)
        row.addWidget(self.view_label)
        row.addStretch(1)
        self.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Fixed)
        self._apply_colors()
        if load:
            self.update_stats(None)
        else:
            self.separator.hide()
            self.view_label.hide()

    def text(self) -> str:
        """The bar's text as the user reads it."""
        if self.view_label.isHidden():
            return self.library_label.full_text()
        return f"{self.library_label.full_text()}   |   {self.view_label.full_text()}"

    def update_stats(self, filters: Filters | None = None, *, library_changed: bool = False) -> None:
        """Show the library's figures, and the view's when ``filters`` restrict anything.

        The library's figures are read again only when ``library_changed`` (or the first time):
        changing the filter does not change them.
        """
        if library_changed or self._library is None:
            self._library = self._store.stats()
        library = self._library
        self.library_label.setText("Library: " + summary(library))
        self.library_label.set_tip(f"{self.library_label.full_text()}\n{averages(library)}\n{_breakdown(library)}")
        filtered = is_filtered(filters)
        self.separator.setVisible(filtered)
        self.view_label.setVisible(filtered)
        if filtered:
            view = self._store.stats(filters)
            self.view_label.setText("This view: " + summary(view))
            self.view_label.set_tip(f"{self.view_label.full_text()}\n{averages(view)}\n"
                                    f"{_breakdown(view, filters)}")
        else:
            self.view_label.setText("")

    def paintEvent(self, event) -> None:
        # A hairline on top separates the bar from the view above it.
        p = QPainter(self)
        p.setPen(QColor(current_tokens().border))
        p.drawLine(0, 0, self.width(), 0)

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == event.Type.PaletteChange:
            self._apply_colors()

    def _apply_colors(self) -> None:
        t = current_tokens()
        style = f"color: {t.text_muted}; font-size: 11px;"
        self.library_label.setStyleSheet(style)
        self.view_label.setStyleSheet(f"color: {t.text}; font-size: 11px;")
        self.separator.setStyleSheet(f"color: {t.border}; font-size: 11px;")
