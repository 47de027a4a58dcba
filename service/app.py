"""The app assembly: `create_app` builds the HTTP app, `run` serves it (``preferans serve``).

The app's lifespan opens the process's collaborators through the composition root
(`service.bootstrap.open_services` with the ``api`` role: the database resolved and migrated,
the least-privileged pool, the one event log, the background workers) and hands them to the
controllers by dependency injection, by name:

    event_log    `service.eventlog.log.EventLog`              the games' streams, decoded
    games        `service.games.service.GameService`          create, join, act, read a game
    players      `service.players.accounts.Players`           registration, tokens, names
    accounts     `service.players.signin.Accounts`            logins, passwords, signing in
    passkeys     `service.players.passkeys.Passkeys`          WebAuthn passkeys
    oauth        `service.players.oauth.OAuthServer`          apps, consent, OAuth's endpoints
    lobby        `service.games.lobby.Lobby`                  the list of games, a player's games
    invites      `service.players.invites.Invites`            codes to private tables
    notes        `service.players.notifications.Notes`        a player's notifications
    notes_hub    `service.players.notifications.NotesHub`     the per-player SSE fan-out
    lobby_hub    `service.games.lobby_live.LobbyHub`          the public lobby's SSE fan-out
    bots         `service.players.bots.BotPlayers`            the service's bots as players
    live         `service.games.live.Live`                    the games' SSE fan-out
    talk         `service.games.chat.TableTalk`               the tables' chat, followed live
    rematches    `service.games.rematch.Rematches`            "play again" offers and answers
    chat_limiter `service.api.rate_limits.RateLimiter`        the chat's own rate limit
    tournaments  `service.games.tournaments.TournamentService` events, their tables, secrets
    embargo      `service.games.tournaments.Embargo`          duplicate tables kept hidden
    studies      `service.games.studies.StudyService`         what-if studies of finished deals
    puzzles      `service.read_models.puzzles.Puzzles`        the next puzzle, attempts, history
    moderation   `service.read_models.moderation.Moderation`  the moderators, the collusion report
    dumps        `service.workers.dumps.DumpShelf`            the dumps written, listed and served
    projections  `service.read_models.runner.Projections`     the read models' runner
    health       `service.platform.database.HealthProbe`      /health's reserved connection
    caller / viewer                            the authenticated player (`service.api.auth`)

Routes under /v1 are `V1_ROUTE_HANDLERS` (or ``extra_route_handlers``); the reference web
client (`service/web/`, static files, no build step) is served at ``/`` by
`service.api.web.web_client`. More background workers go in ``lifespans`` (entered once the
collaborators exist, left before the pool closes). Errors are mapped to problem+json in
`service.api.errors` only.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
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

from service.api import auth
from service.api.accounts.controllers import ROUTES as ACCOUNT_ROUTES
from service.api.actions.controllers import ActionsController
from service.api.chat.controllers import ROUTES as CHAT_ROUTES
from service.api.common import check_request
from service.api.docs import OfflineSwagger, docs_router
from service.api.edge import Edge
from service.api.errors import EXCEPTION_HANDLERS
from service.api.exports import controllers as exports
from service.api.games.controllers import GamesController, LobbyController
from service.api.games.events import EventsController, SseSettings
from service.api.games.table import ROUTES as TABLE_ROUTES
from service.api.games.views import ViewsController
from service.api.health import HealthController
from service.api.moderation import controllers as moderation
from service.api.oauth import ROOT_ROUTES as OAUTH_ROOT_ROUTES
from service.api.oauth import V1_ROUTES as OAUTH_ROUTES
from service.api.observability import MetricsController
from service.api.openapi import RENDER_PLUGINS, finish
from service.api.players.controllers import PlayersController
from service.api.problems import ProblemsController
from service.api.puzzles import controllers as puzzles
from service.api.rate_limits import RateLimiter
from service.api.read_models import controllers as read_models
from service.api.studies import controllers as studies
from service.api.tournaments import controllers as tournaments
from service.api.web import web_client
from service.bootstrap import SHUTDOWN_TIMEOUT, open_services, stop_task
from service.platform.clock import SYSTEM_CLOCK, Clock
from service.platform.database import (
    head_revision,
)
from service.platform.entropy import SYSTEM_ENTROPY, Entropy
from service.platform.orphans import die_with_parent
from service.platform.settings import Settings
from service.platform.telemetry import configure_logging, configure_tracing

log = logging.getLogger(__name__)

API_VERSION = "1.0.0"
MAX_BODY_BYTES = 64 * 1024
"""No request of this API needs more: a hundred layouts fit in a quarter of it."""
OPENAPI_PATH = Path(__file__).resolve().parents[1] / "openapi" / "openapi.json"
V1_ROUTE_HANDLERS: list[ControllerRouterHandler] = [
    PlayersController,
    *ACCOUNT_ROUTES,
    *OAUTH_ROUTES,
    GamesController,
    LobbyController,
    ViewsController,
    ActionsController,
    EventsController,
    *TABLE_ROUTES,
    *CHAT_ROUTES,
    *read_models.ROUTE_HANDLERS,
    *tournaments.ROUTE_HANDLERS,
    *puzzles.ROUTE_HANDLERS,
    *studies.ROUTE_HANDLERS,
    *moderation.ROUTE_HANDLERS,
    *exports.ROUTE_HANDLERS,
]
"""Everything under /v1."""

Lifespan = Callable[[Litestar], AbstractAsyncContextManager[None]]


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
    "event_log", "games", "players", "accounts", "passkeys", "oauth", "lobby", "invites", "notes",
    "notes_hub", "lobby_hub", "bots", "live", "projections", "health", "talk", "rematches",
    "chat_limiter", "tournaments", "embargo", "studies", "puzzles", "moderation", "dumps",
)  # fmt: skip
"""What the controllers are handed, by name (the module docstring)."""
_STATE = (*_COLLABORATORS, "steward", "analyst", "miner", "limiter", "clerk")
"""What the app keeps of the process's `service.bootstrap.Services`."""


def _limiter_of(scope: Any) -> RateLimiter | None:
    limiter: RateLimiter | None = scope["app"].state.get("limiter")
    return limiter


@contextlib.asynccontextmanager
async def _projections_lifespan(app: Litestar) -> AsyncIterator[None]:
    """Run the projections in the background while the app serves (catching up on start)."""
    tasks = [asyncio.create_task(app.state.projections.run(), name="projections")]
    if app.state.analyst is not None:
        tasks.append(asyncio.create_task(app.state.analyst.run(), name="analyst"))
    if app.state.miner is not None:
        tasks.append(asyncio.create_task(app.state.miner.run(), name="miner"))
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
    dsn: str | Callable[[], str] | None = None,
    migrate: bool = True,
    extra_route_handlers: Sequence[ControllerRouterHandler] = (),
    lifespans: Sequence[Lifespan] = (),
    projections: bool | None = None,
    sse: SseSettings | None = None,
    live_poll_interval: float = 1.0,
    live_queue_size: int = 256,
    debug: bool = False,
    tracing: bool | None = None,
    clock: Clock = SYSTEM_CLOCK,
    entropy: Entropy = SYSTEM_ENTROPY,
) -> Litestar:
    """The HTTP API. Nothing connects until the app starts (its lifespan).

    ``dsn`` overrides ``settings.database_url`` (and the embedded server); a function is asked
    at each start (the API tests start one app on each test's own database, since building the
    app is most of a small test's time); ``migrate=False``
    skips the migrations for a database known to be current. ``projections=False`` leaves the
    read models' background runner off (the routes still serve what the tables hold).
    ``tracing`` adds OpenTelemetry's middleware (default: when OTEL_EXPORTER_OTLP_ENDPOINT is
    set, `service.platform.telemetry.configure_tracing`). ``clock`` is the service's one clock
    (`service.platform.clock`; a test's `ManualClock`), ``entropy`` its one source of random
    draws (`service.platform.entropy`; a test's `SeededEntropy`, never a setting).
    """
    settings = settings or Settings.from_env()
    sse = sse or SseSettings()
    if projections is None:
        projections = settings.projections

    @contextlib.asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        async with open_services(
            settings, "api", dsn=dsn() if callable(dsn) else dsn, migrate=migrate,
            live_poll_interval=live_poll_interval, live_queue_size=live_queue_size, clock=clock,
            entropy=entropy,
        ) as services:  # fmt: skip
            app.state.update({name: getattr(services, name) for name in _STATE})
            async with contextlib.AsyncExitStack() as stack:
                inline = projections and settings.background_worker == "inline"
                workers = [_projections_lifespan] if inline else []
                for extra in (*workers, *lifespans):
                    await stack.enter_async_context(_bounded(extra(app)))
                yield

    v1 = Router(path="/v1", route_handlers=[*V1_ROUTE_HANDLERS, *extra_route_handlers])
    plugins: list[Any] = []
    service_routes: list[ControllerRouterHandler] = [MetricsController] if settings.metrics else []
    if configure_tracing(settings) if tracing is None else tracing:
        from litestar.plugins.opentelemetry import OpenTelemetryConfig, OpenTelemetryPlugin

        plugins.append(OpenTelemetryPlugin(OpenTelemetryConfig(exclude=["^/metrics$"])))
    app = Litestar(
        route_handlers=[
            v1,
            *OAUTH_ROOT_ROUTES,
            HealthController,
            ProblemsController,
            *service_routes,
            *web_client(),
        ],
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
            DefineMiddleware(
                Edge,  # type: ignore[arg-type]  # a plain ASGI middleware class
                limiter=_limiter_of,
                body_timeout=settings.body_timeout,
                max_body=MAX_BODY_BYTES,
                metrics=settings.metrics,
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
    _resolve_in_order(app)
    return app


def _resolve_in_order(app: Litestar) -> None:
    """Have each route resolve its dependencies one after the other. Litestar resolves the
    independent ones of a batch concurrently, in an anyio TaskGroup made per request, which
    costs more than the dependencies themselves: they are the collaborators (read from the
    app's state) and at most one lookup of the caller's token. Measured with py-spy on a 304:
    the TaskGroup was 8% of the worker's samples."""
    for route in app.routes:
        for _, kwargs_model in getattr(route, "route_handler_map", {}).values():
            batches = kwargs_model.dependency_batches
            if any(len(batch) > 1 for batch in batches):
                kwargs_model.dependency_batches = [
                    {dependency}
                    for batch in batches
                    for dependency in sorted(batch, key=lambda d: d.key)
                ]


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
            Tag(
                name="oauth",
                description="Apps acting for a player: OAuth 2.1 with PKCE "
                "(`/.well-known/oauth-authorization-server`), apps, consent",
            ),
            Tag(
                name="puzzles",
                description="Rated puzzles mined from finished deals: one card alone keeps par",
            ),
            Tag(
                name="studies",
                description="What-if studies: a finished deal forked at a step and played on",
            ),
            Tag(
                name="moderation",
                description="Fair play: the collusion report, for moderators only",
            ),
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


GC_THRESHOLDS = (10_000, 50, 100)
"""The collector's thresholds in a server process (CPython's are 700, 10, 10). Measured in a
granian worker under bench/bench_api.py's load, the heap frozen, the collector's own CPU per
request: 0.071 ms a command and 0.024 ms a seat view at 700/10/10, 0.029 and 0.001 at
2,000/20/100, 0.007 and 0.001 here (50,000 saves nothing more and holds cycles longer)."""


@contextlib.asynccontextmanager
async def _frozen_heap(app: Litestar) -> AsyncIterator[None]:
    """Once started, every object alive (modules, the app, its routes, the pool, the caches) is
    moved out of the collector's sight (`gc.freeze`): an older generation's collection then
    walks only what came later. Measured: the collector's CPU per seat view 0.068 ms unfrozen,
    0.024 ms frozen (thresholds 700/10/10)."""
    gc.collect()
    gc.freeze()
    yield


def serve_app() -> Litestar:
    """The app of one server process, from the environment (granian's factory target), its
    garbage collector tuned (`GC_THRESHOLDS`, `_frozen_heap`)."""
    die_with_parent()
    settings = Settings.from_env()
    configure_logging(settings)
    gc.set_threshold(*GC_THRESHOLDS)
    return create_app(settings, lifespans=[_frozen_heap])


__all__ = [
    "V1_ROUTE_HANDLERS",
    "create_app",
    "openapi_document",
    "serve_app",
    "write_openapi",
]
