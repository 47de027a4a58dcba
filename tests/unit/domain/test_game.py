"""The pulka as a decider: seats, dealer rotation, scoring as an event, the exit from all-pass,
the end of the game and its settlement."""

from __future__ import annotations

import pytest

from domain import game as g
from domain.cards import DECK
from domain.deal.messages import CallWhist, Declare, Discard, MakeBid, Pass, PlayCard, TakeTalon
from domain.errors import DealOver, IllegalAction, NotYourTurn, WrongPhase
from domain.rules import SOCHI, rules_for

HANDS = (
    tuple("AS KS QS JS TS 9S AC KC AD KD".split()),
    tuple("8S 7S QC JC TC 9C QD JD TD 9D".split()),
    tuple("8C 7C 8D 7D AH KH QH JH TH 9H".split()),
)
TALON = ("8H", "7H")


def fold(*commands: g.Command, rules=SOCHI) -> g.GameState:
    state: g.GameState = g.INITIAL_STATE
    for command in (g.CreateGame(rules=rules), *commands):
        for event in g.decide(command, state):
            state = g.evolve(state, event)
    return state


def seated(rules=SOCHI) -> g.GameState:
    return fold(*(g.TakeSeat(seat=s, player=f"p{s}") for s in range(rules.players)), rules=rules)


def run(state: g.GameState, *commands) -> tuple[g.GameState, list[g.Event]]:
    events: list[g.Event] = []
    for command in commands:
        new = g.decide(command, state)
        events += new
        state = g.fold(new, state)
    return state, events


def all_pass_deal(state: g.GameState) -> tuple[g.GameState, list[g.Event]]:
    """Deal the standard layout and pass all round, then play the all-pass out."""
    state, events = run(state, g.DealCards(hands=HANDS, talon=TALON))
    order = state.deal.order
    state, more = run(state, *(Pass(seat=s) for s in order))
    events += more
    while not isinstance(state.deal, g.DealFinished):
        (seat,) = g.to_act(state)
        state, more = run(state, g.legal_actions(state, seat)[0])
        events += more
    return state, events


def test_the_cards_are_dealt_only_once_every_seat_is_taken():
    state = fold(g.TakeSeat(seat=0, player="a"))
    assert not g.needs_cards(state)
    with pytest.raises(IllegalAction) as err:
        g.decide(g.DealCards(hands=HANDS, talon=TALON), state)
    assert err.value.code == "illegal.seats_free"


def test_a_seat_is_taken_once_and_a_player_sits_once():
    state = fold(g.TakeSeat(seat=0, player="a"))
    with pytest.raises(IllegalAction) as err:
        g.decide(g.TakeSeat(seat=0, player="b"), state)
    assert err.value.code == "illegal.seat_taken"
    with pytest.raises(IllegalAction) as err:
        g.decide(g.TakeSeat(seat=1, player="a"), state)
    assert err.value.code == "illegal.already_seated"


def test_the_first_deal_is_dealt_by_the_first_dealer_and_forehand_sits_on_his_left():
    state = seated()
    state, _ = run(state, g.DealCards(hands=HANDS, talon=TALON))
    assert state.deal.dealer == 0
    assert state.deal.order == (1, 2, 0)
    assert g.to_act(state) == (1,)


def test_a_deal_in_progress_refuses_new_cards():
    state, _ = run(seated(), g.DealCards(hands=HANDS, talon=TALON))
    with pytest.raises(WrongPhase):
        g.decide(g.DealCards(hands=HANDS, talon=TALON), state)


def test_a_finished_deal_is_scored_as_an_event_and_the_deal_passes_clockwise():
    state, events = all_pass_deal(seated())
    scored = [e for e in events if isinstance(e, g.DealScored)]
    assert len(scored) == 1 and scored[0].deal_no == 1
    assert scored[0].next_dealer == 1
    assert g.needs_cards(state)
    assert state.sheet == g.fold(events, seated()).sheet
    assert all(entry.explanation for entry in scored[0].score.entries)


def test_the_sheet_is_read_from_the_score_events_alone():
    state, events = all_pass_deal(seated())
    score = next(e for e in events if isinstance(e, g.DealScored)).score
    assert sum(state.sheet.mountain) == sum(e.amount for e in score.entries if e.kind == "mountain")


def test_the_exit_from_all_pass_raises_the_minimum_bid_in_leningrad():
    rules = rules_for("leningrad")
    state = seated(rules)
    state, _ = all_pass_deal(state)
    assert state.next_min_level == 6  # 6-7-7: the first exit is at 6
    state, _ = all_pass_deal(state)
    assert state.next_min_level == 7
    state, _ = run(state, g.DealCards(hands=HANDS, talon=TALON))
    forehand = state.deal.order[0]
    bids = [a.bid for a in g.legal_actions(state, forehand) if isinstance(a, MakeBid)]
    assert bids[0] == "7S"


def test_exit_level_follows_the_sequence_and_repeats_its_last_level():
    rules = rules_for("sochi", {"raspasy": {"exit_sequence": [6, 7, 8]}})
    assert [g.exit_level(rules, k) for k in range(6)] == [6, 6, 7, 8, 8, 8]


def test_the_dealer_stays_after_an_all_pass_when_the_deal_slides():
    rules = rules_for("sochi", {"pool": {"slide_after_raspasy": True}})
    _, events = all_pass_deal(seated(rules))
    assert next(e for e in events if isinstance(e, g.DealScored)).next_dealer == 0


def test_the_pulka_ends_when_every_pool_is_closed_with_a_settlement_summing_to_zero():
    rules = rules_for("sochi", {"pool": {"target": 2}})
    state = seated(rules)
    # Deal 1: seat 1 (forehand) plays 6♠ with a cold hand; both opponents pass: pool 2.
    for deal_no in range(1, 4):
        hands = tuple(HANDS[(s - deal_no) % 3] for s in range(3))
        state, _ = run(state, g.DealCards(hands=hands, talon=TALON))
        forehand = state.deal.order[0]
        second, third = state.deal.order[1], state.deal.order[2]
        state, _ = run(
            state,
            MakeBid(seat=forehand, bid="6S"),
            Pass(seat=second),
            Pass(seat=third),
            TakeTalon(seat=forehand),
            Discard(seat=forehand, cards=("KD", "AD")),
            Declare(seat=forehand, contract="6S"),
            CallWhist(seat=second, choice="pass"),
            CallWhist(seat=third, choice="pass"),
        )
    assert g.is_terminal(state)
    assert state.sheet.pool == (2, 2, 2)
    assert sum(state.settlement.result) == 0
    with pytest.raises(DealOver):
        g.decide(g.DealCards(hands=HANDS, talon=TALON), state)


def test_seat_commands_are_forwarded_to_the_deal_with_its_refusals():
    state, _ = run(seated(), g.DealCards(hands=HANDS, talon=TALON))
    with pytest.raises(NotYourTurn):
        g.decide(Pass(seat=0), state)
    with pytest.raises(IllegalAction) as err:
        g.decide(PlayCard(seat=1, card="AS"), state)
    assert err.value.code == "illegal.wrong_phase"


def test_a_game_is_created_once_with_its_rules_kept_in_the_event():
    events = g.decide(g.CreateGame(rules=SOCHI), g.INITIAL_STATE)
    assert events == [g.GameCreated(rules=SOCHI, first_dealer=0)]
    with pytest.raises(WrongPhase):
        g.decide(g.CreateGame(rules=SOCHI), g.fold(events))


def test_a_spectator_view_shows_no_card_of_any_hand():
    state, _ = run(seated(), g.DealCards(hands=HANDS, talon=TALON))
    view = g.game_view(state, None)
    assert view.deal.hand == () and not any(view.deal.open_hands) and view.deal.talon == ()
    assert set(view.deal.hand_sizes) == {10}
    mine = g.game_view(state, 1)
    assert set(mine.deal.hand) == set(state.deal.hands[1])
    assert set(mine.deal.hand) <= set(DECK)
