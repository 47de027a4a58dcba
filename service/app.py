"""The composition root: `create_app` builds the app, `run` serves it (``preferans serve``).

The app's lifespan resolves the database (DATABASE_URL, or the embedded server), runs the
migrations and opens the asyncpg pool; then it builds every collaborator exactly once, from the
one event log (`service.event_log.game_log`), and starts the background workers (the live
updates' poller, the projection runner). Controllers get them by dependency injection, by name:

    events       `service.event_log.EventLog`        the games' streams, decoded
    games        `service.games.GameService`         create, join, act, read a game
    players      `service.players.Players`           registration, tokens, names
    lobby        `service.lobby.Lobby`               the list of games, a player's games
    invites      `service.invites.Invites`           codes to private tables
    notes        `service.notes.Notes`               a player's notifications
    notes_hub    `service.notes.NotesHub`            the per-player SSE fan-out
    bots         `service.bot_players.BotPlayers`    the service's bots as players
    live         `service.live.Live`                 the games' SSE fan-out
    projections  `service.projection_runner.Projections`
    caller / viewer                                  the authenticated player (`service.api.auth`)

The background workers: the live poller, the notifications hub, the steward
(`service.steward`: timeouts, moves for absent seats and bots), the purger of expired keys and
old notifications, the rate limiter.

Routes under /v1 are `V1_ROUTE_HANDLERS` (or ``extra_route_handlers``); the reference web
client (`service/web/`, static files, no build step) is served at ``/`` by
`service.api.web.web_client`. More
background workers go in ``lifespans`` (entered once the collaborators exist, left before the
pool closes). Errors are mapped to problem+json in `service.errors` only.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import msgspec
from litestar import Litestar, Router
from litestar.config.cors import CORSConfig
from litestar.datastructures import State
from litestar.di import Provide
from litestar.middleware import DefineMiddleware
from litestar.openapi import OpenAPIConfig
from litestar.openapi.spec import Components, SecurityScheme, Server, Tag
from litestar.routes import HTTPRoute
from litestar.types import ControllerRouterHandler

from service.analyst import Analyst
from service.api import auth, read_models
from service.api.actions import ActionsController
from service.api.common import check_request
from service.api.docs import OfflineSwagger, docs_router
from service.api.edge import Edge
from service.api.events import EventsController, SseSettings
from service.api.games import GamesController
from service.api.health import HealthController
from service.api.observability import MetricsController, RequestIds, prometheus_config
from service.api.openapi import RENDER_PLUGINS, finish
from service.api.players import PlayersController
from service.api.problems import ProblemsController
from service.api.table import ROUTES as TABLE_ROUTES
from service.api.views import ViewsController
from service.api.web import web_client
from service.bot_players import BotPlayers
from service.database import (
    app_dsn,
    head_revision,
    pool_from_settings,
    resolve_dsn,
    upgrade_async,
)
from service.errors import EXCEPTION_HANDLERS
from service.event_log import EventLog, game_log
from service.event_store import EventStore
from service.games import GameService
from service.invites import Invites
from service.key_purger import KeyPurger
from service.live import Live
from service.lobby import Lobby
from service.notes import Notes, NotesHub
from service.orphans import die_with_parent
from service.players import Players
from service.projection_runner import Projections
from service.rate_limits import Policy, RateLimiter
from service.settings import Settings
from service.snapshots import game_snapshots
from service.steward import Steward
from service.telemetry import configure_logging, configure_tracing

log = logging.getLogger(__name__)

API_VERSION = "1.0.0"
MAX_BODY_BYTES = 64 * 1024
"""No request of this API needs more: a hundred layouts fit in a quarter of it."""
OPENAPI_PATH = Path(__file__).resolve().parents[1] / "openapi" / "openapi.json"
V1_ROUTE_HANDLERS: list[ControllerRouterHandler] = [
    PlayersController,
    GamesController,
    ViewsController,
    ActionsController,
    EventsController,
    *TABLE_ROUTES,
    *read_models.ROUTE_HANDLERS,
]
"""Everything under /v1."""

Lifespan = Callable[[Litestar], AbstractAsyncContextManager[None]]
SHUTDOWN_TIMEOUT = 5.0
"""Seconds a background worker (or a busy connection) may take to stop before it is dropped."""


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
async def _bounded(context: AbstractAsyncContextManager[None]) -> AsyncIterator[None]:
    """``context``, whose exit may not hold up the shutdown for more than SHUTDOWN_TIMEOUT."""
    async with contextlib.AsyncExitStack() as stack:
        await stack.enter_async_context(context)
        exit_stack = stack.pop_all()
    try:
        yield
    finally:
        try:
            await asyncio.wait_for(exit_stack.aclose(), SHUTDOWN_TIMEOUT)
        except TimeoutError:
            log.error("%r did not stop within %s s; abandoned", context, SHUTDOWN_TIMEOUT)


_COLLABORATORS = (
    "events", "games", "players", "lobby", "invites", "notes", "notes_hub", "bots", "live",
    "projections",
)  # fmt: skip


def _limiter_of(scope: Any) -> RateLimiter | None:
    limiter: RateLimiter | None = scope["app"].state.get("limiter")
    return limiter


@contextlib.asynccontextmanager
async def _projections_lifespan(app: Litestar) -> AsyncIterator[None]:
    """Run the projections in the background while the app serves (catching up on start)."""
    tasks = [asyncio.create_task(app.state.projections.run(), name="projections")]
    if app.state.analyst is not None:
        tasks.append(asyncio.create_task(app.state.analyst.run(), name="analyst"))
    try:
        yield
    finally:
        for task in tasks:
            await stop_task(task)


def _from_state(name: str) -> Provide:
    def provide(state: State) -> Any:
        return state[name]

    provide.__name__ = f"provide_{name}"
    return Provide(provide, sync_to_thread=False)


def create_app(
    settings: Settings | None = None,
    *,
    dsn: str | None = None,
    migrate: bool = True,
    extra_route_handlers: Sequence[ControllerRouterHandler] = (),
    lifespans: Sequence[Lifespan] = (),
    projections: bool | None = None,
    sse: SseSettings | None = None,
    live_poll_interval: float = 1.0,
    live_queue_size: int = 256,
    debug: bool = False,
    tracing: bool | None = None,
) -> Litestar:
    """The HTTP API. Nothing connects until the app starts (its lifespan).

    ``dsn`` overrides ``settings.database_url`` (and the embedded server); ``migrate=False``
    skips the migrations for a database known to be current. ``projections=False`` leaves the
    read models' background runner off (the routes still serve what the tables hold).
    ``tracing`` adds OpenTelemetry's middleware (default: when OTEL_EXPORTER_OTLP_ENDPOINT is
    set, `service.telemetry.configure_tracing`).
    """
    settings = settings or Settings.from_env()
    sse = sse or SseSettings()
    if projections is None:
        projections = settings.projections

    @contextlib.asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        admin = dsn or settings.database_url
        if admin is None:  # the embedded server
            admin = await asyncio.to_thread(resolve_dsn, settings)
        if migrate:
            await upgrade_async(admin, app_password=settings.app_password)
        # The request path logs in as the least-privileged role, never as the administrator.
        pool = await pool_from_settings(settings, app_dsn(admin, settings))
        events = game_log(pool, announce=settings.notify, head_trust=settings.head_trust)
        lobby = Lobby(pool)
        players = Players(pool)
        invites = Invites(pool)
        bots = BotPlayers()
        await bots.ensure(pool)
        for bot in bots.players.values():
            players.remember(bot)
        replica_pool = None
        replica: EventLog[Any] | None = None
        if settings.replica_database_url:
            replica_pool = await pool_from_settings(settings, settings.replica_database_url)
            replica = EventLog(EventStore(replica_pool), events.codec)
        snapshots = (
            game_snapshots(pool, every=settings.snapshot_every) if settings.snapshots else None
        )
        games = GameService(
            events,
            lobby,
            players=players,
            invites=invites,
            retries=settings.command_retries,
            cache_size=settings.state_cache_size,
            key_ttl=settings.idempotency_ttl,
            snapshots=snapshots,
            replica=replica,
        )
        live = Live(events, poll_interval=live_poll_interval, queue_size=live_queue_size)
        events.add_listener(live.poke)
        notes = Notes(pool)
        notes_hub = NotesHub(pool, poll_interval=settings.notes_poll_interval)
        live.watch(notes_hub.hint)
        live.watch_news(players.on_news)
        events.add_listener(notes_hub.hint)
        steward = Steward(games, pool, bots=bots, poll_interval=settings.steward_poll_interval)
        live.watch(steward.hint)
        events.add_listener(steward.hint)
        runner = Projections(events)
        limiter = None
        if settings.rate_limits:
            limiter = RateLimiter(
                pool,
                [
                    Policy("reads", settings.reads_per_minute, 60),
                    Policy("writes", settings.writes_per_minute, 60),
                ],
            )
        app.state.update(
            events=events,
            games=games,
            players=players,
            lobby=lobby,
            invites=invites,
            notes=notes,
            notes_hub=notes_hub,
            bots=bots,
            steward=steward,
            live=live,
            projections=runner,
            analyst=Analyst(pool) if settings.analysis else None,
            limiter=limiter,
        )
        purger = KeyPurger(events.store, interval=settings.key_purge_interval, also=notes.purge)
        background = [
            asyncio.create_task(live.run(), name="live-updates"),
            asyncio.create_task(notes_hub.run(), name="notifications"),
            asyncio.create_task(purger.run(), name="key-purger"),
        ]
        if snapshots is not None:
            background.append(asyncio.create_task(snapshots.run(), name="snapshots"))
        if settings.steward:
            background.append(asyncio.create_task(steward.run(), name="steward"))
        if settings.bot_worker == "inline":
            bot_steward = Steward(
                games, pool, duty="bots", bots=bots, think_budget=settings.bot_budget,
                pace=settings.bot_pace,
                poll_interval=settings.steward_poll_interval,
            )  # fmt: skip
            live.watch(bot_steward.hint)
            events.add_listener(bot_steward.hint)
            background.append(asyncio.create_task(bot_steward.run(), name="bots"))
        if limiter is not None:
            background.append(asyncio.create_task(limiter.run(), name="rate-limits"))
        try:
            async with contextlib.AsyncExitStack() as stack:
                workers = [_projections_lifespan] if projections else []
                for extra in (*workers, *lifespans):
                    await stack.enter_async_context(_bounded(extra(app)))
                yield
        finally:
            await events.close()
            if snapshots is not None:
                await snapshots.close()
            live.close()
            notes_hub.close()
            for task in background:
                await stop_task(task)
            if replica_pool is not None:
                replica_pool.terminate()
            try:
                await asyncio.wait_for(pool.close(), SHUTDOWN_TIMEOUT)
            except TimeoutError:
                log.error("connections still busy after %s s at shutdown: closed", SHUTDOWN_TIMEOUT)
                pool.terminate()

    v1 = Router(path="/v1", route_handlers=[*V1_ROUTE_HANDLERS, *extra_route_handlers])
    # Outermost first: the request id, then the request's metrics, then the edge's limits.
    middleware: list[Any] = [RequestIds]
    plugins: list[Any] = []
    service_routes: list[ControllerRouterHandler] = []
    if settings.metrics:
        middleware.append(prometheus_config().middleware)
        service_routes.append(MetricsController)
    if configure_tracing(settings) if tracing is None else tracing:
        from litestar.plugins.opentelemetry import OpenTelemetryConfig, OpenTelemetryPlugin

        plugins.append(OpenTelemetryPlugin(OpenTelemetryConfig(exclude=["^/metrics$"])))
    app = Litestar(
        route_handlers=[v1, HealthController, ProblemsController, *service_routes, *web_client()],
        lifespan=[lifespan],
        dependencies={
            **auth.DEPENDENCIES,
            **{name: _from_state(name) for name in _COLLABORATORS},
            "sse": Provide(lambda: sse, sync_to_thread=False),
            "migration_head": Provide(_migration_head, sync_to_thread=False),
        },
        exception_handlers=EXCEPTION_HANDLERS,
        request_max_body_size=MAX_BODY_BYTES,
        middleware=[
            *middleware,
            DefineMiddleware(
                Edge,  # type: ignore[arg-type]  # a plain ASGI middleware class
                limiter=_limiter_of,
                body_timeout=settings.body_timeout,
                max_body=MAX_BODY_BYTES,
            ),
        ],
        plugins=plugins,
        cors_config=cors_config(settings),
        before_request=check_request,
        openapi_config=openapi_config(),
        logging_config=None,  # the host (uvicorn, pytest) configures logging
        debug=debug,
    )
    _allow_every_method(app)
    return app


def _allow_every_method(app: Litestar) -> None:
    """Have each path's OPTIONS answer list all its methods. Litestar writes ``Allow`` from the
    route object first made for a path; when a path's handlers come from several controllers
    (GET and POST ``/v1/games``) that object is replaced, and ``Allow`` kept only the first
    handlers' methods."""
    for route in app.routes:
        for handler in getattr(route, "route_handlers", ()):
            closure = getattr(handler.fn, "__closure__", None)
            if handler.http_methods == {"OPTIONS"} and closure:
                first = closure[0].cell_contents
                if isinstance(first, HTTPRoute) and first is not route:
                    first.methods = set(route.methods)


_HEAD: list[str] = []


def _migration_head() -> str:
    if not _HEAD:
        _HEAD.append(head_revision())
    return _HEAD[0]


def cors_config(settings: Settings) -> CORSConfig | None:
    """CORS for browser clients served from other origins (PREFERANS_CORS_ORIGINS); None, and
    no CORS header at all, when none is allowed. Bearer tokens, not cookies: no credentials."""
    origins = settings.allowed_origins
    if not origins:
        return None
    return CORSConfig(
        allow_origins=origins,
        allow_methods=["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
        allow_headers=[
            "Authorization", "Content-Type", "Idempotency-Key", "If-Match", "If-None-Match",
            "Last-Event-ID", "X-Request-ID",
        ],
        expose_headers=[
            "ETag", "Location", "Retry-After", "RateLimit", "RateLimit-Policy", "X-Request-ID",
        ],
        allow_credentials=False,
        max_age=600,
    )  # fmt: skip


def openapi_config() -> OpenAPIConfig:
    return OpenAPIConfig(
        title="Preferans",
        version=API_VERSION,
        description=(
            "The reference Preferans (преферанс) service: an event-sourced game server.\n\n"
            "- Register with `POST /v1/players` and keep the bearer token it returns.\n"
            "- Create a game, take seats; the cards are dealt when every seat is taken.\n"
            "- Read `GET /v1/games/{id}` for your view and `legal_actions`; POST one of them to "
            "`/v1/games/{id}/actions`. Follow `/events` or the SSE `/stream`.\n\n"
            "Notation: cards `7S` `TD` `AH` (rank 7 8 9 T J Q K A, suit S C D H), bids `6S` "
            "`7NT` `MISER`. Every error is `application/problem+json` with a stable `type` "
            "(`/problems/<slug>`, each documented at that path). Commands take an optional "
            '`Idempotency-Key` (safe retries) and `If-Match: "<version>"` (412 if stale); '
            "reads return the version as a strong ETag and honour If-None-Match."
        ),
        servers=[Server(url="/")],
        tags=[
            Tag(name="players", description="Registration and bearer tokens"),
            Tag(name="games", description="Creating, listing, joining and reading games"),
            Tag(name="actions", description="What a seated player does"),
            Tag(name="events", description="Following a game: pages and Server-Sent Events"),
            Tag(name="service", description="Readiness and the problem types' pages"),
        ],
        components=Components(
            security_schemes={
                "bearer": SecurityScheme(
                    type="http",
                    scheme="bearer",
                    description="The token `POST /v1/players` returned.",
                )
            }
        ),
        security=auth.OPTIONAL_SECURITY,
        use_handler_docstrings=False,
        render_plugins=[OfflineSwagger(), *RENDER_PLUGINS],
        openapi_router=docs_router(),
    )


def openapi_document() -> bytes:
    """The app's OpenAPI document as committed in ``openapi/openapi.json`` (stable bytes)."""
    app = create_app(Settings(), dsn="postgresql://unused", migrate=False)
    schema = finish(app.openapi_schema.to_schema())
    return msgspec.json.format(msgspec.json.encode(schema), indent=2) + b"\n"


def write_openapi(path: Path = OPENAPI_PATH) -> bool:
    """Regenerate the committed document; True if it changed."""
    document = openapi_document()
    if path.exists() and path.read_bytes() == document:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(document)
    return True


def serve_app() -> Litestar:
    """The app of one server process, from the environment (granian's factory target)."""
    die_with_parent()
    settings = Settings.from_env()
    configure_logging(settings)
    return create_app(settings)


def run(settings: Settings) -> None:
    """Serve the API on ``settings.host:settings.port`` with ``settings.workers`` processes
    (``preferans serve``).

    granian (hyper and tokio underneath, uvloop for the app) rather than uvicorn: its header
    read timeout closes slowloris and silent connections and idle keep-alive ones (HTTP/1.1
    only: its HTTP/2 sniffing would wait for a first byte with no timeout), it caps the
    requests a process serves at once (backpressure) and the pending connections (backlog), it
    runs several worker processes on one port, and it serves a request in about the same time
    as uvicorn with httptools. The body read timeout and the size limit are the app's own
    (`service.api.edge`).
    """
    import multiprocessing

    from granian import Granian
    from granian.constants import HTTPModes, Interfaces, Loops
    from granian.http import HTTP1Settings

    from service.metrics import forget_process, prepare_multiprocess

    # The embedded server starts here, once, before any worker; the workers find it by URL.
    os.environ["DATABASE_URL"] = resolve_dsn(settings)
    # Every process writes its metrics to one folder, which each worker's /metrics adds up.
    # The workers are spawned, not forked, so that each builds its metrics for that folder
    # (this process built its own before the variable was set).
    prepare_multiprocess()
    multiprocessing.set_start_method("spawn", force=True)
    bot_worker = _start_bot_worker() if settings.bot_worker == "process" else None
    log.info("serving on http://%s:%d with %d worker(s)", settings.host, settings.port,
             settings.workers)  # fmt: skip
    Granian(
        "service.app:serve_app",
        factory=True,
        address=settings.host,
        port=settings.port,
        interface=Interfaces.ASGI,
        http=HTTPModes.http1,
        loop=Loops.uvloop,
        workers=settings.workers,
        backlog=settings.max_connections,
        backpressure=settings.max_concurrency,
        http1_settings=HTTP1Settings(
            header_read_timeout=int(settings.header_timeout * 1000), keep_alive=True
        ),
        log_access=False,
        # granian's own lines go to the root logger, in PREFERANS_LOG_FORMAT like the app's.
        log_dictconfig={"loggers": {"_granian": {"handlers": [], "propagate": True}}},
        respawn_failed_workers=True,
        workers_kill_timeout=5,  # open SSE streams end; their clients resume elsewhere
    ).serve()
    if bot_worker is not None:
        bot_worker.terminate()
        try:
            bot_worker.wait(timeout=SHUTDOWN_TIMEOUT)
        except subprocess.TimeoutExpired:
            bot_worker.kill()
        forget_process(bot_worker.pid)


def _start_bot_worker() -> subprocess.Popen[bytes]:
    """``preferans bots`` beside the API workers: the bots think in a process of their own,
    which dies with this one (`bot_worker_entry`)."""
    return subprocess.Popen(
        [sys.executable, "-c", "from service.app import bot_worker_entry; bot_worker_entry()"],
        stdin=subprocess.DEVNULL,
    )


def bot_worker_entry() -> None:
    """The bot worker's process, ended by the kernel if ``preferans serve`` goes, and niced:
    on a busy machine the API's requests come before a bot's thinking."""
    from service.bot_worker import main

    die_with_parent()
    os.nice(10)
    settings = Settings.from_env()
    configure_logging(settings, level=logging.INFO)
    sys.exit(main(settings))


__all__ = [
    "V1_ROUTE_HANDLERS",
    "create_app",
    "openapi_document",
    "run",
    "serve_app",
    "write_openapi",
]
