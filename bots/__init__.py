"""Computer players: strategies over one seat's view, pure and I/O-free.

    view        BotView (a strategy's only input), seat_input, SeatFeed
    knowledge   read: the facts of the deal as the seat knows them
    sampling    layouts of the unseen cards consistent with them
    evaluate    hand evaluation by rules of thumb
    value       deal_results: a deal's zero-sum worth to each seat, from the preset's scoring
    random_bot  ``random``: uniform over the legal actions
    basic       ``basic``: rules of thumb for every decision
    budget      Budget: what a decision may spend, solver nodes and wall-clock seconds
    strong      ``strong``: sampled layouts weighed by the auction and play, decided by the
                double-dummy solver within a budget
    learned     the learned evaluators: small networks shipped as package data (numpy)
    expert      ``expert``: learned auction, discard and whisting, strong card play at twice
                the layouts
    inference   the weight of a layout given the auction and the whisting
    rollout     fast all-pass play-outs with every hand known
    table       Table: a pulka played by one strategy per seat (harnesses, benchmarks)
    oracle      the ``cheater``: basic's decisions, card play double-dummy with every hand
                seen; the duplicate matches' ceiling, never seated by the service

A strategy is ``decide(view, rng, budget) -> SeatCommand`` and always returns one of
``view.legal``. `LEVELS` names them; each is wrapped so that an action of a kind it does not
know, or a bug, still yields a legal default rather than an exception.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import msgspec

from bots import basic, claims, expert, random_bot, strong
from bots.budget import Budget
from bots.common import default_action
from bots.view import BotView, SeatFeed, seat_input
from domain.deal.messages import AnswerClaim, Claim, SeatCommand

Strategy = Callable[[BotView, random.Random, Budget | float], SeatCommand]
"""``(view, rng, budget)``: the budget a `Budget` or plain seconds; only ``strong`` spends it."""


def guarded(strategy: Strategy) -> Strategy:
    """``strategy``, returning a legal default if it fails or answers with something illegal.
    Claims are the table's, not the strategy's: a claim to answer is answered by
    `bots.claims.answer`, and the claims a seat may make are taken out of the view's legal
    actions before the strategy sees them."""

    def decide(view: BotView, rng: random.Random, budget: Budget | float = 1.5) -> SeatCommand:
        if any(isinstance(a, AnswerClaim) for a in view.legal):
            return claims.answer(view)
        moves = tuple(a for a in view.legal if not isinstance(a, Claim))
        if len(moves) < len(view.legal):
            view = msgspec.structs.replace(view, legal=moves)
        try:
            action = strategy(view, rng, budget)
        except Exception:
            return default_action(view.legal)
        return action if action in view.legal else default_action(view.legal)

    decide.__doc__ = strategy.__doc__
    return decide


LEVELS: dict[str, Strategy] = {
    "random": guarded(random_bot.decide),
    "basic": guarded(basic.decide),
    "strong": guarded(strong.decide),
    "expert": guarded(expert.decide),
}
"""The strategies by level, weakest first."""


def think(level: str, view: BotView, seed: int, budget: Budget | float) -> SeatCommand:
    """``level``'s decision from ``view`` with a generator seeded ``seed``: what a pool of
    worker processes runs for the bot worker (a module-level function, so it is sent to a
    worker by name, with nothing but the view, the seed and the budget)."""
    return LEVELS[level](view, random.Random(seed), budget)


__all__ = [
    "LEVELS", "BotView", "Budget", "SeatFeed", "Strategy", "guarded", "seat_input", "think",
]  # fmt: skip
