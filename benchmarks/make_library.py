"""Write a synthetic library of N skill folders with realistic sizes.

Usage: python benchmarks/make_library.py N DIR [--seed S]

Bodies are 20-600 lines with headings, lists, tables and code blocks; about a
fifth of the skills have sibling files (scripts/run.sh, references/*.md,
tools.yaml) and about a third depend on one to three earlier skills.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
from pathlib import Path

COMMON = ("agent build cache check clean commit config data deploy diff docs error export file "
          "format graph health import index issue lint log merge model note parse patch pdf "
          "plan query release report review schema script search shell skill source sql "
          "table test trace upload user validate version watch workflow write yaml").split()
_SYLLABLES = "ka lo mi nu pe ra si to vu xe bri cha dro fle gru kin lan mor pix qua sten tur".split()


def _vocabulary(size: int = 6000) -> list[str]:
    rng = random.Random(1)
    words = set(COMMON)
    while len(words) < size:
        words.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words, key=lambda w: (w not in COMMON, w))


WORDS = _vocabulary()
# Zipf-like weights: a few words are everywhere, most are rare, as in real text.
_WEIGHTS = [1.0 / (rank + 1) for rank in range(len(WORDS))]
_CUM = list(itertools.accumulate(_WEIGHTS))
VERBS = "Extracts Formats Reviews Writes Checks Cleans Builds Converts Summarises Validates".split()
LANGS = ["python", "bash", "json", "yaml", "sql", "javascript"]


def word(rng: random.Random) -> str:
    return rng.choices(WORDS, cum_weights=_CUM)[0]


def sentence(rng: random.Random, n: int) -> str:
    words = rng.choices(WORDS, cum_weights=_CUM, k=n)
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
            out += [f"    {word(rng)}_{word(rng)}({rng.randint(0, 99)})"
                    for _ in range(rng.randint(3, 15))]
            out += ["```", ""]
        elif kind < 0.27:
            out += ["", "| option | meaning |", "|---|---|"]
            out += [f"| `{word(rng)}` | {sentence(rng, 6)} |" for _ in range(rng.randint(2, 6))]
            out.append("")
        elif kind < 0.5:
            out.append(f"- {sentence(rng, rng.randint(5, 16))}")
        else:
            out.append(sentence(rng, rng.randint(8, 22)))
    return "\n".join(out[:lines]) + "\n"


def skill_files(rng: random.Random, i: int, names: list[str]) -> tuple[str, str, dict[str, tuple[str, int]]]:
    """(name, SKILL.md text, {relative path: (text, mode)}) of synthetic skill number i."""
    name = f"{rng.choice(COMMON)}-{rng.choice(COMMON)}-{i:06d}"
    recent = names[-200:]
    deps = rng.sample(recent, k=min(len(recent), rng.randint(1, 3))) if recent and rng.random() < 0.33 else []
    tags = " ".join(sorted(set(rng.sample(COMMON, k=rng.randint(1, 4)))))
    meta = [f'  tags: "{tags}"']
    if deps:
        meta.append(f'  depends-on: "{" ".join(deps)}"')
    text = (f"---\nname: {name}\ndescription: {rng.choice(VERBS)} {sentence(rng, 12)[:-1].lower()}. "
            f"Use when {sentence(rng, 8)[:-1].lower()}.\nlicense: Apache-2.0\nmetadata:\n"
            + "\n".join(meta) + "\n---\n" + body(rng, name, rng.randint(20, 600)))
    extra: dict[str, tuple[str, int]] = {}
    if rng.random() < 0.2:
        extra["scripts/run.sh"] = ("#!/usr/bin/env bash\nset -euo pipefail\necho \"$@\"\n", 0o755)
        extra["references/notes.md"] = (body(rng, name, rng.randint(10, 80)), 0o644)
        extra["tools.yaml"] = (f"tools:\n  - name: {name.replace('-', '_')}\n", 0o644)
    return name, text, extra


def generate(n: int, seed: int = 7):
    """Yield (name, SKILL.md text, files) for n synthetic skills."""
    rng = random.Random(seed)
    names: list[str] = []
    for i in range(n):
        name, text, extra = skill_files(rng, i, names)
        names.append(name)
        yield name, text, extra


def make(n: int, dest: Path, seed: int = 7) -> list[Path]:
    """Write n synthetic skill folders under dest; returns the folders."""
    dest.mkdir(parents=True, exist_ok=True)
    folders = []
    for name, text, extra in generate(n, seed):
        folder = dest / name
        folder.mkdir(exist_ok=True)
        (folder / "SKILL.md").write_text(text, encoding="utf-8")
        for rel, (content, mode) in extra.items():
            path = folder / rel
            path.parent.mkdir(exist_ok=True)
            path.write_text(content, encoding="utf-8")
            os.chmod(path, mode)
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
