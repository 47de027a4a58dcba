"""The bodies of the tournaments' requests and responses (`service.api.tournaments`)."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Annotated, Any, Literal

import msgspec

from domain.tournament.format import Format
from domain.tournament.pairing import Pairing

Reason = Annotated[
    str,
    msgspec.Meta(min_length=1, max_length=500, pattern=r"\S", description="Why: shown in the log."),
]
TableNo = Annotated[int, msgspec.Meta(ge=1, le=10_000)]
RoundNo = Annotated[int, msgspec.Meta(ge=0, le=1_000, description="0: a robot run.")]
PlayerId = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]


class NewTournament(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A tournament: its name and its format, frozen at creation (docs/tournaments.md)."""

    name: Annotated[str, msgspec.Meta(min_length=1, max_length=120, pattern=r"\S")]
    format: Format


class RegisterBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    team: Annotated[str, msgspec.Meta(min_length=1, max_length=64)] | None = None


class CheckInBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    client_seed: Annotated[str, msgspec.Meta(max_length=128)] = ""
    """Mixed into the seat draws of round 1 (docs/tournaments.md, Seats and first dealers)."""


class WithdrawBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    reason: Annotated[str, msgspec.Meta(max_length=500)] = ""


class StartBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pairing: Pairing | None = None
    """The arbiter's own pairing of the round (checked: every player of the field once)."""


class LineupBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A team's lineup from the next round to start on: three of its members."""

    team: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
    # Plain strings: the spec cannot carry a length on an array's items (Litestar drops it), so
    # the body takes any and the decider refuses a name that is not the team's member (409).
    players: Annotated[tuple[str, ...], msgspec.Meta(min_length=1, max_length=5)]


class _Decision(
    msgspec.Struct, frozen=True, kw_only=True, tag_field="type", forbid_unknown_fields=True
):
    reason: Reason


class PauseTableBody(_Decision, frozen=True, tag="pause_table"):
    round_no: RoundNo
    table: TableNo


class ResumeTableBody(_Decision, frozen=True, tag="resume_table"):
    round_no: RoundNo
    table: TableNo


class ReplacePlayerBody(_Decision, frozen=True, tag="replace_player"):
    round_no: RoundNo
    table: TableNo
    player: PlayerId
    substitute: PlayerId


class AdjustResultBody(_Decision, frozen=True, tag="adjust_result"):
    round_no: RoundNo
    table: TableNo
    whists: Annotated[tuple[int, ...], msgspec.Meta(min_length=3, max_length=4)]


class AnnulResultBody(_Decision, frozen=True, tag="annul_result"):
    round_no: RoundNo
    table: TableNo


class GiveCardBody(_Decision, frozen=True, tag="give_card"):
    player: PlayerId


class RecordAppealBody(_Decision, frozen=True, tag="record_appeal"):
    player: PlayerId
    appeal: Annotated[str, msgspec.Meta(min_length=1, max_length=2000)]
    decision: Literal["upheld", "rejected", "pending"]


ArbiterDecision = (
    PauseTableBody | ResumeTableBody | ReplacePlayerBody | AdjustResultBody | AnnulResultBody
    | GiveCardBody | RecordAppealBody
)  # fmt: skip
"""An arbiter's decision, each with its reason; each becomes an event of the log."""


class TournamentItem(msgspec.Struct, frozen=True, kw_only=True):
    id: uuid.UUID
    name: str
    kind: Literal["swiss", "schedule", "duplicate", "robot"]
    status: Literal["registering", "running", "finished"]
    organiser: str | None
    created_at: dt.datetime
    daily: dt.date | None = None
    opens_at: int | None = None
    """Registration opens (ms since the epoch); a robot duplicate's window to play opens."""
    closes_at: int | None = None
    rounds: int | None = None
    """The rounds the format plans."""
    round_no: int | None = None
    """The rounds started so far."""
    entrants: int | None = None
    """The entrants who have not withdrawn."""


class TournamentPage(msgspec.Struct, frozen=True, kw_only=True):
    items: list[TournamentItem]
    next_cursor: str | None


class EntrantView(msgspec.Struct, frozen=True, kw_only=True):
    player: str
    name: str | None
    team: str | None
    status: str
    checked_in: bool
    late: bool
    cards: int


class StandingView(msgspec.Struct, frozen=True, kw_only=True):
    place: int
    player: str
    name: str | None
    points: str
    """Tournament points (a fraction as text: shared places give halves)."""
    whists: str
    """Counted whists (damped, cut off, capped)."""
    bula: int
    rounds: int
    duplicate: str | None = None
    """Duplicate: the total on the event's scale (matchpoints, percent or IMP-like)."""


class TeamView(msgspec.Struct, frozen=True, kw_only=True):
    """A team of a team event: its sums (its playing members' points and counted whists, round
    by round) and who plays next."""

    team: str
    place: int
    points: str
    whists: str
    members: tuple[str, ...]
    """In order of registration (withdrawn ones too)."""
    captain: str | None
    """Names the lineup (so may the arbiter): the first member registered still in the field."""
    lineup: tuple[str, ...]
    """Who is paired in the next round to start: the named lineup, or the first three."""


class TableResultView(msgspec.Struct, frozen=True, kw_only=True):
    whists: tuple[int, ...]
    pool: tuple[int, ...] = ()
    timed_out: bool = False
    deals: tuple[tuple[str, ...], ...] = ()
    """Duplicate: each deal's value alone per seat."""


class TableView(msgspec.Struct, frozen=True, kw_only=True):
    table: int
    seating: tuple[str, ...]
    first_dealer: int
    game_id: uuid.UUID | None
    """The table's game (`/v1/games/{id}`); null until it is created."""
    game: str | None
    """The game's path."""
    result: TableResultView | None
    """Null while it is played (and, in duplicate, until its round has ended)."""
    annulled: bool
    paused: bool
    removed: tuple[str, ...]


class RoundView(msgspec.Struct, frozen=True, kw_only=True):
    round_no: int
    commitment: str
    secret: str | None
    """Revealed when the round ends: every seating and schedule can then be recomputed."""
    tables: list[TableView]
    byes: tuple[str, ...]


class TournamentView(msgspec.Struct, frozen=True, kw_only=True):
    id: uuid.UUID
    name: str
    kind: str
    status: Literal["registering", "running", "finished"]
    organiser: str | None
    version: int
    format: Format
    commitment: str
    """The pending commitment: the next round's secret."""
    deals_commitment: str | None
    deals_secret: str | None
    """A duplicate's deals' secret, published when the event has ended."""
    entrants: list[EntrantView]
    standings: list[StandingView]
    teams: list[TeamView]
    """Team events: the team standings (team sums); empty otherwise."""
    rounds: list[RoundView]
    runs: list[TableView]
    """Robot duplicate: each entrant's run."""


class LogItem(msgspec.Struct, frozen=True, kw_only=True):
    version: int
    at: int
    type: str
    event: dict[str, Any]
    """The event as the log holds it (a duplicate's results bare until they are public)."""


class TournamentLog(msgspec.Struct, frozen=True, kw_only=True):
    items: list[LogItem]
    version: int
    next_cursor: str | None


class RunStarted(msgspec.Struct, frozen=True, kw_only=True):
    run: int
    game_id: uuid.UUID
    game: str


class PlayerTournaments(msgspec.Struct, frozen=True, kw_only=True):
    items: list[TournamentItem]
