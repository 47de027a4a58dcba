"""The table around the cards: a clock folded from events, timeouts that make the move for a
seat, absence after timeouts in a row, coming back, leaving before the start, abandoning."""

from __future__ import annotations

import msgspec
import pytest
from test_game import HANDS, TALON

from domain import game as g
from domain import table as tbl
from domain.deal.messages import Claim, MakeBid, Pass, PlayCard
from domain.errors import IllegalAction
from domain.rules import rules_for

CLOCKED = rules_for(
    "sochi",
    {"table": {"move_seconds": 10, "bank_seconds": 30, "increment_seconds": 5,
               "timeouts_to_absent": 2}},
)  # fmt: skip
S = 1000


def at(command, ms: int):
    return msgspec.structs.replace(command, at=ms)


def run(state, *commands):
    events = []
    for command in commands:
        new = g.decide(command, state)
        events += new
        state = g.fold(new, state)
    return state, events


def dealt(rules=CLOCKED, t0: int = 1_000 * S) -> g.Pulka:
    state, _ = run(
        g.INITIAL_STATE,
        at(g.CreateGame(rules=rules), t0),
        *(at(g.TakeSeat(seat=s, player=f"p{s}"), t0) for s in range(3)),
        at(g.DealCards(hands=HANDS, talon=TALON), t0),
    )
    return state


def refused(state, command, code):
    with pytest.raises(IllegalAction) as refusal:
        g.decide(command, state)
    assert refusal.value.code == f"illegal.{code}"
    return refusal.value


def test_the_deal_starts_the_first_hands_clock_and_every_view_shows_it():
    state = dealt()
    clock = state.table
    assert clock.turns == (None, 1_000 * S, None)
    assert tbl.deadline(CLOCKED, clock, 1) == 1_000 * S + 10 * S + 30 * S
    view = g.game_view(state, None)
    assert [c.deadline for c in view.clocks] == [None, 1_040 * S, None]
    assert [c.bank_ms for c in view.clocks] == [30 * S] * 3


def test_a_move_past_its_own_time_is_paid_from_the_bank_and_earns_the_increment():
    state = dealt()
    state, events = run(state, at(Pass(seat=1), 1_025 * S))  # 15 s over the 10 s per move
    clock = events[-1]
    assert isinstance(clock, tbl.TurnClock)
    assert clock.banks == (30 * S, 15 * S + 5 * S, 30 * S)
    assert clock.turns == (None, None, 1_025 * S)


def test_a_move_after_the_deadline_is_refused_and_the_timeout_moves_for_the_seat():
    state = dealt()
    late = 1_040 * S
    refused(state, at(Pass(seat=1), late), "time_out")
    refused(state, at(g.TimeOut(seat=1, move=Pass(seat=1)), late - 1), "not_timed_out")
    refused(state, at(g.TimeOut(seat=2, move=Pass(seat=2)), late), "not_to_act")
    state, events = run(state, at(g.TimeOut(seat=1, move=Pass(seat=1)), late))
    assert events[0] == tbl.TimedOut(seat=1, at=late, in_a_row=1)
    assert any(type(e).__name__ == "Passed" for e in events)
    assert events[-1].banks[1] == 0 and events[-1].timeouts == (0, 1, 0)
    # the player's late move, sent on the view before the timeout, is named as such
    error = refused(state, at(MakeBid(seat=1, bid="6S"), late + 5), "timed_out")
    assert "your time ran out" in error.message


def test_timeouts_in_a_row_mark_the_seat_absent_its_moves_are_made_for_it_until_it_returns():
    rules = rules_for("sochi", {"table": {"move_seconds": 5, "timeouts_to_absent": 2}})
    state = dealt(rules, t0=0)
    state, _ = run(state, at(g.TimeOut(seat=1, move=Pass(seat=1)), 5 * S))
    state, _ = run(state, at(Pass(seat=2), 6 * S), at(Pass(seat=0), 7 * S))
    assert state.deal.kind == "raspasy"
    # an all-pass: seat 1 leads; its second timeout in a row makes it absent
    (seat,) = g.to_act(state)
    assert seat == 1
    lead = next(a for a in g.legal_actions(state, 1) if isinstance(a, PlayCard))
    state, events = run(state, at(g.TimeOut(seat=1, move=lead), 12 * S))
    assert [type(e).__name__ for e in events[:3]] == ["TimedOut", "PlayerAbsent", "CardPlayed"]
    assert state.table.absent == {1}
    assert g.game_view(state, 0).clocks[1].presence == "absent"
    # play the trick round; when seat 1 is to act again it is played for
    while g.to_act(state) != (1,):
        (seat,) = g.to_act(state)
        move = next(a for a in g.legal_actions(state, seat) if not isinstance(a, Claim))
        state, _ = run(state, at(move, 13 * S))
    refused(state, at(g.PlayFor(seat=0, move=Pass(seat=0)), 14 * S), "not_to_act")
    move = next(a for a in g.legal_actions(state, 1) if isinstance(a, PlayCard))
    _, events = run(state, at(g.PlayFor(seat=1, move=move), 14 * S))
    assert events[0] == tbl.PlayedFor(seat=1, reason="absent")
    # acting himself brings the player back
    state, events = run(state, at(move, 14 * S))
    assert isinstance(events[0], tbl.PlayerReturned)
    assert state.table.absent == frozenset() and state.table.timeouts[1] == 0
    refused(state, at(g.ReturnToSeat(seat=1), 15 * S), "not_absent")
    refused(state, at(g.PlayFor(seat=1, move=move), 15 * S), "not_to_act")


def test_a_seat_is_left_before_the_start_and_abandoned_after_it():
    state, _ = run(g.INITIAL_STATE, g.CreateGame(rules=CLOCKED), g.TakeSeat(seat=0, player="a"))
    state, events = run(state, g.LeaveSeat(seat=0))
    assert events == [tbl.SeatLeft(seat=0, player="a")]
    assert state.players == (None, None, None)
    refused(state, g.LeaveSeat(seat=0), "seat_free")
    refused(state, g.AbandonSeat(seat=1), "not_started")

    state = dealt(rules_for("sochi", {"table": {"reseat": True}}))
    refused(state, g.LeaveSeat(seat=2), "game_started")
    state, events = run(state, g.AbandonSeat(seat=2))
    assert events == [tbl.SeatAbandoned(seat=2, player="p2")]
    assert g.seat_of(state, "p2") is None  # a spectator now
    refused(state, g.AbandonSeat(seat=2), "already_abandoned")
    refused(state, Pass(seat=2), "abandoned")
    refused(state, g.TakeSeat(seat=2, player="p2"), "abandoned")
    state, _ = run(state, Pass(seat=1))
    state, events = run(state, g.PlayFor(seat=2, move=Pass(seat=2)))
    assert events[0] == tbl.PlayedFor(seat=2, reason="abandoned")
    # where the table allows it, another player takes the seat over
    state, events = run(state, g.TakeSeat(seat=2, player="q"))
    assert g.seat_of(state, "q") == 2 and state.table.abandoned == frozenset()
    assert state.table.abandoned_by == ((2, "p2"),)


def test_an_abandoned_seat_is_not_taken_where_the_table_does_not_reseat():
    state, _ = run(dealt(), g.AbandonSeat(seat=2))
    refused(state, g.TakeSeat(seat=2, player="q"), "no_reseat")


def test_a_table_without_a_clock_records_no_clock_and_refuses_timeouts():
    state = dealt(rules_for("sochi"))
    state, events = run(state, at(Pass(seat=1), 5))
    assert not any(isinstance(e, tbl.TurnClock) for e in events)
    refused(state, at(g.TimeOut(seat=2, move=Pass(seat=2)), 10**12), "no_clock")
    assert all(c.deadline is None and c.bank_ms is None for c in g.game_view(state, 0).clocks)
