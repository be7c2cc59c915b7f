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

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from skill_studio.core.health.embedding import STOP_WORDS
from skill_studio.core.health.similarity import Pair

#: Pairs less similar than this are not compared at all.
CANDIDATE_FLOOR = 0.35
#: A pair differing in subject at least this similar shares a template.
FAMILY_SIMILARITY = 0.45
#: A name word in at least this many names (and this share of them) says the kind, not the subject.
COMMON_NAMES, COMMON_SHARE = 3, 0.005

#: Words that name a skill's role, not its subject.
ROLE_WORDS = frozenset("""assistant automation builder creator expert generator guide helper helpers kit maker manager
pro skill skills tool toolkit tools utility utils workflow writer""".split())

SAME_NAME = "the same name written differently"

_SPLIT = re.compile(r"[^0-9a-z]+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_VERSION = re.compile(r"v?\d+")
_TEXT_WORD = re.compile(r"[0-9a-z]+")
_ENDINGS = ("ations", "ation", "ions", "ion", "ings", "ing", "ers", "er", "ies", "es", "ed", "s")


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
    similarity: float            # the mean similarity of the family's pairs

    @property
    def reason(self) -> str:
        shown = ", ".join(self.differ[:8]) + (", …" if len(self.differ) > 8 else "")
        return (f"{len(self.members)} skills share one template ({self.similarity:.2f} similar on average); "
                f"they differ in {shown or 'a few words'}: not merge suggestions")


@dataclass
class Verdicts:
    duplicates: list[Duplicate] = field(default_factory=list)
    families: list[Family] = field(default_factory=list)


def name_words(name: str) -> list[str]:
    """The words of a skill name: split at separators and case changes, lower case, version
    numbers dropped (``Docker_Hub-Automation-v2`` -> docker, hub, automation)."""
    words = _SPLIT.split(_CAMEL.sub(" ", name).lower())
    return [w for w in words if w and not _VERSION.fullmatch(w)]


def _stem(word: str) -> str:
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            return word[:-len(ending)]
    return word


class _Subjects:
    """Each skill's subject words (its name's, less the library's common ones) and its text's words."""

    def __init__(self, names: Iterable[str], texts: dict[str, str]):
        names = list(names)
        self.words = {n: name_words(n) for n in names}
        counts: dict[str, int] = {}
        for ws in self.words.values():
            for w in set(ws):
                counts[w] = counts.get(w, 0) + 1
        common = max(COMMON_NAMES, int(COMMON_SHARE * len(names)))
        self.common = {w for w, c in counts.items() if c >= common}
        self.texts = {n: set(_TEXT_WORD.findall(t.lower())) for n, t in texts.items()}
        self._prefixes: dict[str, list[str]] = {}

    def compact(self, name: str) -> str:
        return "".join(self.words[name])

    def same_name(self, a: str, b: str) -> bool:
        return bool(self.words[a]) and self.compact(a) == self.compact(b)

    def _said(self, word: str, other: str) -> bool:
        """``word`` is in the other's name (as a word or within a joined-up one) or its text."""
        if word in self.words[other] or (len(word) >= 4 and word in self.compact(other)):
            return True
        stem = _stem(word)
        text = self.texts.get(other, set())
        if len(stem) < 3:
            return word in text
        return word in text or any(t.startswith(stem) for t in text)

    def _subject(self, name: str) -> list[str]:
        return [w for w in self.words[name] if w not in self.common and w not in ROLE_WORDS and w not in STOP_WORDS]

    def shared(self, a: str, b: str) -> list[str]:
        """Subject words of ``a``'s name that ``b``'s name has too (as a word, stem or within a joined-up one)."""
        other = {_stem(w) for w in self._subject(b)}
        return [w for w in self._subject(a) if _stem(w) in other or (len(w) >= 4 and w in self.compact(b))]

    def unsaid(self, a: str, b: str) -> list[str]:
        """Subject words of ``a``'s name that ``b`` never says."""
        return [w for w in self._subject(a) if not self._said(w, b)]


def classify(pairs: Iterable[Pair], texts: dict[str, str], names: Iterable[str], *,
             threshold: float = 0.75) -> Verdicts:
    """Duplicates and families among candidate ``pairs`` (similarity at least CANDIDATE_FLOOR,
    best first); ``texts`` holds each compared skill's text (name, description, body) and
    ``names`` every skill of the library (for the words common to names)."""
    subjects = _Subjects(names, texts)
    out = Verdicts()
    siblings: list[tuple[Pair, list[str]]] = []
    open_pairs: list[Pair] = []
    for p in pairs:
        if p.similarity < CANDIDATE_FLOOR:
            continue
        if subjects.same_name(p.a, p.b):
            out.duplicates.append(Duplicate(p.a, p.b, p.similarity, SAME_NAME))
            continue
        only_a, only_b = subjects.unsaid(p.a, p.b), subjects.unsaid(p.b, p.a)
        if only_a and only_b:     # each is about something the other never says
            differ = only_a + only_b
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
            out.duplicates.append(Duplicate(p.a, p.b, p.similarity, "same subject, above the near-duplicate threshold"))
        elif best[p.a][1] == p.b and best[p.b][1] == p.a and subjects.shared(p.a, p.b):
            out.duplicates.append(Duplicate(p.a, p.b, p.similarity, "each is the other's most similar skill, "
                                            f"both named for {', '.join(subjects.shared(p.a, p.b))}"))
    out.families = _families(siblings)
    family = {n: k for k, f in enumerate(out.families) for n in f.members}
    out.duplicates = [d for d in out.duplicates if d.reason == SAME_NAME or family.get(d.a, -1) != family.get(d.b, -2)]
    out.duplicates.sort(key=lambda d: (-d.similarity, d.a, d.b))
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


def judge(store, candidates: list[Pair], *, threshold: float = 0.75) -> Verdicts:
    """:func:`classify` on a store's candidate pairs, reading the texts of the skills they name."""
    from skill_studio.core.health.embedding import MAX_CONTENT

    involved = sorted({n for p in candidates for n in (p.a, p.b)})
    texts = {r[0]: f"{r[0]}\n{r[2]}\n{r[3]}" for r in store.embedding_inputs(involved, MAX_CONTENT)}
    return classify(candidates, texts, store.names() if involved else [], threshold=threshold)


def different_subjects(store, a: str, b: str) -> list[str]:
    """The words that show ``a`` and ``b`` are about different things (empty when they are not)."""
    from skill_studio.core.health.embedding import MAX_CONTENT

    texts = {r[0]: f"{r[0]}\n{r[2]}\n{r[3]}" for r in store.embedding_inputs([a, b], MAX_CONTENT)}
    subjects = _Subjects(store.names(), texts)
    only_a, only_b = subjects.unsaid(a, b), subjects.unsaid(b, a)
    return only_a + only_b if only_a and only_b else []
