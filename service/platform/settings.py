"""Service settings, read once from the environment.

Every knob of the service lives here and nowhere else. Variables:

    DATABASE_URL                  the administrator's PostgreSQL DSN (migrations); unset means an
                                  embedded server under the data dir
    PREFERANS_APP_DATABASE_URL    the request path's DSN (default: DATABASE_URL as preferans_app)
    PREFERANS_REPLICA_DATABASE_URL  a streaming standby for the request path's reads (views,
                                  event pages), as preferans_app; read-your-writes is kept by
                                  the version the client holds (unset: the primary reads all)
    PREFERANS_APP_PASSWORD        every service role's password (preferans_app, _bots,
                                  _projections, _purger), set by the migrations when given
    PREFERANS_DATA_DIR            data folder (default ``./data``), embedded server in ``pg/``
    PREFERANS_POOL_MIN_SIZE       asyncpg pool bounds (default 2 … 20)
    PREFERANS_POOL_MAX_SIZE
    PREFERANS_CONNECT_TIMEOUT     seconds to open a database connection (5)
    PREFERANS_ACQUIRE_TIMEOUT     seconds a request waits for a pooled connection (5)
    PREFERANS_STATEMENT_TIMEOUT   statement_timeout of every connection (``10s``)
    PREFERANS_LOCK_TIMEOUT        lock_timeout of every connection (``5s``)
    PREFERANS_IDLE_TX_TIMEOUT     idle_in_transaction_session_timeout (default ``30s``): an idle
                                  writer pins the global feed's horizon, so it must not live long
    PREFERANS_COMMAND_RETRIES     re-decides after a stream conflict when If-Match is absent (3)
    PREFERANS_GROUP_COMMIT        the most commands sent together in one transaction, each in
                                  its own subtransaction, when they arrive together (16; 1:
                                  each command its own transaction)
    PREFERANS_STATE_CACHE_SIZE    games whose folded state (and deal source) stays in memory
                                  (20000; a state is bounded, 7-9 KB: about 180 MB)
    PREFERANS_HEAD_TRUST          seconds a game's version read from the log answers a
                                  view (a 304, or the view from the cached state) without
                                  another read, while no hint says otherwise (1; 0 reads
                                  every time)
    PREFERANS_SNAPSHOTS           keep snapshots of folded states in the database (true)
    PREFERANS_SNAPSHOT_EVERY      events between two snapshots of a game (100)
    PREFERANS_NOTIFY              send a post-commit NOTIFY hint after each append (true)
    PREFERANS_PROJECTIONS         run the projection runner where the background runs (true)
    PREFERANS_IDEMPOTENCY_TTL     seconds an Idempotency-Key is kept (86400; at most 604800)
    PREFERANS_KEY_PURGE_INTERVAL  seconds between purges of expired keys (60)
    PREFERANS_STEWARD             run the steward in this process: timeouts, moves for absent
                                  seats and bots (true)
    PREFERANS_STEWARD_POLL_INTERVAL  seconds the steward sleeps at most between looks (1);
                                  the tournaments' clerk, which runs where the steward does,
                                  too
    PREFERANS_DAILY_ROBOT_DUPLICATE  the clerk creates a robot duplicate open all day, every
                                  day (UTC) (true)
    PREFERANS_NOTES_POLL_INTERVAL    seconds between looks at followed players' notifications,
                                  hints aside (2)
    PREFERANS_BOT_WORKER          where the service's bots think: ``process`` (a worker process
                                  ``preferans serve`` starts), ``inline`` (in this process), or
                                  ``off`` (a ``preferans bots`` elsewhere)
    PREFERANS_BACKGROUND_WORKER   where the projections, the analyst, the purger and the snapshots'
                                  writer run: ``process`` (a worker process ``preferans serve``
                                  starts, so that the API process holds none of their roles'
                                  logins), ``inline`` (in this process, on pools of their roles),
                                  or ``off`` (a ``preferans background`` elsewhere)
    PREFERANS_BOT_BUDGET          seconds a ``strong`` bot may think over a decision at most,
                                  the safety net under its layout counts (1.5)
    PREFERANS_BOT_LAYOUTS         ``true``: a ``strong`` bot judges the default number of layouts
                                  per kind of decision (`bots.budget.Layouts`), the same on any
                                  machine; ``false``: the seconds alone (true); docs/bots.md §6
    PREFERANS_BOT_NODES           solver nodes a ``strong`` bot may spend on a decision, within
                                  the seconds (unset: no node limit); docs/bots.md §6
    PREFERANS_BOT_PROCESSES       worker processes the bot worker's ``strong`` bots think in, so
                                  that tables do not wait for each other (unset: one per core;
                                  0: a thread of the bot worker); docs/bots.md §7
    PREFERANS_BOT_PACE            seconds at least from a bot's turn to its move (0.5)
    PREFERANS_ANALYSIS            analyse finished games double-dummy in a worker process
                                  beside the projections (true)
    PREFERANS_ANALYSIS_LAYOUTS    layouts each decision of a finished game is judged over at
                                  most (16; 0: the cards alone, no decisions); docs/bots.md §8.2
    PREFERANS_PUZZLES             mine finished games for puzzles in a worker process beside the
                                  projections (true; docs/puzzles-and-studies.md)
    PREFERANS_DUMP_INTERVAL       seconds between dumps of every finished rated game, written
                                  by the background worker (0, the default: no dumps; 86400: a
                                  dump a day); docs/ppn.md
    PREFERANS_DUMP_DIR            where the dumps are kept (default ``dumps/`` in the data dir)
    PREFERANS_DUMP_PSEUDONYMS     dumps name players by pseudonyms, never by id or name (false)
    PREFERANS_DUMP_KEEP           how many dumps are kept, the newest (7)
    PREFERANS_RATE_LIMITS         limit requests per token and per address (true)
    PREFERANS_READS_PER_MINUTE    reads allowed per token, and per address (1200)
    PREFERANS_WRITES_PER_MINUTE   writes allowed per token, and per address (300)
    PREFERANS_SIGN_IN_FAILURES_PER_LOGIN    failed sign-ins of one login within the window
                                  before it is locked out (5)
    PREFERANS_SIGN_IN_FAILURES_PER_ADDRESS  the same from one client address (20)
    PREFERANS_SIGN_IN_WINDOW      seconds failed sign-ins are counted over (900)
    PREFERANS_SIGN_IN_LOCKOUT     seconds a locked-out login or address waits (900)
    PREFERANS_WEBAUTHN_RP_ID      the site's host name passkeys are bound to (unset: the host
                                  each request came to)
    PREFERANS_WEBAUTHN_ORIGINS    page origins allowed to use them, comma-separated (unset: the
                                  origin each request came to; set it behind a TLS proxy)
    PREFERANS_OAUTH_ISSUER        the public origin apps reach the OAuth endpoints at
                                  (``https://pref.example``; unset: the origin each request came
                                  to); it must be https unless it is this machine (loopback)
    PREFERANS_HOST, PREFERANS_PORT  where ``preferans serve`` listens (127.0.0.1:8000)
    PREFERANS_WORKERS             server processes (1)
    PREFERANS_HEADER_TIMEOUT      seconds a client has to send a request's headers (10)
    PREFERANS_BODY_TIMEOUT        seconds a client has to send a request's body (10)
    PREFERANS_MAX_CONNECTIONS     connections a process holds before refusing more (2048)
    PREFERANS_MAX_CONCURRENCY     requests a process serves at once (512)
    PREFERANS_LOG_FORMAT          ``text`` (default) or ``json``: one JSON object a line, with
                                  the request id
    PREFERANS_LOG_LEVEL           ``debug``, ``info`` (a line per request), ``warning`` (default),
                                  ``error``; ``preferans -v`` is ``info``
    PREFERANS_METRICS             serve Prometheus metrics at ``/metrics`` (true)
    PREFERANS_CORS_ORIGINS        browser origins allowed to call the API, comma-separated
                                  (``https://a.example,https://b.example``; ``*`` for any);
                                  unset: no CORS headers at all
    OTEL_EXPORTER_OTLP_ENDPOINT   send OpenTelemetry traces there (OTLP over HTTP); unset: none
    OTEL_SERVICE_NAME             the traces' service name (``preferans``)

A malformed value is a `SettingsError` naming the variable, its value and what it should be:
a number out of its range too (a port above 65535, no pool), so that ``preferans serve`` stops
before it starts anything.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Literal, get_args, get_origin, get_type_hints

import msgspec

_PREFIX = "PREFERANS_"
_UNPREFIXED = {
    "database_url": "DATABASE_URL",
    "otlp_endpoint": "OTEL_EXPORTER_OTLP_ENDPOINT",
    "otel_service_name": "OTEL_SERVICE_NAME",
}
"""Settings whose variables carry the names other tools give them."""


KEY_TTL_LIMIT = 604_800.0
"""The longest an Idempotency-Key may be kept, in seconds (7 days): the log refuses a
longer one (migration 0016), so that no key outlives its use by much."""


class SettingsError(ValueError):
    """A setting's value is malformed: the message names the variable and what it wants."""

    def __init__(self, variable: str, value: str, wanted: str) -> None:
        super().__init__(f"{variable}={value!r} is not valid: {wanted}")
        self.variable = variable


AtLeastOne = Annotated[int, msgspec.Meta(ge=1)]
Count = Annotated[int, msgspec.Meta(ge=0)]
Port = Annotated[int, msgspec.Meta(ge=1, le=65535)]
Seconds = Annotated[float, msgspec.Meta(gt=0)]
KeySeconds = Annotated[float, msgspec.Meta(gt=0, le=KEY_TTL_LIMIT)]
"""The ranges a setting's number must lie in (checked by `Settings.from_env`)."""


def variable_of(field: str) -> str:
    """The environment variable of the setting ``field``."""
    return _UNPREFIXED.get(field) or _PREFIX + field.upper()


class Settings(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The service's configuration; `Settings.from_env()` builds it from the environment."""

    database_url: str | None = None
    app_database_url: str | None = None
    app_password: str | None = None
    replica_database_url: str | None = None
    data_dir: str = "data"
    pool_min_size: Count = 2
    pool_max_size: AtLeastOne = 20
    connect_timeout: Seconds = 5.0
    acquire_timeout: Seconds = 5.0
    statement_timeout: str = "10s"
    lock_timeout: str = "5s"
    idle_tx_timeout: str = "30s"
    command_retries: Count = 3
    group_commit: AtLeastOne = 16
    state_cache_size: Count = 20_000
    snapshots: bool = True
    head_trust: float = 1.0
    snapshot_every: AtLeastOne = 100
    notify: bool = True
    projections: bool = True
    idempotency_ttl: KeySeconds = 86_400.0
    key_purge_interval: Seconds = 60.0
    steward: bool = True
    steward_poll_interval: Seconds = 1.0
    daily_robot_duplicate: bool = True
    notes_poll_interval: Seconds = 2.0
    bot_worker: Literal["process", "inline", "off"] = "process"
    background_worker: Literal["process", "inline", "off"] = "process"
    bot_budget: float = 1.5
    bot_layouts: bool = True
    bot_nodes: int | None = None
    bot_processes: int | None = None
    bot_pace: float = 0.5
    analysis: bool = True
    analysis_layouts: Annotated[int, msgspec.Meta(ge=0, le=400)] = 16
    puzzles: bool = True
    dump_interval: Annotated[float, msgspec.Meta(ge=0)] = 0.0
    dump_dir: str | None = None
    dump_pseudonyms: bool = False
    dump_keep: AtLeastOne = 7
    rate_limits: bool = True
    reads_per_minute: AtLeastOne = 1200
    writes_per_minute: AtLeastOne = 300
    sign_in_failures_per_login: AtLeastOne = 5
    sign_in_failures_per_address: AtLeastOne = 20
    sign_in_window: Seconds = 900.0
    sign_in_lockout: Seconds = 900.0
    webauthn_rp_id: str | None = None
    webauthn_origins: str | None = None
    oauth_issuer: str | None = None
    host: str = "127.0.0.1"
    port: Port = 8000
    workers: AtLeastOne = 1
    header_timeout: Seconds = 10.0
    body_timeout: Seconds = 10.0
    max_connections: AtLeastOne = 2048
    max_concurrency: AtLeastOne = 512
    log_format: Literal["text", "json"] = "text"
    log_level: Literal["debug", "info", "warning", "error"] = "warning"
    metrics: bool = True
    cors_origins: str | None = None
    otlp_endpoint: str | None = None
    otel_service_name: str = "preferans"

    @property
    def passkey_origins(self) -> tuple[str, ...]:
        """PREFERANS_WEBAUTHN_ORIGINS as a tuple (empty: the request's own origin)."""
        return tuple(o.strip() for o in (self.webauthn_origins or "").split(",") if o.strip())

    @property
    def allowed_origins(self) -> list[str]:
        """PREFERANS_CORS_ORIGINS as a list (empty: CORS off)."""
        return [o.strip() for o in (self.cors_origins or "").split(",") if o.strip()]

    @property
    def embedded_pg_dir(self) -> Path:
        """Where the embedded PostgreSQL keeps its cluster when no DATABASE_URL is given."""
        return Path(self.data_dir) / "pg"

    @property
    def dumps_dir(self) -> Path:
        """Where the dumps are written and served from."""
        return Path(self.dump_dir) if self.dump_dir else Path(self.data_dir) / "dumps"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Read the settings; a malformed value raises `SettingsError` naming its variable."""
        env = os.environ if environ is None else environ
        raw: dict[str, str] = {}
        for field in cls.__struct_fields__:
            if value := env.get(variable_of(field)):
                raw[field] = value
        for field, value in raw.items():
            # One at a time, so that the error names the variable (msgspec would say `$.port`).
            try:
                msgspec.convert({field: value}, cls, strict=False)
            except msgspec.ValidationError as exc:
                raise SettingsError(variable_of(field), value, _wanted(cls, field, exc)) from None
        # strict=False parses "8000" and "false" from the environment's strings.
        settings = msgspec.convert(raw, cls, strict=False)
        if settings.pool_min_size > settings.pool_max_size:
            raise SettingsError(
                variable_of("pool_min_size"), str(settings.pool_min_size),
                f"at most {variable_of('pool_max_size')} ({settings.pool_max_size})",
            )  # fmt: skip
        return settings


def _wanted(cls: type[Settings], field: str, error: msgspec.ValidationError) -> str:
    """What a setting's value should be, in words."""
    hint = get_type_hints(cls, include_extras=True)[field]
    bounds = ""
    if get_origin(hint) is Annotated:
        hint, meta = get_args(hint)
        bounds = _range(meta)
    if get_origin(hint) is Literal:
        return "one of " + ", ".join(str(a) for a in get_args(hint))
    names = {int: "a whole number", float: "a number", bool: "true or false"}
    if hint in names:
        return names[hint] + bounds
    return str(error).split(" - at ")[0]


def _range(meta: msgspec.Meta) -> str:
    """A number's range in words: `` from 1 to 65535``, `` above 0``, `` of at least 1``."""
    if meta.ge is not None and meta.le is not None:
        return f" from {meta.ge} to {meta.le}"
    if meta.gt is not None and meta.le is not None:
        return f" above {meta.gt} and at most {meta.le:g}"
    if meta.gt is not None:
        return f" above {meta.gt}"
    return f" of at least {meta.ge}" if meta.ge is not None else ""
