"""How long an agent waits for search_skills and load_skill over the Model Context Protocol, on a
store of N skills (default 10,000), next to the same calls made in-process (the floor: what the
library's own work costs, without the protocol and the process boundary).

Usage: python benchmarks/bench_mcp.py [--n N | --db PATH] [--calls C]

The synthetic store of N skills (make_library.py's, imported as a user imports a folder) is built
once and kept (see stores.py); a store given with --db is served as it is, from a copy, and never
written.

The server runs as clients start it (``skill-studio mcp`` over stdio, a subprocess) and is driven
with the SDK's own client. Each call is timed from the request to the answer; the script prints
the median and the 90th percentile of C calls each (queries drawn from the library's own words;
loads of skills spread over it), for the server and for the floor, and their ratio.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from make_library import COMMON, make  # noqa: E402

from skill_studio.core.library.importer import import_paths  # noqa: E402
from skill_studio.core.store import Store  # noqa: E402
from skill_studio.mcp_server import tools  # noqa: E402


def build(store_path: Path, n: int) -> None:
    """The synthetic store of ``n`` skills (made anew: an import of a library of a new size is not
    the library of that size)."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{store_path}{suffix}").unlink(missing_ok=True)
    lib = Path(tempfile.mkdtemp(prefix="bench-mcp-lib-"))
    try:
        make(n, lib)
        with Store(store_path) as store:
            import_paths(store, [lib])
    finally:
        shutil.rmtree(lib, ignore_errors=True)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def floor(store_path: Path, queries: list[str], names: list[str]) -> tuple[list[float], list[float]]:
    with Store(store_path) as store:
        tools.search_skills(store, queries[0])   # warm: the library's index, as the server is warm
        searches, loads = [], []
        for q in queries:
            t0 = time.perf_counter()
            tools.search_skills(store, q)
            searches.append(time.perf_counter() - t0)
        for name in names:
            t0 = time.perf_counter()
            tools.load_skill(store, name)
            loads.append(time.perf_counter() - t0)
    return searches, loads


async def served(store_path: Path, queries: list[str], names: list[str]) -> tuple[list[float], list[float]]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, env=dict(os.environ),
                                   args=["-m", "skill_studio", "mcp", "--store", str(store_path)])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await session.call_tool("search_skills", {"query": queries[0]})   # warm
        searches, loads = [], []
        for q in queries:
            t0 = time.perf_counter()
            await session.call_tool("search_skills", {"query": q, "limit": 10})
            searches.append(time.perf_counter() - t0)
        for name in names:
            t0 = time.perf_counter()
            await session.call_tool("load_skill", {"name": name})
            loads.append(time.perf_counter() - t0)
    return searches, loads


def measure(measured, calls: int) -> tuple[list[float], ...]:
    rng = random.Random(7)
    queries = [" ".join(rng.sample(COMMON, 3)) for _ in range(calls)]
    with Store(measured.path) as store:
        gated = sorted(tools.gated_entries(store))
    if not gated:
        raise SystemExit("bench_mcp: no skill in this store passes the gate: agents would see nothing to load")
    names = [gated[i * len(gated) // calls] for i in range(calls)]
    print(f"{measured.summary}; {len(gated):,} skills agents may see; {calls} calls each", flush=True)
    f_search, f_load = floor(measured.path, queries, names)
    s_search, s_load = anyio.run(served, measured.path, queries, names)
    return s_search, s_load, f_search, f_load


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, help="skills in the synthetic store (default 10,000)")
    ap.add_argument("--db", type=Path, help="serve this store (from a copy: it is not written)")
    ap.add_argument("--calls", type=int, default=40)
    args = ap.parse_args()
    import stores

    n = 10_000 if args.n is None and args.db is None else args.n
    with stores.measured(args.db, n, build, program="bench_mcp", kind="bench-mcp") as measured:
        s_search, s_load, f_search, f_load = measure(measured, args.calls)
    for label, project, base in (("search_skills", s_search, f_search), ("load_skill", s_load, f_load)):
        p50, f50 = statistics.median(project) * 1000, statistics.median(base) * 1000
        p90, f90 = percentile(project, 0.9) * 1000, percentile(base, 0.9) * 1000
        print(f"{label}: over MCP (stdio) median {p50:.1f} ms, p90 {p90:.1f} ms; in-process floor median "
              f"{f50:.1f} ms, p90 {f90:.1f} ms; ratio {p50 / f50:.2f}")


if __name__ == "__main__":
    main()
