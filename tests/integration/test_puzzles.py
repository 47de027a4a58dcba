"""Puzzles on a real PostgreSQL: mined from finished games only, never served from an open
duplicate event, rated once per player and puzzle, the next one near the player's rating."""

from __future__ import annotations

import asyncio
import uuid

import asyncpg
import msgspec
import pytest
from bot_games import append_games

from migrations import APP_ROLE, BOTS_ROLE, PROJECTIONS_ROLE, PURGER_ROLE
from projections.puzzle_rating import MU, PuzzleRating, rate_attempt
from projections.puzzles import Puzzle, mine_game
from service.eventlog.log import game_log
from service.exceptions import PuzzleNotFound, PuzzleRefused
from service.platform.database import with_user
from service.read_models.miner import Miner, puzzle_id
from service.read_models.puzzles import Puzzles, check_ratings
from service.read_models.runner import Projections

pytestmark = [pytest.mark.integration]

PLAYERS = [str(uuid.uuid4()) for _ in range(3)]
SOLVER, OTHER = str(uuid.uuid4()), str(uuid.uuid4())


async def mined(app_pool: asyncpg.Pool, projections_pool: asyncpg.Pool, seeds: list[int],
                unfinished: int = 0):  # fmt: skip
    games, log = await append_games(game_log(app_pool).store, PLAYERS, seeds, unfinished=unfinished)
    await Projections(game_log(projections_pool)).catch_up(until=log.cursor)
    await Miner(game_log(projections_pool)).drain()
    return games


async def test_the_miner_mines_every_finished_game_once_and_no_game_in_play(
    app_pool: asyncpg.Pool, projections_pool: asyncpg.Pool, pool: asyncpg.Pool
) -> None:
    games = await mined(app_pool, projections_pool, [31, 32, 33], unfinished=1)
    finished, live = games[:2], games[2]
    queued = await pool.fetch("SELECT game_id, done, puzzles, mined_ms FROM rm.puzzle_games_a")
    assert {r["game_id"] for r in queued} == {g.game_id for g in finished}
    assert all(r["done"] and r["mined_ms"] is not None for r in queued)
    for game in finished:
        expected = mine_game(game.events)
        rows = await pool.fetch(
            "SELECT puzzle_id, deal_no, step, theme, puzzle::text FROM rm.puzzles_a"
            " WHERE game_id = $1 ORDER BY deal_no, step",
            game.game_id,
        )
        assert [msgspec.json.decode(r[4], type=Puzzle) for r in rows] == list(expected)
        assert [r[0] for r in rows] == [
            puzzle_id(game.game_id, p.position.deal_no, p.position.step) for p in expected
        ]
        assert {r["game_id"]: r["puzzles"] for r in queued}[game.game_id] == len(expected)
    assert not await pool.fetchval(
        "SELECT count(*) FROM rm.puzzles_a WHERE game_id = $1", live.game_id
    )
    # Mined again (a rebuild), the same puzzles under the same ids.
    assert await Miner(game_log(projections_pool)).drain() == 0


async def test_an_open_duplicate_events_puzzles_are_never_served_until_it_ends(
    app_pool: asyncpg.Pool, projections_pool: asyncpg.Pool, pool: asyncpg.Pool
) -> None:
    (game,) = await mined(app_pool, projections_pool, [34])
    ids = [r[0] for r in await pool.fetch(
        "SELECT puzzle_id FROM rm.puzzles_a WHERE game_id = $1", game.game_id)]  # fmt: skip
    assert ids, "the game holds puzzles"
    tournament = uuid.uuid4()
    await pool.execute(
        "INSERT INTO api.tournaments (tournament_id, name, kind, status)"
        " VALUES ($1, 'Cup', 'duplicate', 'running')",
        tournament,
    )
    await pool.execute(
        "INSERT INTO api.tournament_tables (game_id, tournament_id, round_no, table_no, players,"
        " embargoed) VALUES ($1, $2, 1, 1, $3::uuid[], true)",
        uuid.UUID(game.game_id), tournament, PLAYERS,
    )  # fmt: skip
    puzzles = Puzzles(app_pool)
    for pid in ids:
        with pytest.raises(PuzzleNotFound):
            await puzzles.get(pid)
        with pytest.raises(PuzzleNotFound):
            await puzzles.attempt(SOLVER, pid, "AS")
    with pytest.raises(PuzzleNotFound):
        await puzzles.next_for(SOLVER)  # the only game's: none is served
    await pool.execute("UPDATE api.tournament_tables SET embargoed = false")  # the event ended
    shown = await puzzles.next_for(SOLVER)
    assert shown.id in ids
    # Before an attempt a puzzle says nothing of its answer, nor which game it came from.
    raw = msgspec.json.encode(shown).decode()
    assert "answer" not in raw and "played" not in raw and game.game_id not in raw


async def test_an_attempt_is_rated_once_and_reveals_the_answer(
    app_pool: asyncpg.Pool, projections_pool: asyncpg.Pool, pool: asyncpg.Pool
) -> None:
    (game,) = await mined(app_pool, projections_pool, [35])
    puzzles = Puzzles(app_pool)
    first = await puzzles.next_for(SOLVER)
    answer = await pool.fetchval(
        "SELECT puzzle->'solution'->>'answer' FROM rm.puzzles_a WHERE puzzle_id = $1", first.id
    )
    with pytest.raises(PuzzleRefused) as refused:
        illegal = next(c for c in ("7S", "8S", "9S", "TS", "JS", "AH", "7D") if c not in
                       first.position.legal)  # fmt: skip
        await puzzles.attempt(SOLVER, first.id, illegal)
    assert refused.value.code == "puzzle.not_a_choice"

    shown = await puzzles.attempt(SOLVER, first.id, answer)
    assert shown.solved and shown.solution is not None and shown.solution.answer == answer
    assert shown.game_id == uuid.UUID(game.game_id)
    me, it = rate_attempt(PuzzleRating(), PuzzleRating(), True)
    assert (shown.player.before, shown.player.mu) == (MU, pytest.approx(me.mu))
    assert shown.puzzle.mu == pytest.approx(it.mu)
    with pytest.raises(PuzzleRefused) as again:
        await puzzles.attempt(SOLVER, first.id, answer)
    assert again.value.code == "puzzle.attempted"

    # Another player misses it: the puzzle gains, he loses.
    wrong = next(c for c in first.position.legal if c != answer)
    missed = await puzzles.attempt(OTHER, first.id, wrong)
    assert not missed.solved and missed.player.mu < MU and missed.puzzle.mu > it.mu
    rated = await pool.fetchrow(
        "SELECT attempts, solved FROM api.puzzle_ratings WHERE puzzle_id = $1", first.id
    )
    assert tuple(rated) == (2, 1)

    history = await puzzles.history(SOLVER)
    assert [a.puzzle_id for a in history.items] == [first.id]
    assert history.rating.mu == pytest.approx(me.mu) and history.rating.attempts == 1
    # The next puzzle is another, one he has not tried.
    nxt = await puzzles.next_for(SOLVER)
    assert nxt.id != first.id


async def test_two_attempts_at_once_by_one_player_rate_the_puzzle_once(
    app_pool: asyncpg.Pool, projections_pool: asyncpg.Pool, pool: asyncpg.Pool
) -> None:
    await mined(app_pool, projections_pool, [36])
    puzzles = Puzzles(app_pool)
    shown = await puzzles.next_for(SOLVER)
    card = shown.position.legal[0]
    results = await asyncio.gather(
        *(puzzles.attempt(SOLVER, shown.id, card) for _ in range(6)), return_exceptions=True
    )
    assert sum(not isinstance(r, BaseException) for r in results) == 1
    assert all(isinstance(r, PuzzleRefused) for r in results if isinstance(r, BaseException))
    assert await pool.fetchval("SELECT attempts FROM api.puzzle_ratings") == 1
    assert await pool.fetchval("SELECT attempts FROM api.puzzle_players") == 1


async def test_the_ratings_rebuild_exactly_from_the_attempts_made_at_once(
    app_pool: asyncpg.Pool, projections_pool: asyncpg.Pool, pool: asyncpg.Pool
) -> None:
    """Attempts race on shared players and puzzles; their fold in ``seq`` order gives every
    kept rating to the bit, and a rebuild puts back ratings lost or damaged."""
    await mined(app_pool, projections_pool, [39, 40])
    rows = await pool.fetch("SELECT puzzle_id, puzzle FROM rm.puzzles_a ORDER BY puzzle_id")
    shown = [(r["puzzle_id"], msgspec.convert(r["puzzle"], Puzzle)) for r in rows][:6]
    assert len(shown) >= 3
    solvers = [str(uuid.uuid4()) for _ in range(5)]
    puzzles = Puzzles(app_pool)

    async def attempt(who: str, k: int) -> None:
        pid, puzzle = shown[k % len(shown)]
        card = puzzle.solution.answer if (k + len(who)) % 3 else puzzle.position.legal[-1]
        await puzzles.attempt(who, pid, card)

    await asyncio.gather(*(attempt(who, k) for i, who in enumerate(solvers)
                           for k in range(i, i + len(shown))))  # fmt: skip
    async with pool.acquire() as conn:
        checked = await check_ratings(conn)
    assert (checked.attempts, checked.players, checked.differing) == (
        len(solvers) * len(shown), len(solvers), [],
    )  # fmt: skip
    kept = sorted(map(tuple, await pool.fetch("SELECT * FROM api.puzzle_ratings")))
    await pool.execute("UPDATE api.puzzle_ratings SET mu = 0 WHERE puzzle_id = $1", shown[0][0])
    await pool.execute("DELETE FROM api.puzzle_players WHERE player_id = $1", uuid.UUID(solvers[0]))
    async with pool.acquire() as conn:
        damaged = await check_ratings(conn)
        assert damaged.differing == sorted(
            [f"puzzle {shown[0][0]}", f"player {solvers[0]}"], key=lambda d: d.startswith("puzzle")
        )
        rebuilt = await check_ratings(conn, rebuild=True)
        assert rebuilt.rewritten and (await check_ratings(conn)).differing == []
    assert sorted(map(tuple, await pool.fetch("SELECT * FROM api.puzzle_ratings"))) == kept


async def test_the_next_puzzle_is_the_untried_one_nearest_the_players_rating(
    app_pool: asyncpg.Pool, projections_pool: asyncpg.Pool, pool: asyncpg.Pool
) -> None:
    await mined(app_pool, projections_pool, [37, 38])
    ids = [r[0] for r in await pool.fetch("SELECT puzzle_id FROM rm.puzzles_a ORDER BY puzzle_id")]
    assert len(ids) >= 4
    # Rated puzzles spread around; the player stands at 31.
    for k, pid in enumerate(ids[:4]):
        await pool.execute(
            "INSERT INTO api.puzzle_ratings (puzzle_id, mu, sigma) VALUES ($1, $2, 4)",
            pid, 20.0 + 4 * k,
        )  # fmt: skip
    await pool.execute(
        "INSERT INTO api.puzzle_players (player_id, mu, sigma) VALUES ($1, 31, 3)",
        uuid.UUID(SOLVER),
    )
    assert (await Puzzles(app_pool).next_for(SOLVER)).id == ids[3]  # 32, the nearest to 31
    await pool.execute(
        "INSERT INTO api.puzzle_attempts (player_id, puzzle_id, card, solved, player_before,"
        " player_mu, player_sigma, puzzle_before, puzzle_mu, puzzle_sigma)"
        " VALUES ($1, $2, 'AS', true, 31, 31, 3, 32, 32, 4)",
        uuid.UUID(SOLVER), ids[3],
    )  # fmt: skip
    assert (await Puzzles(app_pool).next_for(SOLVER)).id == ids[2]  # 28: next nearest


STATEMENTS_MAY_NOT = {
    APP_ROLE: [
        "UPDATE api.puzzle_attempts SET solved = true", "DELETE FROM api.puzzle_attempts",
        "DELETE FROM api.puzzle_ratings", "INSERT INTO rm.puzzles_a (puzzle_id, game_id, deal_no,"
        " step, theme, puzzle) VALUES (gen_random_uuid(), 'g', 1, 1, 'defence', '{}')",
        "UPDATE rm.puzzle_games_a SET done = true", "DELETE FROM api.studies",
        "UPDATE api.studies SET owner = gen_random_uuid()",
    ],
    PROJECTIONS_ROLE: [
        "SELECT count(*) FROM api.puzzle_attempts", "SELECT count(*) FROM api.studies",
        "UPDATE api.puzzle_ratings SET mu = 99", "UPDATE api.puzzle_players SET mu = 99",
    ],
    BOTS_ROLE: ["SELECT count(*) FROM api.puzzle_attempts", "SELECT count(*) FROM rm.puzzles_a",
                "SELECT count(*) FROM api.studies"],
    PURGER_ROLE: ["SELECT count(*) FROM api.puzzle_attempts", "SELECT count(*) FROM api.studies"],
}  # fmt: skip
STATEMENTS_MAY = {
    APP_ROLE: [
        "SELECT count(*) FROM rm.puzzles_b", "SELECT count(*) FROM api.puzzle_attempts",
        "INSERT INTO api.studies (study_id, owner, game_id, deal_no, step)"
        " VALUES (gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 1, 1)",
        "UPDATE api.puzzle_ratings SET mu = mu",
    ],
    PROJECTIONS_ROLE: ["TRUNCATE rm.puzzles_a, rm.puzzle_games_b",
                       "UPDATE rm.puzzle_games_a SET done = done"],
}  # fmt: skip


@pytest.mark.parametrize(
    ("role", "statement", "allowed"),
    [(r, s, True) for r, ss in STATEMENTS_MAY.items() for s in ss]
    + [(r, s, False) for r, ss in STATEMENTS_MAY_NOT.items() for s in ss],
)
async def test_each_role_touches_the_puzzles_and_studies_only_as_its_process_needs(
    database_dsn: str, role: str, statement: str, allowed: bool
) -> None:
    conn = await asyncpg.connect(with_user(database_dsn, role))
    try:
        transaction = conn.transaction()
        await transaction.start()
        try:
            if allowed:
                await conn.execute(statement)
            else:
                with pytest.raises(asyncpg.InsufficientPrivilegeError):
                    await conn.execute(statement)
        finally:
            await transaction.rollback()
    finally:
        await conn.close()
