"""``preferans projections status | rebuild | resume`` and ``preferans games import`` against a
real database."""

from __future__ import annotations

import asyncio
import os
import random
import sys

import pytest
from projection_games import Log, append_interleaved, random_games

from domain import game
from domain.rules import rules_for
from domain.simulation import play_random_pulka
from service.eventlog.log import game_log
from service.eventlog.store import NO_STREAM, EventStore, Metadata, uuid7
from service.games.export import ExportPlayer, export_lines
from service.platform.database import create_pool

pytestmark = pytest.mark.integration


async def preferans(dsn: str, *args: str) -> tuple[int, str, str]:
    env = {**os.environ, "DATABASE_URL": dsn}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "service.cli", *args, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await process.communicate()
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_rebuild_shows_progress_and_a_count_and_status_shows_position_and_lag(
    database_dsn, pool
):
    log = Log()
    games = random_games(2, [f"p{i}" for i in range(4)], seed=30)
    await append_interleaved(EventStore(pool), games, log, random.Random(31))
    events = len(log.order)

    code, out, _ = await preferans(database_dsn, "projections", "status")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:6] == ["PROJECTION", "ROLE", "STATUS", "POSITION", "HEAD", "LAG"]
    rows = {line.split()[0]: line.split() for line in lines[1:]}
    assert set(rows) == {
        "sheet@1",
        "stats@1",
        "ratings@1",
        "analysis@1",
        "puzzles@1",
        "collusion@1",
    }
    assert all(r[2] == "running" and r[3] == "0" and r[5] == str(events) for r in rows.values())

    code, out, err = await preferans(database_dsn, "projections", "rebuild", "--batch-size", "100")
    assert code == 0, err
    assert f"{events:,}/{events:,} events" in err  # the progress bar's last state
    assert out.startswith(
        "rebuilt sheet@2, stats@2, ratings@2, analysis@2, puzzles@2, collusion@2"
        " from position zero: "
    )
    assert f"{events:,} events in" in out

    code, out, _ = await preferans(database_dsn, "projections", "status")
    rows = {line.split()[0]: line.split() for line in out.splitlines()[1:]}
    assert set(rows) == {
        "sheet@2",
        "stats@2",
        "ratings@2",
        "analysis@2",
        "puzzles@2",
        "collusion@2",
    }
    assert all(r[5] == "0" for r in rows.values())

    code, out, _ = await preferans(database_dsn, "projections", "resume", "sheet")
    assert (code, out.strip()) == (0, "sheet: was not failed")
    code, _, err = await preferans(database_dsn, "projections", "rebuild", "nope")
    assert code == 1 and "no projection 'nope'" in err


async def test_games_import_reads_an_export_into_another_server_as_the_same_game(
    database_dsn, other_database_dsn, pool, tmp_path
):
    events = game_log(pool, announce=False)
    rules = rules_for("rostov", {"pool": {"target": 4}})
    seated = [str(uuid7()) for _ in range(3)]
    state, appends = play_random_pulka(rules, random.Random(7), seated)
    played = [e for batch in appends for e in batch]
    new = events.new_events(played, [uuid7() for _ in played], Metadata())
    game_id = uuid7()
    await events.store.append(f"game-{game_id}", new, NO_STREAM)
    export = tmp_path / "game.ndjson"
    records = await events.store.read_stream(f"game-{game_id}")
    named = [ExportPlayer(id=p, name=n) for p, n in zip(seated, ("Ann", "Bo", "Cy"), strict=True)]
    export.write_bytes(b"".join(export_lines(game_id, records, named)))

    code, out, err = await preferans(other_database_dsn, "games", "import", str(export))
    assert code == 0, err
    assert out.strip() == (f"imported game {game_id}: {len(played)} events, 3 guest players added")
    other = await create_pool(other_database_dsn, min_size=1, max_size=2)
    try:
        there = game_log(other, announce=False)
        assert game.fold([item.event for item in await there.read(f"game-{game_id}")]) == state
    finally:
        await other.close()

    code, _, err = await preferans(other_database_dsn, "games", "import", str(export))
    assert code == 1 and f"game {game_id} is already here" in err
    export.write_bytes(b'{"version": 2}\n')
    code, _, err = await preferans(database_dsn, "games", "import", str(export))
    assert code == 1 and "line 1" in err


async def test_games_export_writes_ppn_with_analysis_that_imports_elsewhere_as_the_same_game(
    database_dsn, other_database_dsn, pool, tmp_path
):
    from open_data import finished_export

    from projections import ppn
    from service.games.export import import_game

    seated = [str(uuid7()) for _ in range(3)]
    lines = finished_export(5, seated, target=1, names=["Ann", "Bo", "Cy"])
    imported = await import_game(game_log(pool, announce=False), lines)
    game_id = imported.game_id
    target = tmp_path / "game.ppn"
    code, _, err = await preferans(
        database_dsn, "games", "export", str(game_id), "--format", "ppn", "--analysis", "-o",
        str(target),
    )  # fmt: skip
    assert code == 0, err
    text = target.read_text()
    assert ppn.read(text).game_id == str(game_id) and '[Deal "1"]' in text

    code, out, err = await preferans(database_dsn, "games", "export", str(game_id))
    assert code == 0 and out.encode() == b"".join(lines), err  # NDJSON: the export's bytes

    converted = tmp_path / "converted.ndjson"
    code, _, err = await preferans(
        database_dsn, "games", "export", "--from", str(target), "-o", str(converted)
    )
    assert code == 0 and converted.read_bytes() == b"".join(lines), err

    code, out, err = await preferans(other_database_dsn, "games", "import", str(target))
    assert code == 0 and out.startswith(f"imported game {game_id}: {imported.version} events"), err
    code, out, _ = await preferans(database_dsn, "games", "verify", str(target))
    assert code == 0 and "verified" in out

    code, _, err = await preferans(database_dsn, "games", "export", str(uuid7()))
    assert code == 1 and "no game" in err
