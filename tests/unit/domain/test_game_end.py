"""The end of a pulka by a number of deals or by the control time, with the last round, and the
settlement of the pools left unclosed (docs/rules.md §G, §H; [P18]).

The clock is the ``at`` of the commands (ms since the epoch): the game's start is the ``at`` of
`CreateGame`, and the time is checked when a command ends a deal.
"""

from __future__ import annotations

import random

import msgspec
import pytest

from domain import game as g
from domain.deal.messages import MakeBid
from domain.deal.state import Bidding
from domain.errors import InvalidRules
from domain.rules import Rules, rules_for
from domain.settlement import exact_value
from domain.simulation import random_deal

T0 = 1_700_000_000_000
MINUTE = 60_000


def pulka(rules: Rules, at: int | None = T0) -> g.GameState:
    state = g.fold(g.decide(g.CreateGame(rules=rules, at=at), g.INITIAL_STATE))
    for seat in range(rules.players):
        state = g.fold(g.decide(g.TakeSeat(seat=seat, player=f"p{seat}"), state), state)
    return state


def play_deal(
    state: g.GameState, at: int | None, *, contract: bool = False
) -> tuple[g.GameState, list[g.Event]]:
    """Deal a seeded shuffle and play it out, every command stamped ``at``: everybody passes
    (an all-pass), or with ``contract`` the first hand makes the lowest bid and the defenders
    pass (a contract made without play)."""
    assert isinstance(state, g.Pulka)
    cards = random_deal(random.Random(state.deal_no), state.rules.players, state.next_dealer)
    events: list[g.Event] = g.decide(cards, state)
    state = g.fold(events, state)
    while type(state) is g.Pulka and not g.needs_cards(state):
        (seat,) = g.to_act(state)
        actions = g.legal_actions(state, seat)
        command = actions[0]
        if contract and isinstance(state.deal, Bidding) and seat == state.deal.order[0]:
            command = next(a for a in actions if isinstance(a, MakeBid))
        new = g.decide(msgspec.structs.replace(command, at=at), state)
        events += new
        state = g.fold(new, state)
    return state, events


def of_type(events: list[g.Event], cls: type) -> list[g.Event]:
    return [e for e in events if isinstance(e, cls)]


BIG = {"pool": {"target": 100}}


def test_a_game_records_when_it_was_created():
    (created,) = g.decide(g.CreateGame(rules=rules_for(), at=T0), g.INITIAL_STATE)
    assert created == g.GameCreated(rules=rules_for(), first_dealer=0, at=T0)
    assert g.fold([created]).started_at == T0  # type: ignore[union-attr]


def test_a_game_of_a_fixed_number_of_deals_ends_after_the_last_with_the_pools_settled():
    rules = rules_for("sochi", {"pool": {"target": 100, "max_deals": 3}})
    state = pulka(rules)
    for _ in range(2):
        state, events = play_deal(state, T0)
        assert not of_type(events, g.GameEnded)
    state, events = play_deal(state, T0)
    (ended,) = of_type(events, g.GameEnded)
    assert isinstance(state, g.PulkaClosed) and state.deal_no == 3
    assert max(state.sheet.pool) < 100
    settlement = ended.settlement  # type: ignore[attr-defined]
    assert sum(settlement.result) == 0
    assert sum(exact_value(v) for v in settlement.exact) == 0


def test_when_the_time_runs_out_a_last_round_of_one_deal_per_seat_follows():
    rules = rules_for("sochi", {"pool": {"target": 100, "time_limit_minutes": 60}})
    state, events = play_deal(pulka(rules), T0 + 30 * MINUTE)
    assert not of_type(events, g.LastRoundStarted)
    state, events = play_deal(state, T0 + 60 * MINUTE)  # deal 2 ends at the control time
    (started,) = of_type(events, g.LastRoundStarted)
    assert started == g.LastRoundStarted(deal_no=2, dealer=2, at=T0 + 60 * MINUTE)
    for _ in range(2):  # deals 3 (seat 2 deals) and 4 (seat 0)
        state, events = play_deal(state, T0 + 90 * MINUTE)
        assert not of_type(events, g.GameEnded) and not of_type(events, g.LastRoundStarted)
    state, events = play_deal(state, T0 + 99 * MINUTE)  # deal 5, seat 1's: back to seat 2
    assert of_type(events, g.GameEnded)
    assert isinstance(state, g.PulkaClosed) and state.deal_no == 5


def test_at_four_the_last_round_is_four_deals():
    rules = rules_for("sochi", {"players": 4, "pool": {"target": 100, "time_limit_minutes": 1}})
    state, events = play_deal(pulka(rules), T0 + 2 * MINUTE)
    assert of_type(events, g.LastRoundStarted)
    for deal_no in range(2, 6):
        state, events = play_deal(state, T0 + 3 * MINUTE)
        assert bool(of_type(events, g.GameEnded)) == (deal_no == 5)


def test_without_the_last_round_the_game_ends_with_the_deal_in_which_the_time_ran_out():
    rules = rules_for(
        "sochi", {"pool": {"target": 100, "time_limit_minutes": 60, "last_round": False}}
    )
    state, events = play_deal(pulka(rules), T0 + 61 * MINUTE)
    assert of_type(events, g.GameEnded) and not of_type(events, g.LastRoundStarted)
    assert isinstance(state, g.PulkaClosed)


def test_without_a_clock_the_time_never_runs_out():
    rules = rules_for("sochi", {"pool": {"target": 100, "time_limit_minutes": 1}})
    state, events = play_deal(pulka(rules, at=None), T0 + 99 * MINUTE)
    assert not of_type(events, g.LastRoundStarted)
    state, events = play_deal(state, None)
    assert not of_type(events, g.LastRoundStarted)


def test_when_the_dealer_stays_after_an_all_pass_the_last_round_lasts_until_the_deal_is_back():
    rules = rules_for(
        "sochi",
        {"pool": {"target": 100, "time_limit_minutes": 1, "slide_after_raspasy": True}},
    )
    state, events = play_deal(pulka(rules), T0 + MINUTE)  # an all-pass: seat 0 deals again
    (started,) = of_type(events, g.LastRoundStarted)
    assert started.dealer == 0  # type: ignore[attr-defined]
    state, events = play_deal(state, T0 + MINUTE)  # another all-pass by seat 0
    assert not of_type(events, g.GameEnded)
    for dealer in (0, 1):  # contracts: seat 0's deal, then seat 1's
        assert isinstance(state, g.Pulka) and state.next_dealer == dealer
        state, events = play_deal(state, T0 + MINUTE, contract=True)
        assert not of_type(events, g.GameEnded)
    state, events = play_deal(state, T0 + MINUTE, contract=True)  # seat 2's: back to seat 0
    assert of_type(events, g.GameEnded)


def test_a_closed_pulka_ends_before_its_time_as_usual():
    rules = rules_for("sochi", {"pool": {"target": 1, "time_limit_minutes": 600}})
    state, events = play_deal(pulka(rules), T0 + MINUTE)
    while not of_type(events, g.GameEnded):
        state, events = play_deal(state, T0 + MINUTE)
    assert isinstance(state, g.PulkaClosed)
    assert min(state.sheet.pool) >= 1


@pytest.mark.parametrize("option", ["max_deals", "time_limit_minutes"])
def test_a_negative_number_of_deals_or_minutes_is_refused(option: str):
    with pytest.raises(InvalidRules):
        rules_for("sochi", {"pool": {option: -1}})


def test_a_replay_of_a_time_limited_game_reaches_the_same_state():
    rules = rules_for("sochi", {"pool": {"target": 100, "time_limit_minutes": 1}})
    start = pulka(rules)
    state, log = start, []
    for _ in range(4):
        state, events = play_deal(state, T0 + 5 * MINUTE)
        log += events
    assert isinstance(state, g.PulkaClosed)
    assert g.fold(log, start) == state
