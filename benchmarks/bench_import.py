"""Import N skills (default 10,000) into a fresh store and compare with the floor.

Usage: python benchmarks/bench_import.py [--n N] [--library DIR] [--runs R] [--no-strict]

The floor is reading the same SKILL.md files and parsing their YAML
frontmatter with PyYAML's C loader, in the same process. Each run measures the
floor and then the import into a new store, one after the other, and the
minimum of each over the runs is compared (the machine may be busy with other
work: a single run says little). Target: the import takes at most 3x the floor.

The window's import reports done once the skills are stored and leaves them waiting for the
search index, which it then builds in the background (a search in between builds the rest
first): the first lines give both moments. The next line is an import that builds the index
inside it (what the command line does). The last gives the importing thread's own share,
reading and parsing every skill with its strict and lenient report but writing nothing, against
the same floor.
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from make_library import make

from skill_studio.core.library import importer
from skill_studio.core.library.folders import discover
from skill_studio.core.library.import_sources import read_sources
from skill_studio.core.library.importer import import_paths
from skill_studio.core.model import Origin
from skill_studio.core.store import Store

TARGET = 3.0


def floor(folders: list[Path]) -> float:
    t0 = time.perf_counter()
    for folder in folders:
        text = (folder / "SKILL.md").read_text(encoding="utf-8")
        end = text.index("\n---\n", 4)
        yaml.load(text[4:end], Loader=yaml.CSafeLoader)
    return time.perf_counter() - t0


def parse_once(lib: Path, strict: bool) -> float:
    """Seconds to read and parse every skill under ``lib`` as an import does, writing nothing."""
    gc.collect()
    t0 = time.perf_counter()
    for read in read_sources(lib):
        importer._parse(read, Origin.HUMAN, strict, importer.ImportEntry(read.source, "skipped"))
    return time.perf_counter() - t0


def import_once(lib: Path, work: Path, strict: bool, later: bool) -> tuple[float, float, str, int, float]:
    """(seconds until the import reports done, seconds until every skill is indexed for search,
    summary, skills imported, store MiB) of one import into a new store. With ``later`` the
    import leaves its skills waiting for the search index and they are indexed after it returns,
    as the window does; without, the index is built inside the import."""
    db = work / "store.db"
    gc.collect()
    t0 = time.perf_counter()
    with Store(db) as store:
        report = import_paths(store, [lib], check_strict=strict, index_later=later)
        done = time.perf_counter() - t0
        store.index_pending()
        indexed = time.perf_counter() - t0
    size = os.path.getsize(db) / 2**20
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    return done, indexed, report.summary, report.count("imported"), size


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--library", type=Path, help="reuse (or create) the library here")
    ap.add_argument("--runs", type=int, default=3, help="interleaved runs; the minima are compared")
    ap.add_argument("--no-strict", action="store_true", help="skip the strict report during import")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-import-"))
    try:
        lib = args.library or work / "library"
        if not lib.exists() or not any(lib.iterdir()):
            make(args.n, lib)
        folders = discover(lib)
        floor(folders)  # warm the page cache for both
        floors, reported, indexed, at_once, parses = [], [], [], [], []
        for _ in range(args.runs):
            floors.append(floor(folders))
            done, full, summary, n, size = import_once(lib, work, not args.no_strict, later=True)
            reported.append(done)
            indexed.append(full)
            at_once.append(import_once(lib, work, not args.no_strict, later=False)[0])
            parses.append(parse_once(lib, not args.no_strict))
        f, t, p = min(floors), min(reported), min(parses)
        i, a = min(indexed), min(at_once)
        print(f"skills: {n} imported ({summary}); store {size:.1f} MiB; runs: {args.runs}")
        print(f"floor (read + C-YAML frontmatter): {len(folders) / f:,.0f} skills/s; "
              f"import: {n / t:,.0f} skills/s")
        print(f"import {len(folders):,} skills, until it reports done (the window's way: the search index "
              f"after): project {t * 1000:.0f} ms, floor {f * 1000:.0f} ms, ratio {t / f:.2f} (target ≤ {TARGET:g})")
        print(f"  ... and every skill indexed for search: project {i * 1000:.0f} ms, floor {f * 1000:.0f} ms, "
              f"ratio {i / f:.2f}")
        print(f"import {len(folders):,} skills with the search index built inside it (the command line's "
              f"way): project {a * 1000:.0f} ms, floor {f * 1000:.0f} ms, ratio {a / f:.2f}")
        print(f"read + parse {len(folders):,} skills (nothing written): project {p * 1000:.0f} ms, "
              f"floor {f * 1000:.0f} ms, ratio {p / f:.2f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
