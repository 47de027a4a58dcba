"""The API's wire types: msgspec Structs for every request and response body of /v1.

Request bodies forbid unknown fields, so a typo (or a ``seat``, which always comes from the
token) fails loudly with 400. Responses may gain fields within /v1; clients ignore the ones they
do not know. JSON names are snake_case throughout, like the domain's.

An action's body is the domain's seat command without its ``seat``: the tag ``type`` and the
fields are the same (``{"type": "play", "card": "AH"}`` is ``PlayCard(seat=…, card="AH")``), so
`to_command` and `from_command` are a field copy. Cards and bids may be sent in any spelling
`domain.cards` parses (``"as"``, ``"A♠"``, ``"7nt"``); responses always use the canonical one.
"""

from __future__ import annotations

import typing
import uuid
from datetime import datetime
from typing import Annotated, Any, Literal

import msgspec

from domain import game, rules
from domain.cards import parse_bid, parse_card
from domain.deal.messages import SeatCommand
from domain.outcome import WhistChoice
from service.games.lobby import GameSummary, NoteKind, SeatSummary
from service.games.service import SeenEvent
from service.players.accounts import PlayerKind, Scope, TokenInfo

CardText = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=8,
        examples=["AH", "7S", "TD"],
        description="A card: rank (7 8 9 T J Q K A) then suit (S C D H).",
    ),
]
BidText = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=8,
        examples=["6S", "7NT", "MISER", "9SWT"],
        description="A bid or contract: level 6-10 then strain (S C D H NT), or MISER; a game "
        "without the talon adds WT (9SWT … 9NTWT, MISERWT).",
    ),
]
Name = Annotated[
    str,
    msgspec.Meta(min_length=1, max_length=64, pattern=r"^[^\x00-\x1f\x7f]+$", examples=["Alice"]),
]
SeatNumber = Annotated[int, msgspec.Meta(ge=0, le=3, description="0 .. seats-1, clockwise")]
"""A seat as a request names it (the domain's `Seat`, bounded)."""


# --- actions ------------------------------------------------------------------------------------


class ActionBody(
    msgspec.Struct, frozen=True, kw_only=True, tag_field="type", forbid_unknown_fields=True
):
    """What a seated player asks to do; the seat is the caller's."""


class LookAtCardsAction(ActionBody, frozen=True, tag="look_at_cards"):
    """Classic dark games: pick up your cards (bids before this are in the dark)."""


class BidAction(ActionBody, frozen=True, tag="bid"):
    """Bid in the auction; the current highest bid again is the hold («здесь»)."""

    bid: BidText
    dark: bool = False


class PassAction(ActionBody, frozen=True, tag="pass"):
    """Pass (пас) in the auction; final."""

    dark: bool = False


class TakeTalonAction(ActionBody, frozen=True, tag="take_talon"):
    """Take the talon (прикуп)."""


class DiscardAction(ActionBody, frozen=True, tag="discard"):
    """Put two cards away (снос)."""

    cards: Annotated[list[CardText], msgspec.Meta(min_length=2, max_length=2)]


class DeclareAction(ActionBody, frozen=True, tag="declare"):
    """Name the final contract (заказ), not below the winning bid."""

    contract: BidText


class DeclareTotusAction(ActionBody, frozen=True, tag="declare_totus"):
    """Classic: show twelve unbeatable cards and play a ten in ``strain`` (тотус)."""

    strain: Literal["S", "C", "D", "H", "NT"]


class ConcedeAction(ActionBody, frozen=True, tag="concede"):
    """Give up without play, where the rules allow it."""


class WhistAction(ActionBody, frozen=True, tag="whist"):
    """An opponent's call: whist (вист), pass (пас) or half-whist (полвиста)."""

    choice: WhistChoice


class ChoosePlayAction(ActionBody, frozen=True, tag="choose_play"):
    """The single whister plays open (в светлую) or closed (втёмную)."""

    open: bool


class LookAtHandAction(ActionBody, frozen=True, tag="look_at_hand"):
    """At four: the dealer, asked last whether he whists, looks at one opponent's cards."""

    hand: SeatNumber


class PlayAction(ActionBody, frozen=True, tag="play"):
    """Play a card; a whister playing the passer's open hand names the passer's card."""

    card: CardText


class ClaimAction(ActionBody, frozen=True, tag="claim"):
    """Claim ``tricks`` of the tricks left (the one in progress included), on your turn: the
    declarer of a contract or misère, anyone in an all-pass. The others answer; play waits."""

    tricks: Annotated[int, msgspec.Meta(ge=0, le=10)]


class AnswerClaimAction(ActionBody, frozen=True, tag="answer_claim"):
    """Accept or reject the claim you are asked about; one rejection ends it."""

    accept: bool


Action = (
    LookAtCardsAction
    | BidAction
    | PassAction
    | TakeTalonAction
    | DiscardAction
    | DeclareAction
    | DeclareTotusAction
    | ConcedeAction
    | WhistAction
    | ChoosePlayAction
    | LookAtHandAction
    | PlayAction
    | ClaimAction
    | AnswerClaimAction
)

_NOTATION = {"card": parse_card, "bid": parse_bid, "contract": parse_bid}


def canonical(action: Action) -> Action:
    """``action`` with its cards and bids in canonical notation; `NotationError` if malformed."""
    changes: dict[str, Any] = {
        name: parse(getattr(action, name))
        for name, parse in _NOTATION.items()
        if hasattr(action, name)
    }
    if isinstance(action, DiscardAction):
        changes["cards"] = [parse_card(action.cards[0]), parse_card(action.cards[1])]
    return msgspec.structs.replace(action, **changes) if changes else action


def to_command(action: Action, seat: int) -> SeatCommand:
    """The domain command for ``action`` (canonical) sent by ``seat``."""
    raw = msgspec.structs.asdict(action)
    raw["type"] = action.__struct_config__.tag
    raw["seat"] = seat
    command: SeatCommand = msgspec.convert(raw, SeatCommand)
    return command


_ACTION_TYPES: dict[str | int | None, type[ActionBody]] = {
    cls.__struct_config__.tag: cls for cls in typing.get_args(Action)
}


def from_command(command: SeatCommand) -> Action:
    """The request body that sends ``command``."""
    raw = msgspec.structs.asdict(command)
    del raw["seat"], raw["at"]
    action: Action = _ACTION_TYPES[command.__struct_config__.tag](**raw)  # type: ignore[assignment]
    return action


# --- players ------------------------------------------------------------------------------------


class NewPlayer(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    name: Name
    kind: Literal["human", "program"] = "human"
    """``program``: a program that plays through the API; shown and rated as a bot."""
    device: Name = "first device"
    """The name of the first token (the device it is for)."""


class PlayerCreated(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    name: str
    kind: Literal["human", "program"] = "human"
    token: str
    """The bearer token: shown this once, stored only as a hash. Send it as
    ``Authorization: Bearer <token>``."""
    token_id: str
    """The token's id, to revoke it (``DELETE /v1/players/me/tokens/{id}``)."""


class Me(msgspec.Struct, frozen=True, kw_only=True):
    """The caller, and the token he called with."""

    id: str
    name: str
    kind: PlayerKind
    token: TokenInfo


class NewToken(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    name: Name
    """The device or program it is for."""
    scope: Scope = "play"
    """``play``: everything; ``read``: reads only (a spectator's screen, a statistics tool)."""


class TokenCreated(msgspec.Struct, frozen=True, kw_only=True):
    token: str
    """Shown this once, stored only as a hash."""
    info: TokenInfo


class TokenList(msgspec.Struct, frozen=True, kw_only=True):
    items: list[TokenInfo]
    """Every token of the caller, revoked ones included, oldest first."""


class MyGame(msgspec.Struct, frozen=True, kw_only=True):
    game: GameSummary
    seat: int | None
    """The caller's seat."""
    my_turn: bool
    """Whether the caller is to act (a move, or a claim to answer)."""


class MyGames(msgspec.Struct, frozen=True, kw_only=True):
    """The caller's games."""

    active: list[MyGame]
    """Every game not finished: those where it is the caller's turn first, then by deadline.
    Only on the first page."""
    finished: list[MyGame]
    """A page of the finished ones, newest first."""
    next_cursor: str | None
    """Pass as ``cursor`` for the next page of finished games; null on the last."""


class Notification(msgspec.Struct, frozen=True, kw_only=True):
    """One of the caller's notifications (also the ``data`` of a per-player SSE event)."""

    seq: int
    """1, 2, 3 … per player, without gaps: the SSE event id and the ``cursor`` of the next poll."""
    kind: NoteKind
    game_id: uuid.UUID | None
    data: dict[str, Any]
    """``your_turn`` / ``claim``: ``seat``, ``deadline`` (ms since the epoch, or null), the
    game's ``version``; ``claim`` also ``by``, ``tricks``, ``remaining``; ``game_ended``:
    ``result`` (whists); ``player_*``: the ``seat`` and ``player``; ``invited``: ``by``,
    ``expires_at``."""
    created_at: datetime


class NotificationPage(msgspec.Struct, frozen=True, kw_only=True):
    items: list[Notification]
    last_seq: Annotated[
        int,
        msgspec.Meta(
            description="The seq of the last item, or the `cursor` sent if there is none: pass "
            "it as `cursor` to poll for what comes next."
        ),
    ]


class NewInvite(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    player: uuid.UUID | None = None
    """Invite this player only (he is notified); anyone holding the code, if omitted."""
    expires_in: Annotated[int, msgspec.Meta(ge=60, le=30 * 86_400)] = 7 * 86_400
    """Seconds the code seats its holder."""


class InviteView(msgspec.Struct, frozen=True, kw_only=True):
    """What an invite code opens."""

    game: GameSummary
    expired: bool


# --- games --------------------------------------------------------------------------------------


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

    level: Literal["random", "basic", "strong"] = "basic"
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
    status: Literal["ok"]
    database: Literal["ok"]
    migration: str
    """The database's schema revision, the one this code expects."""


# --- read models ----------------------------------------------------------------------------------


class RatingHistoryLine(msgspec.Struct, frozen=True, kw_only=True):
    game_id: str
    game_no: int
    at: str
    """When the game ended (ISO 8601)."""
    result: int
    place: int
    players: int
    rating_before: float
    rating: float
    mu: float
    sigma: float


class RatingView(msgspec.Struct, frozen=True, kw_only=True):
    """A player's rating (openskill Plackett–Luce, ranked by settlement result)."""

    player_id: str
    kind: PlayerKind
    """``bot``: one of the service's computer players; ``program``: a client's own bot."""
    rating: float
    """The conservative rating shown and ranked: ``mu − 3·sigma``."""
    mu: float
    sigma: float
    games: int
    provisional: bool
    """Fewer than 5 finished games."""
    history: tuple[RatingHistoryLine, ...]


class LeaderboardEntryView(msgspec.Struct, frozen=True, kw_only=True):
    rank: int
    player_id: str
    name: str
    kind: PlayerKind
    """Computer players (``bot``, ``program``) are ranked with everyone, and flagged."""
    rating: float
    mu: float
    sigma: float
    games: int
    provisional: bool


class LeaderboardPage(msgspec.Struct, frozen=True, kw_only=True):
    items: tuple[LeaderboardEntryView, ...]
    total: int
    """Rated players."""
    next_cursor: str | None
