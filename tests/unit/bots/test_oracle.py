"""The cheater (`bots.oracle`), the duplicate matches' ceiling of card play: every card it plays
is a double-dummy best card of the whole position, and every other decision is the basic bot's."""

from __future__ import annotations

import random

from bots import LEVELS
from bots.oracle import cheater
from bots.table import Table
from bots.view import BotView
from domain import game as g
from domain.deal.messages import PlayCard, SeatCommand
from domain.deal.state import Playing
from domain.rules import rules_for
from domain.simulation import random_deal
from domain.solver import from_playing, solve


def _check_deal(index: int, kinds: set[str]) -> tuple[int, int]:
    """Deal ``index`` with the cheater in one seat and basic in the others, every decision of
    the cheater checked; (cards played, other decisions)."""
    rules = rules_for("sochi", {"players": 3})
    dealer = lone = index % 3
    deal = random_deal(random.Random(f"oracle:{index}"), 3, dealer)
    table = Table(rules, first_dealer=dealer)
    strategies = [cheater(table, s) if s == lone else LEVELS["basic"] for s in range(3)]
    counts = [0, 0]

    def check(seat: int, view: BotView, action: SeatCommand) -> None:
        if seat != lone:
            return
        state = table.state
        assert isinstance(state, g.Pulka)
        if not isinstance(action, PlayCard):
            # the basic bot's decision from the same view (basic ignores its generator)
            assert action == LEVELS["basic"](view, random.Random(0), 0.0)
            counts[1] += 1
            return
        playing = state.deal
        assert isinstance(playing, Playing)
        kinds.add(playing.kind)
        focus = seat if playing.kind == "raspasy" else playing.declarer
        values = solve(from_playing(playing, focus=focus), values=True).values
        legal = [a.card for a in view.legal if isinstance(a, PlayCard)]
        most = playing.kind != "raspasy" and (seat == focus) == (playing.kind != "miser")
        best = (max if most else min)(values[c] for c in legal)
        assert values[action.card] == best, (index, action.card, values)
        counts[0] += 1

    table.play_deal(deal, strategies, random.Random(index), 0.0, on_decision=check)
    return counts[0], counts[1]


def test_the_cheater_plays_a_double_dummy_best_card_and_decides_the_rest_as_basic() -> None:
    kinds: set[str] = set()
    cards = others = 0
    for index in range(12):
        played, decided = _check_deal(index, kinds)
        cards, others = cards + played, others + decided
    assert cards > 40 and others > 5
    assert "game" in kinds  # a contract at least; all-passes and misères as the deals fall
