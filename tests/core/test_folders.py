"""Discovery, import reports, byte-identical export, and archives through the importer."""

from __future__ import annotations

import os
import stat
import zipfile
from pathlib import Path

import pytest
from conftest import REAL_WORLD

from skill_studio.core.library.folder_write import export_archive, export_folder
from skill_studio.core.library.folders import discover
from skill_studio.core.library.importer import import_paths
from skill_studio.core.model import Origin


def tree_bytes(root: Path) -> dict[str, tuple[bytes, int]]:
    return {p.relative_to(root).as_posix(): (p.read_bytes(), stat.S_IMODE(p.stat().st_mode) & 0o111)
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_discovery_walks_hidden_folders_and_skips_git_and_node_modules(real_world):
    found = [p.relative_to(real_world / "hidden-folders").as_posix()
             for p in discover(real_world / "hidden-folders")]
    assert found == ["collection/skills/.curated/gh-fix-ci", "collection/skills/.experimental/notebook-runner",
                     "collection/skills/.system/skill-installer"]


def test_discovery_finds_grouped_cortex_and_data_dir_layouts(real_world):
    names = {p.name for p in discover(real_world)}
    assert {"pdf", "xlsx", "deploy-preview", "db-backup-check", "invoice-reconcile", "refund-policy",
            "-draft-skill"} <= names
    assert "x" not in names and "y" not in names and "notes-only" not in names


def test_discovery_depth_is_bounded(tmp_path):
    deep = tmp_path.joinpath(*[f"d{i}" for i in range(15)], "deep-skill")
    deep.mkdir(parents=True)
    (deep / "SKILL.md").write_text("---\nname: deep-skill\ndescription: d\n---\n")
    assert discover(tmp_path) == []
    assert discover(tmp_path, max_depth=20) == [deep]


def test_import_real_world_reports_every_skill(store, real_world):
    report = import_paths(store, [real_world])
    by_source = {Path(e.source).parent.name: e for e in report.entries}
    assert by_source["rube-mcp-search"].status == "imported"
    assert store.get("rube-mcp-search").tags  # flow list read from the top level
    unquoted = by_source["api-pagination"]
    assert unquoted.status == "skipped" and ":3:" in unquoted.reason and "quote it" in unquoted.reason
    assert by_source["legacy-notes"].status == "skipped" and "UTF-8" in by_source["legacy-notes"].reason
    for refused in ("dependency-audit", "log-search", "cron-explain", "regex-explain", "git-bisect-helper",
                    "todo-sweep"):
        assert by_source[refused].status == "skipped", refused
    title = by_source["pdf-tools"]
    assert title.status == "imported" and title.strict_errors
    assert "PDF Tools" in store
    assert store.get("deploy-preview").trigger_pattern
    assert report.count("imported") >= 35
    again = import_paths(store, [real_world])
    assert again.count("imported") == 0 and again.count("updated") == 0
    assert again.count("unchanged") == report.count("imported")


def test_reimport_of_a_changed_folder_is_an_update(store, tmp_path):
    skill = tmp_path / "lib" / "note-taker"
    skill.mkdir(parents=True)
    md = skill / "SKILL.md"
    md.write_text("---\nname: note-taker\ndescription: Takes notes. Use when asked.\n---\nv1\n")
    assert import_paths(store, [tmp_path / "lib"]).entries[0].status == "imported"
    md.write_text("---\nname: note-taker\ndescription: Takes notes. Use when asked.\n---\nv2\n")
    entry = import_paths(store, [tmp_path / "lib"]).entries[0]
    assert entry.status == "updated" and store.get("note-taker").version == 2


def test_name_collisions_in_one_import_are_resolved_in_path_order(store, tmp_path):
    for folder in ("b", "a", "c"):
        d = tmp_path / folder / "same"
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(f"---\nname: same\ndescription: From {folder}. Use when testing.\n---\n")
    report = import_paths(store, [tmp_path])
    assert [(Path(e.source).parts[-3], e.name) for e in report.entries] == [
        ("a", "same"), ("b", "same-2"), ("c", "same-3")]
    assert "already taken" in report.entries[1].warnings[-1]
    assert store.get("same-2").description == "From b. Use when testing."


def test_llm_origin_enters_as_candidate(store, real_world):
    import_paths(store, [real_world / "non-ascii"], origin=Origin.LLM)
    s = store.get("i18n-review")
    assert (s.lifecycle.value, int(s.trust_tier)) == ("candidate", 1)


def test_export_is_byte_identical_with_modes(store, real_world, tmp_path):
    cases = ["siblings-with-exec-bit/image-optimizer", "crlf-line-endings/terraform-plan-review",
             "no-final-newline/yaml-lint", "utf8-bom/k8s-manifest-check", "non-ascii/i18n-review",
             "block-scalar-description/sql-migration-review", "flow-lists/rube-mcp-search",
             "long-body/oncall-runbook", "lowercase-skill-md/markdown-toc"]
    out = tmp_path / "out"
    for case in cases:
        src = real_world / case
        import_paths(store, [src])
        name = store.names()[[n for n in store.names()].index(_name_of(store, src))]
        dest = export_folder(store.get(name), out)
        assert tree_bytes(dest) == tree_bytes(src), case
    assert os.access(out / "image-optimizer" / "scripts" / "run.sh", os.X_OK)


def _name_of(store, src: Path) -> str:
    return next(s.name for s in store.list() if s.folder_name == src.name)


def test_export_replaces_an_old_folder_whole(store, tmp_path):
    src = REAL_WORLD / "siblings-with-exec-bit" / "image-optimizer"
    import_paths(store, [src])
    out = tmp_path / "out"
    stale = out / "image-optimizer" / "stale.txt"
    stale.parent.mkdir(parents=True)
    stale.write_text("old")
    export_folder(store.get("image-optimizer"), out)
    assert not stale.exists()
    assert [p.name for p in out.iterdir()] == ["image-optimizer"]


def test_zip_export_and_import_round_trip(store, tmp_path):
    src = REAL_WORLD / "siblings-with-exec-bit" / "image-optimizer"
    import_paths(store, [src])
    archive = export_archive(store.get("image-optimizer"), tmp_path)
    with zipfile.ZipFile(archive) as z:
        assert all(n.startswith("image-optimizer/") for n in z.namelist())
    from skill_studio.core.store import Store

    with Store(tmp_path / "other.db") as other:
        report = import_paths(other, [archive])
        assert report.entries[0].status == "imported"
        export_folder(other.get("image-optimizer"), tmp_path / "again")
    assert tree_bytes(tmp_path / "again" / "image-optimizer") == tree_bytes(src)


def test_hostile_archive_is_skipped_with_a_reason_and_nothing_is_lost(store, tmp_path):
    import_paths(store, [REAL_WORLD / "non-ascii"])
    bad = tmp_path / "evil.skill"
    with zipfile.ZipFile(bad, "w") as z:
        z.writestr("evil/SKILL.md", "---\nname: evil\ndescription: e\n---\n")
        z.writestr("evil/../../outside.txt", "pwned")
    report = import_paths(store, [bad])
    assert report.entries[0].status == "skipped"
    assert "evil.skill" in report.entries[0].reason
    assert store.names() == ["i18n-review"]
    assert not (tmp_path.parent / "outside.txt").exists()


def test_missing_path_is_reported(store, tmp_path):
    report = import_paths(store, [tmp_path / "nope"])
    assert report.entries[0].status == "skipped" and "no such file" in report.entries[0].reason


def test_links_inside_a_skill_folder_are_left_out(store, tmp_path):
    d = tmp_path / "linky"
    d.mkdir()
    (d / "SKILL.md").write_text("---\nname: linky\ndescription: L. Use when linking.\n---\n")
    (d / "notes.md").write_text("notes")
    (d / "latest").symlink_to("notes.md")
    entry = import_paths(store, [d]).entries[0]
    assert entry.status == "imported" and any("latest: is a link" in w for w in entry.warnings)
    assert [f.path for f in store.get("linky").files] == ["notes.md"]


def test_a_link_out_of_the_skill_folder_refuses_the_skill(store, tmp_path):
    d = tmp_path / "linky"
    d.mkdir()
    (d / "SKILL.md").write_text("---\nname: linky\ndescription: L. Use when linking.\n---\n")
    (d / "secret").symlink_to("/etc/passwd")
    entry = import_paths(store, [d]).entries[0]
    assert entry.status == "skipped"
    assert entry.reason.startswith(f"{d / 'secret'}: is a link to '/etc/passwd', outside the skill folder")
    assert store.names() == []


@pytest.mark.parametrize("sample", sorted(p.name for p in (REAL_WORLD.parent.parent.parent / "resources" / "samples")
                                          .iterdir() if p.is_dir()))
def test_samples_round_trip(store, tmp_path, sample):
    src = REAL_WORLD.parent.parent.parent / "resources" / "samples" / sample
    import_paths(store, [src])
    assert tree_bytes(export_folder(store.get(sample), tmp_path)) == tree_bytes(src)
