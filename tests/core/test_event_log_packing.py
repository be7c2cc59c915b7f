"""An event's outcomes pack to the same bytes whether its codes are a list or a numpy array (the
store no longer imports numpy; the bus's dispatcher passes arrays), and fire times round-trip."""

from __future__ import annotations

import random

import numpy as np
import pytest

from skill_studio.core.store.event_log import FIRED, FIXED, FireTimes, Legend, OutcomeLog, unpack_fires


def _log(codes, reasons: int) -> OutcomeLog:
    entries = [(i, f"skill-{i}", "load", None) for i in range(len(codes))]
    fired = sum(1 for c in codes if c == FIRED)
    return OutcomeLog(Legend(entries), [f"reason {i}" for i in range(reasons)], codes,
                      [1000 * i for i in range(fired)], [{"ok": i} for i in range(fired)])


@pytest.mark.parametrize("reasons", [0, 1, 5, 40_000])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_list_and_an_array_of_codes_pack_alike(seed, reasons):
    rng = random.Random(seed)
    codes = [rng.choice([FIRED, FIXED, *range(reasons)][:reasons + 2]) for _ in range(rng.randint(0, 60))]
    as_list = _log(list(codes), reasons).packed()
    for dtype in (np.int32, np.intp, np.int64):
        assert _log(np.array(codes, dtype=dtype), reasons).packed() == as_list


def test_fire_times_round_trip():
    times = FireTimes([3, 1, 7], [0, 1_700_000_000, 2**40])
    assert unpack_fires(times.packed()) == {1: 1_700_000_000, 7: 0xFFFFFFFF}
    assert unpack_fires(times.packed([0], 42)) == {3: 42, 1: 1_700_000_000, 7: 0xFFFFFFFF}
    assert unpack_fires(times.packed()) == {1: 1_700_000_000, 7: 0xFFFFFFFF}   # the copy was changed
