"""When the steward must act at a table next: pure over the folded game and the service's clock
(a manual one here), so no test waits for a deadline to pass."""

from __future__ import annotations

from typing import Any

import msgspec

from domain import game as g
from domain import table as tbl
from domain.deal.messages import Pass
from domain.rules import rules_for
from service.platform.clock import ManualClock
from service.players.bots import BotPlayers
from service.workers.steward import Steward

S = 1000
T0 = 1_000 * S
HANDS = (
    tuple("AS KS QS JS TS 9S AC KC AD KD".split()),
    tuple("8S 7S QC JC TC 9C QD JD TD 9D".split()),
    tuple("8C 7C 8D 7D AH KH QH JH TH 9H".split()),
)
TALON = ("8H", "7H")
CLOCKED = rules_for("sochi", {"table": {"move_seconds": 10, "timeouts_to_absent": 1}})


def _run(state: g.GameState, *commands: Any, at: int = T0) -> g.GameState:
    for command in commands:
        state = g.fold(g.decide(msgspec.structs.replace(command, at=at), state), state)
    return state


def _dealt(players: tuple[str, str, str] = ("p0", "p1", "p2")) -> g.GameState:
    return _run(
        g.INITIAL_STATE,
        g.CreateGame(rules=CLOCKED),
        *(g.TakeSeat(seat=s, player=p) for s, p in enumerate(players)),
        g.DealCards(hands=HANDS, talon=TALON),
    )


def _steward(duty: Any = "table", bots: BotPlayers | None = None) -> Steward:
    clock = ManualClock(start_ms=T0 + 3 * S)
    return Steward(None, None, duty=duty, bots=bots, clock=clock)  # type: ignore[arg-type]


def test_a_running_clock_is_due_at_the_deadline_of_the_seat_to_act() -> None:
    state = _dealt()
    assert isinstance(state, g.Pulka)
    assert _steward()._due(state) == tbl.deadline(CLOCKED, state.table, 1) == T0 + 10 * S


def test_a_seat_played_for_is_due_now_by_the_stewards_clock() -> None:
    late = T0 + 10 * S
    # Seat 1 times out (absent after one), the others pass: seat 1 is to act again, absent.
    state = _run(_dealt(), g.TimeOut(seat=1, move=Pass(seat=1)), at=late)
    state = _run(state, Pass(seat=2), Pass(seat=0), at=late)
    assert isinstance(state, g.Pulka)
    assert 1 in g.to_act(state) and tbl.played_for(state.table, 1) is not None
    steward = _steward()
    assert steward._due(state) == steward.clock.now_ms()


def test_a_bot_to_act_is_due_now_for_the_bots_duty_and_a_human_never() -> None:
    bots = BotPlayers()
    bot = next(iter(bots.players.values()))
    with_bot = _dealt(("p0", bot.id, "p2"))
    steward = _steward("bots", bots)
    assert steward._due(with_bot) == steward.clock.now_ms()
    assert steward._due(_dealt()) is None


def test_no_game_or_a_finished_one_is_never_due() -> None:
    assert _steward()._due(g.INITIAL_STATE) is None
