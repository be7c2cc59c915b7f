"""Which of the designer's panes are shown side by side, and how wide, for the width there is.

The editor always keeps a readable width. When the designer is too narrow for the editor, the
preview and the details (metadata, steps, files, history, run) side by side, the details become a
drawer: closed until the author opens it, and then shown beside the editor in the preview's place.
Narrower still, the preview gives way too. What the author chose (preview on or off, details open
or closed, where they dragged the split) is kept across resizes; the pixel sizes follow the width."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QSplitter, QWidget

__all__ = ["EDITOR_FLOOR", "PREVIEW_MIN", "SIDE_MIN", "PaneLayout", "PaneSplitter"]

#: The editor never gets less than this while the preview or the details are beside it.
EDITOR_FLOOR = 360
#: The narrowest the preview is shown; with less room it is hidden instead.
PREVIEW_MIN = 260
#: The narrowest the details are shown beside the editor.
SIDE_MIN = 340
#: Columns of the editor's font the editor gets before the details may sit beside it.
COMFORT_COLUMNS = 80

EDITOR, PREVIEW, SIDE = "editor", "preview", "side"


class PaneSplitter(QSplitter):
    """A splitter that tells its :class:`PaneLayout` after each resize (so sizes follow the width)."""

    resized = Signal()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.resized.emit()


class PaneLayout(QObject):
    """Shows and sizes the panes of ``splitter`` (editor, preview, side, in that order).

    ``preview_wanted`` and ``details_wanted`` are the author's choices; ``docked()`` says whether
    the details sit beside the editor and the preview (wide) or are a drawer (narrow)."""

    changed = Signal()   # the shown panes changed (the toolbar follows)

    def __init__(self, splitter: PaneSplitter, editor: QWidget, preview: QWidget, side: QWidget,
                 comfort: int = 680) -> None:
        super().__init__(splitter)
        self.splitter = splitter
        self.panes = {EDITOR: editor, PREVIEW: preview, SIDE: side}
        self.comfort = comfort           # the editor's width for ordinary lines of text
        self.preview_wanted = True
        self.preview_only = False
        self._docked_open = True         # the details beside the editor and the preview (wide)
        self._drawer_open = False        # the details drawer (narrow)
        self._fractions: dict[tuple[str, ...], list[float]] = {}
        self._applying = False
        self._shown: tuple[str, ...] = ()
        splitter.setChildrenCollapsible(False)
        splitter.resized.connect(self.apply)
        splitter.splitterMoved.connect(self._moved)

    # --- what the author chose -------------------------------------------------------

    def dock_width(self) -> int:
        """The width from which the details sit beside the editor and the preview."""
        return self.comfort + PREVIEW_MIN + SIDE_MIN + 2 * self.splitter.handleWidth()

    def docked(self) -> bool:
        return self.splitter.width() >= self.dock_width()

    def details_wanted(self) -> bool:
        return self._docked_open if self.docked() else self._drawer_open

    def set_details(self, on: bool) -> None:
        """Show or hide the details (beside everything when wide, as the drawer when narrow)."""
        if self.docked():
            self._docked_open = on
        else:
            self._drawer_open = on
        if on:
            self.preview_only = False
        self.apply()

    def set_preview(self, on: bool) -> None:
        self.preview_wanted = on
        if on and not self.docked():
            self._drawer_open = False      # narrow: the preview takes back its place from the drawer
        if not on:
            self.preview_only = False
        self.apply()

    def set_preview_only(self, on: bool) -> None:
        self.preview_only = on
        if on:
            self.preview_wanted = True
        self.apply()

    def shown(self) -> tuple[str, ...]:
        """The panes shown now, left to right."""
        return self._shown

    # --- laying out ---------------------------------------------------------------

    def _choose(self, width: int) -> tuple[str, ...]:
        if self.preview_only:
            return (PREVIEW,)
        handle = self.splitter.handleWidth()
        if self.docked():
            wanted = [EDITOR] + ([PREVIEW] if self.preview_wanted else []) + ([SIDE] if self._docked_open else [])
            return tuple(wanted)
        if self._drawer_open:
            return (EDITOR, SIDE) if width >= EDITOR_FLOOR + SIDE_MIN // 2 + handle else (SIDE,)
        if self.preview_wanted and width >= EDITOR_FLOOR + PREVIEW_MIN + handle:
            return (EDITOR, PREVIEW)
        return (EDITOR,)

    def _defaults(self, shown: tuple[str, ...], room: int) -> dict[str, int]:
        """What each pane but the editor would like of ``room`` pixels."""
        want = {}
        if PREVIEW in shown:
            share = 0.30 if SIDE in shown else 0.42
            want[PREVIEW] = max(PREVIEW_MIN, int(room * share))
        if SIDE in shown:
            want[SIDE] = max(SIDE_MIN, min(int(room * (0.25 if PREVIEW in shown else 0.4)), 560))
        return want

    def sizes_for(self, shown: tuple[str, ...], room: int) -> list[int]:
        """The widths of the ``shown`` panes in ``room`` pixels: the author's split when they
        dragged one for these panes, else the defaults; the editor above its floor either way."""
        if len(shown) == 1:
            return [room]
        fractions = self._fractions.get(shown)
        if fractions is not None:
            want = {name: int(room * f) for name, f in zip(shown, fractions, strict=True) if name != EDITOR}
            want = {name: max(w, PREVIEW_MIN if name == PREVIEW else SIDE_MIN) for name, w in want.items()}
        else:
            want = self._defaults(shown, room)
        floor = self.comfort if SIDE in shown and PREVIEW in shown else EDITOR_FLOOR
        floor = min(floor, room - sum(PREVIEW_MIN if n == PREVIEW else SIDE_MIN for n in want))
        over = sum(want.values()) - (room - max(floor, 0))
        if over > 0 and EDITOR in shown:   # the editor keeps its floor: the others give back what they can
            for name in (PREVIEW, SIDE):
                if name in want:
                    least = PREVIEW_MIN if name == PREVIEW else SIDE_MIN
                    give = min(over, want[name] - least)
                    want[name] -= give
                    over -= give
        rest = room - sum(want.values())
        return [rest if name == EDITOR else want[name] for name in shown] if EDITOR in shown \
            else [want[name] for name in shown]

    def apply(self) -> None:
        """Show the panes that fit the splitter's width and size them."""
        if self._applying:
            return
        self._applying = True
        try:
            width = self.splitter.width()
            shown = self._choose(width)
            for name, pane in self.panes.items():
                pane.setVisible(name in shown)
            room = max(0, width - self.splitter.handleWidth() * (len(shown) - 1))
            sizes = dict(zip(shown, self.sizes_for(shown, room), strict=True))
            self.splitter.setSizes([sizes.get(name, 0) for name in (EDITOR, PREVIEW, SIDE)])
        finally:
            self._applying = False
        if shown != self._shown:
            self._shown = shown
            self.changed.emit()

    def _moved(self, _pos: int, _index: int) -> None:
        """The author dragged a split: keep it (as shares of the width) for these panes."""
        if self._applying:
            return
        sizes = [s for s in self.splitter.sizes() if s > 0]
        total = sum(sizes)
        if total > 0 and len(sizes) == len(self._shown):
            self._fractions[self._shown] = [s / total for s in sizes]
        self.apply()   # the floors still hold
