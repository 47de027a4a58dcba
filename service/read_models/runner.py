"""The projection runner: read models that follow the global feed, rebuilt blue/green.

Each projection (`service.read_models.storage`: ``sheet``, ``stats``, ``ratings``,
``analysis``) has a generation ``g``
serving reads (``rm.projections.active``) and a checkpoint ``<name>@<g>`` in
es.projection_checkpoints (docs/event-store.md §9.4):

- **Following the feed.** `Projections.run` is a kit worker (`service.platform.worker_kit`),
  woken by the process's append hints (`Projections.hint`) or every ``idle_interval``. Each
  round reads a batch of the global feed after the lowest checkpoint (below the xid horizon,
  so nothing is ever skipped), decodes the events the projections need once, and for each
  projection writes its read model *and* moves its checkpoint in one transaction. The
  checkpoint update is conditional on the old cursor, so a concurrent writer makes it touch no
  row and the batch rolls back. A crash anywhere loses a
  whole batch or nothing: no event is applied twice or skipped. Read models also skip events at
  or below the version they hold (idempotent per (stream_id, version)).
- **One leader per projection** (`service.platform.leadership`), elected with a session-level
  ``pg_try_advisory_lock`` on ``hashtext('proj:<name>@<g>')`` held on one connection across
  rounds: several service processes can run; one drives each checkpoint. A runner whose round
  fails resigns (another process may lead meanwhile) and stands again at the next round.
- **Poison events.** An event a projection cannot apply stops that projection (and only it):
  the events before it are committed, the checkpoint stays just before it, its status becomes
  ``failed`` with ``last_error`` naming the event. It is never skipped. After a fix, rebuild it
  (or ``preferans projections resume NAME`` to retry).
- **Rebuild, blue/green** (`Projections.rebuild`): generation g+1 is built from position zero
  into the other table slot (status ``rebuilding``) while g keeps serving; once it has caught up
  with the feed, one transaction makes it active and deletes g's checkpoint, and g's tables are
  emptied. The running service then follows g+1. A projection whose ``code_version`` changed
  is rebuilt this way when the service starts.
- **Lag** (`Projections.status`): each checkpoint's position against the feed's head, events
  behind, and the age of the oldest event not yet applied. The running runner reports its own
  as ``preferans_worker_lag_seconds{worker="projections"}``: the age of the oldest event its
  round had yet to apply.

Errors::

    ProjectionError
    ├── UnknownProjection   no read model of that name
    ├── RebuildBusy         another process is already rebuilding it
    └── RebuildFailed       a poison event stopped the rebuild (the old generation still serves)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

import asyncpg
import msgspec

from domain.game import Event
from service.eventlog.log import EventLog
from service.eventlog.store import FEED_START, FeedCursor, RecordedEvent
from service.games.streams import game_id_of
from service.platform import worker_kit
from service.platform.leadership import Leadership
from service.read_models.storage import READ_MODELS, Decoded, PoisonEvent, ReadModel, slot_of

log = logging.getLogger(__name__)

RUNNING, REBUILDING, FAILED = "running", "rebuilding", "failed"

_TRANSIENT = (
    OSError,
    TimeoutError,
    asyncpg.PostgresConnectionError,
    asyncpg.InterfaceError,
    asyncpg.DeadlockDetectedError,
    asyncpg.SerializationError,
    asyncpg.LockNotAvailableError,
    asyncpg.CannotConnectNowError,
)
"""Errors that say nothing about the events: retry later instead of failing the projection."""


class ProjectionError(Exception):
    """Base of the runner's errors."""


class UnknownProjection(ProjectionError, KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


class RebuildBusy(ProjectionError):
    """Another process holds the rebuild of this projection."""


class RebuildFailed(ProjectionError):
    """The rebuild met a poison event; the old generation keeps serving."""


class StaleCheckpoint(ProjectionError):
    """The checkpoint moved under us (another leader, or a generation switch)."""


@dataclass
class Worker:
    """One generation of one projection, as driven by this process."""

    model: ReadModel
    generation: int
    cursor: FeedCursor
    status: str

    @property
    def checkpoint(self) -> str:
        return f"{self.model.name}@{self.generation}"

    @property
    def slot(self) -> str:
        return slot_of(self.generation)

    @property
    def leader(self) -> str:
        """The name led (`service.platform.leadership`) by the process that drives it."""
        return leader_of(self.checkpoint)


def leader_of(checkpoint: str) -> str:
    return f"proj:{checkpoint}"


class ProjectionStatus(msgspec.Struct, frozen=True, kw_only=True):
    """Where a projection's generation stands."""

    name: str
    checkpoint: str
    """``<name>@<generation>``."""
    generation: int
    role: Literal["active", "building"]
    """``active`` (serving reads) or ``building`` (a blue/green rebuild)."""
    status: Literal["running", "rebuilding", "paused", "failed"]
    """``running``, ``rebuilding``, ``paused`` or ``failed``."""
    position: int
    """Global position of the last event applied."""
    head: int
    """Global position of the newest event in the log."""
    lag: int
    """Events in the log not yet applied (including events other projections need)."""
    lag_seconds: float
    """Age of the oldest event not yet applied; 0 when caught up."""
    code_version: int
    """The projection code version this generation was built by."""
    current_code_version: int
    last_error: str | None = None
    updated_at: datetime | None = None


class RebuildReport(msgspec.Struct, frozen=True, kw_only=True):
    names: tuple[str, ...]
    generations: dict[str, int]
    events: int
    """Events read from position zero to the head."""
    seconds: float


Progress = Callable[[int, int], None]
"""``progress(events_done, events_in_log)`` during a rebuild."""

Fault = Callable[[Worker, Sequence[Decoded]], Awaitable[None]]
"""A test hook run inside each batch transaction, after the read-model writes and before the
checkpoint moves (inject a crash there)."""

# --- SQL ----------------------------------------------------------------------------------------

_ENSURE_REGISTRY = """
INSERT INTO rm.projections (name, active, active_code) VALUES ($1, 1, $2)
ON CONFLICT (name) DO NOTHING"""

_ENSURE_CHECKPOINT = """
INSERT INTO es.projection_checkpoints (projection) VALUES ($1) ON CONFLICT DO NOTHING"""

_ACTIVE = """
SELECT p.name, p.active, c.tx_id, c.position, c.status
  FROM rm.projections p
  JOIN es.projection_checkpoints c ON c.projection = p.name || '@' || p.active
 WHERE p.name = ANY($1::text[])"""

_ADVANCE = """
UPDATE es.projection_checkpoints SET tx_id = $2::xid8, position = $3, updated_at = now()
 WHERE projection = $1 AND tx_id = $4::xid8 AND position = $5 AND status = $6"""

_FAIL = """
UPDATE es.projection_checkpoints SET status = 'failed', last_error = $2, updated_at = now()
 WHERE projection = $1"""

_STATUS = """
SELECT p.name, p.active, p.active_code, p.building, p.building_code,
       c.projection, c.tx_id, c.position, c.status, c.last_error, c.updated_at
  FROM rm.projections p
  JOIN es.projection_checkpoints c
    ON c.projection IN (p.name || '@' || p.active, p.name || '@' || p.building)
 ORDER BY p.name, c.projection"""


class Projections:
    """Runs, rebuilds and reports the read models over an event store."""

    def __init__(
        self,
        events: EventLog[Event],
        *,
        models: Iterable[ReadModel] | None = None,
        batch_size: int = 1000,
        idle_interval: float = 0.5,
        retry_interval: float = 2.0,
        fault: Fault | None = None,
    ) -> None:
        self.events = events
        self.pool: asyncpg.Pool = events.pool
        self.models: dict[str, ReadModel] = {
            m.name: m for m in (models if models is not None else (cls() for cls in READ_MODELS))
        }
        self.batch_size = batch_size
        self.idle_interval = idle_interval
        self.retry_interval = retry_interval
        self.fault = fault
        self.leadership = Leadership(self.pool)
        """The projections' checkpoints this process leads while it follows the feed."""
        self.worker = worker_kit.Worker(
            "projections", self._round, interval=idle_interval, backoff=retry_interval,
            before=self._start, after=self._stop,
        )  # fmt: skip
        """Its loop (`service.platform.worker_kit`): `run` runs it, `hint` wakes it."""
        self._led: list[Worker] | None = None
        self._rebuild_outdated = True
        self._rebuilds: list[asyncio.Task[Any]] = []

    def model(self, name: str) -> ReadModel:
        try:
            return self.models[name]
        except KeyError:
            known = ", ".join(self.models)
            raise UnknownProjection(f"no projection {name!r}; known: {known}") from None

    async def ensure(self) -> None:
        """Register every projection (generation 1 from position zero) that is not yet known."""
        async with self.pool.acquire() as conn, conn.transaction():
            for model in self.models.values():
                await conn.execute(_ENSURE_REGISTRY, model.name, model.code_version)
                gen = await conn.fetchval(
                    "SELECT active FROM rm.projections WHERE name = $1", model.name
                )
                await conn.execute(_ENSURE_CHECKPOINT, f"{model.name}@{gen}")

    # --- following the feed -------------------------------------------------------------------

    async def _active_workers(self, names: Sequence[str]) -> list[Worker]:
        rows = await self.pool.fetch(_ACTIVE, list(names))
        return [
            Worker(
                self.models[r["name"]],
                r["active"],
                FeedCursor(r["tx_id"], r["position"]),
                r["status"],
            )
            for r in rows
        ]

    async def _leading(self, leadership: Leadership) -> list[Worker]:
        """The active generations this process leads (standing for the free ones, resigning
        those no longer active, e.g. after a rebuild's switch)."""
        workers = await self._active_workers(list(self.models))
        mine = [w for w in workers if await leadership.lead(w.leader)]
        current = {w.leader for w in workers}
        for name in leadership.held - current:
            await leadership.resign(name)
        return mine

    def hint(self, *_: object) -> None:
        """Something was appended (`service.eventlog.hints`): read the feed at once."""
        self.worker.hint()

    async def run(self, *, rebuild_outdated: bool = True) -> None:
        """Follow the feed for ever (the service's background task); cancel to stop.

        Catches up on its own after a restart. With ``rebuild_outdated``, a projection whose
        stored generation was built by another ``code_version`` is rebuilt blue/green meanwhile.
        """
        self._rebuild_outdated = rebuild_outdated
        await self.worker.run()

    async def _start(self) -> None:
        """Before the first round (retried by the kit until it succeeds): the projections
        registered, and the outdated ones' rebuilds begun."""
        try:
            await self.ensure()
        except asyncpg.UndefinedTableError:
            log.error("projections: the read-model tables are missing: run the migrations")
            raise
        if self._rebuild_outdated and not self._rebuilds:
            outdated = await self._outdated()
            if outdated:
                log.info("projections %s changed code: rebuilding them", ", ".join(outdated))
                self._rebuilds.append(asyncio.create_task(self._rebuild_quietly(outdated)))

    async def _stop(self) -> None:
        """When the runner stops: its leadership resigned, its rebuilds cancelled."""
        self._led = None
        await self.leadership.resign_all()
        rebuilds, self._rebuilds = self._rebuilds, []
        for task in rebuilds:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _round(self) -> float | None:
        """One feed batch for the projections this process leads; the next at once while the
        feed has more, else after the idle interval or a hint. Leadership is looked at again
        after each idle round, as a rebuild's switch or another process's end may change it."""
        try:
            if self._led is None:
                self._led = await self._leading(self.leadership)
            read, oldest = await self._step(self._led, self.batch_size)
        except StaleCheckpoint:  # another leader, or a generation switch: look again
            read, oldest = 0, None
        except Exception:
            self._led = None
            await self.leadership.resign_all()  # a process that fails leads nothing meanwhile
            raise
        # Its lag: the age of the oldest event it had yet to apply (0 when caught up).
        lag = 0.0 if oldest is None else (datetime.now(UTC) - oldest).total_seconds()
        self.worker.report_lag(lag)
        if read:
            return 0.0
        self._led = None
        return None

    async def catch_up(
        self,
        names: Sequence[str] | None = None,
        *,
        batch_size: int | None = None,
        until: FeedCursor | None = None,
        timeout: float = 30.0,
    ) -> int:
        """Apply what the feed holds to the active generations, then return the events read.

        The feed ends at the xid horizon, so an event committed a moment ago may not be readable
        yet while any other transaction of the cluster is open; with ``until`` (an append's
        cursor) it waits, up to ``timeout`` seconds, until every projection has passed it.
        Projections led by another process are left alone. (Tests, benchmarks and one-off
        jobs; the service uses `run`.)
        """
        await self.ensure()
        names = list(names or self.models)
        for name in names:
            self.model(name)
        total = 0
        deadline = time.monotonic() + timeout
        async with Leadership(self.pool) as leadership:

            async def led() -> list[Worker]:
                return [
                    w for w in await self._active_workers(names) if await leadership.lead(w.leader)
                ]

            workers = await led()
            while True:
                read, _ = await self._step(workers, batch_size or self.batch_size)
                total += read
                if read:
                    continue
                if until is None:
                    break
                # Done once every named projection is led here and past ``until`` (or
                # stopped by a poison event). A lock still held by a process that is going
                # away, or an open transaction holding the horizon back, needs a moment.
                if len(workers) == len(names) and all(
                    w.cursor >= until or w.status == FAILED for w in workers
                ):
                    break
                if time.monotonic() > deadline:
                    raise TimeoutError(f"the projections did not reach {until} in {timeout} s")
                await asyncio.sleep(0.01)
                workers = await led()
        return total

    async def _step(
        self, workers: list[Worker], limit: int, *, fail_fast: bool = False
    ) -> tuple[int, datetime | None]:
        """One feed batch for every running worker: the number of events of the log it covered
        (of every type: those no projection needs are not even sent), and when the oldest
        event it read was recorded (None if it read none)."""
        live = [w for w in workers if w.status in (RUNNING, REBUILDING)]
        if not live:
            return 0, None
        needed = frozenset().union(*(w.model.handled for w in live))
        start = min(w.cursor for w in live)
        batch, end, covered = await self.events.read_feed_of(start, limit, sorted(needed))
        if end <= start:
            return 0, None
        decoded = self._decode(batch, needed)
        for w in live:
            if end <= w.cursor:
                continue
            await self._advance(w, batch, decoded, end, fail_fast=fail_fast)
        return covered, batch[0].recorded_at if batch else None

    def _decode(
        self, batch: list[RecordedEvent], needed: frozenset[str]
    ) -> list[Event | Exception | None]:
        out: list[Event | Exception | None] = []
        decode = self.events.decode
        for record in batch:
            if record.event_type not in needed or game_id_of(record.stream_id) is None:
                out.append(None)
                continue
            try:
                out.append(decode(record))
            except Exception as exc:  # a poison event for the projections that need it
                out.append(exc)
        return out

    async def _advance(
        self,
        w: Worker,
        batch: list[RecordedEvent],
        decoded: list[Event | Exception | None],
        end: FeedCursor,
        *,
        fail_fast: bool,
    ) -> None:
        items: list[Decoded] = []
        poison: PoisonEvent | None = None
        for record, event in zip(batch, decoded, strict=True):
            if record.cursor <= w.cursor or event is None:
                continue
            if record.event_type not in w.model.handled:
                continue
            if isinstance(event, Exception):
                poison = PoisonEvent(record, event)
                break
            items.append(Decoded(record, event))
        if poison is None:
            try:
                await self._commit(w, items, end)
                return
            except PoisonEvent as exc:
                poison = exc
            except (StaleCheckpoint, *_TRANSIENT):
                raise
            except Exception as exc:  # the read model's own writes failed: stop it, loudly
                await self._fail(w, f"{type(exc).__name__}: {exc}")
                if fail_fast:
                    raise RebuildFailed(f"{w.checkpoint}: {exc}") from exc
                return
        # Commit what precedes the poison event, then stop just before it: never skip it.
        index = next(i for i, r in enumerate(batch) if r.cursor == poison.record.cursor)
        before = batch[index - 1].cursor if index > 0 else w.cursor
        if before > w.cursor:
            await self._commit(w, [d for d in items if d.record.cursor <= before], before)
        await self._fail(w, str(poison))
        if fail_fast:
            raise RebuildFailed(f"{w.checkpoint}: {poison}") from poison

    async def _commit(self, w: Worker, items: Sequence[Decoded], cursor: FeedCursor) -> None:
        """The read-model writes and the checkpoint move, in one transaction."""
        async with self.pool.acquire() as conn, conn.transaction():
            if items:
                await w.model.apply(conn, w.slot, items)
            if self.fault is not None:
                await self.fault(w, items)
            moved = await conn.execute(
                _ADVANCE, w.checkpoint, cursor.tx_id, cursor.position,
                w.cursor.tx_id, w.cursor.position, w.status,
            )  # fmt: skip
            if moved != "UPDATE 1":
                raise StaleCheckpoint(f"{w.checkpoint} moved under us")
        w.cursor = cursor

    async def _fail(self, w: Worker, error: str) -> None:
        log.error("projection %s stopped (status failed): %s", w.checkpoint, error)
        await self.pool.execute(_FAIL, w.checkpoint, error)
        w.status = FAILED

    async def resume(self, name: str) -> bool:
        """Let a failed projection retry from its checkpoint; False if it had not failed."""
        self.model(name)
        done = await self.pool.execute(
            """UPDATE es.projection_checkpoints c SET status = 'running', last_error = NULL,
                      updated_at = now()
                 FROM rm.projections p
                WHERE p.name = $1 AND c.projection = p.name || '@' || p.active
                  AND c.status = 'failed'""",
            name,
        )
        return bool(done == "UPDATE 1")

    # --- rebuild ------------------------------------------------------------------------------

    async def _outdated(self) -> list[str]:
        rows = await self.pool.fetch(
            "SELECT name, active_code FROM rm.projections WHERE name = ANY($1::text[])",
            list(self.models),
        )
        return sorted(
            r["name"] for r in rows if r["active_code"] != self.models[r["name"]].code_version
        )

    async def _rebuild_quietly(self, names: list[str]) -> None:
        try:
            await self.rebuild(names)
        except RebuildBusy:
            log.info("another process is rebuilding %s", ", ".join(names))
        except ProjectionError as exc:
            log.error("rebuild of %s failed: %s", ", ".join(names), exc)
        except Exception:  # the old generation keeps serving; a restart retries the rebuild
            log.exception("rebuild of %s failed", ", ".join(names))

    async def rebuild(
        self,
        names: Sequence[str] | None = None,
        *,
        batch_size: int = 5000,
        progress: Progress | None = None,
    ) -> RebuildReport:
        """Rebuild ``names`` (default: all) from position zero, blue/green; see the module doc.

        Raises `RebuildBusy` or `RebuildFailed`; the serving generation is untouched then.
        """
        await self.ensure()
        chosen = list(names or self.models)
        models = [self.model(n) for n in chosen]
        started = time.perf_counter()
        async with Leadership(self.pool) as leadership:
            workers = [await self._begin_build(m, leadership) for m in models]
            newest, head = await self.events.feed_head()
            done = 0
            while True:
                read, _ = await self._step(workers, batch_size, fail_fast=True)
                if read:
                    done += read
                    if progress is not None:
                        progress(done, max(head, done))
                    continue
                if await self.events.feed_behind(min(w.cursor for w in workers), newest):
                    # An event the log held when the rebuild began is above the horizon still
                    # (a longer transaction holds it back): a rebuild covers all of them.
                    await asyncio.sleep(0.05)
                    continue
                if await self._switch_all(workers):
                    break
        return RebuildReport(
            names=tuple(chosen),
            generations={w.model.name: w.generation for w in workers},
            events=done,
            seconds=time.perf_counter() - started,
        )

    async def _begin_build(self, model: ReadModel, leadership: Leadership) -> Worker:
        async with self.pool.acquire() as conn, conn.transaction():
            active = await conn.fetchval(
                "SELECT active FROM rm.projections WHERE name = $1 FOR UPDATE", model.name
            )
            generation = active + 1
            name = f"{model.name}@{generation}"
            if not await leadership.lead(leader_of(name)):
                raise RebuildBusy(f"{model.name} is being rebuilt by another process")
            await model.truncate(conn, slot_of(generation))
            await conn.execute("DELETE FROM es.projection_checkpoints WHERE projection = $1", name)
            await conn.execute(
                "INSERT INTO es.projection_checkpoints (projection, status) VALUES ($1, $2)",
                name,
                REBUILDING,
            )
            await conn.execute(
                "UPDATE rm.projections SET building = $2, building_code = $3 WHERE name = $1",
                model.name,
                generation,
                model.code_version,
            )
        return Worker(model, generation, FEED_START, REBUILDING)

    async def _switch_all(self, workers: list[Worker]) -> bool:
        """Make the caught-up generations active; False if events arrived meanwhile."""
        async with self.pool.acquire() as conn:
            cursor = min(w.cursor for w in workers)
            more = await self.events.feed_has_more(cursor, conn)
            if more:
                return False
            old: dict[str, int] = {}
            async with conn.transaction():
                for w in workers:
                    row = await conn.fetchrow(
                        "SELECT active, building FROM rm.projections WHERE name = $1 FOR UPDATE",
                        w.model.name,
                    )
                    if row["building"] != w.generation:
                        raise RebuildFailed(f"{w.checkpoint} was superseded by another rebuild")
                    old[w.model.name] = row["active"]
                    await conn.execute(
                        """UPDATE rm.projections
                              SET active = building, active_code = building_code, building = NULL,
                                  building_code = NULL, switched_at = now()
                            WHERE name = $1""",
                        w.model.name,
                    )
                    await conn.execute(
                        "UPDATE es.projection_checkpoints"
                        " SET status = 'running', updated_at = now() WHERE projection = $1",
                        w.checkpoint,
                    )
                    await conn.execute(
                        "DELETE FROM es.projection_checkpoints WHERE projection = $1",
                        f"{w.model.name}@{row['active']}",
                    )
                    w.status = RUNNING
            for w in workers:  # the old generation's tables are not read any more
                await w.model.truncate(conn, slot_of(old[w.model.name]))
        return True

    # --- status -------------------------------------------------------------------------------

    async def status(self) -> list[ProjectionStatus]:
        """Each projection's generations with position, lag and status."""
        async with self.pool.acquire() as conn:
            head = (await self.events.feed_head(conn))[0]
            out = []
            for r in await conn.fetch(_STATUS):
                if r["name"] not in self.models:
                    continue
                lag, age = await self.events.feed_lag(FeedCursor(r["tx_id"], r["position"]), conn)
                building = r["projection"] == f"{r['name']}@{r['building']}"
                out.append(
                    ProjectionStatus(
                        name=r["name"],
                        checkpoint=r["projection"],
                        generation=r["building"] if building else r["active"],
                        role="building" if building else "active",
                        status=r["status"],
                        position=r["position"],
                        head=head,
                        lag=lag,
                        lag_seconds=round(age, 3),
                        code_version=r["building_code"] if building else r["active_code"],
                        current_code_version=self.models[r["name"]].code_version,
                        last_error=r["last_error"],
                        updated_at=r["updated_at"],
                    )
                )
        return out
