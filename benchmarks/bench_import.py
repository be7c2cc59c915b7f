"""Import N skills (default 10,000) into a fresh store and compare with the floor.

Usage: python benchmarks/bench_import.py [--n N] [--library DIR]

The floor is reading the same SKILL.md files and parsing their YAML
frontmatter with PyYAML's C loader, in the same process. Target: the import
takes at most 3x the floor.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from make_library import make

from skill_studio.core.library.folders import discover
from skill_studio.core.library.importer import import_paths
from skill_studio.core.store import Store


def floor(folders: list[Path]) -> float:
    t0 = time.perf_counter()
    for folder in folders:
        text = (folder / "SKILL.md").read_text(encoding="utf-8")
        end = text.index("\n---\n", 4)
        yaml.load(text[4:end], Loader=yaml.CSafeLoader)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--library", type=Path, help="reuse (or create) the library here")
    ap.add_argument("--no-strict", action="store_true", help="skip the strict report during import")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-import-"))
    lib = args.library or work / "library"
    if not lib.exists() or not any(lib.iterdir()):
        make(args.n, lib)
    folders = discover(lib)
    floor(folders)  # warm the page cache for both runs
    f = min(floor(folders) for _ in range(2))
    db = work / "store.db"
    gc.collect()
    t0 = time.perf_counter()
    with Store(db) as store:
        report = import_paths(store, [lib], check_strict=not args.no_strict)
    t = time.perf_counter() - t0
    n = report.count("imported")
    print(f"skills: {n} imported ({report.summary})")
    print(f"floor (read + C-YAML frontmatter): {f:.2f} s, {len(folders) / f:,.0f} skills/s")
    print(f"import into a fresh store:         {t:.2f} s, {n / t:,.0f} skills/s")
    print(f"ratio to floor: {t / f:.2f}x (target <= 3x)")
    print(f"store size: {os.path.getsize(db) / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
