"""Service settings, read once from the environment.

Every knob of the service lives here and nowhere else. Variables:

    DATABASE_URL                  PostgreSQL DSN; unset means an embedded server under the data dir
    PREFERANS_DATA_DIR            data folder (default ``./data``), embedded server in ``pg/``
    PREFERANS_DB_ROLE             role the service switches to on connect (e.g. ``preferans_app``)
    PREFERANS_POOL_MIN_SIZE       asyncpg pool bounds (default 2 … 20)
    PREFERANS_POOL_MAX_SIZE
    PREFERANS_IDLE_TX_TIMEOUT     idle_in_transaction_session_timeout (default ``30s``): an idle
                                  writer pins the global feed's horizon, so it must not live long
    PREFERANS_COMMAND_RETRIES     re-decides after a stream conflict when If-Match is absent (3)
    PREFERANS_STATE_CACHE_SIZE    streams whose folded state is kept in memory (1024)
    PREFERANS_NOTIFY              send a post-commit NOTIFY hint after each append (true)
    PREFERANS_HOST, PREFERANS_PORT  where ``preferans serve`` listens (127.0.0.1:8000)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import msgspec

_PREFIX = "PREFERANS_"


class Settings(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The service's configuration; `Settings.from_env()` builds it from the environment."""

    database_url: str | None = None
    data_dir: str = "data"
    db_role: str | None = None
    pool_min_size: int = 2
    pool_max_size: int = 20
    idle_tx_timeout: str = "30s"
    command_retries: int = 3
    state_cache_size: int = 1024
    notify: bool = True
    host: str = "127.0.0.1"
    port: int = 8000

    @property
    def embedded_pg_dir(self) -> Path:
        """Where the embedded PostgreSQL keeps its cluster when no DATABASE_URL is given."""
        return Path(self.data_dir) / "pg"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Read the settings; a malformed value raises `msgspec.ValidationError` naming it."""
        env = os.environ if environ is None else environ
        raw: dict[str, str] = {}
        if url := env.get("DATABASE_URL"):
            raw["database_url"] = url
        for field in cls.__struct_fields__:
            if field != "database_url" and (value := env.get(_PREFIX + field.upper())):
                raw[field] = value
        # strict=False parses "8000" and "false" from the environment's strings.
        return msgspec.convert(raw, cls, strict=False)
