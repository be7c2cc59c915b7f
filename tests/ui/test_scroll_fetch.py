"""While the cards scroll: the cards about to come into sight are fetched between frames, and give
the very cards a fetch while painting gives; strict checks wait until the asking settles, and the
skills asked for last are checked first."""

from __future__ import annotations

import pytest
from test_card_paint_cache import shown_cards

from skill_studio.ui.library import models, verdicts
from skill_studio.ui.library.models import SkillListModel
from skill_studio.ui.library.verdicts import VerdictCache


class Counting:
    """The store, counting the pages of cards read from it."""

    def __init__(self, store):
        self._store = store
        self.pages = 0

    def cards(self, names):
        self.pages += 1
        return self._store.cards(names)

    def __getattr__(self, attr):
        return getattr(self._store, attr)


@pytest.fixture
def small_pages(monkeypatch):
    monkeypatch.setattr(models, "PAGE", 2)


def _fields(skill):
    return None if skill is None else (skill.name, skill.description, skill.version, skill.lifecycle,
                                       skill.trust_tier, skill.tags, skill.pinned, skill.utility_score)


def test_fetched_ahead_gives_the_cards_painting_would_fetch(seeded_store, small_pages):
    store = Counting(seeded_store)
    ahead, plain = SkillListModel(store), SkillListModel(seeded_store)
    ahead.reload()
    plain.reload()
    rows = ahead.rowCount()
    assert ahead.prefetch(3, 6) == 3            # rows 3-6: pages 1, 2 and 3
    assert ahead.prefetch(3, 6) == 0            # held: nothing read again
    assert ahead.prefetch(-5, -1) == 0 and ahead.prefetch(rows, rows + 9) == 0   # no such rows
    read = store.pages
    assert [_fields(ahead.skill_at(r)) for r in range(2, 8)] == [_fields(plain.skill_at(r)) for r in range(2, 8)]
    assert store.pages == read                  # rows 2-7 were all held
    assert [_fields(ahead.skill_at(r)) for r in range(rows)] == [_fields(plain.skill_at(r)) for r in range(rows)]


@pytest.fixture
def cards(qtbot, seeded_store, small_pages):
    store = Counting(seeded_store)
    view, model = shown_cards(qtbot, store, 560, 330)   # two columns, about two rows of cards in sight
    yield view, model, store
    model.verdicts.shutdown()


def test_a_small_scroll_fetches_the_next_cards_between_frames(qtbot, cards):
    view, model, store = cards
    bar = view.verticalScrollBar()
    assert bar.maximum() > 2 * bar.singleStep()
    bar.setValue(bar.singleStep())              # a wheel step down
    rows = view.rows_ahead()
    assert rows is not None and rows[0] > view.indexAt(view.viewport().rect().bottomLeft()).row()
    wanted = range(rows[0], min(rows[1], model.rowCount() - 1) + 1)
    qtbot.waitUntil(lambda: all(r // models.PAGE in model._pages for r in wanted))
    read = store.pages
    bar.setValue(bar.value() + bar.singleStep())   # the rows fetched ahead come into sight
    view.viewport().repaint()
    shown = {view.indexAt(view.viewport().rect().topLeft()).row(), rows[0]}
    assert all(r // models.PAGE in model._pages for r in shown)
    assert store.pages - read <= 1              # at most the page after them, fetched ahead again


def test_up_fetches_the_rows_above_and_a_jump_fetches_nothing_ahead(qtbot, cards):
    view, _model, _store = cards
    bar = view.verticalScrollBar()
    bar.setValue(bar.maximum())                 # a jump: the next place is anyone's guess
    assert view.rows_ahead() is None
    bar.setValue(bar.maximum() - bar.singleStep())
    first, last = view.rows_ahead()
    assert last < view.indexAt(view.viewport().rect().topLeft()).row() and first <= last


def test_checks_wait_until_the_asking_settles_and_the_newest_go_first(qtbot, seeded_store, monkeypatch):
    monkeypatch.setattr(verdicts, "BATCH", 2)
    cache = VerdictCache(seeded_store)
    names = seeded_store.names()[:4]
    for name in names:
        assert cache.verdict(name, seeded_store.get(name).version) is None
    assert cache.busy() and cache._run is None   # nothing checked while skills are still being asked for
    with qtbot.waitSignal(cache.verdictsReady, timeout=5000) as first:
        pass
    assert first.args[0] == sorted(names[2:])    # the two asked for last
    qtbot.waitUntil(lambda: not cache.busy())
    assert all(cache.verdict(n, seeded_store.get(n).version) is not None for n in names)
    cache.shutdown()


def test_skills_scrolled_past_long_ago_are_not_checked(qtbot, seeded_store, monkeypatch):
    monkeypatch.setattr(verdicts, "MAX_WANTED", 3)
    cache = VerdictCache(seeded_store)
    names = seeded_store.names()[:5]
    for name in names:
        cache.verdict(name, seeded_store.get(name).version)
    with qtbot.waitSignal(cache.verdictsReady, timeout=5000) as checked:
        pass
    assert checked.args[0] == sorted(names[2:])   # the three asked for last
    qtbot.waitUntil(lambda: not cache.busy())
    first = names[0]
    assert cache.verdict(first, seeded_store.get(first).version) is None   # asked again: checked now
    qtbot.waitUntil(lambda: cache.verdict(first, seeded_store.get(first).version) is not None)
    cache.shutdown()
