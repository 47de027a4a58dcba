"""The application service: games as event streams, the players who play them, the lobby.

A game is the stream ``game-<uuid7>`` of `domain.game` events. Every change goes through the
`CommandHandler` with the composed decider `decide_game`: the player's command, then, while
`domain.game.needs_cards` says so, a `DealCards` from the game's deal source. So joining the last
free seat, or playing the last card of a deal, appends the next deal in the same single append.

The deal source (`DealSource`) is decided when the game is created and never changes: the fixed
layouts given for the first deals, then a shuffle, seeded by ``random.Random(f"{seed}:{deal_no}")``
for a seeded game or drawn from the operating system's CSPRNG (`secrets.SystemRandom`). It is
kept in ``api.games`` (it tells every hand to come, so it is never served) with the lobby's
summary of the game: status, seats, players.

The summary is written with the game's first events in one transaction. Joins and the game's end
update it right after their append commits, guarded by the stream version so updates never go
backwards; should a process die in between, the game's next command (in any process that has not
written its summary yet) repairs it.

Players are a name and the sha256 of a random bearer token. The token is returned once, at
creation, and never stored; a lookup hashes the presented token.

The SQL of the ``api`` schema lives here; the event store's is in `service.event_store`.
"""

from __future__ import annotations

import base64
import hashlib
import random
import secrets
import uuid
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, Literal, TypeVar

import asyncpg
import msgspec

from domain import game
from domain.cards import DECK, parse_card
from domain.deal.messages import SeatCommand
from domain.errors import InvalidLayout, InvalidRules, PreferansError, refuse
from domain.game import (
    INITIAL_STATE,
    CreateGame,
    DealCards,
    GameState,
    NoGame,
    Pulka,
    TakeSeat,
)
from domain.rules import Rules, rules_for
from domain.simulation import random_deal
from service.codec import domain_codec
from service.commands import (
    CommandContext,
    CommandHandler,
    CommandResult,
    Decider,
    event_id_for,
    request_hash,
)
from service.errors import BadRequest, GameNotFound, NotSeated, PlayerNotFound
from service.event_store import (
    ANY,
    NO_STREAM,
    EventStore,
    IdempotencyKey,
    Metadata,
    NewEvent,
    StoredResponse,
    uuid7,
)

STREAM_PREFIX = "game-"
Status = Literal["seating", "playing", "finished"]

_SYSTEM_RANDOM = secrets.SystemRandom()

K = TypeVar("K")
V = TypeVar("V")


def stream_of(game_id: uuid.UUID) -> str:
    return f"{STREAM_PREFIX}{game_id}"


def new_token() -> str:
    """A fresh bearer token: 32 random bytes, URL-safe."""
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> bytes:
    """What is stored for a token (its sha256); the token itself is never stored."""
    return hashlib.sha256(token.encode()).digest()


# --- deals ------------------------------------------------------------------------------------


class Layout(msgspec.Struct, frozen=True, kw_only=True):
    """One deal's cards: ``hands`` per seat (three, or four with the dealer's empty, at a table
    of four) and the ``talon`` in order."""

    hands: tuple[tuple[str, ...], ...]
    talon: tuple[str, ...]


_CANONICAL = frozenset(DECK)


def _card(text: str) -> str:
    return text if text in _CANONICAL else parse_card(text)


def check_layout(layout: Layout, seats: int) -> Layout:
    """The layout in canonical notation; `NotationError` or `InvalidLayout` if it is no deal."""
    hands = tuple(tuple(_card(c) for c in hand) for hand in layout.hands)
    talon = tuple(_card(c) for c in layout.talon)
    if len(talon) != 2:
        raise InvalidLayout(f"the talon holds 2 cards, not {len(talon)}")
    sizes = sorted(len(h) for h in hands)
    if sizes != [10, 10, 10] and not (seats == 4 and sizes == [0, 10, 10, 10]):
        raise InvalidLayout(
            f"a table of {seats} is dealt three hands of ten"
            + (" (or four, the dealer's empty)" if seats == 4 else "")
        )
    cards = [c for hand in hands for c in hand] + list(talon)
    if len(cards) != 32 or set(cards) != _CANONICAL:
        raise InvalidLayout("the hands and the talon must hold each of the 32 cards exactly once")
    return Layout(hands=hands, talon=talon)


class DealSource(msgspec.Struct, frozen=True, kw_only=True):
    """Where a game's deals come from: ``layouts`` first, then a seeded or a secure shuffle."""

    seats: int
    layouts: tuple[Layout, ...] = ()
    seed: str | None = None

    def cards_for(self, state: Pulka) -> DealCards:
        """The `DealCards` of the deal after ``state`` (number ``state.deal_no + 1``)."""
        deal_no, dealer = state.deal_no + 1, state.next_dealer
        active = [s for s in range(self.seats) if not (self.seats == 4 and s == dealer)]
        hands: list[tuple[str, ...]] = [() for _ in range(self.seats)]
        if deal_no <= len(self.layouts):
            layout = self.layouts[deal_no - 1]
            if len(layout.hands) == self.seats:
                return DealCards(hands=layout.hands, talon=(layout.talon[0], layout.talon[1]))
            for seat, hand in zip(active, layout.hands, strict=True):
                hands[seat] = hand
            return DealCards(hands=tuple(hands), talon=(layout.talon[0], layout.talon[1]))
        rng = _SYSTEM_RANDOM if self.seed is None else random.Random(f"{self.seed}:{deal_no}")
        return random_deal(rng, self.seats, dealer)


# --- the composed decider ---------------------------------------------------------------------


@dataclass(eq=False)
class GameCommand:
    """A command to a game from a player; ``decide_game`` records what it decided upon."""

    player: str
    source: DealSource
    seen: GameState | None = field(default=None, init=False)
    """The state the (last) decision was made in: the start of the caller's redacted events."""
    seat: int | None = field(default=None, init=False)
    """The caller's seat, once decided."""


@dataclass(eq=False)
class Create(GameCommand):
    rules: Rules | None = None
    first_dealer: int = 0
    take_seat: int | None = None


@dataclass(eq=False)
class Join(GameCommand):
    """Take ``wanted``, or the first free seat."""

    wanted: int | None = None


@dataclass(eq=False)
class Act(GameCommand):
    """A seat's command; ``build`` makes it for the caller's seat (never a seat he sent)."""

    build: Callable[[int], SeatCommand] | None = None


def decide_game(command: GameCommand, state: GameState) -> list[game.Event]:
    """`domain.game.decide` for a player's command, plus the deals that follow it."""
    command.seen = state
    events: list[game.Event]
    match command:
        case Create(rules=Rules() as rules):
            events = game.decide(CreateGame(rules=rules, first_dealer=command.first_dealer), state)
            if command.take_seat is not None:
                after = game.fold(events, state)
                events += game.decide(
                    TakeSeat(seat=command.take_seat, player=command.player), after
                )
                command.seat = command.take_seat
        case _ if isinstance(state, NoGame):
            raise GameNotFound("no game has this id")
        case Join():
            seat = command.wanted
            if seat is None:
                if command.player in state.players:
                    raise refuse("already_seated", "you already have a seat at this table")
                free = [s for s, p in enumerate(state.players) if p is None]
                if not free:
                    raise refuse("table_full", "every seat at this table is taken")
                seat = free[0]
            events = game.decide(TakeSeat(seat=seat, player=command.player), state)
            command.seat = seat
        case Act(build=build) if build is not None:
            seat = game.seat_of(state, command.player)
            if seat is None:
                raise NotSeated("you have no seat at this game")
            command.seat = seat
            events = game.decide(build(seat), state)
        case _:
            raise TypeError(f"not a game command: {command!r}")
    return events + _deals(command.source, game.fold(events, state))


def _deals(source: DealSource, state: GameState) -> list[game.Event]:
    events: list[game.Event] = []
    while game.needs_cards(state):
        assert isinstance(state, Pulka)
        dealt = game.decide(source.cards_for(state), state)
        events += dealt
        state = game.fold(dealt, state)
    return events


GAME_DECIDER: Decider[GameCommand, GameState, game.Event] = Decider(
    initial_state=lambda: INITIAL_STATE, decide=decide_game, evolve=game.evolve
)


# --- what the caller sees ---------------------------------------------------------------------


class SeenEvent(msgspec.Struct, frozen=True):
    """An event of a game as one viewer may see it."""

    version: int
    """Its stream version: 1, 2, 3 … without gaps."""
    event: game.Event


@dataclass(frozen=True, slots=True)
class Outcome:
    """A command's result as the caller sees it."""

    game_id: uuid.UUID
    version: int
    seat: int | None
    events: list[SeenEvent]
    state: GameState


def redacted(
    events: Sequence[tuple[int, game.Event]], player: str | None, state: GameState
) -> tuple[list[SeenEvent], GameState]:
    """``events`` (from ``state``) as ``player`` may see them, and the state after them.

    The viewer is the player's seat as of each event: a spectator until he sits down.
    """
    seen = []
    for version, event in events:
        seat = game.seat_of(state, player) if player is not None else None
        seen.append(SeenEvent(version, game.redact(event, seat, state)))
        state = game.evolve(state, event)
    return seen, state


def outcome_of(
    game_id: uuid.UUID, command: GameCommand, result: CommandResult[Any, Any]
) -> Outcome:
    assert command.seen is not None and result.state is not None
    events, _ = redacted(
        [(a.version, a.event) for a in result.appended], command.player, command.seen
    )
    seat = game.seat_of(result.state, command.player)
    return Outcome(game_id, result.version, seat, events, result.state)


Render = Callable[[Outcome], StoredResponse]
"""Renders a command's outcome as the response to send (and to store under its key)."""
RenderRefusal = Callable[[Exception], StoredResponse]


@dataclass(frozen=True, slots=True)
class Done:
    """A command answered: ``response`` to send; ``replayed`` if it was a stored one."""

    response: StoredResponse
    replayed: bool = False


# --- records ------------------------------------------------------------------------------------


class Player(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    name: str


class GameSummary(msgspec.Struct, frozen=True, kw_only=True):
    """A game as the lobby lists it."""

    id: uuid.UUID
    status: Status
    preset: str
    seats: int
    players: tuple[str | None, ...]
    created_by: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class GameConfig:
    game_id: uuid.UUID
    stream_id: str
    source: DealSource


@dataclass(frozen=True, slots=True)
class GameSpec:
    """A new game, validated."""

    preset: str
    rules: Rules
    first_dealer: int
    source: DealSource
    take_seat: int | None


def game_spec(
    *,
    preset: str,
    overrides: dict[str, Any] | None,
    seats: int,
    first_dealer: int,
    layouts: Sequence[Layout],
    seed: str | None,
    seat: int | None,
) -> GameSpec:
    """A new game's request, checked: `InvalidRules`, `InvalidLayout` or `NotationError`."""
    overrides = dict(overrides or {})
    if overrides.setdefault("players", seats) != seats:
        raise InvalidRules("the number of players is set by 'seats', not by the overrides")
    rules = rules_for(preset, overrides)
    checked = tuple(check_layout(layout, seats) for layout in layouts)
    game.check_layouts(rules, first_dealer, [layout.hands for layout in checked])
    return GameSpec(
        preset=preset,
        rules=rules,
        first_dealer=first_dealer,
        source=DealSource(seats=seats, layouts=checked, seed=seed),
        take_seat=seat,
    )


class _Lru(Generic[K, V]):
    """A small LRU for immutable records."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        if len(self._items) > self._size:
            self._items.popitem(last=False)


def encode_cursor(game_id: uuid.UUID) -> str:
    return base64.urlsafe_b64encode(game_id.bytes).rstrip(b"=").decode()


def decode_cursor(cursor: str) -> uuid.UUID:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        if len(raw) != 16:
            raise ValueError
    except ValueError:
        raise BadRequest(f"not a cursor of this list: {cursor!r}", where="query.cursor") from None
    return uuid.UUID(bytes=raw)


# --- SQL ------------------------------------------------------------------------------------

_INSERT_PLAYER = "INSERT INTO api.players (player_id, name, token_hash) VALUES ($1, $2, $3)"
_PLAYER_BY_TOKEN = "SELECT player_id::text, name FROM api.players WHERE token_hash = $1"
_PLAYER_BY_ID = "SELECT player_id::text, name FROM api.players WHERE player_id = $1"
_INSERT_GAME = """
INSERT INTO api.games (game_id, stream_id, status, preset, seats, players, created_by, version,
                       seed, layouts)
VALUES ($1, $2, $3, $4, $5, $6::uuid[], $7, $8, $9, $10)"""
_GAME_CONFIG = "SELECT seats, seed, layouts FROM api.games WHERE game_id = $1"
_UPDATE_SUMMARY = """
UPDATE api.games SET status = $2, players = $3::uuid[], version = $4
 WHERE game_id = $1 AND version < $4"""
_LIST_GAMES = """
SELECT game_id, status, preset, seats, players::text[], created_by::text, created_at
  FROM api.games
 WHERE ($1::text IS NULL OR status = $1) AND ($2::uuid IS NULL OR game_id < $2)
 ORDER BY game_id DESC
 LIMIT $3"""
_SCHEMA_REVISION = "SELECT version_num FROM public.alembic_version"
_GAME_SUMMARY = """
SELECT game_id, status, preset, seats, players::text[], created_by::text, created_at
  FROM api.games WHERE game_id = $1"""


# --- the service --------------------------------------------------------------------------------


class GameService:
    """Players, games and their commands over one asyncpg pool."""

    def __init__(
        self,
        store: EventStore,
        *,
        retries: int = 3,
        cache_size: int = 1024,
        on_append: Callable[[str, int], None] | None = None,
    ) -> None:
        self.store = store
        self.pool: asyncpg.Pool = store.pool
        self.codec = domain_codec()
        self.handler: CommandHandler[GameCommand, GameState, game.Event] = CommandHandler(
            store,
            self.codec,
            GAME_DECIDER,
            retries=retries,
            cache_size=cache_size,
            rejections=(PreferansError, NotSeated, GameNotFound),
        )
        self.on_append: Callable[[str, int], None] = on_append or (lambda stream_id, version: None)
        """Told of each append of this process (the live updates' hint)."""
        self._tokens: _Lru[bytes, Player] = _Lru(16_384)
        self._configs: _Lru[uuid.UUID, GameConfig] = _Lru(cache_size)
        self._summaries: _Lru[uuid.UUID, tuple[str, tuple[str | None, ...]]] = _Lru(cache_size)

    # --- players ----------------------------------------------------------------------------

    async def create_player(self, name: str) -> tuple[Player, str]:
        """A new player and his bearer token (returned this once, stored only as a hash)."""
        player_id, token = uuid7(), new_token()
        digest = token_hash(token)
        await self.pool.execute(_INSERT_PLAYER, player_id, name, digest)
        player = Player(id=str(player_id), name=name)
        self._tokens.put(digest, player)
        return player, token

    async def authenticate(self, token: str) -> Player | None:
        """The player holding ``token``, or None."""
        digest = token_hash(token)
        player = self._tokens.get(digest)
        if player is None:
            row = await self.pool.fetchrow(_PLAYER_BY_TOKEN, digest)
            if row is None:
                return None
            player = Player(id=row[0], name=row[1])
            self._tokens.put(digest, player)
        return player

    async def player(self, player_id: uuid.UUID) -> Player:
        row = await self.pool.fetchrow(_PLAYER_BY_ID, player_id)
        if row is None:
            raise PlayerNotFound("no player has this id")
        return Player(id=row[0], name=row[1])

    # --- games ------------------------------------------------------------------------------

    async def create_game(
        self,
        creator: Player,
        spec: GameSpec,
        *,
        key: str | None,
        fingerprint: bytes,
        render: Render,
    ) -> Done:
        """Create a game (and seat its creator if asked): the stream and the lobby row in one
        transaction, under the idempotency ``key`` if one is given."""
        game_id = uuid7()
        stream_id = stream_of(game_id)
        command = Create(
            creator.id,
            spec.source,
            rules=spec.rules,
            first_dealer=spec.first_dealer,
            take_seat=spec.take_seat,
        )
        events = decide_game(command, INITIAL_STATE)
        state = game.fold(events)
        assert isinstance(state, Pulka)
        idem = IdempotencyKey(creator.id, key, fingerprint) if key else None
        new = [
            NewEvent(
                event_id=event_id_for(idem, i),
                event_type=event_type,
                schema_version=schema_version,
                data=msgspec.Raw(data),
                metadata=Metadata(actor=creator.id, idempotency_key=key),
            )
            for i, (event_type, schema_version, data) in enumerate(map(self.codec.encode, events))
        ]
        async with self.pool.acquire() as conn, conn.transaction():
            if idem is not None:
                record = await self.store.claim_idempotency_key(conn, idem)
                if record is not None:
                    assert record.response is not None
                    return Done(record.response, replayed=True)
            await conn.execute(
                _INSERT_GAME,
                game_id,
                stream_id,
                game.status(state),
                spec.preset,
                spec.source.seats,
                list(state.players),
                creator.id,
                len(events),
                spec.source.seed,
                msgspec.to_builtins(spec.source.layouts),
            )
            appended = await self.store.append(stream_id, new, NO_STREAM, conn=conn)
            seen, _ = redacted(list(enumerate(events, 1)), creator.id, INITIAL_STATE)
            response = render(Outcome(game_id, appended.version, command.seat, seen, state))
            if idem is not None:
                await self.store.store_idempotent_response(
                    conn, idem, stream_id=stream_id, version=appended.version, response=response
                )
        self._configs.put(game_id, GameConfig(game_id, stream_id, spec.source))
        self._summaries.put(game_id, (game.status(state), state.players))
        await self.store.notify(appended)
        self.on_append(stream_id, appended.version)
        return Done(response)

    async def config(self, game_id: uuid.UUID) -> GameConfig:
        """The game's stream and deal source; `GameNotFound` if there is no such game."""
        config = self._configs.get(game_id)
        if config is None:
            row = await self.pool.fetchrow(_GAME_CONFIG, game_id)
            if row is None:
                raise GameNotFound("no game has this id")
            layouts = msgspec.convert(row["layouts"], tuple[Layout, ...])
            source = DealSource(seats=row["seats"], layouts=layouts, seed=row["seed"])
            config = GameConfig(game_id, stream_of(game_id), source)
            self._configs.put(game_id, config)
        return config

    async def summary(self, game_id: uuid.UUID) -> GameSummary:
        row = await self.pool.fetchrow(_GAME_SUMMARY, game_id)
        if row is None:
            raise GameNotFound("no game has this id")
        return _summary(row)

    async def list_games(
        self, status: Status | None, cursor: str | None, limit: int
    ) -> tuple[list[GameSummary], str | None]:
        """A page of the lobby, newest first, and the cursor of the next page (None: the end)."""
        after = decode_cursor(cursor) if cursor else None
        rows = await self.pool.fetch(_LIST_GAMES, status, after, limit + 1)
        items = [_summary(row) for row in rows[:limit]]
        more = len(rows) > limit
        return items, encode_cursor(items[-1].id) if more else None

    async def join(
        self,
        game_id: uuid.UUID,
        player: Player,
        seat: int | None,
        *,
        key: str | None,
        fingerprint: bytes,
        expected: int | None,
        render: Render,
        render_refusal: RenderRefusal,
    ) -> Done:
        config = await self.config(game_id)
        command = Join(player.id, config.source, wanted=seat)
        return await self._run(config, command, key, fingerprint, expected, render, render_refusal)

    async def act(
        self,
        game_id: uuid.UUID,
        player: Player,
        build: Callable[[int], SeatCommand],
        *,
        key: str | None,
        fingerprint: bytes,
        expected: int | None,
        render: Render,
        render_refusal: RenderRefusal,
    ) -> Done:
        config = await self.config(game_id)
        command = Act(player.id, config.source, build=build)
        return await self._run(config, command, key, fingerprint, expected, render, render_refusal)

    async def _run(
        self,
        config: GameConfig,
        command: GameCommand,
        key: str | None,
        fingerprint: bytes,
        expected: int | None,
        render: Render,
        render_refusal: RenderRefusal,
    ) -> Done:
        def render_any(result: Any) -> StoredResponse:
            if isinstance(result, Exception):
                return render_refusal(result)
            return render(outcome_of(config.game_id, command, result))

        context = CommandContext(
            actor=command.player,
            idempotency=IdempotencyKey(command.player, key, fingerprint) if key else None,
        )
        result = await self.handler.handle(
            config.stream_id,
            command,
            context=context,
            expected=ANY if expected is None else expected,
            render=render_any,
        )
        assert result.response is not None
        if result.replayed:
            return Done(result.response, replayed=True)
        if result.appended:
            self.on_append(config.stream_id, result.version)
            await self._update_summary(config.game_id, result.version, result.state)
        return Done(result.response)

    async def _update_summary(self, game_id: uuid.UUID, version: int, state: Any) -> None:
        """Write the lobby's summary when it changed (a join, the end), or when this process
        has not written it yet (it may be stale after a crash between append and update)."""
        summary = (game.status(state), state.players)
        if self._summaries.get(game_id) != summary:
            await self.pool.execute(_UPDATE_SUMMARY, game_id, summary[0], list(summary[1]), version)
            self._summaries.put(game_id, summary)

    # --- reading ----------------------------------------------------------------------------

    async def schema_revision(self) -> str | None:
        """The database's migration revision (for readiness)."""
        revision: str | None = await self.pool.fetchval(_SCHEMA_REVISION, timeout=5)
        return revision

    async def state(self, game_id: uuid.UUID) -> tuple[GameConfig, int, GameState]:
        """The game's current version and state (the live fold, never stale)."""
        config = await self.config(game_id)
        version, state = await self.handler.load(config.stream_id)
        if version == 0:
            raise GameNotFound("no game has this id")
        return config, version, state

    async def history(
        self, game_id: uuid.UUID, player: str | None, after: int, limit: int
    ) -> tuple[list[SeenEvent], int]:
        """Up to ``limit`` events after version ``after``, as ``player`` may see them, and the
        version of the last event read (``after`` if none)."""
        config = await self.config(game_id)
        records = await self.store.read_stream(config.stream_id, 1, limit=after + limit)
        events = [
            (r.version, self.codec.decode(r.event_type, r.schema_version, r.data)) for r in records
        ]
        state: GameState = INITIAL_STATE
        for _, event in events[:after]:
            state = game.evolve(state, event)
        seen, _ = redacted(events[after:], player, state)  # type: ignore[arg-type]
        return seen, seen[-1].version if seen else after


def _summary(row: asyncpg.Record) -> GameSummary:
    return GameSummary(
        id=row[0],
        status=row[1],
        preset=row[2],
        seats=row[3],
        players=tuple(row[4]),
        created_by=row[5],
        created_at=row[6],
    )


def fingerprint(*parts: bytes | str) -> bytes:
    """What makes a request the same request under an idempotency key."""
    return request_hash(*parts)
