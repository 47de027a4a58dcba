"""Whole pulkas played to the end with random legal choices, under each preset: the settlement
sums to zero, every sheet entry is explained, and replaying the events (also through JSON)
reproduces the same state and sheet."""

from __future__ import annotations

import random

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain import game as g
from domain.rules import rules_for
from domain.sheet import apply_score, empty_sheet
from domain.simulation import play_random_pulka

_EVENTS = msgspec.json.Decoder(list[g.Event])


def play_pulka(rules, seed: int) -> tuple[g.GameState, list[g.Event]]:
    state, appends = play_random_pulka(rules, random.Random(seed))
    return state, [event for batch in appends for event in batch]


presets = st.sampled_from(["sochi", "leningrad", "rostov"])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preset=presets, players=st.sampled_from([3, 4]), target=st.sampled_from([4, 10]),
       seed=st.integers(0, 2**32 - 1))  # fmt: skip
def test_a_random_pulka_settles_to_zero_with_every_entry_explained_and_replays_exactly(
    preset, players, target, seed
):
    rules = rules_for(preset, {"players": players, "pool": {"target": target}})
    state, events = play_pulka(rules, seed)

    assert isinstance(state, g.PulkaClosed)
    assert sum(state.settlement.result) == 0
    assert all(p >= target for p in state.sheet.pool)

    scores = [e.score for e in events if isinstance(e, g.DealScored)]
    assert len(scores) == state.deal_no
    for score in scores:
        assert all(entry.explanation.strip() for entry in score.entries)

    sheet = empty_sheet(players)
    for score in scores:
        sheet = apply_score(sheet, score)
    assert sheet == state.sheet

    assert g.fold(events) == state
    replayed = _EVENTS.decode(msgspec.json.encode(events))
    assert g.fold(replayed) == state
