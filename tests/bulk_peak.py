"""A player's games streamed in bulk by a process of its own, for the bounded-memory test of
tests/api/test_open_data.py: ``python tests/bulk_peak.py DSN PLAYER THROUGH FORMAT`` prints the
games streamed, their bytes and the peak of memory allocated meanwhile (tracemalloc).

Apart, because tracemalloc counts every allocation of its process: in a test worker that had
run other tests, something else allocated during the stream now and then (seen under the full
suite's load, a peak 2.3 times the expected), which no fixture of the test accounts for.
"""

from __future__ import annotations

import asyncio
import sys
import tracemalloc
import uuid

from service.eventlog.log import game_log
from service.games import bulk
from service.platform.database import create_pool


async def peak(dsn: str, player: str, through: str, fmt: bulk.Format) -> tuple[int, int, int]:
    pool = await create_pool(dsn, min_size=1, max_size=1)
    try:
        log = game_log(pool, announce=False)
        found = bulk.GameFilter(player=uuid.UUID(player), through=uuid.UUID(through))
        games = total = 0
        tracemalloc.start()
        try:
            async for chunk in bulk.stream(log, found, fmt):
                total += len(chunk)
                games += 1
            _, most = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        return games, total, most
    finally:
        await pool.close()


if __name__ == "__main__":
    dsn, player, through, fmt = sys.argv[1:5]
    assert fmt in ("ndjson", "ppn")
    print(*asyncio.run(peak(dsn, player, through, fmt)))  # type: ignore[arg-type]
