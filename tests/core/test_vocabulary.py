"""Each vocabulary is defined once, and every table built on it covers every member: a new lifecycle
state, origin, health band or install state that a table forgets fails here, not at paint time."""

from __future__ import annotations

import re
import sqlite3

import pytest

from skill_studio.core.health.checks import BAND_NAMES, BAND_ROLES, BANDS, FAILING
from skill_studio.core.library.install import CHANGED_BY_HAND, INSTALL_STATES
from skill_studio.core.model import (
    ENTRY_DEFAULTS,
    EXPOSED_STATES,
    LIFECYCLE_ORDER,
    LIFECYCLE_TERMS,
    ORIGIN_TERMS,
    REVIEW_STATES,
    SHELVED_STATES,
    UNSEARCHED_STATES,
    Lifecycle,
    Origin,
    TrustTier,
)
from skill_studio.core.review.lifecycle import MOVES, allowed_moves
from skill_studio.core.store import Store
from skill_studio.core.store.rows import SORT_COLUMNS

ROLES = {"success", "info", "attention", "warning", "danger", "muted"}


def test_every_lifecycle_state_has_its_terms_and_a_place():
    assert set(LIFECYCLE_TERMS) == set(Lifecycle)
    assert sorted(t.rank for t in LIFECYCLE_TERMS.values()) == list(range(len(Lifecycle)))
    assert set(LIFECYCLE_ORDER) == set(Lifecycle)
    assert {t.colour_role for t in LIFECYCLE_TERMS.values()} <= ROLES
    assert all(t.label and t.meaning for t in LIFECYCLE_TERMS.values())
    assert len({t.label for t in LIFECYCLE_TERMS.values()}) == len(Lifecycle)


def test_the_derived_sets_follow_the_table():
    assert EXPOSED_STATES == {s for s in Lifecycle if LIFECYCLE_TERMS[s].exposed}
    assert set(REVIEW_STATES) == {s for s in Lifecycle if LIFECYCLE_TERMS[s].in_review}
    assert SHELVED_STATES == {s for s in Lifecycle if LIFECYCLE_TERMS[s].shelved}
    assert UNSEARCHED_STATES == {s for s in Lifecycle if not LIFECYCLE_TERMS[s].searchable}
    # SPEC §8: agents see verified, released and degraded skills; the queue holds candidates and degraded ones.
    assert EXPOSED_STATES == {Lifecycle.VERIFIED, Lifecycle.RELEASED, Lifecycle.DEGRADED}
    assert set(REVIEW_STATES) == {Lifecycle.CANDIDATE, Lifecycle.DEGRADED}


def test_every_move_goes_between_states_and_every_state_can_move():
    for action, table in MOVES.items():
        assert set(table) <= set(Lifecycle) and set(table.values()) <= set(Lifecycle), action
    for state in Lifecycle:
        assert allowed_moves(state), f"{state.value} is a dead end"


def test_every_origin_has_its_entry_state_and_meaning():
    assert set(ORIGIN_TERMS) == set(Origin) == set(ENTRY_DEFAULTS)
    for origin, terms in ORIGIN_TERMS.items():
        lifecycle, tier = terms.entry
        assert isinstance(lifecycle, Lifecycle) and isinstance(tier, TrustTier) and terms.meaning, origin


def test_health_bands_and_install_states_name_a_colour_role():
    assert [band for band, _low in BANDS] + [FAILING] == list(BAND_NAMES) == list(BAND_ROLES)
    assert set(BAND_ROLES.values()) <= ROLES
    assert set(INSTALL_STATES.values()) <= ROLES
    assert set(CHANGED_BY_HAND) <= set(INSTALL_STATES)


def test_the_store_accepts_every_state_and_origin_and_sorts_every_state(tmp_path):
    Store(tmp_path / "s.db").close()
    conn = sqlite3.connect(tmp_path / "s.db")
    (sql,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'procedural_memory'").fetchone()
    conn.close()
    for value in [s.value for s in Lifecycle] + [o.value for o in Origin]:
        assert f"'{value}'" in sql
    ranks = dict(re.findall(r"WHEN '(\w+)' THEN (\d+)", SORT_COLUMNS["lifecycle"]))
    assert {Lifecycle(k): int(v) for k, v in ranks.items()} == {s: t.rank for s, t in LIFECYCLE_TERMS.items()}


@pytest.mark.parametrize("table", ["LIFECYCLE_COLORS", "ROLE_FILLS"])
def test_the_theme_paints_every_state_and_role(table):
    from skill_studio.ui import theme

    colours = getattr(theme, table)
    assert set(colours) == (set(Lifecycle) if table == "LIFECYCLE_COLORS" else ROLES)
    assert all(re.fullmatch(r"#[0-9a-f]{6}", c) for c in colours.values())
    for tokens in (theme.LIGHT, theme.DARK):
        assert all(theme.role_text(tokens, role) for role in ROLES)


def test_the_filter_tabs_offer_every_state_in_order():
    from skill_studio.ui.library.filter_bar import TABS

    assert [value for value, _label in TABS[1:]] == [s.value for s in LIFECYCLE_ORDER]


def test_every_severity_has_its_mark_in_both_themes():
    from skill_studio.core.format.diagnostics import Severity
    from skill_studio.ui import theme

    for dark in (False, True):
        assert set(theme.SEVERITY_MARKS[dark]) == {s.value for s in Severity}
        assert set(theme.DIFF_COLOURS[dark]) == set(theme.DIFF_COLOURS[not dark])
        assert set(theme.SYNTAX_COLOURS[dark]) == set(theme.SYNTAX_COLOURS[not dark])


COLOUR = re.compile(r"#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b|\bQt\.(?:red|green|blue|yellow|black|white|gray|darkGray)\b"
                    r"|QColor\(\s*\"(?:red|green|blue|orange|grey|gray|black|white)\"")


def test_colours_are_written_only_in_the_theme():
    from pathlib import Path

    ui = Path(__file__).resolve().parents[2] / "skill_studio" / "ui"
    found = [f"{path.relative_to(ui)}:{n}: {line.strip()}"
             for path in ui.rglob("*.py") if path.name != "theme.py"
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if COLOUR.search(line)]
    assert not found, "colours outside ui/theme.py:\n" + "\n".join(found)


def test_every_move_has_its_words():
    from skill_studio.core.review.lifecycle import MOVE_TERMS

    assert set(MOVE_TERMS) == set(MOVES)
    assert all(t.title and t.question.endswith("?") and t.summary for t in MOVE_TERMS.values())
    assert len({t.title for t in MOVE_TERMS.values()}) == len(MOVE_TERMS)
