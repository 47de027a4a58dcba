"""Given-helpers for the bot tests: a pulka driven through the game decider, its events kept."""

from __future__ import annotations

from domain import game as g
from domain.cards import parse_cards
from domain.rules import SOCHI, Rules


def cards(text: str) -> tuple[str, ...]:
    return parse_cards(text.split())


class Game:
    """A pulka whose events are kept, so any seat's `BotView` can be built from them."""

    def __init__(self, rules: Rules = SOCHI, first_dealer: int = 2) -> None:
        self.state: g.GameState = g.INITIAL_STATE
        self.events: list[g.Event] = []
        self.do(g.CreateGame(rules=rules, first_dealer=first_dealer))
        for s in range(rules.players):
            self.do(g.TakeSeat(seat=s, player=f"p{s}"))

    def do(self, *commands: g.Command) -> g.GameState:
        for command in commands:
            new = g.decide(command, self.state)
            self.events += new
            self.state = g.fold(new, self.state)
        return self.state

    def deal(self, *hands: str, talon: str) -> g.GameState:
        a, b = cards(talon)
        return self.do(g.DealCards(hands=tuple(cards(h) for h in hands), talon=(a, b)))
