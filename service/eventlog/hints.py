"""The process's hints: one LISTEN connection, and every append hint fanned out to its workers.

A background worker sleeps until something may have changed; what tells it is a hint,
``(stream_id, version)``: an append of this process once it has committed
(`service.eventlog.log.EventLog.add_listener`), or an append of another process (a NOTIFY on
the event store's channel, sent by `service.eventlog.store.Announcer`). One `HintHub` per
process hears both, the NOTIFYs on one LISTEN connection however many workers wait, and calls
every subscriber with every hint (a `service.platform.worker_kit.Worker`'s ``hint`` takes any).
It also keeps the log's `service.eventlog.log.Heads` honest: heads are trusted only while the
connection listens, and each NOTIFY spoils the head it names.

Hints only say "look again": a NOTIFY is lost with its connection. So each time the
connection (re)opens, every subscriber is told ``("", 0)``, meaning anything may have changed
meanwhile, and the news listeners (payloads on the channel that are not a stream's hint, e.g. a
revoked token) ``""``. `run` holds the connection, as a kit worker whose round lasts as long as
the connection does: when it drops, the round fails (logged and counted), and the next one opens
a new connection after the backoff; meanwhile this process's own hints still arrive, and the
workers poll at their intervals::

    hints = HintHub(events)          # the log's listener: this process's appends
    hints.subscribe(steward.hint)    # each worker once, in the composition root
    services.start(hints.run(), "hints")
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.eventlog.log import EventLog
from service.platform.worker_kit import Worker

Hinted = Callable[[str, int], None]
"""Told ``(stream_id, version)`` for each hint, and ``("", 0)`` when hints may have been lost."""

EVERYTHING = ""
"""The stream id of the hint that hints may have been missed: look at everything."""


class ListenLost(ConnectionError):
    """The LISTEN connection dropped: no NOTIFY arrives until it is open again."""


class HintHub:
    """The process's one source of hints (see the module docstring)."""

    def __init__(self, events: EventLog[Any], *, retry: float = 1.0) -> None:
        """``retry``: seconds before a dropped LISTEN connection is opened again."""
        self.events = events
        self._subscribers: list[Hinted] = []
        self._news: list[Callable[[str], None]] = []
        self.worker = Worker("hints", self._listen, interval=retry)
        events.add_listener(self._hinted)

    def subscribe(self, hinted: Hinted) -> None:
        """Call ``hinted`` with every hint, this process's and the others' (see ``Hinted``)."""
        self._subscribers.append(hinted)

    def on_news(self, listener: Callable[[str], None]) -> None:
        """Call ``listener`` with every payload on the channel that is not a stream's hint,
        and with ``""`` whenever the connection (re)opened, since news may have been missed."""
        self._news.append(listener)

    async def run(self) -> None:
        """Hold the LISTEN connection for the process's lifetime (cancel to stop)."""
        await self.worker.run()

    def _hinted(self, stream_id: str, version: int) -> None:
        for hinted in self._subscribers:
            hinted(stream_id, version)

    async def _listen(self) -> float | None:
        """One round: open the connection, tell everyone to look, and hold it until it drops."""
        heads = self.events.heads
        async with self.events.listen() as hints:
            hints.streams = [heads.hinted, self._hinted]
            hints.others = self._news
            heads.listen(True)
            try:
                for listener in self._news:
                    listener("")
                self._hinted(EVERYTHING, 0)
                await hints.lost.wait()
            finally:
                heads.listen(False)
        raise ListenLost("the LISTEN connection dropped; listening again after the backoff")
