"""What a bot is given: one seat's view of the game, and nothing else.

`BotView` is the only input of a strategy. It holds exactly what the seat's client gets: the
game view `domain.game.game_view` builds for that seat, the game's events as
`domain.game.redact` hands them to that seat's feed, and the seat's legal actions. A strategy
cannot reach the game state: it is never passed one, and nothing in the view points back to it.

`seat_input` builds the view from the full event log (a harness, the bot worker); `SeatFeed`
does the same incrementally, one event at a time, for callers that follow a game live.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from domain import game as g
from domain.cards import Seat
from domain.deal.messages import SeatCommand


class BotView(msgspec.Struct, frozen=True, kw_only=True):
    """One seat's picture of the game, as its client sees it."""

    seat: Seat
    game: g.GameView
    """``domain.game.game_view(state, seat)``: the sheet, the rules, the current deal as the
    seat may see it."""
    history: tuple[g.Event, ...]
    """Every event of the game so far, redacted for this seat (``domain.game.redact``)."""
    legal: tuple[SeatCommand, ...]
    """Exactly ``domain.game.legal_actions(state, seat)``: a strategy returns one of these."""


class SeatFeed:
    """A seat's redacted feed, built one event at a time; `view` gives the bot's input now.

    The folded state stays inside: `view` returns only what the seat may see.
    """

    def __init__(self, seat: Seat) -> None:
        self._seat = seat
        self._state: g.GameState = g.INITIAL_STATE
        self._history: list[g.Event] = []

    def add(self, event: g.Event) -> None:
        """Take in the next event of the log (unredacted: it is redacted here)."""
        self._history.append(g.redact(event, self._seat, self._state))
        self._state = g.evolve(self._state, event)

    def extend(self, events: Iterable[g.Event]) -> None:
        for event in events:
            self.add(event)

    def view(self) -> BotView:
        """The bot's input now. Raises ValueError before the game exists."""
        state = self._state
        if not isinstance(state, g.Pulka):
            raise ValueError("there is no game yet")
        return BotView(
            seat=self._seat,
            game=g.game_view(state, self._seat),
            history=tuple(self._history),
            legal=tuple(g.legal_actions(state, self._seat)),
        )


def seat_input(events: Iterable[g.Event], seat: Seat) -> BotView:
    """The view of ``seat`` after ``events`` (the game's full log, in order)."""
    feed = SeatFeed(seat)
    feed.extend(events)
    return feed.view()
