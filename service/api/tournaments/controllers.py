"""Tournaments over HTTP (docs/tournaments.md, The service and its API).

Routes (under /v1):

    POST /tournaments                         create one; the caller is its organiser (arbiter)
    GET  /tournaments                         the list, newest first
    GET  /tournaments/{id}                    rules, entrants, standings, rounds, tables, runs
    POST /tournaments/{id}/registrations      register the caller (DELETE: withdraw)
    POST /tournaments/{id}/check-ins          check the caller in
    POST /tournaments/{id}/rounds             the organiser starts the next round
    POST /tournaments/{id}/lineups            a team's lineup (its captain, or the arbiter)
    POST /tournaments/{id}/decisions          an arbiter's decision, with its reason
    POST /tournaments/{id}/runs               robot duplicate: the caller's run
    GET  /tournaments/{id}/log                the tournament's events, paged
    GET  /tournaments/{id}/export             pairings and results: JSON, or text to publish
    GET  /tournaments/{id}/stream             the standings live (Server-Sent Events)
    GET  /players/{id}/tournaments            a player's tournaments

A duplicate's table results (each deal's outcome and value, the whists) are bare in every view,
log page and export until their round has ended (a robot duplicate's: until the event has
ended), since the other tables, or later entrants, play the same deals.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Annotated, Any, Literal

import msgspec
from litestar import Controller, Response, delete, get, post
from litestar.di import NamedDependency
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import Body, FromPath, FromQuery, JSONBody, QueryParameter
from litestar.response import Stream

from domain.tournament import decider as td
from domain.tournament import messages as tm
from domain.tournament.points import team_standings
from service.api.auth import SECURITY
from service.api.common import PRIVATE
from service.api.errors import etag, problem_responses
from service.api.games.events import SseSettings
from service.api.tournaments.schemas import (
    AdjustResultBody,
    AnnulResultBody,
    ArbiterDecision,
    CheckInBody,
    EntrantView,
    GiveCardBody,
    LineupBody,
    LogItem,
    NewTournament,
    PauseTableBody,
    PlayerTournaments,
    RecordAppealBody,
    RegisterBody,
    ReplacePlayerBody,
    ResumeTableBody,
    RoundView,
    RunStarted,
    StandingView,
    StartBody,
    TableResultView,
    TableView,
    TeamView,
    TournamentItem,
    TournamentLog,
    TournamentPage,
    TournamentView,
    WithdrawBody,
)
from service.exceptions import InvalidCursor
from service.games.tournaments import TableRow, TournamentService
from service.platform.cursors import decode_cursor, encode_cursor
from service.platform.lru import Lru
from service.players.accounts import Caller, Players

_LIST_CURSOR = "tournaments"
_WRITE = ("validation", "unauthenticated", "not-found", "illegal-action", "payload-too-large")
_encoder = msgspec.json.Encoder()


@dataclass(frozen=True, slots=True)
class _Standings:
    """A tournament's standings at one version, rendered once for all its followers: the whole
    frame, and each player's standing encoded alone (for the frames of what changed)."""

    version: int
    status: str
    rounds: int
    entries: dict[str, bytes]
    """Player → his encoded standing, in the standings' order."""
    frame: bytes


_frames: Lru[tuple[uuid.UUID, int], _Standings] = Lru(256)
_rendering: dict[tuple[uuid.UUID, int], asyncio.Future[_Standings]] = {}
_changes: Lru[tuple[uuid.UUID, int, int], bytes] = Lru(256)
"""The ``standings-changes`` frame from one version to another, made once for all followers."""


def _text(value: Fraction) -> str:
    return str(value)


def disclosed(state: td.Tournament) -> td.Tournament:
    """The state as everyone may see it now: a duplicate's table results only once their round
    has ended (a robot run's once the event has), since others play the same deals."""
    if state.format.duplicate is None or isinstance(state, td.Finished):
        return state
    rounds = tuple(
        r if r.secret is not None else msgspec.structs.replace(r, tables=tuple(
            msgspec.structs.replace(t, result=None, deals=()) for t in r.tables
        ))
        for r in state.rounds
    )  # fmt: skip
    runs = tuple(msgspec.structs.replace(t, result=None, deals=()) for t in state.runs)
    return msgspec.structs.replace(state, rounds=rounds, runs=runs)


def public_event(event: tm.TournamentEvent, state: td.Tournament) -> tm.TournamentEvent:
    """An event of the log as everyone may see it now (`disclosed`)."""
    if state.format.duplicate is None or isinstance(state, td.Finished):
        return event
    if isinstance(event, tm.TableResultRecorded):
        ended = event.round_no > 0 and state.rounds[event.round_no - 1].secret is not None
        if not ended:
            return msgspec.structs.replace(event, whists=(), pool=(), outcomes=(), deals=())
    if isinstance(event, tm.YellowCard) and event.reason == "below_threshold":
        ended = 0 < event.round_no <= len(state.rounds) and (
            state.rounds[event.round_no - 1].secret is not None
        )
        if not ended:
            return msgspec.structs.replace(event, detail="")
    return event


def _status(state: td.Tournament) -> Literal["registering", "running", "finished"]:
    if isinstance(state, td.Finished):
        return "finished"
    return "running" if isinstance(state, td.Running) else "registering"


async def _names(players: Players, ids: list[str]) -> dict[str, str]:
    known = await players.many([i for i in ids if not i.startswith("bot:")])
    return {i: p.name for i, p in known.items()}


def _table(t: td.Table, row: TableRow | None) -> TableView:
    result = None
    if t.result is not None:
        result = TableResultView(
            whists=t.result.whists, pool=t.result.pool, timed_out=t.result.timed_out,
            deals=t.deals,
        )  # fmt: skip
    if row is not None and not row.created:
        row = None  # being opened: no link to a game that is not there yet
    return TableView(
        table=t.table, seating=t.seating, first_dealer=t.first_dealer,
        game_id=row.game_id if row else None,
        game=f"/v1/games/{row.game_id}" if row else None, result=result, annulled=t.annulled,
        paused=t.paused, removed=t.removed,
    )  # fmt: skip


def standings_of(state: td.Tournament, names: dict[str, str]) -> list[StandingView]:
    shown = disclosed(state)
    totals = td.duplicate_totals(shown) if shown.format.duplicate is not None else {}
    out = [
        StandingView(
            place=s.place, player=s.player, name=names.get(s.player), points=_text(s.points),
            whists=_text(s.whists), bula=s.bula, rounds=s.rounds,
            duplicate=_text(totals[s.player]) if s.player in totals else None,
        )
        for s in td.current_standings(shown)
    ]  # fmt: skip
    if totals:  # a duplicate ranks by its scale
        ranked = sorted(out, key=lambda s: -Fraction(s.duplicate or "0"))
        out = [msgspec.structs.replace(s, place=i) for i, s in enumerate(ranked, start=1)]
    return out


def teams_of(state: td.Tournament) -> list[TeamView]:
    """A team event's standings by team sums, each team with its captain and next lineup."""
    teams = td.teams(state)
    if state.format.teams is None or not teams:
        return []
    shown = disclosed(state)
    return [
        TeamView(
            team=s.team, place=s.place, points=_text(s.points), whists=_text(s.whists),
            members=tuple(teams[s.team]), captain=td.captain(state, s.team),
            lineup=td.lineup(state, s.team),
        )
        for s in team_standings(teams, td.results(shown), state.format)
    ]  # fmt: skip


async def tournament_view(
    tournaments: TournamentService, players: Players, tid: uuid.UUID
) -> tuple[int, TournamentView]:
    version, state = await tournaments.state(tid)
    rows = {(r.round_no, r.table_no): r for r in await tournaments.tables(tid)}
    names = await _names(players, [e.player for e in state.entrants])
    shown = disclosed(state)
    view = TournamentView(
        id=tid, name=await tournaments.name(tid), kind=_kind(state), status=_status(state),
        organiser=await tournaments.organiser(tid), version=version, format=state.format,
        commitment=state.commitment, deals_commitment=state.deals_commitment,
        deals_secret=state.deals_secret,
        entrants=[
            EntrantView(
                player=e.player, name=names.get(e.player), team=e.team, status=e.status,
                checked_in=e.checked_in, late=e.late, cards=e.cards,
            )
            for e in state.entrants
        ],
        standings=standings_of(state, names),
        teams=teams_of(state),
        rounds=[
            RoundView(
                round_no=r.round_no, commitment=r.commitment, secret=r.secret, byes=r.byes,
                tables=[_table(t, rows.get((r.round_no, t.table))) for t in r.tables],
            )
            for r in shown.rounds
        ],
        runs=[_table(t, rows.get((0, t.table))) for t in shown.runs],
    )  # fmt: skip
    return version, view


def _kind(state: td.Tournament) -> str:
    dup = state.format.duplicate
    if dup is not None:
        return "robot" if dup.robots is not None else "duplicate"
    return state.format.pairing


def _decision(body: ArbiterDecision, arbiter: str) -> tm.ArbiterDecision:
    common: dict[str, Any] = {"arbiter": arbiter, "reason": body.reason}
    match body:
        case PauseTableBody():
            return tm.PauseTable(round_no=body.round_no, table=body.table, **common)
        case ResumeTableBody():
            return tm.ResumeTable(round_no=body.round_no, table=body.table, **common)
        case ReplacePlayerBody():
            return tm.ReplacePlayer(
                round_no=body.round_no, table=body.table, player=body.player,
                substitute=body.substitute, **common,
            )  # fmt: skip
        case AdjustResultBody():
            return tm.AdjustResult(
                round_no=body.round_no, table=body.table, whists=body.whists, **common
            )
        case AnnulResultBody():
            return tm.AnnulResult(round_no=body.round_no, table=body.table, **common)
        case GiveCardBody():
            return tm.GiveCard(player=body.player, **common)
        case RecordAppealBody():
            return tm.RecordAppeal(
                player=body.player, appeal=body.appeal, decision=body.decision, **common
            )
    raise AssertionError(f"unknown decision {body!r}")


def export_text(view: TournamentView) -> str:
    """The pairings and results as an arbiter publishes them: one block per round, then the
    standings."""
    names = {e.player: e.name or e.player for e in view.entrants}

    def who(p: str) -> str:
        return names.get(p, p)

    lines = [view.name, f"{view.kind}, {view.format.rounds} round(s), {view.status}", ""]
    for r in view.rounds:
        lines.append(f"Round {r.round_no}" + (f" (secret {r.secret})" if r.secret else ""))
        for t in r.tables:
            seats = ", ".join(who(p) for p in t.seating)
            if t.annulled:
                outcome = "annulled"
            elif t.result is not None:
                outcome = " ".join(f"{w:+d}" for w in t.result.whists)
            else:
                outcome = "playing"
            lines.append(f"  Table {t.table}: {seats}: {outcome}")
        if r.byes:
            lines.append("  Byes: " + ", ".join(who(p) for p in r.byes))
        lines.append("")
    for run in view.runs:
        outcome = " ".join(f"{w:+d}" for w in run.result.whists) if run.result else "playing"
        lines.append(f"Run {run.table}: {', '.join(who(p) for p in run.seating)}: {outcome}")
    lines.append("Standings")
    for s in view.standings:
        extra = f"  {s.duplicate}" if s.duplicate is not None else ""
        lines.append(f"  {s.place}. {who(s.player)}  {s.points} pts  {s.whists} whists{extra}")
    if view.teams:
        lines.append("Teams")
        for team in view.teams:
            members = ", ".join(who(p) for p in team.members)
            lines.append(f"  {team.place}. {team.team}  {team.points} pts  {team.whists} whists"
                         f"  ({members})")  # fmt: skip
    return "\n".join(lines) + "\n"


async def _standings_frames(
    tournaments: TournamentService, players: Players, tid: uuid.UUID, sse: SseSettings
) -> AsyncIterator[bytes]:
    """The standings whole at once, then only what changed at each new version: at a round's
    start a thousand followers are sent a few hundred bytes each, not every player's standing
    again (docs/tournaments.md, The start of an event)."""
    yield f"retry: {sse.retry_ms}\n\n".encode()
    sent: _Standings | None = None
    async for version in tournaments.follow(tid, sse.ping_interval):
        if version is None:
            yield b": ping\n\n"
            continue
        if sent is not None and version <= sent.version:
            continue
        now = await _standings(tournaments, players, tid, version)
        if sent is not None and now.version <= sent.version:
            continue
        yield now.frame if sent is None else _changes_frame(tid, sent, now)
        sent = now


async def _standings(
    tournaments: TournamentService, players: Players, tid: uuid.UUID, version: int
) -> _Standings:
    """The standings of ``version`` (or later), rendered once however many followers ask at
    the same moment (a start wakes them all together)."""
    key = (tid, version)
    made = _frames.get(key)
    if made is not None:
        return made
    pending = _rendering.get(key)
    if pending is None:
        pending = asyncio.ensure_future(_render(tournaments, players, tid))
        _rendering[key] = pending
        pending.add_done_callback(lambda _: _rendering.pop(key, None))
    standings = await asyncio.shield(pending)
    _frames.put(key, standings)
    return standings


async def _render(tournaments: TournamentService, players: Players, tid: uuid.UUID) -> _Standings:
    _, view = await tournament_view(tournaments, players, tid)
    entries = {s.player: _encoder.encode(s) for s in view.standings}
    head = b'{"version":%d,"status":%s' % (view.version, _encoder.encode(view.status))
    data = b'%s,"standings":[%s],"rounds":%d}' % (head, b",".join(entries.values()),
                                                   len(view.rounds))  # fmt: skip
    frame = b"id: %d\nevent: standings\ndata: %s\n\n" % (view.version, data)
    return _Standings(view.version, view.status, len(view.rounds), entries, frame)


def _changes_frame(tid: uuid.UUID, before: _Standings, after: _Standings) -> bytes:
    """``event: standings-changes`` from ``before`` to ``after``: the standings that differ or
    are new (in the standings' order) and the players no longer standing. When everything
    changed it would carry no less than the whole, which goes instead."""
    key = (tid, before.version, after.version)
    made = _changes.get(key)
    if made is not None:
        return made
    changed = [e for p, e in after.entries.items() if before.entries.get(p) != e]
    left = [p for p in before.entries if p not in after.entries]
    if not left and len(changed) == len(after.entries):
        frame = after.frame
    else:
        data = b'{"version":%d,"since":%d,"status":%s,"changed":[%s],"left":%s,"rounds":%d}' % (
            after.version, before.version, _encoder.encode(after.status), b",".join(changed),
            _encoder.encode(left), after.rounds,
        )  # fmt: skip
        frame = b"id: %d\nevent: standings-changes\ndata: %s\n\n" % (after.version, data)
    _changes.put(key, frame)
    return frame


class TournamentsController(Controller):
    path = "/tournaments"
    tags = ["tournaments"]  # noqa: RUF012

    @post(
        "/",
        status_code=201,
        operation_id="createTournament",
        summary="Create a tournament",
        description=(
            "A tournament with a frozen format (docs/tournaments.md): rules, table size, round "
            "length, registration, pairing, points, discipline, cuts, teams, duplicate. The "
            "caller is its organiser and arbiter. Round 1's secret (and a duplicate's deals' "
            "secret) is drawn by the database; only its commitment is published."
        ),
        security=SECURITY,
        responses=problem_responses(*_WRITE, "invalid-rules"),
    )
    async def create(
        self,
        data: Annotated[NewTournament, Body()],
        caller: NamedDependency[Caller],
        tournaments: NamedDependency[TournamentService],
        players: NamedDependency[Players],
    ) -> Response[TournamentView]:
        caller.may_play()
        tid, _, _ = await tournaments.create(caller.id, data.name, data.format)
        version, view = await tournament_view(tournaments, players, tid)
        headers = {"Location": f"/v1/tournaments/{tid}", "ETag": etag(version)}
        return Response(view, status_code=201, headers=headers)

    @get(
        "/",
        operation_id="listTournaments",
        summary="List tournaments",
        description=(
            "Every tournament (or those of one `status`), newest first, each with its "
            "registration window, rounds and field; page with `next_cursor`."
        ),
        responses=problem_responses("validation"),
    )
    async def list_tournaments(
        self,
        tournaments: NamedDependency[TournamentService],
        cursor: Annotated[str | None, QueryParameter(max_length=64)] = None,
        limit: Annotated[int, QueryParameter(ge=1, le=200)] = 50,
        status: FromQuery[Literal["registering", "running", "finished"] | None] = None,
    ) -> TournamentPage:
        after = None
        if cursor is not None:
            try:
                after = uuid.UUID(decode_cursor(_LIST_CURSOR, cursor))
            except ValueError:
                raise InvalidCursor("this cursor is not one this list gave") from None
        items = await tournaments.page(after, limit, status)
        listed = [TournamentItem(**msgspec.structs.asdict(i)) for i in items]
        more = len(listed) == limit
        return TournamentPage(
            items=listed,
            next_cursor=encode_cursor(_LIST_CURSOR, str(listed[-1].id)) if more else None,
        )

    @get(
        "/{tournament_id:uuid}",
        operation_id="readTournament",
        summary="Read a tournament",
        description=(
            "Its format, entrants, standings, rounds with their tables (each with a link to "
            "its game) and results, and a robot duplicate's runs. A duplicate's results appear "
            "once their round has ended."
        ),
        responses=problem_responses("not-found", "validation"),
    )
    async def read(
        self,
        tournament_id: FromPath[uuid.UUID],
        tournaments: NamedDependency[TournamentService],
        players: NamedDependency[Players],
    ) -> Response[TournamentView]:
        version, view = await tournament_view(tournaments, players, tournament_id)
        return Response(view, headers={"ETag": etag(version), **PRIVATE})

    async def _command(
        self,
        tournaments: TournamentService,
        players: Players,
        tid: uuid.UUID,
        command: tm.TournamentCommand,
        actor: str,
    ) -> Response[TournamentView]:
        await tournaments.command(tid, command, actor)
        version, view = await tournament_view(tournaments, players, tid)
        return Response(view, headers={"ETag": etag(version), **PRIVATE})

    @post(
        "/{tournament_id:uuid}/registrations",
        status_code=200,
        operation_id="registerForTournament",
        summary="Register for a tournament",
        description=(
            "Registers the caller (in a team event, with his team) while registration is "
            "open, or as a late entrant while the format allows."
        ),
        security=SECURITY,
        responses=problem_responses(*_WRITE),
    )
    async def register(
        self,
        tournament_id: FromPath[uuid.UUID],
        caller: NamedDependency[Caller],
        tournaments: NamedDependency[TournamentService],
        players: NamedDependency[Players],
        data: JSONBody[RegisterBody | None] = None,
    ) -> Response[TournamentView]:
        caller.may_play()
        team = data.team if data else None
        command = tm.Register(player=caller.id, team=team)
        return await self._command(tournaments, players, tournament_id, command, caller.id)

    @delete(
        "/{tournament_id:uuid}/registrations",
        status_code=200,
        operation_id="withdrawFromTournament",
        summary="Withdraw from a tournament",
        description=(
            "Before the start the caller leaves the field; after it he is not paired again "
            "and his results stand."
        ),
        security=SECURITY,
        responses=problem_responses(*_WRITE),
    )
    async def withdraw(
        self,
        tournament_id: FromPath[uuid.UUID],
        caller: NamedDependency[Caller],
        tournaments: NamedDependency[TournamentService],
        players: NamedDependency[Players],
        reason: Annotated[str, QueryParameter(max_length=500)] = "",
    ) -> Response[TournamentView]:
        caller.may_play()
        command = tm.Withdraw(player=caller.id, reason=WithdrawBody(reason=reason).reason)
        return await self._command(tournaments, players, tournament_id, command, caller.id)

    @post(
        "/{tournament_id:uuid}/check-ins",
        status_code=200,
        operation_id="checkInToTournament",
        summary="Check in",
        description="Inside the check-in window; a client seed is mixed into round 1's seats.",
        security=SECURITY,
        responses=problem_responses(*_WRITE),
    )
    async def check_in(
        self,
        tournament_id: FromPath[uuid.UUID],
        caller: NamedDependency[Caller],
        tournaments: NamedDependency[TournamentService],
        players: NamedDependency[Players],
        data: JSONBody[CheckInBody | None] = None,
    ) -> Response[TournamentView]:
        caller.may_play()
        command = tm.CheckIn(player=caller.id, client_seed=data.client_seed if data else "")
        return await self._command(tournaments, players, tournament_id, command, caller.id)

    @post(
        "/{tournament_id:uuid}/rounds",
        status_code=200,
        operation_id="startTournamentRound",
        summary="Start the next round",
        description=(
            "The organiser starts round 1 (later rounds start by themselves once every table "
            "of the round before has a result, or by this call after an arbiter's hold). The "
            "answer is the round started; its tables' games are created after it, one after "
            "another (a round of 1,000 players within some 8 s), each with its players seated "
            "and dealt and told (`tournament_table`), and listed in the tournament's view once "
            "created. With a `pairing` the arbiter uploads his own."
        ),
        security=SECURITY,
        responses=problem_responses(*_WRITE, "forbidden"),
    )
    async def start(
        self,
        tournament_id: FromPath[uuid.UUID],
        caller: NamedDependency[Caller],
        tournaments: NamedDependency[TournamentService],
        players: NamedDependency[Players],
        data: JSONBody[StartBody | None] = None,
    ) -> Response[TournamentView]:
        await tournaments.as_arbiter(tournament_id, caller.id)
        await tournaments.start_round(tournament_id, caller.id, data.pairing if data else None)
        version, view = await tournament_view(tournaments, players, tournament_id)
        return Response(view, headers={"ETag": etag(version), **PRIVATE})

    @post(
        "/{tournament_id:uuid}/lineups",
        status_code=200,
        operation_id="nameTeamLineup",
        summary="Name a team's lineup",
        description=(
            "Team events: the three members of `team` who play from the next round to start "
            "on (named before round 1 or while a round is played; a team that names none plays "
            "its first three). Only the team's captain (its first member registered still in "
            "the field) or the organiser names it."
        ),
        security=SECURITY,
        responses=problem_responses(*_WRITE, "forbidden"),
    )
    async def name_lineup(
        self,
        tournament_id: FromPath[uuid.UUID],
        data: Annotated[LineupBody, Body()],
        caller: NamedDependency[Caller],
        tournaments: NamedDependency[TournamentService],
        players: NamedDependency[Players],
    ) -> Response[TournamentView]:
        caller.may_play()
        await tournaments.name_lineup(tournament_id, caller.id, data.team, data.players)
        version, view = await tournament_view(tournaments, players, tournament_id)
        return Response(view, headers={"ETag": etag(version), **PRIVATE})

    @post(
        "/{tournament_id:uuid}/decisions",
        status_code=200,
        operation_id="decideAsArbiter",
        summary="An arbiter's decision",
        description=(
            "Pause or resume a table, replace a player, adjust or annul a result, give a "
            "yellow card, record an appeal and its decision: each with its reason, each an "
            "event of the tournament's log. Only the organiser decides."
        ),
        security=SECURITY,
        responses=problem_responses(*_WRITE, "forbidden"),
    )
    async def decide(
        self,
        tournament_id: FromPath[uuid.UUID],
        data: Annotated[ArbiterDecision, Body()],
        caller: NamedDependency[Caller],
        tournaments: NamedDependency[TournamentService],
        players: NamedDependency[Players],
    ) -> Response[TournamentView]:
        await tournaments.as_arbiter(tournament_id, caller.id)
        command = _decision(data, caller.id)
        return await self._command(tournaments, players, tournament_id, command, caller.id)

    @post(
        "/{tournament_id:uuid}/runs",
        status_code=201,
        operation_id="startRobotRun",
        summary="Play a robot duplicate",
        description=(
            "A registered entrant's one run, inside the window: a table with two bots of the "
            "event's level, dealt the event's deals (his seat holds each seat's cards in turn)."
        ),
        security=SECURITY,
        responses=problem_responses(*_WRITE),
    )
    async def run(
        self,
        tournament_id: FromPath[uuid.UUID],
        caller: NamedDependency[Caller],
        tournaments: NamedDependency[TournamentService],
    ) -> Response[RunStarted]:
        caller.may_play()
        result = await tournaments.command(
            tournament_id, tm.StartRobotRun(player=caller.id), caller.id
        )
        started = next(a.event for a in result.appended if isinstance(a.event, tm.RobotRunStarted))
        row = next(r for r in await tournaments.tables(tournament_id)
                   if r.round_no == 0 and r.table_no == started.run)  # fmt: skip
        body = RunStarted(run=started.run, game_id=row.game_id, game=f"/v1/games/{row.game_id}")
        return Response(body, status_code=201, headers={"Location": body.game})

    @get(
        "/{tournament_id:uuid}/log",
        operation_id="readTournamentLog",
        summary="The tournament's log",
        description=(
            "Every event after `cursor` (a version), oldest first: registrations, pairings, "
            "seats, results, cards, the arbiter's decisions with their reasons, the secrets' "
            "reveals. A duplicate's results are bare until their round has ended."
        ),
        responses=problem_responses("not-found", "validation"),
    )
    async def log(
        self,
        tournament_id: FromPath[uuid.UUID],
        tournaments: NamedDependency[TournamentService],
        cursor: Annotated[str | None, QueryParameter(pattern=r"^[0-9]{1,12}$")] = None,
        limit: Annotated[int, QueryParameter(ge=1, le=500)] = 100,
    ) -> Response[TournamentLog]:
        after = int(cursor) if cursor else 0
        items, last, state = await tournaments.events(tournament_id, after, limit)
        out = []
        for version, at, event in items:
            shown = public_event(event, state)
            raw = msgspec.to_builtins(shown)
            out.append(LogItem(version=version, at=at, type=raw.pop("type"), event=raw))
        page = TournamentLog(
            items=out, version=last, next_cursor=str(last) if len(items) == limit else None
        )
        return Response(page, headers=PRIVATE)

    @get(
        "/{tournament_id:uuid}/export",
        operation_id="exportTournament",
        summary="Export the pairings and results",
        description=(
            "`format=json`: the tournament's view (pairings, results, standings); "
            "`format=text`: the same as plain text an arbiter can publish."
        ),
        responses={
            200: ResponseSpec(
                data_container=TournamentView, description="The pairings and results."
            ),
            **problem_responses("not-found", "validation"),
        },
    )
    async def export(
        self,
        tournament_id: FromPath[uuid.UUID],
        tournaments: NamedDependency[TournamentService],
        players: NamedDependency[Players],
        format: FromQuery[Literal["json", "text"]] = "json",
    ) -> Response[Any]:
        version, view = await tournament_view(tournaments, players, tournament_id)
        headers = {"ETag": etag(version), **PRIVATE}
        if format == "text":
            # (Litestar adds the charset to a text type itself.)
            return Response(export_text(view), headers=headers, media_type="text/plain")
        return Response(view, headers=headers)

    @get(
        "/{tournament_id:uuid}/stream",
        operation_id="followTournament",
        summary="Follow the standings live (Server-Sent Events)",
        description=(
            "`text/event-stream`: `retry:`, then `event: standings` (`id:` the tournament's "
            "version; data: `version`, `status`, every player's standing, `rounds`) at once, "
            "then `event: standings-changes` after every change (data: `version`, `since` "
            "(the version it applies to), `status`, `changed`: the standings that differ or "
            "are new, in the standings' order, `left`: the players no longer standing, "
            "`rounds`); a whole `standings` frame again where everything changed; a `: ping` "
            "comment after a silence."
        ),
        media_type="text/event-stream",
        responses={
            200: ResponseSpec(
                data_container=str, generate_examples=False, media_type="text/event-stream",
                description="The standings as they change.",
            ),
            **problem_responses("not-found", "validation"),
        },
    )  # fmt: skip
    async def follow(
        self,
        tournament_id: FromPath[uuid.UUID],
        tournaments: NamedDependency[TournamentService],
        players: NamedDependency[Players],
        sse: NamedDependency[SseSettings],
    ) -> Stream:
        await tournaments.state(tournament_id)  # a 404 now, not inside the stream
        return Stream(
            _standings_frames(tournaments, players, tournament_id, sse),
            media_type="text/event-stream",
            headers={**PRIVATE, "X-Accel-Buffering": "no"},
        )


class PlayerTournamentsController(Controller):
    path = "/players"
    tags = ["tournaments"]  # noqa: RUF012

    @get(
        "/{player_id:uuid}/tournaments",
        operation_id="playerTournaments",
        summary="A player's tournaments",
        description="The tournaments the player played a table of, newest first.",
        responses=problem_responses("validation", "player-not-found"),
    )
    async def history(
        self,
        player_id: FromPath[uuid.UUID],
        tournaments: NamedDependency[TournamentService],
        players: NamedDependency[Players],
    ) -> PlayerTournaments:
        await players.get(player_id)  # a 404 for nobody
        items = await tournaments.history_of(player_id)
        return PlayerTournaments(items=[TournamentItem(**msgspec.structs.asdict(i)) for i in items])


ROUTE_HANDLERS = [TournamentsController, PlayerTournamentsController]
