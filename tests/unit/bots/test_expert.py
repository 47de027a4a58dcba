"""The expert level and its learned evaluators (docs/bots.md §11).

- The networks load from the package's own data (no download), give a probability for each
  trick count, and give the same numbers on every load.
- The expert bot's decisions are deterministic: the same view, seed and budget, the same move.
- It sees only its seat's view: two logs that differ only in where two cards the seat has not
  seen lie (swapped between two hidden places) give the seat the same view, and the expert the
  same decision, at every decision of played deals (auction, discard, whisting, card play).
"""

from __future__ import annotations

import importlib.resources
import random

import msgspec
import numpy as np
import pytest

from bots import LEVELS, basic, expert, learned
from bots.budget import DEFAULT_LAYOUTS, Budget
from bots.knowledge import read
from bots.table import Table
from bots.view import BotView, seat_input
from domain import game as g
from domain.cards import MISER, SUIT_OF
from domain.deal.messages import MakeBid, Pass, SeatCommand
from domain.rules import SOCHI, rules_for
from domain.simulation import random_deal
from domain.solver.bits import mask_of

BUDGET = Budget(seconds=None, layouts=DEFAULT_LAYOUTS.scaled(0.25))
"""A quarter of the default counts, no cap: reproducible, and quick."""


def test_the_models_load_from_the_package_data_and_give_the_same_probabilities() -> None:
    shipped = importlib.resources.files("bots") / "models" / "evaluators.npz"
    assert shipped.is_file()
    a, b = learned.load(), learned.load()
    assert a.declarer.size + a.whist.size < 20_000  # small: a few thousand numbers each
    hand = mask_of("AS KS QS JS TS 9S AC KC AD KD".split())
    x = learned.declarer_features(
        [hand] * 3, [learned.STRAIN_INDEX["S"], learned.STRAIN_INDEX["NT"],
                     learned.STRAIN_INDEX[MISER]], [0, 0, 0],
    )  # fmt: skip
    p = a.declarer.predict(x)
    assert p.shape == (3, learned.TRICKS)
    assert np.allclose(p.sum(axis=1), 1.0)
    assert np.array_equal(p, b.declarer.predict(x))
    tricks = p @ np.arange(learned.TRICKS)
    assert tricks[0] > 8.0  # six trumps from the top, two side aces: a spade game is sure
    assert tricks[2] > 2.0  # and a misère with it is hopeless
    w = learned.whist_features([hand], [1], [6], [0], [1], [0])
    q = a.whist.predict(w)
    assert q.shape == (1, learned.TRICKS) and np.isclose(q.sum(), 1.0)
    assert np.array_equal(q, b.whist.predict(w))


def test_suits_are_put_in_a_canonical_order_so_their_names_do_not_matter() -> None:
    spades = mask_of("AS KS QS 7S AC KC 8D 7D AH 9H".split())
    hearts = mask_of("AH KH QH 7H AC KC 8D 7D AS 9S".split())
    x = learned.declarer_features([spades, hearts], [0, 3], [1, 1])
    assert np.array_equal(x[0], x[1])


def _decisions(seed: int, players: int = 3) -> list[tuple[list[g.Event], int, int]]:
    """Every expert decision of one deal (expert in one seat, basic in the others): the log as
    it was, the seat and the seed the move was thought with."""
    rules = SOCHI if players == 3 else rules_for("sochi", {"players": 4})
    dealer = seed % players
    table = Table(rules, first_dealer=dealer)
    seeds = random.Random(seed)
    out: list[tuple[list[g.Event], int, int]] = []

    def think(view: BotView, _rng: random.Random, budget: Budget | float) -> SeatCommand:
        move_seed = seeds.getrandbits(32)
        out.append((list(table.events), view.seat, move_seed))
        return LEVELS["expert"](view, random.Random(move_seed), BUDGET)

    def other(view: BotView, rng: random.Random, budget: Budget | float) -> SeatCommand:
        return LEVELS["basic"](view, rng, budget)

    expert_seat = (dealer + 1) % players
    strategies = [think if s == expert_seat else other for s in range(players)]
    table.play_deal(random_deal(random.Random(seed), players, dealer), strategies,
                    random.Random(0), BUDGET)  # fmt: skip
    return out


def test_the_expert_thinks_the_same_move_again_from_the_same_view_and_seed() -> None:
    for seed in (1, 2):
        for events, seat, move_seed in _decisions(seed):
            view = seat_input(events, seat)
            first = LEVELS["expert"](view, random.Random(move_seed), BUDGET)
            again = LEVELS["expert"](seat_input(events, seat), random.Random(move_seed), BUDGET)
            assert first == again


_NOT_BID_LIKE = set("TJQKA")
"""Ranks whose cards cannot be mistaken for a bid in the log's JSON ("7S" is both)."""


def _swapped(events: list[g.Event], a: str, b: str) -> list[g.Event]:
    text = msgspec.json.encode(events).decode()
    text = text.replace(f'"{a}"', '"@@"').replace(f'"{b}"', f'"{a}"').replace('"@@"', f'"{b}"')
    return msgspec.json.decode(text.encode(), type=list[g.Event])


def _hidden_pair(events: list[g.Event], seat: int, view: BotView) -> tuple[str, str] | None:
    """Two cards of one suit the seat has not seen, in two different hidden places."""
    k = read(view)
    dealt = next(e for e in reversed(events) if isinstance(e, g.DealStarted))
    where = {c: s for s, hand in enumerate(dealt.hands) for c in hand}
    where.update({c: -1 for c in dealt.talon})
    unseen = [c for c in k.unseen if c[0] in _NOT_BID_LIKE]
    for i, x in enumerate(unseen):
        for y in unseen[i + 1 :]:
            if (
                SUIT_OF[x] == SUIT_OF[y]
                and where[x] != where[y]
                and seat not in (where[x], where[y])
            ):
                return x, y
    return None


def test_two_logs_the_seat_cannot_tell_apart_give_the_same_expert_decision() -> None:
    compared = 0
    phases: set[str] = set()
    for seed in (3, 4, 5, 6):
        for events, seat, move_seed in _decisions(seed):
            view = seat_input(events, seat)
            pair = _hidden_pair(events, seat, view)
            if pair is None:
                continue
            other = _swapped(events, *pair)
            assert other != events
            other_view = seat_input(other, seat)
            assert msgspec.to_builtins(other_view) == msgspec.to_builtins(view)
            mine = LEVELS["expert"](view, random.Random(move_seed), BUDGET)
            theirs = LEVELS["expert"](other_view, random.Random(move_seed), BUDGET)
            assert mine == theirs, (seed, pair, view.game.deal.phase)
            compared += 1
            phases.add(view.game.deal.phase)
    assert compared >= 20
    assert {"bidding", "playing"} <= phases


def test_the_expert_wraps_the_strong_card_play_at_twice_the_layouts() -> None:
    events, seat, move_seed = next(
        d
        for d in _decisions(7)
        if seat_input(d[0], d[1]).game.deal.phase == "playing"
        and len(seat_input(d[0], d[1]).legal) > 1
    )
    view = seat_input(events, seat)
    _, clock = expert.decide_with_stats(view, random.Random(move_seed), BUDGET)
    assert clock.layout_budget == BUDGET.layouts.of(clock.kind) * expert.PLAY_FACTOR  # type: ignore[union-attr,arg-type]
    assert basic.decide(view, random.Random(0)) in view.legal


def test_the_auction_bids_exactly_when_a_contract_is_worth_more_than_passing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`expert.PASS_WORTH` decides the auction: worth more than any contract, the expert passes
    at every auction decision of its own; worth less than any, it bids the next step at each."""
    auction = [
        (view, move_seed)
        for seed in (1, 2, 3)
        for events, seat, move_seed in _decisions(seed)
        if (view := seat_input(events, seat)).legal
        and read(view).deal.phase == "bidding"
        and any(isinstance(a, Pass) and not a.dark for a in view.legal)
        and any(isinstance(a, MakeBid) and not a.bid.endswith("WT") for a in view.legal)
    ]
    assert auction  # the deals reach the expert's own auction decisions
    for worth, kind in ((1e9, Pass), (-1e9, MakeBid)):
        monkeypatch.setattr(expert, "PASS_WORTH", worth)
        moves = [LEVELS["expert"](view, random.Random(s), BUDGET) for view, s in auction]
        assert all(isinstance(m, kind) for m in moves), (worth, moves)
