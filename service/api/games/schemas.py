"""A new game (with its rules overrides), a game's outcome, snapshot and event pages."""

from __future__ import annotations

import typing
import uuid
from typing import Annotated, Any, Literal

import msgspec

from domain import game, rules
from service.api.actions.schemas import Action
from service.api.text import CardText, SeatNumber
from service.games.lobby import GameSummary, SeatSummary
from service.games.service import SeenEvent

ClientSeed = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=128,
        pattern=r"^[^\x00-\x1f\x7f]+$",
        description="Any text you choose: the decks are derived from the game's secret and "
        "every seat's client seed, so the service cannot choose them alone.",
    ),
]


def _overrides_of(options: type[msgspec.Struct]) -> type[msgspec.Struct]:
    """A struct of the same fields as ``options``, each optional (absent: the preset's value),
    nested sections likewise, unknown names refused: the typed shape of a rules override."""
    hints = typing.get_type_hints(options, include_extras=True)
    fields: list[tuple[str, Any, Any]] = []
    for name in options.__struct_fields__:
        hint = hints[name]
        if isinstance(hint, type) and issubclass(hint, msgspec.Struct):
            hint = _overrides_of(hint)
        fields.append((name, hint | msgspec.UnsetType, msgspec.UNSET))
    name = options.__name__.removesuffix("Rules") or "Rules"
    return msgspec.defstruct(
        f"{name}Overrides",
        fields,
        kw_only=True,
        frozen=True,
        forbid_unknown_fields=True,
        module=__name__,
    )


RulesOverrides = _overrides_of(rules.Rules)
"""Any options of `domain.rules.Rules` over a preset's, nested as there (docs/conventions.md):
``{"pool": {"target": 20}}``. Only the cross-option checks (`Rules.__post_init__`) come after
decoding (422 ``invalid-rules``)."""


class LayoutIn(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One deal's cards: three hands of ten (in seat order, the sitting-out dealer skipped at a
    table of four, or four hands with his empty) and the talon's two cards."""

    hands: Annotated[
        list[Annotated[list[CardText], msgspec.Meta(max_length=10)]],
        msgspec.Meta(min_length=3, max_length=4),
    ]
    talon: Annotated[list[CardText], msgspec.Meta(min_length=2, max_length=2)]


class BotSeat(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One of the service's computer players for a seat."""

    level: Literal["random", "basic", "strong", "expert"] = "basic"
    seat: SeatNumber | None = None
    """The seat to give the bot; the first free one if omitted."""


class NewGame(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A new game (пулька). The creator takes a seat only if he names one."""

    preset: Literal["sochi", "leningrad", "rostov"] = "sochi"
    overrides: RulesOverrides | None = None  # type: ignore[valid-type]
    """Rules options over the preset's, nested as in docs/conventions.md:
    ``{"pool": {"target": 20}}``."""
    seats: Literal[3, 4] = 3
    first_dealer: SeatNumber = 0
    layouts: Annotated[list[LayoutIn], msgspec.Meta(max_length=100)] | None = None
    """Fixed cards for the first deals (tournaments, tests); later deals are shuffled."""
    seed: (
        Annotated[str, msgspec.Meta(min_length=1, max_length=128, pattern=r"^[^\x00-\x1f\x7f]+$")]
        | None
    ) = None
    """Derive every deck from this seed alone (docs/fairness.md): the same seed deals the same
    cards anywhere. Whoever knows it knows every hand, so the game is shown as ``seeded``,
    never rated, and the seed is revealed only when the game is over. Without a seed the
    service draws a secret, commits to it, and mixes in every player's client seed."""
    seat: SeatNumber | None = None
    """Take this seat at once."""
    client_seed: ClientSeed | None = None
    """The creator's client seed, if he takes a seat (one is drawn for him if omitted)."""
    private: bool = False
    """A private table: never listed in the lobby, joined only with an invite
    (``POST /v1/games/{id}/invites``)."""
    bots: Annotated[list[BotSeat], msgspec.Meta(max_length=4)] | None = None
    """The service's computer players to seat at once, each at its ``seat`` (or the first free
    one) with its ``level``: with the creator's seat, a table full at once deals at once
    ("play now")."""


class JoinGame(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    seat: SeatNumber | None = None
    """The seat to take; the first free one if omitted."""
    client_seed: ClientSeed | None = None
    """Your contribution to the decks (docs/fairness.md), recorded in your `player_seated`
    event for all to see; one is drawn for you if omitted."""


class GamePage(msgspec.Struct, frozen=True, kw_only=True):
    items: list[GameSummary]
    next_cursor: str | None
    """Pass as ``cursor`` for the next page; null on the last page."""


class GameOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """A command's result: the caller's redacted events, and the game as he now sees it."""

    id: uuid.UUID
    version: int
    """The game's version after the command (also the ETag)."""
    seat: int | None
    events: list[SeenEvent]
    view: game.GameView
    legal_actions: list[Action]
    seated: tuple[SeatSummary, ...] = ()
    """Each seat's player with his name and kind (``bot`` and ``program`` are bots)."""
    server_time: int = 0
    """The server's clock (ms since the epoch) when this was written: deadlines in ``view``
    are on this clock."""
    head: str | None = None
    """The hash (hex) of the game's last event after the command: the head of its hash chain
    (docs/fairness.md), to pin and compare with a later export or proof."""


class GameSnapshot(msgspec.Struct, frozen=True, kw_only=True):
    """The game as the caller sees it: his seat's view, or a spectator's."""

    id: uuid.UUID
    version: int
    seat: int | None
    """The caller's seat; null for a spectator (no token, or not seated)."""
    view: game.GameView
    legal_actions: list[Action]
    """Everything the caller may send now, as request bodies."""
    seated: tuple[SeatSummary, ...] = ()
    """Each seat's player with his name and kind (``bot`` and ``program`` are bots)."""
    server_time: int = 0
    """The server's clock (ms since the epoch) when this was read: deadlines in ``view`` are
    on this clock."""
    head: str | None = None
    """The hash (hex) of the game's last event at ``version``: the head of its hash chain
    (docs/fairness.md), to pin and compare with a later export or proof."""


class EventPage(msgspec.Struct, frozen=True, kw_only=True):
    items: list[SeenEvent]
    next_cursor: Annotated[
        str | None,
        msgspec.Meta(
            description="The `cursor` of the next page while more events follow at once; null "
            "once the page reached the end of the stream."
        ),
    ]
    version: Annotated[
        int,
        msgspec.Meta(
            description="The version of the last item, or the `cursor` sent if there is none: "
            "the version you hold. Pass it as `cursor` to poll for what comes next."
        ),
    ]


class Health(msgspec.Struct, frozen=True, kw_only=True):
    status: Literal["ok", "overloaded"]
    """``overloaded``: the database answers, and every pooled connection is taken with
    requests waiting for one (they wait up to PREFERANS_ACQUIRE_TIMEOUT, then 503)."""
    database: Literal["ok"]
    migration: str
    """The database's schema revision, the one this code expects."""
    connections_in_use: int
    """Pooled connections serving requests now (of PREFERANS_POOL_MAX_SIZE)."""
    waiting: int
    """Requests waiting for a pooled connection."""
