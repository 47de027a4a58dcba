"""Whole pulkas played to the end with random legal choices, under each preset: the settlement
sums to zero, every sheet entry is explained, and replaying the events (also through JSON)
reproduces the same state and sheet."""

from __future__ import annotations

import random

import msgspec
from _hypothesis import examples
from hypothesis import HealthCheck, event, given, settings
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


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
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


OPTIONS = {
    "the dealer whists at four, both hands open, plays the talon": {
        "players": 4,
        "players4": {"dealer_whist_hand": "open", "dealer_raspasy": "plays_talon"},
    },
    "the dealer at four never asked": {"players": 4, "players4": {"dealer_whist": False}},
    "games without the talon, priced up": {
        "bidding": {"talonless_games": True, "miser_without_talon": True, "allow_jumps": True},
        "scoring": {"talonless_extra": 2},
    },
    "simultaneous pool writes": {"pool": {"write_order": "simultaneous"}},
    "a fixed number of deals": {"pool": {"max_deals": 6}},
    "a control time and a last round": {"pool": {"time_limit_minutes": 20}},
    "a control time, no last round, the deal slides": {
        "pool": {"time_limit_minutes": 20, "last_round": False, "slide_after_raspasy": True}
    },
    "geometric all-passes": {"raspasy": {"progression": "geom"}},
}


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preset=presets, option=st.sampled_from(sorted(OPTIONS)), seed=st.integers(0, 2**32 - 1))
def test_a_random_pulka_under_every_new_option_ends_settles_to_zero_and_replays(
    preset, option, seed
):
    """Also games that end by their deals or their time: their unclosed pools are settled."""
    overrides = {**OPTIONS[option]}
    overrides["pool"] = {"target": 6, **overrides.get("pool", {})}
    if preset == "rostov" and "dealer_raspasy" in overrides.get("players4", {}):
        overrides["raspasy"] = {"use_talon": True}  # Rostov leaves the talon unused
    rules = rules_for(preset, overrides)
    state, appends = play_random_pulka(rules, random.Random(seed), ms_per_command=20_000)
    events = [event for batch in appends for event in batch]

    assert isinstance(state, g.PulkaClosed)
    assert sum(state.settlement.result) == 0
    if not all(p >= rules.pool.target for p in state.sheet.pool):  # ended by deals or time
        event("ended with unclosed pools")
        pool = rules.pool
        assert (pool.max_deals and state.deal_no == pool.max_deals) or pool.time_limit_minutes
    if rules.pool.max_deals:
        assert state.deal_no <= rules.pool.max_deals
    last_rounds = [e for e in events if isinstance(e, g.LastRoundStarted)]
    assert len(last_rounds) <= 1
    if last_rounds:
        event("a last round was played")
    assert g.fold(events) == state
    assert g.fold(_EVENTS.decode(msgspec.json.encode(events))) == state
