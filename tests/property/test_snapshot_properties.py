"""A snapshot is only a cache: a state encoded at any point of a random game, decoded and folded
on with the rest of its events, is the state folded from the first event."""

from __future__ import annotations

import random

from _hypothesis import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain import game as g
from domain.rules import rules_for
from domain.simulation import play_random_pulka
from service.eventlog.snapshots import StateCodec

CODEC = StateCodec()


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preset=st.sampled_from(["sochi", "leningrad", "rostov"]), players=st.sampled_from([3, 4]),
       seed=st.integers(0, 2**32 - 1), cut=st.floats(0, 1), claims=st.sampled_from([0.0, 0.3]),
       clock=st.booleans())  # fmt: skip
def test_folding_on_from_a_decoded_snapshot_gives_the_fold_from_zero(
    preset, players, seed, cut, claims, clock
):
    rules = rules_for(preset, {"players": players, "pool": {"target": 4}})
    if clock:
        rules = rules_for(
            preset, {"players": players, "pool": {"target": 4}, "table": {"move_seconds": 30}}
        )
    _, appends = play_random_pulka(
        rules, random.Random(seed), claims=claims, ms_per_command=1_000 if clock else None
    )
    events = [event for batch in appends for event in batch]
    at = 1 + int(cut * (len(events) - 1))
    snapshot = g.fold(events[:at])
    data = CODEC.encode(snapshot)
    assert data is not None
    restored = CODEC.decode(data)
    assert restored == snapshot
    assert g.fold(events[at:], restored) == g.fold(events)


def test_every_state_of_a_whole_game_round_trips():
    rules = rules_for("sochi", {"players": 3, "pool": {"target": 4}})
    state: g.GameState = g.INITIAL_STATE
    _, appends = play_random_pulka(rules, random.Random(7), claims=0.3)
    for batch in appends:
        state = g.fold(batch, state)
        data = CODEC.encode(state)
        assert data is not None and CODEC.decode(data) == state
