"""A varied corpus of skills to import, and what an import of it gives, written out as plain data:
the report (status, name, reason, warnings and strict errors of each skill) and every stored skill
field by field (long texts and file contents by their SHA-256; without the strict report, the
stored skills by one digest).

``python -m tests.core.import_corpus OUT.json`` writes that record for the code in the tree; the
record kept in tests/fixtures/import_expected.json is compared with a fresh import in
test_import_parse_once.py (rewrite it only when a change of what imports give is meant).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import shutil
import sys
import zipfile
from pathlib import Path
from typing import Any

from skill_studio.core.library.importer import import_paths
from skill_studio.core.store import Store

ROOT = Path(__file__).resolve().parents[2]
REAL_WORLD = ROOT / "tests" / "fixtures" / "real_world"
SAMPLES = ROOT / "resources" / "samples"
EXPECTED = ROOT / "tests" / "fixtures" / "import_expected.json"

_WORDS = ("café naïve résumé straße ünïcode emoji🙂 data report parse deploy kubernetes yaml "
          "λόγος слово 数据 schema lint migrate-db v2.1 foo_bar x").split()

# Bodies whose steps are found (or not) in the many ways Markdown allows.
_BODIES = [
    "# T\n\n## Steps\n\n1. One\n2. Two\n   wrapped\n3) Other list\n",
    "# T\n\nSteps\n-----\n\n1. Setext heading\n2. Second\n",
    "## Procedure\n\n```\n1. not a step (in code)\n```\n\n4. Four\n5. Five\n",
    "## Workflow\n\n\t1. tab indented\n\t2. code, not a list\n\n1. real\n",
    "## Steps\n\n1. Lazy\ncontinuation line\n2. with nested:\n   - a\n   - b\n\n   ```sh\n   run\n   ```\n",
    "## How to use\r\n\r\n1. crlf one\r\n2. crlf two\r\n\r\nafter\r\n",
    "## Steps\r1. cr only\r2. second\r",
    "## Instructions\n\n1.\n   empty first line\n2.  \n\n   two blank\n10. ten\n",
    "Intro\n1. not after a paragraph start\n\n## Steps\n\n***\n\n1. after a rule\n",
    "## Other\n\n1. not steps\n\n## Steps\n\nno list here\n\n## Steps again\n\n1. found late\n",
    "## Steps\n\n1. trailing cr\r\r\n2. more\r\r\n",
    "## Steps\n\n> 1. quoted\n\n1.    indented code item\n2. x",
    "",
    "no steps at all\n",
]

_FRONTMATTERS = [
    "name: {n}\ndescription: Does {w}. Use when {w}.\n",
    "name: {n}\ndescription: >\n  Folded {w}\n  text. Use when asked.\nmetadata:\n  tags: \"a b\"\n",
    "name: {n}\ndescription: \"Quoted: {w}\"\ntags: [x, y, x]\ndepends_on: other-skill\n",
    "name: {n}\ndescription: Bad: colon {w}\n",
    "name: {n}\n",
    "name: {n}\ndescription: 12\nsteps:\n  - action: first\n  - step: second\n  - third\n",
    "name: {n}\ndescription: Text\nmetadata:\n  steps: |\n    1. meta one\n    2. meta two\n",
    "name: {n}\ndescription: Text\nname: {n}\nunknown-key: 1\ncompatibility: 3\n",
    "- a list\n- not a mapping\n",
    "name: &a {n}\ndescription: *a\n",
    "name: {n}\ndescription: d\nmetadata: {{a: 1, b: [1, 2]}}\nlicense: MIT\nallowed-tools: Bash\n",
    "name: \"  {n}  \"\ndescription: Padded. Use when padded.\n",
    "name: Ｆｕｌｌ-{n}\ndescription: NFKC name. Use when wide.\n",
    "name: {n}\ndescription: Dated\ncreated: 2024-01-02\nparent: base-skill\ntrigger_pattern: when x\n",
    "description: Nameless. Use when the folder names it.\n",
    "name: {n}\ndescription: Tab\there\nmetadata:\n  depends-on: a b, c\n",
]


def varied(root: Path, n: int = 64, seed: int = 11) -> Path:
    """Skills combining the frontmatters and bodies above with line ends (LF, CRLF, CR), a
    byte-order mark or blank lines before the fence, files beside SKILL.md, repeated and
    look-alike names, and a few that cannot be read at all."""
    rng = random.Random(seed)
    for i in range(n):
        name = f"varied-{i:03d}"
        fm = _FRONTMATTERS[i % len(_FRONTMATTERS)].format(n=name, w=rng.choice(_WORDS))
        body = _BODIES[(i * 5 + rng.randint(0, 3)) % len(_BODIES)]
        text = "---\n" + fm + "---\n" + body
        if i % 5 == 1:
            text = text.replace("\n", "\r\n")
        elif i % 11 == 3:
            text = text.replace("\n", "\r")
        if i % 9 == 2:
            text = "\ufeff" + text
        elif i % 13 == 4:
            text = "\n\n" + text
        folder = root / ("group" if i % 6 == 0 else "") / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_bytes(text.encode("utf-8"))
        if i % 4 == 0:
            (folder / "scripts").mkdir()
            (folder / "scripts" / "run.sh").write_text(f"#!/bin/sh\necho {i}\n")
            (folder / "scripts" / "run.sh").chmod(0o755)
            (folder / "tools.yaml").write_text(f"tools:\n  - name: run_{i}\n")
    specials = {
        "dup-a/same-name": "---\nname: same-name\ndescription: First. Use when first.\n---\nA\n",
        "dup-b/same-name": "---\nname: same-name\ndescription: Second. Use when second.\n---\nB\n",
        "dup-c/same-name": "---\ndescription: Third, named by its folder. Use when third.\n---\nC\n",
        "look/rn-skill": "---\nname: rn-skill\ndescription: Looks like m. Use when m.\n---\n",
        "look/m-skill": "---\nname: m-skill\ndescription: The m one. Use when m.\n---\n",
        "mixed/pаypal": "---\nname: pаypal\ndescription: Cyrillic a. Use when mixed.\n---\n",
        "bad/unclosed": "---\nname: unclosed\ndescription: never closed\n",
        "bad/no-fence": "name: no-fence\n",
        "bad/empty-desc": "---\nname: empty-desc\ndescription: \"\"\n---\n",
        "bad/bad-name": "---\nname: \"bad\\u0000name\"\ndescription: Control. Use when never.\n---\n",
        "bad/deep": "---\nname: deep\ndescription: d\nx: " + "[" * 200 + "]" * 200 + "\n---\n",
        "bad/bad-date": "---\nname: bad-date\ndescription: d\nwhen: 2024-13-45\n---\n",
        "lower/skill-md-lower": None,
    }
    for rel, text in specials.items():
        folder = root / rel
        folder.mkdir(parents=True)
        if text is None:
            (folder / "skill.md").write_text("---\nname: skill-md-lower\ndescription: Lowercase file. "
                                             "Use when lower.\n---\n## Steps\n1. x\n")
        else:
            (folder / "SKILL.md").write_bytes(text.encode("utf-8"))
    (root / "bad" / "utf8").mkdir()
    (root / "bad" / "utf8" / "SKILL.md").write_bytes(b"---\nname: utf8\ndescription: \xff\xfe\n---\n")
    with zipfile.ZipFile(root / "packed.skill", "w") as zf:
        zf.writestr("packed/SKILL.md", "---\nname: packed\ndescription: From an archive. Use when "
                                       "packed.\n---\n## Steps\n\n1. unzip\n")
        zf.writestr("packed/references/a.md", "ref\n")
    return root


def build(tmp: Path) -> list[Path]:
    """The corpus under ``tmp``: the real-world fixtures, the samples, the varied skills and an
    archive; the paths to import, in order."""
    from tests.core.test_import_speed_paths import synthetic

    real = tmp / "real_world"
    shutil.copytree(REAL_WORLD, real, symlinks=True)
    git_skill = real / "hidden-folders" / "collection" / ".git" / "x"
    git_skill.mkdir(parents=True, exist_ok=True)
    (git_skill / "SKILL.md").write_text("---\nname: x\ndescription: Never found. Use when never.\n---\n")
    samples = tmp / "samples"
    shutil.copytree(SAMPLES, samples, ignore=shutil.ignore_patterns("*.json"))
    varied_root = varied(tmp / "varied")
    return [real, samples, synthetic(tmp / "synthetic"), varied_root, varied_root / "packed.skill"]


def _digest(value: Any) -> str:
    data = value if isinstance(value, bytes) else str(value).encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()


_TIMES = {"created_at", "updated_at", "last_used_at", "freshness"}
_HASHED = {"skill_md", "content"}


def stored(store: Store, root: str) -> list[dict[str, Any]]:
    """Every stored skill as plain data (times left out, long texts by digest)."""
    out = []
    for name in store.names():
        skill = store.get(name)
        row: dict[str, Any] = {}
        for f in dataclasses.fields(skill):
            value = getattr(skill, f.name)
            if f.name in _TIMES:
                continue
            if f.name in _HASHED:
                value = _digest(value)
            elif f.name == "files":
                value = [[sf.path, sf.mode, _digest(sf.data)] for sf in value]
            elif f.name == "source_path" and value:
                value = value.replace(root, "<root>")
            elif hasattr(value, "value"):
                value = value.value
            row[f.name] = value
        out.append(row)
    return out


def record(tmp: Path) -> dict[str, Any]:
    """What importing the corpus built under ``tmp`` gives: with and without the strict report,
    and a second import over the first."""
    paths = build(tmp / "corpus")
    root = str(tmp / "corpus")
    out: dict[str, Any] = {}
    for label, strict in (("strict", True), ("lenient", False)):
        with Store(tmp / f"{label}.db") as store:
            runs = []
            for _ in range(2 if strict else 1):
                report = import_paths(store, paths, check_strict=strict)
                runs.append({"summary": report.summary, "entries": [
                    {k: (v.replace(root, "<root>") if isinstance(v, str) else
                         [x.replace(root, "<root>") for x in v] if isinstance(v, list) else v)
                     for k, v in dataclasses.asdict(e).items()} for e in report.entries]})
            rows = stored(store, root)
            out[label] = {"reports": runs, "stored": rows if strict else _digest(json.dumps(rows, sort_keys=True))}
    return out


def main() -> None:
    import tempfile

    dest = Path(sys.argv[1]) if len(sys.argv) > 1 else EXPECTED
    with tempfile.TemporaryDirectory() as tmp:
        data = record(Path(tmp))
    dest.write_text(json.dumps(data, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {dest}")


if __name__ == "__main__":
    main()
