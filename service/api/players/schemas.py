"""Players, their tokens and games, notifications and invites on the wire."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Literal

import msgspec

from service.api.text import Name
from service.games.lobby import GameSummary
from service.players.accounts import PlayerKind, Scope, TokenInfo


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
    token: str | None
    """The bearer token: shown this once, stored only as a hash. Send it as
    ``Authorization: Bearer <token>``. Null on a repeat of the registration once the token
    answered before was used (a token is never shown twice)."""
    token_id: str | None
    """The token's id, to revoke it (``DELETE /v1/players/me/tokens/{id}``); null with
    ``token``."""


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


class _Note(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind"):
    seq: int
    """1, 2, 3 … per player, without gaps: the SSE event id and the ``cursor`` of the next poll."""
    game_id: uuid.UUID | None
    created_at: datetime


class AtTable(msgspec.Struct, frozen=True, kw_only=True):
    version: int
    """The game's version the notification was written at."""


class TurnData(AtTable, frozen=True, kw_only=True):
    seat: int
    """Your seat."""
    deadline: int | None
    """When the turn times out, in ms since the epoch; null without a clock."""


class ClaimData(TurnData, frozen=True, kw_only=True):
    by: int
    """The claiming seat."""
    tricks: int
    """The tricks it claims of the ``remaining``."""
    remaining: int


class EndedData(AtTable, frozen=True, kw_only=True):
    seat: int
    result: int
    """Your settlement, in whists."""


class TimedOutData(AtTable, frozen=True, kw_only=True):
    seat: int


class SeatData(AtTable, frozen=True, kw_only=True):
    seat: int
    """The seat that was left, abandoned or came back."""
    player: uuid.UUID | None
    """Its player."""


class InvitedData(msgspec.Struct, frozen=True, kw_only=True):
    by: uuid.UUID
    """The player who invited you."""
    expires_at: datetime


class ByData(msgspec.Struct, frozen=True, kw_only=True):
    by: uuid.UUID
    """The player who offered, or declined, the rematch."""


class RematchStartedData(msgspec.Struct, frozen=True, kw_only=True):
    from_: uuid.UUID = msgspec.field(name="from")
    """The finished game the rematch follows (``game_id`` is the new game)."""


class YourTurnNote(_Note, frozen=True, kw_only=True, tag="your_turn"):
    """It is your turn at ``game_id``."""

    data: TurnData


class ClaimNote(_Note, frozen=True, kw_only=True, tag="claim"):
    """A claim for you to answer."""

    data: ClaimData


class GameStartedNote(_Note, frozen=True, kw_only=True, tag="game_started"):
    data: AtTable


class GameEndedNote(_Note, frozen=True, kw_only=True, tag="game_ended"):
    data: EndedData


class TimedOutNote(_Note, frozen=True, kw_only=True, tag="timed_out"):
    """Your turn timed out: the table's stand-in acted for you."""

    data: TimedOutData


class PlayerAbsentNote(_Note, frozen=True, kw_only=True, tag="player_absent"):
    data: SeatData


class PlayerReturnedNote(_Note, frozen=True, kw_only=True, tag="player_returned"):
    data: SeatData


class PlayerLeftNote(_Note, frozen=True, kw_only=True, tag="player_left"):
    data: SeatData


class InvitedNote(_Note, frozen=True, kw_only=True, tag="invited"):
    """An invite to the private table ``game_id``."""

    data: InvitedData


class RematchOfferedNote(_Note, frozen=True, kw_only=True, tag="rematch_offered"):
    data: ByData


class RematchDeclinedNote(_Note, frozen=True, kw_only=True, tag="rematch_declined"):
    data: ByData


class TableOfTournament(msgspec.Struct, frozen=True, kw_only=True):
    tournament_id: uuid.UUID
    round: int
    table: int
    """Your table's number in that round."""


class TournamentTableNote(_Note, frozen=True, kw_only=True, tag="tournament_table"):
    """A tournament's round started: your table's game (``game_id``) is dealt."""

    data: TableOfTournament


class RematchStartedNote(_Note, frozen=True, kw_only=True, tag="rematch_started"):
    data: RematchStartedData


Notification = (
    YourTurnNote | ClaimNote | GameStartedNote | GameEndedNote | TimedOutNote | PlayerAbsentNote
    | PlayerReturnedNote | PlayerLeftNote | InvitedNote | RematchOfferedNote
    | RematchDeclinedNote | RematchStartedNote | TournamentTableNote
)  # fmt: skip
"""One of the caller's notifications (also the ``data`` of a per-player SSE event), told
apart by ``kind``: each kind's ``data`` has its own fields."""


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
