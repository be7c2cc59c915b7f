"""The commands that get skills to agents: match, gate, load, prompt --gated."""

from __future__ import annotations

import json

from click.testing import CliRunner
from conftest import SAMPLES
from skills_ref.cli import main as reference_main

from skill_studio.cli import main
from skill_studio.core.store import Store

NAMES = ("release-notes", "pdf-extract", "python-test-writer", "git-commit-message")


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def library(capsys, tmp_path) -> str:
    store = str(tmp_path / "s.db")
    for name in NAMES:
        assert run(capsys, "--store", store, "import", str(SAMPLES / name))[0] == 0
    with Store(tmp_path / "s.db") as s:   # imported as human skills: released, trust 3
        s.set_state("python-test-writer", lifecycle="candidate")
    return store


def test_match_ranks_and_explains(capsys, tmp_path):
    store = library(capsys, tmp_path)
    code, out, _ = run(capsys, "--store", store, "match", "extract tables from a PDF", "--explain")
    assert code == 0 and out.splitlines()[0].strip().startswith("1. pdf-extract")
    assert "relevance" in out and "× prior" in out and "words #1" in out and "found by" in out
    code, out, _ = run(capsys, "--store", store, "match", "write pytest tests", "--strategy", "keywords", "--json")
    data = json.loads(out)
    assert data["strategy"] == "keywords"
    assert [m["name"] for m in data["excluded"]] == ["python-test-writer"]
    assert data["excluded"][0]["excluded"] == "lifecycle is candidate (not exposed)"
    assert run(capsys, "--store", store, "match", "  ")[0] == 2


def test_gate_lists_every_skill_with_its_reason(capsys, tmp_path):
    store = library(capsys, tmp_path)
    code, out, _ = run(capsys, "--store", store, "gate")
    assert code == 0 and "3 of 4 skill(s) pass the gate" in out
    assert "out   python-test-writer: lifecycle is candidate (not exposed)" in out


def test_prompt_gated_is_the_reference_block_of_the_gated_set(capsys, tmp_path):
    store = library(capsys, tmp_path)
    _, out, err = run(capsys, "--store", store, "prompt", "--gated")
    gated = sorted(n for n in NAMES if n != "python-test-writer")
    ref = CliRunner().invoke(reference_main, ["to-prompt", *(str(SAMPLES / n) for n in gated)])
    assert out == ref.stdout and err == ""


def test_load_prints_the_skill_and_records_the_use(capsys, tmp_path):
    store = library(capsys, tmp_path)
    code, out, _ = run(capsys, "--store", store, "load", "pdf-extract")
    assert code == 0 and out == (SAMPLES / "pdf-extract" / "SKILL.md").read_text()
    with Store(tmp_path / "s.db") as s:
        assert s.get("pdf-extract").last_used_at is not None and s.get("pdf-extract").use_count == 0
    code, _, err = run(capsys, "--store", store, "load", "python-test-writer")
    assert code == 1 and "kept from agents by the gate" in err
    assert run(capsys, "--store", store, "load", "python-test-writer", "--force")[0] == 0


def _failing(tmp_path, name="release-notes"):
    """Make a released human skill fail 7 of its 8 uses: it passes the gate, with a warning."""
    with Store(tmp_path / "s.db") as s:
        for ok in (True, False, False, False, False, False, False, False):
            s.record_use(name, ok)


def test_a_failing_skill_reaches_agents_with_its_warning(capsys, tmp_path):
    store = library(capsys, tmp_path)
    _failing(tmp_path)
    code, out, _ = run(capsys, "--store", store, "gate", "--json")
    entry = next(e for e in json.loads(out) if e["name"] == "release-notes")
    assert entry["passed"] and entry["warning"].startswith("fails most of its uses: success rate 0.")
    _, out, _ = run(capsys, "--store", store, "prompt", "--gated")
    assert f"(Warning: {entry['warning']})" in out
    code, out, _ = run(capsys, "--store", store, "load", "release-notes")
    assert code == 0 and out.startswith(f"Warning (release-notes): {entry['warning']}\n\n---\n")
    code, out, _ = run(capsys, "--store", store, "match", "write the release notes", "--json")
    assert json.loads(out)["matches"][0]["warning"] == entry["warning"]


def test_plain_prompt_stays_the_reference_block_with_warnings_about(capsys, tmp_path):
    store = library(capsys, tmp_path)
    _failing(tmp_path)
    names = sorted(n for n in NAMES if n != "python-test-writer")
    _, out, _ = run(capsys, "--store", store, "prompt", *names)
    ref = CliRunner().invoke(reference_main, ["to-prompt", *(str(SAMPLES / n) for n in names)])
    assert out == ref.stdout and "Warning" not in out


def _long_description_folder(tmp_path, size: int):
    folder = tmp_path / "wordy"
    folder.mkdir()
    description = "Summarises long reports. " * (size // 25 + 1)
    (folder / "SKILL.md").write_text(f"---\nname: wordy\ndescription: {description[:size]}\n---\n# Wordy\n")
    return folder


def test_prompt_cuts_a_description_past_the_format_limit_and_says_so(capsys, tmp_path):
    from skill_studio.core.agents.prompt import MAX_BLOCK_DESCRIPTION

    store = library(capsys, tmp_path)
    folder = _long_description_folder(tmp_path, 1 << 20)
    assert run(capsys, "--store", store, "import", str(folder))[0] == 0
    for argv in (["prompt", "--gated"], ["prompt", "wordy", "pdf-extract"], ["prompt", str(folder)]):
        code, out, err = run(capsys, "--store", store, *argv)
        block = out.split("<name>\nwordy\n</name>\n<description>\n", 1)[1].split("\n</description>", 1)[0]
        assert code == 0 and len(block) == MAX_BLOCK_DESCRIPTION and block.endswith("…")
        assert "description cut to 1,024 characters" in err and "wordy" in err
        assert len(out) < 20_000


def test_prompt_keeps_a_description_at_the_limit_whole(capsys, tmp_path):
    store = library(capsys, tmp_path)
    folder = _long_description_folder(tmp_path, 1024)
    assert run(capsys, "--store", store, "import", str(folder))[0] == 0
    code, out, err = run(capsys, "--store", store, "prompt", "wordy")
    assert code == 0 and "cut" not in err and "…" not in out
