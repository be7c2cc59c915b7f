"""The default ranking against plain BM25 over name and description on the labelled requests of
tests/fixtures/match_eval (the figures benchmarks/bench_match_quality.py prints)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from skill_studio.core.agents import matching
from skill_studio.core.store import Store

ROOT = Path(__file__).resolve().parent.parent.parent
CORPUS = ROOT / "tests" / "fixtures" / "match_eval"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_match_quality", ROOT / "benchmarks" / "bench_match_quality.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def evaluated(bench, tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("eval") / "eval.db")
    bench.build(store, CORPUS, seed=7)       # uneven use, drawn at random: relevance must still decide
    requests = bench.load(CORPUS)
    floor = bench.figures([bench.bm25_ranking(bench.plain_bm25(store), r["request"]) for r in requests], requests)
    ranked = {s: bench.figures([[m.name for m in matching.match(store, r["request"], 10, s).matches]
                                for r in requests], requests) for s in matching.STRATEGIES}
    yield requests, floor, ranked
    store.close()


def test_the_corpus_is_what_it_says(evaluated):
    requests, _, _ = evaluated
    kinds = {r["kind"] for r in requests}
    assert len(requests) >= 40 and kinds == {"direct", "paraphrase", "no-shared-word", "family"}
    assert len(list((CORPUS / "skills").iterdir())) >= 60


def test_the_default_beats_plain_bm25(evaluated):
    _, floor, ranked = evaluated
    default = ranked[matching.DEFAULT_STRATEGY]
    assert default["mrr"] > floor["mrr"]
    assert default["r5"] >= floor["r5"]


def test_usage_does_not_outweigh_relevance(evaluated):
    """The seed's product ranking lets use decide; relevance first does far better on the same history."""
    _, _, ranked = evaluated
    assert ranked[matching.DEFAULT_STRATEGY]["mrr"] > ranked["product"]["mrr"] + 0.3
    assert ranked[matching.DEFAULT_STRATEGY]["kinds"]["family"] == 1.0      # the product named, not a sibling
