"""Maintenance commands: health (plan, --apply, --json), use, duplicates; llm imports that repeat a skill."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from conftest import make

from skill_studio.cli import main
from skill_studio.core.model import Lifecycle, Origin
from skill_studio.core.store import Store

BODY = ("# Release notes\n\n## Steps\n\n1. Read the changelog section of the version.\n"
        "2. Write a short summary, highlights and upgrade steps.\n3. Publish to the release page.\n")


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "s.db"
    old = datetime.now(UTC) - timedelta(days=400)
    with Store(path) as store:
        store.add(make("stale-one", "Formats tables. Use when asked.", origin=Origin.LLM), now=old)
        store.add(make("notes", "Writes release notes from the changelog. Use when releasing.", BODY))
        store.add(make("notes-copy", "Writes release notes from a changelog. Use when releasing.", BODY))
        store.add(make("other", "Compresses images for the web. Use when pages load slowly.",
                       "# Images\n\nRun the optimiser on every PNG and JPEG.\n"))
    return str(path)


def run(db, *argv):
    return main(["--store", db, *argv])


def test_health_plans_and_applies_only_with_apply(db, capsys):
    assert run(db, "health") == 0
    out = capsys.readouterr().out
    assert "deprecate" in out and "stale-one" in out and "nothing was changed" in out
    assert "notes-copy" in out and "near-duplicate" in out
    with Store(db) as store:
        assert store.get("stale-one").lifecycle == Lifecycle.CANDIDATE
    assert run(db, "health", "--apply", "--json", "--as", "nightly") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["applied"] == ["stale-one"] and data["summary"]["skills"] == 4
    with Store(db) as store:
        assert store.get("stale-one").lifecycle == Lifecycle.DEPRECATED
        assert store.audit_log("stale-one")[0].actor == "nightly"
        assert len(store.health_runs()) == 2


def test_use_records_outcomes(db, capsys):
    assert run(db, "use", "notes", "--success") == 0
    assert run(db, "use", "notes", "--failure") == 0
    assert "2 uses, success 50%" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        run(db, "use", "notes")


def test_duplicates_and_dismissing_a_pair(db, capsys):
    assert run(db, "duplicates", "--json") == 0
    pairs = json.loads(capsys.readouterr().out)["duplicates"]
    assert [(p["a"], p["b"]) for p in pairs] == [("notes", "notes-copy")] and pairs[0]["similarity"] >= 0.9
    assert pairs[0]["reason"] == "same subject, above the near-duplicate threshold"
    assert run(db, "duplicates", "--dismiss", "notes-copy", "notes") == 0
    capsys.readouterr()
    assert run(db, "duplicates") == 0
    assert "no duplicates to merge" in capsys.readouterr().out


def test_an_llm_import_that_repeats_a_reviewed_skill_is_proposed_for_review(db, tmp_path, capsys):
    from skill_studio.core.library.importer import import_paths

    folder = tmp_path / "lib" / "release-notes-writer"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: release-notes-writer\ndescription: Writes release notes from "
                                     "the changelog. Use when releasing.\n---\n\n" + BODY
                                     + "4. Announce it in the team channel.\n", encoding="utf-8")
    unrelated = tmp_path / "lib" / "sql-linter"
    unrelated.mkdir()
    (unrelated / "SKILL.md").write_text("---\nname: sql-linter\ndescription: Lints SQL migrations. Use when a "
                                        "migration is reviewed.\n---\n\n# SQL\n\nCheck locks and indexes.\n")
    with Store(db) as store:
        store.dismiss_pair("notes", "notes-copy")
        before = store.get("notes")
        report = import_paths(store, [str(tmp_path / "lib")], origin=Origin.LLM)
        statuses = {e.name: (e.status, e.reason) for e in report.entries}
        assert statuses["sql-linter"][0] == "imported"
        status, reason = statuses["release-notes-writer"]
        assert status == "imported" and "its merge proposed for review" in reason
        target = reason.split('"')[1]
        assert target in ("notes", "notes-copy") and store.get(target).version == 1
        assert store.get("notes").skill_md == before.skill_md
        assert store.get("release-notes-writer").lifecycle == Lifecycle.CANDIDATE
        assert "1 proposed as merges into reviewed skills (in the review queue)" in report.summary
