"""The inspector beside the browser: one skill's state, scores, relations, validation and files."""

from __future__ import annotations

import html
import sqlite3

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QTextDocumentFragment
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from skill_studio.core.model import Lifecycle, Origin, Skill, TrustTier
from skill_studio.core.store import NotFound, Store, StoreError
from skill_studio.ui.library.marks import icon_data_url, stars_html
from skill_studio.ui.library.models import relative_time
from skill_studio.ui.library.score_bar import ScoreBar
from skill_studio.ui.safe_text import literal
from skill_studio.ui.theme import LIFECYCLE_COLORS, ON_FILL, Tokens, current_tokens

EMPTY_TEXT = "Select a skill to see its details."
EMPTY_HINTS = ("Double-click a skill (or press Enter) to edit it. Click a tag on a card to see the skills "
               "with that tag; click a star to set a skill's trust.")
MISSING_TIP = "not in the library"
#: Relation sections in display order: key, heading.
RELATIONS = (("parent", "Parent"), ("depends_on", "Depends on"), ("dependents", "Needed by"),
             ("conflicts", "Conflicts with"))
MAX_RELATED = 40      # names listed per section before "and N more"


class DetailPanel(QWidget):
    """Everything about one skill, read-only, in a scrollable column.

    ``show_skill(name)`` fills it; names of related skills are links that emit
    ``skillLinkActivated(name)``. Widgets are rebuilt on each call: a skill has
    few enough fields that this costs less than keeping them in step.
    """

    skillLinkActivated = Signal(str)
    openRequested = Signal(str)   # "Open in designer" for the skill shown
    moveRequested = Signal(str, str)    # name, lifecycle action
    pinRequested = Signal(str, bool)
    trustRequested = Signal(str, int)   # name, tier (a star was clicked)

    def __init__(self, store: Store, parent=None, *, load: bool = True):
        """``load`` False: nothing is shown (nor the library's counts read) until :meth:`show_skill`."""
        super().__init__(parent)
        self._store = store
        self._name: str | None = None
        self._tokens: Tokens | None = None
        self.relations: dict[str, list[tuple[str, bool]]] = {}
        self.labels: dict[str, QLabel] = {}
        #: More sections after the built-in ones: ``section(panel, skill, column)`` (e.g. bindings).
        self.extra_sections: list = []
        self._scroll = QScrollArea(self)
        self._scroll.setWidgetResizable(True)
        self._scroll.setFrameShape(QFrame.NoFrame)
        self._scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.open_button = QPushButton("Open in designer", self)
        self.open_button.setToolTip("Edit this skill's SKILL.md, metadata and files (Enter)")
        self.open_button.clicked.connect(lambda: self._name and self.openRequested.emit(self._name))
        buttons = QHBoxLayout()
        buttons.setContentsMargins(14, 8, 14, 0)
        buttons.addWidget(self.open_button)
        from skill_studio.ui.review.review_bar import ReviewBar

        self.review_bar = ReviewBar(self)
        self.review_bar.moveRequested.connect(lambda a: self._name and self.moveRequested.emit(self._name, a))
        self.review_bar.pinRequested.connect(lambda on: self._name and self.pinRequested.emit(self._name, on))
        buttons.addWidget(self.review_bar)
        buttons.addStretch(1)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addLayout(buttons)
        outer.addWidget(self._scroll)
        if load:
            self.show_skill(None)
        else:
            self.open_button.setVisible(False)
            self.review_bar.set_skill(None)

    # --- public ----------------------------------------------------------------

    @property
    def skill_name(self) -> str | None:
        """The skill shown, or None in the empty state."""
        return self._name

    def show_skill(self, name: str | None) -> None:
        """Show the named skill; None or a name not in the store shows the empty state."""
        skill = None
        if name:
            try:
                skill = self._store.get(name, with_files=False)
            except (NotFound, StoreError, sqlite3.Error):  # gone, or the store was closed
                skill = None
        self._name = skill.name if skill else None
        self.open_button.setVisible(skill is not None)
        self.review_bar.set_skill(skill)
        self._tokens = current_tokens()
        self.relations, self.labels = {}, {}
        content = QWidget()
        content.setObjectName("detailContent")
        col = QVBoxLayout(content)
        col.setContentsMargins(14, 12, 14, 14)
        col.setSpacing(4)
        if skill is None:
            self._build_empty(col)
        else:
            self._build(skill, col)
        self._scroll.setWidget(content)   # deletes the previous content

    def plain_text(self, key: str) -> str:
        """What the user reads in the field ``key`` ('name', 'trust', 'lifecycle', 'validation', ...),
        without markup; '' when the field is not shown."""
        lab = self.labels.get(key)
        if lab is None:
            return ""
        if lab.property("plain") is not None:   # pictures in the text: their words
            return str(lab.property("plain"))
        if lab.textFormat() == Qt.RichText:
            return QTextDocumentFragment.fromHtml(lab.text()).toPlainText().replace("\xa0", " ")
        return lab.text()

    def refresh(self) -> None:
        """Show the current skill again (after it changed, or the theme did)."""
        self.show_skill(self._name)

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.PaletteChange and self._tokens is not None \
                and current_tokens() != self._tokens:
            QTimer.singleShot(0, self, self.refresh)   # not after the panel is gone

    # --- building ----------------------------------------------------------------

    def _label(self, text: str, *, key: str | None = None, muted: bool = False, rich: bool = False,
               wrap: bool = True) -> QLabel:
        lab = QLabel(text)
        lab.setTextFormat(Qt.RichText if rich else Qt.PlainText)
        lab.setWordWrap(wrap)
        lab.setTextInteractionFlags(Qt.TextSelectableByMouse | Qt.LinksAccessibleByMouse)
        if muted:
            lab.setStyleSheet(f"color: {self._tokens.text_muted};")
        if key:
            lab.setObjectName(key)
            self.labels[key] = lab
        return lab

    def _section(self, col: QVBoxLayout, title: str) -> None:
        col.addSpacing(10)
        head = QLabel(title.upper())
        head.setStyleSheet(f"color: {self._tokens.text_muted}; font-size: 10px; font-weight: 700;"
                           "letter-spacing: 1px;")
        col.addWidget(head)
        rule = QFrame()
        rule.setFixedHeight(1)
        rule.setStyleSheet(f"background: {self._tokens.border}; border: none;")
        col.addWidget(rule)
        col.addSpacing(4)

    def _build_empty(self, col: QVBoxLayout) -> None:
        # Compact: a one-line hint, the library's counts and what one can do here.
        col.addWidget(self._label(EMPTY_TEXT, key="empty"))
        try:
            stats = self._store.stats()
            counts = f"{stats['total']} skills in the library, {stats['active']} active"
            if stats["awaiting_review"]:
                counts += f", {stats['awaiting_review']} awaiting review"
            col.addWidget(self._label(counts + ".", key="empty_counts", muted=True))
        except (StoreError, sqlite3.Error):   # the store was closed: the hint alone
            pass
        col.addWidget(self._label(EMPTY_HINTS, key="empty_hints", muted=True))
        col.addStretch(1)

    def _build(self, skill: Skill, col: QVBoxLayout) -> None:
        t = self._tokens
        title = self._label(skill.name, key="name")
        title.setProperty("role", "heading")
        title.setStyleSheet("font-size: 16px; font-weight: 600;")
        col.addWidget(title)
        col.addWidget(self._label(skill.description, key="description"))
        col.addSpacing(6)
        col.addLayout(self._state_row(skill))
        if skill.lifecycle_reason:
            col.addWidget(self._label(skill.lifecycle_reason, key="reason", muted=True))
        meta = html.escape(f"{skill.origin.value} · version {skill.version}")
        if skill.pinned:
            pin = icon_data_url("pin", t.text_muted, 12)
            meta += f' · <img src="{pin}" width="12" height="12"> pinned'
        meta_label = self._label(meta, key="meta", muted=True, rich=True)
        meta_label.setProperty("plain", f"{skill.origin.value} · version {skill.version}"
                               + (" · pinned" if skill.pinned else ""))
        col.addWidget(meta_label)
        if skill.tags:
            chips = "&nbsp; ".join(
                f'<span style="background:{t.surface_alt}; color:{t.text};">&nbsp;{html.escape(tag)}&nbsp;</span>'
                for tag in skill.tags)
            col.addWidget(self._label(chips, key="tags", rich=True))

        self._section(col, "Scores")
        col.addLayout(self._scores(skill))

        self._section(col, "Relations")
        col.addLayout(self._relations(skill))

        files = self._store.file_list(skill.name)
        self._section(col, "Validation")
        self._validation(skill, files, col)

        self._section(col, "Files")
        self._files(skill, files, col)
        for section in self.extra_sections:
            section(self, skill, col)
        col.addStretch(1)

    def add_section(self, col: QVBoxLayout, title: str) -> None:
        """A section heading, for the extra sections."""
        self._section(col, title)

    def add_label(self, col: QVBoxLayout, text: str, *, key: str | None = None, rich: bool = False) -> QLabel:
        """A line of text in an extra section (``key`` makes it readable by plain_text)."""
        lab = self._label(text, key=key, rich=rich)
        col.addWidget(lab)
        return lab

    def _state_row(self, skill: Skill) -> QHBoxLayout:
        row = QHBoxLayout()
        row.setSpacing(10)
        state = Lifecycle(skill.lifecycle)
        badge = self._label(state.label, key="lifecycle", wrap=False)
        badge.setStyleSheet(f"background: {LIFECYCLE_COLORS[state]}; color: {ON_FILL}; border-radius: 4px;"
                            "padding: 2px 8px; font-size: 11px; font-weight: 600;")
        badge.setToolTip(literal(skill.lifecycle_reason))
        badge.setSizePolicy(QSizePolicy.Fixed, QSizePolicy.Fixed)
        tier = TrustTier(skill.trust_tier)
        size = max(10, self.fontMetrics().height() - 2)
        # Drawn as the cards draw them; a reviewer clicks a star (tiers 1-3) to set the tier.
        glyphs = stars_html(int(tier), self._tokens, size, 0 if skill.origin == Origin.BUILTIN else 3)
        stars = self._label(f'{glyphs}&nbsp;{html.escape(tier.label)}', key="trust", rich=True, wrap=False)
        stars.setProperty("plain", f"{tier.stars} {tier.label}")
        stars.linkActivated.connect(lambda href: self.trustRequested.emit(skill.name, int(href[6:])))
        stars.setToolTip(f"Trust tier {int(tier)} of 4" + ("" if skill.origin == Origin.BUILTIN
                                                           else ": click a star to change it"))
        row.addWidget(badge)
        row.addWidget(stars)
        row.addStretch(1)
        return row

    def _scores(self, skill: Skill) -> QGridLayout:
        t = self._tokens
        grid = QGridLayout()
        grid.setHorizontalSpacing(10)
        grid.setVerticalSpacing(5)
        grid.setColumnStretch(1, 1)
        bars = (("Success", skill.success_rate, f"{skill.success_rate:.0%}", t.accent, "success"),
                ("Utility", skill.utility_score, f"{skill.utility_score:.2f}", t.bar_utility, "utility"),
                ("Freshness", skill.freshness, f"{skill.freshness:.2f}", t.bar_freshness, "freshness"))
        for row, (label, value, text, color, key) in enumerate(bars):
            grid.addWidget(self._label(label, muted=True, wrap=False), row, 0)
            grid.addWidget(ScoreBar(value, color, t.bar_back), row, 1, Qt.AlignVCenter)
            value_label = self._label(text, key=key, wrap=False)
            value_label.setAlignment(Qt.AlignRight | Qt.AlignVCenter)
            value_label.setMinimumWidth(36)
            grid.addWidget(value_label, row, 2)
        uses = f"{skill.use_count}"
        if skill.use_count:
            uses += f" ({skill.success_count} succeeded, {skill.failure_count} failed)"
        facts = (("Uses", uses, "uses", None), ("Last used", relative_time(skill.last_used_at), "last_used",
                                                  skill.last_used_at),
                 ("Created", relative_time(skill.created_at), "created", skill.created_at),
                 ("Updated", relative_time(skill.updated_at), "updated", skill.updated_at))
        for row, (label, text, key, tip) in enumerate(facts, start=len(bars)):
            grid.addWidget(self._label(label, muted=True, wrap=False), row, 0)
            value_label = self._label(text, key=key)
            if tip:
                value_label.setToolTip(tip)
            grid.addWidget(value_label, row, 1, 1, 2)
        return grid

    def _relations(self, skill: Skill) -> QGridLayout:
        groups = {"parent": [skill.parent_skill_id] if skill.parent_skill_id else [],
                  "depends_on": list(skill.depends_on), "dependents": self._store.dependents(skill.name),
                  "conflicts": list(skill.conflicts_with)}
        wanted = list(dict.fromkeys(n for names in groups.values() for n in names[:MAX_RELATED]))
        cards = {c.name: c for c in self._store.cards(wanted)} if wanted else {}
        grid = QGridLayout()
        grid.setHorizontalSpacing(10)
        grid.setVerticalSpacing(3)
        grid.setColumnStretch(1, 1)
        row = 0
        for key, heading in RELATIONS:
            names = groups[key]
            self.relations[key] = [(n, n in cards) for n in names[:MAX_RELATED]]
            grid.addWidget(self._label(heading, muted=True, wrap=False), row, 0, Qt.AlignTop)
            if not names:
                grid.addWidget(self._label("none", key=f"{key}:none", muted=True), row, 1)
                row += 1
                continue
            for name in names[:MAX_RELATED]:
                grid.addWidget(self._link(key, name, cards.get(name)), row, 1)
                row += 1
            if len(names) > MAX_RELATED:
                grid.addWidget(self._label(f"and {len(names) - MAX_RELATED} more", muted=True), row, 1)
                row += 1
        return grid

    def _link(self, key: str, name: str, card: Skill | None) -> QLabel:
        t = self._tokens
        safe = html.escape(name)
        if card is None:
            lab = self._label(f'<span style="color:{t.text_muted}; text-decoration: line-through;">{safe}</span>',
                              key=f"link:{key}:{name}", rich=True)
            lab.setToolTip(MISSING_TIP)
            return lab
        state = Lifecycle(card.lifecycle)
        lab = self._label(f'<a href="{html.escape(name, quote=True)}" style="color:{t.accent}; '
                          f'text-decoration: none;">{safe}</a>'
                          f'&nbsp;&nbsp;<span style="color:{t.text_muted}; font-size: 11px;">'
                          f'{state.value}</span>', key=f"link:{key}:{name}", rich=True)
        lab.setTextInteractionFlags(Qt.LinksAccessibleByMouse | Qt.LinksAccessibleByKeyboard)
        lab.setToolTip(literal(card.description))
        lab.linkActivated.connect(self.skillLinkActivated)
        return lab

    def _validation(self, skill: Skill, files: list[tuple[str, int, int]], col: QVBoxLayout) -> None:
        from skill_studio.ui.library.detail_validation import validation_words

        t = self._tokens
        words = validation_words(skill, [p for p, _, _ in files])
        status = self._label(words.strict, key="validation")
        status.setStyleSheet(f"color: {t.success if words.strict_passes else t.error}; font-weight: 600;")
        col.addWidget(status)
        col.addWidget(self._label(words.lenient, key="validation_lenient", muted=True))
        for text, hint in words.problems:
            lab = self._label(text, key=f"diag:{len(self.labels)}")
            lab.setStyleSheet(f"color: {t.text}; font-size: 11px; margin-left: 4px;")
            if hint:
                lab.setToolTip(literal(hint))
            col.addWidget(lab)
        if words.more:
            col.addWidget(self._label(f"and {words.more} more", muted=True))

    def _files(self, skill: Skill, files: list[tuple[str, int, int]], col: QVBoxLayout) -> None:
        from skill_studio.ui.designer.file_rules import human_size  # loaded with a skill's files

        grid = QGridLayout()
        grid.setHorizontalSpacing(10)
        grid.setVerticalSpacing(3)
        grid.setColumnStretch(0, 1)
        rows = [(skill.md_filename, 0o644, len(skill.skill_md.encode("utf-8"))), *files]
        for row, (path, mode, size) in enumerate(rows):
            name = self._label(path, key=f"file:{path}")
            grid.addWidget(name, row, 0)
            extra = human_size(size) + (" · executable" if mode & 0o111 else "")
            info = self._label(extra, key=f"filesize:{path}", muted=True, wrap=False)
            info.setAlignment(Qt.AlignRight | Qt.AlignTop)
            grid.addWidget(info, row, 1)
        col.addLayout(grid)
