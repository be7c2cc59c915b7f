"""Which similar skills are duplicates a maintainer would merge, and which are a template's
family (SPEC §5).

Vector similarity alone cannot tell them apart: skills generated from one template for
different products (``zoho-books-automation``, ``xero-automation``…) share most of their words
and score higher than two skills written independently for the same product or purpose
(``docker-hub-automation`` and ``dockerhub-registry-tools``). What tells them apart is what
each one is *about*, which its name says:

- **the same name written differently** (``google-maps-automation``, ``googlemaps-automation``,
  ``docx`` and ``docx-2``): a duplicate at any similarity above the candidate floor;
- **different subjects**: each skill's name has a word the other neither has in its name nor
  says anywhere in its text (``mysql`` is never said by the Postgres skill, nor ``postgres`` by
  the MySQL one). Such a pair is not a duplicate, however similar; when it is as similar as a
  template makes skills, it is a pair of a family. Three or more skills joined by such pairs
  are a family, reported once, and no two members of one family are merge suggestions unless
  they have the same name;
- otherwise a pair is a duplicate when it is at least the near-duplicate threshold similar,
  or when each skill is the other's most similar skill among those it does not differ from
  in subject and their names share a subject word (two skills for the same purpose, written in
  other words: ``csv-cleaner`` and ``tidy-csv-data``).

Words common to many skill names (``config``, ``google`` in a library of Google tools) and
words naming a role (``helper``, ``generator``, ``automation``) say what kind of skill it is,
not what it is about: they are left out.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field

from skill_studio.core.health.similarity import Pair
from skill_studio.core.health.subjects import (
    CASE_CHANGE,
    TEXT_WORD,
    WORD_SPLIT,
    Subjects,
    common_name_words,
    name_words,
)
from skill_studio.core.model import UNSEARCHED_STATES, Lifecycle

#: Skills with one name are duplicates from this similarity on (their texts must have something in common).
SAME_NAME_FLOOR = 0.2
#: The most similar pairs of each skill that are judged.
PER_SKILL = 8
#: Pairs less similar than this are not compared at all.
CANDIDATE_FLOOR = 0.4
#: A pair differing in subject at least this similar shares a template.
FAMILY_SIMILARITY = 0.45
SAME_NAME = "the same name written differently"
ABOVE_THRESHOLD = "same subject, above the near-duplicate threshold"



@dataclass(frozen=True)
class Duplicate:
    """A pair worth merging, and why."""

    a: str
    b: str
    similarity: float
    reason: str


@dataclass(frozen=True)
class Family:
    """Skills made from one template for different subjects."""

    members: tuple[str, ...]
    differ: tuple[str, ...]      # the words each member's name has and the others lack
    similarity: float | None     # the mean similarity of the family's pairs (None: found by description)

    @property
    def reason(self) -> str:
        shown = ", ".join(self.differ[:8]) + (", …" if len(self.differ) > 8 else "")
        how = f"{self.similarity:.2f} similar on average" if self.similarity is not None else \
            "the same description but for the name"
        return (f"{len(self.members)} skills share one template ({how}); "
                f"they differ in {shown or 'a few words'}: not merge suggestions")


@dataclass
class Verdicts:
    duplicates: list[Duplicate] = field(default_factory=list)
    families: list[Family] = field(default_factory=list)


def classify(pairs: Iterable[Pair], texts: dict[str, str], names: Iterable[str] | frozenset[str], *,
             threshold: float = 0.75, described: Iterable[Family] = (), named: Iterable[Pair] = ()) -> Verdicts:
    """Duplicates and families among candidate ``pairs`` (similarity at least CANDIDATE_FLOOR,
    best first); ``texts`` holds each compared skill's text (name, description, body) and
    ``names`` every skill of the library (for the words common to names), or those words.
    ``described``: families found by their descriptions (:func:`described_families`), joined
    with those found by similarity. ``named``: pairs with one name (:func:`same_named`), judged
    duplicates at any similarity."""
    by_name = {frozenset((p.a, p.b)) for p in named}
    common = names if isinstance(names, frozenset) else common_name_words(names)
    subjects = Subjects(common, texts)
    out = Verdicts()
    siblings: list[tuple[Pair, list[str]]] = []
    open_pairs: list[Pair] = []
    for p in pairs:
        if p.similarity < CANDIDATE_FLOOR and frozenset((p.a, p.b)) not in by_name:
            continue
        if subjects.same_name(p.a, p.b):
            out.duplicates.append(Duplicate(p.a, p.b, p.similarity, SAME_NAME))
            continue
        differ = subjects.differ(p.a, p.b)
        if differ:     # each is about something the other never says
            if p.similarity >= FAMILY_SIMILARITY:
                siblings.append((p, differ))
            continue
        open_pairs.append(p)
    best: dict[str, tuple[float, str]] = {}
    for p in open_pairs:
        for x, y in ((p.a, p.b), (p.b, p.a)):
            if x not in best or p.similarity > best[x][0]:
                best[x] = (p.similarity, y)
    for p in open_pairs:
        if p.similarity >= threshold:
            if not subjects.apart(p.a, p.b, p.similarity):
                out.duplicates.append(Duplicate(p.a, p.b, p.similarity, ABOVE_THRESHOLD))
        elif best[p.a][1] == p.b and best[p.b][1] == p.a and (shared := subjects.shared(p.a, p.b)
                                                               or subjects.shared(p.b, p.a)):
            out.duplicates.append(Duplicate(p.a, p.b, p.similarity, "each is the other's most similar skill, "
                                            f"both named for {', '.join(shared)}"))
    out.families = _merged([*_families(siblings), *described])
    family = {n: k for k, f in enumerate(out.families) for n in f.members}
    # Two members of one family are merge suggestions only when named for the same thing.
    out.duplicates = [d for d in out.duplicates if family.get(d.a, -1) != family.get(d.b, -2)
                      or d.reason == SAME_NAME or subjects.narrower(d.a, d.b)]
    out.duplicates.sort(key=lambda d: (-d.similarity, d.a, d.b))
    return out


def skeleton(name: str, description: str) -> str:
    """A description with the skill's own name taken out (its words, joined or apart, in any
    case and spelling: "Google Maps", "google_maps", "GoogleMaps"), lower case, one space between
    words: skills generated from one template for different products share it."""
    words = [w for w in name_words(name) if len(w) > 1]
    own = {*words, "".join(words)}
    tokens = TEXT_WORD.findall(CASE_CHANGE.sub(" ", description).lower())
    out: list[str] = []
    i = 0
    while i < len(tokens):
        joined = i + 1 < len(tokens) and tokens[i] + tokens[i + 1] in own     # "Google Maps" for "googlemaps"
        token = "*" if joined or tokens[i] in own else tokens[i]
        i += 2 if joined else 1
        if not (token == "*" and out and out[-1] == "*"):
            out.append(token)
    return " ".join(out)


def described_families(cards: Iterable[tuple[str, str]]) -> list[Family]:
    """Groups of three or more skills whose descriptions are one text but for their names."""
    groups: dict[str, list[str]] = {}
    for name, description in cards:
        lower = description.lower()
        if not any(w in lower for w in name_words(name) if len(w) > 1):
            continue      # a description that never names its skill is no template's
        key = skeleton(name, description)
        if "*" in key and len(key) > 20:      # a template names its product; a few words are no template
            groups.setdefault(key, []).append(name)
    families = []
    for members in groups.values():
        if len(members) >= 3:
            common = set.intersection(*(set(name_words(n)) for n in members))
            differ = sorted({w for n in members for w in name_words(n) if w not in common})
            families.append(Family(tuple(sorted(members)), tuple(differ), None))
    return families


def _merged(found: list[Family]) -> list[Family]:
    """Families that share a member are one."""
    out: list[Family] = []
    for f in found:
        overlapping = [g for g in out if set(g.members) & set(f.members)]
        if not overlapping:
            out.append(f)
            continue
        members = set(f.members).union(*(g.members for g in overlapping))
        differ = set(f.differ).union(*(g.differ for g in overlapping))
        sims = [x.similarity for x in (f, *overlapping) if x.similarity is not None]
        out = [g for g in out if g not in overlapping]
        out.append(Family(tuple(sorted(members)), tuple(sorted(differ)), round(sum(sims) / len(sims), 3) if sims
                          else None))
    out.sort(key=lambda f: (-len(f.members), f.members))
    return out


def _families(siblings: list[tuple[Pair, list[str]]]) -> list[Family]:
    """Groups of three or more skills joined by sibling pairs, each with the words they differ in."""
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for p, _ in siblings:
        parent[root(p.a)] = root(p.b)
    groups: dict[str, list[tuple[Pair, list[str]]]] = {}
    for item in siblings:
        groups.setdefault(root(item[0].a), []).append(item)
    families = []
    for items in groups.values():
        members = sorted({n for p, _ in items for n in (p.a, p.b)})
        if len(members) < 3:
            continue
        differ = list(dict.fromkeys(w for _, ws in items for w in ws))
        mean = sum(p.similarity for p, _ in items) / len(items)
        families.append(Family(tuple(members), tuple(sorted(differ)), round(mean, 3)))
    families.sort(key=lambda f: (-len(f.members), f.members))
    return families


_COMMON: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # store -> (state, common words)


def library_common_words(store) -> frozenset[str]:
    """:func:`common_name_words` of a store's skills, kept while the store stays the same."""
    key = store.match_state()
    kept = _COMMON.get(store)
    if kept is not None and key is not None and kept[0] == key:
        return kept[1]
    common = common_name_words(store.names())
    if key is not None:
        _COMMON[store] = (key, common)
    return common


def _texts(store, names: list[str]) -> dict[str, str]:
    from skill_studio.core.health.embedding import MAX_CONTENT

    return {r[0]: f"{r[0]}\n{r[2]}\n{r[3]}" for r in store.embedding_inputs(names, MAX_CONTENT)}


def closest(candidates: Iterable[Pair], per_skill: int = PER_SKILL) -> list[Pair]:
    """The pairs among each skill's ``per_skill`` most similar (a pair stays when it is among
    either skill's), best first: a family of a thousand skills from one template is a million
    pairs, and its members' closest few tie it together as well."""
    kept: list[Pair] = []
    seen: dict[str, int] = {}
    for p in sorted(candidates, key=lambda p: -p.similarity):
        if seen.get(p.a, 0) < per_skill or seen.get(p.b, 0) < per_skill:
            kept.append(p)
        seen[p.a] = seen.get(p.a, 0) + 1
        seen[p.b] = seen.get(p.b, 0) + 1
    return kept


def _numbers(name: str) -> set[str]:
    """The bare numbers of a name ("chapter-2" -> {"2"}; a "v2" is a version, not a number)."""
    return {w for w in WORD_SPLIT.split(CASE_CHANGE.sub(" ", name).lower()) if w.isdigit()}


def same_named(names: Iterable[str]) -> list[tuple[str, str]]:
    """Pairs of skills with one name written differently ("google-maps-automation",
    "googlemaps-automation"; "docx", "docx-2", "docx-v3"; "Docker Hub Automation",
    "docker_hub-automation"): a library holding both holds one product twice. Names of a
    numbered series ("step-1", "step-2": each with its own number) are not one name."""
    groups: dict[str, dict[frozenset[str], list[str]]] = {}
    for name in names:
        key = "".join(name_words(name))
        if key:
            groups.setdefault(key, {}).setdefault(frozenset(_numbers(name)), []).append(name)
    pairs: set[tuple[str, str]] = set()
    for by_number in groups.values():
        unnumbered = by_number.get(frozenset(), [])
        for numbers, members in by_number.items():
            # The same numbers (or none) in both, or a number in one only ("docx", "docx-2").
            pairs.update((min(a, b), max(a, b)) for a in members for b in members if a < b)
            if numbers:
                pairs.update((min(a, b), max(a, b)) for a in unnumbered for b in members)
    return sorted(pairs)


def judge(store, candidates: list[Pair], *, threshold: float = 0.75, index=None) -> Verdicts:
    """:func:`classify` on a store's candidate pairs (each skill's closest few, see
    :func:`closest`) and on the skills with one name written differently (:func:`same_named`,
    at whatever similarity ``index`` gives them), reading the texts of the skills they name."""
    cards = [(r[0], r[1]) for r in store.match_cards() if Lifecycle(r[3]) not in UNSEARCHED_STATES]
    known = {frozenset((p.a, p.b)) for p in candidates}
    dismissed = store.dismissed_pairs()
    extra = [p for a, b in same_named(n for n, _ in cards) if frozenset((a, b)) not in known and (a, b) not in dismissed
             and (p := Pair(a, b, index.pair_similarity(a, b) if index is not None else CANDIDATE_FLOOR)).similarity
             >= SAME_NAME_FLOOR]
    candidates = closest(candidates) + extra
    involved = sorted({n for p in candidates for n in (p.a, p.b)})
    return classify(candidates, _texts(store, involved), library_common_words(store), threshold=threshold,
                    described=described_families(cards), named=extra)


def different_subjects(store, a: str, others: dict[str, float]) -> dict[str, list[str]]:
    """For each of ``others`` ({name: similarity to ``a``}), the words that keep it and ``a`` from
    being one skill (:meth:`Subjects.apart`; empty when nothing does)."""
    subjects = Subjects(library_common_words(store), _texts(store, [a, *others]))
    return {b: subjects.apart(a, b, sim) if b in subjects.words and a in subjects.words else []
            for b, sim in others.items()}
