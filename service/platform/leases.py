"""Leases: due rows of a table of jobs, claimed by one process at a time with a moving timestamp.

A table of jobs keeps, per row, the moment the row is next due (a ``timestamptz`` column).
`Lease.claim` takes up to ``limit`` due rows in one short statement: under ``FOR UPDATE SKIP
LOCKED`` it moves their due column ``seconds`` ahead, so concurrent claimers never take the same
row and nobody holds a lock while the work is done; a process that dies mid-way leaves its rows
to whoever claims once the lease has run out. The worker ends a row by writing its next due (or
NULL, or marking it done), conditional on the lease it got if another may have taken it since::

    due = Lease("api.games", key="game_id", due="due_at")
    for row in await due.claim(pool, seconds=5.0, limit=32):
        ...  # row["game_id"]; row["due_at"] is the lease (the new due); row["overdue"] seconds

The table and column names are SQL identifiers, checked and quoted here (never data). What
"now" is comes from the caller: the database's ``now()``, or a clock of its own (``now_ms``),
when the due column holds the deadlines of that clock.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import asyncpg

_IDENTIFIER = re.compile(r"[a-z_][a-z0-9_]*")


def identifier(name: str) -> str:
    """``name`` (``column``, or ``schema.table``) quoted for SQL; ValueError if it is anything
    but lower-case identifiers."""
    parts = name.split(".")
    if not 1 <= len(parts) <= 2 or not all(_IDENTIFIER.fullmatch(p) for p in parts):
        raise ValueError(f"not an SQL identifier: {name!r}")
    return ".".join(f'"{p}"' for p in parts)


class Lease:
    """Claims due rows of ``table`` (see the module docstring).

    ``key``: the rows' key column; ``due``: the timestamp column that says when a row is due
    and, once claimed, until when it is leased; ``order_by``: which due rows come first (default:
    the earliest due); ``unset_is_due``: a row whose due is NULL is due (a job never leased yet;
    otherwise NULL means nothing to do); ``unless``: a boolean column whose true rows are never
    claimed (a job done); ``returning``: more columns to return with each claimed row.
    """

    def __init__(
        self,
        table: str,
        *,
        key: str,
        due: str,
        order_by: str | None = None,
        unset_is_due: bool = False,
        unless: str | None = None,
        returning: Sequence[str] = (),
    ) -> None:
        self.table = table
        t, k, d = identifier(table), identifier(key), identifier(due)
        order = identifier(order_by) if order_by is not None else d
        # $3: the caller's clock in ms since the epoch, or NULL for the database's.
        now = "coalesce(to_timestamp($3::float8 / 1000), now())"
        ready = f"{d} <= {now} - make_interval(secs => $4)"
        where = f"({d} IS NULL OR {ready})" if unset_is_due else ready
        if unless is not None:
            where += f" AND NOT {identifier(unless)}"
        more = "".join(f", job.{identifier(c)}" for c in returning)
        self.sql = f"""
UPDATE {t} AS job SET {d} = {now} + make_interval(secs => $2)
  FROM (SELECT {k} AS claimed, {d} AS was FROM {t}
         WHERE {where}
         ORDER BY {order} LIMIT $1 FOR UPDATE SKIP LOCKED) AS due
 WHERE job.{k} = due.claimed
RETURNING job.{k}, job.{d},
          greatest(extract(epoch FROM {now} - make_interval(secs => $4)
                                     - coalesce(due.was, {now}))::float8, 0) AS overdue{more}"""

    async def claim(
        self,
        db: asyncpg.Pool | asyncpg.Connection,
        *,
        seconds: float,
        limit: int = 1,
        now_ms: int | None = None,
        grace: float = 0.0,
    ) -> list[asyncpg.Record]:
        """Lease up to ``limit`` rows due ``grace`` seconds ago or earlier, for ``seconds``.

        Each row comes back with its key, its due column (the lease: the moment it is due
        again), ``overdue`` (seconds it had been due past the grace, 0 if never leased before)
        and the ``returning`` columns. ``now_ms``: the caller's clock, when the due column
        holds its deadlines; else the database's.
        """
        rows: list[asyncpg.Record] = await db.fetch(self.sql, limit, seconds, now_ms, grace)
        return rows
