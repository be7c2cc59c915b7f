"""What a similarity between two skills means to a reviewer, in words: the bands, apart from the
vectors that measure it (so what only names a band needs no numerical library)."""

from __future__ import annotations

#: What a similarity means to a reviewer, from the top: (words, the lowest similarity of each).
#: Below the last: unrelated, not shown as a neighbour.
SIMILARITY_BANDS = (("same skill", 0.9), ("near copy", 0.75), ("related", 0.45))
UNRELATED = "unrelated"
#: The lowest similarity worth showing as a neighbour.
NEIGHBOUR_FLOOR = SIMILARITY_BANDS[-1][1]
#: Bands close enough that a diff (and a merge) is worth offering.
COPY_BANDS = frozenset({"same skill", "near copy"})


def similarity_band(similarity: float) -> str:
    """The words for a similarity (see SIMILARITY_BANDS)."""
    return next((name for name, low in SIMILARITY_BANDS if similarity >= low), UNRELATED)
