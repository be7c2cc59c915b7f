"""The skill list model: rows follow the store's query; qtmodeltester finds nothing wrong."""

from PySide6.QtCore import Qt

from skill_studio.core.ops.changes import ChangeSet
from skill_studio.core.store import Filters
from skill_studio.ui.library.models import COLUMNS, NAME_ROLE, SKILL_ROLE, TRUST_ROLE, SkillListModel

LIFECYCLE = [key for key, _ in COLUMNS].index("lifecycle")


def test_model_passes_qtmodeltester(qtmodeltester, seeded_store):
    model = SkillListModel(seeded_store)
    model.reload()
    qtmodeltester.check(model, force_py=True)


def test_rows_follow_filters_and_sort(seeded_store):
    model = SkillListModel(seeded_store)
    model.reload()
    assert model.rowCount() == 10
    model.set_query(Filters(lifecycle="released"))
    assert model.names() == seeded_store.names(Filters(lifecycle="released"))
    model.set_query(Filters(), sort="utility", descending=True)
    assert model.names()[0] == seeded_store.list(sort="utility", descending=True)[0].name
    model.sort(0, Qt.AscendingOrder)
    assert model.sort_key == ("name", False)


def test_cells_show_what_the_user_reads(seeded_store):
    model = SkillListModel(seeded_store)
    model.reload()
    row = model.row_of("release-notes")
    cells = dict(zip([key for key, _ in COLUMNS], (model.data(model.index(row, c)) for c in range(len(COLUMNS)))))
    assert (cells["name"], cells["lifecycle"], cells["trust"], cells["origin"]) == (
        "release-notes", "Released", "Trusted", "human")
    assert cells["description"].startswith("Turns the changelog entries")
    trust = [key for key, _ in COLUMNS].index("trust")
    assert model.data(model.index(row, trust), Qt.ToolTipRole) == "Trusted (trust 3 of 4)"
    assert model.data(model.index(row, 0), TRUST_ROLE) == 3
    assert model.data(model.index(row, 0), SKILL_ROLE).name == "release-notes"
    assert model.data(model.index(row, 0), NAME_ROLE) == "release-notes"


def test_a_change_set_updates_rows_and_resets_only_when_the_rows_change(qtbot, seeded_store):
    model = SkillListModel(seeded_store)
    model.reload()
    row = model.row_of("release-notes")
    assert model.data(model.index(row, LIFECYCLE)) == "Released"   # the page is cached
    seeded_store.set_state("release-notes", lifecycle="degraded")
    with qtbot.assertNotEmitted(model.modelReset), qtbot.waitSignal(model.dataChanged) as changed:
        assert model.apply_changes(ChangeSet.of(changed={"release-notes"})) == "rows"
    assert changed.args[0].row() == row and changed.args[1].column() == len(COLUMNS) - 1
    assert model.data(model.index(row, LIFECYCLE)) == "Degraded"
    assert model.apply_changes(ChangeSet.of(settings=True)) == ""
    assert model.apply_changes(ChangeSet.of(changed={"not-shown"})) == ""

    model.set_query(Filters(lifecycle="degraded"))   # a move out of the shown tab changes the rows
    seeded_store.set_state("release-notes", lifecycle="released")
    with qtbot.waitSignal(model.modelReset):
        assert model.apply_changes(ChangeSet.of(changed={"release-notes"})) == "reset"
    assert model.row_of("release-notes") < 0
    with qtbot.waitSignal(model.modelReset):
        assert model.apply_changes(ChangeSet.of(removed={"gone"})) == "reset"


def test_returning_nothing_to_qt_keeps_none_alive(seeded_store):
    """Some PySide6 releases drop a reference to None for each None a model returns;
    on Python 3.11 that ends in a crash, so the pinned version must not do it."""
    import sys

    model = SkillListModel(seeded_store)
    model.reload()
    index = model.index(0, 0)
    index.data(Qt.DecorationRole)
    before = sys.getrefcount(None)
    for _ in range(200):
        index.data(Qt.DecorationRole)
    assert sys.getrefcount(None) >= before - 5
