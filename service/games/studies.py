"""What-if studies as an application: a stream of their own kind, forked from finished deals.

A study is the stream ``study-<uuid7>`` of `domain.study` events, folded by its pure decider and
run by the same `CommandHandler` as a game. Forking reads the source game from the log: only a
game that is over may be forked (`StudyOfLiveGame` otherwise: its cards are still hidden), and
not a duplicate table whose event is still open (`DuplicateEmbargo`: the other tables play the
same cards); the deal's first ``step`` events become the study's prefix, and the study's row
in ``api.studies`` lists it for its owner.

The owner moves every seat by hand, or gives some to the service's bots: after each of the
owner's moves the bots whose turn it is move at once, each from exactly what its seat sees (the
source game's events up to the deal, then the study's deal, redacted for the seat:
`bots.view.seat_input`), each move a command of its own at the study's exact version.

Nothing reads a study's stream but this module: the projections follow only games' streams
(`service.games.streams.game_id_of`), so a study is never scored on a sheet, rated, counted in
statistics or on the leaderboard. A study is its owner's until he shares it; shared, anyone with
its link reads it, and still only its owner changes it.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import random
import uuid
from collections.abc import Sequence
from typing import Any

import asyncpg
import msgspec

from bots import LEVELS, think
from bots.view import seat_input
from domain import game
from domain import study as st
from domain.deal.messages import DealStarted, SeatCommand
from projections.replay import DealNotFound, deal_log
from projections.study import StudyComparison, compare
from service.eventlog.codec import SCHEMA_VERSIONS, UPCASTERS, EventCodec
from service.eventlog.handler import CommandContext, CommandHandler, CommandResult, Decider
from service.eventlog.log import EventLog
from service.eventlog.store import ANY, NO_STREAM, StreamConflict, uuid7
from service.exceptions import (
    Forbidden,
    GameNotFound,
    InvalidCursor,
    NotFound,
    StudyNotFound,
    StudyOfLiveGame,
)
from service.games.streams import game_stream
from service.games.tournaments import Embargo
from service.platform.clock import SYSTEM_CLOCK, Clock
from service.platform.cursors import decode_cursor, encode_cursor
from service.platform.entropy import SYSTEM_ENTROPY, Entropy
from service.platform.lru import Lru

STUDY_PREFIX = "study-"

STUDY_DECIDER: Decider[st.Command, st.State, st.Event] = Decider(
    initial_state=lambda: st.INITIAL_STATE, decide=st.decide, evolve=st.evolve
)
"""The studies' decider, for `service.eventlog.handler.CommandHandler`."""

BOT_BUDGET = 0.5
"""Seconds a ``strong`` bot of a study thinks per move (in a thread: the owner waits)."""
BOT_MOVES = 64
"""Bot moves at most after one move of the owner's (a deal has fewer)."""


def study_stream(study_id: uuid.UUID | str) -> str:
    return f"{STUDY_PREFIX}{study_id}"


def study_codec() -> EventCodec:
    """The codec of a study's events: its own at schema 1, the deal's at the games' versions
    (with their upcasters), so that a prefix copied from a game reads as it did there."""
    names = {cls.__struct_config__.tag for cls in st.Event.__args__}
    versions = {name: v for name, v in SCHEMA_VERSIONS.items() if name in names}
    upcasters = {key: up for key, up in UPCASTERS.items() if key[0] in names}
    return EventCodec(st.Event, upcasters, schema_versions=versions)


def study_log(games_log: EventLog[Any]) -> EventLog[st.Event]:
    """The studies' log: the games' store, announcer and heads, with its own codec."""
    return games_log.with_codec(study_codec())


class Listed(msgspec.Struct, frozen=True, kw_only=True):
    """A study as its owner's list shows it."""

    id: uuid.UUID
    game_id: uuid.UUID
    deal_no: int
    step: int
    created_at: dt.datetime


class StudyService:
    """Studies over the event log (see the module docstring)."""

    def __init__(
        self,
        log: EventLog[st.Event],
        games_log: EventLog[game.Event],
        embargo: Embargo,
        *,
        clock: Clock = SYSTEM_CLOCK,
        entropy: Entropy = SYSTEM_ENTROPY,
        cache_size: int = 2_000,
    ) -> None:
        self.log = log
        self.pool: asyncpg.Pool = log.pool
        self.games_log = games_log
        self.embargo = embargo
        self.clock = clock
        self._rng = entropy.generator()
        self.handler: CommandHandler[st.Command, st.State, st.Event] = CommandHandler(
            log, STUDY_DECIDER, cache_size=cache_size
        )
        self._sources: Lru[str, list[game.Event]] = Lru(256)
        """Finished games' events (they never change but for the secret's reveal)."""
        self._compared: Lru[tuple[uuid.UUID, int], StudyComparison] = Lru(cache_size)

    # --- forking ----------------------------------------------------------------------------

    async def _source(self, game_id: uuid.UUID) -> list[game.Event]:
        """The events of a finished game; `GameNotFound`, `StudyOfLiveGame`."""
        held = self._sources.get(str(game_id))
        if held is not None:
            return held
        logged = await self.games_log.read(game_stream(game_id))
        if not logged:
            raise GameNotFound("no game has this id")
        events = [item.event for item in logged]
        if not any(isinstance(e, game.GameEnded) for e in events):
            raise StudyOfLiveGame(
                "a study is forked from a finished game: this one is still being played, and "
                "its hidden cards stay hidden until it ends"
            )
        self._sources.put(str(game_id), events)
        return events

    async def fork(
        self,
        owner: str,
        game_id: uuid.UUID,
        deal_no: int,
        step: int | None = None,
        bots: Sequence[st.BotLevel | None] = (),
    ) -> tuple[uuid.UUID, CommandResult[st.State, st.Event]]:
        """A new study of deal ``deal_no`` of the finished game ``game_id``, forked after its
        first ``step`` events (default: the cards dealt, step 1); the bots moving their seats
        have their first moves at once."""
        await self.embargo.may_disclose(game_id)  # an open duplicate event: refused, to all
        events = await self._source(game_id)
        try:
            log = deal_log(events, deal_no)
        except DealNotFound as exc:
            raise NotFound(str(exc)) from None
        steps = len(log.events)
        step = 1 if step is None else step
        if not 1 <= step <= steps:  # as a replay answers a step the deal does not have
            raise NotFound(f"deal {deal_no} has steps 1 … {steps}, not {step}")
        command = st.ForkStudy(
            at=self.clock.now_ms(), owner=owner, game_id=str(game_id), deal_no=deal_no,
            step=step, rules=log.rules, players=log.players, prefix=log.events[:step],
            bots=tuple(bots),
        )  # fmt: skip
        study_id = uuid7()
        result = await self._handle(study_id, command, owner, expected=NO_STREAM)
        await self.pool.execute(
            "INSERT INTO api.studies (study_id, owner, game_id, deal_no, step)"
            " VALUES ($1, $2, $3, $4, $5)",
            study_id, uuid.UUID(owner), game_id, deal_no, step,
        )  # fmt: skip
        return study_id, await self._bots_move(study_id, result)

    # --- reading ----------------------------------------------------------------------------

    async def state(self, study_id: uuid.UUID) -> tuple[int, st.Study]:
        version, state = await self.handler.load(study_stream(study_id))
        if not isinstance(state, st.Study):
            raise StudyNotFound("no study has this id")
        return version, state

    async def read(self, study_id: uuid.UUID, viewer: str | None) -> tuple[int, st.Study]:
        """The study for ``viewer``: its owner, or anyone once it is shared."""
        version, state = await self.state(study_id)
        if viewer != state.owner and not state.shared:
            raise StudyNotFound("no study has this id, or its owner has not shared it")
        return version, state

    async def comparison(self, study_id: uuid.UUID, viewer: str | None) -> StudyComparison:
        """The study beside the real line, each card judged double-dummy
        (`projections.study.compare`), kept per version."""
        version, state = await self.read(study_id, viewer)
        held = self._compared.get((study_id, version))
        if held is not None:
            return held
        source = await self._source(uuid.UUID(state.game_id))
        real = deal_log(source, state.deal_no).events
        # The solver's search holds the interpreter: a thread keeps the event loop turning.
        found = await asyncio.to_thread(compare, state.rules, real, state.events, state.fork_step)
        self._compared.put((study_id, version), found)
        return found

    async def mine(
        self, owner: str, cursor: str | None = None, limit: int = 20
    ) -> tuple[list[Listed], str | None]:
        """The owner's studies, newest first, a page at a time."""
        before: uuid.UUID | None = None
        if cursor is not None:
            try:
                before = uuid.UUID(decode_cursor("studies", cursor))
            except ValueError:
                raise InvalidCursor(f"not a cursor of this list: {cursor!r}") from None
        rows = await self.pool.fetch(
            "SELECT study_id, game_id, deal_no, step, created_at FROM api.studies"
            " WHERE owner = $1 AND ($2::uuid IS NULL OR study_id < $2)"
            " ORDER BY study_id DESC LIMIT $3",
            uuid.UUID(owner), before, limit,
        )  # fmt: skip
        items = [
            Listed(id=r["study_id"], game_id=r["game_id"], deal_no=r["deal_no"], step=r["step"],
                   created_at=r["created_at"])
            for r in rows
        ]  # fmt: skip
        last = str(rows[-1]["study_id"]) if len(rows) == limit else None
        return items, encode_cursor("studies", last) if last else None

    # --- the owner's commands ----------------------------------------------------------------

    async def _owned(self, study_id: uuid.UUID, caller: str) -> st.Study:
        _, state = await self.read(study_id, caller)
        if state.owner != caller:
            raise Forbidden("only the study's owner changes it", code="not_study_owner")
        return state

    async def move(
        self, study_id: uuid.UUID, caller: str, move: SeatCommand, expected: Any = ANY
    ) -> CommandResult[st.State, st.Event]:
        """The owner's move for a seat of his hand; then the bots' replies."""
        await self._owned(study_id, caller)
        command = st.MoveInStudy(at=self.clock.now_ms(), move=move)
        result = await self._handle(study_id, command, caller, expected=expected)
        return await self._bots_move(study_id, result)

    async def annotate(
        self, study_id: uuid.UUID, caller: str, step: int, text: str
    ) -> CommandResult[st.State, st.Event]:
        await self._owned(study_id, caller)
        command = st.AnnotateStep(at=self.clock.now_ms(), step=step, text=text)
        return await self._handle(study_id, command, caller)

    async def share(
        self, study_id: uuid.UUID, caller: str, shared: bool
    ) -> CommandResult[st.State, st.Event]:
        await self._owned(study_id, caller)
        command = st.ShareStudy(at=self.clock.now_ms(), shared=shared)
        return await self._handle(study_id, command, caller)

    async def set_bot(
        self, study_id: uuid.UUID, caller: str, seat: int, bot: st.BotLevel | None
    ) -> CommandResult[st.State, st.Event]:
        """Give ``seat`` to a bot (which moves at once if it is its turn), or back."""
        await self._owned(study_id, caller)
        command = st.SetSeatBot(at=self.clock.now_ms(), seat=seat, bot=bot)
        result = await self._handle(study_id, command, caller)
        return await self._bots_move(study_id, result)

    async def _handle(
        self, study_id: uuid.UUID, command: st.Command, actor: str, *, expected: Any = ANY,
        seat: int | None = None,
    ) -> CommandResult[st.State, st.Event]:  # fmt: skip
        return await self.handler.handle(
            study_stream(study_id), command,
            context=CommandContext(actor=actor, seat=seat, at=command.at), expected=expected,
        )  # fmt: skip

    # --- the bots ---------------------------------------------------------------------------

    async def _bots_move(
        self, study_id: uuid.UUID, result: CommandResult[st.State, st.Event]
    ) -> CommandResult[st.State, st.Event]:
        """While a bot's seat is to move, its move: each from what its seat sees, at the
        study's exact version (another request that moved first makes this one look again).
        The last command's result (the owner's if no bot moved)."""
        version, state = result.version, result.state
        for _ in range(BOT_MOVES):
            if not isinstance(state, st.Study):
                break
            bot_seats = [s for s in st.to_act(state) if state.bots[s] is not None]
            if not bot_seats:
                break
            seat = bot_seats[0]
            level = state.bots[seat]
            assert level is not None
            move = await self._think(state, seat, level)
            command = st.MoveInStudy(at=self.clock.now_ms(), move=move, by_bot=True)
            try:
                result = await self._handle(
                    study_id, command, f"bot:{level}", expected=version, seat=seat
                )
            except StreamConflict:  # the owner's next request, or its own bots, were first
                version, state = await self.state(study_id)
                continue
            version, state = result.version, result.state
        return result

    async def _think(self, state: st.Study, seat: int, level: str) -> SeatCommand:
        source = await self._source(uuid.UUID(state.game_id))
        start = _deal_start(source, state.deal_no)
        view = seat_input([*source[:start], *state.events], seat)
        seed = self._rng.getrandbits(64)
        if level in ("strong", "expert"):  # a search: off the event loop
            return await asyncio.to_thread(think, level, view, seed, BOT_BUDGET)
        return LEVELS[level](view, random.Random(seed), BOT_BUDGET)


def _deal_start(events: Sequence[game.Event], deal_no: int) -> int:
    """The index of deal ``deal_no``'s `DealStarted` in a game's events."""
    seen = 0
    for k, e in enumerate(events):
        if isinstance(e, DealStarted):
            seen += 1
            if seen == deal_no:
                return k
    raise NotFound(f"the game has no deal {deal_no}")
