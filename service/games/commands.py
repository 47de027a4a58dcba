"""What a player asks of a game, and the pure decider that answers it (`GAME_DECIDER`).

`decide_game` is `domain.game.decide` for a player's command, plus the deals that follow it.
For a game the database deals (``fairness`` 2, every game since migration 0018) those come in
a command of the service's own: `Deal`, with the due deal's cards ``api.due_deal`` gave once the
log showed the table waiting, and `Reveal`, with the secret ``api.game_secret`` gave once the
log held the end (`service.games.service.GameService` runs them right after the command that
led there). For a game of the first derivation, while `domain.game.needs_cards` says so, a
`DealCards` from the game's `DealSource` in the same append, and the command that ends the game
reveals its secret in the same append (`domain.game.SecretRevealed`). It is pure: the cards
and the secret are data, and the randomness of a legacy shuffle (``entropy``), the client seeds
and the time (``at``) come in with the command.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import msgspec

from domain import game
from domain.deal.messages import SeatCommand
from domain.errors import refuse
from domain.game import (
    INITIAL_STATE,
    CreateGame,
    GameState,
    NoGame,
    Pulka,
    PulkaClosed,
    RevealSecret,
    TakeSeat,
)
from domain.rules import Rules
from domain.table import PlayFor, TableCommands, TimeOut
from service.eventlog.handler import Decider
from service.exceptions import GameNotFound, NotSeated
from service.games.dealing import DealSource, DueDeal, due_cards


@dataclass(frozen=True, slots=True, kw_only=True)
class GameRequest:
    """A request to a game from ``player``: the command, with what deciding it may need from the
    world. (The game's own commands are `domain.game.GameCommand`; this wraps them.)"""

    player: str
    source: DealSource | None
    """Where its deals come from; None once the game is over (nothing is left to deal), or
    for a game that does not exist."""
    entropy: bytes
    """Fresh randomness for any shuffle this command causes
    (`service.games.dealing.ENTROPY_BYTES`)."""
    at: int | None = None
    """When the service received it, in milliseconds since the epoch."""
    token: bytes | None = None
    """The sha256 of the bearer token it came with: the write is refused if it was revoked
    (`service.games.lobby.lobby_effects`)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Create(GameRequest):
    """Create the game (and take ``take_seat`` at once, if given), with ``bots`` at their seats
    (``(seat or None for the first free one, the bot's player id)``)."""

    rules: Rules
    first_dealer: int = 0
    take_seat: int | None = None
    private: bool = False
    bots: tuple[tuple[int | None, str, str], ...] = ()
    """The service's bots to seat with the game: ``(seat or None, player id, client seed)``."""
    client_seed: str | None = None
    """The creator's client seed, if he takes a seat."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Join(GameRequest):
    """Take ``wanted``, or the first free seat, contributing ``client_seed``."""

    wanted: int | None = None
    client_seed: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Deal(GameRequest):
    """The service deals a table the database deals, once the log shows it waiting for its
    cards (the command that filled it, or ended a deal, is written): ``due``, the cards
    ``api.due_deal`` gave, fetched before this is decided. ``player`` names the service."""

    due: DueDeal


@dataclass(frozen=True, slots=True, kw_only=True)
class Reveal(GameRequest):
    """The service opens the commitment of a game the database dealt, once it is over: the
    ``secret`` (hex) from ``api.game_secret``. ``player`` names the service."""

    secret: str


CALLERS_SEAT: Final = 0
"""The seat a request's command is built with before the caller's seat is known: deciding it
puts the caller's own seat in its place (`Act`, `AtTable`)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Act(GameRequest):
    """A seat's command, built before it is decided; it is decided for the caller's own seat
    (never one he sent: its ``seat`` is replaced) at the service's time."""

    command: SeatCommand


@dataclass(frozen=True, slots=True, kw_only=True)
class AtTable(GameRequest):
    """The caller about his own seat: leave it, abandon the game, come back
    (`domain.table`); decided, as `Act`, for his own seat."""

    command: TableCommands


@dataclass(frozen=True, slots=True, kw_only=True)
class StewardAct(GameRequest):
    """The service acting at the table itself (`service.workers.steward`): a timeout, or a move
    for an absent or abandoned seat. ``player`` names the service."""

    command: TimeOut | PlayFor


def decide_game(command: GameRequest, state: GameState) -> list[game.Event]:
    """`domain.game.decide` for a player's command, plus the deals that follow it."""
    events: list[game.Event]
    match command:
        case Create():
            source = command.source
            assert source is not None, "a new game brings its deal source"
            create = CreateGame(
                rules=command.rules, first_dealer=command.first_dealer, at=command.at,
                dealing=source.dealing if source.secret or source.scheme == 2 else None,
                commitment=source.commitment, fixed_deals=len(source.layouts),
                fairness=source.scheme,
            )  # fmt: skip
            events = game.decide(create, state)
            if command.take_seat is not None:
                sit = TakeSeat(
                    seat=command.take_seat, player=command.player, at=command.at,
                    client_seed=command.client_seed,
                )  # fmt: skip
                events += game.decide(sit, game.fold(events, state))
            for seat, bot, seed in command.bots:
                seated = game.fold(events, state)
                assert isinstance(seated, Pulka)
                join = Join(wanted=seat, player=bot, source=command.source,
                            entropy=command.entropy, at=command.at, client_seed=seed)  # fmt: skip
                events += game.decide(_seat_for(join, seated), seated)
        case _ if isinstance(state, NoGame):
            raise GameNotFound("no game has this id")
        case Join():
            events = game.decide(_seat_for(command, state), state)
        case Act() | AtTable():
            seat = _seat_of(command.player, state)
            action = msgspec.structs.replace(command.command, seat=seat)
            if command.at is not None:  # the service's clock, never one the client sent
                action = msgspec.structs.replace(action, at=command.at)
            events = game.decide(action, state)
        case StewardAct():
            events = game.decide(msgspec.structs.replace(command.command, at=command.at), state)
        case Deal():
            events = []
        case Reveal():
            events = game.decide(RevealSecret(secret=command.secret), state)
        case _:
            raise TypeError(f"not a game command: {command!r}")
    return events + _deals(command, game.fold(events, state))


def _seat_of(player: str, state: Pulka) -> int:
    """The seat ``player`` acts for; `NotSeated`, or a refusal if he abandoned it."""
    seat = game.seat_of(state, player)
    if seat is None:
        if player in state.players:
            raise refuse("abandoned", "you abandoned this game: its seat is played for you")
        raise NotSeated("you have no seat at this game")
    return seat


def _seat_for(command: Join, state: Pulka) -> TakeSeat:
    seat = command.wanted
    if seat is None:
        if command.player in state.players:
            raise refuse("already_seated", "you already have a seat at this table")
        free = [s for s, p in enumerate(state.players) if p is None]
        if not free:
            raise refuse("table_full", "every seat at this table is taken")
        seat = free[0]
    return TakeSeat(
        seat=seat, player=command.player, at=command.at, client_seed=command.client_seed
    )


def _deals(command: GameRequest, state: GameState) -> list[game.Event]:
    """The deals that follow, or the secret once the game is over, of a game dealt here.

    A game the database deals (``fairness`` 2) is dealt only by a `Deal`, which brings the due
    deal's cards, and revealed by a `Reveal`: the database gives either only once its log shows
    the table waiting for them (the seeds all written, the deal before ended) or the game over,
    so the command that leads there leaves them to the service's next one."""
    events: list[game.Event] = []
    source = command.source
    while game.needs_cards(state):
        assert isinstance(state, Pulka)
        if state.fairness == 2:
            if not isinstance(command, Deal) or command.due.deal_no != state.deal_no + 1:
                break  # a `Deal` follows, once the log holds what led here
            cards = due_cards(command.due, state)
        else:
            assert source is not None, "a game still dealt has its deal source"
            cards = source.cards_for(state, command.entropy)
        dealt = game.decide(msgspec.structs.replace(cards, at=command.at), state)
        events += dealt
        state = game.fold(dealt, state)
    if (
        isinstance(state, PulkaClosed)
        and state.secret is None
        and state.dealing is not None
        and state.fairness == 1
    ):
        secret = source.secret if source is not None else None
        assert secret is not None, "a committed game's source has its secret"
        events += game.decide(RevealSecret(secret=secret.hex()), state)
    return events


GAME_DECIDER: Decider[GameRequest, GameState, game.Event] = Decider(
    initial_state=lambda: INITIAL_STATE, decide=decide_game, evolve=game.evolve
)
"""The games' decider, for `service.eventlog.handler.CommandHandler`."""
