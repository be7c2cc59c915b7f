"""``skill-studio add``, ``outdated`` and ``update`` against repositories made by the tests."""

from __future__ import annotations

import json

import pytest
from source_repos import Upstream, skill_md

from skill_studio.cli import main


@pytest.fixture
def upstream(tmp_path):
    return Upstream(tmp_path, {"skills/alpha/SKILL.md": skill_md("alpha"), "skills/beta/SKILL.md": skill_md("beta")})


def run(capsys, store_path, *argv):
    code = main(["--store", str(store_path), *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_add_list_then_add_one(tmp_path, capsys, upstream):
    db = tmp_path / "cli.db"
    code, out, _ = run(capsys, db, "add", "--list", upstream.url)
    assert code == 0
    assert f"at {upstream.head()[:12]}: 2 skill(s)" in out
    assert "alpha (skills/alpha): Does alpha work." in out
    code, out, _ = run(capsys, db, "add", upstream.url, "--skill", "beta")
    assert code == 0 and "added 1 skill(s) as candidates" in out and "added beta" in out
    code, out, _ = run(capsys, db, "list", "--json")
    assert [(s["name"], s["lifecycle"]) for s in json.loads(out)["skills"]] == [("beta", "candidate")]


def test_outdated_shows_the_diff_and_update_saves_it(tmp_path, capsys, upstream):
    db = tmp_path / "cli.db"
    run(capsys, db, "add", str(upstream.bare))
    commit = upstream.push({"skills/alpha/SKILL.md": skill_md("alpha", body="A new first step.\n")})
    code, out, _ = run(capsys, db, "outdated", "--diff")
    assert code == 0 and "2 skill(s) followed, 1 not current" in out
    assert "alpha: changed upstream (" in out and commit[:12] in out and "+A new first step." in out
    code, out, _ = run(capsys, db, "update")
    assert code == 0 and "updated alpha" in out
    code, out, _ = run(capsys, db, "outdated", "--json")
    assert {s["name"]: s["state"] for s in json.loads(out)} == {"alpha": "current", "beta": "current"}


def test_a_two_sided_change_exits_1_and_says_how_to_choose(tmp_path, capsys, upstream):
    db = tmp_path / "cli.db"
    run(capsys, db, "add", upstream.url)
    alpha = tmp_path / "alpha.md"
    alpha.write_text(skill_md("alpha", body="Ours.\n"))
    assert run(capsys, db, "save", "alpha", str(alpha))[0] == 0
    upstream.push({"skills/alpha/SKILL.md": skill_md("alpha", body="Theirs.\n")})
    code, out, _ = run(capsys, db, "update")
    assert code == 1 and "changed on both sides: nothing was overwritten" in out and "--take-upstream" in out
    code, out, _ = run(capsys, db, "update", "alpha", "--take-upstream")
    assert code == 0 and "updated alpha" in out
    code, out, _ = run(capsys, db, "show", "alpha", "--json")
    assert "Theirs." in json.loads(out)["content"]


def test_a_source_that_is_none_is_an_error_in_words(tmp_path, capsys):
    code, _, err = run(capsys, tmp_path / "cli.db", "add", "not-a-source")
    assert code == 1 and "not a source: give owner/repo (GitHub), a git URL, or a folder" in err
