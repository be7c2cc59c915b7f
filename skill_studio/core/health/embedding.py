"""Skill vectors without a network or model files: the built-in embedder (SPEC §6).

:class:`HashedTfidfEmbedder` hashes word unigrams and bigrams plus the character 3-5-grams
of each word into ``dim`` signed features, over a skill's name (counted twice), description
and the start of its content, with sublinear term frequency (1 + log tf), L2-normalised.
Words every skill uses are kept from dominating by a list of English stop words (no weight as
single words; bigrams keep them); :mod:`skill_studio.core.health.similarity` takes out the library's
common direction at comparison time. A vector depends on its own text only, so it can be
stored and reused until the skill's content changes.

Everything is computed with numpy over whole batches of texts, never word by word in Python:
the texts are lower-cased and reduced to words of letters and digits in one byte buffer,
every word and character n-gram is hashed from one polynomial prefix sum over that buffer
(arithmetic modulo 2^32, so any substring's hash is two lookups, a subtraction and a
multiplication), and each text's vector is a product of its sublinear word counts with the
batch vocabulary's feature rows. Hashes are stable across runs and machines (no Python
``hash``), so stored vectors stay comparable.
"""

from __future__ import annotations

import threading
from typing import Protocol

import numpy as np

#: English words every skill uses; they carry no weight as single words (bigrams keep them).
STOP_WORDS = frozenset(
    "a an and are as at be been but by can do does for from has have if in into is it its "
    "not of on or so such than that the their then there these they this to was were when "
    "which while will with you your".split())

#: Bytes kept in words: ASCII letters (lower-cased) and digits, and every non-ASCII byte
#: (UTF-8 sequences of other scripts); everything else separates words.
_TABLE = bytes(c if (48 <= c <= 57 or 97 <= c <= 122 or c >= 128) else
               (c + 32 if 65 <= c <= 90 else 32) for c in range(256))
_SPACE = 32
#: How much of a skill's content is embedded (characters from the start), and of its other parts.
MAX_CONTENT = 8_000
MAX_DESCRIPTION, MAX_NAME = 4_000, 256

_U32 = np.uint32
_BASE = 0x01000193                       # the polynomial's base (odd, so invertible mod 2^32)
_BASE_INV = pow(_BASE, -1, 1 << 32)
_LENGTH = _U32(0x9E3779B1)               # mixes a substring's length into its hash
_SALT_WORD, _SALT_GRAM = _U32(0x5157A11D), _U32(0x3A2B9C4F)


class Embedder(Protocol):
    """What makes vectors from skill texts. ``model`` names the method (and its settings):
    stored vectors of another model id are recomputed."""

    model: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """float32 [len(texts), dim], each row L2-normalised (or all zero for an empty text)."""
        ...


def skill_text(name: str, description: str, content: str, max_content: int = MAX_CONTENT) -> str:
    """The text a skill is embedded from: its name twice, description and content's start
    (a description is at most 1,024 characters by the format; a longer one is cut too)."""
    return f"{name[:MAX_NAME]} {name[:MAX_NAME]}\n{description[:MAX_DESCRIPTION]}\n{content[:max_content]}"


def _mix(h: np.ndarray) -> np.ndarray:
    """A 32-bit finaliser (xor-shift-multiply), so every bit of the result depends on every input bit."""
    h = h ^ (h >> _U32(16))
    h *= _U32(0x85EBCA6B)
    h ^= h >> _U32(13)
    h *= _U32(0xC2B2AE35)
    h ^= h >> _U32(16)
    return h


def _runs(sorted_keys: np.ndarray) -> np.ndarray:
    """A mask of the first element of each run of equal values in a sorted array."""
    first = np.empty(len(sorted_keys), bool)
    if len(sorted_keys):
        first[0] = True
        np.not_equal(sorted_keys[1:], sorted_keys[:-1], out=first[1:])
    return first


class HashedTfidfEmbedder:
    """Hashed word 1-2-grams and character 3-5-grams of words, sublinear TF, signed feature
    hashing into ``dim`` dimensions (see the module docstring)."""

    CHAR_WEIGHT = 1.0     # the norm of one word's character n-grams, against 1 for the word itself
    BIGRAM_WEIGHT = 0.7
    GRAMS = (3, 4, 5)
    CHUNK = 64            # texts per product: a small batch keeps its vocabulary (the product's width) small
    parallel = True       # may be copied into worker processes (see SimilarityIndex.refresh)
    VOCABULARY_BLOCK = 8_192

    def __init__(self, dim: int = 512):
        self.dim = int(dim)
        self.model = f"hashed-tfidf-v2-{self.dim}"
        self._lock = threading.Lock()
        self._powers = np.ones(1, _U32)
        self._inverse = np.ones(1, _U32)
        words = sorted(w.encode() for w in STOP_WORDS)
        self._stop = np.sort(self._words(b" " + b" ".join(words) + b" ")[2])

    def __getstate__(self) -> dict:     # what a worker process needs: the tables are rebuilt there
        return {"dim": self.dim}

    def __setstate__(self, state: dict) -> None:
        type(self).__init__(self, state["dim"])

    # --- hashing ------------------------------------------------------------

    def _power_tables(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """base^i and base^-i (mod 2^32) for i < n, grown as needed and kept."""
        with self._lock:
            if len(self._powers) < n:
                size = max(n, 2 * len(self._powers))
                with np.errstate(over="ignore"):
                    self._powers = np.cumprod(np.r_[1, np.full(size - 1, _BASE)].astype(_U32), dtype=_U32)
                    self._inverse = np.cumprod(np.r_[1, np.full(size - 1, _BASE_INV)].astype(_U32), dtype=_U32)
            return self._powers, self._inverse

    def _words(self, buf: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple]:
        """(start, end, hash) of every word in ``buf`` (which begins and ends with a space), and
        what :meth:`_substrings` needs to hash other parts of it."""
        a = np.frombuffer(buf, np.uint8)
        powers, inverse = self._power_tables(len(a) + 1)
        prefix = np.zeros(len(a) + 1, _U32)
        with np.errstate(over="ignore"):
            np.cumsum(np.multiply(a, powers[:len(a)], dtype=_U32), dtype=_U32, out=prefix[1:])
        edges = np.diff((a != _SPACE).view(np.int8))
        starts = np.flatnonzero(edges == 1) + 1
        ends = np.flatnonzero(edges == -1) + 1
        tables = (prefix, inverse)
        return starts, ends, self._substrings(tables, starts, ends, _SALT_WORD), tables

    @staticmethod
    def _substrings(tables: tuple, starts: np.ndarray, ends: np.ndarray, salt: np.uint32) -> np.ndarray:
        """The stable 32-bit hash of each ``buf[start:end]`` (independent of where it is)."""
        prefix, inverse = tables
        with np.errstate(over="ignore"):
            raw = (prefix[ends] - prefix[starts]) * inverse[starts]
            raw += (ends - starts).astype(_U32) * _LENGTH + salt
        return _mix(raw)

    def _features(self, tables: tuple, starts: np.ndarray, lengths: np.ndarray, hashes: np.ndarray) -> np.ndarray:
        """Dense float32 feature rows [len(hashes), dim] of the given words: the word itself
        (weight 1) and its character n-grams with a space on either side (total norm
        CHAR_WEIGHT); stop words get an empty row."""
        dim, u = self.dim, len(hashes)
        counts = [np.maximum(lengths + 3 - n, 0) for n in self.GRAMS]   # n-grams of " word "
        weight = self.CHAR_WEIGHT / np.sqrt(np.maximum(sum(counts), 1))
        owners, codes = [np.arange(u)], [hashes]
        for n, c in zip(self.GRAMS, counts):
            owner = np.repeat(np.arange(u), c)
            offset = np.arange(len(owner)) - np.repeat(np.cumsum(c) - c, c)
            at = starts[owner] - 1 + offset
            owners.append(owner)
            codes.append(self._substrings(tables, at, at + n, _SALT_GRAM))
        owner, code = np.concatenate(owners), np.concatenate(codes)
        scale = np.ones(len(owner))
        scale[u:] = weight[owner[u:]]
        sign = np.where(code >> _U32(31), scale, -scale)
        flat = np.bincount(owner * dim + (code % _U32(dim)).astype(np.int64), weights=sign, minlength=u * dim)
        rows = flat.astype(np.float32).reshape(u, dim)
        rows[np.isin(hashes, self._stop)] = 0.0
        return rows

    # --- documents ----------------------------------------------------------

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), np.float32)
        for start in range(0, len(texts), self.CHUNK):
            chunk = texts[start:start + self.CHUNK]
            out[start:start + len(chunk)] = self._embed_chunk(chunk)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out

    def _embed_chunk(self, texts: list[str]) -> np.ndarray:
        dim, n = self.dim, len(texts)
        docs = [(t if t.isascii() else t.lower()).encode("utf-8", "replace").translate(_TABLE) for t in texts]
        sizes = np.fromiter(map(len, docs), np.int64, n)
        doc_starts = np.cumsum(sizes + 1) - (sizes + 1)            # each text's leading space
        starts, ends, hashes, tables = self._words(b" " + b" ".join(docs) + b" ")
        doc = np.searchsorted(doc_starts, starts, "right") - 1
        if not len(hashes):
            return np.zeros((n, dim), np.float32)
        # The chunk's vocabulary: each word once, and each token's index in it.
        order = np.argsort(hashes)
        ordered = hashes[order]
        first = _runs(ordered)
        token_word = np.empty(len(hashes), np.int64)
        token_word[order] = np.cumsum(first) - 1
        vocab, where = ordered[first], order[first]
        u = len(vocab)
        # Words: (1 + log count) per text times each word's feature row.
        counts = np.bincount(doc * u + token_word, minlength=n * u).reshape(n, u).astype(np.float32)
        present = counts > 0
        np.log(counts, out=counts, where=present)
        counts += present            # 1 + log count where the word occurs, 0 elsewhere
        # Feature rows a block of words at a time: a batch of unusual texts can have a vocabulary
        # of a hundred thousand words, whose rows all at once would take hundreds of megabytes.
        acc = np.zeros((n, dim), np.float32)
        for lo in range(0, u, self.VOCABULARY_BLOCK):
            hi = min(u, lo + self.VOCABULARY_BLOCK)
            at = where[lo:hi]
            acc += counts[:, lo:hi] @ self._features(tables, starts[at], ends[at] - starts[at], vocab[lo:hi])
        # Bigrams of neighbouring words in the same text, hashed from the two words' hashes.
        same = doc[:-1] == doc[1:]
        if same.any():
            with np.errstate(over="ignore"):
                pair = _mix(hashes[:-1][same] * _U32(0x2545F491) + _mix(hashes[1:][same] ^ _SALT_GRAM))
            keys = np.sort((doc[:-1][same].astype(np.uint64) << np.uint64(32)) | pair)
            first = _runs(keys)
            runs = np.diff(np.r_[np.flatnonzero(first), len(keys)])
            keys = keys[first]
            code = (keys & np.uint64(0xFFFFFFFF)).astype(_U32)
            weight = self.BIGRAM_WEIGHT * (1.0 + np.log(runs))
            acc += np.bincount((keys >> np.uint64(32)).astype(np.int64) * dim + (code % _U32(dim)).astype(np.int64),
                               weights=np.where(code >> _U32(31), weight, -weight),
                               minlength=n * dim).reshape(n, dim).astype(np.float32)
        return acc


__all__ = ["Embedder", "HashedTfidfEmbedder", "MAX_CONTENT", "STOP_WORDS", "skill_text"]
