"""A bot's input is its seat's view: built from the log, redacted, and plain data."""

from __future__ import annotations

import random

import msgspec
from bot_helpers import Game

from bots.view import BotView, SeatFeed, seat_input
from domain import game as g
from domain.deal.messages import DealStarted, MakeBid, Pass
from domain.rules import rules_for
from domain.simulation import play_random_pulka


def test_the_incremental_feed_and_the_builder_give_the_same_view() -> None:
    _, appends = play_random_pulka(rules_for("sochi"), random.Random(4), stop_after=60)
    events = [e for batch in appends for e in batch]
    for seat in range(3):
        feed = SeatFeed(seat)
        feed.extend(events)
        assert feed.view() == seat_input(events, seat)


def test_the_history_holds_only_the_seats_own_hand() -> None:
    game = Game()
    game.deal(
        "AS KS QS JS TS 9S AC KC AD KD", "8S 7S QC JC TC 9C QD JD TD 9D",
        "8C 7C 8D 7D AH KH QH JH TH 9H", talon="8H 7H",
    )  # fmt: skip
    view = seat_input(game.events, 1)
    (started,) = [e for e in view.history if isinstance(e, DealStarted)]
    assert started.hands[0] == () and started.hands[2] == () and started.talon == ()
    assert started.hands[1] == view.game.deal.hand
    assert view.legal == tuple(g.legal_actions(game.state, 1)) == ()
    first = seat_input(game.events, 0)
    assert MakeBid(seat=0, bid="6S") in first.legal and Pass(seat=0) in first.legal


def test_a_view_travels_as_json_and_comes_back_equal() -> None:
    _, appends = play_random_pulka(rules_for("leningrad", {"players": 4}), random.Random(9),
                                   stop_after=80)  # fmt: skip
    view = seat_input([e for batch in appends for e in batch], 2)
    assert msgspec.json.decode(msgspec.json.encode(view), type=BotView) == view
