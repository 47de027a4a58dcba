"""Snapshots of folded game states: a cache in the database, so that a process that has not seen
a game folds a short tail instead of the whole stream (docs/event-store.md §9.5).

A snapshot is what it says, a cache, never the truth:

- rebuildable from the log: any row may be deleted at any time, and a missing one only means
  a longer fold;
- versioned with the code that folds it: it names its fold version (`fold_version`: the
  domain's `FOLD_VERSION` and a digest of the state's shape), and one of another version is
  ignored;
- checked against the log: it names the event it was folded up to, and a reader trusts it only
  if the log holds that very event at that version (`CommandHandler.load` reads the tail from
  the snapshot's own version on). A snapshot that does not decode, or names an event the log
  does not hold, is ignored and written again from the fold;
- written after the commit, in the background, in batches (`Snapshots.offer`, `Snapshots.run`):
  never on a command's path, and through ``es.save_snapshots``, which stores only a snapshot
  of an event the log holds. Only the snapshots' writer's role may call it (the projections'
  role, migration 0017): the request path reads snapshots and offers states, it cannot write;
- audited: the writer refolds a sample of what it is offered (``audit_every``: one in so
  many; 1, the default, is every one) from the log's first event, and writes only a state
  equal to that refold: a mismatch is discarded, logged and counted
  (``preferans_snapshot_mismatches_total``). A process with no writer (``writer`` None) only
  reads.
- or taken from the log alone (`Snapshots.hint`): where the writer runs in a process of its
  own (the ``background`` role of `service.bootstrap`), nobody offers it states; each append's
  hint ``(stream, version)`` that crosses a multiple of ``every`` makes it fold that stream from
  its first event up to that multiple and store the fold. What it stores never came from the
  request path, so there is nothing to audit.

`StateCodec` turns a `domain.game` state into bytes (msgpack) and back.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import typing
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

import asyncpg
import msgspec

from domain import game
from domain.deal.state import DealState
from service.eventlog.codec import domain_codec
from service.platform.lru import Lru
from service.platform.metrics import SNAPSHOT_MISMATCHES
from service.platform.worker_kit import Worker

log = logging.getLogger(__name__)

S = TypeVar("S")

Refold = Callable[[str, int, uuid.UUID], Awaitable["S | None"]]
"""``refold(stream, version, event_id)``: the state folded from the stream's first event up to
that one, None if the log does not hold that event at that version."""

FoldAt = Callable[[str, int], Awaitable["tuple[uuid.UUID, S] | None"]]
"""``fold_at(stream, version)``: the id of the stream's event at ``version`` and the state folded
from its first event up to it; None if the stream is shorter."""

TAKEN_MEMORY = 100_000
"""Streams whose last snapshot taken from the log a writer remembers (beyond: one read more)."""

SNAPSHOT_EVERY = 100
"""Events between two snapshots of a stream: a cold load folds fewer than this many (about
0.3 ms of them)."""

_READ = """
SELECT version, event_id, state FROM es.snapshots WHERE stream_id = $1 AND fold_version = $2"""
_FOLD = """
SELECT event_id, event_type, schema_version, data FROM es.events
 WHERE stream_id = $1 AND version <= $2 ORDER BY version"""
_SAVE = "SELECT es.save_snapshots($1::text[], $2::text, $3::bigint[], $4::uuid[], $5::bytea[])"
_STORED = """
SELECT stream_id, version FROM es.snapshots
 WHERE stream_id = ANY($1::text[]) AND fold_version = $2"""


class SnapshotUnreadable(Exception):
    """Stored bytes that the current code cannot decode into a state."""


@dataclass(frozen=True, slots=True)
class Snapshot(Generic[S]):
    """A stream's state folded up to ``version``, whose event is ``event_id``."""

    version: int
    event_id: uuid.UUID
    state: S


# --- the game state's codec -------------------------------------------------------------------

_DEALS: dict[str, type[msgspec.Struct]] = {t.__name__: t for t in typing.get_args(DealState)}
_GAMES: dict[str, type[game.Pulka]] = {"Pulka": game.Pulka, "PulkaClosed": game.PulkaClosed}
# The deal's phases are untagged Structs, so a union of them cannot be decoded in one pass: the
# snapshot names the phase, and each field is converted to its own type.
_FIELDS = {
    name: tuple((f.name, f.type) for f in msgspec.structs.fields(cls) if f.name != "deal")
    for name, cls in _GAMES.items()
}


def _shape(kind: Any, seen: set[Any]) -> list[str]:
    """The fields of every Struct reachable from ``kind``, as text (the state's shape)."""
    out: list[str] = []
    if isinstance(kind, type) and issubclass(kind, msgspec.Struct):
        if kind in seen:
            return out
        seen.add(kind)
        fields = msgspec.structs.fields(kind)
        out.append(f"{kind.__module__}.{kind.__qualname__}(" + ",".join(
            f"{f.name}:{f.type!r}={f.default!r}" for f in fields) + ")")  # fmt: skip
        for f in fields:
            out += _shape(f.type, seen)
    for arg in typing.get_args(kind):
        out += _shape(arg, seen)
    return out


def fold_version() -> str:
    """The fold's version as snapshots name it: `domain.game.FOLD_VERSION` and a digest of the
    state's shape, so that a changed state is never decoded from an old snapshot."""
    shape = "\n".join(_shape(game.GameState, set()))
    return f"{game.FOLD_VERSION}.{hashlib.sha256(shape.encode()).hexdigest()[:16]}"


class StateCodec:
    """A game state to msgpack bytes and back (see the module docstring)."""

    def __init__(self) -> None:
        self._encoder = msgspec.msgpack.Encoder()
        self._decoder = msgspec.msgpack.Decoder(tuple[str, str, dict[str, Any]])

    def encode(self, state: game.GameState) -> bytes | None:
        """The state's bytes; None for a state not worth keeping (no game yet)."""
        if not isinstance(state, game.Pulka):
            return None
        return self._encoder.encode((type(state).__name__, type(state.deal).__name__, state))

    def decode(self, data: bytes) -> game.GameState:
        """The state of ``data``; `SnapshotUnreadable` if it is not one this code wrote."""
        try:
            kind, phase, fields = self._decoder.decode(data)
            values = {name: msgspec.convert(fields[name], t) for name, t in _FIELDS[kind]
                      if name in fields}  # fmt: skip
            values["deal"] = msgspec.convert(fields["deal"], _DEALS[phase])
            return _GAMES[kind](**values)
        except (msgspec.MsgspecError, KeyError, TypeError, ValueError) as exc:
            raise SnapshotUnreadable(str(exc)) from exc


# --- the store ------------------------------------------------------------------------------


class Snapshots(Generic[S]):
    """Reads snapshots, and writes those offered in the background (see the module docstring).

    ``every``: events between two snapshots of a stream. ``pending``: snapshots waiting to be
    written, at most (one per stream: a newer one replaces an older); beyond it an offer is
    dropped, which costs only a longer fold later. ``writer``: the pool of the role that may
    write snapshots (default ``pool``; None: this process only reads them). ``refold(stream,
    version, event_id)``: the stream's state folded from its first event up to that one (None
    if the log does not hold it there), for the audit of one offer in ``audit_every``.
    """

    def __init__(
        self,
        pool: asyncpg.Pool,
        encode: Callable[[S], bytes | None],
        decode: Callable[[bytes], S],
        *,
        version: str,
        every: int = SNAPSHOT_EVERY,
        pending: int = 10_000,
        flush_interval: float = 0.2,
        writer: asyncpg.Pool | Literal["same"] | None = "same",
        refold: Refold[S] | None = None,
        audit_every: int = 1,
        fold_at: FoldAt[S] | None = None,
    ) -> None:
        if every < 1:
            raise ValueError(f"a snapshot every {every} events is no snapshot")
        if audit_every < 1:
            raise ValueError(f"an audit of one snapshot in {audit_every} audits none")
        self.pool = pool
        self.writer = pool if writer == "same" else writer
        self.refold = refold
        self.audit_every = audit_every
        self._offered = 0
        self.encode = encode
        self.decode = decode
        self.version = version
        self.every = every
        self.limit = pending
        self.flush_interval = flush_interval
        self._pending: dict[str, tuple[int, uuid.UUID, S]] = {}
        self.fold_at = fold_at
        self._due: dict[str, int] = {}
        self._taken: Lru[str, int] = Lru(TAKEN_MEMORY)
        # Woken by an offer, never more often than flush_interval: offers meanwhile batch up.
        self.worker = Worker("snapshots", self._round, interval=3600.0, pace=flush_interval)
        self.saved = 0
        self.dropped = 0
        self.mismatched = 0

    async def read(self, stream_id: str, *, conn: asyncpg.Connection | None = None
                   ) -> Snapshot[S] | None:  # fmt: skip
        """The stream's snapshot of this fold version, decoded; None if there is none or it
        does not decode (the caller must still check its event against the log)."""
        row = await (conn or self.pool).fetchrow(_READ, stream_id, self.version)
        if row is None:
            return None
        try:
            state = self.decode(row["state"])
        except SnapshotUnreadable as exc:
            log.warning("snapshot of %s at %s ignored: %s", stream_id, row["version"], exc)
            return None
        return Snapshot(row["version"], row["event_id"], state)

    def due(self, before: int, after: int) -> bool:
        """Whether a stream that went from version ``before`` to ``after`` needs a snapshot."""
        return after // self.every > before // self.every

    def offer(self, stream_id: str, version: int, event_id: uuid.UUID, state: S) -> None:
        """Write this state as the stream's snapshot soon (never on the caller's path)."""
        if self.writer is None:
            return
        held = self._pending.get(stream_id)
        if held is not None and held[0] >= version:
            return
        if held is None and len(self._pending) >= self.limit:
            self.dropped += 1
            return
        self._pending[stream_id] = (version, event_id, state)
        self.worker.hint()

    def hint(self, stream_id: str, version: int) -> None:
        """An append took ``stream_id`` to ``version``: take its snapshot at the last multiple
        of ``every`` soon, from the log (a writer built with ``fold_at``; see the module
        docstring). The hint that hints were lost (``""``) asks for nothing: a snapshot missed
        is only a longer fold, and the stream's next append asks again."""
        if self.fold_at is None or self.writer is None or not stream_id:
            return
        at = version // self.every * self.every
        if at == 0 or (self._taken.get(stream_id) or 0) >= at or self._due.get(stream_id, 0) >= at:
            return
        if stream_id not in self._due and len(self._due) >= self.limit:
            self.dropped += 1
            return
        self._due[stream_id] = at
        self.worker.hint()

    async def take(self) -> int:
        """Fold and store the snapshots the hints asked for, in one statement; the number
        stored (a stream whose stored snapshot is as new is skipped)."""
        if not self._due:
            return 0
        assert self.fold_at is not None and self.writer is not None
        due, self._due = self._due, {}
        stored = dict(await self.writer.fetch(_STORED, list(due), self.version))
        streams, versions, ids, states = [], [], [], []
        for stream_id, at in due.items():
            if stored.get(stream_id, 0) >= at:
                self._taken.put(stream_id, stored[stream_id])
                continue
            folded = await self.fold_at(stream_id, at)
            data = None if folded is None else self.encode(folded[1])
            if folded is None or data is None:
                continue
            streams.append(stream_id)
            versions.append(at)
            ids.append(folded[0])
            states.append(data)
            self._taken.put(stream_id, at)
        if not streams:
            return 0
        saved: int = await self.writer.fetchval(_SAVE, streams, self.version, versions, ids, states)
        self.saved += saved
        return saved

    async def flush(self) -> int:
        """Write the pending snapshots now, in one statement, and take those the hints asked
        for (`take`); the number stored."""
        taken = await self.take()
        if not self._pending:
            return taken
        batch, self._pending = self._pending, {}
        assert self.writer is not None, "a process that only reads snapshots holds no offers"
        streams, versions, ids, states = [], [], [], []
        for stream_id, (version, event_id, state) in batch.items():
            data = self.encode(state)
            if data is None:
                continue
            self._offered += 1
            audit = self.refold is not None and self._offered % self.audit_every == 0
            if audit and not await self._audited(stream_id, version, event_id, data):
                continue
            streams.append(stream_id)
            versions.append(version)
            ids.append(event_id)
            states.append(data)
        if not streams:
            return taken
        stored: int = await self.writer.fetchval(
            _SAVE, streams, self.version, versions, ids, states
        )
        self.saved += stored
        return stored + taken

    async def _audited(
        self, stream_id: str, version: int, event_id: uuid.UUID, data: bytes
    ) -> bool:
        """Whether ``data`` is the state the log folds to at that event, from its first."""
        assert self.refold is not None
        folded = await self.refold(stream_id, version, event_id)
        if folded is not None and self.encode(folded) == data:
            return True
        self.mismatched += 1
        SNAPSHOT_MISMATCHES.inc()
        log.error(
            "snapshot of %s at %s discarded: it is not the log's fold from zero", stream_id, version
        )
        return False

    async def run(self) -> None:
        """Write what is offered, every ``flush_interval`` at most, for ever."""
        await self.worker.run()

    async def _round(self) -> float | None:
        try:
            await self.flush()
        except (asyncpg.PostgresError, OSError) as exc:  # a cache: the next offer retries
            log.warning("snapshots not written: %s", exc)
        return None

    async def close(self) -> None:
        """Write what is still pending (before the pool closes); a failure loses only a cache."""
        with contextlib.suppress(asyncpg.PostgresError, OSError):
            await self.flush()


def game_snapshots(
    pool: asyncpg.Pool,
    *,
    every: int = SNAPSHOT_EVERY,
    writer: asyncpg.Pool | Literal["same"] | None = "same",
    audit_every: int = 1,
    from_log: bool = False,
) -> Snapshots[Any]:
    """The snapshots of the games' states, read on ``pool`` and written on ``writer`` (see
    `Snapshots`), each offer refolded from the log (on the writer's pool) one in
    ``audit_every``; ``from_log``: taken from the log on the hints too (`Snapshots.hint`)."""
    codec = StateCodec()
    writing = pool if writer == "same" else writer

    async def fold_at(stream_id: str, version: int) -> tuple[uuid.UUID, Any] | None:
        assert writing is not None
        rows = await writing.fetch(_FOLD, stream_id, version)
        if len(rows) != version:
            return None
        decode = domain_codec().decode
        state = game.fold([decode(r[1], r[2], r[3]) for r in rows])  # type: ignore[misc]
        return rows[-1]["event_id"], state

    async def refold(stream_id: str, version: int, event_id: uuid.UUID) -> Any:
        folded = await fold_at(stream_id, version)
        return folded[1] if folded is not None and folded[0] == event_id else None

    return Snapshots(
        pool, codec.encode, codec.decode, version=fold_version(), every=every, writer=writer,
        refold=refold if writing is not None else None, audit_every=audit_every,
        fold_at=fold_at if from_log and writing is not None else None,
    )  # fmt: skip
