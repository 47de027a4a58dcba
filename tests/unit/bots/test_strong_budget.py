"""The strong bot's budget (docs/bots.md §6): a count of layouts per kind of decision, or of
solver nodes, gives the same move, and the same search, from the same view and seed, however
fast the machine or its clock; the default counts are reached (the compiled solver affords
them); the wall-clock cap still ends a search that would outlast it."""

from __future__ import annotations

import itertools
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from bot_helpers import Game

from bots import LEVELS, basic, strong
from bots.budget import DEFAULT_LAYOUTS, Budget, Layouts, as_budget
from bots.view import BotView, seat_input
from domain.deal.messages import (
    CallWhist,
    ChoosePlay,
    Declare,
    Discard,
    MakeBid,
    Pass,
    PlayCard,
    TakeTalon,
)

NODES = Budget.of_nodes(12_000)
LAYOUTS = Budget.of_layouts()
"""The default layout counts with no wall-clock cap: what the service plays by, less the net."""
SEED = 2
HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]


def a_close_bid() -> BotView:
    """The first bid of a hand the rules of thumb pass and the solver bids on: a decision that
    turns on which layouts of the talon and the other hands the search sees."""
    game = Game(first_dealer=0)
    game.deal(
        "8C 7H KC 9C JH 8S QS TS KD QD", "QC JC AD 7D TH KS AS QH 7C 8H",
        "7S 9H 9S KH JD AH TD TC JS 8D", talon="9D AC",
    )  # fmt: skip
    return seat_input(game.events, 1)


def an_opening_lead() -> BotView:
    """The declarer's opening lead against two closed hands: twenty unseen cards, layouts drawn
    at random."""
    game = Game()
    game.deal(
        "AS KS QS JS 8S 7S AC 7C AD 7D", "TS 9S KC QC JC KD QD JD 7H 8H",
        "TC 9C 8C TD 9D AH KH QH JH TH", talon="9H 8D",
    )  # fmt: skip
    game.do(
        MakeBid(seat=0, bid="6S"), Pass(seat=1), Pass(seat=2), TakeTalon(seat=0),
        Discard(seat=0, cards=("9H", "8D")), Declare(seat=0, contract="6S"),
        CallWhist(seat=1, choice="whist"), CallWhist(seat=2, choice="pass"),
        ChoosePlay(seat=1, open=False),
    )  # fmt: skip
    return seat_input(game.events, 0)


def an_all_pass_lead() -> BotView:
    """The first lead of an all-pass: judged by play-outs, whose tricks count in the budget."""
    game = Game()
    game.deal(
        "AS KS 9S 8C 7C AD QD 8D 7H 8H", "QS JS TS KC QC JC KD JD 9H TH",
        "8S 7S AC TC 9C TD 9D AH KH QH", talon="JH 7D",
    )  # fmt: skip
    game.do(Pass(seat=0), Pass(seat=1), Pass(seat=2))
    return seat_input(game.events, 0)


def a_discard() -> BotView:
    """The declarer's discard, twelve cards in hand: candidate discards over layouts of the
    other hands."""
    game = Game()
    game.deal(
        "AS KS QS JS 8S 7S AC 7C AD 7D", "TS 9S KC QC JC KD QD JD 7H 8H",
        "TC 9C 8C TD 9D AH KH QH JH TH", talon="9H 8D",
    )  # fmt: skip
    game.do(MakeBid(seat=0, bid="6S"), Pass(seat=1), Pass(seat=2), TakeTalon(seat=0))
    return seat_input(game.events, 0)


def a_whist_call() -> BotView:
    """A defender's whist against 6♠: layouts of the declarer's and the partner's hands."""
    game = Game()
    game.deal(
        "AS KS QS JS 8S 7S AC 7C AD 7D", "TS 9S KC QC JC KD QD JD 7H 8H",
        "TC 9C 8C TD 9D AH KH QH JH TH", talon="9H 8D",
    )  # fmt: skip
    game.do(
        MakeBid(seat=0, bid="6S"), Pass(seat=1), Pass(seat=2), TakeTalon(seat=0),
        Discard(seat=0, cards=("9H", "8D")), Declare(seat=0, contract="6S"),
    )  # fmt: skip
    return seat_input(game.events, 1)


POSITIONS: dict[str, Callable[[], BotView]] = {
    "bid": a_close_bid,
    "contract lead": an_opening_lead,
    "all-pass lead": an_all_pass_lead,
    "discard": a_discard,
    "whist": a_whist_call,
}
KINDS = {
    "bid": "bid", "contract lead": "play", "all-pass lead": "all_pass", "discard": "discard",
    "whist": "whist",
}  # fmt: skip


def slowed() -> Callable[[], float]:
    """A clock on which every reading finds a second gone: the slowest machine there is."""
    ticks = itertools.count()
    return lambda: float(next(ticks))


def search(
    view: BotView, budget: Budget | float, now: Callable[[], float] = time.perf_counter
) -> tuple[object, ...]:
    """A decision from seed `SEED`, and what its search did."""
    action, clock = strong.decide_with_stats(view, random.Random(SEED), budget, now=now)
    return action, clock.samples, clock.nodes, clock.stopped_by


@pytest.mark.parametrize("where", sorted(POSITIONS))
def test_the_default_layout_counts_are_reached_and_end_the_search(where: str) -> None:
    """At the opening lead (trick 1) 40 layouts, each valuing every card; the discard far above
    the minimum under which the rules of thumb would decide."""
    view = POSITIONS[where]()
    action, clock = strong.decide_with_stats(view, random.Random(SEED), LAYOUTS)
    assert action in view.legal
    want = DEFAULT_LAYOUTS.of(KINDS[where])  # type: ignore[arg-type]
    assert clock.kind == KINDS[where]
    assert (clock.samples, clock.stopped_by) == (want, "layouts")
    assert want >= 30 and want >= strong.MIN_LAYOUTS


@pytest.mark.parametrize("where", sorted(POSITIONS))
def test_a_layout_budget_gives_the_same_move_and_search_on_every_run_and_clock(where: str) -> None:
    view = POSITIONS[where]()
    small = Budget.of_layouts(DEFAULT_LAYOUTS.scaled(0.5))
    first = search(view, small)
    assert first[3] == "layouts"
    assert [search(view, small) for _ in range(2)] == [first] * 2
    assert search(view, small, now=slowed()) == first


def test_the_layout_counts_are_per_kind_and_a_budget_reads_back_from_its_description() -> None:
    few = Layouts(bid=7, discard=8, declare=9, whist=10, play=11, all_pass=12)
    _, clock = strong.decide_with_stats(a_discard(), random.Random(SEED), Budget.of_layouts(few))
    assert (clock.samples, clock.stopped_by) == (8, "layouts")
    for budget in (Budget(), NODES, LAYOUTS, Budget(seconds=0.5, nodes=900, layouts=few)):
        assert Budget.parse(budget.describe()) == budget
    assert Budget().describe() == (
        "layouts=bid:40,discard:40,declare:40,whist:60,play:40,all_pass:60 seconds=1.5"
    )
    with pytest.raises(ValueError):
        Layouts(play=0)
    with pytest.raises(ValueError):
        Budget.parse("minutes=3")


@pytest.mark.parametrize("where", sorted(POSITIONS))
def test_a_node_budget_gives_the_same_move_and_search_on_every_run(where: str) -> None:
    view = POSITIONS[where]()
    first = search(view, NODES)
    action, samples, nodes, stopped_by = first
    assert isinstance(action, PlayCard | MakeBid | Pass | Discard | CallWhist)
    assert stopped_by == "nodes" and samples > 1
    assert NODES.nodes is not None and NODES.nodes <= nodes < NODES.nodes + 200
    assert [search(view, NODES) for _ in range(3)] == [first] * 3


@pytest.mark.parametrize("where", sorted(POSITIONS))
def test_a_node_budget_gives_the_same_move_under_a_slowed_clock(where: str) -> None:
    view = POSITIONS[where]()
    assert search(view, NODES, now=slowed()) == search(view, NODES)


def test_a_budget_in_seconds_depends_on_the_clock_and_a_node_budget_does_not() -> None:
    view = a_close_bid()
    by_nodes = search(view, NODES)
    assert by_nodes[0] == MakeBid(seat=1, bid="6S")
    action, samples, _, stopped_by = search(view, 1.5, now=slowed())
    # On the slow clock the time runs out after a layout: too few to trust, so the rules of
    # thumb decide, and they pass.
    assert stopped_by == "seconds" and samples < strong.MIN_LAYOUTS
    assert action == basic.decide(view, random.Random(SEED)) == Pass(seat=1)


def test_the_wall_clock_cap_still_ends_a_search_with_nodes_left() -> None:
    view = an_opening_lead()
    budget = Budget(seconds=1.5, nodes=10**9)
    action, samples, nodes, stopped_by = search(view, budget, now=slowed())
    assert stopped_by == "seconds"
    assert samples <= 2 and nodes < 10**9
    assert action in view.legal


def test_the_guarded_level_takes_a_budget_and_a_plain_number_is_seconds() -> None:
    view = an_opening_lead()
    assert LEVELS["strong"](view, random.Random(SEED), NODES) == search(view, NODES)[0]
    assert as_budget(0.25) == Budget(seconds=0.25, layouts=None)
    with pytest.raises(ValueError):
        Budget(seconds=None, nodes=None, layouts=None)
    with pytest.raises(ValueError):
        Budget.of_nodes(-1)


_IN_ANOTHER_PROCESS = """
import json, random, sys
import test_strong_budget as t
from bots.budget import Budget
budget = Budget.parse(sys.argv[2])
print(json.dumps([repr(x) for x in t.search(t.POSITIONS[sys.argv[1]](), budget)]))
"""


@pytest.mark.parametrize(
    ("where", "budget"),
    [("bid", NODES), ("contract lead", NODES), ("bid", LAYOUTS), ("discard", LAYOUTS),
     ("contract lead", LAYOUTS)],
)  # fmt: skip
def test_a_budget_of_counts_gives_the_same_move_in_processes_with_other_hash_seeds(
    where: str, budget: Budget
) -> None:
    """String hashing differs between processes; nothing in the search may depend on it."""
    here = [repr(x) for x in search(POSITIONS[where](), budget)]
    path = os.pathsep.join([str(HERE), str(ROOT), os.environ.get("PYTHONPATH", "")])
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": path}
        out = subprocess.run(
            [sys.executable, "-c", _IN_ANOTHER_PROCESS, where, budget.describe()],
            env=env, cwd=HERE, capture_output=True, text=True, check=True,
        )  # fmt: skip
        assert json.loads(out.stdout) == here, hash_seed


def test_the_all_pass_search_counts_the_tricks_it_plays_out() -> None:
    view = an_all_pass_lead()
    plays = [a for a in view.legal if isinstance(a, PlayCard)]
    _, clock = strong.decide_with_stats(view, random.Random(SEED), Budget.of_nodes(2_000))
    # each layout plays every card's deal out to its end: ten tricks per card
    assert clock.nodes == clock.samples * len(plays) * 10
    assert clock.stopped_by == "nodes"
