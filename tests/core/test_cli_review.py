"""The review commands: moves with reasons, refusals naming the allowed moves, trust, pins, merge, delete, audit."""

from __future__ import annotations

import json

import pytest
from conftest import make

from skill_studio.cli import main
from skill_studio.core.model import Lifecycle, Origin
from skill_studio.core.store import Store


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "s.db"
    with Store(path) as store:
        store.add(make("cand", origin=Origin.LLM))
        store.add(make("rel"))
        store.add(make("dup", "Also releases. Use when releasing.", meta={"tags": "x"}, origin=Origin.LLM))
        store.add(make("user", meta={"depends-on": "dup"}))
    return str(path)


def run(db, *argv):
    return main(["--store", db, *argv])


def test_moves_trust_pin_and_the_audit(db, capsys):
    assert run(db, "promote", "cand", "--reason", "looks right", "--as", "ana") == 0
    assert "cand: candidate → verified, trust ★★☆☆" in capsys.readouterr().out
    assert run(db, "restore", "cand", "-r", "x") == 1  # refused: a one-line error
    err = capsys.readouterr().err
    assert "Cannot restore" in err and "allowed from verified: promote" in err and "\n" not in err.strip()
    with pytest.raises(SystemExit) as usage:  # --reason is required
        run(db, "promote", "cand")
    assert usage.value.code == 2
    assert run(db, "trust", "cand", "3", "-r", "vetted") == 0
    with pytest.raises(SystemExit):
        run(db, "trust", "cand", "4")  # tier 4 is not a reviewer's choice
    capsys.readouterr()
    assert run(db, "pin", "rel") == 0 and run(db, "unpin", "rel") == 0
    capsys.readouterr()
    assert run(db, "audit", "--skill", "cand", "--json") == 0
    entries = json.loads(capsys.readouterr().out)
    assert [e["action"] for e in entries][:3] == ["trust", "trust", "promote"]
    assert entries[-1]["actor"] == "ana" and entries[-1]["reason"] == "looks right"
    assert run(db, "audit", "--action", "pin", "--csv") == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "at,actor,skill,action,from,to,reason" and ",rel,pin," in out[1]


def test_merge_dry_run_then_merge_then_delete(db, capsys):
    assert run(db, "merge", "rel", "dup", "--dry-run") == 0
    out = capsys.readouterr().out
    assert "dependents rewritten: user" in out and "nothing was written" in out
    with Store(db) as store:
        assert store.get("dup").lifecycle == Lifecycle.CANDIDATE
    assert run(db, "merge", "rel", "dup") == 0
    assert 'merged: "rel" is now version 2' in capsys.readouterr().out
    with Store(db) as store:
        assert store.get("dup").lifecycle == Lifecycle.ARCHIVED and store.get("user").depends_on == ["rel"]
    assert run(db, "delete", "rel") == 1
    assert "1 other skill(s) depend on it: user" in capsys.readouterr().err
    assert run(db, "delete", "dup", "-r", "merged away") == 0
    assert run(db, "merge", "rel", "rel") == 1
    assert "into itself" in capsys.readouterr().err
