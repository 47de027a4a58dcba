"""A table of bots: play a pulka's deals with one strategy per seat, each seeing only its view.

The harness owns the game state; each seat has its own `SeatFeed`, fed every event as it
happens, and a strategy is asked for an action only when its seat is to act, with that seat's
`BotView`. Pure: the caller supplies the layouts and the random generators.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

from bots.budget import Budget
from bots.view import BotView, SeatFeed
from domain import game as g
from domain.cards import Seat
from domain.deal.messages import DealEnded, SeatCommand
from domain.outcome import DealOutcome
from domain.rules import Rules

Strategy = Callable[[BotView, random.Random, Budget | float], SeatCommand]


class Table:
    """A pulka with a strategy in every seat."""

    def __init__(self, rules: Rules, first_dealer: Seat = 0) -> None:
        self.rules = rules
        self.state: g.GameState = g.INITIAL_STATE
        self.events: list[g.Event] = []
        self.feeds = [SeatFeed(s) for s in range(rules.players)]
        self._do(g.CreateGame(rules=rules, first_dealer=first_dealer))
        for s in range(rules.players):
            self._do(g.TakeSeat(seat=s, player=f"bot-{s}"))

    def _do(self, command: g.Command) -> list[g.Event]:
        new = g.decide(command, self.state)
        for e in new:
            self.state = g.evolve(self.state, e)
            self.events.append(e)
            for feed in self.feeds:
                feed.add(e)
        return new

    def play_deal(
        self,
        cards: g.DealCards,
        strategies: Mapping[Seat, Strategy] | Sequence[Strategy],
        rng: random.Random,
        budget: Budget | float = 1.5,
        on_decision: Callable[[Seat, BotView, SeatCommand], None] | None = None,
    ) -> DealOutcome:
        """Deal ``cards`` and let the strategies play the deal out; its outcome."""
        self._do(cards)
        while True:
            seat = g.to_act(self.state)[0]  # two, while a claim waits: answered in turn
            view = self.feeds[seat].view()
            action = strategies[seat](view, rng, budget)
            if on_decision is not None:
                on_decision(seat, view, action)
            for e in self._do(action):
                if isinstance(e, DealEnded):
                    return e.outcome

    @property
    def next_dealer(self) -> Seat:
        assert isinstance(self.state, g.Pulka)
        return self.state.next_dealer
