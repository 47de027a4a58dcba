"""The ``random`` level: a uniform choice among the legal actions (for tests and as the floor of
the strength ladder)."""

from __future__ import annotations

import random

from bots.budget import Budget
from bots.view import BotView
from domain.deal.messages import SeatCommand


def decide(view: BotView, rng: random.Random, budget: Budget | float = 0.0) -> SeatCommand:
    """Any legal action, each equally likely."""
    return rng.choice(view.legal)
