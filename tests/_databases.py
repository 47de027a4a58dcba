"""Test databases: made on the test server with the settings every test database has."""

from __future__ import annotations

import asyncpg


async def create_database(server_dsn: str, name: str, template: str | None = None) -> None:
    """``CREATE DATABASE``, then asynchronous commits in it: a commit that waits for its WAL to
    reach the disk cost 1.5 ms here against 0.09 (more with four workers committing at once),
    and the tests commit hundreds of thousands of times. A commit is still atomic and seen at
    once; only its durability across a crash of the server waits up to 3 wal_writer_delays,
    and no test crashes the shared server (those that crash one make their own,
    `tests/clusters.py`). The setting is the database's own (the server's stay as they are)
    and reaches every connection to it, the service processes' included."""
    clause = f' TEMPLATE "{template}"' if template else ""
    conn = await asyncpg.connect(server_dsn)
    try:
        await conn.execute(f'CREATE DATABASE "{name}"{clause}')
        await conn.execute(f'ALTER DATABASE "{name}" SET synchronous_commit = off')
    finally:
        await conn.close()
