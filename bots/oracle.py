"""The ceiling of the duplicate matches: a player who sees every card (docs/bots.md §11.6).

The ``cheater`` takes the basic bot's auction, discard, contract and whisting (`bots.basic`),
and plays every card double-dummy with every hand in view, the real discard included: as
declarer the card that leaves him most tricks (fewest in a misère), as a defender the one that
leaves the declarer fewest (most against a misère), in an all-pass the one that leaves him
fewest against the other two. What the bot levels gain over the basic one is compared with
what this card play alone gains (bench/duplicate_match.py).

Benches only: it reads the whole game state, which no seat may see, so `bots.LEVELS` does not
list it and the service never seats it.
"""

from __future__ import annotations

import random

from bots import LEVELS, Budget, Strategy, guarded
from bots.table import Table
from bots.view import BotView
from domain import game as g
from domain.cards import Seat
from domain.deal.messages import PlayCard, SeatCommand
from domain.deal.state import Playing
from domain.solver import from_playing, solve

CHEATER = "cheater"
"""The cheater's name among the levels of a duplicate match."""


def cheater_card(state: g.Pulka, seat: Seat) -> PlayCard | None:
    """The cheater's card at ``seat`` when it is to play one; None at any other decision."""
    deal = state.deal
    if not isinstance(deal, Playing) or deal.claim is not None:
        return None
    plays = [a for a in g.legal_actions(state, seat) if isinstance(a, PlayCard)]
    if len(plays) < 2:
        return plays[0] if plays else None
    if deal.kind == "raspasy":
        focus, most = seat, False
    else:
        assert deal.declarer is not None
        focus = deal.declarer
        most = (seat == focus) == (deal.kind != "miser")
    values = solve(from_playing(deal, focus=focus), values=True).values
    pick = max if most else min
    return pick(plays, key=lambda p: values[p.card])  # the first of the best: repeatable


def cheater(table: Table, seat: Seat) -> Strategy:
    """The cheater in ``seat`` of ``table``, reading its state (`cheater_card`), else basic."""
    basic = LEVELS["basic"]

    def decide(view: BotView, rng: random.Random, budget: Budget | float = 0.0) -> SeatCommand:
        assert isinstance(table.state, g.Pulka)
        card = cheater_card(table.state, seat)
        return card if card is not None else basic(view, rng, budget)

    return guarded(decide)
