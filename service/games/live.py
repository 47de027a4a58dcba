"""Live updates for the games' followers: one poller per process fans events out to them all.

Server-Sent Events clients never hold a database connection. `Live.run` is one background task
per app: it holds one LISTEN connection for the event store's post-commit hints (so appends of
other processes wake it too), and on a hint, an in-process `poke`, or every ``poll_interval``
seconds reads the tail of each stream that has followers, one read per stream however many
follow it. New events go into each follower's bounded queue with the state before them, so every
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
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

from domain import game
from domain.game import INITIAL_STATE, GameState
from service.eventlog.log import EventLog
from service.eventlog.store import NOTIFY_CHANNEL, FeedHints
from service.games.service import SeenEvent, redacted
from service.platform.metrics import subscribed

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
        self._hints: FeedHints | None = None
        self._closed = False
        self._watchers: list[Callable[[set[str]], None]] = []
        self._news: list[Callable[[str], None]] = []

    def watch_news(self, listener: Callable[[str], None]) -> None:
        """Call ``listener`` with every payload on the hints' channel that is not a stream's
        hint, and with ``""`` whenever the LISTEN connection was (re)opened, since news may
        have been missed meanwhile."""
        self._news.append(listener)

    def watch(self, watcher: Callable[[set[str]], None]) -> None:
        """Call ``watcher`` with the streams hinted after every batch of hints (from any
        process), and with an empty set on each periodic look."""
        self._watchers.append(watcher)

    def poke(self, stream_id: str, version: int) -> None:
        """An in-process hint: ``stream_id`` reached ``version``."""
        if self._hints is not None:
            self._hints.on_notify(None, 0, NOTIFY_CHANNEL, f"{stream_id}:{version}")

    @property
    def followed(self) -> int:
        """Streams with followers now."""
        return len(self._streams)

    async def run(self) -> None:
        """The poller: run it as one task for the app's lifetime."""
        try:
            await self._run()
        finally:
            self.events.heads.listen(False)

    async def _run(self) -> None:
        while not self._closed:
            try:
                async with self.events.listen() as hints:
                    self._hints = hints
                    hints.others = self._news
                    hints.streams = [self.events.heads.hinted]
                    self.events.heads.listen(True)
                    for listener in self._news:
                        listener("")
                    hints.on_notify(None, 0, NOTIFY_CHANNEL, "")  # look at once: we missed some
                    last_full = 0.0
                    while not self._closed:
                        hinted = await hints.wait(self.poll_interval)
                        for watcher in self._watchers:
                            watcher(set(hinted))
                        # Every poll_interval, and on an empty hint, look at every stream
                        # followed: a hint may be lost, or never sent (PREFERANS_NOTIFY=false).
                        now = time.monotonic()
                        everything = not hinted or now - last_full >= self.poll_interval
                        if everything:
                            last_full = now
                        await self._poll(set(hinted), everything=everything)
            except asyncio.CancelledError:
                raise
            except Exception:  # the LISTEN connection broke: poll, then listen again
                log.exception("live updates: the listener failed; retrying")
                self._hints = None
                self.events.heads.listen(False)
                await asyncio.sleep(self.poll_interval)
                with contextlib.suppress(Exception):
                    await self._poll(set(), everything=True)

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
                event = self.events.decode(record)
                update = Update(record.version, event, stream.state)
                stream.events.append(event)
                stream.state = game.evolve(stream.state, event)
                for follower in stream.followers:
                    follower._offer(update)
            if len(stream.events) and (not records or records[-1].version == len(stream.events)):
                self.events.heads.confirmed(stream_id, len(stream.events), read_at)

    def close(self) -> None:
        """End every follow and the poller (at shutdown): clients reconnect elsewhere."""
        self._closed = True
        if self._hints is not None:
            self._hints.on_notify(None, 0, NOTIFY_CHANNEL, "")  # wake the poller to see it
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
                    for item in await self.events.read(stream_id):
                        stream.events.append(item.event)
                        stream.state = game.evolve(stream.state, item.event)
                    stream.loaded = True
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
