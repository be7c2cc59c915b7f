"""What a skill is about, as its name says: the words of a name (split at separators and case
changes, versions dropped), the subject words among them (less words common to many names, role
words and stop words), and whether another skill's name or text says them (core.health.duplicates
judges pairs with it).

A word is said by a text that holds it, or a form of it (its stem and at most FORM_LETTERS more
letters: "invoices", "invoicing"), at least MENTIONS times: a passing mention ("for bills you
need Zoho Books") does not make a skill about something.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from skill_studio.core.health.embedding import STOP_WORDS

#: Texts at least this similar are one skill whatever one name says that the other does not.
SAME_TEXT = 0.9
#: A name word in at least this many names (and this share of them) says the kind, not the subject.
COMMON_NAMES, COMMON_SHARE = 3, 0.005

#: Words that name a skill's role, not its subject.
ROLE_WORDS = frozenset("""assistant automation builder creator expert generator guide helper helpers kit maker manager
pro skill skills tool toolkit tools utility utils workflow writer""".split())

WORD_SPLIT = re.compile(r"[^0-9a-z]+")
CASE_CHANGE = re.compile(r"(?<=[a-z])(?=[A-Z])")
_VERSION = re.compile(r"v?\d+")
TEXT_WORD = re.compile(r"[0-9a-z]+")
_ENDINGS = ("ations", "ation", "ions", "ion", "ings", "ing", "ies", "es", "ed", "s")
_AGENT_ENDINGS = ("ers", "er")
FORM_LETTERS = 4     # a form of a word is its stem and at most this many letters
MENTIONS = 2         # a text that says a word fewer times is not about it


def name_words(name: str) -> list[str]:
    """The words of a skill name: split at separators and case changes, lower case, version
    numbers dropped (``Docker_Hub-Automation-v2`` -> docker, hub, automation)."""
    words = WORD_SPLIT.split(CASE_CHANGE.sub(" ", name).lower())
    return [w for w in words if w and not _VERSION.fullmatch(w)]


def _stem(word: str) -> str:
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            return word[:-len(ending)]
    for ending in _AGENT_ENDINGS:     # "cleaner" -> "clean"; a short stem ("serv", "paper") is no stem
        if word.endswith(ending) and len(word) - len(ending) >= 5:
            return word[:-len(ending)]
    return word


def common_name_words(names: Iterable[str]) -> frozenset[str]:
    """Words in so many skill names that they say the kind of skill, not its subject (at least
    COMMON_NAMES names and COMMON_SHARE of them)."""
    counts: dict[str, int] = {}
    total = 0
    for name in names:
        total += 1
        for w in set(name_words(name)):
            counts[w] = counts.get(w, 0) + 1
    least = max(COMMON_NAMES, int(COMMON_SHARE * total))
    return frozenset(w for w, c in counts.items() if c >= least)


class Subjects:
    """Each compared skill's subject words (its name's, less common, role and stop words) and the
    words of its text."""

    def __init__(self, common: frozenset[str], texts: dict[str, str]):
        self.common = common
        self.words = {n: name_words(n) for n in texts}
        self.texts = {n: Counter(TEXT_WORD.findall(t.lower())) for n, t in texts.items()}
        self._said_cache: dict[tuple[str, str], bool] = {}
        self._covered: dict[tuple[str, str], set[str]] = {}

    def compact(self, name: str) -> str:
        return "".join(self.words[name])

    def covered(self, a: str, b: str) -> set[str]:
        """Words of ``a``'s name that ``b``'s name has, alone or joined up with their neighbours
        in either name ("docker" and "hub" beside "dockerhub"; "googlemaps" beside "google", "maps")."""
        key = (a, b)
        found = self._covered.get(key)
        if found is None:
            wa, wb = self.words[a], self.words[b]
            runs_b = {"".join(wb[i:j]) for i in range(len(wb)) for j in range(i + 1, len(wb) + 1)}
            found = set()
            for i in range(len(wa)):
                for j in range(i + 1, len(wa) + 1):
                    if "".join(wa[i:j]) in runs_b:
                        found.update(wa[i:j])
            self._covered[key] = found
        return found

    def same_name(self, a: str, b: str) -> bool:
        return bool(self.words[a]) and self.compact(a) == self.compact(b)

    def _said(self, word: str, other: str) -> bool:
        key = (word, other)
        found = self._said_cache.get(key)
        if found is None:
            found = self._said_cache[key] = self._says(word, other)
        return found

    def _says(self, word: str, other: str) -> bool:
        """``word`` is in the other's name (as a word or within a joined-up one), or its text says
        it or a form of it (its stem and at most FORM_LETTERS more letters: "invoices",
        "invoicing") at least MENTIONS times: a passing mention ("for bills you need Zoho Books")
        does not make a skill about something."""
        if word in self.words[other]:
            return True
        text = self.texts.get(other, Counter())
        stem = _stem(word)
        if len(stem) < 4:
            return text[word] >= MENTIONS
        return sum(n for t, n in text.items() if t.startswith(stem) and len(t) <= len(stem) + FORM_LETTERS) >= MENTIONS

    def subject(self, name: str) -> list[str]:
        return [w for w in self.words[name] if w not in self.common and w not in ROLE_WORDS and w not in STOP_WORDS]

    def shared(self, a: str, b: str) -> list[str]:
        """Subject words of ``a``'s name that ``b``'s name has too (as a word, stem or within a joined-up one)."""
        other = {_stem(w) for w in self.subject(b)}
        named = self.covered(a, b)
        return [w for w in self.subject(a) if _stem(w) in other or w in named]

    def narrower(self, a: str, b: str) -> bool:
        """One name's subject is the other's with more words ("quickbooks" and "quickbooks-online")."""
        sa, sb = self.subject(a), self.subject(b)
        return bool(sa) and bool(sb) and (len(self.shared(a, b)) == len(sa) or len(self.shared(b, a)) == len(sb))

    def unsaid(self, a: str, b: str) -> list[str]:
        """Subject words of ``a``'s name that ``b`` never says."""
        named = self.covered(a, b)
        return [w for w in self.subject(a) if w not in named and not self._said(w, b)]

    def apart(self, a: str, b: str, similarity: float) -> list[str]:
        """What keeps two very similar skills from being one: the words of :meth:`differ`; or,
        when only one names a thing the other hardly says ("books" beside Zoho Invoice), that
        word, unless one name is the other's with more words ("quickbooks-online") or the texts
        are all but the same (SAME_TEXT)."""
        only_a, only_b = self.unsaid(a, b), self.unsaid(b, a)
        if (only_a and only_b) or ((only_a or only_b) and not self.narrower(a, b) and similarity < SAME_TEXT):
            return only_a + only_b
        return []

    def differ(self, a: str, b: str) -> list[str]:
        """The words showing ``a`` and ``b`` are about different things: each name has a subject
        word the other never says (empty when they are not)."""
        only_a, only_b = self.unsaid(a, b), self.unsaid(b, a)
        return only_a + only_b if only_a and only_b else []
