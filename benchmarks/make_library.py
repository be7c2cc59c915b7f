"""Write a synthetic library of N skill folders with realistic sizes.

Usage: python benchmarks/make_library.py N DIR [--seed S]

Bodies are 20-600 lines with headings, lists, tables and code blocks; about a
fifth of the skills have sibling files (scripts/run.sh, references/*.md,
tools.yaml) and about a third depend on one to three earlier skills.
"""

from __future__ import annotations

import argparse
import os
import random
from pathlib import Path

WORDS = ("agent build cache check clean commit config data deploy diff docs error export file "
         "format graph health import index issue lint log merge model note parse patch pdf "
         "plan query release report review schema script search shell skill source sql "
         "table test trace upload user validate version watch workflow write yaml").split()
VERBS = "Extracts Formats Reviews Writes Checks Cleans Builds Converts Summarises Validates".split()
LANGS = ["python", "bash", "json", "yaml", "sql", "javascript"]


def sentence(rng: random.Random, n: int) -> str:
    words = [rng.choice(WORDS) for _ in range(n)]
    return " ".join(words).capitalize() + "."


def body(rng: random.Random, name: str, lines: int) -> str:
    out = [f"# {name.replace('-', ' ').title()}", "", sentence(rng, 14), "", "## Steps", ""]
    out += [f"{i}. {sentence(rng, rng.randint(6, 14))}" for i in range(1, rng.randint(3, 8))]
    section = 0
    while len(out) < lines:
        kind = rng.random()
        if kind < 0.12:
            section += 1
            out += ["", f"## {sentence(rng, 3)[:-1]}", ""]
        elif kind < 0.22:
            lang = rng.choice(LANGS)
            out += ["", f"```{lang}"]
            out += [f"    {rng.choice(WORDS)}_{rng.choice(WORDS)}({rng.randint(0, 99)})"
                    for _ in range(rng.randint(3, 15))]
            out += ["```", ""]
        elif kind < 0.27:
            out += ["", "| option | meaning |", "|---|---|"]
            out += [f"| `{rng.choice(WORDS)}` | {sentence(rng, 6)} |" for _ in range(rng.randint(2, 6))]
            out.append("")
        elif kind < 0.5:
            out.append(f"- {sentence(rng, rng.randint(5, 16))}")
        else:
            out.append(sentence(rng, rng.randint(8, 22)))
    return "\n".join(out[:lines]) + "\n"


def make(n: int, dest: Path, seed: int = 7) -> list[Path]:
    rng = random.Random(seed)
    dest.mkdir(parents=True, exist_ok=True)
    names: list[str] = []
    folders = []
    for i in range(n):
        name = f"{rng.choice(WORDS)}-{rng.choice(WORDS)}-{i:06d}"
        deps = rng.sample(names[-200:], k=min(len(names[-200:]), rng.randint(1, 3))) \
            if names and rng.random() < 0.33 else []
        tags = " ".join(sorted(set(rng.sample(WORDS, k=rng.randint(1, 4)))))
        meta = [f'  tags: "{tags}"']
        if deps:
            meta.append(f'  depends-on: "{" ".join(deps)}"')
        text = (f"---\nname: {name}\ndescription: {rng.choice(VERBS)} {sentence(rng, 12)[:-1].lower()}. "
                f"Use when {sentence(rng, 8)[:-1].lower()}.\nlicense: Apache-2.0\nmetadata:\n"
                + "\n".join(meta) + "\n---\n" + body(rng, name, rng.randint(20, 600)))
        folder = dest / name
        folder.mkdir(exist_ok=True)
        (folder / "SKILL.md").write_text(text, encoding="utf-8")
        if rng.random() < 0.2:
            (folder / "scripts").mkdir(exist_ok=True)
            run = folder / "scripts" / "run.sh"
            run.write_text("#!/usr/bin/env bash\nset -euo pipefail\necho \"$@\"\n")
            os.chmod(run, 0o755)
            (folder / "references").mkdir(exist_ok=True)
            (folder / "references" / "notes.md").write_text(body(rng, name, rng.randint(10, 80)))
            (folder / "tools.yaml").write_text(f"tools:\n  - name: {name.replace('-', '_')}\n")
        names.append(name)
        folders.append(folder)
    return folders


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int)
    ap.add_argument("dest", type=Path)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    folders = make(args.n, args.dest, args.seed)
    size = sum(f.stat().st_size for d in folders for f in d.rglob("*") if f.is_file())
    print(f"wrote {len(folders)} skills, {size / 2**20:.1f} MiB, into {args.dest}")


if __name__ == "__main__":
    main()
