"""The tournament as a decider: `decide(command, state) -> events`, `evolve(state, event)`.

Registering → Running (round 1 started) → Finished (the last round ended, or a robot window
closed). Rules live in `decide`; `evolve` only records. Pairing, seating and points are the pure
helpers of `pairing`, `draw` and `points`; the service supplies times and secrets in commands.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Literal

import msgspec

from domain.errors import DealOver, WrongPhase, refuse
from domain.fairness import reveals
from domain.tournament import messages as m
from domain.tournament.draw import schedule_draw, seat_table
from domain.tournament.duplicate import balanced_seating, compare, deal_alone
from domain.tournament.format import Format, table_rules, validate
from domain.tournament.pairing import (
    Pairing,
    check_pairing,
    meetings,
    pairs_of,
    random_schedule,
    rotation_schedule,
    swiss,
)
from domain.tournament.points import Result, Standing, standings

Status = Literal["registered", "active", "withdrawn", "disqualified", "eliminated", "no_show"]
replace = msgspec.structs.replace


class Entrant(msgspec.Struct, frozen=True, kw_only=True):
    player: str
    team: str | None = None
    late: bool = False
    checked_in: bool = False
    seed: str = ""
    status: Status = "registered"
    cards: int = 0


class Table(msgspec.Struct, frozen=True, kw_only=True):
    table: int
    seating: tuple[str, ...]
    first_dealer: int = 0
    result: Result | None = None
    deals: tuple[tuple[str, ...], ...] = ()
    annulled: bool = False
    paused: bool = False
    removed: tuple[str, ...] = ()


class Round(msgspec.Struct, frozen=True, kw_only=True):
    round_no: int
    commitment: str
    tables: tuple[Table, ...]
    byes: tuple[str, ...] = ()
    secret: str | None = None
    """Revealed when the round ends."""


class NoTournament(msgspec.Struct, frozen=True):
    """Before `TournamentCreated`."""


class Tournament(msgspec.Struct, frozen=True, kw_only=True):
    format: Format
    commitment: str
    """The pending commitment: the next round's secret."""
    deals_commitment: str | None = None
    entrants: tuple[Entrant, ...] = ()
    rounds: tuple[Round, ...] = ()
    schedule: tuple[Pairing, ...] = ()
    schedule_from: int = 1
    stage_from: int = 1
    """The first round whose points count (after a cut that carries nothing)."""
    runs: tuple[Table, ...] = ()
    """Robot duplicate: one table per entrant's run."""
    lineups: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Team events: each team's named lineup, (team, players)."""
    deals_secret: str | None = None


class Registering(Tournament, frozen=True, kw_only=True):
    """Created; registration and check-in."""


class Running(Tournament, frozen=True, kw_only=True):
    """Round 1 has started (or, robot duplicate, the first run)."""


class Finished(Tournament, frozen=True, kw_only=True):
    """The last round has ended."""


State = NoTournament | Tournament
"""Before creation, or one of the phases `Registering`, `Running`, `Finished` (`Tournament` is
only their common shape)."""
INITIAL_STATE: State = NoTournament()


def is_terminal(state: State) -> bool:
    return isinstance(state, Finished)


# ---- pure views for the service ------------------------------------------------------------


def entrant(state: Tournament, player: str) -> Entrant | None:
    return next((e for e in state.entrants if e.player == player), None)


def field(state: Tournament) -> tuple[str, ...]:
    """Who is paired next: the active entrants (registered ones before round 1); in a team
    event only each team's lineup, or its first three members in order of registration."""
    playing = ("active",) if state.rounds else ("registered", "active")
    ready = [e for e in state.entrants if e.status in playing]
    if state.format.teams is None:
        return tuple(e.player for e in ready)
    named = dict(state.lineups)
    out: list[str] = []
    for team in dict.fromkeys(e.team for e in ready):
        members = [e.player for e in ready if e.team == team]
        lineup = [p for p in named.get(team or "", ()) if p in members]
        out += lineup or members[: state.format.teams.playing]
    return tuple(p for p in (e.player for e in ready) if p in out)


def captain(state: Tournament, team: str) -> str | None:
    """A team's captain: its first member in order of registration still in the field (he,
    or the arbiter, names its lineup)."""
    return next((e.player for e in state.entrants if e.team == team
                 and e.status in ("registered", "active")), None)  # fmt: skip


def lineup(state: Tournament, team: str) -> tuple[str, ...]:
    """Who of ``team`` is paired next (`field`'s choice: the named lineup, or the first three)."""
    members = {e.player for e in state.entrants if e.team == team}
    return tuple(p for p in field(state) if p in members)


def teams(state: Tournament) -> dict[str, list[str]]:
    """Each team's members, for `points.team_standings`."""
    out: dict[str, list[str]] = {}
    for e in state.entrants:
        if e.team is not None:
            out.setdefault(e.team, []).append(e.player)
    return out


def results(state: Tournament) -> list[Result]:
    """Every table result that counts (annulled ones do not)."""
    tables = [t for r in state.rounds for t in r.tables] + list(state.runs)
    return [t.result for t in tables if t.result is not None and not t.annulled]


def byes(state: Tournament) -> list[tuple[int, str]]:
    return [(r.round_no, p) for r in state.rounds for p in r.byes]


def current_standings(state: Tournament, players: Iterable[str] | None = None) -> list[Standing]:
    """The standings of the current stage (``players``: the whole field by default)."""
    who = [e.player for e in state.entrants] if players is None else list(players)
    return standings(who, results(state), state.format, byes(state), state.stage_from)


def duplicate_totals(state: Tournament) -> dict[str, Fraction]:
    """Duplicate: each entrant's total on the event's scale, over every (round, deal, seat)
    group; robots are never compared."""
    dup = state.format.duplicate
    assert dup is not None, "not a duplicate event"
    groups: dict[tuple[int, int, int], list[tuple[str, Fraction]]] = {}
    tables = [(r.round_no, t) for r in state.rounds for t in r.tables]
    tables += [(0, t) for t in state.runs]
    for round_no, t in tables:
        if t.annulled or not t.deals:
            continue
        for deal_no, scores in enumerate(t.deals):
            for seat, (player, score) in enumerate(zip(t.seating, scores, strict=True)):
                if player.startswith("bot:"):
                    continue
                layout = (seat + deal_no) % len(t.seating) if round_no == 0 else seat
                key = (round_no, deal_no, layout)
                groups.setdefault(key, []).append((player, Fraction(score)))
    return compare(groups, dup.scale, dup.matchpoints_as == "percent")


def withheld_until(event: m.TournamentEvent, fmt: Format) -> int | None:
    """When an event may be shown to everyone: a robot-duplicate result tells later entrants
    about the deals, so it waits for the window's close; every other event is public at once."""
    robots = fmt.duplicate is not None and fmt.duplicate.robots is not None
    if robots and isinstance(event, m.TableResultRecorded):
        return fmt.registration.closes_at
    return None


# ---- decide ---------------------------------------------------------------------------------


def decide(command: m.TournamentCommand, state: State) -> list[m.TournamentEvent]:
    """The events ``command`` causes; raises a `PreferansError` subclass if it is refused."""
    if isinstance(command, m.CreateTournament):
        if not isinstance(state, NoTournament):
            raise WrongPhase("the tournament already exists", code="illegal.tournament_exists")
        validate(command.format)
        if command.format.duplicate is not None and command.deals_commitment is None:
            raise refuse("no_commitment", "a duplicate event commits to its deals' secret")
        for committed in (command.commitment, command.deals_commitment or "0" * 64):
            _check_commitment(committed)
        return [
            m.TournamentCreated(
                at=command.at, format=command.format, commitment=command.commitment,
                deals_commitment=command.deals_commitment,
            )
        ]  # fmt: skip
    if isinstance(state, NoTournament):
        raise WrongPhase("the tournament has not been created", code="illegal.no_tournament")
    if isinstance(command, m.RevealDeals):
        return [_reveal_deals(command, state)]
    # appeals are heard after the last round too, and may change a result
    after_the_end = isinstance(command, m.RecordAppeal | m.AdjustResult | m.AnnulResult)
    if isinstance(state, Finished) and not after_the_end:
        raise DealOver("the tournament is over", code="illegal.tournament_over")
    if isinstance(command, m.ArbiterCommand) and not command.reason.strip():
        raise refuse("no_reason", "every arbiter's decision states its reason")
    match command:
        case m.Register():
            return [_register(command, state)]
        case m.CheckIn():
            return [_check_in(command, state)]
        case m.Withdraw():
            who = entrant(state, command.player)
            if who is None or who.status not in ("registered", "active"):
                raise refuse("not_registered", f"{command.player} is not in the field")
            return [m.PlayerWithdrew(at=command.at, player=command.player, reason=command.reason)]
        case m.StartRound():
            return _start_round(command, state)
        case m.RecordResult():
            return _record(command, state)
        case m.ReportTimeoutRemoval():
            t = _open_table(state, command.round_no, command.table)
            if command.player not in t.seating or command.player in t.removed:
                raise refuse("not_at_table", f"{command.player} does not play at this table")
            removed = m.PlayerRemoved(
                at=command.at, round_no=command.round_no, table=command.table,
                player=command.player,
            )  # fmt: skip
            if not state.format.discipline.card_for_timeout_removal:
                return [removed]
            card = m.YellowCard(
                at=command.at, player=command.player, reason="timeout_removal",
                round_no=command.round_no,
            )  # fmt: skip
            return [removed, *_carded(state, [card])]
        case m.CloseRound():
            return _close_round(command, state)
        case m.NameLineup():
            return [_lineup(command, state)]
        case m.StartRobotRun():
            return [_robot_run(command, state)]
        case m.EndEvent():
            if state.format.duplicate is None or state.format.duplicate.robots is None:
                raise refuse("not_robot", "only a robot duplicate ends by its window")
            if command.at < state.format.registration.closes_at:
                raise refuse("window_open", "the window has not closed")
            return [m.TournamentEnded(at=command.at)]
        case m.ArbiterCommand():
            return _arbiter(command, state)
    raise WrongPhase(f"unknown command {type(command).__name__}")


def _check_commitment(committed: str) -> None:
    """A commitment is a SHA-256 in lower-case hex, or no secret could ever open it."""
    if len(committed) != 64 or committed.strip("0123456789abcdef"):
        raise refuse("bad_commitment", "a commitment is a SHA-256 in lower-case hex")


def _reveal_deals(command: m.RevealDeals, state: Tournament) -> m.DealsRevealed:
    if not isinstance(state, Finished):
        raise WrongPhase("the deals are revealed when the event ends", code="illegal.not_over")
    if state.deals_commitment is None:
        raise refuse("no_commitment", "this event committed to no deals")
    if state.deals_secret is not None:
        raise refuse("already_revealed", "the deals' secret was already revealed")
    if not reveals(command.secret, state.deals_commitment):
        raise refuse("wrong_secret", "that secret does not open the deals' commitment")
    return m.DealsRevealed(at=command.at, secret=command.secret)


def _register(command: m.Register, state: Tournament) -> m.PlayerRegistered:
    fmt, reg = state.format, state.format.registration
    if entrant(state, command.player) is not None:
        raise refuse("already_registered", f"{command.player} is already registered")
    robots = fmt.duplicate is not None and fmt.duplicate.robots is not None
    late = isinstance(state, Running) and not robots  # a robot event's window is its play window
    if late and len(state.rounds) > reg.late_entry_rounds:
        raise refuse("registration_closed", "late entry is closed")
    if not late and not reg.opens_at <= command.at < reg.closes_at:
        raise refuse("registration_closed", "registration is not open")
    if reg.capacity and len([e for e in state.entrants if e.status != "withdrawn"]) >= (
        reg.capacity
    ):
        raise refuse("field_full", "the field is full")
    if (fmt.teams is None) != (command.team is None):
        raise refuse("team", "a team event registers players in teams; others, alone")
    if fmt.teams is not None:
        mates = [e for e in state.entrants if e.team == command.team and e.status != "withdrawn"]
        if len(mates) >= fmt.teams.max_size:
            raise refuse("team_full", f"team {command.team} already has {len(mates)} players")
    return m.PlayerRegistered(at=command.at, player=command.player, team=command.team, late=late)


def _check_in(command: m.CheckIn, state: Tournament) -> m.PlayerCheckedIn:
    reg = state.format.registration
    who = entrant(state, command.player)
    if who is None or who.status != "registered":
        raise refuse("not_registered", f"{command.player} is not registered")
    if reg.check_in_opens_at is None or reg.check_in_closes_at is None:
        raise refuse("no_check_in", "this event has no check-in")
    if not isinstance(state, Registering) or not (
        reg.check_in_opens_at <= command.at < reg.check_in_closes_at
    ):
        raise refuse("check_in_closed", "check-in is not open")
    if who.checked_in:
        raise refuse("checked_in", "already checked in")
    return m.PlayerCheckedIn(at=command.at, player=command.player, client_seed=command.client_seed)


def _start_round(command: m.StartRound, state: Tournament) -> list[m.TournamentEvent]:
    fmt = state.format
    if fmt.duplicate is not None and fmt.duplicate.robots is not None:
        raise refuse("robot_event", "a robot duplicate has runs, not rounds")
    if state.rounds and state.rounds[-1].secret is None:
        raise refuse("round_running", f"round {state.rounds[-1].round_no} has not ended")
    round_no = len(state.rounds) + 1
    if round_no > fmt.rounds:
        raise refuse("no_more_rounds", "every round has been played")
    if not reveals(command.secret, state.commitment):
        raise refuse("wrong_secret", "that secret does not open the round's commitment")
    _check_commitment(command.next_commitment)
    secret = bytes.fromhex(command.secret)
    events: list[m.TournamentEvent] = []
    after = state
    if round_no == 1 and fmt.registration.check_in_opens_at is not None:
        absent = tuple(e.player for e in state.entrants if e.status == "registered"
                       and not e.checked_in)  # fmt: skip
        events.append(m.CheckInClosed(at=command.at, no_shows=absent))
    cut = next((c for c in fmt.cuts if c.after_round == round_no - 1), None)
    if cut is not None:
        ranked = [s.player for s in current_standings(state, field(state))]
        if cut.keep > len(ranked):
            raise refuse("cut_too_large", f"the cut keeps {cut.keep} of {len(ranked)}")
        events.append(
            m.FieldCut(
                at=command.at, after_round=round_no - 1, finalists=tuple(ranked[: cut.keep]),
                eliminated=tuple(ranked[cut.keep :]),
            )
        )  # fmt: skip
    after = _fold(events, state)
    players = field(after)
    if len(players) < 3:
        raise refuse("field_too_small", "a round needs at least three players")
    kind: Literal["schedule", "swiss", "arbiter"]
    if command.pairing is not None:
        if command.arbiter is None:
            raise refuse("no_arbiter", "an uploaded pairing names its arbiter")
        check_pairing(command.pairing, players, fmt.table_size, fmt.uneven)
        pairing, kind = command.pairing, "arbiter"
    else:
        stage = [c for c in fmt.cuts if c.after_round < round_no]
        stage_pairing = stage[-1].pairing if stage else fmt.pairing
        if stage_pairing == "schedule" and (round_no == 1 or cut is not None):
            rounds = _stage_rounds(fmt, round_no)
            draw = schedule_draw(secret, round_no, players)
            if fmt.duplicate is not None:
                made = rotation_schedule(players, rounds, draw)
            else:
                made = random_schedule(
                    players, rounds, fmt.table_size, fmt.uneven, draw, _team_pairs(after)
                )
            events.append(m.ScheduleDrawn(at=command.at, first_round=round_no, rounds=made))
            after = _fold(events[-1:], after)
        if stage_pairing == "schedule":
            pairing = _scheduled(after, round_no, players)
            kind = "schedule"
        else:
            pairing, kind = _swiss(after, players, secret, round_no), "swiss"
    tables = _seat(after, pairing, secret, round_no, rotated=kind == "schedule")
    events.append(
        m.RoundStarted(
            at=command.at, round_no=round_no, pairing=kind, commitment=state.commitment,
            next_commitment=command.next_commitment, tables=tables, byes=pairing.byes,
            arbiter=command.arbiter,
        )
    )  # fmt: skip
    return events


def _stage_rounds(fmt: Format, round_no: int) -> int:
    """Rounds from ``round_no`` to the next cut, or to the end."""
    later = [c.after_round for c in fmt.cuts if c.after_round >= round_no]
    return (min(later) if later else fmt.rounds) - round_no + 1


def _team_pairs(state: Tournament) -> list[frozenset[str]]:
    """Team-mates never sit at one table: their pairs count as met."""
    by_team: dict[str, list[str]] = {}
    for e in state.entrants:
        if e.team is not None:
            by_team.setdefault(e.team, []).append(e.player)
    return [pair for mates in by_team.values() for pair in pairs_of(mates)]


def _scheduled(state: Tournament, round_no: int, players: Sequence[str]) -> Pairing:
    """The schedule's round with players who left taken out; a table left below three gives
    its players byes."""
    planned = state.schedule[round_no - state.schedule_from]
    here = set(players)
    tables, spare = [], [p for p in planned.byes if p in here]
    for table in planned.tables:
        kept = tuple(p for p in table if p in here)
        if len(kept) >= 3:
            tables.append(kept)
        else:
            spare += kept
    return Pairing(tables=tuple(tables), byes=tuple(sorted(spare)))


def _swiss(state: Tournament, players: Sequence[str], secret: bytes, round_no: int) -> Pairing:
    fmt = state.format
    played = any(r.round_no >= state.stage_from for r in state.rounds)
    if played:
        ranked = [s.player for s in current_standings(state, players)]
    else:  # the first round of a stage: a drawn order
        ranked = schedule_draw(secret, round_no, players).shuffle(sorted(players))
    met = meetings(Pairing(tables=tuple(t.seating for t in r.tables)) for r in state.rounds)
    met.update(_team_pairs(state))
    byes_had = Counter(p for _, p in byes(state))
    return swiss(ranked, met, fmt.table_size, fmt.uneven, byes_had, fmt.repeat_penalty)


def _seat(
    state: Tournament, pairing: Pairing, secret: bytes, round_no: int, rotated: bool
) -> tuple[m.SeatedTable, ...]:
    """Each table's seating and first dealer, drawn; a duplicate event's seats instead follow
    its rotation (a schedule lists each table in seat order) or, paired otherwise, even out who
    held which seat."""
    seeds = {e.player: e.seed for e in state.entrants}
    held: dict[str, list[int]] = {}
    for r in state.rounds:
        for t in r.tables:
            for seat, p in enumerate(t.seating):
                held.setdefault(p, [0, 0, 0, 0])[seat] += 1
    out = []
    for i, players in enumerate(pairing.tables, start=1):
        names = sorted(players)
        seating, dealer = seat_table(secret, round_no, i, names, [seeds.get(p, "") for p in names])
        if state.format.duplicate is not None and rotated and len(players) == 3:
            seating = tuple(players)
        elif state.format.duplicate is not None:
            seating = balanced_seating(seating, held, seating)
        out.append(m.SeatedTable(table=i, seating=seating, first_dealer=dealer))
    return tuple(out)


def _find_table(state: Tournament, round_no: int, table: int) -> tuple[Round | None, Table]:
    if round_no == 0:
        if not 1 <= table <= len(state.runs):
            raise refuse("no_such_table", f"there is no run {table}")
        return None, state.runs[table - 1]
    if not 1 <= round_no <= len(state.rounds):
        raise refuse("no_such_round", f"round {round_no} has not started")
    r = state.rounds[round_no - 1]
    if not 1 <= table <= len(r.tables):
        raise refuse("no_such_table", f"round {round_no} has no table {table}")
    return r, r.tables[table - 1]


def _open_table(state: Tournament, round_no: int, table: int) -> Table:
    """A table still playing: its round not ended, its result not recorded."""
    r, t = _find_table(state, round_no, table)
    if r is not None and r.secret is not None:
        raise refuse("round_ended", f"round {round_no} has ended")
    if t.result is not None or t.annulled:
        raise refuse("already_recorded", "this table's result is recorded: the arbiter adjusts")
    return t


def _record(command: m.RecordResult, state: Tournament) -> list[m.TournamentEvent]:
    fmt = state.format
    t = _open_table(state, command.round_no, command.table)
    if t.paused:
        raise refuse("table_paused", "the table is paused by the arbiter")
    n = len(t.seating)
    if len(command.whists) != n or sum(command.whists) != 0:
        raise refuse("bad_result", f"a result is {n} whists in seat order, summing to zero")
    if command.pool and len(command.pool) != n:
        raise refuse("bad_result", "pools are given per seat")
    deals: tuple[tuple[str, ...], ...] = ()
    if fmt.duplicate is not None:
        if len(command.outcomes) != fmt.duplicate.deals_per_round or any(
            o.seats != n for o in command.outcomes
        ):
            raise refuse("bad_result", "a duplicate result gives every deal's outcome")
        rules = table_rules(fmt, n)
        # each deal scored alone: the pool's state and the order of deals do not matter
        deals = tuple(tuple(str(v) for v in deal_alone(o, rules)) for o in command.outcomes)
    elif command.outcomes:
        raise refuse("bad_result", "only a duplicate event records deals")
    events: list[m.TournamentEvent] = [
        m.TableResultRecorded(
            at=command.at, round_no=command.round_no, table=command.table, players=t.seating,
            whists=command.whists, pool=command.pool, timed_out=command.timed_out,
            outcomes=command.outcomes, deals=deals,
        )
    ]  # fmt: skip
    below = fmt.discipline.card_below
    if below is not None:
        cards: list[m.TournamentEvent] = [
            m.YellowCard(
                at=command.at, player=p, reason="below_threshold", round_no=command.round_no,
                detail=f"{w} whists, below −{below}",
            )
            for p, w in zip(t.seating, command.whists, strict=True)
            if w < -below and not p.startswith("bot:")
        ]  # fmt: skip
        events += _carded(state, cards)
    return events


def _carded(state: Tournament, cards: list[m.TournamentEvent]) -> list[m.TournamentEvent]:
    """The cards, each followed by a disqualification when it reaches the limit."""
    out: list[m.TournamentEvent] = []
    limit = state.format.discipline.cards_to_disqualify
    for card in cards:
        assert isinstance(card, m.YellowCard)
        who = entrant(state, card.player)
        if who is None:
            continue  # a substitute from outside the field: the arbiter's business
        out.append(card)
        if who.status != "disqualified" and limit and who.cards + 1 == limit:
            out.append(m.Disqualified(at=card.at, player=card.player, cards=who.cards + 1))
    return out


def _close_round(command: m.CloseRound, state: Tournament) -> list[m.TournamentEvent]:
    if not 1 <= command.round_no <= len(state.rounds):
        raise refuse("no_round", f"round {command.round_no} has not started")
    r = state.rounds[command.round_no - 1]
    if r.secret is not None:
        raise refuse("no_round", f"round {command.round_no} is not being played")
    if any(t.result is None and not t.annulled for t in r.tables):
        raise refuse("tables_playing", "a table has no result yet")
    if not reveals(command.secret, r.commitment):
        raise refuse("wrong_secret", "that secret does not open the round's commitment")
    events: list[m.TournamentEvent] = [
        m.RoundEnded(at=command.at, round_no=r.round_no, secret=command.secret)
    ]
    if r.round_no == state.format.rounds:
        events.append(m.TournamentEnded(at=command.at))
    return events


def _lineup(command: m.NameLineup, state: Tournament) -> m.LineupNamed:
    """A lineup counts from the next round to start: named while a round is played (the next
    round starts as soon as the last table of this one has a result), or before round 1."""
    rules = state.format.teams
    if rules is None:
        raise refuse("team", "this is not a team event")
    if len(state.rounds) >= state.format.rounds:
        raise refuse("no_round_left", "every round has started: no lineup is left to name")
    members = {e.player for e in state.entrants if e.team == command.team
               and e.status in ("registered", "active")}  # fmt: skip
    chosen = set(command.players)
    if len(chosen) != rules.playing or len(command.players) != rules.playing:
        raise refuse("bad_lineup", f"a lineup names {rules.playing} different players")
    if not chosen <= members:
        raise refuse("bad_lineup", f"a lineup names players of team {command.team} in the field")
    return m.LineupNamed(
        at=command.at, team=command.team, players=command.players, by=command.by,
        for_round=len(state.rounds) + 1,
    )  # fmt: skip


def _robot_run(command: m.StartRobotRun, state: Tournament) -> m.RobotRunStarted:
    fmt, reg = state.format, state.format.registration
    if fmt.duplicate is None or fmt.duplicate.robots is None:
        raise refuse("not_robot", "this is not a robot duplicate")
    who = entrant(state, command.player)
    if who is None or who.status not in ("registered", "active"):
        raise refuse("not_registered", f"{command.player} is not registered")
    if not reg.opens_at <= command.at < reg.closes_at:
        raise refuse("window_closed", "the window is closed")
    if any(command.player in t.seating for t in state.runs):
        raise refuse("already_played", "one run per entrant")
    level = fmt.duplicate.robots.level
    seating = (command.player, f"bot:{level}:1", f"bot:{level}:2")
    return m.RobotRunStarted(
        at=command.at, run=len(state.runs) + 1, player=command.player, seating=seating
    )


def _arbiter(command: m.ArbiterCommand, state: Tournament) -> list[m.TournamentEvent]:
    match command:
        case m.PauseTable():
            t = _open_table(state, command.round_no, command.table)
            if t.paused:
                raise refuse("table_paused", "the table is already paused")
            return [
                m.TablePaused(
                    round_no=command.round_no,
                    table=command.table,
                    arbiter=command.arbiter,
                    reason=command.reason,
                    at=command.at,
                )
            ]
        case m.ResumeTable():
            t = _open_table(state, command.round_no, command.table)
            if not t.paused:
                raise refuse("not_paused", "the table is not paused")
            return [
                m.TableResumed(
                    round_no=command.round_no,
                    table=command.table,
                    arbiter=command.arbiter,
                    reason=command.reason,
                    at=command.at,
                )
            ]
        case m.ReplacePlayer():
            t = _open_table(state, command.round_no, command.table)
            if command.player not in t.seating:
                raise refuse("not_at_table", f"{command.player} does not play at this table")
            r, _ = _find_table(state, command.round_no, command.table)
            busy = {p for x in (r.tables if r else state.runs) for p in x.seating}
            sub = entrant(state, command.substitute)
            if command.substitute in busy or (sub is not None and sub.status in (
                    "withdrawn", "disqualified")):  # fmt: skip
                raise refuse("substitute_busy", f"{command.substitute} cannot take the seat")
            return [
                m.PlayerReplaced(
                    round_no=command.round_no, table=command.table, player=command.player,
                    substitute=command.substitute, arbiter=command.arbiter,
                    reason=command.reason, at=command.at,
                )
            ]  # fmt: skip
        case m.AdjustResult():
            _, t = _find_table(state, command.round_no, command.table)
            if t.result is None or t.annulled:
                raise refuse("no_result", "only a recorded result is adjusted")
            if len(command.whists) != len(t.seating) or sum(command.whists) != 0:
                raise refuse("bad_result", "a result is whists in seat order, summing to zero")
            return [
                m.ResultAdjusted(
                    round_no=command.round_no,
                    table=command.table,
                    whists=command.whists,
                    arbiter=command.arbiter,
                    reason=command.reason,
                    at=command.at,
                )
            ]
        case m.AnnulResult():
            _, t = _find_table(state, command.round_no, command.table)
            if t.annulled:
                raise refuse("annulled", "the result is already annulled")
            return [
                m.ResultAnnulled(
                    round_no=command.round_no,
                    table=command.table,
                    arbiter=command.arbiter,
                    reason=command.reason,
                    at=command.at,
                )
            ]
        case m.GiveCard():
            if entrant(state, command.player) is None:
                raise refuse("not_registered", f"{command.player} is not in the field")
            card = m.YellowCard(
                at=command.at, player=command.player, reason="arbiter",
                round_no=len(state.rounds), detail=command.reason, arbiter=command.arbiter,
            )  # fmt: skip
            return _carded(state, [card])
        case m.RecordAppeal():
            return [
                m.AppealRecorded(
                    player=command.player,
                    appeal=command.appeal,
                    decision=command.decision,
                    arbiter=command.arbiter,
                    reason=command.reason,
                    at=command.at,
                )
            ]
    raise WrongPhase(f"unknown arbiter command {type(command).__name__}")


# ---- evolve ---------------------------------------------------------------------------------


def evolve(state: State, event: m.TournamentEvent) -> State:
    """The state after ``event``; no rules here."""
    if isinstance(event, m.TournamentCreated):
        return Registering(
            format=event.format, commitment=event.commitment,
            deals_commitment=event.deals_commitment,
        )  # fmt: skip
    assert not isinstance(state, NoTournament), "an event before the tournament"
    match event:
        case m.PlayerRegistered():
            new = Entrant(
                player=event.player, team=event.team, late=event.late,
                status="active" if event.late or isinstance(state, Running) else "registered",
            )  # fmt: skip
            return replace(state, entrants=(*state.entrants, new))
        case m.PlayerCheckedIn():
            return _entrant(state, event.player, checked_in=True, seed=event.client_seed)
        case m.PlayerWithdrew():
            return _entrant(state, event.player, status="withdrawn")
        case m.CheckInClosed():
            for player in event.no_shows:
                state = _entrant(state, player, status="no_show")
            return state
        case m.FieldCut():
            for player in event.eliminated:
                state = _entrant(state, player, status="eliminated")
            cut = next(c for c in state.format.cuts if c.after_round == event.after_round)
            if cut.carry == "none":
                state = replace(state, stage_from=event.after_round + 1)
            return state
        case m.ScheduleDrawn():
            return replace(state, schedule=event.rounds, schedule_from=event.first_round)
        case m.RoundStarted():
            if isinstance(state, Registering):
                state = Running(**msgspec.structs.asdict(state))
                state = replace(state, entrants=tuple(
                    replace(e, status="active") if e.status == "registered" else e
                    for e in state.entrants
                ))  # fmt: skip
            tables = tuple(
                Table(table=t.table, seating=t.seating, first_dealer=t.first_dealer)
                for t in event.tables
            )
            new_round = Round(
                round_no=event.round_no, commitment=event.commitment, tables=tables,
                byes=event.byes,
            )  # fmt: skip
            return replace(
                state, rounds=(*state.rounds, new_round), commitment=event.next_commitment
            )
        case m.RobotRunStarted():
            if isinstance(state, Registering):
                state = Running(**msgspec.structs.asdict(state))
            state = _entrant(state, event.player, status="active")
            run = Table(table=event.run, seating=event.seating)
            return replace(state, runs=(*state.runs, run))
        case m.TableResultRecorded():
            result = Result(
                round_no=event.round_no, players=event.players, whists=event.whists,
                pool=event.pool, timed_out=event.timed_out,
            )  # fmt: skip
            return _table(state, event.round_no, event.table, result=result, deals=event.deals)
        case m.PlayerRemoved():
            t = _find_table(state, event.round_no, event.table)[1]
            return _table(state, event.round_no, event.table, removed=(*t.removed, event.player))
        case m.YellowCard():
            who = entrant(state, event.player)
            assert who is not None
            return _entrant(state, event.player, cards=who.cards + 1)
        case m.Disqualified():
            return _entrant(state, event.player, status="disqualified")
        case m.RoundEnded():
            rounds = list(state.rounds)
            rounds[event.round_no - 1] = replace(rounds[event.round_no - 1], secret=event.secret)
            return replace(state, rounds=tuple(rounds))
        case m.TournamentEnded():
            return Finished(**msgspec.structs.asdict(state))
        case m.DealsRevealed():
            return replace(state, deals_secret=event.secret)
        case m.TablePaused():
            return _table(state, event.round_no, event.table, paused=True)
        case m.TableResumed():
            return _table(state, event.round_no, event.table, paused=False)
        case m.PlayerReplaced():
            t = _find_table(state, event.round_no, event.table)[1]
            seating = tuple(event.substitute if p == event.player else p for p in t.seating)
            return _table(state, event.round_no, event.table, seating=seating)
        case m.ResultAdjusted():
            t = _find_table(state, event.round_no, event.table)[1]
            assert t.result is not None
            result = replace(t.result, whists=event.whists)
            return _table(state, event.round_no, event.table, result=result)
        case m.ResultAnnulled():
            return _table(state, event.round_no, event.table, annulled=True)
        case m.AppealRecorded():
            return state
        case m.LineupNamed():
            named = tuple((t, p) for t, p in state.lineups if t != event.team)
            return replace(state, lineups=(*named, (event.team, event.players)))
    raise AssertionError(f"unknown event {type(event).__name__}")


def _entrant(state: Tournament, player: str, **changes: object) -> Tournament:
    entrants = tuple(replace(e, **changes) if e.player == player else e for e in state.entrants)
    return replace(state, entrants=entrants)


def _table(state: Tournament, round_no: int, table: int, **changes: object) -> Tournament:
    if round_no == 0:
        runs = list(state.runs)
        runs[table - 1] = replace(runs[table - 1], **changes)
        return replace(state, runs=tuple(runs))
    rounds = list(state.rounds)
    r = rounds[round_no - 1]
    tables = list(r.tables)
    tables[table - 1] = replace(tables[table - 1], **changes)
    rounds[round_no - 1] = replace(r, tables=tuple(tables))
    return replace(state, rounds=tuple(rounds))


def _fold(events: Iterable[m.TournamentEvent], state: Tournament) -> Tournament:
    after = fold(events, state)
    assert isinstance(after, Tournament)
    return after


def fold(events: Iterable[m.TournamentEvent], state: State = INITIAL_STATE) -> State:
    for event in events:
        state = evolve(state, event)
    return state
