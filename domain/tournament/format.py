"""The frozen format of a tournament (турнир): what `TournamentCreated` stores for ever.

The game's rules are a preset name and overrides, opaque here apart from the table size: the
service builds each table's `Rules` with `table_rules`. Everything else (round length, the
registration window, pairing, tournament points, discipline, cuts, teams, duplicate) is read by
the tournament's decider and its pure helpers. Times are milliseconds since the epoch, passed in.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Literal

import msgspec

from domain.errors import InvalidRules
from domain.rules import Rules, rules_for


class InvalidTournament(InvalidRules):
    """A tournament format that cannot be run (a cut larger than the field, duplicate with mixed
    tables, a schedule with late entry, …)."""

    code = "invalid_tournament"


class _Options(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class RoundLength(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How long a round's pulka runs: a number of deals, a pool target, or a control time."""

    kind: Literal["deals", "pool", "time"] = "pool"
    deals: int = 0
    pool_target: int = 10
    minutes: int = 0
    on_time: Literal["finish_deal", "void_positive"] = "finish_deal"
    """When the time runs out: the deal in progress is finished and the game ends; or it ends
    and a positive result of a table that ran out of time is not recorded (counted as 0)."""


class Registration(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Registration (регистрация), check-in and late entry."""

    opens_at: int = 0
    closes_at: int
    check_in_opens_at: int | None = None
    """None: no check-in, every registered player plays round 1."""
    check_in_closes_at: int | None = None
    late_entry_rounds: int = 0
    """A late entrant may register until this many rounds have started (0: no late entry); the
    rounds he missed count nothing."""
    capacity: int = 0
    """0: no limit on the field."""


class Band(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Whists beyond ``above`` count ``factor`` each (``"1/2"``)."""

    above: int
    factor: str


PUBLISHED_DAMPING: tuple[Band, ...] = (Band(above=50, factor="1/2"), Band(above=100, factor="1/10"))
"""×0.5 between 51 and 100 whists, ×0.1 above 100, as published events use."""


class PointsRules(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Tournament points (турнирные очки), docs/tournaments.md."""

    primary: Literal["places", "whists"] = "places"
    """What ranks the field first: place points at the tables, or counted whists."""
    places_3: tuple[int, ...] = (2, 1, 0)
    places_4: tuple[int, ...] = (3, 2, 1, 0)
    alone_positive_bonus: int = 1
    """Added to a table's only player with a positive result."""
    damping: tuple[Band, ...] = ()
    cap: int | None = None
    """A result counts at most this many whists (after damping)."""
    cut_off: int | None = None
    """A result counts at least minus this many whists (after damping)."""
    tiebreaks: tuple[Literal["whists", "bula", "head_to_head"], ...] = (
        "whists",
        "head_to_head",
        "bula",
    )
    bye_points: str = "1"
    """Place points of a bye (a round without a table); a bye counts no whists."""


class Discipline(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Yellow cards (жёлтые карточки) and disqualification."""

    card_for_timeout_removal: bool = True
    card_below: int | None = None
    """A player whose round result is below minus this many whists gets a card."""
    cards_to_disqualify: int = 2


class Cut(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """After round ``after_round`` only the top ``keep`` play on ("30 → 6", a final of 9)."""

    after_round: int
    keep: int
    carry: Literal["all", "none"] = "all"
    """Whether the finalists keep the points of the rounds before the cut."""
    pairing: Literal["schedule", "swiss"] = "schedule"


class Teams(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Team events: teams of 3–5, three playing each round, team sums."""

    min_size: int = 3
    max_size: int = 5
    playing: int = 3


class Robots(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Robot duplicate: each entrant plays the event's deals alone with bots of one level, at
    any time within the registration window."""

    level: str = "basic"


class Duplicate(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Duplicate (дубль): every table of a round plays the same deals, compared per deal and
    seat, each deal scored alone."""

    deals_per_round: int
    scale: Literal["matchpoints", "imp"] = "matchpoints"
    matchpoints_as: Literal["points", "percent"] = "points"
    robots: Robots | None = None


class Format(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Everything a tournament is created with, frozen in `TournamentCreated`."""

    preset: str = "sochi"
    overrides: dict[str, Any] = {}
    table_size: Literal[3, 4] = 3
    rounds: int
    length: RoundLength = RoundLength()
    personal_time_seconds: int = 0
    registration: Registration
    pairing: Literal["schedule", "swiss"] = "swiss"
    uneven: Literal["mixed", "byes"] = "mixed"
    """A field not divisible by the table size: tables of the other size (4 with the dealer
    sitting out, or 3), or byes."""
    repeat_penalty: int = 100
    points: PointsRules = PointsRules()
    discipline: Discipline = Discipline()
    cuts: tuple[Cut, ...] = ()
    teams: Teams | None = None
    duplicate: Duplicate | None = None
    rating_weight: int = 100
    """How much each table moves its players' ratings, in percent of an ordinary game (0 to
    300; 0: the event is not rated). Every table's ``table.rating_weight``. A duplicate table is
    never rated, whatever this says: it plays laid-out deals (`projections.ratings.is_rated`)."""


def validate(fmt: Format) -> None:
    """Refuse a format that cannot be run, and unknown game rules."""
    if fmt.rounds < 1:
        raise InvalidTournament("a tournament has at least one round")
    if not 0 <= fmt.rating_weight <= 300:
        raise InvalidTournament("rating_weight is a percent of an ordinary game, 0 to 300")
    table = fmt.overrides.get("table")
    if isinstance(table, dict) and "rating_weight" in table:
        raise InvalidTournament("the event's rating_weight sets its tables', not an override")
    for size in (3, 4):
        table_rules(fmt, size)
    reg = fmt.registration
    if reg.closes_at <= reg.opens_at:
        raise InvalidTournament("registration must close after it opens")
    if (reg.check_in_opens_at is None) != (reg.check_in_closes_at is None):
        raise InvalidTournament("check-in needs both an opening and a closing time")
    if fmt.pairing == "schedule" and reg.late_entry_rounds:
        raise InvalidTournament("a schedule made in advance takes no late entry")
    for band in fmt.points.damping:
        if Fraction(band.factor) < 0:
            raise InvalidTournament("a damping factor is not negative")
    if [c.after_round for c in fmt.cuts] != sorted({c.after_round for c in fmt.cuts}):
        raise InvalidTournament("cuts come after distinct rounds, in order")
    if any(not 0 < c.after_round < fmt.rounds or c.keep < 3 for c in fmt.cuts):
        raise InvalidTournament("a cut keeps at least 3 and leaves a round to play")
    if fmt.duplicate is not None:
        if fmt.uneven != "byes":
            raise InvalidTournament("duplicate compares like tables: odd players get byes")
        if fmt.duplicate.deals_per_round < 1:
            raise InvalidTournament("a duplicate round has at least one deal")
        if fmt.duplicate.robots is not None and fmt.table_size != 3:
            raise InvalidTournament("robot duplicate is one human and two bots")
        if fmt.pairing == "schedule" and fmt.table_size != 3:
            raise InvalidTournament("the duplicate rotation seats tables of three")
    if fmt.teams is not None:
        t = fmt.teams
        if not 3 <= t.min_size <= t.max_size <= 5 or t.playing != 3:
            raise InvalidTournament("teams have 3 to 5 members, 3 playing each round")
        if fmt.pairing == "schedule" and t.max_size > t.playing:
            raise InvalidTournament("a team event with changing lineups is paired by Swiss")


def table_rules(fmt: Format, size: int) -> Rules:
    """The game rules of a table of ``size`` in this tournament."""
    overrides = dict(fmt.overrides)
    if not all(isinstance(overrides.get(part, {}), dict) for part in ("pool", "table")):
        raise InvalidTournament("overrides.pool and overrides.table are objects of options")
    pool = dict(overrides.get("pool", {}))
    table = dict(overrides.get("table", {}))
    if fmt.length.kind == "pool":
        pool["target"] = fmt.length.pool_target
    elif fmt.length.kind == "deals":
        pool["max_deals"] = fmt.length.deals
    else:
        pool["time_limit_minutes"] = fmt.length.minutes
        pool["last_round"] = False  # the deal in progress ends the game
    if fmt.personal_time_seconds:
        table["bank_seconds"] = fmt.personal_time_seconds
    table["rating_weight"] = fmt.rating_weight
    overrides.update(players=size, pool=pool, table=table)
    return rules_for(fmt.preset, overrides)  # InvalidRules for an unknown preset or option
