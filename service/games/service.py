"""The games' application service: create, join, act, and read a game as one viewer sees it.

A game is the stream ``game-<uuid7>`` of `domain.game` events (`service.games.streams`). Every
change is a `service.games.commands` command run by the `CommandHandler` with `GAME_DECIDER`; the
lobby's summary of the game is written in the same transaction
(`service.games.lobby.lobby_effects`). Reads are the live fold of the stream (cached state plus a
tail read), never stale, and every event a caller gets is redacted for his seat
(`domain.game.redact`).
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

import msgspec

from domain import game
from domain.deal.messages import SeatCommand
from domain.errors import InvalidRules, PreferansError
from domain.game import INITIAL_STATE, GameState
from domain.rules import Rules, rules_for
from domain.table import PlayFor, TableCommands, TimeOut
from service.eventlog.handler import CommandContext, CommandHandler, CommandResult, Expected
from service.eventlog.log import EventLog, Logged
from service.eventlog.snapshots import Snapshots
from service.eventlog.store import ANY, NO_STREAM, IdempotencyKey, StreamConflict, uuid7
from service.exceptions import Forbidden, GameNotFound, InviteExpired, InviteNotFound, NotSeated
from service.games.commands import (
    GAME_DECIDER,
    Act,
    AtTable,
    Create,
    Deal,
    GameRequest,
    Join,
    Reveal,
    StewardAct,
)
from service.games.dealing import (
    ENTROPY_BYTES,
    DealNotDue,
    DealSource,
    Layout,
    check_layout,
    database_source,
)
from service.games.lobby import Lobby, SeatSummary, lobby_effects
from service.games.streams import game_id_of, game_stream
from service.platform.clock import SYSTEM_CLOCK, Clock
from service.platform.entropy import SYSTEM_ENTROPY, Entropy
from service.platform.lru import Lru
from service.players.accounts import Caller, Player, Players
from service.players.invites import Invites


class SeenEvent(msgspec.Struct, frozen=True):
    """An event of a game as one viewer may see it."""

    version: int
    """Its stream version: 1, 2, 3 … without gaps."""
    event: game.Event


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


@dataclass(frozen=True, slots=True)
class Outcome:
    """A command's result as the caller sees it: all its answer holds, the same on a replay."""

    game_id: uuid.UUID
    version: int
    seat: int | None
    events: list[SeenEvent]
    state: GameState
    seated: tuple[SeatSummary, ...] = ()
    """Each seat's player, named."""
    head: bytes | None = None
    """The hash of the game's last event after the command (`service.eventlog.chain`)."""
    at: int = 0
    """The service's clock when it received the command, ms since the epoch (a response's
    server time)."""


@dataclass(frozen=True, slots=True)
class Done:
    """A command answered: its ``outcome``, or on a replay of a refused one its ``refusal``
    (a first refusal is raised); ``replayed`` if its idempotency key had answered before."""

    outcome: Outcome | None
    refusal: Exception | None = None
    replayed: bool = False


@dataclass(frozen=True, slots=True)
class GameSpec:
    """A new game, validated."""

    rules: Rules
    first_dealer: int
    source: DealSource
    take_seat: int | None
    private: bool = False
    client_seed: str | None = None


def client_seed(given: str | None, entropy: Entropy = SYSTEM_ENTROPY) -> str:
    """A seat's client seed: the player's own, else one drawn for him (docs/fairness.md)."""
    return given if given is not None else entropy.client_seed()


def game_spec(
    *,
    preset: str,
    overrides: dict[str, Any] | None,
    seats: int,
    first_dealer: int,
    layouts: Sequence[Layout],
    seed: str | None,
    seat: int | None,
    private: bool = False,
    seat_seed: str | None = None,
    entropy: Entropy = SYSTEM_ENTROPY,
) -> GameSpec:
    """A new game's request, checked: `InvalidRules`, `InvalidLayout` or `NotationError`."""
    overrides = dict(overrides or {})
    if overrides.setdefault("players", seats) != seats:
        raise InvalidRules("the number of players is set by 'seats', not by the overrides")
    rules = rules_for(preset, overrides)
    checked = tuple(check_layout(layout, seats) for layout in layouts)
    game.check_layouts(rules, first_dealer, [layout.hands for layout in checked])
    return GameSpec(
        rules=rules,
        first_dealer=first_dealer,
        source=database_source(seats, checked, seed),
        take_seat=seat,
        private=private,
        client_seed=client_seed(seat_seed, entropy) if seat is not None else None,
    )


class _World(TypedDict):
    player: str
    source: DealSource | None
    entropy: bytes
    at: int
    token: bytes | None


STEWARD = "service:steward"
"""The actor of the commands the service sends a table itself (`service.workers.steward`)."""


class GameService:
    """Games over one event log (see the module docstring)."""

    def __init__(
        self,
        log: EventLog[game.Event],
        lobby: Lobby,
        *,
        players: Players | None = None,
        invites: Invites | None = None,
        retries: int = 3,
        cache_size: int = 20_000,
        key_ttl: float = 86_400.0,
        snapshots: Snapshots[GameState] | None = None,
        replica: EventLog[game.Event] | None = None,
        clock: Clock = SYSTEM_CLOCK,
        entropy: Entropy = SYSTEM_ENTROPY,
    ) -> None:
        self.log = log
        self.clock = clock
        """The time every command is stamped with (the clock of the table's deadlines)."""
        self.entropy = entropy
        """What the commands draw from: client seeds, a legacy shuffle's entropy, new secrets
        (`game_spec` takes it from here)."""
        self.replica = replica
        """The log as a streaming standby serves it: views and event pages read there, unless
        it is behind the version the caller proved he saw (read-your-writes)."""
        self.lobby = lobby
        self.players = players
        self.invites = invites
        self.handler: CommandHandler[GameRequest, GameState, game.Event] = CommandHandler(
            log,
            GAME_DECIDER,
            retries=retries,
            cache_size=cache_size,
            rejections=(PreferansError, NotSeated, GameNotFound),
            effects=lobby_effects,
            key_ttl=key_ttl,
            snapshots=snapshots,
        )
        self._sources: Lru[uuid.UUID, DealSource] = Lru(cache_size)
        # A source of fixed layouts holds up to 100 deals (some 200 KB): few of them are kept,
        # so that the memory stays bounded whatever games are created.
        self._layouts: Lru[uuid.UUID, DealSource] = Lru(max(16, cache_size // 100))

    # --- commands -----------------------------------------------------------------------------

    async def create(
        self,
        creator: Player,
        spec: GameSpec,
        *,
        key: str | None,
        fingerprint: bytes,
        bots: Sequence[tuple[int | None, Player]] = (),
        game_id: uuid.UUID | None = None,
    ) -> Done:
        """Create a game (and seat its creator, and ``bots``: the service's, or a tournament
        table's players, if asked); its lobby row commits with it. ``game_id``: an id claimed
        beforehand (a tournament's table, `service.games.tournaments`); else a new one."""
        _may_play(creator)
        game_id = game_id or uuid7()
        source = spec.source
        if source.scheme == 2 and source.seed is None:
            # The database draws the secret and keeps it: we get only its commitment.
            committed = await self.lobby.draw_secret(game_id)
            source = msgspec.structs.replace(source, committed=committed)
        command = Create(
            player=creator.id,
            source=source,
            entropy=self.entropy.command_bytes(ENTROPY_BYTES),
            at=self.clock.now_ms(),
            token=_token(creator),
            rules=spec.rules,
            first_dealer=spec.first_dealer,
            take_seat=spec.take_seat,
            private=spec.private,
            bots=tuple((seat, bot.id, client_seed(None, self.entropy)) for seat, bot in bots),
            client_seed=spec.client_seed,
        )
        for _, bot in bots:
            if self.players is not None:
                self.players.remember(bot)
        done = await self._run(game_id, command, key, fingerprint, NO_STREAM)
        if not done.replayed and source.scheme == 1:
            self._remember(game_id, source)
        return done

    async def join(
        self,
        game_id: uuid.UUID,
        player: Player,
        seat: int | None,
        *,
        key: str | None,
        fingerprint: bytes,
        expected: Expected,
        invite: str | None = None,
        seed: str | None = None,
    ) -> Done:
        """Seat ``player`` with his client ``seed`` (one is drawn if he gives none); a private
        table needs an ``invite`` code for it."""
        world = await self._world(game_id, player)
        if invite is not None:
            await self._check_invite(game_id, player, invite)
        elif await self.lobby.is_private(game_id) and not await self._holds_seat(game_id, player):
            raise Forbidden("this table is private: join it with an invite", code="private_table")
        command = Join(wanted=seat, client_seed=client_seed(seed, self.entropy), **world)
        return await self._run(game_id, command, key, fingerprint, expected)

    async def _check_invite(self, game_id: uuid.UUID, player: Player, code: str) -> None:
        if self.invites is None:
            raise InviteNotFound("no invite has this code")
        invited = await self.invites.find(code)
        if invited.game_id != game_id:
            raise InviteNotFound("no invite to this game has this code")
        if invited.expired:
            raise InviteExpired("this invite has expired: ask for a new one")
        if invited.invitee is not None and invited.invitee != player.id:
            raise Forbidden("this invite is for another player", code="not_invited")

    async def _holds_seat(self, game_id: uuid.UUID, player: Player) -> bool:
        _, state = await self.state(game_id)
        return isinstance(state, game.Pulka) and player.id in state.players

    async def act(
        self,
        game_id: uuid.UUID,
        player: Player,
        command: SeatCommand,
        *,
        key: str | None,
        fingerprint: bytes,
        expected: Expected,
    ) -> Done:
        """``command`` at the caller's own seat (whatever seat it names: `Act`)."""
        request = Act(command=command, **await self._world(game_id, player))
        return await self._run(game_id, request, key, fingerprint, expected)

    async def at_table(
        self,
        game_id: uuid.UUID,
        player: Player,
        command: TableCommands,
        *,
        key: str | None,
        fingerprint: bytes,
        expected: Expected,
    ) -> Done:
        """The caller about his own seat: leave it, abandon the game, come back."""
        request = AtTable(command=command, **await self._world(game_id, player))
        return await self._run(game_id, request, key, fingerprint, expected)

    async def steward(
        self, game_id: uuid.UUID, move: TimeOut | PlayFor, version: int, at: int
    ) -> CommandResult[GameState, game.Event]:
        """The service's own command to a table (`service.workers.steward`), decided at exactly
        ``version``: `StreamConflict` if anything happened since, so that of two processes that
        see the same deadline, one acts. Its idempotency key names the game, version and seat."""
        command = StewardAct(
            player=STEWARD,
            source=await self.deal_source(game_id),
            entropy=self.entropy.command_bytes(ENTROPY_BYTES),
            at=at,
            command=move,
        )
        key = f"{move.__struct_config__.tag}:{game_id}:{version}:{move.seat}"
        return await self._handle(
            game_id,
            command,
            context=CommandContext(
                actor=STEWARD,
                seat=move.seat,
                idempotency=IdempotencyKey(STEWARD, key, key.encode()),
                at=at,
            ),
            expected=version,
        )

    async def play_as_bot(
        self,
        game_id: uuid.UUID,
        bot: str,
        move: SeatCommand,
        version: int,
        *,
        thought: str | None = None,
    ) -> CommandResult[GameState, game.Event]:
        """A move of the service's bot player ``bot`` (`service.workers.steward`), at exactly
        ``version``, under an idempotency key of game, version and bot; ``thought`` (how it was
        chosen) is kept in its events' metadata."""
        command = Act(
            player=bot,
            source=await self.deal_source(game_id),
            entropy=self.entropy.command_bytes(ENTROPY_BYTES),
            at=self.clock.now_ms(),
            command=move,
        )
        key = f"bot:{game_id}:{version}:{bot}"
        return await self._handle(
            game_id,
            command,
            context=CommandContext(
                actor=bot, seat=move.seat, idempotency=IdempotencyKey(bot, key, key.encode()),
                at=command.at, thought=thought,
            ),
            expected=version,
        )  # fmt: skip

    async def seat_bot(
        self,
        game_id: uuid.UUID,
        caller: Player,
        bot: Player,
        seat: int | None,
        *,
        key: str | None,
        fingerprint: bytes,
    ) -> Done:
        """Seat the service's ``bot`` at ``game_id``, for ``caller``: its creator, or a player
        seated there. The response is the caller's view."""
        _may_play(caller)
        summary = await self.lobby.summary(game_id)
        if caller.id != summary.created_by and caller.id not in summary.players:
            raise Forbidden(
                "only the game's creator or a player seated there seats a bot",
                code="not_at_table",
            )
        world = await self._world(game_id, caller)
        world["player"] = bot.id
        command = Join(wanted=seat, client_seed=client_seed(None, self.entropy), **world)
        return await self._run(game_id, command, key, fingerprint, ANY, viewer=caller.id)

    async def _world(self, game_id: uuid.UUID, player: Player) -> _World:
        """What a command to an existing game brings from the world: who (with a token that
        may write), the deal source, fresh entropy for a shuffle, and the time."""
        _may_play(player)
        return {
            "player": player.id,
            "source": await self.deal_source(game_id),
            "entropy": self.entropy.command_bytes(ENTROPY_BYTES),
            "at": self.clock.now_ms(),
            "token": _token(player),
        }

    def seated(self, state: GameState) -> tuple[SeatSummary, ...]:
        """Each seat's player of ``state``, named from the players known to this process."""
        if not isinstance(state, game.Pulka):
            return ()
        out = []
        for seat, player_id in enumerate(state.players):
            known = self.players.cached(player_id) if self.players and player_id else None
            out.append(
                SeatSummary(
                    seat=seat,
                    player=player_id,
                    name=known.name if known else None,
                    kind=known.kind if known else None,
                )
            )
        return tuple(out)

    async def named(self, state: GameState) -> tuple[SeatSummary, ...]:
        """`seated`, reading any name this process does not know yet."""
        if self.players is not None and isinstance(state, game.Pulka):
            await self.players.many(state.players)
        return self.seated(state)

    async def _run(
        self,
        game_id: uuid.UUID,
        command: GameRequest,
        key: str | None,
        fingerprint: bytes,
        expected: Expected,
        *,
        viewer: str | None = None,
    ) -> Done:
        """Run ``command`` under ``viewer``'s key (the command's player if not given), and its
        outcome as he sees it: the first time from the handler's result, on a replay from the
        log at the versions the key's decision names (the same outcome, however far the game
        has moved on since)."""
        viewer = viewer or command.player
        if not isinstance(command, Create):
            await self._unstall(game_id)
        context = CommandContext(
            actor=command.player,
            idempotency=IdempotencyKey(viewer, key, fingerprint) if key else None,
            at=command.at,
        )
        result = await self._handle(
            game_id,
            command,
            context=context,
            expected=ANY if expected is None else expected,
            follow=False,
        )  # fmt: skip  (followed up below, once the answer is made)
        if result.refusal is not None:
            return Done(None, refusal=result.refusal, replayed=True)
        if result.replayed:
            result = await self.handler.recall(result)
            # The key's own game: a repeated create drew a new id, the first one made the game.
            first = game_id_of(result.stream_id)
            assert first is not None, "a game's key names a game's stream"
            game_id = uuid.UUID(first)
        outcome = outcome_of(game_id, viewer, result)
        # The deal or the reveal the command led to (the service's own command right after it)
        # is in the answer, the first time and on a replay alike.
        followed: Sequence[tuple[int, game.Event, bytes]] = ()
        if not result.replayed:
            done = await self._follow_up(game_id, result.state, result.version)
            if done is not None:
                assert done.head is not None
                followed = [(a.version, a.event, b"") for a in done.appended]
                followed[-1] = (*followed[-1][:2], done.head)
            elif _waits(result.state):
                # Another process dealt (or revealed) first: the steward's sweep of tables
                # waiting for their deal, in the moment between our commit and our deal.
                followed = await self._followed(game_id, result.version)
        else:
            followed = await self._followed(game_id, result.version)
        if followed and outcome.state is not None:
            seen, after = redacted([(v, e) for v, e, _ in followed], viewer, outcome.state)
            outcome = dataclasses.replace(
                outcome, version=followed[-1][0], events=outcome.events + seen, state=after,
                seat=game.seat_of(after, viewer), head=followed[-1][2],
            )  # fmt: skip
        # Named from the players' table where this process does not know a name yet, so that
        # the answer is the same in any process, the first time and on a replay.
        seated = await self.named(outcome.state)
        outcome = dataclasses.replace(outcome, seated=seated, at=result.decision.at or 0)
        return Done(outcome, replayed=result.replayed)

    async def _handle(
        self,
        game_id: uuid.UUID,
        command: GameRequest,
        *,
        context: CommandContext,
        expected: Expected,
        follow: bool = True,
    ) -> CommandResult[GameState, game.Event]:
        """`CommandHandler.handle`, and (``follow``) the `Deal` or `Reveal` its result calls for
        (`_follow_up`)."""
        result = await self.handler.handle(
            game_stream(game_id), command, context=context, expected=expected
        )
        if follow and not result.replayed:
            await self._follow_up(game_id, result.state, result.version)
        return result

    async def _follow_up(
        self, game_id: uuid.UUID, state: GameState | None, version: int
    ) -> CommandResult[GameState, game.Event] | None:
        """What a game the database deals needs once ``state`` (at ``version``) is in the log:
        its due deal when the table waits for one (the database gives it only then, from the
        seeds its log holds), or its secret's reveal once the log holds its end (likewise).
        Each is fetched before the command is decided, so `decide_game` stays pure. None if
        there is nothing to do, or another process did it first."""
        if not isinstance(state, game.Pulka) or state.fairness != 2:
            return None
        at = self.clock.now_ms()
        command: GameRequest
        if game.needs_cards(state):
            try:
                due = await self.lobby.due_deal(game_id, state.deal_no + 1)
            except DealNotDue:
                return None  # another process dealt it (or ended the game) first
            command = Deal(player=STEWARD, source=None, entropy=b"", at=at, due=due)
        elif isinstance(state, game.PulkaClosed) and state.secret is None:
            secret = await self.lobby.game_secret(game_id)
            if secret is None:
                return None
            command = Reveal(player=STEWARD, source=None, entropy=b"", at=at, secret=secret.hex())
        else:
            return None
        try:
            return await self._handle(
                game_id, command,
                context=CommandContext(actor=STEWARD, at=at, causation_id=_after(version)),
                expected=version, follow=False,
            )  # fmt: skip
        except (StreamConflict, PreferansError):
            return None  # someone else wrote first: his command dealt or revealed

    async def _followed(
        self, game_id: uuid.UUID, version: int
    ) -> list[tuple[int, game.Event, bytes]]:
        """The events of the follow-up to the command that left the game at ``version``, from
        the log (for a replayed answer): those right after it that name it as their cause."""
        items = await self.log.read(game_stream(game_id), version + 1, limit=64)
        cause = _after(version)
        out = []
        for item in items:
            if item.record.metadata.get("causation_id") != cause:
                break
            out.append((item.version, item.event, item.record.hash))
        return out

    async def deal_waiting(self, limit: int = 50) -> int:
        """Deal the tables the lobby shows waiting with no seat to act (a process died between
        a command and the deal it led to: nobody could send another command there); how many
        were dealt. The deal is a command at the version read, so two processes deal once."""
        dealt = 0
        for game_id in await self.lobby.waiting(limit):
            version, state = await self.handler.load(game_stream(game_id))
            if _waits(state) and await self._follow_up(game_id, state, version) is not None:
                dealt += 1
        return dealt

    async def _unstall(self, game_id: uuid.UUID) -> None:
        """Deal (or reveal) a game this process last saw waiting for it: the process whose
        command led there may have stopped before its follow-up. No I/O unless the cached
        state waits."""
        if _waits(self.handler.cached(game_stream(game_id))):
            version, state = await self.handler.load(game_stream(game_id))
            await self._follow_up(game_id, state, version)

    # --- reading ------------------------------------------------------------------------------

    async def deal_source(self, game_id: uuid.UUID) -> DealSource | None:
        """The game's deal source (cached); None if there is no such game or it is over.

        None is no refusal: the command goes on to the handler, which looks up its
        idempotency key before anything else is decided (a replay answers as the first time
        did), and the log then says whether the game exists (`GameNotFound`) or is over
        (the rules' refusal), whether this process saw the game before or not."""
        source = self._sources.get(game_id) or self._layouts.get(game_id)
        if source is None and _dealt_by_database(self.handler.cached(game_stream(game_id))):
            return None  # what api.deal_source answers for it, without the round trip
        if source is None:
            source = await self.lobby.deal_source(game_id)
            if source is not None:
                self._remember(game_id, source)
        return source

    def _remember(self, game_id: uuid.UUID, source: DealSource) -> None:
        (self._layouts if source.layouts else self._sources).put(game_id, source)

    async def state(self, game_id: uuid.UUID) -> tuple[int, GameState]:
        """The game's current version and state (the live fold, never stale)."""
        version, state, _ = await self.state_with_head(game_id)
        return version, state

    async def state_with_head(self, game_id: uuid.UUID) -> tuple[int, GameState, bytes]:
        """`state`, and the hash of the game's last event: the head a client pins."""
        version, state, head = await self.handler.load_with_head(game_stream(game_id))
        if version == 0:
            raise GameNotFound("no game has this id")
        return version, state, head

    async def view_state(self, game_id: uuid.UUID, seen: int = 0) -> tuple[int, GameState, bytes]:
        """The game's version, state and head for a reader: from the standby when there is one
        (it may be behind the primary by its lag), but never behind ``seen``, the version the
        caller proved he saw (his ETag): then from the primary. A version this process knows
        to be the head (its own commit, or a read that no later hint has spoiled: the knowledge
        a 304 is answered from) is served without a read of the log, unless the caller saw a
        later one."""
        held = self.handler.current(game_stream(game_id))
        if held is not None and held[0] >= seen:
            version, state, head = held
        elif self.replica is None:
            version, state, head = await self.state_with_head(game_id)
        else:
            version, state, head = await self.handler.load_with_head(
                game_stream(game_id), replica=self.replica, at_least=seen
            )
            if version == 0:
                raise GameNotFound("no game has this id")
        # A table left waiting for its deal or its reveal (the process whose command led there
        # stopped before its follow-up): no seat can act, so a reader's look deals it.
        if _waits(state) and await self._follow_up(game_id, state, version) is not None:
            return await self.state_with_head(game_id)
        return version, state, head

    def known_version(self, game_id: uuid.UUID) -> int | None:
        """The game's version if this process knows it is current without reading the log
        (`service.eventlog.log.Heads`: a conditional read may answer 304 at once); else None."""
        return self.handler.known_current(game_stream(game_id))

    async def history(
        self, game_id: uuid.UUID, player: str | None, after: int, limit: int, *, seen: int = 0
    ) -> tuple[list[SeenEvent], int]:
        """Up to ``limit`` events after version ``after``, as ``player`` may see them, and the
        version of the last event read (``after`` if none). From the standby if there is one,
        unless it is behind ``after`` or ``seen`` (versions the caller knows exist)."""
        stream = game_stream(game_id)
        logged: list[Logged[game.Event]] = []
        if self.replica is not None:  # the caller saw ``after``: a standby behind it won't do
            logged = await self.replica.read(stream, 1, limit=after + limit)
        if len(logged) < min(max(after, seen, 1), after + limit):
            logged = await self.log.read(stream, 1, limit=after + limit)
        if not logged:
            raise GameNotFound("no game has this id")
        checked: GameState = INITIAL_STATE
        for item in logged:  # a log that cannot be folded is quarantined, not a 500
            _, checked = self.log.step(game.evolve, checked, item.record, item.event)
        state = game.fold([item.event for item in logged[:after]], INITIAL_STATE)
        items, _ = redacted([(item.version, item.event) for item in logged[after:]], player, state)
        return items, items[-1].version if items else after


def _dealt_by_database(state: GameState | None) -> bool:
    """Whether ``state`` (any version of a game, as this process last saw it) is of a game the
    database deals (``fairness`` 2, fixed at its creation): its deal source is none for good
    (migration 0018), so a command to it needs no lookup."""
    return isinstance(state, game.Pulka) and state.fairness == 2


def _waits(state: GameState | None) -> bool:
    """Whether a game the database deals waits for the service's own command: its due deal,
    or its secret's reveal after the end."""
    if not isinstance(state, game.Pulka) or state.fairness != 2:
        return False
    return game.needs_cards(state) or (isinstance(state, game.PulkaClosed) and state.secret is None)


def _after(version: int) -> str:
    """The cause a follow-up's events name: the version the command before it left."""
    return f"follow-up:{version}"


def _may_play(player: Player) -> None:
    if isinstance(player, Caller):
        player.may_play()


def _token(player: Player) -> bytes | None:
    return player.token_hash if isinstance(player, Caller) else None


def outcome_of(game_id: uuid.UUID, player: str, result: CommandResult[Any, Any]) -> Outcome:
    """A command's result as ``player`` sees it: his redacted events, seat and the new state."""
    assert result.before is not None and result.state is not None
    events, _ = redacted([(a.version, a.event) for a in result.appended], player, result.before)
    seat = game.seat_of(result.state, player)
    return Outcome(game_id, result.version, seat, events, result.state, head=result.head)
