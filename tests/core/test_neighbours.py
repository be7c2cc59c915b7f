"""A candidate's nearest skills in the review queue: the near-duplicate list's similarity, as an
absolute value with its band in words, and only above a floor (SPEC §5, §6)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import make

from skill_studio.core.health.similarity import (
    NEIGHBOUR_FLOOR,
    SIMILARITY_BANDS,
    SimilarityIndex,
    similarity_band,
)
from skill_studio.core.model import Lifecycle, Origin
from skill_studio.core.review import queue as review


@pytest.mark.parametrize("value, band", [(0.95, "same skill"), (0.9, "same skill"), (0.89, "near copy"),
                                         (0.75, "near copy"), (0.6, "related"), (0.45, "related"),
                                         (0.44, "unrelated"), (0.0, "unrelated")])
def test_bands_in_words(value, band):
    assert similarity_band(value) == band
    assert NEIGHBOUR_FLOOR == SIMILARITY_BANDS[-1][1]


BODY = ("## Steps\n\n1. Run `pdftotext -layout file.pdf out.txt` on the PDF.\n2. Find the tables in the text and "
        "turn each into CSV rows.\n3. Check the numbers against the original pages.\n")


def test_nearest_are_the_duplicate_lists_similarity_with_a_band(store):
    store.add(make("pdf-extract", "Extract text and tables from PDF files with pdftotext. Use when a PDF must "
                                  "be read.", body=BODY))
    store.add(make("release-notes", "Write release notes from merged pull requests. Use before a release.",
                   body="## Steps\n\n1. List the merged pull requests.\n2. Group them by kind.\n"))
    store.add(make("csv-cleanup", "Clean CSV files: encodings, delimiters, empty rows. Use when a CSV will not "
                                  "load.", body="## Steps\n\n1. Detect the encoding.\n2. Fix the delimiter.\n"))
    store.add(make("pdf-extract-tables", "Extract the text and tables of PDF files with pdftotext, as CSV. "
                                         "Use when a PDF must be read.", body=BODY, origin=Origin.LLM))
    found = review.nearest(store, "pdf-extract-tables")
    assert found and found[0].name == "pdf-extract" and found[0].lifecycle == Lifecycle.RELEASED
    index = SimilarityIndex(store)
    (pair,) = [p for p in index.near_duplicates(0.0) if {p.a, p.b} == {"pdf-extract", "pdf-extract-tables"}]
    assert found[0].similarity == pytest.approx(pair.similarity, abs=1e-3)      # the same measure, absolute
    assert found[0].band == similarity_band(pair.similarity) and found[0].copy == (pair.similarity >= 0.75)
    assert all(n.similarity >= NEIGHBOUR_FLOOR for n in found)
    assert "release-notes" not in [n.name for n in found]                 # unrelated: not shown at all


def test_a_skill_with_nothing_like_it_has_no_neighbour(store):
    store.add(make("pdf-extract", "Extract text and tables from PDF files. Use when a PDF must be read."))
    store.add(make("kubernetes-debug", "Find why a pod keeps restarting: events, logs, probes. Use when a "
                                       "deployment crash-loops.", origin=Origin.LLM))
    assert review.nearest(store, "kubernetes-debug") == []


def test_a_templates_sibling_is_only_related_however_similar(tmp_path):
    """Zoho Invoice beside Zoho Books (one template, two products): no near copy, no diff."""
    import shutil

    from skill_studio.core.library.importer import import_paths
    from skill_studio.core.store import Store

    fixtures = Path(__file__).resolve().parent.parent / "fixtures" / "near_duplicates" / "skills"
    for name in ("zoho-books-automation", "zoho-invoice-automation", "xero-automation", "mermaid-diagrams",
                 "mermaid-diagram-generator"):
        shutil.copytree(fixtures / name, tmp_path / "skills" / name)
    store = Store(tmp_path / "s.db")
    import_paths(store, [tmp_path / "skills"])
    by_name = {n.name: n for n in review.nearest(store, "zoho-invoice-automation")}
    books = by_name["zoho-books-automation"]
    assert books.similarity >= 0.75 and books.band == "related" and not books.copy
    assert books.differs == ("books",)            # Zoho Invoice says "Zoho Books" once, in passing
    (copy,) = review.nearest(store, "mermaid-diagrams", k=1)
    assert copy.name == "mermaid-diagram-generator" and copy.copy and copy.differs == ()
    store.close()
