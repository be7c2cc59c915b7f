"""Strict validation of skill folders, in-process, against the reference validator on the same folders.

Usage: python benchmarks/bench_validate.py [--sizes 900 3000 9000] [--rounds 5] [--seed 1]

For each size a seeded corpus (``validate_corpus.build_corpus``: the real-world fixtures, the
samples and generated skills as public collections hold them) is written to a temporary folder.
The project's ``validate_dir(folder, "strict", lints=False)`` and the reference's
``skills_ref.validator.validate(folder)`` then each validate every folder, taking turns, for
``--rounds`` rounds (half as many above 1,000 skills); the minimum of each is kept (the machine may be busy: minima over
interleaved rounds are the figures to trust). Target: the project at least 10x faster.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from validate_corpus import build_corpus

from skill_studio.core.format.validate import validate_dir

TARGET = 10.0


def _timed(run: Callable[[], object]) -> float:
    gc.collect()
    t0 = time.perf_counter()
    run()
    return time.perf_counter() - t0


def measure(n: int, rounds: int, seed: int) -> float:
    from skills_ref.validator import validate as reference

    with tempfile.TemporaryDirectory() as tmp:
        folders = build_corpus(Path(tmp), n, seed)
        project_errors = sum(1 for f in folders if validate_dir(f, "strict", lints=False))  # warm-up
        reference_errors = 0
        for f in folders:
            try:
                reference_errors += bool(reference(f))
            except UnicodeDecodeError:  # the reference raises on a file that is not UTF-8
                reference_errors += 1

        def project() -> None:
            for f in folders:
                validate_dir(f, "strict", lints=False)

        def floor() -> None:
            for f in folders:
                try:
                    reference(f)
                except UnicodeDecodeError:
                    pass

        best_project = best_floor = float("inf")
        for _ in range(rounds):
            best_project = min(best_project, _timed(project))
            best_floor = min(best_floor, _timed(floor))
    ratio = best_floor / best_project
    print(f"strict validation of {n:,} skills: project {best_project * 1000:.1f} ms, "
          f"floor {best_floor * 1000:.1f} ms, ratio {ratio:.1f}x faster (target ≥ {TARGET:.0f}x); "
          f"{best_project / n * 1e6:.1f} µs per skill; refused: project {project_errors}, "
          f"reference {reference_errors}", flush=True)
    return ratio


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[900, 3000, 9000])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    for n in args.sizes:
        # (the reference takes about 1.5 ms a skill: fewer rounds at the larger sizes)
        measure(n, args.rounds if n <= 1000 else max(2, args.rounds // 2), args.seed)


if __name__ == "__main__":
    main()
