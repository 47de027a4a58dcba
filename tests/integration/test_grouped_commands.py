"""Group commit through PostgreSQL (0014 ``es.commands``): commands sent together commit in one
transaction, each in its own subtransaction, so that a refusal or a conflict rolls back only
itself and every caller gets what its command alone would have given."""

from __future__ import annotations

import asyncio

import asyncpg
import msgspec
import pytest

from service.eventlog.store import (
    NO_STREAM,
    Decision,
    DuplicateEventId,
    EventStore,
    IdempotencyKey,
    NewEvent,
    StreamConflict,
    uuid7,
)

pytestmark = pytest.mark.integration


def _created() -> list[NewEvent]:
    """A game stream's first event, as its kind admits it (0016)."""
    return [
        NewEvent(event_id=uuid7(), event_type="game_created", schema_version=1,
                 data=msgspec.Raw(b"{}"))
    ]  # fmt: skip


def _events(count: int) -> list[NewEvent]:
    return [
        NewEvent(event_id=uuid7(), event_type="ticked", schema_version=1, data=msgspec.Raw(b"{}"))
        for _ in range(count)
    ]


@pytest.fixture
def grouped(app_pool: asyncpg.Pool) -> EventStore:
    return EventStore(app_pool, group_commit=8)


async def test_commands_sent_together_commit_together_and_fail_alone(
    grouped: EventStore, pool: asyncpg.Pool
) -> None:
    await EventStore(pool).append("table-b", _events(1))
    again = _events(1)
    key = IdempotencyKey("alice", "k-1", b"request")
    decided = Decision(version=2, appended=2)
    outcomes = await asyncio.gather(
        grouped.command("table-a", _events(1), NO_STREAM),
        grouped.command("table-b", _events(1), 5),  # stale: refused alone
        grouped.command("table-c", _events(2), NO_STREAM, key=key, decision=decided),
        grouped.command("table-d", again, NO_STREAM),
        grouped.command("table-e", again, NO_STREAM),  # the same event id: refused alone
        return_exceptions=True,
    )
    assert [type(o).__name__ for o in outcomes] == [
        "CommandOutcome", "StreamConflict", "CommandOutcome", "CommandOutcome", "DuplicateEventId",
    ]  # fmt: skip
    conflict = outcomes[1]
    assert isinstance(conflict, StreamConflict) and (conflict.expected, conflict.actual) == (5, 1)
    assert isinstance(outcomes[4], DuplicateEventId)
    rows = await pool.fetch("SELECT stream_id, version, tx_id FROM es.events ORDER BY stream_id")
    assert [(r[0], r[1]) for r in rows] == [
        ("table-a", 1), ("table-b", 1), ("table-c", 1), ("table-c", 2), ("table-d", 1),
    ]  # fmt: skip
    assert len({r[2] for r in rows if r[0] != "table-b"}) == 1  # one transaction
    assert await pool.fetchval("SELECT version FROM es.streams WHERE stream_id = 'table-b'") == 1
    assert await pool.fetchval("SELECT count(*) FROM es.streams WHERE stream_id = 'table-e'") == 0
    replay = await grouped.command("table-c", _events(2), NO_STREAM, key=key, decision=decided)
    assert replay.outcome == "replayed" and replay.stored is not None
    assert replay.stored.decision == decided


async def test_two_commands_to_one_stream_in_a_batch_see_each_other(
    grouped: EventStore, pool: asyncpg.Pool
) -> None:
    first, second, third = await asyncio.gather(
        grouped.command("table-a", _events(1), NO_STREAM),
        grouped.command("table-a", _events(1), 1),  # after the first, in the same transaction
        grouped.command("table-a", _events(1), 1),  # decided on the same version: a conflict
        return_exceptions=True,
    )
    assert not isinstance(first, BaseException) and first.result is not None
    assert not isinstance(second, BaseException) and second.result is not None
    assert (first.result.version, second.result.version) == (1, 2)
    assert isinstance(third, StreamConflict) and third.actual == 2
    rows = await pool.fetch(
        "SELECT version, global_position, tx_id FROM es.events ORDER BY global_position"
    )
    assert [r[0] for r in rows] == [1, 2] and rows[0][2] == rows[1][2]


async def test_a_command_rolled_back_as_a_deadlocks_victim_runs_again_alone(
    app_pool: asyncpg.Pool, pool: asyncpg.Pool
) -> None:
    """Two batches that notify the same two players in opposite orders wait for each other in a
    circle over the notification heads (each batch orders its own notes, not the other's). The
    victim's command is rolled back alone, run again once its batch committed, and both callers
    see their commands appended; every player's numbers stay without gaps."""
    anna, vera = (str(uuid7()) for _ in range(2))
    # Each first note of a player (seq 1) waits a moment holding its head's row lock, so the
    # two batches' first commands both hold their head before either second command asks.
    await pool.execute(
        "CREATE FUNCTION public.hold_first_note() RETURNS trigger LANGUAGE plpgsql"
        " AS $$ BEGIN PERFORM pg_sleep(0.4); RETURN NEW; END $$"
    )
    await pool.execute(
        "CREATE TRIGGER hold_first_note AFTER INSERT ON api.notifications FOR EACH ROW"
        " WHEN (NEW.seq = 1) EXECUTE FUNCTION public.hold_first_note()"
    )

    def notify(player: str) -> tuple[str, dict[str, object]]:
        # A new game of the player's, and his turn in it: since 0016 a note goes only to a
        # player of the written stream's game, with its kind's data.
        game = str(uuid7())
        return f"game-{game}", {
            "op": "insert", "game_id": game, "status": "seating", "preset": "sochi",
            "seats": 3, "players": [player, None, None], "dealing": "random",
            "notes": [{"player": player, "kind": "your_turn", "game_id": game, "order": 0,
                       "data": {"version": 1, "seat": 0, "deadline": None}}],
        }  # fmt: skip

    def batch(first: str, second: str) -> list[tuple[str, dict[str, object]]]:
        return [notify(first), notify(second)]

    one, two = batch(anna, vera), batch(vera, anna)
    grouped = EventStore(app_pool, group_commit=2)
    other = EventStore(app_pool, group_commit=2)  # its own batcher: a batch of its own
    deadlocks = "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()"
    before = await pool.fetchval(deadlocks)
    outcomes = await asyncio.gather(
        *(grouped.command(stream, _created(), NO_STREAM, summary=s) for stream, s in one),
        *(other.command(stream, _created(), NO_STREAM, summary=s) for stream, s in two),
        return_exceptions=True,
    )
    assert [type(o).__name__ for o in outcomes] == ["CommandOutcome"] * 4, outcomes
    assert all(o.outcome == "appended" for o in outcomes if not isinstance(o, BaseException))
    rows = await pool.fetch("SELECT player_id::text, seq FROM api.notifications ORDER BY 1, 2")
    assert sorted((r[0], r[1]) for r in rows) == sorted(
        [(anna, 1), (anna, 2), (vera, 1), (vera, 2)]
    )
    for _ in range(50):  # the statistics collector reports a moment later
        if await pool.fetchval(deadlocks) > before:
            break
        await asyncio.sleep(0.1)
    assert await pool.fetchval(deadlocks) > before, "the two batches never deadlocked"
