"""The bot worker's strong bots think in a pool of worker processes (docs/bots.md §7), so that
concurrent tables do not wait for each other on one interpreter: a move thought there is the
move thought here from the same seed, view and budget; a pool whose process died is started
again and the move still made; closing the steward stops its thinkers."""

from __future__ import annotations

import asyncio
import os
import random
import signal
from pathlib import Path

import pytest

from bots import LEVELS, think
from bots.budget import DEFAULT_LAYOUTS, Budget
from bots.view import BotView, seat_input
from domain import game as g
from domain.cards import parse_cards
from domain.deal.messages import CallWhist, ChoosePlay, Declare, Discard, MakeBid, Pass, TakeTalon
from domain.rules import SOCHI
from service.workers.steward import Steward

BUDGET = Budget(seconds=None, layouts=DEFAULT_LAYOUTS.scaled(0.25))
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def _the_packages_first_on_the_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """A spawned thinker imports with this process's ``sys.path``, where pytest may have put
    ``tests/unit`` (whose ``bots/`` and ``service/`` folders would pass for namespace packages
    there); as in a deployment, the real packages come first."""
    monkeypatch.syspath_prepend(str(ROOT))


def _views() -> list[BotView]:
    """An opening lead, a discard and a bid: three tables' decisions at once."""
    hands = (
        "AS KS QS JS 8S 7S AC 7C AD 7D", "TS 9S KC QC JC KD QD JD 7H 8H",
        "TC 9C 8C TD 9D AH KH QH JH TH",
    )  # fmt: skip
    events: list[g.Event] = []
    state: g.GameState = g.INITIAL_STATE
    views = []

    def do(*commands: g.Command) -> None:
        nonlocal state
        for c in commands:
            new = g.decide(c, state)
            events.extend(new)
            state = g.fold(new, state)

    do(g.CreateGame(rules=SOCHI, first_dealer=2), *(g.TakeSeat(seat=s, player=f"p{s}")
                                                   for s in range(3)))  # fmt: skip
    do(g.DealCards(hands=tuple(parse_cards(h.split()) for h in hands), talon=("9H", "8D")))
    views.append(seat_input(events, 0))  # the first bid
    do(MakeBid(seat=0, bid="6S"), Pass(seat=1), Pass(seat=2), TakeTalon(seat=0))
    views.append(seat_input(events, 0))  # the discard
    do(
        Discard(seat=0, cards=("9H", "8D")), Declare(seat=0, contract="6S"),
        CallWhist(seat=1, choice="whist"), CallWhist(seat=2, choice="pass"),
        ChoosePlay(seat=1, open=False),
    )  # fmt: skip
    views.append(seat_input(events, 0))  # the opening lead
    return views


def _steward(processes: int) -> Steward:
    return Steward(None, None, duty="bots", think_processes=processes)  # type: ignore[arg-type]


async def test_strong_moves_are_thought_in_worker_processes_as_they_are_here() -> None:
    views = _views()
    here = [LEVELS["strong"](v, random.Random(7 + i), BUDGET) for i, v in enumerate(views)]
    steward = _steward(2)
    try:
        moves = await asyncio.gather(
            *(steward._think("strong", v, 7 + i, BUDGET) for i, v in enumerate(views))
        )
        assert list(moves) == here
        pool = steward._thinkers
        assert pool is not None
        pids = {p.pid for p in pool._processes.values()}
        assert len(pids) == 2 and os.getpid() not in pids
    finally:
        steward.close()
    assert steward._thinkers is None


async def test_a_dead_thinker_does_not_lose_the_move() -> None:
    view = _views()[2]
    want = think("strong", view, 3, BUDGET)
    steward = _steward(1)
    try:
        assert await steward._think("strong", view, 3, BUDGET) == want
        pool = steward._thinkers
        assert pool is not None
        for p in list(pool._processes.values()):
            os.kill(p.pid, signal.SIGKILL)
        # the pool is broken: this move is thought in a thread, the next in a new pool
        assert await steward._think("strong", view, 3, BUDGET) == want
        assert await steward._think("strong", view, 3, BUDGET) == want
        assert steward._thinkers is not None and steward._thinkers is not pool
    finally:
        steward.close()


async def test_without_processes_the_strong_bot_thinks_in_a_thread() -> None:
    view = _views()[0]
    steward = _steward(0)
    assert await steward._think("strong", view, 5, BUDGET) == think("strong", view, 5, BUDGET)
    assert steward._thinkers is None
