"""Models of a health run: every skill's scores (with a name/band filter), the plan with its
check boxes, and the near-duplicate pairs."""

from __future__ import annotations

import dataclasses

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QColor

from skill_studio.core.health.checks import BAND_ROLES, PlannedAction, SkillHealth
from skill_studio.ui.safe_text import literal
from skill_studio.ui.theme import ROLE_FILLS, current_tokens

#: The raw value of a cell (a float for scores, an int for uses): sorting and bars read it.
VALUE_ROLE = Qt.UserRole + 1
#: The skill a row is about.
NAME_ROLE = Qt.UserRole + 2
#: The band of a row's skill (healthy, fair, poor, critical, failing).
BAND_ROLE = Qt.UserRole + 3
#: The rule of a plan row that reports a family of skills made from one template: never applied.
FAMILY_RULE = "template-family"

#: (attribute, header) of the skills table; the last five are drawn as bars.
SKILL_COLUMNS = (("name", "Skill"), ("lifecycle", "Lifecycle"), ("origin", "Origin"), ("uses", "Uses"),
                 ("band", "Band"), ("health", "Health"), ("utility", "Utility"), ("redundancy", "Redundancy"),
                 ("freshness", "Freshness"), ("failure_risk", "Failure risk"))
BAR_COLUMNS = tuple(i for i, (attr, _) in enumerate(SKILL_COLUMNS)
                    if attr in ("health", "utility", "redundancy", "freshness", "failure_risk"))
HEALTH_COLUMN = next(i for i, (attr, _) in enumerate(SKILL_COLUMNS) if attr == "health")
BAND_COLUMN = next(i for i, (attr, _) in enumerate(SKILL_COLUMNS) if attr == "band")
#: Columns sorted by a skill's standing (failing skills below all others, then by health).
STANDING_COLUMNS = (BAND_COLUMN, HEALTH_COLUMN)


class SkillHealthModel(QAbstractTableModel):
    """One row per SkillHealth of the latest run; the rows are held, never queried per call."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._rows: list[SkillHealth] = []

    def set_skills(self, skills: list[SkillHealth]) -> None:
        self.beginResetModel()
        self._rows = list(skills)
        self.endResetModel()

    def skill(self, row: int) -> SkillHealth:
        return self._rows[row]

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(SKILL_COLUMNS)

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if orientation == Qt.Horizontal and role == Qt.DisplayRole and 0 <= section < len(SKILL_COLUMNS):
            return SKILL_COLUMNS[section][1]
        return None

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid() or not (0 <= index.row() < len(self._rows)):
            return None
        s = self._rows[index.row()]
        attr = SKILL_COLUMNS[index.column()][0]
        value = getattr(s, attr)
        if role == VALUE_ROLE:
            return getattr(value, "value", value)
        if role == Qt.DisplayRole:
            if isinstance(value, float):
                return f"{value:.2f}"
            return str(getattr(value, "value", value))
        if role == NAME_ROLE:
            return s.name
        if role == BAND_ROLE:
            return s.band
        if role == Qt.ToolTipRole and index.column() == BAND_COLUMN:
            return literal(f"{s.band}: {s.why}")
        if role == Qt.ToolTipRole and index.column() == HEALTH_COLUMN:
            return literal(f"{s.name}: health {s.health:.2f} ({s.band}: {s.why})")
        if role == Qt.ForegroundRole and index.column() == BAND_COLUMN and s.band in BAND_ROLES:
            return QColor(ROLE_FILLS[BAND_ROLES[s.band]])
        if role == Qt.TextAlignmentRole and attr == "uses":
            return int(Qt.AlignRight | Qt.AlignVCenter)
        return None


class HealthFilterProxy(QSortFilterProxyModel):
    """Rows whose name holds the filter text and whose band is the one chosen (or any);
    sorted by the raw values, so numbers sort as numbers."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._text, self._band = "", ""
        self.setSortRole(VALUE_ROLE)
        self.setSortCaseSensitivity(Qt.CaseInsensitive)

    def set_text(self, text: str) -> None:
        self.beginFilterChange()
        self._text = text.strip().lower()
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def set_band(self, band: str) -> None:
        """'' for every band."""
        self.beginFilterChange()
        self._band = band
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def lessThan(self, left, right) -> bool:
        if left.column() in STANDING_COLUMNS and right.column() in STANDING_COLUMNS:
            model = self.sourceModel()
            a, b = model.skill(left.row()), model.skill(right.row())
            return (a.standing, a.name) < (b.standing, b.name)
        return super().lessThan(left, right)

    def filterAcceptsRow(self, row: int, parent) -> bool:
        index = self.sourceModel().index(row, 0, parent)
        if self._text and self._text not in (index.data(NAME_ROLE) or "").lower():
            return False
        return not self._band or index.data(BAND_ROLE) == self._band


PLAN_COLUMNS = ("Skill", "Action", "Why", "Details")
#: Each rule of the plan in plain words (an unknown rule shows with its dashes as spaces).
RULE_WORDS = {"stale": "unused", "low-health": "low health", "sustained-drop": "health dropping",
              "near-duplicate": "near-duplicate", FAMILY_RULE: "made from one template", "failing": "failing"}


def rule_words(rule: str) -> str:
    return RULE_WORDS.get(rule, rule.replace("-", " "))


def is_family(action: PlannedAction) -> bool:
    """A row reporting skills made from one template: reported once, never applied."""
    return action.rule == FAMILY_RULE


def family_members(action: PlannedAction) -> list[str]:
    return list(getattr(action, "members", None) or [action.skill])


class PlanModel(QAbstractTableModel):
    """The planned actions: a move that applies has a check box (checked: it will be applied);
    an action reported only is shown disabled, without a box that can be ticked. A template
    family is one row, its member count beside the first member, every member in its tooltip;
    it is never applied."""

    checkedChanged = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self._actions: list[PlannedAction] = []
        self._checked: list[bool] = []
        self._applied: set[int] = set()

    def set_actions(self, actions: list[PlannedAction]) -> None:
        self.beginResetModel()
        self._actions = [dataclasses.replace(a, applies=False) if is_family(a) and a.applies else a
                         for a in actions]
        self._checked = [a.applies for a in self._actions]
        self._applied = set()
        self.endResetModel()
        self.checkedChanged.emit()

    def actions(self) -> list[PlannedAction]:
        return list(self._actions)

    def action(self, row: int) -> PlannedAction:
        return self._actions[row]

    def checkable(self, row: int) -> bool:
        return self._actions[row].applies and row not in self._applied

    def checked_actions(self) -> list[PlannedAction]:
        """The moves that will be applied."""
        return [a for i, a in enumerate(self._actions) if self.checkable(i) and self._checked[i]]

    def excluded_skills(self) -> list[str]:
        """The skills of the moves unticked by the user."""
        return [a.skill for i, a in enumerate(self._actions) if self.checkable(i) and not self._checked[i]]

    def set_checked(self, row: int, checked: bool) -> bool:
        return self.setData(self.index(row, 0), Qt.Checked if checked else Qt.Unchecked, Qt.CheckStateRole)

    def mark_applied(self, skills: set[str], applied: bool = True) -> None:
        """The moves of these skills are done: they stay listed, no longer checkable (with
        ``applied`` False, they were undone: they can be ticked and applied again)."""
        for i, a in enumerate(self._actions):
            if a.applies and a.skill in skills:
                if applied:
                    self._applied.add(i)
                else:
                    self._applied.discard(i)
        if self._actions:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self._actions) - 1, len(PLAN_COLUMNS) - 1))
        self.checkedChanged.emit()

    def remove_review(self, a: str, b: str) -> None:
        """Drop the near-duplicate review of the pair (a, b), in either order."""
        for i, act in enumerate(self._actions):
            if act.rule == "near-duplicate" and {act.skill, act.target} == {a, b}:
                self.beginRemoveRows(QModelIndex(), i, i)
                del self._actions[i], self._checked[i]
                self._applied = {j - (j > i) for j in self._applied if j != i}
                self.endRemoveRows()
                return

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._actions)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(PLAN_COLUMNS)

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if orientation == Qt.Horizontal and role == Qt.DisplayRole and 0 <= section < len(PLAN_COLUMNS):
            return PLAN_COLUMNS[section]
        return None

    def flags(self, index):
        if not index.isValid():
            return Qt.NoItemFlags
        if not self.checkable(index.row()):
            return Qt.ItemNeverHasChildren       # disabled: greyed, no box to tick
        flags = Qt.ItemIsEnabled | Qt.ItemIsSelectable | Qt.ItemNeverHasChildren
        return flags | Qt.ItemIsUserCheckable if index.column() == 0 else flags

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid() or not (0 <= index.row() < len(self._actions)):
            return None
        row, a = index.row(), self._actions[index.row()]
        if role == Qt.DisplayRole:
            if index.column() == 1 and row in self._applied:
                return f"{a.action} (applied)"
            if index.column() == 1 and not a.applies:
                return f"{a.action} (reported)"
            if index.column() == 0 and is_family(a):
                return f"{a.skill} + {len(family_members(a)) - 1} more ({len(family_members(a))} skills)"
            return (a.skill, a.action, rule_words(a.rule), a.reason)[index.column()]
        if role == Qt.CheckStateRole and index.column() == 0:
            return Qt.Checked if self.checkable(row) and self._checked[row] else Qt.Unchecked
        if role == Qt.ToolTipRole and is_family(a):
            members = family_members(a)
            return literal(f"{a.reason}\n\nThe {len(members)} skills of the family (reported once, never merged "
                           "or moved):\n" + "\n".join(f"• {m}" for m in members))
        if role == Qt.ToolTipRole:
            return literal(a.reason)
        if role == Qt.ForegroundRole and not self.checkable(row):
            return QColor(current_tokens().text_muted)
        if role == NAME_ROLE:
            return a.skill
        return None

    def setData(self, index, value, role=Qt.EditRole) -> bool:
        if role != Qt.CheckStateRole or not index.isValid() or index.column() != 0 \
                or not self.checkable(index.row()):
            return False
        checked = Qt.CheckState(value) == Qt.Checked if not isinstance(value, bool) else value
        self._checked[index.row()] = checked
        self.dataChanged.emit(index, index, [Qt.CheckStateRole])
        self.checkedChanged.emit()
        return True


PAIR_COLUMNS = ("Merge", "into", "Similarity")


class PairModel(QAbstractTableModel):
    """Near-duplicate pairs as (source, target, similarity): the source is the one the plan
    suggests merging into the target."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._pairs: list[tuple[str, str, float]] = []

    def set_pairs(self, pairs: list[tuple[str, str, float]]) -> None:
        self.beginResetModel()
        self._pairs = list(pairs)
        self.endResetModel()

    def pair(self, row: int) -> tuple[str, str, float]:
        return self._pairs[row]

    def pairs(self) -> list[tuple[str, str, float]]:
        return list(self._pairs)

    def remove(self, row: int) -> None:
        self.beginRemoveRows(QModelIndex(), row, row)
        del self._pairs[row]
        self.endRemoveRows()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._pairs)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(PAIR_COLUMNS)

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if orientation == Qt.Horizontal and role == Qt.DisplayRole and 0 <= section < len(PAIR_COLUMNS):
            return PAIR_COLUMNS[section]
        return None

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid() or not (0 <= index.row() < len(self._pairs)):
            return None
        source, target, sim = self._pairs[index.row()]
        if role == Qt.DisplayRole:
            return (source, target, f"{sim:.2f}")[index.column()]
        if role == VALUE_ROLE:
            return (source, target, sim)[index.column()]
        if role == Qt.TextAlignmentRole and index.column() == 2:
            return int(Qt.AlignRight | Qt.AlignVCenter)
        if role == Qt.ToolTipRole:
            return literal(f"{source} is {sim:.2f} similar to {target}; suggested: merge {source} into {target}")
        return None
