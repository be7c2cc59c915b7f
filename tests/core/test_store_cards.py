"""Light cards: pages of cards and searches give the same fields and values as full rows."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
import random
from pathlib import Path

import pytest
from conftest import SAMPLES, make

from skill_studio.core.library.importer import import_paths
from skill_studio.core.model import Lifecycle, Origin, Skill, SkillFile, TrustTier
from skill_studio.core.store import Filters, Store
from skill_studio.core.store.rows import CARD_COLUMNS, ROW_COLUMNS, SkillCard, json_names, skill_from_row

ODD_NAMES = ['x "quoted"', "back\\slash", "ü-tag", 'a","b', "tab\there", "line\nbreak", "", " ", "[", "]",
             '"', '","', "emoji-😀", "\u2028sep", "del\x7f", "日本語"]


def _variety(store: Store) -> None:
    """Skills with metadata, files, unicode, odd tags and links, in every state, tier and origin."""
    rng = random.Random(4)
    made = []
    for i, origin in enumerate([Origin.HUMAN, Origin.LLM, Origin.BUILTIN] * 6):
        s = make(f"variety-{i}", description=f"Déjà vu № {i}: naïve “quotes” and 😀. Use when testing.",
                 body=f"# Ünïcode {i}\n\nBody with `code` and a [link](https://example.org/{i}).\n",
                 origin=origin, meta={"tags": "alpha beta", "author": "Zoë", "n": str(i)},
                 files=[SkillFile("scripts/run.sh", b"#!/bin/sh\necho hi\n", 0o755),
                        SkillFile(f"references/{i}.md", f"ref {i}".encode())] if i % 2 else [])
        s.tags = rng.sample(ODD_NAMES, k=i % 5)
        s.depends_on = [m.name for m in made[-(i % 3):]] if i % 3 else []
        s.conflicts_with = rng.sample(ODD_NAMES, k=i % 3)
        s.parent_skill_id = made[0].name if made and i % 4 == 0 else None
        s.trigger_pattern = "when (.*) fails" if i % 2 else None
        made.append(s)
    store.add_many(made)
    states, tiers = list(Lifecycle), list(TrustTier)
    for i, s in enumerate(made):
        store.set_state(s.name, lifecycle=states[i % len(states)], trust_tier=tiers[i % len(tiers)],
                        pinned=bool(i % 2), lifecycle_reason="checked by hand ✓" if i % 3 else None)
        if i % 4 == 1:
            store.record_use(s.name, success=bool(i % 3))


@pytest.fixture
def corpus(tmp_path, real_world) -> Store:
    with Store(tmp_path / "cards.db", actor="tester") as store:
        import_paths(store, [real_world])
        import_paths(store, [SAMPLES])
        _variety(store)
        assert len(store) > 40
        yield store


def _full_cards(store: Store) -> dict[str, Skill]:
    """Every skill's card as the full-row decoder reads it from skill_cards."""
    rows = store._query(f"SELECT {', '.join(CARD_COLUMNS)} FROM skill_cards")
    return {r["name"]: skill_from_row(r) for r in rows}


def _full_rows(store: Store) -> dict[str, Skill]:
    rows = store._query(f"SELECT {', '.join(ROW_COLUMNS)} FROM procedural_memory")
    return {r["name"]: skill_from_row(r) for r in rows}


def _same_fields(light: Skill, full: Skill, names) -> None:
    for name in names:
        a, b = getattr(light, name), getattr(full, name)
        assert a == b, (light.name, name)
        assert type(a) is type(b), (light.name, name)


def test_a_page_of_light_cards_holds_every_card_field_of_the_full_rows(corpus):
    cards, rows = _full_cards(corpus), _full_rows(corpus)
    page = corpus.list()
    assert [s.name for s in page] == sorted(cards, key=lambda n: (n.casefold(), n))
    for light in page:
        assert isinstance(light, SkillCard)
        _same_fields(light, cards[light.name], [f.name for f in dataclasses.fields(Skill)])
        _same_fields(light, rows[light.name], CARD_COLUMNS)
        assert light == cards[light.name] and cards[light.name] == light
        assert repr(light) == repr(cards[light.name])
        assert dataclasses.asdict(light) == dataclasses.asdict(cards[light.name])
    assert any(s.tags for s in page) and any(s.depends_on for s in page) and any(s.pinned for s in page)


def test_pages_searches_and_cards_by_name_give_the_same_cards(corpus):
    cards = _full_cards(corpus)
    checked = 0
    for flt in [Filters(lifecycle=s.value) for s in Lifecycle] + [Filters(origin=o.value) for o in Origin] + \
            [Filters(text="use"), Filters(text="review"), Filters(text="déjà"), Filters(tag="alpha")]:
        for sort in ("name", "relevance", "updated"):
            for offset in (0, 3):
                page = corpus.list(flt, sort=sort, limit=7, offset=offset)
                for light in page:
                    assert light == cards[light.name]
                    checked += 1
    assert checked > 100
    names = list(cards)[::-1] + ["not-a-skill"]
    assert [s.name for s in corpus.cards(names)] == list(cards)[::-1]
    for light in corpus.cards(names):
        _same_fields(light, cards[light.name], [f.name for f in dataclasses.fields(Skill)])


def test_a_field_set_before_the_card_is_read_keeps_its_value(corpus):
    first, second = corpus.list(limit=2)
    first.lifecycle = Lifecycle.DEPRECATED
    assert first.description and first.lifecycle is Lifecycle.DEPRECATED
    second.tags.append("added")
    second.metadata["k"] = "v"
    assert second.tags[-1] == "added" and second.metadata == {"k": "v"}
    assert corpus.list(limit=2)[1].metadata == {}


def test_cards_copy_pickle_and_replace_like_skills(corpus):
    for light in corpus.list(limit=10):
        full = _full_cards(corpus)[light.name]
        for other in (copy.copy(light), copy.deepcopy(light), pickle.loads(pickle.dumps(light))):
            assert other == full
        changed = dataclasses.replace(light, lifecycle=Lifecycle.VERIFIED)
        assert changed == dataclasses.replace(full, lifecycle=Lifecycle.VERIFIED)
        assert light != changed


def _json_texts() -> list[str]:
    rng = random.Random(8)
    texts = ["[]", "[\"\"]", '["a"]', '["a","b"]', '["a", "b"]', '["a",1,"b"]', '["]', '["a"b"]',
             '["a"],["b"]', '[null]', '["a",null]', '[["a"]]', '[{"a":"b"}]', '["a","b",]']
    for _ in range(400):
        words = rng.sample(ODD_NAMES, k=rng.randint(1, 4))
        texts.append(json.dumps(words, ensure_ascii=False, separators=(",", ":")))
        texts.append(json.dumps(words))
        texts.append(json.dumps(words, ensure_ascii=False))
    return texts


def test_the_quick_list_decoder_reads_json_as_json_does():
    for text in _json_texts():
        try:
            expected = json.loads(text)
        except ValueError:
            with pytest.raises(ValueError):
                json_names(text)
            continue
        assert json_names(text) == expected, text


def test_a_search_finds_a_skill_as_soon_as_its_import_is_done(tmp_path):
    path = tmp_path / "found.db"
    with Store(path) as store, Store(path) as other:
        store.add(make("first-skill", description="Plans a zeppelin trip. Use when flying."))
        for reader in (store, other):
            assert [s.name for s in reader.list(Filters(text="zeppelin"), limit=200)] == ["first-skill"]
            assert reader.count(Filters(text="zeppelin")) == 1
        for n, writer in enumerate((store, other, store)):
            writer.add_many([make(f"added-{n}", description="Another zeppelin trip. Use when flying.")])
            for reader in (store, other):
                for sort in ("name", "relevance"):
                    found = [s.name for s in reader.list(Filters(text="zeppelin"), sort=sort, limit=200)]
                    assert set(found) == {"first-skill"} | {f"added-{k}" for k in range(n + 1)}
                assert reader.names(Filters(text="zepp")) == sorted(found)
                assert reader.count(Filters(text="zeppelin")) == n + 2


def test_import_of_folders_is_searchable_at_once(tmp_path, real_world):
    with Store(Path(tmp_path) / "imp.db") as store:
        assert store.list(Filters(text="pdf"), limit=200) == []
        import_paths(store, [SAMPLES])
        assert "pdf-extract" in [s.name for s in store.list(Filters(text="pdf"), limit=200)]
