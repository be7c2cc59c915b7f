"""Skill vectors and near-duplicate search (SPEC §5, §6), in numpy.

The built-in embedder (:class:`HashedTfidfEmbedder`) needs no network and no
model files: hashed word unigrams and bigrams plus character 3-5-grams of
words, over a skill's name (counted twice), description and the start of its
content, with sublinear term frequency, L2-normalised. An external provider
can replace it by implementing :class:`Embedder`.

Vectors are kept in the store per skill and recomputed only when the skill's
content hash (or the embedder's model id) changes, so a vector must not depend
on the rest of the library. What plain TF-IDF gets from its IDF — words every
skill uses count for little — comes in two library-independent parts: a list of
English stop words that carry no weight, and sublinear term frequency
(1 + log tf), which keeps a word used a hundred times from swamping the rest.
On top of that, at query time, :class:`SimilarityIndex` subtracts a share of
the library's mean vector from every vector before comparing (and
re-normalises): the direction every skill has in common, which is the shared
boilerplate IDF would discount, stops making unrelated skills look alike. The
share is ``n / (n + 50)`` for ``n`` vectors, so a library of a handful of
skills is compared almost as stored.
"""

from __future__ import annotations

import itertools
import math
import threading
import zlib
from dataclasses import dataclass
from typing import Any, Callable, Protocol

import numpy as np

#: English words every skill uses; they carry no weight as single words (bigrams keep them).
STOP_WORDS = frozenset(
    "a an and are as at be been but by can do does for from has have if in into is it its "
    "not of on or so such than that the their then there these they this to was were when "
    "which while will with you your".split())

_TABLE = bytes(c if (48 <= c <= 57 or 97 <= c <= 122 or c >= 128) else
               (c + 32 if 65 <= c <= 90 else 32) for c in range(256))
_MIX = np.uint64(0x9E3779B97F4A7C15)
#: How much of a skill's content is embedded (characters from the start).
MAX_CONTENT = 8_000


class Embedder(Protocol):
    """What makes vectors from skill texts. ``model`` names the method (and its settings):
    stored vectors of another model id are recomputed."""

    model: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """float32 [len(texts), dim], each row L2-normalised (or all zero for an empty text)."""
        ...


def skill_text(name: str, description: str, content: str, max_content: int = MAX_CONTENT) -> str:
    """The text a skill is embedded from: its name twice, description and content's start."""
    return f"{name} {name}\n{description}\n{content[:max_content]}"


class HashedTfidfEmbedder:
    """Hashed word 1-2-grams and character 3-5-grams of words, sublinear TF, signed feature
    hashing into ``dim`` dimensions (stable hashes: crc32, not Python's salted ``hash``)."""

    CHAR_WEIGHT = 1.0     # the norm of one word's character n-grams, against 1 for the word itself
    BIGRAM_WEIGHT = 0.7
    MAX_VOCABULARY = 400_000  # words whose features are kept between calls
    CHUNK = 128

    def __init__(self, dim: int = 512):
        self.dim = int(dim)
        self.model = f"hashed-tfidf-v1-{self.dim}"
        self._lock = threading.Lock()
        self._vocab: dict[bytes, int] = {}  # word: its index in _words
        self._words: list[tuple[int, np.ndarray, np.ndarray]] = []  # (stable hash, feature idx, values)

    # --- words --------------------------------------------------------------

    def _word_features(self, word: bytes) -> tuple[np.ndarray, np.ndarray]:
        if word in STOP_WORDS_B:
            return np.zeros(0, np.int32), np.zeros(0, np.float32)
        dim = self.dim
        h = zlib.crc32(word, 0x5157)
        idx = [h % dim]
        val = [1.0 if (h >> 31) & 1 else -1.0]
        padded = b" " + word + b" "
        grams = [padded[i:i + n] for n in (3, 4, 5) for i in range(len(padded) - n + 1)]
        if grams:
            w = self.CHAR_WEIGHT / math.sqrt(len(grams))
            for g in grams:
                h = zlib.crc32(g, 0x3A2B)
                idx.append(h % dim)
                val.append(w if (h >> 31) & 1 else -w)
        return np.array(idx, np.int32), np.array(val, np.float32)

    def _ids(self, tokens: list[bytes]) -> np.ndarray:
        """Each token's id in this embedder's vocabulary (new words are added with their features)."""
        vocab = self._vocab
        try:
            return np.fromiter(map(vocab.__getitem__, tokens), np.int64, len(tokens))
        except KeyError:
            pass
        for word in set(tokens).difference(vocab):
            vocab[word] = len(self._words)
            idx, val = self._word_features(word)
            self._words.append((zlib.crc32(word, 0x77), idx, val))
        return np.fromiter(map(vocab.__getitem__, tokens), np.int64, len(tokens))

    def _word_rows(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(dense [len(ids), dim] features, stable 32-bit hashes) of the given words."""
        entries = [self._words[i] for i in ids.tolist()]
        lens = np.fromiter((len(e[1]) for e in entries), np.int64, len(entries))
        rows = np.repeat(np.arange(len(entries), dtype=np.int64), lens)
        idx = np.concatenate([e[1] for e in entries]) if entries else np.zeros(0, np.int32)
        val = np.concatenate([e[2] for e in entries]) if entries else np.zeros(0, np.float32)
        dense = np.bincount(rows * self.dim + idx, weights=val, minlength=len(entries) * self.dim)
        hashes = np.fromiter((e[0] for e in entries), np.uint64, len(entries))
        return dense.reshape(len(entries), self.dim).astype(np.float32), hashes

    # --- documents ----------------------------------------------------------

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), np.float32)
        with self._lock:
            if len(self._vocab) > self.MAX_VOCABULARY:
                self._vocab, self._words = {}, []
            for start in range(0, len(texts), self.CHUNK):
                chunk = texts[start:start + self.CHUNK]
                out[start:start + len(chunk)] = self._embed_chunk(chunk)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out

    def _embed_chunk(self, texts: list[str]) -> np.ndarray:
        dim, n = self.dim, len(texts)
        tokens = [t.lower().encode("utf-8", "replace").translate(_TABLE).split() for t in texts]
        lengths = np.fromiter(map(len, tokens), np.int64, n)
        flat = list(itertools.chain.from_iterable(tokens))
        ids = self._ids(flat)
        present = np.flatnonzero(np.bincount(ids, minlength=len(self._words)))
        u = len(present)
        remap = np.zeros(len(self._words), np.int64)
        remap[present] = np.arange(u)
        local = remap[ids]                 # the chunk's words numbered 0..u-1
        features, whash = self._word_rows(present)
        docs = np.repeat(np.arange(n, dtype=np.int64), lengths)
        # Words: weight 1 + log(count) per document, times each word's features.
        counts = np.bincount(docs * u + local, minlength=n * u)
        nz = np.flatnonzero(counts)
        weights = np.zeros(n * u, np.float32)
        weights[nz] = 1.0 + np.log(counts[nz].astype(np.float32))
        counts = weights.reshape(n, u)
        acc = (counts @ features).astype(np.float64).ravel()
        # Bigrams of neighbouring words in the same document, hashed from the words' stable hashes.
        same = docs[:-1] == docs[1:]
        if same.any():
            left, right = local[:-1][same], local[1:][same]
            h = ((whash[left] << np.uint64(32)) | whash[right]) * _MIX
            h ^= h >> np.uint64(29)
            feature = (h >> np.uint64(40)).astype(np.int64)  # 24 bits
            keys, bigrams = np.unique(docs[:-1][same] * (1 << 24) + feature, return_counts=True)
            f = keys & ((1 << 24) - 1)
            sign = np.where(f & 1, 1.0, -1.0)
            weight = self.BIGRAM_WEIGHT * (1.0 + np.log(bigrams)) * sign
            acc += np.bincount((keys >> 24) * dim + (f >> 1) % dim, weights=weight, minlength=n * dim)
        return acc.reshape(n, dim).astype(np.float32)


STOP_WORDS_B = frozenset(w.encode() for w in STOP_WORDS)


@dataclass(frozen=True)
class Pair:
    """Two skills (``a`` < ``b``) and their cosine similarity."""

    a: str
    b: str
    similarity: float


Progress = Callable[[int, int], Any]


class SimilarityIndex:
    """Vectors of a store's skills (kept in the store) and the comparisons built on them."""

    BATCH = 512             # skills embedded and saved at a time
    BLOCK_BYTES = 64 << 20  # the most one block of similarities may take

    def __init__(self, store, embedder: Embedder | None = None):
        self.store = store
        self.embedder: Embedder = embedder or HashedTfidfEmbedder()

    # --- vectors ------------------------------------------------------------

    def refresh(self, progress: Progress | None = None, cancelled: Callable[[], bool] | None = None) -> int:
        """Compute the vectors that are missing or stale (content or model changed), in batches,
        saving each batch; returns how many were computed. Stops between batches when
        ``cancelled()`` is true (what was saved stays)."""
        todo = self.store.stale_vectors(self.embedder.model)
        done = 0
        if progress:
            progress(0, len(todo))
        for start in range(0, len(todo), self.BATCH):
            if cancelled and cancelled():
                break
            rows = self.store.embedding_inputs(todo[start:start + self.BATCH], MAX_CONTENT)
            vectors = self.embedder.embed([skill_text(name, description, content)
                                           for name, _, description, content in rows])
            self.store.save_vectors(self.embedder.model, [(r[0], r[1], v) for r, v in zip(rows, vectors)])
            done += len(rows)
            if progress:
                progress(min(start + self.BATCH, len(todo)), len(todo))
        return done

    def matrix(self, *, include_archived: bool = False) -> tuple[list[str], np.ndarray]:
        """(names, vectors ready for dot products): the stored vectors (refresh first) with a
        share of the library's common direction taken out, rows re-normalised."""
        names, m = self.store.load_vectors(self.embedder.model, include_archived=include_archived)
        return names, _centred(m)

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


__all__ = ["Embedder", "HashedTfidfEmbedder", "Pair", "SimilarityIndex"]
