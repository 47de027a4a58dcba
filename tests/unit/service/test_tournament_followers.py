"""A tournament's followers (`service.games.tournaments.TournamentService.follow` and `hint`),
without a database: a hint that names a version is trusted (the same hint twice sends nobody
back to the log), followers are woken a slice at a time, and a hint that comes while a slice is
being woken still reaches every follower."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

from service.games import tournaments
from service.games.tournaments import TournamentService, tournament_stream

TID = uuid.UUID("01900000-0000-7000-8000-000000000001")


class Counted(TournamentService):
    """The service with its log replaced by a head that the test moves, and its reads counted."""

    def __init__(self) -> None:
        log: Any = SimpleNamespace(pool=None, store=None)
        super().__init__(log, games=None, players=None, bots=None)  # type: ignore[arg-type]
        self.head = 1
        self.reads = 0

    async def state(self, tid: uuid.UUID) -> tuple[int, Any]:
        self.reads += 1
        return self.head, None


async def _followers(service: Counted, n: int) -> list[AsyncIterator[int | None]]:
    followers = [service.follow(TID, ping=60) for _ in range(n)]
    assert [await anext(f) for f in followers] == [1] * n  # each reads the head once
    return followers


async def test_a_hint_naming_the_version_is_trusted_even_when_it_comes_twice() -> None:
    service = Counted()
    followers = await _followers(service, 3)
    service.head = 2
    nexts = [asyncio.ensure_future(anext(f)) for f in followers]
    await asyncio.sleep(0)
    # the process's own append and the channel both tell of version 2
    service.hint(tournament_stream(TID), 2)
    service.hint(tournament_stream(TID), 2)
    assert await asyncio.wait_for(asyncio.gather(*nexts), 5) == [2, 2, 2]
    await asyncio.sleep(0.05)  # the second hint's wake is over: nobody read the log for it
    assert service.reads == 3
    # an older hint, late, does not move anyone back; a hint naming no stream makes them read
    nexts = [asyncio.ensure_future(anext(f)) for f in followers]
    await asyncio.sleep(0)
    service.hint(tournament_stream(TID), 1)
    await asyncio.sleep(0.05)
    assert not any(n.done() for n in nexts)
    service.head = 3
    service.hint("", 0)
    assert await asyncio.wait_for(asyncio.gather(*nexts), 5) == [3, 3, 3]
    assert service.reads == 6
    for f in followers:
        await f.aclose()  # type: ignore[attr-defined]


async def test_followers_are_woken_a_slice_at_a_time_and_a_hint_meanwhile_reaches_all(
    monkeypatch: Any,
) -> None:
    # A pause long enough that the five turns of the loop below never outlast it on a loaded
    # machine (at 5 ms they did, and the second slice was awake before the count).
    monkeypatch.setattr(tournaments, "WAKE_PAUSE", 0.25)
    service = Counted()
    n = tournaments.WAKE_AT_ONCE * 3 + 1
    followers = await _followers(service, n)
    nexts = [asyncio.ensure_future(anext(f)) for f in followers]
    await asyncio.sleep(0)
    service.hint(tournament_stream(TID), 2)
    while not any(x.done() for x in nexts):  # the first slice woken, the rest not yet
        await asyncio.sleep(0)
    for _ in range(5):
        await asyncio.sleep(0)
    assert sum(1 for x in nexts if x.done()) == tournaments.WAKE_AT_ONCE
    # version 3 arrives while the slices of version 2 are still being woken
    early = [i for i, x in enumerate(nexts) if x.done()]
    for i in early:
        assert nexts[i].result() == 2
        nexts[i] = asyncio.ensure_future(anext(followers[i]))
    service.hint(tournament_stream(TID), 3)
    seen = await asyncio.wait_for(asyncio.gather(*nexts), 5)
    assert set(seen) <= {2, 3}
    late = [asyncio.ensure_future(anext(followers[i])) for i, v in enumerate(seen) if v == 2]
    if late:
        assert set(await asyncio.wait_for(asyncio.gather(*late), 5)) == {3}
    assert service.reads == n  # every wake came from the hints alone
    for f in followers:
        await f.aclose()  # type: ignore[attr-defined]
