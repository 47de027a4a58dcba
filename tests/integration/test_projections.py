"""The projection runner on a real PostgreSQL: exactly once, rebuilds, poison events, lag."""

from __future__ import annotations

import asyncio
import random
import uuid
from typing import Any

import asyncpg
import msgspec
import pytest
from projection_games import (
    CODEC,
    Game,
    Log,
    analysis_of,
    append_interleaved,
    new_events,
    random_games,
)

from domain import game as g
from migrations import APP_ROLE
from projections import analysis, collusion, ratings, sheet, stats
from service.eventlog.log import game_log
from service.eventlog.store import NewEvent, uuid7
from service.exceptions import AlreadyImported, ImportRefused
from service.games.export import ExportPlayer, export_lines, import_game
from service.platform.database import create_pool, with_user
from service.read_models.analyst import Analyst
from service.read_models.runner import (
    Projections,
    RebuildBusy,
    RebuildFailed,
    Worker,
)
from service.read_models.storage import (
    READ_MODELS,
    Decoded,
    SheetReadModel,
    read_sheet,
    slot_of,
)

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("remembered_analyses")]

PLAYERS = [f"player-{i}" for i in range(5)]
SEED = 1
"""Every test plays the games of this seed (a count of them is a prefix of more), so each game's
analysis is solved once a session; what these tests prove is the runner's, whatever the games."""


# --- what the tables hold, and what they should hold ----------------------------------------------


async def tables(pool: asyncpg.Pool, slot: str) -> dict[str, Any]:
    """Every read model's rows in one slot, decoded (timestamps of writing left out), once the
    analyst has analysed the finished games queued there."""
    await Analyst(game_log(pool)).drain([slot])

    async def docs(table: str, model: type) -> dict[str, Any]:
        rows = await pool.fetch(f"SELECT game_id, version, model::text FROM rm.{table}_{slot}")
        return {r[0]: (r[1], msgspec.json.decode(r[2], type=model)) for r in rows}

    sheets = await docs("sheet", sheet.GameSheet)
    deals: dict[str, list[sheet.SheetDeal]] = {}
    for r in await pool.fetch(
        f"SELECT game_id, line::text FROM rm.sheet_deals_{slot} ORDER BY game_id, deal_no"
    ):
        deals.setdefault(r[0], []).append(msgspec.json.decode(r[1], type=sheet.SheetDeal))
    for game_id, (version, model) in sheets.items():
        assert model.deals == (), "a game's row leaves its deals to their own rows"
        sheets[game_id] = (
            version,
            msgspec.structs.replace(model, deals=tuple(deals.pop(game_id, ()))),
        )
    assert not deals, "no deal without its game"
    players = await pool.fetch(f"SELECT player_id, game_id, row::text FROM rm.stats_players_{slot}")
    board = await pool.fetch(f"SELECT player_id, mu, sigma, games, rating FROM rm.ratings_{slot}")
    history = await pool.fetch(
        f"SELECT player_id, game_no, game_id, position, change::text FROM rm.rating_history_{slot}"
    )
    analysed = await pool.fetch(
        f"SELECT game_id, deal_no, analysis::text FROM rm.analysis_deals_{slot}"
    )
    queued = await pool.fetch(f"SELECT game_id, version, done FROM rm.analysis_games_{slot}")
    par = await pool.fetch(
        f"SELECT player_id, game_id, deals, tricks_lost FROM rm.analysis_players_{slot}"
    )
    return {
        "analysis_games": {r[0]: (r[1], r[2]) for r in queued},
        "analysis_deals": {
            (r[0], r[1]): msgspec.json.decode(r[2], type=analysis.DealAnalysis) for r in analysed
        },
        "analysis_players": {(r[0], r[1]): (r[2], r[3]) for r in par},
        "sheet": sheets,
        "stats_games": await docs("stats_games", stats.GameStats),
        "stats_players": {
            (r[0], r[1]): msgspec.json.decode(r[2], type=stats.PlayerGame) for r in players
        },
        "rating_games": await docs("rating_games", ratings.RatedGame),
        "collusion_games": await docs("collusion_games", collusion.CollusionGame),
        "ratings": {r[0]: tuple(r[1:]) for r in board},
        "history": {
            (r[0], r[1]): (r[2], r[3], msgspec.json.decode(r[4], type=ratings.RatingChange))
            for r in history
        },
    }


def fold(apply: Any, model: Any, events: list[g.Event]) -> Any:
    for event in events:
        model = apply(model, event)
    return model


def assert_matches_pure_folds(rows: dict[str, Any], games: list[Game], log: Log) -> None:
    """The tables equal the pure projections folded over exactly what was appended."""
    written = {gm.game_id for gm in games if gm.done}
    assert set(rows["sheet"]) == written
    for gm in games:
        if not gm.done:
            continue
        events = log.of(gm.game_id)
        version, model = rows["sheet"][gm.game_id]
        assert model == fold(sheet.apply, sheet.EMPTY, events)
        assert rows["stats_games"][gm.game_id][1] == fold(stats.apply, stats.EMPTY, events)
        assert rows["rating_games"][gm.game_id][1] == fold(
            ratings.apply_game, ratings.RatedGame(), events
        )
        assert rows["collusion_games"][gm.game_id][1] == fold(
            collusion.apply, collusion.EMPTY, events
        )
        assert version <= len(events)
    expected_rows = {
        (player, game_id): row
        for game_id, (_, model) in rows["stats_games"].items()
        for player, row in stats.player_rows(game_id, model)
    }
    assert rows["stats_players"] == expected_rows
    board = ratings.Board()
    for game_id, event in log.order:
        board = ratings.apply(board, game_id, event)
    assert set(rows["ratings"]) == set(board.ratings)
    for player, rating in board.ratings.items():
        mu, sigma, played, shown = rows["ratings"][player]
        assert (mu, sigma, played) == pytest.approx((rating.mu, rating.sigma, rating.games))
        assert shown == pytest.approx(rating.ordinal)
    # The analysis: every game that ended, analysed whole.
    finished = [gm for gm in games if gm.done and g.is_terminal(g.fold(log.of(gm.game_id)))]
    whole = {gm.game_id: analysis_of(log.of(gm.game_id)) for gm in finished}
    assert set(rows["analysis_games"]) == set(whole)
    assert all(done for _, done in rows["analysis_games"].values())
    assert rows["analysis_deals"] == {
        (game_id, d.deal_no): d.analysis for game_id, a in whole.items() for d in a.deals
    }
    assert rows["analysis_players"] == {
        (p.player, game_id): (p.deals, p.tricks_lost)
        for game_id, a in whole.items()
        for p in a.players
    }
    assert {k: v[2] for k, v in rows["history"].items()} == {
        (player, change.game_no): change
        for player, changes in board.history.items()
        for change in changes
    }


async def active_slot(pool: asyncpg.Pool, name: str) -> str:
    return slot_of(await pool.fetchval("SELECT active FROM rm.projections WHERE name = $1", name))


# --- following the feed ---------------------------------------------------------------------------


async def test_live_read_models_equal_the_pure_folds_and_a_full_rebuild(app_pool, projections_pool):
    events = game_log(app_pool, announce=False)
    store = events.store
    games = random_games(8, PLAYERS, seed=SEED, unfinished=2)
    log = Log()
    rng = random.Random(2)
    runner = Projections(
        events.on(projections_pool), batch_size=37
    )  # small batches: many batch edges
    # Catch up while the games are still being appended, several times.
    while await append_interleaved(store, games, log, rng, limit=90):
        await runner.catch_up()  # as far as the feed's horizon allows now
    await runner.catch_up(until=log.cursor)
    live = await tables(projections_pool, "a")
    assert_matches_pure_folds(live, games, log)
    assert any(isinstance(gm.state, g.PulkaClosed) for gm in games)
    assert live["ratings"], "finished games were rated"

    progress: list[tuple[int, int]] = []
    report = await runner.rebuild(progress=lambda done, total: progress.append((done, total)))
    total = len(log.order)
    assert report.events == total and progress[-1] == (total, total)
    assert report.generations == {
        "sheet": 2, "stats": 2, "ratings": 2, "analysis": 2, "puzzles": 2, "collusion": 2,
    }  # fmt: skip
    for name in report.generations:
        assert await active_slot(app_pool, name) == "b"
    assert await tables(projections_pool, "b") == live
    # The old generation is gone: its checkpoint deleted, its tables emptied.
    names = {r[0] for r in await app_pool.fetch("SELECT projection FROM es.projection_checkpoints")}
    assert names == {
        "sheet@2", "stats@2", "ratings@2", "analysis@2", "puzzles@2", "collusion@2",
    }  # fmt: skip
    assert not (await tables(projections_pool, "a"))["sheet"]
    # And the new generation keeps following the feed.
    more = random_games(10, PLAYERS, seed=SEED)[8:]  # two new games
    await append_interleaved(store, more, log, rng)
    await runner.catch_up(until=log.cursor)
    assert_matches_pure_folds(await tables(projections_pool, "b"), games + more, log)


class Crash(BaseException):  # a dying process, not an error the runner handles
    pass


async def test_a_crash_between_the_writes_and_the_checkpoint_applies_every_event_exactly_once(
    app_pool,
    projections_pool,
):
    events = game_log(app_pool, announce=False)
    store = events.store
    games = random_games(5, PLAYERS, seed=SEED)
    log = Log()
    await append_interleaved(store, games, log, random.Random(5))
    commits = {"n": 0}

    async def crash_sometimes(worker: Worker, items: list[Decoded]) -> None:
        commits["n"] += 1
        if commits["n"] % 4 == 0:  # after the read-model writes, before the checkpoint moves
            raise Crash(f"killed while committing {worker.checkpoint}")

    crashes = 0
    flaky = Projections(events.on(projections_pool), batch_size=50, fault=crash_sometimes)
    while True:
        try:
            await flaky.catch_up(until=log.cursor)
            break
        except Crash:
            crashes += 1  # restart from the checkpoints, as a new process would
            flaky = Projections(events.on(projections_pool), batch_size=50, fault=crash_sometimes)
    assert crashes >= 3
    assert_matches_pure_folds(await tables(projections_pool, "a"), games, log)
    status = {s.name: s for s in await flaky.status()}
    assert all(s.lag == 0 and s.status == "running" for s in status.values())


async def test_a_runner_cancelled_at_any_moment_resumes_and_applies_everything_once(
    app_pool, projections_pool
):
    events = game_log(app_pool, announce=False)
    store = events.store
    games = random_games(5, PLAYERS, seed=SEED)
    log = Log()
    rng = random.Random(7)
    for _ in range(12):
        await append_interleaved(store, games, log, rng, limit=40)
        runner = Projections(events.on(projections_pool), batch_size=25, idle_interval=0.01)
        task = asyncio.create_task(runner.run())
        await asyncio.sleep(rng.uniform(0.0, 0.05))
        task.cancel()  # kill it wherever it is: mid-batch, mid-transaction, idle
        with pytest.raises(asyncio.CancelledError):
            await task
    await append_interleaved(store, games, log, rng)
    await Projections(events.on(projections_pool)).catch_up(until=log.cursor)
    assert_matches_pure_folds(await tables(projections_pool, "a"), games, log)


async def test_handlers_are_idempotent_per_stream_version(app_pool, projections_pool):
    events = game_log(app_pool, announce=False)
    store = events.store
    games = random_games(2, PLAYERS, seed=SEED)
    log = Log()
    await append_interleaved(store, games, log, random.Random(9))
    records = await store.read_feed(limit=10_000)
    while not records or records[-1].cursor < log.cursor:  # the horizon may hold the tail back
        await asyncio.sleep(0.01)
        records = await store.read_feed(limit=10_000)
    batch = [
        Decoded(r, CODEC.decode(r.event_type, r.schema_version, r.data))  # type: ignore[arg-type]
        for r in records
    ]
    async with projections_pool.acquire() as conn:
        for cls in READ_MODELS:
            model = cls()
            items = [d for d in batch if d.record.event_type in model.handled]
            async with conn.transaction():
                await model.apply(conn, "a", items)
            once = await tables(projections_pool, "a")
            async with conn.transaction():
                await model.apply(conn, "a", items)  # the same events again: nothing changes
                await model.apply(conn, "a", items[: len(items) // 2])
            assert await tables(projections_pool, "a") == once
    assert_matches_pure_folds(await tables(projections_pool, "a"), games, log)


async def test_the_background_runner_follows_new_events_and_catches_up_after_a_restart(
    app_pool, projections_pool
):
    events = game_log(app_pool, announce=False)
    store = events.store
    games = random_games(3, PLAYERS, seed=SEED)
    log = Log()
    rng = random.Random(11)

    async def until_caught_up() -> None:
        for _ in range(1500):  # 30 s: an open transaction elsewhere holds the horizon back
            rows = await Projections(events.on(projections_pool)).status()
            if all(s.lag == 0 for s in rows) and {s.name for s in rows} == {
                m.name for m in READ_MODELS
            }:
                return
            await asyncio.sleep(0.02)
        raise AssertionError("the runner did not catch up")

    runner = Projections(events.on(projections_pool), idle_interval=0.05)
    task = asyncio.create_task(runner.run())
    await append_interleaved(store, games, log, rng, limit=60)
    await until_caught_up()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await append_interleaved(store, games, log, rng)  # while nobody is running
    task = asyncio.create_task(Projections(events.on(projections_pool), idle_interval=0.05).run())
    try:
        await until_caught_up()
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert_matches_pure_folds(await tables(projections_pool, "a"), games, log)


# --- poison events ----------------------------------------------------------------------------


async def test_a_poison_event_stops_only_the_projections_that_need_it_never_skipping_it(
    app_pool, projections_pool
):
    events = game_log(app_pool, announce=False)
    store = events.store
    games = random_games(3, PLAYERS, seed=SEED)
    log = Log()
    rng = random.Random(13)
    await append_interleaved(store, games[:1], log, rng)
    bad_game = games[1]
    bad_game.done = 4  # created and seated: the game exists
    for batch in bad_game.appends[:4]:
        log.order += [(bad_game.game_id, e) for e in batch]
    await store.append(bad_game.stream_id, new_events(bad_game.events[:4]), 0)
    poison = NewEvent(event_id=uuid7(), event_type="deal_scored", schema_version=1,
                      data={"deal_no": "not a number"})  # fmt: skip
    bad = await store.append(bad_game.stream_id, [poison], 4)
    await append_interleaved(store, games[2:], log, rng)  # after the poison

    runner = Projections(events.on(projections_pool), batch_size=1000)
    await runner.catch_up(until=log.cursor)
    status = {s.name: s for s in await runner.status()}
    for name in ("sheet", "stats"):  # both read deal_scored
        assert status[name].status == "failed"
        assert f"deal_scored {bad_game.stream_id}@5" in status[name].last_error
        # Stopped just before it: everything earlier applied, nothing after.
        assert status[name].position < bad.positions[0]
        assert status[name].lag == len(games[2].events) + 1
    assert status["ratings"].status == "running" and status["ratings"].lag == 0
    rows = await tables(projections_pool, "a")
    assert set(rows["sheet"]) == {games[0].game_id, bad_game.game_id}
    assert rows["sheet"][bad_game.game_id][0] == 4
    assert games[2].game_id in rows["rating_games"]
    # Retrying changes nothing while the event is still poison; a rebuild fails fast and the
    # old generation keeps serving.
    assert await runner.resume("sheet")
    await runner.catch_up(until=log.cursor)
    assert {s.name: s.status for s in await runner.status()}["sheet"] == "failed"
    with pytest.raises(RebuildFailed, match="deal_scored"):
        await runner.rebuild(["sheet"])
    assert await active_slot(app_pool, "sheet") == "a"
    assert (await read_sheet(app_pool, games[0].game_id)) is not None


# --- rebuild ------------------------------------------------------------------------------------


async def test_while_a_rebuild_runs_the_old_generation_serves_and_a_second_rebuild_is_refused(
    app_pool,
    projections_pool,
):
    events = game_log(app_pool, announce=False)
    store = events.store
    games = random_games(5, PLAYERS, seed=SEED)
    log = Log()
    await append_interleaved(store, games, log, random.Random(15))
    runner = Projections(events.on(projections_pool))
    await runner.catch_up(until=log.cursor)
    served: list[int | None] = []

    def progress(done: int, total: int) -> None:
        served.append(done)

    first = games[0]

    async def read_during_rebuild() -> None:
        while True:
            found = await read_sheet(app_pool, first.game_id)
            assert found is not None and found[0] == len(first.events)
            await asyncio.sleep(0)

    reader = asyncio.create_task(read_during_rebuild())
    await runner.rebuild(["sheet"], batch_size=20, progress=progress)
    reader.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reader
    assert len(served) > 3, served
    # Another process holding the next generation's lock makes a rebuild refuse.
    async with app_pool.acquire() as other:
        assert await other.fetchval("SELECT pg_try_advisory_lock(hashtext('proj:sheet@3'))")
        with pytest.raises(RebuildBusy):
            await runner.rebuild(["sheet"])
        await other.fetchval("SELECT pg_advisory_unlock(hashtext('proj:sheet@3'))")
    assert await active_slot(app_pool, "sheet") == "b"
    report = await runner.rebuild(["sheet"])
    assert report.generations == {"sheet": 3}
    assert await active_slot(app_pool, "sheet") == "a"
    assert_matches_pure_folds(await tables(projections_pool, "a") | {
        k: v for k, v in (await tables(projections_pool, "a")).items() if k != "sheet"
    }, games, log)  # fmt: skip


async def test_a_rebuild_waits_for_every_event_the_log_held_when_it_began(
    app_pool, pool, projections_pool
):
    """A transaction older than the newest events (anywhere on the server: the horizon is the
    server's) keeps them above the feed's horizon; a rebuild does not switch without them."""
    events = game_log(app_pool, announce=False)
    games = random_games(3, PLAYERS, seed=SEED)
    log = Log()
    await append_interleaved(events.store, games[:2], log, random.Random(16))
    async with pool.acquire() as holder:
        transaction = holder.transaction()
        await transaction.start()
        await holder.fetchval("SELECT pg_current_xact_id()")  # holds the horizon from here
        await append_interleaved(events.store, games[2:], log, random.Random(17))
        rebuild = asyncio.create_task(
            Projections(events.on(projections_pool)).rebuild(["sheet"], batch_size=50)
        )
        await asyncio.sleep(0.5)
        assert not rebuild.done(), "the rebuild switched without the newest events"
        await transaction.rollback()
    report = await rebuild
    assert report.events == len(log.order)
    assert (await read_sheet(app_pool, games[2].game_id) or (0,))[0] == len(games[2].events)


class SheetV2(SheetReadModel):
    code_version = SheetReadModel.code_version + 1


async def test_a_projection_whose_code_changed_is_rebuilt_blue_green_when_the_service_starts(
    app_pool,
    projections_pool,
):
    events = game_log(app_pool, announce=False)
    store = events.store
    games = random_games(2, PLAYERS, seed=SEED)
    log = Log()
    await append_interleaved(store, games, log, random.Random(17))
    await Projections(events.on(projections_pool)).catch_up(until=log.cursor)
    models = [SheetV2(), *(cls() for cls in READ_MODELS[1:])]
    task = asyncio.create_task(
        Projections(events.on(projections_pool), models=models, idle_interval=0.05).run()
    )
    try:
        for _ in range(1500):  # 30 s: an open transaction elsewhere holds the horizon back
            row = await app_pool.fetchrow("SELECT * FROM rm.projections WHERE name = 'sheet'")
            if row["active_code"] == SheetV2.code_version:
                break
            await asyncio.sleep(0.02)
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert (row["active"], row["active_code"], row["building"]) == (2, SheetV2.code_version, None)
    rows = await tables(projections_pool, "b")
    assert set(rows["sheet"]) == {gm.game_id for gm in games}


async def test_status_shows_position_and_lag(app_pool, projections_pool):
    events = game_log(app_pool, announce=False)
    store = events.store
    games = random_games(1, PLAYERS, seed=SEED)
    log = Log()
    await append_interleaved(store, games, log, random.Random(19))
    runner = Projections(events.on(projections_pool))
    await runner.ensure()
    before = {s.name: s for s in await runner.status()}
    assert all(s.lag == len(log.order) and s.position == 0 for s in before.values())
    assert all(s.lag_seconds >= 0 and s.role == "active" for s in before.values())
    await runner.catch_up(until=log.cursor)
    after = {s.name: s for s in await runner.status()}
    assert all(s.lag == 0 and s.position == s.head and s.lag_seconds == 0 for s in after.values())


# --- export and import --------------------------------------------------------------------------


async def test_an_export_imports_into_another_server_as_the_same_game_exactly_once(
    app_pool, other_database_dsn
):
    events = game_log(app_pool, announce=False)
    players = [str(uuid7()) for _ in range(5)]
    games = random_games(1, players, seed=20)
    await append_interleaved(events.store, games, Log(), random.Random(21))
    game_id = uuid.UUID(games[0].game_id)
    records = await events.store.read_stream(games[0].stream_id)
    named = [ExportPlayer(id=p, name=f"Имя {i}") for i, p in enumerate(players)]
    lines = list(export_lines(game_id, records, named))
    assert len(lines) == len(records) + 1 and all(line.endswith(b"\n") for line in lines)

    # Where the game already is, a second copy is refused.
    with pytest.raises(AlreadyImported):
        await import_game(events, lines)

    other = await create_pool(with_user(other_database_dsn, APP_ROLE), min_size=1, max_size=4)
    try:
        there = game_log(other, announce=False)
        imported = await import_game(there, lines)
        assert imported.game_id == game_id and imported.version == len(records)
        copy = await there.store.read_stream(imported.stream_id)
        assert [(r.event_id, r.event_type, r.data) for r in copy] == [
            (r.event_id, r.event_type, r.data) for r in records
        ]
        assert g.fold([there.decode(r) for r in copy]) == g.fold(games[0].events)
        row = await other.fetchrow(
            "SELECT status, imported, created_by FROM api.games WHERE game_id = $1", game_id
        )
        assert tuple(row) == ("finished", True, None)
        seated = [p for p in games[0].state.players if p is not None]
        guests = await other.fetch(
            "SELECT player_id::text, name, kind FROM api.players ORDER BY name"
        )
        names = {p: f"Имя {players.index(p)}" for p in seated}
        assert {(r[0], r[1], r[2]) for r in guests} == {(p, names[p], "guest") for p in seated}
        # Again: refused, and nothing changed.
        with pytest.raises(AlreadyImported):
            await import_game(there, lines)
        assert await there.store.stream_version(imported.stream_id) == len(records)
        # Files that are no game's export are refused before anything is written.
        with pytest.raises(ImportRefused, match="line 3"):
            await import_game(there, [lines[0], lines[1], lines[3]])
        with pytest.raises(ImportRefused, match="game_created"):
            await import_game(there, [])
        with pytest.raises(ImportRefused, match="line 1: not an exported event"):
            await import_game(there, [b'{"version": 1}'])
        assert await other.fetchval("SELECT count(*) FROM es.streams") == 1
    finally:
        await other.close()


async def test_the_analyst_leaves_a_leased_game_alone_and_takes_it_over_once_the_lease_expires(
    app_pool,
    projections_pool,
):
    events = game_log(app_pool, announce=False)
    games = random_games(3, PLAYERS, seed=SEED)
    log = Log()
    await append_interleaved(events.store, games, log, random.Random(22))
    await Projections(events.on(projections_pool)).catch_up(until=log.cursor)
    queued = await app_pool.fetch("SELECT game_id FROM rm.analysis_games_a ORDER BY version")
    assert queued, "finished games are queued for analysis"
    # Another process holds a live lease on every game: nothing is analysed here.
    await projections_pool.execute(
        "UPDATE rm.analysis_games_a SET leased_until = now() + interval '1 h'"
    )
    assert await Analyst(game_log(projections_pool)).drain() == 0
    assert await app_pool.fetchval("SELECT count(*) FROM rm.analysis_deals_a") == 0
    # That process died: its leases expire, and each game is analysed once.
    await projections_pool.execute(
        "UPDATE rm.analysis_games_a SET leased_until = now() - interval '1 s'"
    )
    assert await Analyst(game_log(projections_pool)).drain() == len(queued)
    assert await Analyst(game_log(projections_pool)).drain() == 0
    assert await app_pool.fetchval("SELECT bool_and(done) FROM rm.analysis_games_a")
    assert_matches_pure_folds(await tables(projections_pool, "a"), games, log)
