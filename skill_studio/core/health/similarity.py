"""Near-duplicate search over skill vectors (SPEC §5, §6), in numpy.

Vectors come from an :class:`~skill_studio.core.health.embedding.Embedder` (the built-in
:class:`~skill_studio.core.health.embedding.HashedTfidfEmbedder` unless another is given). They are
kept in the store per skill and recomputed only when the skill's content hash (or the
embedder's model id) changes, so a vector must not depend on the rest of the library. What
plain TF-IDF gets from its IDF — words every skill uses count for little — comes partly from
the embedder (stop words, sublinear term frequency) and partly from here: at comparison time
:class:`SimilarityIndex` subtracts a share of the library's mean vector from every vector
(and re-normalises), so the direction every skill has in common, the shared boilerplate IDF
would discount, stops making unrelated skills look alike. The share is ``n / (n + 50)`` for
``n`` vectors, so a library of a handful of skills is compared almost as stored.
"""

from __future__ import annotations

import ctypes
import os
import pickle
import weakref
from collections import deque
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Any

import numpy as np

from skill_studio.core.health.bands import (  # noqa: F401 - the bands are named here too
    COPY_BANDS,
    NEIGHBOUR_FLOOR,
    SIMILARITY_BANDS,
    UNRELATED,
    similarity_band,
)
from skill_studio.core.health.embedding import MAX_CONTENT, Embedder, HashedTfidfEmbedder, skill_text


@dataclass(frozen=True)
class Pair:
    """Two skills (``a`` < ``b``) and their cosine similarity."""

    a: str
    b: str
    similarity: float
    reason: str = ""       # why it is a duplicate (core.health.duplicates), when that was judged


Progress = Callable[[int, int], Any]


class SimilarityIndex:
    """Vectors of a store's skills (kept in the store) and the comparisons built on them."""

    BATCH = 512             # skills embedded and saved at a time
    PARALLEL_FROM = 2_000   # vectors to compute before worker processes are worth starting
    BLOCK_BYTES = 64 << 20  # the most one block of similarities may take

    def __init__(self, store, embedder: Embedder | None = None):
        self.store = store
        self.embedder: Embedder = embedder or HashedTfidfEmbedder()

    # --- vectors ------------------------------------------------------------

    def refresh(self, progress: Progress | None = None, cancelled: Callable[[], bool] | None = None,
                *, parallel: bool = False) -> int:
        """Compute the vectors that are missing or stale (content or model changed), in batches,
        saving each batch; returns how many were computed. Stops between batches when
        ``cancelled()`` is true (what was saved stays).

        With ``parallel``, many vectors are computed in spawned worker processes, a batch each,
        while this process reads the next texts and saves. Spawned processes import the
        program's main module again, so only a program whose main module is import-safe (an
        ``if __name__ == "__main__"`` guard, as the studio's own entry points have) may ask."""
        model = self.embedder.model
        todo = self.store.stale_vectors(model)
        done = 0
        if progress:
            progress(0, len(todo))
        pool, workers = _worker_pool(self.embedder, len(todo), self.PARALLEL_FROM if parallel else None)
        pending: deque = deque()   # (rows, texts, future), oldest first

        def save(rows, vectors):
            nonlocal done
            self.store.save_vectors(model, [(r[0], r[1], v) for r, v in zip(rows, vectors)])
            done += len(rows)
            if progress:
                progress(done, len(todo))

        def give_up_workers():  # a worker died or cannot be reached: the rest is done here
            nonlocal pool
            if pool is not None:
                pool.shutdown(wait=False, cancel_futures=True)
                pool = None

        def finish_oldest():
            rows, texts, future = pending.popleft()
            try:
                vectors = future.result()
            except _WORKER_FAILURES:
                give_up_workers()
                vectors = self.embedder.embed(texts)
            save(rows, vectors)

        try:
            for start in range(0, len(todo), self.BATCH):
                if cancelled and cancelled():
                    break
                rows = self.store.embedding_inputs(todo[start:start + self.BATCH], MAX_CONTENT)
                texts = [skill_text(name, description, content) for name, _, description, content in rows]
                if pool is not None:
                    try:
                        pending.append((rows, texts, pool.submit(_embed_in_worker, texts)))
                    except _WORKER_FAILURES + (RuntimeError,):   # broken, or shut down meanwhile
                        give_up_workers()
                if pool is None:
                    save(rows, self.embedder.embed(texts))
                while len(pending) > workers or (pending and pool is None):
                    finish_oldest()
            while pending and not (cancelled and cancelled()):
                finish_oldest()
        finally:
            if pool is not None:
                pool.shutdown(wait=False, cancel_futures=True)
        return done

    def matrix(self, *, include_archived: bool = False) -> tuple[list[str], np.ndarray]:
        """(names, vectors ready for dot products): the stored vectors (refresh first) with a
        share of the library's common direction taken out, rows re-normalised. Kept per store
        while it stays the same (do not change the matrix returned)."""
        key = (self.store.match_state(), self.embedder.model, include_archived)
        kept = _MATRICES.get(self.store)
        if kept is not None and key[0] is not None and kept[0] == key:
            return kept[1], kept[2]
        names, m = self.store.load_vectors(self.embedder.model, include_archived=include_archived)
        m = _centred(m)
        if key[0] is not None:
            _MATRICES[self.store] = (key, names, m)
        return names, m

    # --- comparisons --------------------------------------------------------

    def _block_rows(self, n: int) -> int:
        return max(16, min(4096, self.BLOCK_BYTES // max(1, 4 * n)))

    def scan(self, threshold: float = 0.75, *, include_archived: bool = False,
             progress: Progress | None = None,
             cancelled: Callable[[], bool] | None = None) -> tuple[list[Pair], dict[str, float]]:
        """:meth:`near_duplicates` and :meth:`max_similarity` from one pass over the pairs (what
        a health run needs): blocks of rows times the rows from there on, so each pair is
        computed once. A cancelled scan returns what it found so far."""
        names, m = self.matrix(include_archived=include_archived)
        n = len(names)
        best = np.full(n, -np.inf if n > 1 else 0.0, np.float32)
        found_i, found_j, found_s = [], [], []
        rows = self._block_rows(n)
        for start in range(0, n, rows):
            if cancelled and cancelled():
                break
            stop = min(n, start + rows)
            block = m[start:stop] @ m[start:].T          # [rows, n - start]; column c is skill start + c
            diagonal = np.arange(stop - start)
            block[diagonal, diagonal] = -np.inf            # a skill is not its own duplicate
            np.maximum(best[start:stop], block.max(axis=1), out=best[start:stop])
            np.maximum(best[start:], block.max(axis=0), out=best[start:])
            i, j = np.nonzero(block >= threshold)
            keep = j > i                                  # upper triangle only
            i, j = i[keep], j[keep]
            found_s.append(block[i, j])
            found_i.append(i + start)
            found_j.append(j + start)
            if progress:
                progress(stop, n)
        maxima = {name: float(v) for name, v in zip(names, best)}
        if not found_s:
            return [], maxima
        ii, jj, ss = np.concatenate(found_i), np.concatenate(found_j), np.concatenate(found_s)
        order = np.lexsort((jj, ii, -ss))
        dismissed = self.store.dismissed_pairs()
        pairs = []
        for k in order.tolist():
            a, b = names[ii[k]], names[jj[k]]
            if a > b:
                a, b = b, a
            if (a, b) not in dismissed:
                pairs.append(Pair(a, b, float(ss[k])))
        return pairs, maxima

    def near_duplicates(self, threshold: float = 0.75, *, include_archived: bool = False,
                        progress: Progress | None = None,
                        cancelled: Callable[[], bool] | None = None) -> list[Pair]:
        """Every pair of skills at or above ``threshold``, most similar first; pairs a reviewer
        dismissed are left out, and archived skills unless ``include_archived``. Vectors
        must be current (call :meth:`refresh`); skills without one are not compared."""
        return self.scan(threshold, include_archived=include_archived, progress=progress,
                         cancelled=cancelled)[0]

    def max_similarity(self) -> dict[str, float]:
        """Each non-archived skill's highest similarity to another non-archived skill
        (0.0 when it is the only one); skills without a current vector are left out."""
        return self.scan(np.inf)[1]

    def pair_similarity(self, a: str, b: str) -> float:
        """The similarity of two skills (0.0 when either has no current vector)."""
        names, m = self.matrix()
        try:
            i, j = names.index(a), names.index(b)
        except ValueError:
            return 0.0
        return float(m[i] @ m[j])

    def similar_to(self, name: str, k: int = 5) -> list[tuple[str, float]]:
        """The ``k`` non-archived skills most similar to ``name``, most similar first."""
        names, m = self.matrix()
        try:
            row = names.index(name)
            v = m[row]
        except ValueError:  # archived or without a vector: embed it as it is now
            s = self.store.get(name, with_files=False)
            v = self.embedder.embed([skill_text(s.name, s.description, s.content)])[0]
            row = -1
        if not names:
            return []
        sims = m @ v
        if row >= 0:
            sims[row] = -np.inf
        k = min(k, len(names) - (row >= 0))
        if k <= 0:
            return []
        top = np.argpartition(-sims, k - 1)[:k]
        top = top[np.lexsort((top, -sims[top]))]
        return [(names[i], float(sims[i])) for i in top]


_MATRICES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # store -> (key, names, matrix)
_worker_embedder: Embedder | None = None
MAX_WORKERS = 4
_WORKER_FAILURES = (BrokenProcessPool, OSError, pickle.PicklingError)
_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def _init_worker(embedder: Embedder) -> None:
    global _worker_embedder
    _worker_embedder = embedder
    _one_math_thread()


def _one_math_thread() -> None:
    """In a worker process: one thread for the math library (the workers are the parallelism;
    more threads than cores make every product slower). The library was loaded with numpy
    before this runs, so it is told through its own call where it has one (OpenBLAS, as
    numpy's wheels bundle it, or a system one); the variables cover libraries loaded later."""
    os.environ.update(dict.fromkeys(_THREAD_VARIABLES, "1"))
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            paths = {line.split()[-1] for line in maps if "openblas" in line.lower() and "/" in line}
    except OSError:   # not Linux: the library keeps its own count
        return
    for path in sorted(paths):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for symbol in ("openblas_set_num_threads", "scipy_openblas_set_num_threads64_",
                       "scipy_openblas_set_num_threads", "openblas_set_num_threads64_"):
            setter = getattr(lib, symbol, None)
            if setter is not None:
                setter(1)
                break


def _embed_in_worker(texts: list[str]) -> np.ndarray:
    embedder = _worker_embedder
    if embedder is None:
        raise RuntimeError("no embedder in this process: only the workers _worker_pool starts embed here")
    return embedder.embed(texts)


def _worker_pool(embedder: Embedder, count: int, threshold: int | None) -> tuple[ProcessPoolExecutor | None, int]:
    """(a pool of worker processes, its size) for embedding ``count`` texts, or (None, 0) when
    the work is done here: not asked for (no ``threshold``), fewer texts than it, one CPU, an
    embedder that does not say it can be copied into other processes (``parallel``), or a pool
    that cannot start. Workers are spawned, not forked, so they inherit none of this process's
    threads or GUI state."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    workers = min(MAX_WORKERS, cpus)
    if threshold is None or count < threshold or workers < 2 or not getattr(embedder, "parallel", False):
        return None, 0
    try:
        pool = ProcessPoolExecutor(workers, mp_context=get_context("spawn"),
                                   initializer=_init_worker, initargs=(embedder,))
    except (OSError, ValueError, NotImplementedError):
        return None, 0
    return pool, workers


def _centred(m: np.ndarray, prior: float = 50.0) -> np.ndarray:
    """Rows minus ``n / (n + prior)`` of their mean, re-normalised (see the module docstring)."""
    n = len(m)
    if n == 0:
        return m
    mean = m.mean(axis=0, dtype=np.float64).astype(np.float32) * np.float32(n / (n + prior))
    m -= mean
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    np.divide(m, norms, out=m, where=norms > 0)
    return m


__all__ = ["COPY_BANDS", "Embedder", "HashedTfidfEmbedder", "NEIGHBOUR_FLOOR", "Pair", "SIMILARITY_BANDS",
           "SimilarityIndex", "similarity_band", "skill_text"]
