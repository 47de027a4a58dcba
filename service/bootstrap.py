"""The composition root: every collaborator of a process built once, here, for its role.

`open_services(settings, role)` is how the API process (`service.app`), the bot process
(`run_bots`) and the CLI (`service.cli`) get their collaborators; tests call it with
their own settings. It resolves the database (DATABASE_URL, or the embedded server), migrates
when asked, opens the least-privileged pool, builds the one event log and what the role needs
from it, wires the hints (an append, a NOTIFY, a token's revocation) to whoever waits on them,
starts the role's background workers, and on exit stops them and closes everything in order::

    role        builds                                         runs in the background
    cli         pool, log                                      nothing
    bots        pool, log, lobby, players, bots, snapshots     the hint hub, the bots'
                (read), games, the bots' steward, the hub      steward
    background  pool, log, projections, analyst, miner, the    the hint hub, the projections,
                purger's pool, the key purger, snapshots       the analyst, the miner, the key
                (written), the dumper, hub                     purger, the snapshots' writer,
                                                               the dumps (when on)
    api         everything the controllers are handed          the hint hub, the live poller,
                (`Services`), the steward, the rate limiter,   the notifications hub, the
                the hint hub; with ``background_worker =       steward, the rate limiter,
                inline``, the background role's parts too      inline bots (and background)

Each role logs in as its own database role (`LOGINS`). ``preferans serve`` runs the API, the
bots and the background each in a process of its own (`Settings.bot_worker`,
`Settings.background_worker`), so the request path's process holds only the API role's login:
it cannot write a read model, a checkpoint or a snapshot, nor purge anything, however it is
compromised. ``inline`` puts a role's workers in the API process instead (tests, small setups).

Every process that runs workers has one hint hub (`service.eventlog.hints`): the log's one
listener, one LISTEN connection, and the one place each worker is subscribed to the hints.

The projection runner, the analyst and the miner, where they run inline, are started by the
app's lifespan when its ``projections`` switch says so; the background role starts them itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Literal

import asyncpg

from bots.budget import DEFAULT_LAYOUTS, Budget
from migrations import APP_ROLE, BOTS_ROLE, PROJECTIONS_ROLE, PURGER_ROLE
from service.api.rate_limits import CHAT, Policy, RateLimiter
from service.eventlog.hints import HintHub
from service.eventlog.log import EventLog, game_log
from service.eventlog.snapshots import Snapshots, game_snapshots
from service.games.chat import TableTalk
from service.games.live import Live
from service.games.lobby import Lobby
from service.games.lobby_live import LobbyHub
from service.games.rematch import Rematches
from service.games.service import GameService
from service.games.streams import game_id_of
from service.games.studies import StudyService, study_log
from service.games.tournaments import Embargo, TournamentService, tournament_log
from service.platform.clock import SYSTEM_CLOCK, Clock
from service.platform.database import (
    HealthProbe,
    app_dsn,
    pool_from_settings,
    resolve_dsn,
    role_dsn,
    upgrade_async,
)
from service.platform.entropy import SYSTEM_ENTROPY, Entropy
from service.platform.settings import Settings
from service.players.accounts import Players
from service.players.bots import BotPlayers
from service.players.invites import Invites
from service.players.notifications import Notes, NotesHub
from service.players.oauth import OAuthServer
from service.players.oauth import purge as purge_oauth
from service.players.passkeys import Passkeys
from service.players.signin import Accounts, SignInPolicy
from service.read_models.analyst import Analyst
from service.read_models.miner import Miner
from service.read_models.moderation import Moderation
from service.read_models.puzzles import Puzzles
from service.read_models.runner import Projections
from service.workers.clerk import Clerk
from service.workers.dumps import Dumper, DumpShelf
from service.workers.key_purger import KeyPurger
from service.workers.steward import Steward

log = logging.getLogger(__name__)

Role = Literal["api", "bots", "background", "cli", "projections"]

LOGINS: dict[str, str] = {
    "api": APP_ROLE, "cli": APP_ROLE, "bots": BOTS_ROLE, "projections": PROJECTIONS_ROLE,
    "background": PROJECTIONS_ROLE,
}  # fmt: skip
"""The database role each kind of process logs in as (migration 0017; docs/operations.md). The
background process's purger logs in as the purger's role on a small pool of its own; so do the
API process's projections and purger when they run inline."""

WORKER_POOL_SIZE = 8
"""Connections at most of a worker's own pool (a projection's leadership holds one each)."""

SHUTDOWN_TIMEOUT = 5.0
"""Seconds a background worker (or a busy connection) may take to stop before it is dropped."""


@dataclass(kw_only=True)
class Services:
    """A process's collaborators. What its role does not build is None."""

    settings: Settings
    pool: asyncpg.Pool
    clock: Clock
    entropy: Entropy
    """What every random draw of a game comes from (`service.platform.entropy`)."""
    event_log: EventLog[Any]
    """The games' event log: every read and write of a stream goes through it."""
    lobby: Lobby | None = None
    players: Players | None = None
    accounts: Accounts | None = None
    passkeys: Passkeys | None = None
    oauth: OAuthServer | None = None
    invites: Invites | None = None
    bots: BotPlayers | None = None
    snapshots: Snapshots[Any] | None = None
    games: GameService | None = None
    hints: HintHub | None = None
    """The process's one LISTEN connection, and the fan-out of every hint to its workers."""
    live: Live | None = None
    notes: Notes | None = None
    notes_hub: NotesHub | None = None
    lobby_hub: LobbyHub | None = None
    """The public lobby's changes, pushed to its followers (`service.games.lobby_live`)."""
    steward: Steward | None = None
    tournaments: TournamentService | None = None
    """Tournaments: their streams, tables and secrets (`service.games.tournaments`)."""
    embargo: Embargo | None = None
    """Which games are duplicate tables whose cards stay hidden until their event ends."""
    clerk: Clerk | None = None
    projections: Projections | None = None
    analyst: Analyst | None = None
    miner: Miner | None = None
    """Puzzles mined from finished games (`service.read_models.miner`)."""
    puzzles: Puzzles | None = None
    """The puzzles as players meet them: the next, an attempt, a history."""
    moderation: Moderation | None = None
    """The moderator role and the collusion report (docs/fair-play.md)."""
    studies: StudyService | None = None
    """What-if studies: their own streams, forked from finished deals."""
    dumper: Dumper | None = None
    """The dumps of every finished rated game (`service.workers.dumps`), when they are on."""
    dumps: DumpShelf | None = None
    """The dumps written so far, as the API lists and serves them."""
    limiter: RateLimiter | None = None
    talk: TableTalk | None = None
    """The tables' chat and rematch offers, followed for the games' streams."""
    rematches: Rematches | None = None
    chat_limiter: RateLimiter | None = None
    """Counts the chat's own limit (`service.api.rate_limits.CHAT`), always on."""
    replica_pool: asyncpg.Pool | None = None
    projections_pool: asyncpg.Pool | None = None
    """The projections' role's pool: the read models, their checkpoints, the snapshots."""
    purger_pool: asyncpg.Pool | None = None
    """The purger's role's pool: expired keys and old notifications."""
    health: HealthProbe | None = None
    """/health's reserved connection (the API role), outside the pool."""
    background: list[asyncio.Task[Any]] = field(default_factory=list)

    def start(self, work: Coroutine[Any, Any, Any], name: str) -> None:
        """Run ``work`` in the background until the services close."""
        self.background.append(asyncio.create_task(work, name=name))


async def stop_task(task: asyncio.Task[Any], timeout: float = SHUTDOWN_TIMEOUT) -> None:
    """Cancel ``task`` until it has ended (or ``timeout`` passed).

    Once is not always enough on Python 3.11: ``asyncio.wait_for`` swallows a cancellation that
    races the completion of what it waits for (gh-86296, fixed in 3.12), and the event store's
    hint wait uses it, so a hint arriving at shutdown can cancel the cancel.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not task.done() and loop.time() < deadline:
        task.cancel()
        await asyncio.wait({task}, timeout=0.1)
    if not task.done():
        log.error("%s did not stop within %s s; abandoned", task.get_name(), timeout)
    elif not task.cancelled() and task.exception() is not None:
        log.error("%s failed", task.get_name(), exc_info=task.exception())


@contextlib.asynccontextmanager
async def open_services(
    settings: Settings,
    role: Role,
    *,
    dsn: str | None = None,
    migrate: bool = False,
    live_poll_interval: float = 1.0,
    live_queue_size: int = 256,
    clock: Clock = SYSTEM_CLOCK,
    entropy: Entropy = SYSTEM_ENTROPY,
) -> AsyncIterator[Services]:
    """The collaborators of a process of ``role``, open until the block ends.

    ``dsn`` is the administrator's URL (default: DATABASE_URL, or the embedded server); the
    pool logs in as the role's own least-privileged login (`LOGINS`,
    `service.platform.database.role_dsn`); ``projections`` is the CLI with the projections'
    role (``preferans projections …``).
    ``migrate`` brings the schema up to date first. ``clock`` is the one clock of every
    command's stamp and every deadline (tests hand a `service.platform.clock.ManualClock`).
    ``entropy`` is the one source of every game's random draws: secrets, client seeds, the
    bots' generators (tests hand a `service.platform.entropy.SeededEntropy`; no setting can).
    """
    admin = dsn or settings.database_url
    if admin is None:  # the embedded server
        admin = await asyncio.to_thread(resolve_dsn, settings)
    if migrate:
        await upgrade_async(admin, app_password=settings.app_password)
    # Each process kind logs in as its own least-privileged role, never as the administrator.
    pool = await pool_from_settings(settings, role_dsn(admin, settings, LOGINS[role]))
    if role == "api":
        event_log = game_log(
            pool,
            announce=settings.notify,
            head_trust=settings.head_trust,
            group_commit=settings.group_commit,
        )
    elif role == "bots":
        event_log = game_log(pool, announce=settings.notify, group_commit=settings.group_commit)
    else:
        event_log = game_log(pool)
    services = Services(
        settings=settings, pool=pool, event_log=event_log, clock=clock, entropy=entropy
    )
    if role == "api":
        services.health = HealthProbe(
            app_dsn(admin, settings), pool, connect_timeout=settings.connect_timeout
        )
    if entropy.seeded:
        log.warning("the services draw from %r: every deal is predictable (tests only)", entropy)
    try:
        if role == "api":
            if settings.background_worker == "inline":
                services.projections_pool = await _worker_pool(settings, admin, PROJECTIONS_ROLE)
                services.purger_pool = await _worker_pool(settings, admin, PURGER_ROLE)
            await _api(services, live_poll_interval, live_queue_size)
        elif role == "bots":
            await _bots(services)
        elif role == "background":
            services.projections_pool = pool
            services.purger_pool = await _worker_pool(settings, admin, PURGER_ROLE)
            await _background(services)
        yield services
    finally:
        await _close(services)


async def run_bots(settings: Settings, *, stop: asyncio.Event | None = None) -> None:
    """The bot worker (``preferans bots``): move the bots until ``stop`` is set (or the task is
    cancelled)."""
    stop = stop or asyncio.Event()
    async with open_services(settings, "bots"):
        log.info("bot worker: moving the bots")
        await stop.wait()


async def run_background(settings: Settings, *, stop: asyncio.Event | None = None) -> None:
    """The background worker (``preferans background``): the projections, the analyst, the
    miner, the purger and the snapshots' writer, until ``stop`` is set (or the task is
    cancelled)."""
    stop = stop or asyncio.Event()
    async with open_services(settings, "background"):
        log.info("background worker: projections, analyst, miner, purger, snapshots")
        await stop.wait()


def worker_main(settings: Settings, role: Literal["bots", "background"]) -> int:
    """A worker process of ``role``: run until SIGTERM or SIGINT."""
    run = run_bots if role == "bots" else run_background

    async def serve() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await run(settings, stop=stop)

    asyncio.run(serve())
    return 0


async def _worker_pool(settings: Settings, admin: str, role: str) -> asyncpg.Pool:
    """A small pool of a background worker's own role."""
    return await pool_from_settings(
        settings, role_dsn(admin, settings, role),
        max_size=min(settings.pool_max_size, WORKER_POOL_SIZE),
    )  # fmt: skip


def _snapshots(
    settings: Settings, pool: asyncpg.Pool, writer: asyncpg.Pool | None, *, from_log: bool = False
) -> Snapshots[Any] | None:
    """Snapshots read on ``pool``, written (offers after their audit, or ``from_log``: taken
    from the log on the hints) on ``writer``'s role only; a process without one only reads."""
    if not settings.snapshots:
        return None
    return game_snapshots(pool, every=settings.snapshot_every, writer=writer, from_log=from_log)


def _cores() -> int:
    """The cores this process may run on: the size of the bots' pool of thinkers."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _bot_steward(services: Services) -> Steward:
    """The steward with the bots' duty: thinks and moves for the service's bots."""
    settings = services.settings
    assert services.games is not None
    steward = Steward(
        services.games, services.pool, duty="bots", bots=services.bots,
        think_budget=Budget(
            seconds=settings.bot_budget, nodes=settings.bot_nodes,
            layouts=DEFAULT_LAYOUTS if settings.bot_layouts else None,
        ),
        think_processes=_cores() if settings.bot_processes is None else settings.bot_processes,
        pace=settings.bot_pace,
        poll_interval=settings.steward_poll_interval, clock=services.clock,
        entropy=services.entropy,
    )  # fmt: skip
    return steward


def _other_purges(services: Services) -> Callable[[], Awaitable[int]]:
    """What the key purger does besides the keys, on its schedule: old notifications and
    invites, expired registration keys, OAuth's spent codes and refresh tokens, and (once) the
    names of players registered before names were compared."""

    assert services.purger_pool is not None
    # The purges run as the purger's role (0017); the names' claim is the API's, at its start.
    notes, registrations = Notes(services.purger_pool), Players(services.purger_pool)

    pool = services.purger_pool

    async def purge() -> int:
        purged = await notes.purge() + await registrations.purge_registrations()
        return purged + await registrations.purge_sign_ins() + await purge_oauth(pool)

    return purge


async def _claim_names(players: Players, retry: float = 5.0) -> None:
    """Enter the names of players registered before names were compared (`Players.claim_names`),
    once the schema has them; retried while the database cannot."""
    while True:
        try:
            await players.claim_names()
            return
        except (asyncpg.PostgresError, OSError) as exc:
            log.warning("the old players' names are not claimed yet: %s", exc)
            await asyncio.sleep(retry)


def _read_models(services: Services) -> None:
    """The projections and the analyst over the projections' role's pool, and the key purger
    over the purger's: built for the background role, or for the API's inline background."""
    settings = services.settings
    assert services.projections_pool is not None and services.purger_pool is not None
    read_models = services.event_log.on(services.projections_pool)
    services.projections = Projections(read_models)
    services.analyst = (
        Analyst(read_models, layouts=settings.analysis_layouts) if settings.analysis else None
    )
    services.miner = Miner(read_models) if settings.puzzles else None
    if settings.dump_interval > 0:
        services.dumper = Dumper(
            read_models, settings.dumps_dir, interval=settings.dump_interval,
            pseudonyms=settings.dump_pseudonyms, keep=settings.dump_keep,
        )  # fmt: skip
        services.start(services.dumper.run(), "dumps")
    purger = KeyPurger(
        services.event_log.on(services.purger_pool), interval=settings.key_purge_interval,
        also=_other_purges(services),
    )  # fmt: skip
    services.start(purger.run(), "key-purger")


async def _api(services: Services, live_poll_interval: float, live_queue_size: int) -> None:
    settings, pool, event_log = services.settings, services.pool, services.event_log
    services.lobby = Lobby(pool)
    # Cached tokens are trusted while the live poller hears revocations (its LISTEN).
    services.players = players = Players(
        pool, hearing=lambda: event_log.heads.listening, key_ttl=settings.idempotency_ttl
    )
    services.accounts = Accounts(pool, players, SignInPolicy(
        per_login=settings.sign_in_failures_per_login,
        per_address=settings.sign_in_failures_per_address,
        window=settings.sign_in_window, lockout=settings.sign_in_lockout,
    ))  # fmt: skip
    services.passkeys = Passkeys(
        pool, players, rp_id=settings.webauthn_rp_id, origins=settings.passkey_origins
    )
    services.oauth = OAuthServer(pool, players, issuer=settings.oauth_issuer)
    services.invites = Invites(pool)
    services.bots = bots = BotPlayers()
    await bots.ensure(pool)
    for bot in bots.players.values():
        players.remember(bot)
    replica: EventLog[Any] | None = None
    if settings.replica_database_url:
        services.replica_pool = await pool_from_settings(settings, settings.replica_database_url)
        replica = event_log.on(services.replica_pool)
    # The snapshots are written where the projections' role is: inline, offered by the
    # commands (and audited); in a background process, taken from the log there.
    services.snapshots = _snapshots(settings, pool, services.projections_pool)
    services.games = games = GameService(
        event_log,
        services.lobby,
        players=players,
        invites=services.invites,
        retries=settings.command_retries,
        cache_size=settings.state_cache_size,
        key_ttl=settings.idempotency_ttl,
        snapshots=services.snapshots,
        replica=replica,
        clock=services.clock,
        entropy=services.entropy,
    )
    services.live = live = Live(
        event_log, poll_interval=live_poll_interval, queue_size=live_queue_size
    )
    services.notes = Notes(pool)
    services.notes_hub = notes_hub = NotesHub(pool, poll_interval=settings.notes_poll_interval)
    services.lobby_hub = lobby_hub = LobbyHub(services.lobby)
    services.talk = talk = TableTalk(pool, poll_interval=live_poll_interval)
    services.rematches = Rematches(pool, games, talk)
    services.chat_limiter = chat_limiter = RateLimiter(pool, [CHAT])
    services.steward = steward = Steward(
        games, pool, bots=bots, poll_interval=settings.steward_poll_interval, clock=services.clock,
        entropy=services.entropy,
    )  # fmt: skip
    services.tournaments = tournaments = TournamentService(
        tournament_log(event_log), games, players, bots, clock=services.clock
    )
    services.embargo = tournaments.embargo
    services.studies = StudyService(
        study_log(event_log), event_log, tournaments.embargo, clock=services.clock,
        entropy=services.entropy,
    )  # fmt: skip
    services.puzzles = Puzzles(pool)
    services.moderation = Moderation(pool)
    services.dumps = DumpShelf(settings.dumps_dir)
    services.clerk = clerk = Clerk(
        tournaments, interval=settings.steward_poll_interval,
        daily=settings.daily_robot_duplicate,
    )  # fmt: skip
    if settings.background_worker == "inline":
        _read_models(services)
    else:  # read here only for its status (/v1/projections, /metrics); run elsewhere
        services.projections = Projections(event_log)
    projections = services.projections
    assert projections is not None
    if settings.rate_limits:
        services.limiter = RateLimiter(
            pool,
            [
                Policy("reads", settings.reads_per_minute, 60),
                Policy("writes", settings.writes_per_minute, 60),
            ],
        )
    bot_steward = _bot_steward(services) if settings.bot_worker == "inline" else None
    # The hints, wired once: an append here, or another process's heard on the hub's one
    # LISTEN connection, wakes whoever waits on one; a revoked token's news reaches the players.
    services.hints = hints = HintHub(event_log)
    for hinted in (live.hint, notes_hub.hint, lobby_hub.hint, steward.hint, tournaments.hint,
                   clerk.hint):  # fmt: skip
        hints.subscribe(hinted)
    if settings.background_worker == "inline":
        hints.subscribe(projections.hint)
    if bot_steward is not None:
        hints.subscribe(bot_steward.hint)
    hints.on_news(players.on_news)

    services.start(hints.run(), "hints")
    services.start(live.run(), "live-updates")
    services.start(notes_hub.run(), "notifications")
    services.start(lobby_hub.run(), "lobby")
    services.start(talk.run(), "table-talk")
    services.start(chat_limiter.run(), "chat-limits")
    services.start(_claim_names(players), "names")
    if services.snapshots is not None and services.snapshots.writer is not None:
        services.start(services.snapshots.run(), "snapshots")
    if settings.steward:
        services.start(steward.run(), "steward")
        services.start(clerk.run(), "tournament-clerk")
    if bot_steward is not None:
        services.start(bot_steward.run(), "bots")
    if services.limiter is not None:
        services.start(services.limiter.run(), "rate-limits")


async def _bots(services: Services) -> None:
    """The bot worker: the service's bots think and move in a process of their own.

    ``preferans bots`` runs it (`run_bots`); ``preferans serve`` starts one beside its API
    workers (``PREFERANS_BOT_WORKER=process``, the default), so that a bot's thinking never runs
    on an API event loop. It is a `service.workers.steward.Steward` with the ``bots`` duty over
    its own pool and event log: it sleeps until ``api.games.bot_due_at`` says a bot is to move
    (woken by the event store's append hints), decides from exactly what the bot's seat sees,
    and sends the move as an ordinary command at the game's exact version under a key of game,
    version and bot, so two workers, a crash or a restart never make a bot act twice, and a
    restarted worker picks up where the last one stopped.
    """
    settings, pool, event_log = services.settings, services.pool, services.event_log
    services.bots = bots = BotPlayers()
    services.players = Players(pool)
    services.lobby = Lobby(pool)
    services.snapshots = _snapshots(settings, pool, None)  # it reads them; the API's writer writes
    services.games = GameService(
        event_log, services.lobby, players=services.players, cache_size=settings.state_cache_size,
        snapshots=services.snapshots, clock=services.clock, entropy=services.entropy,
    )  # fmt: skip
    services.steward = steward = _bot_steward(services)
    # The hints, wired once: the bots' own moves and the others' appends wake the steward.
    services.hints = hints = HintHub(event_log)
    hints.subscribe(steward.hint)

    while not await bots.ensure(pool):
        await asyncio.sleep(1)
    services.start(hints.run(), "hints")
    services.start(steward.run(), "bots")


async def _background(services: Services) -> None:
    """The background worker: what reads the whole log and writes what only it may write.

    ``preferans background`` runs it (`run_background`); ``preferans serve`` starts one beside
    its API workers (``PREFERANS_BACKGROUND_WORKER=process``, the default). It logs in as the
    projections' role: the projections and the analyst write the read models and their
    checkpoints, the snapshots' writer takes snapshots from the log (`Snapshots.hint`), and the
    key purger, on the purger's role's pool, deletes expired keys and old notifications. Each
    is woken by the append hints of every process (the hub's LISTEN connection).
    """
    settings = services.settings
    _read_models(services)
    services.snapshots = _snapshots(settings, services.pool, services.pool, from_log=True)
    assert services.projections is not None
    services.hints = hints = HintHub(services.event_log)
    hints.subscribe(services.projections.hint)
    if services.snapshots is not None:
        hints.subscribe(_games_only(services.snapshots.hint))
        services.start(services.snapshots.run(), "snapshots")
    services.start(hints.run(), "hints")
    if settings.projections:
        services.start(services.projections.run(), "projections")
    if services.analyst is not None:
        services.start(services.analyst.run(), "analyst")
    if services.miner is not None:
        services.start(services.miner.run(), "miner")


def _games_only(hint: Callable[[str, int], None]) -> Callable[[str, int], None]:
    """``hint``, told only of the games' streams (and of hints lost, ``""``): the snapshots
    fold games, never a tournament's or a study's stream."""

    def games_hint(stream_id: str, version: int) -> None:
        if not stream_id or game_id_of(stream_id) is not None:
            hint(stream_id, version)

    return games_hint


async def _close_pool(pool: asyncpg.Pool) -> None:
    try:
        await asyncio.wait_for(pool.close(), SHUTDOWN_TIMEOUT)
    except TimeoutError:
        pool.terminate()


async def _close(services: Services) -> None:
    """Stop the background, then close the log, the caches' writers and the pools."""
    await services.event_log.close()
    if services.snapshots is not None:
        await services.snapshots.close()
    if services.live is not None:
        services.live.close()
    if services.notes_hub is not None:
        services.notes_hub.close()
    if services.lobby_hub is not None:
        services.lobby_hub.close()
    if services.tournaments is not None:
        await services.tournaments.stop()
    for task in services.background:
        await stop_task(task)
    if services.replica_pool is not None:
        services.replica_pool.terminate()
    for own in (services.projections_pool, services.purger_pool):
        if own is not None:
            await _close_pool(own)
    if services.health is not None:
        await services.health.close()
    try:
        await asyncio.wait_for(services.pool.close(), SHUTDOWN_TIMEOUT)
    except TimeoutError:
        log.error("connections still busy after %s s at shutdown: closed", SHUTDOWN_TIMEOUT)
        services.pool.terminate()
