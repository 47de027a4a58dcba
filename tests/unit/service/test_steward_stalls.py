"""No table can stall: a table where the steward fails is that table's trouble alone, and after
``failures_to_arbiter`` failed turns in a row it is marked for an arbiter, counted and logged
once, and leased no more. A fake game service over the pure fold; no database, no sleeps."""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import Any

import msgspec
import pytest
from prometheus_client import REGISTRY

from domain import game as g
from domain.deal.messages import Claim, Pass
from domain.deal.state import Playing
from domain.errors import PreferansError
from domain.rules import rules_for
from service.platform.clock import ManualClock
from service.workers.steward import NoMoveForSeat, Steward, simplest

S = 1000
T0 = 1_000 * S
HANDS = (
    tuple("AS KS QS JS TS 9S AC KC AD KD".split()),
    tuple("8S 7S QC JC TC 9C QD JD TD 9D".split()),
    tuple("8C 7C 8D 7D AH KH QH JH TH 9H".split()),
)
TALON = ("8H", "7H")
RULES = rules_for(
    "sochi", {"table": {"move_seconds": 10, "timeouts_to_absent": 1, "stand_in": "simplest"}}
)


def _run(state: g.GameState, *commands: Any, at: int = T0) -> g.GameState:
    for command in commands:
        state = g.fold(g.decide(msgspec.structs.replace(command, at=at), state), state)
    return state


def absent_seat_to_act() -> g.Pulka:
    """Seat 1 timed out (absent after one); all passed, and he leads the all-pass: the steward
    plays for him."""
    late = T0 + 10 * S
    state = _run(
        g.INITIAL_STATE,
        g.CreateGame(rules=RULES),
        *(g.TakeSeat(seat=s, player=f"p{s}") for s in range(3)),
        g.DealCards(hands=HANDS, talon=TALON),
    )
    state = _run(state, g.TimeOut(seat=1, move=Pass(seat=1)), Pass(seat=2), Pass(seat=0), at=late)
    assert isinstance(state, g.Pulka) and 1 in g.to_act(state)
    return state


def no_move_to_act() -> g.Pulka:
    """A game whose seat to act, absent, holds no card of the hand he plays: a fold the rules
    never produce (a log they could not have written), where the stand-in once raised
    IndexError, failing the whole round, every few seconds for good."""
    state = absent_seat_to_act()
    deal = state.deal
    assert isinstance(deal, Playing)
    hands = tuple(() if s == deal.turn else h for s, h in enumerate(deal.hands))
    forged = msgspec.structs.replace(state, deal=msgspec.structs.replace(deal, hands=hands))
    (seat,) = g.to_act(forged)
    assert all(isinstance(a, Claim) for a in g.legal_actions(forged, seat))  # only claims
    return forged


class FakeGames:
    """The two calls of `GameService` the table's duty makes, over states held in memory."""

    def __init__(self, states: dict[uuid.UUID, g.GameState]) -> None:
        self.states = {game_id: (1, state) for game_id, state in states.items()}
        self.acted: list[uuid.UUID] = []

    async def state(self, game_id: uuid.UUID) -> tuple[int, g.GameState]:
        return self.states[game_id]

    async def steward(self, game_id: uuid.UUID, move: Any, version: int, at: int) -> None:
        current, state = self.states[game_id]
        assert version == current
        events = g.decide(msgspec.structs.replace(move, at=at), state)
        self.states[game_id] = (current + len(events), g.fold(events, state))
        self.acted.append(game_id)


class FakePool:
    def __init__(self) -> None:
        self.executed: list[tuple[str, tuple[Any, ...]]] = []

    async def execute(self, sql: str, *args: Any) -> None:
        self.executed.append((sql, args))


def metric(name: str) -> float:
    return REGISTRY.get_sample_value(name, {"duty": "table"}) or 0.0


def steward_over(states: dict[uuid.UUID, g.GameState], **kwargs: Any) -> Steward:
    clock = ManualClock(start_ms=T0 + 12 * S)
    return Steward(FakeGames(states), FakePool(), clock=clock, **kwargs)  # type: ignore[arg-type]


def test_the_simplest_stand_in_says_there_is_no_move_instead_of_an_index_error() -> None:
    with pytest.raises(NoMoveForSeat):
        simplest([])


def test_a_failing_table_does_not_stop_the_others_in_the_same_round() -> None:
    stuck, fine = uuid.uuid4(), uuid.uuid4()
    steward = steward_over({stuck: no_move_to_act(), fine: absent_seat_to_act()})

    async def one_round() -> None:
        await asyncio.gather(steward._serve(stuck), steward._serve(fine))

    asyncio.run(one_round())  # raised IndexError out of the round before
    assert steward.games.acted == [fine]  # type: ignore[attr-defined]
    assert steward._failures == {stuck: 1}


def test_a_table_failing_round_after_round_is_marked_for_an_arbiter_once(caplog) -> None:
    stuck = uuid.uuid4()
    steward = steward_over({stuck: no_move_to_act()}, failures_to_arbiter=3)
    marked, awaiting = (
        metric("preferans_tables_for_arbiter_total"),
        metric("preferans_tables_awaiting_arbiter"),
    )
    failures = metric("preferans_steward_table_failures_total")
    pool: FakePool = steward.pool  # type: ignore[assignment]
    with caplog.at_level(logging.INFO, logger="service.workers.steward"):
        for _ in range(2):
            asyncio.run(steward._serve(stuck))
        assert stuck not in steward.for_arbiter
        asyncio.run(steward._serve(stuck))
        assert steward.for_arbiter == {stuck: 1}
        # its due time is cleared (at the version it stalled at): no steward leases it again
        assert pool.executed[-1] == (steward._sql.clear, (stuck, 1))
        for _ in range(3):  # leased anyway (another process's old lease): not counted twice
            asyncio.run(steward._serve(stuck))
    assert metric("preferans_steward_table_failures_total") - failures == 6
    assert metric("preferans_tables_for_arbiter_total") - marked == 1
    assert metric("preferans_tables_awaiting_arbiter") - awaiting == 1
    logged = [r for r in caplog.records if "marked for an arbiter" in r.getMessage()]
    assert len(logged) == 1 and logged[0].levelno == logging.ERROR


def test_a_table_that_moves_again_is_no_longer_for_an_arbiter() -> None:
    game_id = uuid.uuid4()
    steward = steward_over({game_id: no_move_to_act()}, failures_to_arbiter=1)
    awaiting = metric("preferans_tables_awaiting_arbiter")
    asyncio.run(steward._serve(game_id))
    assert game_id in steward.for_arbiter
    steward.games.states[game_id] = (9, absent_seat_to_act())  # type: ignore[attr-defined]
    asyncio.run(steward._serve(game_id))
    assert game_id not in steward.for_arbiter
    assert metric("preferans_tables_awaiting_arbiter") == awaiting


def test_a_stand_in_move_the_rules_refuse_counts_against_the_table() -> None:
    class Refusing(FakeGames):
        async def steward(self, game_id: uuid.UUID, move: Any, version: int, at: int) -> None:
            raise PreferansError("refused", code="illegal.test")

    game_id = uuid.uuid4()
    steward = steward_over({game_id: absent_seat_to_act()}, failures_to_arbiter=2)
    steward.games = Refusing({game_id: absent_seat_to_act()})  # type: ignore[assignment]
    asyncio.run(steward._serve(game_id))
    asyncio.run(steward._serve(game_id))
    assert game_id in steward.for_arbiter


def test_a_database_that_fails_fails_the_round_and_counts_against_no_table() -> None:
    class Down(FakeGames):
        async def state(self, game_id: uuid.UUID) -> tuple[int, g.GameState]:
            raise ConnectionResetError("the database went away")

    game_id = uuid.uuid4()
    steward = steward_over({}, failures_to_arbiter=1)
    steward.games = Down({})  # type: ignore[assignment]
    with pytest.raises(ConnectionResetError):
        asyncio.run(steward._serve(game_id))
    assert steward._failures == {} and steward.for_arbiter == {}
