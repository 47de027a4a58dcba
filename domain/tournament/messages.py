"""The tournament's commands (imperative, from the service or an arbiter) and events (past
tense, its own stream). Every event is public: the round's secret is only in `RoundEnded`, the
duplicate deals' secret only in `DealsRevealed` (docs/tournaments.md, What is public when)."""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.outcome import DealOutcome
from domain.tournament.format import Format
from domain.tournament.pairing import Pairing

CardReason = Literal["timeout_removal", "below_threshold", "arbiter"]


class Command(
    msgspec.Struct, frozen=True, kw_only=True, tag_field="type", forbid_unknown_fields=True
):
    at: int = 0
    """When the service issued it, in milliseconds since the epoch."""


class CreateTournament(Command, frozen=True, tag="create_tournament"):
    format: Format
    commitment: str
    """SHA-256 (hex) of round 1's secret."""
    deals_commitment: str | None = None
    """Duplicate: SHA-256 (hex) of the secret every deck is derived from."""


class Register(Command, frozen=True, tag="register"):
    player: str
    team: str | None = None


class CheckIn(Command, frozen=True, tag="check_in"):
    player: str
    client_seed: str = ""


class Withdraw(Command, frozen=True, tag="withdraw"):
    player: str
    reason: str = ""


class StartRound(Command, frozen=True, tag="start_round"):
    """Start the next round. ``secret`` (hex) opens the pending commitment and draws the seats;
    ``next_commitment`` is the next round's. An arbiter may upload the ``pairing``."""

    secret: str
    next_commitment: str
    pairing: Pairing | None = None
    arbiter: str | None = None


class RecordResult(Command, frozen=True, tag="record_result"):
    """A table's result in whists, in seat order (``round_no`` 0: a robot-duplicate run)."""

    round_no: int
    table: int
    whists: tuple[int, ...]
    pool: tuple[int, ...] = ()
    timed_out: bool = False
    outcomes: tuple[DealOutcome, ...] = ()
    """Duplicate: every deal's outcome, as the table's `DealEnded` events gave them."""


class ReportTimeoutRemoval(Command, frozen=True, tag="report_timeout_removal"):
    """The table removed ``player`` for timeouts: he is played for to the table's end."""

    round_no: int
    table: int
    player: str


class CloseRound(Command, frozen=True, tag="close_round"):
    round_no: int
    secret: str


class RevealDeals(Command, frozen=True, tag="reveal_deals"):
    secret: str


class NameLineup(Command, frozen=True, tag="name_lineup"):
    """A team names the members who play from the next round to start on (three of its 3–5);
    ``by`` is who named it (its captain or the arbiter: the service checks which)."""

    team: str
    players: tuple[str, ...]
    by: str | None = None


class StartRobotRun(Command, frozen=True, tag="start_robot_run"):
    player: str


class EndEvent(Command, frozen=True, tag="end_event"):
    """Robot duplicate: the window has closed."""


class ArbiterCommand(Command, frozen=True):
    arbiter: str
    reason: str


class PauseTable(ArbiterCommand, frozen=True, tag="pause_table"):
    round_no: int
    table: int


class ResumeTable(ArbiterCommand, frozen=True, tag="resume_table"):
    round_no: int
    table: int


class ReplacePlayer(ArbiterCommand, frozen=True, tag="replace_player"):
    round_no: int
    table: int
    player: str
    substitute: str


class AdjustResult(ArbiterCommand, frozen=True, tag="adjust_result"):
    round_no: int
    table: int
    whists: tuple[int, ...]


class AnnulResult(ArbiterCommand, frozen=True, tag="annul_result"):
    round_no: int
    table: int


class GiveCard(ArbiterCommand, frozen=True, tag="give_card"):
    player: str


class RecordAppeal(ArbiterCommand, frozen=True, tag="record_appeal"):
    player: str
    appeal: str
    decision: Literal["upheld", "rejected", "pending"]


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    at: int = 0


class TournamentCreated(Event, frozen=True, tag="tournament_created"):
    format: Format
    commitment: str
    deals_commitment: str | None = None


class PlayerRegistered(Event, frozen=True, tag="player_registered"):
    player: str
    team: str | None = None
    late: bool = False


class PlayerCheckedIn(Event, frozen=True, tag="player_checked_in"):
    player: str
    client_seed: str = ""


class PlayerWithdrew(Event, frozen=True, tag="player_withdrew"):
    player: str
    reason: str = ""


class CheckInClosed(Event, frozen=True, tag="check_in_closed"):
    no_shows: tuple[str, ...]


class FieldCut(Event, frozen=True, tag="field_cut"):
    """The cut after ``after_round``: the finalists play on."""

    after_round: int
    finalists: tuple[str, ...]
    eliminated: tuple[str, ...]


class ScheduleDrawn(Event, frozen=True, tag="schedule_drawn"):
    """Every round from ``first_round`` made in advance (a stage: the event, or its final)."""

    first_round: int
    rounds: tuple[Pairing, ...]


class SeatedTable(msgspec.Struct, frozen=True, kw_only=True):
    table: int
    seating: tuple[str, ...]
    """Players in seat order."""
    first_dealer: int


class RoundStarted(Event, frozen=True, tag="round_started"):
    round_no: int
    pairing: Literal["schedule", "swiss", "arbiter"]
    commitment: str
    """The commitment this round's draws come from, opened in `RoundEnded`."""
    next_commitment: str
    tables: tuple[SeatedTable, ...]
    byes: tuple[str, ...] = ()
    arbiter: str | None = None


class TableResultRecorded(Event, frozen=True, tag="table_result_recorded"):
    round_no: int
    table: int
    players: tuple[str, ...]
    whists: tuple[int, ...]
    pool: tuple[int, ...] = ()
    timed_out: bool = False
    outcomes: tuple[DealOutcome, ...] = ()
    deals: tuple[tuple[str, ...], ...] = ()
    """Duplicate: each deal's value alone per seat, exact whists (`duplicate.deal_alone`)."""


class PlayerRemoved(Event, frozen=True, tag="player_removed"):
    """Removed for timeouts; his seat is played for to the table's end."""

    round_no: int
    table: int
    player: str


class YellowCard(Event, frozen=True, tag="yellow_card"):
    player: str
    reason: CardReason
    round_no: int = 0
    detail: str = ""
    arbiter: str | None = None


class Disqualified(Event, frozen=True, tag="disqualified"):
    player: str
    cards: int


class RoundEnded(Event, frozen=True, tag="round_ended"):
    round_no: int
    secret: str
    """Opens the round's commitment: anyone can recompute its seats and schedule."""


class TournamentEnded(Event, frozen=True, tag="tournament_ended"):
    pass


class DealsRevealed(Event, frozen=True, tag="deals_revealed"):
    secret: str


class LineupNamed(Event, frozen=True, tag="lineup_named"):
    team: str
    players: tuple[str, ...]
    by: str | None = None
    """The captain or the arbiter who named it."""
    for_round: int = 0
    """The round it is first played in (0: not recorded)."""


class RobotRunStarted(Event, frozen=True, tag="robot_run_started"):
    run: int
    player: str
    seating: tuple[str, ...]


class ArbiterEvent(Event, frozen=True):
    arbiter: str
    reason: str


class TablePaused(ArbiterEvent, frozen=True, tag="table_paused"):
    round_no: int
    table: int


class TableResumed(ArbiterEvent, frozen=True, tag="table_resumed"):
    round_no: int
    table: int


class PlayerReplaced(ArbiterEvent, frozen=True, tag="player_replaced"):
    round_no: int
    table: int
    player: str
    substitute: str


class ResultAdjusted(ArbiterEvent, frozen=True, tag="result_adjusted"):
    round_no: int
    table: int
    whists: tuple[int, ...]


class ResultAnnulled(ArbiterEvent, frozen=True, tag="result_annulled"):
    round_no: int
    table: int


class AppealRecorded(ArbiterEvent, frozen=True, tag="appeal_recorded"):
    player: str
    appeal: str
    decision: Literal["upheld", "rejected", "pending"]


ArbiterDecision = (
    PauseTable | ResumeTable | ReplacePlayer | AdjustResult | AnnulResult | GiveCard | RecordAppeal
)
"""The arbiter's decisions, each with its reason."""
TournamentCommand = (
    CreateTournament | Register | CheckIn | Withdraw | StartRound | RecordResult
    | ReportTimeoutRemoval | CloseRound | RevealDeals | NameLineup | StartRobotRun | EndEvent
    | PauseTable | ResumeTable | ReplacePlayer | AdjustResult | AnnulResult | GiveCard
    | RecordAppeal
)  # fmt: skip
TournamentEvent = (
    TournamentCreated | PlayerRegistered | PlayerCheckedIn | PlayerWithdrew | CheckInClosed
    | FieldCut | ScheduleDrawn | RoundStarted | TableResultRecorded | PlayerRemoved | YellowCard
    | Disqualified | RoundEnded | TournamentEnded | DealsRevealed | LineupNamed | RobotRunStarted
    | TablePaused | TableResumed | PlayerReplaced | ResultAdjusted | ResultAnnulled | AppealRecorded
)  # fmt: skip
