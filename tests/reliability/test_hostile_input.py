"""Hostile input, generated on the fly: each case is refused with an error naming the file (and line),
in bounded time and memory; the store is unchanged, nothing is written outside, the window lives on."""

from __future__ import annotations

import gzip
import os
import random
import re
import resource
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from hostile_builders import (
    GOOD_MD,
    Built,
    Case,
    alias_depth_chain,
    archive_case,
    base,
    deep_block_map,
    deep_block_seq,
    dump_store,
    folder_is_link_loop,
    folder_links_to_itself,
    folder_not_utf8,
    frontmatter,
    laughs,
    laughs_block,
    link_in_skill,
    link_loop_in_skill,
    link_member,
    make_zip,
    many_keys,
    md_case,
    merge_bomb,
    named,
    odd_file_name,
    odd_folder_name,
    patch_member,
    rename_member,
    skill_folder,
    skill_md_is_fifo,
    skill_md_is_folder,
    skill_md_link,
    sparse_skill_md,
    tree_with_self_link,
    zip_bytes,
    zip_with_zeros,
)

from skill_studio.core.format.names import printable
from skill_studio.core.library.importer import import_paths

ROOT = Path(__file__).resolve().parents[2]
RANDOM_BYTES = random.Random(20240601).randbytes(4096)
MIB = 1024 * 1024


def _fm_lines(data: bytes) -> tuple[int, int]:
    """Lines 2 to the last frontmatter line of a SKILL.md (where a YAML error may be named)."""
    return 2, data.count(b"\n") + 1


def _md(data: bytes, words: tuple[str, ...], line=None, **flags) -> tuple:
    return md_case(data, line if line is not None else _fm_lines(data)), words, flags


def _zip(members, member: str | None, *words: str, **flags) -> tuple:
    def make(path: Path):
        make_zip(path, members() if callable(members) else members)
        return [path.parent / "escaped.txt", path.parent.parent / "escaped.txt"]
    return archive_case(make), words + ((repr(member),) if member else ()), flags


def _zip_made(make, member: str | None, *words: str, suffix: str = ".skill", **flags) -> tuple:
    return archive_case(make, suffix=suffix), words + ((repr(member),) if member else ()), flags


def _zip_skill_md(data: bytes, *words: str, line=None) -> tuple:
    def build(tmp: Path) -> Built:
        (tmp / "in").mkdir()
        path = make_zip(tmp / "in" / "hostile-skill.skill", [("hostile-skill/SKILL.md", data)])
        return Built(path, f"{path}!hostile-skill/SKILL.md", line if line is not None else _fm_lines(data))
    return build, words, {}


def _absolute(path: Path):
    target = path.parent / "escaped.txt"
    make_zip(path, base() + [(str(target), b"x")])
    return [target]


def _nul_member(path: Path):
    make_zip(path, base() + [("hostile-skill/aXb.txt", b"x")])
    rename_member(path, b"hostile-skill/aXb.txt", b"hostile-skill/a\x00b.txt")


def _encrypted(path: Path):
    make_zip(path, base() + [("hostile-skill/secret.txt", b"secret")])
    patch_member(path, "hostile-skill/secret.txt", flags=0x1)


def _truncated(path: Path):
    make_zip(path, base() + [("hostile-skill/data.bin", RANDOM_BYTES)])
    path.write_bytes(path.read_bytes()[:2500])


def _corrupt(path: Path):
    make_zip(path, base() + [("hostile-skill/data.txt", b"hello world " * 500)])
    raw = bytearray(path.read_bytes())
    start = raw.index(b"hostile-skill/data.txt") + len("hostile-skill/data.txt")
    for i in range(start + 5, start + 40):
        raw[i] ^= 0xA5
    path.write_bytes(bytes(raw))


def _many_members(path: Path):
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("hostile-skill/SKILL.md", GOOD_MD)
        for i in range(100_000):
            zf.writestr(zipfile.ZipInfo(f"hostile-skill/f{i}"), b"")


def _fifo_archive(path: Path):
    os.mkfifo(path)


def _elsewhere(tmp: Path) -> str:
    other = tmp / "elsewhere"
    other.mkdir(exist_ok=True)
    (other / "SKILL.md").write_bytes(GOOD_MD)
    return str(other)


_SPEC = {
    # --- YAML that expands: alias and merge-key bombs, recursive aliases ---
    "alias-bomb-depth-5": _md(laughs(5, 10), ("alias bomb",), cli=True, validate=True, gui=True),
    "alias-bomb-depth-9": _md(laughs(9, 10), ("alias bomb",)),
    "alias-bomb-depth-30-width-2": _md(laughs(30, 2), ("alias bomb",)),
    "alias-bomb-block-style": _md(laughs_block(8, 6), ("alias bomb",)),
    "merge-key-bomb-width-2": _md(merge_bomb(25, 2), ("alias bomb",), cli=True),
    "merge-key-bomb-width-6": _md(merge_bomb(8, 6), ("alias bomb",)),
    "alias-recursive-list": _md(frontmatter("a: &a [1, *a]"), ("contains it",), 4),
    "alias-recursive-mapping": _md(frontmatter("m: &m", "  self: *m"), ("contains it",), 5),
    "alias-chain-nests-deep": _md(alias_depth_chain(150), ("levels deep",)),
    # --- deep nesting ---
    "nested-flow-list-10k": _md(frontmatter("deep: " + "[" * 10_000 + "]" * 10_000), ("levels deep",), 4),
    "nested-flow-map-10k": _md(frontmatter("deep: " + "{a: " * 10_000 + "}" * 10_000), ("levels deep",), 4),
    "nested-flow-list-100k": _md(frontmatter("deep: " + "[" * 100_000 + "]" * 100_000), ("levels deep",), 4,
                                 cli=True, validate=True),
    "nested-block-map-1000": _md(deep_block_map(1000), ("levels deep",)),
    "nested-block-list-500": _md(deep_block_seq(500), ("levels deep",)),
    "nested-compact-list-5000": _md(frontmatter("deep:", "  " + "- " * 5000 + "x"), ("levels deep",), 5),
    # --- too many values ---
    "keys-100k": _md(many_keys(100_000), ("more than 10,000 values",), cli=True, validate=True),
    "keys-100k-in-metadata": _md(many_keys(100_000, "metadata"), ("more than 10,000 values",)),
    "list-of-100k": _md(frontmatter("tags:", *["  - t"] * 100_000), ("more than 10,000 values",)),
    "flow-map-of-100k-on-one-line": _md(frontmatter("m: {" + ", ".join(f"k{i}: v" for i in range(100_000)) + "}"),
                                        ("more than 10,000 values",), 4),
    # --- size ---
    "skill-md-100mb-sparse": (sparse_skill_md(100 * MIB), ("104,857,600 bytes", "limit for SKILL.md"),
                              {"cli": True, "validate": True, "gui": True}),
    "skill-md-just-over-5mb": _md(GOOD_MD + b"x" * (5 * MIB), ("limit for SKILL.md",), 1),
    "frontmatter-never-closed-5mb": _md(b"---\nname: x\ndescription: d\n" + b"k: v\n" * 900_000,
                                        ("not properly closed",), 1, cli=True),
    "long-line-without-frontmatter": _md(b"x" * 4_000_000, ("must start with YAML frontmatter",), 1),
    "long-line-with-a-yaml-error": _md(frontmatter("k: " + "a" * 1_000_000 + ": b"), ("mapping values",), 4),
    # --- bytes that are not text, or not allowed in YAML ---
    "nul-in-frontmatter": _md(b"---\nname: hostile\x00skill\ndescription: d\n---\n", ("U+0000",), 2,
                              cli=True, validate=True, gui=True),
    "nul-in-a-key": _md(frontmatter("k\x00: v"), ("U+0000",), 4),
    "escape-in-frontmatter": _md(frontmatter("k: \x1b[31mred"), ("U+001B",), 4),
    "delete-char-in-frontmatter": _md(frontmatter("k: a\x7fb"), ("U+007F",), 4),
    "invalid-utf8": _md(frontmatter("k: caf").replace(b"caf", b"caf\xff"), ("invalid UTF-8",), 4, validate=True),
    "invalid-utf8-overlong": _md(b"---\nname: x\xc0\xafy\n---\n", ("invalid UTF-8",), 2),
    "invalid-utf8-surrogate": _md(GOOD_MD.replace(b"Body", b"B\xed\xa0\x80dy"), ("invalid UTF-8",), 5),
    "invalid-utf8-cut-at-the-end": _md(GOOD_MD + b"\xe2\x82", ("invalid UTF-8",), 6),
    "utf16-with-bom": _md(GOOD_MD.decode().encode("utf-16"), ("invalid UTF-8",), 1, cli=True),
    "utf16-big-endian": _md(GOOD_MD.decode().encode("utf-16-be"), ("must start with",), 1),
    "utf32": _md(GOOD_MD.decode().encode("utf-32"), ("invalid UTF-8",), 1),
    "random-bytes": _md(RANDOM_BYTES, ("invalid UTF-8",), (1, 40)),
    "png-bytes": _md(b"\x89PNG\r\n\x1a\n" + RANDOM_BYTES, ("invalid UTF-8",), 1),
    "binary-body": _md(GOOD_MD + RANDOM_BYTES, ("invalid UTF-8",), (6, 60)),
    "empty-file": _md(b"", ("must start with YAML frontmatter",), 1, cli=True, validate=True),
    "only-a-fence": _md(b"---", ("not properly closed",), 1),
    "only-a-byte-order-mark": _md(b"\xef\xbb\xbf", ("must start with YAML frontmatter",), 1),
    "cr-only-yaml-error": _md(b"---\rname: x\rdescription: a: b\r---\rBody", ("mapping values",), 3),
    "cr-only-never-closed": _md(b"---\rname: x\r" + b"k: v\r" * 1000, ("not properly closed",), 1),
    "mixed-line-ends-yaml-error": _md(b"---\r\nname: x\rdescription: d\nk: [a\r\n---\n", ("flow",), (4, 5)),
    "not-a-date": _md(frontmatter("released: 2024-02-30"), ("not a valid timestamp",), 4),
    "number-of-5000-digits": _md(frontmatter("n: " + "9" * 5000), ("5,000 characters",), 4),
    "hex-number-of-5000-digits": _md(frontmatter("n: 0x" + "f" * 5000), ("5,002 characters",), 4),
    "frontmatter-is-a-list": _md(b"---\n- a\n- b\n---\n", ("must be a YAML mapping",), 2),
    # --- the file system: what SKILL.md is, links, loops ---
    "skill-md-is-a-folder": (skill_md_is_folder, ("is a folder",), {"cli": True, "validate": True}),
    "skill-md-is-a-fifo": (skill_md_is_fifo, ("not a regular file",), {"cli": True, "validate": True, "gui": True}),
    "skill-md-links-to-etc-passwd": (skill_md_link("/etc/passwd"), ("outside the skill folder",), {"validate": True}),
    "skill-md-links-outside": (skill_md_link(lambda tmp: _elsewhere(tmp) + "/SKILL.md"), ("outside the skill",), {}),
    "skill-md-links-to-itself": (skill_md_link("SKILL.md"), ("link loop",), {}),
    "link-to-etc-passwd": (link_in_skill("/etc/passwd"), ("outside the skill folder",), {"cli": True, "gui": True}),
    "link-to-a-folder-outside": (link_in_skill(_elsewhere, "shared"), ("outside the skill folder",), {}),
    "link-relative-outside": (link_in_skill("../../../../../../etc"), ("outside the skill folder",), {}),
    "link-to-the-parent-folder": (link_in_skill("..", "up"), ("outside the skill folder",), {}),
    "link-loop-a-b-a": (link_loop_in_skill, ("link loop",), {}),
    "skill-folder-is-a-link-loop": (folder_is_link_loop, ("link loop",), {"cli": True, "validate": True}),
    "skill-folder-links-to-itself": (folder_links_to_itself, ("link loop",), {}),
    "tree-of-self-links-only": (tree_with_self_link, ("no skill found",), {"cli": True}),
    # --- names: files, folders and skills ---
    "file-name-with-escape": (odd_file_name("run\x1b[2J.sh"), ("control character", "U+001B"), {"cli": True}),
    "file-name-with-rtl-override": (odd_file_name("invoice\u202egpj.sh"), ("invisible", "U+202E"), {}),
    "file-name-with-zero-width-space": (odd_file_name("scr\u200bipt.sh"), ("invisible", "U+200B"), {}),
    "file-name-con": (odd_file_name("CON"), ("Windows reserves",), {}),
    "file-name-aux-txt": (odd_file_name("aux.txt"), ("Windows reserves",), {}),
    "file-name-com1": (odd_file_name("com1.log"), ("Windows reserves",), {}),
    "file-name-not-utf8": (odd_file_name(b"bad\xff.txt"), ("not valid UTF-8",), {}),
    "folder-name-with-escape": (odd_folder_name("hostile\x1bskill"), ("control character",), {}),
    "folder-name-with-backslash": (odd_folder_name("hostile\\skill"), ("path separator",), {}),
    "folder-name-not-utf8": (folder_not_utf8, ("not valid UTF-8",), {"cli": True}),
    "name-with-slash": (named("a/b"), ("path separator",), {"cli": True}),
    "name-with-backslash": (named('"a\\\\b"'), ("path separator",), {}),
    "name-dot-dot": (named('".."'), ("not a folder name",), {}),
    "name-with-nul": (named('"hostile\\0skill"'), ("control character", "U+0000"), {}),
    "name-with-escape": (named('"hostile\\eskill"'), ("control character", "U+001B"), {}),
    "name-with-rtl-override": (named('"hostile\\u202Eskill"'), ("invisible", "U+202E"), {}),
    "name-with-zero-width-joiner": (named("pdf\u200dextract"), ("invisible", "U+200D"), {}),
    "name-in-fullwidth-letters": (named("ｐｄｆ-extract"), ("NFKC", "pdf-extract"), {}),
    "name-con": (named("CON"), ("Windows reserves",), {}),
    "name-nul": (named("nul"), ("Windows reserves",), {}),
    "name-com1": (named("com1"), ("Windows reserves",), {}),
    "name-aux-txt": (named("aux.txt"), ("Windows reserves",), {}),
    "name-lpt9": (named("LPT9"), ("Windows reserves",), {}),
    "name-ending-with-a-dot": (named("hostile."), ("ends with a dot",), {}),
    "look-alike-cyrillic-a": (named("pdf-extr\u0430ct"), ("near-collision", "'pdf-extract'", "CYRILLIC"),
                              {"cli": True, "gui": True}),
    "look-alike-greek-rho": (named("\u03c1df-extract"), ("near-collision", "'pdf-extract'", "GREEK"), {}),
    "look-alike-cyrillic-o": (named("c\u043ede-review-checklist"), ("near-collision", "'code-review-checklist'"), {}),
    "look-alike-capital-greek": (named("\u03a1DF-EXTRACT"), ("near-collision", "'pdf-extract'"), {}),
    "look-alike-dash": (named("pdf\u2013extract"), ("near-collision", "'pdf-extract'"), {}),
    # --- archives ---
    "zip-slip-parent": _zip(base() + [("../escaped.txt", b"x")], "../escaped.txt", "escapes the skill folder",
                            cli=True),
    "zip-slip-deep": _zip(base() + [("hostile-skill/../../escaped.txt", b"x")], None, "escapes the skill folder"),
    "zip-absolute-path": _zip_made(_absolute, None, "absolute path"),
    "zip-drive-letter": _zip(base() + [("C:\\escaped.txt", b"x")], "C:\\escaped.txt", "drive letter"),
    "zip-drive-letter-slash": _zip(base() + [("C:/escaped.txt", b"x")], "C:/escaped.txt", "drive letter"),
    "zip-backslash-path": _zip(base() + [("hostile-skill\\..\\..\\escaped.txt", b"x")], None, "backslashes"),
    "zip-member-with-nul": _zip_made(_nul_member, "hostile-skill/a\x00b.txt", "NUL"),
    "zip-member-with-escape": _zip(base() + [("hostile-skill/a\x1bb", b"x")], "hostile-skill/a\x1bb", "control"),
    "zip-member-with-rtl-override": _zip(base() + [("hostile-skill/invoice\u202egpj.sh", b"x")], None, "U+202E"),
    "zip-member-con": _zip(base() + [("hostile-skill/CON", b"x")], "hostile-skill/CON", "Windows reserves"),
    "zip-member-aux-txt": _zip(base() + [("hostile-skill/aux.txt", b"x")], None, "Windows reserves"),
    "zip-link-to-etc-passwd": _zip(base() + [link_member("hostile-skill/secret", b"/etc/passwd")],
                                   "hostile-skill/secret", "points outside the skill folder", cli=True, gui=True),
    "zip-link-relative-outside": _zip(base() + [link_member("hostile-skill/up", b"../../x")], None, "points outside"),
    "zip-holding-a-zip": _zip(base() + [("hostile-skill/inner.zip", zip_bytes(base()))], None, "archives inside"),
    "zip-holding-a-skill": _zip(base() + [("hostile-skill/inner.skill", b"x")], None, "archives inside"),
    "zip-holding-a-tar-gz": _zip(base() + [("hostile-skill/data.tar.gz", gzip.compress(b"x" * 100))], None,
                                 "'.tar.gz' file"),
    "zip-holding-a-disguised-zip": _zip(base() + [("hostile-skill/notes.txt", zip_bytes(base()))], None,
                                        "holds a zip archive"),
    "zip-bomb-by-ratio": _zip_made(lambda p: zip_with_zeros(p, "hostile-skill/zeros.bin", 30 * MIB),
                                   "hostile-skill/zeros.bin", "zip bomb", cli=True),
    "zip-bomb-declaring-a-small-size": _zip_made(
        lambda p: zip_with_zeros(p, "hostile-skill/zeros.bin", 60 * MIB, declared=1000),
        "hostile-skill/zeros.bin", "zip bomb"),
    "zip-of-100k-members": _zip_made(_many_members, None, "over the limit of 5000 files"),
    "zip-duplicate-members": _zip(base() + [("hostile-skill/a.txt", b"1"), ("hostile-skill/a.txt", b"2")],
                                  "hostile-skill/a.txt", "more than once"),
    "zip-duplicate-skill-md": _zip(base() + base(), "hostile-skill/SKILL.md", "more than once"),
    "zip-encrypted-member": _zip_made(_encrypted, "hostile-skill/secret.txt", "encrypted"),
    "zip-truncated": _zip_made(_truncated, None, "damaged"),
    "zip-corrupt-data": _zip_made(_corrupt, "hostile-skill/data.txt", "damaged"),
    "zip-empty": _zip([], None, "SKILL.md not found"),
    "zip-not-a-zip": _zip_made(lambda p: p.write_bytes(GOOD_MD), None, "not a zip archive"),
    "zip-is-a-fifo": _zip_made(_fifo_archive, None, "not a file or a folder"),
    "zip-skill-md-random-bytes": _zip_skill_md(RANDOM_BYTES, "invalid UTF-8", line=(1, 40)),
    "zip-skill-md-alias-bomb": _zip_skill_md(laughs(9, 10), "alias bomb"),
    "zip-skill-md-over-5mb": _zip_made(lambda p: make_zip(p, [("hostile-skill/SKILL.md", GOOD_MD + b"x" * 6 * MIB)]),
                                       "hostile-skill/SKILL.md", "for SKILL.md", suffix=".zip"),
}

CASES = [Case(case_id, build, words, **flags) for case_id, (build, words, flags) in _SPEC.items()]
CLI_CASES = [c for c in CASES if c.cli]
VALIDATE_CASES = [c for c in CASES if c.validate]
GUI_CASES = [c for c in CASES if c.gui]


def _peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _listing(folder: Path) -> list[str]:
    return sorted(os.listdir(folder))


def _assert_names_the_file(text: str, built: Built, words: tuple[str, ...]) -> None:
    """``text`` names the file (as messages print it), the line where one applies, and ``words``."""
    shown = printable(built.named)
    assert shown in text, f"{shown!r} not named in: {text[:2000]!r}"
    if isinstance(built.line, int):
        assert re.search(re.escape(shown) + rf":{built.line}\b|line {built.line}\b", text), \
            f"line {built.line} not named in: {text[:2000]!r}"
    elif built.line is not None:
        m = re.search(re.escape(shown) + r":(\d+)", text)
        assert m and built.line[0] <= int(m.group(1)) <= built.line[1], f"no line in {built.line}: {text[:2000]!r}"
    for word in words:
        assert word in text, f"{word!r} not in: {text[:2000]!r}"


def _studio(*args: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "skill_studio", *map(str, args)], capture_output=True,
                          text=True, errors="replace", cwd=ROOT, timeout=60,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})


def test_there_are_at_least_fifty_cases():
    assert len(CASES) >= 50 and len({c.id for c in CASES}) == len(CASES)


@pytest.mark.timeout(30)
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_import_refuses_hostile_input(case, seeded_store, tmp_path):
    built = case.build(tmp_path)
    before = dump_store(seeded_store.path)
    around = _listing(tmp_path.parent)
    rss = _peak_rss_mib()

    report = import_paths(seeded_store, [built.target])

    assert report.entries and all(e.status == "skipped" for e in report.entries), report.entries
    _assert_names_the_file(" | ".join(e.reason for e in report.entries), built, case.words)
    assert all(len(e.reason) < 2000 and e.reason.isprintable() for e in report.entries), "a message to read"
    assert dump_store(seeded_store.path) == before
    assert _listing(tmp_path.parent) == around
    assert not [p for p in built.must_not_exist if os.path.lexists(p)]
    assert _peak_rss_mib() - rss < 400, "the case took more than 400 MiB"


@pytest.mark.timeout(60)
@pytest.mark.parametrize("case", CLI_CASES, ids=[c.id for c in CLI_CASES])
def test_cli_import_refuses_hostile_input(case, seeded_store, tmp_path):
    built = case.build(tmp_path)
    before = dump_store(seeded_store.path)
    done = _studio("--store", seeded_store.path, "import", built.target)
    assert done.returncode == 1, done
    assert "Traceback" not in done.stderr + done.stdout
    assert done.stdout.splitlines()[-1] == "0 imported, 0 updated, 0 unchanged, 1 skipped"
    _assert_names_the_file(done.stdout + done.stderr, built, case.words)
    assert dump_store(seeded_store.path) == before
    assert not [p for p in built.must_not_exist if os.path.lexists(p)]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("case", VALIDATE_CASES, ids=[c.id for c in VALIDATE_CASES])
def test_cli_validate_refuses_hostile_input(case, tmp_path):
    built = case.build(tmp_path)
    for profile in ("lenient", "strict"):
        done = _studio("validate", "--profile", profile, built.target)
        assert done.returncode == 1, done
        assert "Traceback" not in done.stderr + done.stdout
        assert printable(str(built.target)) in done.stderr
    _assert_names_the_file(_studio("validate", "--profile", "lenient", built.target).stderr, built, ())


HOSTILE_BODIES = {
    "runs-of-brackets": "[" * 1_000_000,
    "links-never-closed": "[a](" * 250_000,
    "angle-links-never-closed": "](<" * 300_000,
    "links-with-open-titles": '[x](a "' * 150_000,
    "one-long-word": "a" * 2_000_000,
    "dotted-word": "a." * 1_000_000,
    "rooted-script-paths": "/scripts/a " * 100_000,
    "unclosed-reference-definitions": ("[" + "a" * 1000 + "\n") * 2000,
    "headings-and-steps": "## Steps\n" + "1. x\n" * 200_000,
}


@pytest.mark.timeout(20)
@pytest.mark.parametrize("body", HOSTILE_BODIES.values(), ids=HOSTILE_BODIES.keys())
def test_lints_and_fields_stay_linear_on_hostile_bodies(body):
    """The checks that run as the user types (every lint, with the library and the files known)."""
    from skill_studio.core.format.fields import to_skill
    from skill_studio.core.format.skillmd import parse_document
    from skill_studio.core.format.validate import validate_text

    text = "---\nname: x\ndescription: Does x. Use when y.\n---\n" + body
    for profile in ("strict", "lenient", "claude-upload"):
        validate_text(text, "x", profile, files=["scripts/a", "README.md"], library_names=["x", "y"],
                      path="x/SKILL.md")
    to_skill(parse_document(text), "x")


@pytest.mark.timeout(30)
def test_an_oversized_skill_md_is_refused_without_being_read(seeded_store, tmp_path, monkeypatch):
    built = sparse_skill_md(100 * MIB)(tmp_path)
    read: list[int] = []
    real_read = os.read
    monkeypatch.setattr(os, "read", lambda fd, n: read.append(n) or real_read(fd, n))
    [entry] = import_paths(seeded_store, [built.target]).entries
    assert entry.status == "skipped" and "limit for SKILL.md" in entry.reason
    assert sum(read) < MIB


@pytest.mark.timeout(30)
def test_an_alias_bomb_is_refused_before_anything_is_built(seeded_store, tmp_path, monkeypatch):
    from skill_studio.core.format import skillmd

    def never(*args, **kwargs):
        raise AssertionError("the frontmatter was composed or constructed")

    monkeypatch.setattr(skillmd.SkillLoader, "get_single_node", never)
    monkeypatch.setattr(skillmd.SkillLoader, "construct_document", never)
    built = md_case(laughs(12, 10), None)(tmp_path)
    [entry] = import_paths(seeded_store, [built.target]).entries
    assert entry.status == "skipped" and "alias bomb" in entry.reason


@pytest.mark.timeout(30)
def test_unreadable_skill_md_is_refused(seeded_store, tmp_path, monkeypatch):
    folder = skill_folder(tmp_path / "in")
    md = folder / "SKILL.md"
    before = dump_store(seeded_store.path)
    if os.geteuid() == 0:  # root reads anything: the file system's refusal is played instead
        import skill_studio.core.library.folders as folders

        real_open = os.open

        def refusing_open(path, flags, *args, **kwargs):
            if os.fspath(path) == str(md):
                raise PermissionError(13, "Permission denied", str(path))
            return real_open(path, flags, *args, **kwargs)

        monkeypatch.setattr(folders.os, "open", refusing_open)
    else:
        md.chmod(0)
    report = import_paths(seeded_store, [folder])
    assert [e.status for e in report.entries] == ["skipped"]
    assert report.entries[0].reason == f"{md}: cannot be read (Permission denied)"
    assert dump_store(seeded_store.path) == before


@pytest.mark.timeout(30)
def test_a_refused_skill_does_not_stop_the_good_ones_beside_it(seeded_store, tmp_path):
    tree = tmp_path / "tree"
    skill_folder(tree, laughs(9, 10), "bomb")
    skill_folder(tree, frontmatter(name="good-one"), "good-one")
    (tree / "linked").mkdir()
    skill_folder(tree / "linked", GOOD_MD, "leaky")
    (tree / "linked" / "leaky" / "passwd").symlink_to("/etc/passwd")
    report = import_paths(seeded_store, [tree])
    assert sorted((Path(e.source).parent.name, e.status) for e in report.entries) == [
        ("bomb", "skipped"), ("good-one", "imported"), ("leaky", "skipped")]
    assert "good-one" in seeded_store.names()


def test_a_second_skill_of_one_name_that_cannot_be_renamed_is_refused_alone(store, tmp_path):
    skill_folder(tmp_path / "lib", frontmatter(name="twin"), "a")
    skill_folder(tmp_path / "lib", b"---\n{name: twin, description: Does a thing. Use when testing.}\n---\n", "b")
    report = import_paths(store, [tmp_path / "lib"])
    assert [e.status for e in report.entries] == ["imported", "skipped"]
    assert report.entries[1].reason.startswith(f"{tmp_path / 'lib' / 'b' / 'SKILL.md'}: the name \"twin\" is "
                                               "already taken")
    assert "flow mapping" in report.entries[1].reason and store.names() == ["twin"]


def test_a_look_alike_of_a_name_in_the_same_import_is_a_near_collision(store, tmp_path):
    skill_folder(tmp_path / "lib", frontmatter(name="data-export"), "a")
    skill_folder(tmp_path / "lib", frontmatter(name="d\u0430ta-export"), "b")
    report = import_paths(store, [tmp_path / "lib"])
    assert [e.status for e in report.entries] == ["imported", "skipped"]
    assert "near-collision" in report.entries[1].reason and "'data-export'" in report.entries[1].reason
    assert store.names() == ["data-export"]


def test_a_name_mixing_scripts_without_a_twin_imports_with_a_warning(store, tmp_path):
    folder = skill_folder(tmp_path / "lib", frontmatter(name="m\u0430il-merge"), "mail")
    entry = import_paths(store, [folder]).entries[0]
    assert entry.status == "imported"
    assert any("mixes Cyrillic and Latin letters" in w for w in entry.warnings)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("case", GUI_CASES, ids=[c.id for c in GUI_CASES])
def test_window_import_reports_hostile_input_and_lives_on(case, qtbot, seeded_store, tmp_path):
    from PySide6.QtCore import QSettings, Qt

    from skill_studio.ui.settings import StudioSettings
    from skill_studio.ui.shell.main_window import MainWindow

    window = MainWindow(seeded_store, StudioSettings(QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat)))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    listed = window.model.names()
    before = dump_store(seeded_store.path)
    built = case.build(tmp_path)

    window.import_paths([str(built.target)])
    qtbot.waitUntil(lambda: window.import_report is not None, timeout=30_000)

    assert window.isVisible()
    model = window.import_report.model
    assert model.rowCount() == 1 and model.data(model.index(0, 0)) == "skipped"
    shown = f"{model.data(model.index(0, 2))} {model.data(model.index(0, 3))}"
    assert printable(built.named) in shown or printable(built.named) in model.data(model.index(0, 3), Qt.ToolTipRole)
    for word in case.words:
        assert word in shown
    assert "0 imported" in window.statusBar().currentMessage()
    assert window.model.names() == listed and len(listed) == len(seeded_store)
    assert dump_store(seeded_store.path) == before
    window.import_report.close()
