"""Bots and claims: a bot never makes a claim, and accepts one only when it cannot cost its side."""

from __future__ import annotations

import random

from bots import LEVELS, seat_input
from domain import game as g
from domain.deal.messages import (
    AnswerClaim,
    CallWhist,
    ChoosePlay,
    Claim,
    Declare,
    Discard,
    MakeBid,
    Pass,
    PlayCard,
    TakeTalon,
)
from domain.rules import SOCHI

HANDS = (
    tuple("AS KS QS JS TS 9S AC KC AD KD".split()),
    tuple("8S 7S QC JC TC 9C QD JD TD 9D".split()),
    tuple("8C 7C 8D 7D AH KH QH JH TH 9H".split()),
)


def declarer_to_play() -> tuple[list[g.Event], g.GameState]:
    """Seat 0 plays 6♠ against a closed whist, and is to play to the first trick."""
    commands = [
        g.CreateGame(rules=SOCHI),
        *(g.TakeSeat(seat=s, player=f"p{s}") for s in range(3)),
        g.DealCards(hands=HANDS, talon=("8H", "7H")),
        Pass(seat=1), Pass(seat=2), MakeBid(seat=0, bid="6S"), TakeTalon(seat=0),
        Discard(seat=0, cards=("8H", "7H")), Declare(seat=0, contract="6S"),
        CallWhist(seat=1, choice="whist"), CallWhist(seat=2, choice="pass"),
        ChoosePlay(seat=1, open=False),
    ]  # fmt: skip
    events: list[g.Event] = []
    state: g.GameState = g.INITIAL_STATE
    while True:
        command = commands.pop(0) if commands else None
        if command is None:
            if g.to_act(state) == (0,):
                return events, state
            (seat,) = g.to_act(state)
            command = next(a for a in g.legal_actions(state, seat) if isinstance(a, PlayCard))
        new = g.decide(command, state)
        events += new
        state = g.fold(new, state)


def test_a_bot_never_claims():
    events, _ = declarer_to_play()
    view = seat_input(events, 0)
    assert any(isinstance(a, Claim) for a in view.legal)
    for name, decide in LEVELS.items():
        assert not isinstance(decide(view, random.Random(1), 0.05), Claim), name


def test_a_bot_accepts_only_a_claim_that_cannot_cost_its_side():
    events, state = declarer_to_play()
    for tricks, accepted in ((0, True), (4, False), (10, False)):
        claimed = events + g.decide(Claim(seat=0, tricks=tricks), state)
        view = seat_input(claimed, 1)
        for name, decide in LEVELS.items():
            answer = decide(view, random.Random(1), 0.05)
            assert answer == AnswerClaim(seat=1, accept=accepted), (name, tricks)
