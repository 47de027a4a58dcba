"""The public lobby live: each game's changed summary, pushed to whoever follows the lobby.

Every change of a lobby row is written by the statement that appends the game's events
(`service.games.lobby`), so an append hint names every game whose row may have moved. `LobbyHub`
is one per process, subscribed to the process's `service.eventlog.hints.HintHub` like the other
workers: it gathers the hinted games, reads their public summaries in one query per round (a
kit worker paced at twenty rounds a second, however busy) and offers each to every follower. No
follower polls: a process with a hundred lobbies open reads the changed rows once.

A follower is told ``RESET`` ("read the lists now") first, once it is registered, so a client
that reads the lists then misses no change in between; again when hints may have been missed
(the hint hub's ``("", 0)``, after its LISTEN connection reopened) or when it fell so far behind
that its queue overflowed. The stream has no resume point of its own: a client that reconnects
starts with a reset too. A summary carries its game's ``version``: a client keeps the highest it
holds. Private tables are never offered.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from typing import Final

from service.eventlog.hints import EVERYTHING
from service.games.lobby import GameSummary, Lobby
from service.games.streams import game_id_of
from service.platform.metrics import subscribed
from service.platform.worker_kit import Worker


class _Reset:
    def __repr__(self) -> str:
        return "RESET"


RESET: Final = _Reset()
"""Read the lists again: what was missed cannot be told game by game."""

LobbyChange = GameSummary | _Reset


class _Follower:
    def __init__(self, queue_size: int) -> None:
        self.queue: asyncio.Queue[LobbyChange] = asyncio.Queue(queue_size)

    def offer(self, change: LobbyChange) -> None:
        try:
            self.queue.put_nowait(change)
        except asyncio.QueueFull:
            # Too far behind to catch up change by change: one reset replaces the backlog.
            while not self.queue.empty():
                self.queue.get_nowait()
            self.queue.put_nowait(RESET)


class LobbyHub:
    """Offers the public lobby's changes to its followers (see the module docstring)."""

    def __init__(self, lobby: Lobby, *, queue_size: int = 256, pace: float = 0.05) -> None:
        self.lobby = lobby
        self.queue_size = queue_size
        self._followers: set[_Follower] = set()
        self._hinted: set[uuid.UUID] = set()
        self._everything = False
        self._closed = False
        # Hints alone wake it: a lost hint is followed by the hub's ("", 0), a reset.
        self.worker = Worker("lobby", self._round, interval=60.0, pace=pace)

    def hint(self, stream_id: str, _version: int) -> None:
        """An append to ``stream_id`` (or, for ``""``, maybe to any): its row may have moved."""
        if not self._followers:
            return
        if stream_id == EVERYTHING:
            self._everything = True
        elif (game_id := game_id_of(stream_id)) is not None:
            with contextlib.suppress(ValueError):
                self._hinted.add(uuid.UUID(game_id))
        else:
            return
        self.worker.hint()

    async def run(self) -> None:
        await self.worker.run()

    @property
    def followed(self) -> int:
        return len(self._followers)

    async def _round(self) -> float | None:
        hinted, self._hinted = self._hinted, set()
        everything, self._everything = self._everything, False
        if self._closed or not self._followers:
            return None
        if everything:
            for follower in self._followers:
                follower.offer(RESET)
            return None
        if hinted:
            for summary in await self.lobby.public_summaries(list(hinted)):
                for follower in self._followers:
                    follower.offer(summary)
        return None

    def close(self) -> None:
        self._closed = True
        self.worker.hint()
        for follower in self._followers:
            follower.offer(RESET)

    async def stream(self, ping_interval: float) -> AsyncIterator[LobbyChange | None]:
        """The lobby's changes from now on; None after ``ping_interval`` seconds of silence
        (time for a keep-alive). Ends when the hub closes."""
        follower = _Follower(self.queue_size)
        self._followers.add(follower)
        follower.offer(RESET)  # registered: from here on, no change is missed
        try:
            async with subscribed("lobby"):
                while not self._closed:
                    try:
                        async with asyncio.timeout(ping_interval):
                            change = await follower.queue.get()
                    except TimeoutError:
                        yield None
                        continue
                    if not self._closed:
                        yield change
        finally:
            self._followers.discard(follower)
