"""Given-helpers for the pure tests of the games' decider and the lobby's effects: requests as
the games' service builds them, decided by `decide_game` and folded, no database."""

from __future__ import annotations

import random
from typing import Any

from domain import game as g
from domain.deal.messages import SeatCommand
from domain.rules import rules_for
from service.games.commands import Act, Create, GameRequest, Join, decide_game
from service.games.dealing import DealSource, Layout, new_source
from service.games.streams import game_stream
from service.platform.entropy import SeededEntropy

GAME_ID = "0190aaaa-0000-7000-8000-000000000001"
STREAM = game_stream(GAME_ID)
PLAYERS = ("anna", "boris", "vera")
AT = 1_700_000_000_000
HANDS = (
    tuple("AS KS QS JS TS 9S AC KC AD KD".split()),
    tuple("8S 7S QC JC TC 9C QD JD TD 9D".split()),
    tuple("8C 7C 8D 7D AH KH QH JH TH 9H".split()),
)
TALON = ("8H", "7H")
QUICK = rules_for("sochi", {"pool": {"target": 2, "max_deals": 1}})
"""A pulka over after one deal."""
CLOCKED = rules_for("sochi", {"table": {"move_seconds": 10, "timeouts_to_absent": 1}})
FIXED = DealSource(seats=3, layouts=(Layout(hands=HANDS, talon=TALON),))
"""Its first deal fixed; a legacy shuffle after it (no secret)."""


def committed() -> DealSource:
    """A source with a drawn secret, the same on every run."""
    return new_source(3, entropy=SeededEntropy("tests"))


def world(player: str, source: DealSource = FIXED, at: int = AT) -> dict[str, Any]:
    return {"player": player, "source": source, "entropy": b"\x01" * 32, "at": at}


def create(rules: Any = QUICK, source: DealSource = FIXED, **kw: Any) -> Create:
    return Create(rules=rules, take_seat=0, client_seed="anna's", **world("anna", source), **kw)


class Table:
    """A game decided request by request: its events and state after each."""

    def __init__(self) -> None:
        self.state: g.GameState = g.INITIAL_STATE
        self.before: g.GameState = self.state
        """The state before the last request."""
        self.events: list[g.Event] = []

    def run(self, request: GameRequest) -> list[g.Event]:
        new = decide_game(request, self.state)
        self.before = self.state
        self.state = g.fold(new, self.state)
        self.events += new
        return new

    def seated(self, rules: Any = QUICK, source: DealSource = FIXED) -> Table:
        """Created by anna at seat 0, joined by boris and vera: the first deal dealt."""
        self.run(create(rules, source))
        for player in PLAYERS[1:]:
            self.run(Join(client_seed=f"{player}'s", **world(player, source)))
        return self

    @property
    def pulka(self) -> g.Pulka:
        assert isinstance(self.state, g.Pulka)
        return self.state

    def act(self, player: str, command: SeatCommand, at: int = AT) -> list[g.Event]:
        return self.run(Act(command=command, **world(player, at=at)))

    def play_out(self, rng: random.Random, source: DealSource = FIXED) -> list[g.Event]:
        """Legal moves at random until the game is over; the last request's events."""
        last: list[g.Event] = []
        while not g.is_terminal(self.state):
            seat = g.to_act(self.pulka)[0]
            move = rng.choice(g.legal_actions(self.pulka, seat))
            player = self.pulka.players[seat]
            assert player is not None
            last = self.run(Act(command=move, **world(player, source)))
        return last
