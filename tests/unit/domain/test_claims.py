"""Claims (заявка): the declarer, or any player of an all-pass, claims a number of the tricks left
on his turn; the seats playing the other hands accept or reject; acceptance ends the deal so."""

from __future__ import annotations

import msgspec
import pytest
from test_game import HANDS, TALON, run, seated

from domain import game as g
from domain.deal.messages import (
    AnswerClaim,
    CallWhist,
    ChoosePlay,
    Claim,
    ClaimAnswered,
    ClaimMade,
    DealEnded,
    Declare,
    Discard,
    MakeBid,
    Pass,
    PlayCard,
    TakeTalon,
)
from domain.deal.view import visible_cards
from domain.errors import ClaimLimited, IllegalAction
from domain.rules import rules_for


def contract_play(*, open_: bool = False, rules=None) -> g.Pulka:
    """Seat 0 plays 6♠; seat 1 whists, seat 2 passes; seat 1 (first hand) is to lead."""
    state = seated(rules) if rules else seated()
    state, _ = run(
        state,
        g.DealCards(hands=HANDS, talon=TALON),
        Pass(seat=1),
        Pass(seat=2),
        MakeBid(seat=0, bid="6S"),
        TakeTalon(seat=0),
        Discard(seat=0, cards=("8H", "7H")),
        Declare(seat=0, contract="6S"),
        CallWhist(seat=1, choice="whist"),
        CallWhist(seat=2, choice="pass"),
        ChoosePlay(seat=1, open=open_),
    )
    assert isinstance(state, g.Pulka) and isinstance(state.deal, g.Playing)
    return state


def to_declarers_turn(state: g.Pulka) -> g.Pulka:
    """Play the first trick's leads until the declarer (seat 0) is to play."""
    while g.to_act(state) != (0,):
        (seat,) = g.to_act(state)
        move = next(a for a in g.legal_actions(state, seat) if isinstance(a, PlayCard))
        state, _ = run(state, move)
    return state


def refused(state: g.GameState, command: g.Command, code: str) -> None:
    with pytest.raises(IllegalAction) as refusal:
        g.decide(command, state)
    assert refusal.value.code == f"illegal.{code}"


def test_the_declarer_is_offered_claims_on_his_turn_and_the_others_never():
    state = to_declarers_turn(contract_play())
    offered = [a for a in g.legal_actions(state, 0) if isinstance(a, Claim)]
    assert [c.tricks for c in offered] == list(range(10, -1, -1))
    for seat in (1, 2):
        assert not any(isinstance(a, Claim) for a in g.legal_actions(state, seat))
    refused(state, Claim(seat=1, tricks=0), "claim_not_yours")


def test_an_accepted_claim_ends_the_deal_with_the_claimed_tricks_and_the_rest_divided():
    state = to_declarers_turn(contract_play())
    state, events = run(state, Claim(seat=0, tricks=8))
    made = events[0]
    assert isinstance(made, ClaimMade)
    assert (made.seat, made.tricks, made.remaining, made.asked) == (0, 8, 10, (1, 2))
    assert g.to_act(state) == (1, 2)  # play waits for both opponents' answers
    assert g.legal_actions(state, 1) == [
        AnswerClaim(seat=1, accept=True),
        AnswerClaim(seat=1, accept=False),
    ]
    refused(state, PlayCard(seat=0, card="AS"), "claim_pending")
    refused(state, Claim(seat=0, tricks=9), "claim_pending")
    view = g.game_view(state, 2)
    assert view.deal.claim is not None and view.deal.claim.tricks == 8

    state, events = run(state, AnswerClaim(seat=1, accept=True))
    assert events == [ClaimAnswered(seat=1, accept=True)]
    assert g.to_act(state) == (2,)
    refused(state, AnswerClaim(seat=1, accept=True), "not_asked")

    state, events = run(state, AnswerClaim(seat=2, accept=True))
    ended = events[1]
    assert isinstance(ended, DealEnded)
    # 8 to the declarer; the other 2 divided, the odd one to the first after him (seat 1)
    assert ended.outcome.tricks == (8, 1, 1)
    scored = next(e for e in events if isinstance(e, g.DealScored))
    assert scored.deal_no == 1


def test_a_rejected_claim_lets_play_go_on_from_where_it_stood():
    state = to_declarers_turn(contract_play())
    before = state
    state, _ = run(state, Claim(seat=0, tricks=10))
    state, events = run(state, AnswerClaim(seat=2, accept=False))
    assert events == [ClaimAnswered(seat=2, accept=False)]
    assert g.to_act(state) == (0,)
    assert msgspec.structs.replace(state.deal, claimed=()) == before.deal
    assert state.deal.claimed == ((0, 0),)  # the claim is remembered, for the limit
    assert any(isinstance(a, PlayCard) for a in g.legal_actions(state, 0))
    refused(state, AnswerClaim(seat=1, accept=True), "no_claim")


def test_with_open_cards_the_whister_answers_for_the_passers_hand():
    state = to_declarers_turn(contract_play(open_=True))
    assert state.deal.open_play
    state, events = run(state, Claim(seat=0, tricks=7))
    assert events[0].asked == (1,)  # seat 1 plays seat 2's cards too
    view = g.game_view(state, 1)
    assert view.deal.open_hands[2] is not None  # the cards lie open
    state, events = run(state, AnswerClaim(seat=1, accept=True))
    assert isinstance(events[1], DealEnded)
    assert events[1].outcome.tricks == (7, 2, 1)


def test_claims_cannot_claim_more_than_is_left_or_be_made_where_the_table_forbids():
    state = to_declarers_turn(contract_play())
    refused(state, Claim(seat=0, tricks=11), "claim_too_many")
    no_claims = rules_for("sochi", {"table": {"claims": False}})
    state = to_declarers_turn(contract_play(rules=no_claims))
    assert not any(isinstance(a, Claim) for a in g.legal_actions(state, 0))
    refused(state, Claim(seat=0, tricks=5), "no_claims")


def test_in_an_all_pass_any_player_claims_on_his_turn():
    state = seated()
    state, _ = run(state, g.DealCards(hands=HANDS, talon=TALON), *(Pass(seat=s) for s in (1, 2, 0)))
    assert state.deal.kind == "raspasy"
    (seat,) = g.to_act(state)
    offered = [a for a in g.legal_actions(state, seat) if isinstance(a, Claim)]
    assert offered and offered[-1] == Claim(seat=seat, tricks=0)
    state, events = run(state, Claim(seat=seat, tricks=0))
    assert set(events[0].asked) == {0, 1, 2} - {seat}
    for other in events[0].asked:
        state, events = run(state, AnswerClaim(seat=other, accept=True))
    ended = next(e for e in events if isinstance(e, DealEnded))
    assert ended.outcome.tricks[seat] == 0 and sum(ended.outcome.tricks) == 10


def test_a_claim_shows_no_hidden_card():
    state = to_declarers_turn(contract_play())
    before = {seat: visible_cards(g.game_view(state, seat).deal) for seat in (None, 0, 1, 2)}
    state, _ = run(state, Claim(seat=0, tricks=6))
    for seat, seen in before.items():
        assert visible_cards(g.game_view(state, seat).deal) == seen


def test_a_seat_makes_at_most_one_claim_per_trick():
    # 121 claims in 5 deals, each held up for an answer: one claim per trick and seat now.
    state = to_declarers_turn(contract_play())
    state, _ = run(state, Claim(seat=0, tricks=10), AnswerClaim(seat=1, accept=False))
    assert g.to_act(state) == (0,)
    assert not any(isinstance(a, Claim) for a in g.legal_actions(state, 0))
    with pytest.raises(ClaimLimited) as refusal:
        g.decide(Claim(seat=0, tricks=9), state)
    assert refusal.value.code == "illegal.claim_limited"
    # his card ends the first trick; in the next he may claim once more
    state, _ = run(state, next(a for a in g.legal_actions(state, 0) if isinstance(a, PlayCard)))
    state = to_declarers_turn(state)
    assert state.deal.tricks_played == 1
    assert any(isinstance(a, Claim) for a in g.legal_actions(state, 0))
    state, _ = run(state, Claim(seat=0, tricks=9), AnswerClaim(seat=2, accept=False))
    refused(state, Claim(seat=0, tricks=8), "claim_limited")


def test_in_an_all_pass_each_seat_has_its_own_claim_per_trick():
    state = seated()
    state, _ = run(state, g.DealCards(hands=HANDS, talon=TALON), *(Pass(seat=s) for s in (1, 2, 0)))
    (seat,) = g.to_act(state)
    state, events = run(state, Claim(seat=seat, tricks=0))
    state, _ = run(state, AnswerClaim(seat=events[0].asked[0], accept=False))
    refused(state, Claim(seat=seat, tricks=1), "claim_limited")
    state, _ = run(state, next(a for a in g.legal_actions(state, seat) if isinstance(a, PlayCard)))
    (other,) = g.to_act(state)
    assert any(isinstance(a, Claim) for a in g.legal_actions(state, other))
