"""Snapshots of game states in the database: a cache that never outranks the log. A cold load
starts from one and equals the fold from zero; a snapshot of another fold version, one that
does not decode, names an event the log does not hold, or a version past the log's head, is
ignored and written again; the request path's role may save them only through the function."""

from __future__ import annotations

import random
import uuid

import asyncpg
import pytest
from prometheus_client import REGISTRY

from domain import game as g
from domain.rules import rules_for
from domain.simulation import play_random_pulka
from service.eventlog.handler import CommandContext, CommandHandler, Decider
from service.eventlog.log import game_log
from service.eventlog.snapshots import Snapshots, game_snapshots
from service.eventlog.store import IdempotencyKey

pytestmark = pytest.mark.integration

DOMAIN = Decider(initial_state=lambda: g.INITIAL_STATE, decide=g.decide, evolve=g.evolve)
STREAM = "game-0190aaaa-0000-7000-8000-000000000001"


def handler(  # type: ignore[type-arg]
    pool: asyncpg.Pool, writer: asyncpg.Pool | None = None, every: int = 50
) -> tuple[CommandHandler, Snapshots]:
    """A handler on ``pool`` whose snapshots are written on ``writer`` (the projections' role):
    none written without one."""
    snapshots = game_snapshots(pool, every=every, writer=writer)
    return CommandHandler(game_log(pool, announce=False), DOMAIN, snapshots=snapshots), snapshots


async def a_game(pool: asyncpg.Pool, events: int = 260) -> list[g.Event]:
    """A game of about ``events`` events in the log, appended in its commands' batches."""
    rules = rules_for("sochi", {"players": 3, "pool": {"target": 10}})
    _, appends = play_random_pulka(rules, random.Random(3))
    writer, _ = handler(pool)
    written: list[g.Event] = []
    for batch in appends:
        if len(written) >= events:
            break
        await writer.append_events(STREAM, batch)
        written += batch
    return written


def reads_from(handler_: CommandHandler) -> list[int]:  # type: ignore[type-arg]
    """Record the first version of every stream read the handler's store makes."""
    seen: list[int] = []
    read = handler_.store.read_stream

    async def recording(stream_id, from_version=0, **kw):  # type: ignore[no-untyped-def]
        seen.append(from_version)
        return await read(stream_id, from_version, **kw)

    handler_.store.read_stream = recording  # type: ignore[method-assign]
    return seen


async def stored(pool: asyncpg.Pool) -> asyncpg.Record | None:
    return await pool.fetchrow("SELECT * FROM es.snapshots WHERE stream_id = $1", STREAM)


async def test_a_cold_load_starts_from_the_snapshot_and_equals_the_fold_from_zero(
    app_pool, projections_pool
):
    events = await a_game(app_pool)
    first, snapshots = handler(app_pool, projections_pool)
    version, state = await first.load(STREAM)
    assert (version, state) == (len(events), g.fold(events))
    assert await snapshots.flush() == 1  # a whole-stream fold offers one
    row = await stored(app_pool)
    assert row is not None and row["version"] == len(events)

    second, _ = handler(app_pool, projections_pool)
    reads = reads_from(second)
    assert await second.load(STREAM) == (len(events), g.fold(events))
    assert reads == [len(events)]  # only the snapshot's own event, checked against the log


async def test_commands_offer_a_snapshot_every_so_many_events_after_they_commit(
    app_pool, projections_pool
):
    rules = rules_for("sochi", {"players": 3, "pool": {"target": 10}})
    writer, snapshots = handler(app_pool, projections_pool, every=20)
    await writer.handle(STREAM, g.CreateGame(rules=rules, first_dealer=0))
    for seat in range(3):
        await writer.handle(STREAM, g.TakeSeat(seat=seat, player=f"p{seat}"))
    rng = random.Random(5)
    version = 4
    while version < 45:
        _, state = await writer.load(STREAM)
        if g.needs_cards(state):
            from domain.simulation import random_deal

            command: g.Command = random_deal(rng, 3, state.next_dealer)
        else:
            command = g.legal_actions(state, g.to_act(state)[0])[0]
        version = (await writer.handle(STREAM, command)).version
    await snapshots.flush()
    row = await stored(app_pool)
    assert row is not None and row["version"] >= 40
    cold, _ = handler(app_pool, projections_pool, every=20)
    _, state = await writer.load(STREAM)
    assert await cold.load(STREAM) == (version, state)


@pytest.mark.parametrize(
    "spoil",
    [
        "UPDATE es.snapshots SET state = '\\x00deadbeef'",
        "UPDATE es.snapshots SET fold_version = '0.an-older-fold'",
        "UPDATE es.snapshots SET event_id = gen_random_uuid()",
        "UPDATE es.snapshots SET version = version + 1000",
        "UPDATE es.snapshots SET version = version - 1",
    ],
    ids=["undecodable", "another-fold-version", "not-the-logs-event", "past-the-head", "stale"],
)
async def test_a_spoilt_snapshot_is_ignored_and_written_again(
    app_pool, pool, spoil, projections_pool
):
    events = await a_game(app_pool)
    first, snapshots = handler(app_pool, projections_pool)
    await first.load(STREAM)
    await snapshots.flush()
    await pool.execute(spoil)  # as the owner: the request path's role cannot write the table

    cold, snapshots = handler(app_pool, projections_pool)
    assert await cold.load(STREAM) == (len(events), g.fold(events))
    await snapshots.flush()
    row = await stored(app_pool)
    assert row is not None and row["version"] == len(events)
    again, _ = handler(app_pool, projections_pool)
    reads = reads_from(again)
    assert await again.load(STREAM) == (len(events), g.fold(events))
    assert reads == [len(events)]


async def test_only_the_projections_role_saves_snapshots_and_only_of_events_the_log_holds(
    app_pool, projections_pool
):
    events = await a_game(app_pool, events=30)
    save = (
        "SELECT es.save_snapshots(ARRAY[$1], 'x', ARRAY[$2::bigint], ARRAY[$3::uuid],"
        " ARRAY['\\x00'::bytea])"
    )
    head = await app_pool.fetchval(
        "SELECT event_id FROM es.events WHERE stream_id = $1 AND version = $2", STREAM, len(events)
    )
    # The request path's role writes no snapshot at all (a forged state of a real event was
    # accepted before 0017), by the function or by hand.
    with pytest.raises(asyncpg.InsufficientPrivilegeError):
        await app_pool.fetchval(save, STREAM, len(events), head)
    with pytest.raises(asyncpg.InsufficientPrivilegeError):
        await app_pool.execute(
            "INSERT INTO es.snapshots (stream_id, fold_version, version, event_id, state)"
            " VALUES ($1, 'x', 1, gen_random_uuid(), '\\x00')", STREAM)  # fmt: skip
    for statement in ("DELETE FROM es.snapshots", "TRUNCATE es.snapshots",
                      "UPDATE es.snapshots SET version = 1"):  # fmt: skip
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await app_pool.execute(statement)
    # The writer's role saves only a snapshot of an event the log holds there.
    with pytest.raises(asyncpg.InsufficientPrivilegeError):
        await projections_pool.execute("UPDATE es.snapshots SET version = 1")
    assert await projections_pool.fetchval(save, STREAM, len(events), uuid.uuid4()) == 0
    assert await stored(app_pool) is None
    assert await projections_pool.fetchval(save, STREAM, len(events), head) == 1


async def test_an_offered_state_that_is_not_the_logs_fold_is_discarded_and_counted(
    app_pool, projections_pool
):
    events = await a_game(app_pool, events=60)
    _, snapshots = handler(app_pool, projections_pool)
    head = await app_pool.fetchval(
        "SELECT event_id FROM es.events WHERE stream_id = $1 AND version = $2", STREAM, len(events)
    )
    before = REGISTRY.get_sample_value("preferans_snapshot_mismatches_total") or 0.0
    forged = g.fold(events[:-1])  # a state one event short of the one it claims
    snapshots.offer(STREAM, len(events), head, forged)
    assert await snapshots.flush() == 0
    assert await stored(app_pool) is None
    assert snapshots.mismatched == 1
    assert REGISTRY.get_sample_value("preferans_snapshot_mismatches_total") == before + 1
    snapshots.offer(STREAM, len(events), head, g.fold(events))  # the log's own fold: written
    assert await snapshots.flush() == 1
    # A process without the writer's role offers nothing and writes nothing.
    _, reader = handler(app_pool)
    reader.offer(STREAM, len(events), head, g.fold(events))
    assert await reader.flush() == 0


async def test_a_replay_is_recalled_from_the_snapshot_below_its_command(
    app_pool, pool, projections_pool
):
    rules = rules_for("sochi", {"players": 3, "pool": {"target": 10}})
    _, appends = play_random_pulka(rules, random.Random(3))
    writer, _ = handler(app_pool)
    written: list[g.Event] = []
    for batch in appends[:40]:
        await writer.append_events(STREAM, batch)
        written += batch
    cold, snapshots = handler(app_pool, projections_pool, every=10)
    await cold.load(STREAM)
    assert await snapshots.flush() == 1  # a snapshot at the head: below the next command
    key = CommandContext(idempotency=IdempotencyKey("p", "k", b"h"), at=5)
    batch = appends[40]
    first = await cold.append_events(STREAM, batch, len(written), context=key)
    again = await cold.append_events(STREAM, batch, len(written), context=key)
    reads = reads_from(cold)
    recalled = await cold.recall(again)
    assert reads == [len(written)]  # from the snapshot's own event on, not from the start
    assert recalled.appended == first.appended and recalled.decision == first.decision
    assert (recalled.before, recalled.state) == (g.fold(written), g.fold(written + batch))
    # A snapshot the log does not hold is not trusted: the fold starts from the first event.
    await pool.execute("UPDATE es.snapshots SET event_id = gen_random_uuid()")
    reads.clear()
    assert (await cold.recall(again)).state == recalled.state
    assert reads == [len(written), 1]


async def test_a_background_writer_takes_snapshots_from_the_log_on_the_hints(
    app_pool, projections_pool
):
    events = await a_game(app_pool, events=130)
    head = len(events)
    taker = game_snapshots(projections_pool, every=50, writer=projections_pool, from_log=True)
    taker.hint("", 0)  # "hints were lost" asks for nothing
    taker.hint(STREAM, 49)  # below the first multiple: nothing due
    assert await taker.flush() == 0
    taker.hint(STREAM, head)  # past 100: the snapshot at 100, folded from the log
    taker.hint(STREAM, 60)  # an older hint asks for nothing newer
    assert await taker.flush() == 1
    row = await app_pool.fetchrow("SELECT version, event_id FROM es.snapshots")
    assert row["version"] == 100
    assert row["event_id"] == await app_pool.fetchval(
        "SELECT event_id FROM es.events WHERE stream_id = $1 AND version = 100", STREAM
    )
    snapshot = await taker.read(STREAM)
    assert snapshot is not None and snapshot.state == g.fold(events[:100])
    taker.hint(STREAM, head)  # already taken: nothing folded again
    assert await taker.flush() == 0
    # Another writer (a restarted process) finds it stored and folds nothing.
    again = game_snapshots(projections_pool, every=50, writer=projections_pool, from_log=True)
    again.hint(STREAM, head)
    assert await again.flush() == 0
    # A hint past the log's head (a stream not yet visible) stores nothing.
    again.hint(STREAM, 1000)
    assert await again.flush() == 0
    # The request path's process takes nothing: it has no writer.
    reader = game_snapshots(app_pool, every=50, writer=None, from_log=True)
    reader.hint(STREAM, 150)
    assert await reader.flush() == 0
