"""Live updates for the games' followers: one poller per process fans events out to them all.

Server-Sent Events clients never hold a database connection. `Live.run` is one background task
per app, a kit worker (`service.platform.worker_kit`): on a hint (`Live.hint`, subscribed to the
process's `service.eventlog.hints.HintHub`, which hears this process's appends and, on its one
LISTEN connection, the others'), and every ``poll_interval`` seconds anyway, it reads the tail
of each stream that has followers, one read per stream however many follow it: the hinted
streams at once, every followed stream at each interval, since a hint may be lost (or never
sent, PREFERANS_NOTIFY=false; or the LISTEN connection is down, and it polls until the hub has
it back). New events go into each follower's bounded queue with the state before them, so every
follower redacts for his own seat without folding anything twice.

The other direction, telling other processes of this one's appends, is the event log's
`service.eventlog.store.Announcer`.

Per stream the poller keeps its events in memory while anyone follows it (a pulka is a few
thousand small events), so a new follower catches up from memory: `Subscription.backlog` is every
event up to the moment he subscribed, and his queue gets everything after, gapless (a stream's
versions are gapless and commit in order). A follower who falls ``queue_size`` events behind is
dropped (`Subscription.dropped`); he reconnects with Last-Event-ID and loses nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from domain import game
from domain.game import INITIAL_STATE, GameState
from service.eventlog.hints import EVERYTHING
from service.eventlog.log import EventLog
from service.eventlog.store import StreamUnreadable
from service.games.service import SeenEvent, redacted
from service.platform.metrics import subscribed
from service.platform.worker_kit import Worker

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Update:
    """One new event of a stream, and the game state just before it."""

    version: int
    event: game.Event
    before: GameState


class Subscription:
    """A follower of one stream (see the module docstring)."""

    def __init__(self, stream_id: str, backlog: list[game.Event], queue_size: int) -> None:
        self.stream_id = stream_id
        self.backlog = backlog
        """The stream's events, versions 1..len(backlog), when the subscription began."""
        self.queue: asyncio.Queue[Update | None] = asyncio.Queue(queue_size)
        self.dropped = False
        """Set when the follower fell too far behind: end the stream, the client resumes."""

    def _offer(self, update: Update) -> None:
        if self.dropped:
            return
        try:
            self.queue.put_nowait(update)
        except asyncio.QueueFull:
            self.dropped = True

    def _close(self) -> None:
        self.dropped = True
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(None)  # wake the follower

    async def next(self, timeout: float) -> Update | None:
        """The next update, or None after ``timeout`` seconds without one, or once dropped."""
        if self.dropped:
            return None
        try:
            async with asyncio.timeout(timeout):
                return await self.queue.get()
        except TimeoutError:
            return None


@dataclass(eq=False)
class _Stream:
    events: list[game.Event] = field(default_factory=list)
    state: GameState = INITIAL_STATE
    followers: set[Subscription] = field(default_factory=set)
    users: int = 0
    loaded: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class Live:
    """The process's one follower of the event store for SSE (see the module docstring)."""

    def __init__(
        self,
        events: EventLog[game.Event],
        *,
        poll_interval: float = 1.0,
        queue_size: int = 256,
    ) -> None:
        self.events = events
        self.poll_interval = poll_interval
        self.queue_size = queue_size
        self._streams: dict[str, _Stream] = {}
        self._hinted: set[str] = set()
        self._everything = True
        self._last_full = 0.0
        self._closed = False
        self.worker = Worker("live", self._round, interval=poll_interval)

    def hint(self, stream_id: str, version: int) -> None:
        """A hint (`service.eventlog.hints.Hinted`): ``stream_id`` reached ``version``; an
        empty ``stream_id``: hints may have been missed, look at every stream followed."""
        if stream_id == EVERYTHING:
            self._everything = True
        elif stream_id in self._streams:
            self._hinted.add(stream_id)
        else:
            return  # nobody follows it here
        self.worker.hint()

    @property
    def followed(self) -> int:
        """Streams with followers now."""
        return len(self._streams)

    async def run(self) -> None:
        """The poller: run it as one task for the app's lifetime."""
        await self.worker.run()

    async def _round(self) -> float | None:
        """Read the hinted streams; every followed one each ``poll_interval`` (a hint may be
        lost) and after a hint that hints were missed."""
        if self._closed:
            return None
        hinted, self._hinted = self._hinted, set()
        now = time.monotonic()
        everything = self._everything or now - self._last_full >= self.poll_interval
        if everything:
            self._everything, self._last_full = False, now
        await self._poll(hinted, everything=everything)
        return None

    async def _poll(self, hinted: set[str], *, everything: bool) -> None:
        names = list(self._streams) if everything else [s for s in hinted if s in self._streams]
        if names:
            await asyncio.gather(*(self._catch_up(name) for name in names))

    async def _catch_up(self, stream_id: str) -> None:
        stream = self._streams.get(stream_id)
        if stream is None:
            return
        async with stream.lock:
            if not stream.loaded:
                return
            try:
                read_at = self.events.heads.clock()
                records = await self.events.read_stored(stream_id, len(stream.events) + 1)
            except Exception:
                log.exception("live updates: cannot read %s", stream_id)
                return
            for record in records:
                if record.version != len(stream.events) + 1:
                    break  # never publish out of order; the next poll reads again
                before = stream.state
                try:
                    event, stream.state = self.events.step(game.evolve, before, record)
                except StreamUnreadable:  # quarantined: its followers reconnect, and are told
                    for follower in stream.followers:
                        follower._close()
                    return
                update = Update(record.version, event, before)
                stream.events.append(event)
                for follower in stream.followers:
                    follower._offer(update)
            if len(stream.events) and (not records or records[-1].version == len(stream.events)):
                self.events.heads.confirmed(stream_id, len(stream.events), read_at)

    def close(self) -> None:
        """End every follow and the poller's reads (at shutdown): clients reconnect elsewhere."""
        self._closed = True
        for stream in self._streams.values():
            for follower in stream.followers:
                follower._close()

    async def follow(
        self, stream_id: str, player: str | None, after: int, ping_interval: float
    ) -> AsyncIterator[SeenEvent | None]:
        """``player``'s redacted events of ``stream_id`` after version ``after``, live.

        Yields None after ``ping_interval`` seconds without an event (time for a keep-alive),
        and ends when the follower is dropped or the service shuts down.
        """
        async with self.subscribe(stream_id) as subscription, subscribed("game"):
            backlog = subscription.backlog
            state = game.fold(backlog[:after])
            seen, _ = redacted(list(enumerate(backlog, 1))[after:], player, state)
            for item in seen:
                yield item
            last = max(after, len(backlog))
            while True:
                update = await subscription.next(ping_interval)
                if subscription.dropped:
                    return
                if update is None:
                    yield None
                elif update.version > last:
                    viewer = game.seat_of(update.before, player) if player is not None else None
                    event = game.redact(update.event, viewer, update.before)
                    yield SeenEvent(update.version, event)
                    last = update.version

    @contextlib.asynccontextmanager
    async def subscribe(self, stream_id: str) -> AsyncIterator[Subscription]:
        """Follow ``stream_id`` for the block: the backlog so far, then each new event."""
        stream = self._streams.setdefault(stream_id, _Stream())
        stream.users += 1
        subscription: Subscription | None = None
        try:
            async with stream.lock:
                if not stream.loaded:
                    state = INITIAL_STATE
                    events = []
                    for record in await self.events.read_stored(stream_id):
                        event, state = self.events.step(game.evolve, state, record)
                        events.append(event)
                    stream.events, stream.state, stream.loaded = events, state, True
                # No await between the snapshot and joining: nothing can fall in between.
                subscription = Subscription(stream_id, list(stream.events), self.queue_size)
                stream.followers.add(subscription)
            yield subscription
        finally:
            if subscription is not None:
                stream.followers.discard(subscription)
            stream.users -= 1
            if stream.users == 0 and self._streams.get(stream_id) is stream:
                del self._streams[stream_id]
