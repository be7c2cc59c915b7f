"""The command line's own cost: ``skill-studio --help`` and ``skill-studio validate <one skill>``
against the reference's command (``agentskills --help``, ``agentskills validate <dir>``), each a
fresh process, as a user types them.

Usage: python benchmarks/bench_cli.py [--runs 25] [--skill DIR] [--root TREE]

The two commands are run in turn (interleaved) and each figure is the minimum over the runs, so
another program busy on the machine does not decide the ratio. ``--root`` runs the project from
another checkout of it (e.g. a clean worktree, to measure the code before a change).
Target: the project's time at most the reference's (ratio <= 1.0).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BIN = Path(sys.executable).parent


def _script(name: str) -> list[str]:
    """The console script ``name`` beside this interpreter (run with it, as the shell would)."""
    path = BIN / name
    if not path.exists():
        raise SystemExit(f"bench_cli: {path} not found: install the project and the reference "
                         "(skills-ref) into this environment first")
    return [sys.executable, str(path)]


def _once(cmd: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = (time.perf_counter() - t0) * 1000
    if done.returncode not in (0, 1):
        raise SystemExit(f"bench_cli: {' '.join(cmd)} failed ({done.returncode}): {done.stderr.decode()[-400:]}")
    return elapsed


def compare(label: str, project: list[str], reference: list[str], runs: int, env: dict[str, str]) -> float:
    _once(project, env), _once(reference, env)   # warm the file cache
    mine, theirs = [], []
    for _ in range(runs):
        mine.append(_once(project, env))
        theirs.append(_once(reference, env))
    ratio = min(mine) / min(theirs)
    print(f"{label}: project {min(mine):.1f} ms, floor {min(theirs):.1f} ms, ratio {ratio:.2f} "
          f"(target <= 1.0; the reference: {Path(reference[1]).name} {' '.join(reference[2:])})", flush=True)
    return ratio


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=25)
    ap.add_argument("--skill", type=Path, default=ROOT / "resources" / "samples" / "csv-cleanup")
    ap.add_argument("--root", type=Path, default=None, help="run the project from this checkout")
    args = ap.parse_args()
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)   # compiled once (the warm-up run), as on a user's machine
    if args.root is not None:   # its package first on the path, ahead of the installed one
        env["PYTHONPATH"] = os.pathsep.join([str(args.root.resolve()), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    project, reference = _script("skill-studio"), _script("agentskills")
    skill = str(args.skill.resolve())
    print(f"{args.runs} runs each, interleaved, minima; project from {args.root or ROOT}", flush=True)
    compare("--help", project + ["--help"], reference + ["--help"], args.runs, env)
    compare("validate one skill", project + ["validate", skill], reference + ["validate", skill], args.runs, env)


if __name__ == "__main__":
    main()
