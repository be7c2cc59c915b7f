"""The skill-studio command line: reference-compatible output, reports, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import REAL_WORLD, SAMPLES
from skills_ref.cli import main as reference_main

from skill_studio.cli import main

REFERENCE_COMPARABLE = [
    "block-scalar-description/sql-migration-review", "title-case-name/pdf-tools",
    "underscore-name/capsule_crm", "name-differs-from-folder/slack-notify", "utf8-bom/k8s-manifest-check",
    "missing-description/dependency-audit", "extra-top-level-keys/jira-triage", "name-too-long",
    "crlf-line-endings/terraform-plan-review", "non-ascii/i18n-review", "not-a-mapping/cron-explain",
    "unclosed-frontmatter/regex-explain", "missing-skill-md/notes-only", "nfkc-name/file-search",
    "description-too-long/data-privacy-review", "compatibility-not-string/ansible-lint",
]


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def _case(rel: str) -> Path:
    p = REAL_WORLD / rel
    if p.parent == REAL_WORLD:  # a case folder holding one skill folder
        p = next(d for d in p.iterdir() if d.is_dir())
    return p


@pytest.mark.parametrize("rel", REFERENCE_COMPARABLE)
def test_validate_prints_what_the_reference_prints(capsys, rel):
    path = str(_case(rel))
    ref = CliRunner().invoke(reference_main, ["validate", path])
    code, out, err = run(capsys, "validate", path)
    assert code == ref.exit_code
    assert out == ref.stdout
    assert err == ref.stderr


def test_validate_a_skill_md_file_path(capsys):
    code, out, _ = run(capsys, "validate", str(SAMPLES / "release-notes" / "SKILL.md"))
    assert (code, out) == (0, f"Valid skill: {SAMPLES / 'release-notes'}\n")


def test_validate_a_tree_prints_a_summary(capsys, real_world):
    code, out, err = run(capsys, "validate", str(real_world / "hidden-folders"))
    assert code == 0 and out == "3 skills: 3 valid, 0 invalid (strict profile)\n"
    code, out, err = run(capsys, "validate", str(SAMPLES))
    assert code == 0 and out.startswith("10 skills: 10 valid")


def test_validate_profiles_and_json(capsys):
    reserved = str(_case("reserved-word-name"))
    assert run(capsys, "validate", reserved)[0] == 0
    code, _, err = run(capsys, "validate", "--profile", "claude-upload", reserved)
    assert code == 1 and "claude" in err
    code, _, err = run(capsys, "validate", "--profile", "lenient", str(_case("title-case-name")))
    assert code == 0 and "warning" in err
    code, out, _ = run(capsys, "validate", "--json", str(_case("title-case-name")))
    data = json.loads(out)
    assert code == 1 and data["invalid"] == 1
    assert all({"code", "severity", "message", "line"} <= set(d) for d in data["skills"][0]["diagnostics"])


def test_import_list_show_export(capsys, tmp_path):
    store = str(tmp_path / "s.db")
    code, out, _ = run(capsys, "--store", store, "import", str(SAMPLES))
    assert code == 0 and out.rstrip().endswith("10 imported, 0 updated, 0 unchanged, 0 skipped")
    code, out, _ = run(capsys, "--store", store, "list")
    assert "★★★☆  released    release-notes" in out and out.rstrip().endswith("10 skills")
    code, out, _ = run(capsys, "--store", store, "list", "--search", "changelog", "--json")
    assert "changelog-writer" in [s["name"] for s in json.loads(out)["skills"]]
    code, out, _ = run(capsys, "--store", store, "show", "shell-script-hardening")
    assert "scripts/run.sh" in out and "executable" in out
    code, out, _ = run(capsys, "--store", store, "export", "--all", "--to", str(tmp_path / "out"))
    assert code == 0 and (tmp_path / "out" / "release-notes" / "SKILL.md").read_bytes() == \
        (SAMPLES / "release-notes" / "SKILL.md").read_bytes()
    code, out, _ = run(capsys, "--store", store, "export", "csv-cleanup", "--to", str(tmp_path / "z"), "--zip")
    assert code == 0 and (tmp_path / "z" / "csv-cleanup.zip").is_file()


def test_list_filters(capsys, tmp_path):
    store = str(tmp_path / "s.db")
    run(capsys, "--store", store, "import", "--origin", "llm", str(SAMPLES / "csv-cleanup"))
    run(capsys, "--store", store, "import", str(SAMPLES / "pdf-extract"))
    _, out, _ = run(capsys, "--store", store, "list", "--origin", "llm")
    assert "★☆☆☆  candidate   csv-cleanup" in out and "pdf-extract" not in out
    _, out, _ = run(capsys, "--store", store, "list", "--lifecycle", "released")
    assert "pdf-extract" in out and "csv-cleanup" not in out


def test_prompt_is_byte_identical_to_the_reference(tmp_path):
    folders = [str(SAMPLES / n) for n in ("release-notes", "git-commit-message", "pdf-extract")]
    folders.append(str(_case("xml-in-description")))
    ref = CliRunner().invoke(reference_main, ["to-prompt", *folders])
    ours = subprocess.run([sys.executable, "-m", "skill_studio", "--store", str(tmp_path / "s.db"),
                           "prompt", *folders], capture_output=True)
    assert ours.returncode == 0
    assert ours.stdout == ref.stdout_bytes
    assert b"&lt;table&gt;" in ours.stdout


def test_prompt_by_name_uses_the_imported_file(capsys, tmp_path):
    store = str(tmp_path / "s.db")
    run(capsys, "--store", store, "import", str(SAMPLES / "release-notes"))
    _, out, _ = run(capsys, "--store", store, "prompt", "release-notes")
    ref = CliRunner().invoke(reference_main, ["to-prompt", str(SAMPLES / "release-notes")])
    assert out == ref.stdout


def test_empty_prompt(capsys, tmp_path):
    _, out, _ = run(capsys, "--store", str(tmp_path / "s.db"), "prompt")
    assert out == "<available_skills>\n</available_skills>\n"


@pytest.mark.parametrize("argv, words", [
    (["show", "nope"], 'no skill named "nope"'),
    (["validate", "/no/such/path"], "does not exist"),
    (["import", "/no/such/path"], "no such file"),
    (["export", "--to", "x"], "--all"),
])
def test_errors_are_one_line_without_traceback(capsys, tmp_path, argv, words):
    code, out, err = run(capsys, "--store", str(tmp_path / "s.db"), *argv)
    assert code != 0 and words in err or words in out
    assert "Traceback" not in err


def test_a_corrupt_store_is_one_line(tmp_path):
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"garbage" * 1000)
    r = subprocess.run([sys.executable, "-m", "skill_studio", "--store", str(bad), "list"],
                       capture_output=True, text=True)
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and "bad.db" in r.stderr


def test_first_run_creates_and_seeds_the_default_store(tmp_path, monkeypatch):
    monkeypatch.setenv("SKILL_STUDIO_HOME", str(tmp_path / "home"))
    r = subprocess.run([sys.executable, "-m", "skill_studio", "list", "--json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    skills = json.loads(r.stdout)["skills"]
    assert len(skills) == 10 and (tmp_path / "home" / "skills.db").is_file()
    assert {s["origin"] for s in skills} == {"human", "llm", "builtin"}
    assert {s["lifecycle"] for s in skills} == {"candidate", "verified", "released", "degraded",
                                                "deprecated", "archived"}
    assert {s["trust_tier"] for s in skills} == {1, 2, 3, 4}
    import os

    headless = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY")}
    r = subprocess.run([sys.executable, "-m", "skill_studio"], capture_output=True, text=True, env=headless,
                       timeout=60)
    assert r.returncode == 0 and "10 skills" in r.stdout and "no display" in r.stderr


@pytest.mark.parametrize("argv", [["export"], ["list", "--lifecycle", "bogus"], ["nope"], ["validate"]])
def test_usage_mistakes_are_one_line(argv):
    r = subprocess.run([sys.executable, "-m", "skill_studio", *argv], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and r.stderr.startswith("skill-studio")
