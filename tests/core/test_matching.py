"""Matching a query (both strategies, with known answers), the gate's rules, the prompt block for
the gated set, and loading a skill as an agent does."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from conftest import make

from skill_studio.core.agents import matching
from skill_studio.core.model import Lifecycle, Origin

NOW = datetime(2030, 6, 1, tzinfo=UTC)

LIBRARY = {
    "release-notes": ("Write release notes from the git log and merged pull requests. Use when preparing a release.",
                      {"trigger-pattern": "release notes?"}),
    "changelog-writer": ("Keep CHANGELOG.md up to date from commits. Use when a change is merged.", None),
    "pdf-extract": ("Extract text and tables from PDF files. Use when a PDF must be read.", None),
    "python-test-writer": ("Write pytest tests for Python modules. Use when code lacks tests.", None),
    "security-review": ("Review code for security problems such as injection and secrets. Use when reviewing "
                        "a pull request for security.", None),
    "csv-cleanup": ("Clean CSV files: encodings, delimiters, empty rows. Use when a CSV will not load.", None),
}


@pytest.fixture
def lib(store):
    for name, (description, meta) in LIBRARY.items():
        store.add(make(name, description, meta=meta))
    return store


def names(found):
    return [m.name for m in found]


def test_keywords_rank_trigger_matches_first_then_bm25(lib):
    r = matching.match(lib, "write the release notes", strategy="keywords", now=NOW)
    assert r.strategy == "keywords" and r.matches[0].name == "release-notes" and r.matches[0].trigger
    r = matching.match(lib, "tables in a PDF", strategy="keywords", now=NOW)
    first = r.matches[0]
    assert first.name == "pdf-extract" and first.lexical_rank == 1 and first.relevance == 1.0 and first.bm25 > 0
    assert first.similarity == 0.0 and first.vector_rank is None          # keywords read no vectors
    assert first.prior == pytest.approx(matching.prior(first.utility, first.freshness), abs=1e-5)
    assert first.score == pytest.approx(first.relevance * first.prior, abs=1e-5)
    assert matching.match(lib, "the of and", strategy="keywords", now=NOW).matches == []   # stop words only


def test_words_are_found_in_their_other_forms(lib):
    """A stem finds the word's other forms: "extracting" finds "Extract", "cleaning" finds "Clean"."""
    r = matching.match(lib, "extracting tabular stuff", strategy="keywords", now=NOW)
    assert names(r.matches)[0] == "pdf-extract"
    assert names(matching.match(lib, "cleaning", strategy="keywords", now=NOW).matches) == ["csv-cleanup"]
    assert matching.stem("invoices") == "invoic" and matching.stem("tables") == "tabl" and matching.stem("go") == "go"


def test_vectors_keep_only_similar_skills(lib):
    r = matching.match(lib, "extract tables from pdf files", strategy="vectors", now=NOW)
    assert r.strategy == "vectors" and names(r.matches)[0] == "pdf-extract"
    assert all(m.similarity > 0 and m.vector_rank for m in r.matches)
    assert [m.score for m in r.matches] == sorted((m.score for m in r.matches), reverse=True)
    assert matching.match(lib, "banana bread recipe", strategy="vectors", now=NOW).matches == []


def test_the_seed_product_stays_available_as_a_strategy(lib):
    r = matching.match(lib, "extract tables from pdf files", strategy="product", now=NOW)
    assert r.strategy == "product" and names(r.matches)[0] == "pdf-extract"
    for m in r.matches:
        assert m.similarity > matching.MIN_SIMILARITY
        assert m.score == pytest.approx(m.similarity * m.utility * m.freshness, abs=1e-5)


def test_the_default_fuses_words_and_vectors(lib):
    r = matching.match(lib, "clean CSV files with bad delimiters", now=NOW)
    assert r.strategy == "fused" == matching.DEFAULT_STRATEGY and names(r.matches)[0] == "csv-cleanup"
    first = r.matches[0]
    assert first.lexical_rank == 1 and first.vector_rank == 1 and first.relevance == pytest.approx(1.0)
    assert first.found_by == "words + vectors"
    r = matching.match(lib, "encodings", strategy="auto", now=NOW)      # the former default's name still works
    assert r.strategy == "fused" and names(r.matches) == ["csv-cleanup"] and r.matches[0].found_by == "words"


def test_use_never_lifts_an_unrelated_skill_over_a_relevant_one(lib):
    """Heavily used, successful, fresh skills against one never used: relevance decides. The seed's
    product, kept as a strategy, lets use win."""
    lib.add(make("git-commit-message", "Write a conventional commit message from the staged diff. Use when "
                                       "committing."))
    lib.add(make("code-review-checklist", "Review a pull request against a checklist of common mistakes. "
                                          "Use when reviewing code."))
    for name in ("git-commit-message", "code-review-checklist", "changelog-writer", "release-notes"):
        for _ in range(30):
            lib.record_use(name, True, now=NOW)
    query = "extract tables from a scanned pdf invoice"
    r = matching.match(lib, query, now=NOW)
    assert names(r.matches)[0] == "pdf-extract"
    pdf = r.matches[0]
    assert pdf.utility == 0.25 and pdf.prior == pytest.approx(0.8 + 0.2 * 0.25 * pdf.freshness, abs=1e-5)
    for other in r.matches[1:]:
        assert other.relevance < pdf.relevance and other.score < pdf.score
    assert 0.8 <= min(m.prior for m in r.matches) and max(m.prior for m in r.matches) <= 1.0


def test_use_reorders_skills_of_the_same_relevance(store):
    store.add(make("notes-a", "Summarise meeting notes into actions. Use after a meeting."))
    store.add(make("notes-b", "Summarise meeting notes into actions. Use after a meeting."))
    first = names(matching.match(store, "summarise meeting notes", now=NOW).matches)
    assert first[:2] == ["notes-a", "notes-b"]                     # the same relevance: by name
    for _ in range(20):
        store.record_use("notes-b", True, now=NOW)
    r = matching.match(store, "summarise meeting notes", now=NOW)
    assert names(r.matches)[:2] == ["notes-b", "notes-a"]
    assert r.matches[0].relevance == pytest.approx(r.matches[1].relevance, rel=0.05)   # of similar relevance


def test_utility_and_freshness_change_the_order(lib):
    for _ in range(20):
        lib.record_use("changelog-writer", True, now=NOW - timedelta(days=400))
    before = matching.match(lib, "commits merged release", strategy="keywords", now=NOW)
    stale = next(m for m in before.matches if m.name == "changelog-writer")
    assert stale.freshness < 0.001 and stale.utility > 0.9
    lib.record_use("changelog-writer", True, now=NOW)
    fresh = next(m for m in matching.match(lib, "commits merged release", strategy="keywords", now=NOW).matches
                 if m.name == "changelog-writer")
    assert fresh.freshness == 1.0 and fresh.score > stale.score


def test_the_gate_rules_and_excluded_matches(lib):
    lib.set_state("pdf-extract", lifecycle=Lifecycle.CANDIDATE.value)
    lib.set_state("csv-cleanup", trust_tier=1)
    lib.set_state("python-test-writer", lifecycle=Lifecycle.DEGRADED.value)
    llm = make("llm-helper", "Summarise PDF files quickly. Use when a PDF is long.", origin=Origin.LLM)
    lib.add(llm)
    lib.set_state("llm-helper", lifecycle=Lifecycle.VERIFIED.value, trust_tier=2, success_rate=0.2)
    gate = {e.name: e for e in matching.gate(lib)}
    assert gate["pdf-extract"].reason == "lifecycle is candidate (not exposed)"
    assert gate["csv-cleanup"].reason == "trust 1 < 2"
    assert gate["llm-helper"].reason == "llm skill with success rate 0.20 < 0.30"
    assert gate["python-test-writer"].passed and gate["python-test-writer"].warning.startswith("degraded")
    assert matching.gated(lib) == ["changelog-writer", "python-test-writer", "release-notes", "security-review"]
    r = matching.match(lib, "pdf files", strategy="keywords", now=NOW)
    assert "pdf-extract" not in names(r.matches)
    assert {m.name: m.excluded for m in r.excluded} == {"pdf-extract": "lifecycle is candidate (not exposed)",
                                                        "llm-helper": "llm skill with success rate 0.20 < 0.30"}
    r = matching.match(lib, "csv files", strategy="keywords", now=NOW)
    assert {m.name: m.excluded for m in r.excluded} == {"csv-cleanup": "trust 1 < 2"}
    r = matching.match(lib, "pytest tests for python", strategy="keywords", now=NOW)
    assert r.matches[0].name == "python-test-writer" and r.matches[0].warning


def test_archived_skills_are_never_matched(lib):
    lib.set_state("csv-cleanup", lifecycle=Lifecycle.ARCHIVED.value)
    for strategy in matching.STRATEGIES:
        r = matching.match(lib, "clean csv files encodings delimiters", strategy=strategy, now=NOW)
        assert "csv-cleanup" not in names(r.matches) + names(r.excluded)


def test_words_alone_that_barely_match_are_left_out(lib):
    """"tables in pdf files": csv-cleanup shares only "files" with it, far under the best hit's bm25."""
    r = matching.match(lib, "tables in pdf files", strategy="keywords", now=NOW)
    assert names(r.matches) == ["pdf-extract"]
    assert "csv-cleanup" in names(matching.match(lib, "files", strategy="keywords", now=NOW).matches)


def test_a_change_is_seen_by_the_next_query(lib):
    assert matching.match(lib, "kubernetes helm charts", strategy="vectors", now=NOW).matches == []
    lib.add(make("helm-charts", "Write Kubernetes Helm charts. Use when deploying to Kubernetes."))
    assert names(matching.match(lib, "kubernetes helm charts", strategy="vectors", now=NOW).matches) == ["helm-charts"]


def test_bad_queries(lib):
    with pytest.raises(ValueError):
        matching.match(lib, "  ")
    with pytest.raises(ValueError):
        matching.match(lib, "x", strategy="magic")


def test_keywords_of_a_query():
    assert matching.keywords("Write the release-notes for v2, and the CHANGELOG") == [
        "write", "release-notes", "v2", "changelog"]


def test_a_broken_trigger_pattern_matches_nothing(lib):
    lib.add(make("broken", "Broken trigger. Use never.", meta={"trigger-pattern": "(unclosed"}))
    found = matching.match(lib, "(unclosed", strategy="keywords", now=NOW).matches   # found by its text only
    assert [(m.name, m.trigger) for m in found] == [("broken", False)]


def test_a_trigger_pattern_that_backtracks_for_ever_cannot_hang_a_query(lib):
    # The pattern backtracks exponentially on this query: it is cut short, reported in the note and
    # treated as not matching (speed itself is not asserted here; the test timeout catches a hang).
    lib.add(make("slow-trigger", "Never mind. Use when testing.", meta={"trigger-pattern": "(a|aa)+$"}))
    r = matching.match(lib, "a" * 40 + "!", strategy="keywords", now=NOW)
    assert "trigger pattern too slow, skipped: slow-trigger" in r.note
    assert "slow-trigger" not in names(r.matches)
