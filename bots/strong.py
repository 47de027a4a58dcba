"""The ``strong`` level (placeholder until the sampler-driven version lands): basic play."""

from __future__ import annotations

import random

from bots import basic
from bots.view import BotView
from domain.deal.messages import SeatCommand


def decide(view: BotView, rng: random.Random, budget_s: float = 1.5) -> SeatCommand:
    return basic.decide(view, rng, budget_s)
