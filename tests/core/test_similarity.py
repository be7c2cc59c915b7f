"""Skill vectors and near-duplicate search (SPEC §5, §6)."""

import os
import pickle
import random

import numpy as np
import pytest
from conftest import make

from skill_studio.core.health import similarity
from skill_studio.core.health.similarity import HashedTfidfEmbedder, Pair, SimilarityIndex, skill_text

WORDS = ("agent build cache check clean commit config data deploy diff docs error export file format "
         "graph health import index issue lint log merge model note parse patch pdf plan query release "
         "report review schema script search shell skill source sql table test trace upload user "
         "validate version watch workflow write yaml").split()
RARE = ["".join(random.Random(i).choice("bcdfgklmnprstvz") + random.Random(i * 7 + 1).choice("aeiou")
                for _ in range(3)) + str(i) for i in range(3000)]


def body(rng, lines=30):
    out = ["# Title", ""]
    for _ in range(lines):
        words = [rng.choice(WORDS) if rng.random() < 0.5 else rng.choice(RARE) for _ in range(rng.randint(6, 14))]
        out.append("- " + " ".join(words) + ".")
    return "\n".join(out) + "\n"


def lightly_edited(text, rng):
    lines = text.split("\n")
    lines[rng.randrange(2, len(lines) - 1)] += " also check the output"
    del lines[rng.randrange(2, len(lines) - 1)]
    return "\n".join(lines)


def fill(store, n, seed=1, copies=0):
    rng = random.Random(seed)
    skills = [make(f"skill-{i:04d}", f"Handles {rng.choice(WORDS)} {rng.choice(RARE)}. Use when needed.",
                   body(rng)) for i in range(n)]
    for k in range(copies):  # near-duplicates of the first skills
        src = skills[k]
        skills.append(make(f"copy-{k:04d}", src.description, lightly_edited(src.content, rng)))
    store.add_many(skills)
    return skills


def brute_force(index, threshold):
    names, m = index.matrix()
    sims = m @ m.T
    i, j = np.nonzero(np.triu(sims >= threshold, k=1))
    return {(names[a], names[b]): float(sims[a, b]) for a, b in zip(i, j)}


def test_near_duplicates_equal_brute_force(store):
    fill(store, 300, copies=20)
    index = SimilarityIndex(store)
    index.BLOCK_BYTES = 4 * 320 * 37  # small blocks: many of them, the last one partial
    assert index.refresh() == 320
    for threshold in (0.75, 0.3, 0.1):
        pairs = index.near_duplicates(threshold)
        expected = brute_force(index, threshold)
        assert {(p.a, p.b) for p in pairs} == set(expected)
        for p in pairs:
            assert p.similarity == pytest.approx(expected[(p.a, p.b)], abs=1e-5)
        assert [p.similarity for p in pairs] == sorted((p.similarity for p in pairs), reverse=True)
    names, m = index.matrix()
    sims = m @ m.T
    np.fill_diagonal(sims, -np.inf)
    pairs, maxima = index.scan(0.75)
    assert pairs == index.near_duplicates(0.75)
    assert list(maxima) == names
    assert np.allclose([maxima[n] for n in names], sims.max(axis=1), atol=1e-5)
    top = index.near_duplicates(0.75)
    assert {(p.a, p.b) for p in top} == {(f"copy-{k:04d}", f"skill-{k:04d}") for k in range(20)}


def test_edited_copy_scores_high_and_unrelated_low(store):
    fill(store, 100, copies=10)
    index = SimilarityIndex(store)
    index.refresh()
    names, m = index.matrix()
    sims = m @ m.T
    pos = {n: i for i, n in enumerate(names)}
    for k in range(10):
        assert sims[pos[f"copy-{k:04d}"], pos[f"skill-{k:04d}"]] >= 0.9
    originals = [pos[f"skill-{k:04d}"] for k in range(100)]
    block = sims[np.ix_(originals, originals)]
    np.fill_diagonal(block, 0)
    assert block.max() < 0.5
    best = index.max_similarity()
    assert best["copy-0003"] == pytest.approx(sims[pos["copy-0003"], pos["skill-0003"]], abs=1e-5)
    assert best["skill-0050"] < 0.5
    assert index.similar_to("skill-0004", k=3)[0][0] == "copy-0004"


def test_embedder_rows_are_normalised_and_stable():
    e = HashedTfidfEmbedder()
    texts = ["Formats PDF reports", "", "deploy the release, then check the logs"]
    m = e.embed(texts)
    assert m.dtype == np.float32 and m.shape == (3, e.dim)
    assert np.allclose(np.linalg.norm(m[[0, 2]], axis=1), 1.0, atol=1e-5)
    assert not m[1].any()
    assert np.array_equal(HashedTfidfEmbedder().embed(texts[::-1])[::-1], m)  # no state, no order effect


def test_vectors_are_reused_until_content_changes(store):
    fill(store, 30)
    index = SimilarityIndex(store)
    assert index.refresh() == 30
    assert index.refresh() == 0
    s = store.get("skill-0007")
    changed = make("skill-0007", s.description, s.content + "\nOne more line about yaml.\n")
    store.update("skill-0007", changed, s.version)
    assert store.vector_hashes(index.embedder.model)["skill-0007"] != store.get("skill-0007").content_hash
    names, _ = store.load_vectors(index.embedder.model)
    assert "skill-0007" not in names and len(names) == 29  # a stale vector is not used
    assert index.refresh() == 1
    assert store.vector_hashes(index.embedder.model)["skill-0007"] == store.get("skill-0007").content_hash


def test_another_model_recomputes_everything(store):
    fill(store, 12)
    assert SimilarityIndex(store).refresh() == 12
    other = SimilarityIndex(store, HashedTfidfEmbedder(dim=256))
    assert other.refresh() == 12
    assert other.refresh() == 0
    assert len(store.load_vectors(other.embedder.model)[0]) == 12
    assert store.load_vectors(SimilarityIndex(store).embedder.model)[0] == []


def test_cancel_stops_refresh_between_batches(store):
    fill(store, 50)
    index = SimilarityIndex(store)
    index.BATCH = 10
    seen = []
    assert index.refresh(progress=lambda done, total: seen.append((done, total)),
                         cancelled=lambda: len(seen) >= 3) == 20
    assert seen[-1] == (20, 50)
    assert index.refresh() == 30


def test_dismissed_and_archived_pairs_are_left_out(store):
    fill(store, 40, copies=3)
    index = SimilarityIndex(store)
    index.refresh()
    assert len(index.near_duplicates()) == 3
    store.dismiss_pair("skill-0000", "copy-0000")
    assert store.dismissed_pairs() == {("copy-0000", "skill-0000")}
    store.set_state("copy-0001", lifecycle="archived")
    pairs = index.near_duplicates()
    assert [(p.a, p.b) for p in pairs] == [("copy-0002", "skill-0002")]
    assert isinstance(pairs[0], Pair)
    assert "copy-0001" not in index.max_similarity()
    assert {(p.a, p.b) for p in index.near_duplicates(include_archived=True)} == {
        ("copy-0001", "skill-0001"), ("copy-0002", "skill-0002")}
    store.undismiss_pair("copy-0000", "skill-0000")
    assert len(index.near_duplicates()) == 2


def test_deleting_a_skill_drops_its_vector(store):
    fill(store, 5)
    index = SimilarityIndex(store)
    index.refresh()
    store.delete("skill-0002")
    assert "skill-0002" not in store.vector_hashes(index.embedder.model)


def test_small_libraries(store):
    index = SimilarityIndex(store)
    assert index.refresh() == 0
    assert index.near_duplicates() == [] and index.max_similarity() == {}
    fill(store, 1)
    index.refresh()
    assert index.near_duplicates() == [] and index.max_similarity() == {"skill-0000": 0.0}
    assert index.similar_to("skill-0000") == []


def test_embedder_features():
    e = HashedTfidfEmbedder()
    m = e.embed(["deploying the release", "deployment of releases", "tabulate yaml schema",
                 "Ünïcode Straße", "ünïcode straße", "the", ""])
    assert m[0] @ m[1] > 0.2 and m[0] @ m[2] < 0.05  # shared character n-grams of related words
    assert np.allclose(m[3], m[4])                   # lower-cased, non-ASCII letters too
    assert not m[5].any() and not m[6].any()         # a stop word alone weighs nothing
    assert np.array_equal(pickle.loads(pickle.dumps(e)).embed(["deploying the release"])[0], m[0])
    assert e.embed(["a b"]).shape == (1, 512)


class DyingEmbedder(HashedTfidfEmbedder):
    """Dies in any process but the one that made it (a worker process killed mid-batch)."""

    def __init__(self, dim=512, home=None):
        super().__init__(dim)
        self.home = home or os.getpid()

    def __getstate__(self):
        return {"dim": self.dim, "home": self.home}

    def __setstate__(self, state):
        self.__init__(state["dim"], state["home"])

    def embed(self, texts):
        if os.getpid() != self.home:
            os._exit(3)
        return super().embed(texts)


def test_parallel_refresh_gives_the_same_vectors(store, monkeypatch):
    pools = []
    real_pool = similarity._worker_pool
    monkeypatch.setattr(similarity, "_worker_pool", lambda *a: pools.append(real_pool(*a)) or pools[-1])
    fill(store, 90, copies=5)
    serial = SimilarityIndex(store)
    assert serial.refresh() == 95
    names, _ = store.load_vectors(serial.embedder.model)
    for embedder in (HashedTfidfEmbedder(dim=256), DyingEmbedder(dim=128)):
        index = SimilarityIndex(store, embedder)
        index.BATCH, index.PARALLEL_FROM = 16, 1
        seen = []
        assert index.refresh(progress=lambda d, t, seen=seen: seen.append(d), parallel=True) == 95
        assert seen[0] == 0 and seen[-1] == 95 and seen == sorted(seen)
        got_names, got = store.load_vectors(embedder.model)
        assert got_names == names
        alone = HashedTfidfEmbedder(embedder.dim).embed(
            [skill_text(s.name, s.description, s.content) for s in (store.get(n) for n in names)])
        assert np.allclose(got, alone, atol=1e-6)   # the same vectors wherever they were computed
    if len(os.sched_getaffinity(0)) > 1:   # two cores or more: the workers did the work (or died trying)
        assert pools[0] == (None, 0) and all(p is not None and n >= 2 for p, n in pools[1:])


def test_feature_blocks_and_long_parts_do_not_change_vectors():
    rng = random.Random(5)
    texts = [body(rng, lines=40) for _ in range(20)] + ["Ünïcode straße " * 50, "", "x"]
    whole = HashedTfidfEmbedder().embed(texts)
    blocked = HashedTfidfEmbedder()
    blocked.VOCABULARY_BLOCK = 64     # many small blocks of feature rows
    assert np.allclose(blocked.embed(texts), whole, atol=1e-6)
    long_description = "word " * 100_000
    text = skill_text("name", long_description, "body")
    assert len(text) < 5_000 and text.startswith("name name\nword word")
