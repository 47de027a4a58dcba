"""Open data over HTTP (docs/ppn.md): a game exported as PPN, a player's games in bulk (NDJSON
and PPN, filtered, only the public record, in bounded memory), and the dumps (written by the
worker as its own database role, checksummed, pseudonymised on request, downloaded with
ranges)."""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import sys
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec
import pytest
from apitools import PROBLEM, make_app, register
from litestar.testing import AsyncTestClient
from open_data import finished_export, import_copies

from migrations import APP_ROLE
from projections import ppn
from service.eventlog.log import game_log
from service.games.export import import_game
from service.platform.database import with_user
from service.workers.dumps import Dumper

pytestmark = pytest.mark.integration


def _games_of(body: bytes) -> list[list[bytes]]:
    """An NDJSON bulk export cut into its games (each begins with its header line)."""
    games: list[list[bytes]] = []
    for line in body.splitlines(keepends=True):
        if line.startswith(b'{"format"'):
            games.append([])
        games[-1].append(line)
    return games


async def _tournament_table(pool, game_id: uuid.UUID, players: list[str]) -> None:
    tournament = uuid.uuid4()
    await pool.execute(
        "INSERT INTO api.tournaments (tournament_id, name, kind, status)"
        " VALUES ($1, 'Cup', 'duplicate', 'running')",
        tournament,
    )
    await pool.execute(
        "INSERT INTO api.tournament_tables (game_id, tournament_id, round_no, table_no, players,"
        " embargoed) VALUES ($1, $2, 1, 1, $3::uuid[], true)",
        game_id, tournament, players,
    )  # fmt: skip


async def test_a_players_games_in_bulk_are_the_public_record_filtered(client, pool, app_pool):
    anna, vera, kolya = [await register(client, n) for n in ("Anna", "Vera", "Kolya")]
    ids = [anna.id, vera.id, kolya.id]
    log = game_log(app_pool, announce=False)
    games = []
    for seed in (1, 2, 3, 4, 5):
        imported = await import_game(log, finished_export(seed, ids, target=1))
        games.append(imported.game_id)
    plain, unrated, private, embargoed, leningrad = games
    # A friendly (table.rating_weight 0): dealt at random, and still not rated.
    friendly = finished_export(6, ids, target=1, table={"rating_weight": 0})
    games.append((await import_game(log, friendly)).game_id)
    await pool.execute("UPDATE api.games SET dealing = 'seeded' WHERE game_id = $1", unrated)
    await pool.execute("UPDATE api.games SET private = true WHERE game_id = $1", private)
    await pool.execute("UPDATE api.games SET preset = 'leningrad' WHERE game_id = $1", leningrad)
    await _tournament_table(pool, embargoed, ids)
    created = await client.post("/v1/games", json={"seats": 3, "seat": 0}, headers=anna.auth)
    live = created.json()["id"]
    for seat, p in ((1, vera), (2, kolya)):
        joined = await client.post(f"/v1/games/{live}/seats", json={"seat": seat}, headers=p.auth)
        assert joined.status_code == 200, joined.text

    url = f"/v1/players/{vera.id}/games/export"
    whole = await client.get(url)
    assert whole.status_code == 200, whole.text
    assert whole.headers["content-type"].startswith("application/x-ndjson")
    found = _games_of(whole.content)
    public = sorted([plain, unrated, leningrad, games[-1]])  # not private, embargoed or live
    assert [uuid.UUID(msgspec.json.decode(g[0])["game_id"]) for g in found] == public
    for game_id, lines in zip(public, found, strict=True):  # the single export's very bytes
        single = await client.get(f"/v1/games/{game_id}/export")
        assert b"".join(lines) == single.content

    mine = await client.get(url.replace(vera.id, anna.id), headers=anna.auth)
    theirs = await client.get(url.replace(vera.id, anna.id), headers=vera.auth)
    assert len(_games_of(mine.content)) == 5 and len(_games_of(theirs.content)) == 4

    as_ppn = await client.get(url, params={"format": "ppn"})
    assert as_ppn.headers["content-type"].startswith(ppn.MEDIA_TYPE)
    read = list(ppn.read_all(as_ppn.text.split("\n")))
    assert [uuid.UUID(g.game_id) for g in read] == public
    assert all(g.deals and g.events for g in read)

    async def count(**params: str) -> int:
        response = await client.get(url, params=params)
        assert response.status_code == 200, response.text
        return len(_games_of(response.content))

    assert await count(rated="true") == 2 and await count(rated="false") == 2
    assert await count(convention="leningrad") == 1 and await count(convention="rostov") == 0
    tomorrow = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    assert await count(since=tomorrow) == 0 and await count(until=tomorrow) == 4
    await pool.execute(
        "UPDATE api.games SET created_at = now() - interval '10 days' WHERE game_id = $1", plain
    )
    week_ago = (datetime.now(UTC) - timedelta(days=7)).isoformat()
    assert await count(since=week_ago) == 3 and await count(until=week_ago) == 1

    for params in (
        {"since": tomorrow, "until": week_ago}, {"rated": "maybe"}, {"convention": "No Such!"},
        {"format": "pgn"}, {"since": "yesterday"},
    ):  # fmt: skip
        bad = await client.get(url, params=params)
        assert bad.status_code == 400 and bad.headers["content-type"] == PROBLEM, params
    unknown = await client.get(f"/v1/players/{uuid.uuid4()}/games/export")
    assert unknown.status_code == 404 and unknown.headers["content-type"] == PROBLEM


async def test_a_game_exports_as_ppn_and_imports_back(client, app_pool, other_database_dsn):
    players = [str(uuid.uuid4()) for _ in range(3)]
    imported = await import_game(game_log(app_pool, announce=False), finished_export(7, players))
    text = await client.get(f"/v1/games/{imported.game_id}/export", params={"format": "ppn"})
    assert text.status_code == 200 and text.headers["content-type"].startswith(ppn.MEDIA_TYPE)
    nd = await client.get(f"/v1/games/{imported.game_id}/export")
    parsed = ppn.read(text.text)
    assert parsed.game_id == str(imported.game_id) and len(parsed.events) == imported.version
    from service.games.export import from_ppn

    assert b"".join(from_ppn(text.text)) == nd.content


async def _peak(dsn: str, player: str, through: uuid.UUID, fmt: str) -> tuple[int, int, int]:
    """The games streamed, their bytes, and the peak of memory allocated meanwhile, by a
    process of its own over one connection (`tests/bulk_peak.py` says why)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, str(Path(__file__).parent.parent / "bulk_peak.py"), dsn, player,
        str(through), fmt, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await process.communicate()
    assert process.returncode == 0, err.decode(errors="replace")[-3000:]
    games, total, peak = (int(n) for n in out.split())
    return games, total, peak


@pytest.mark.slow
async def test_a_player_with_hundreds_of_games_streams_in_bounded_memory(
    app, app_pool, database_dsn
):
    players = [str(uuid.uuid4()) for _ in range(3)]
    log = game_log(app_pool, announce=False)
    one = finished_export(25, players, target=1)  # one deal, 58 events
    ids = await import_copies(log, one, 500, concurrency=6)
    player = uuid.UUID(players[0])
    as_app = with_user(database_dsn, APP_ROLE)

    # The peak is a page of games (`bulk.PAGE`, 25), whatever the number streamed: ten times
    # the games, ten times the bytes, the same peak.
    # Measured in a process of its own (`tests/bulk_peak.py`): tracemalloc counts every
    # allocation of its process, and this one's (the app's workers, once it runs) are not the
    # stream's.
    for fmt, few, many in (("ndjson", 50, 500), ("ppn", 50, 500)):
        small = await _peak(as_app, players[0], ids[few - 1], fmt)
        large = await _peak(as_app, players[0], ids[many - 1], fmt)
        assert (small[0], large[0]) == (few, many)
        assert large[1] > 9 * small[1]
        assert large[2] < 1.5 * small[2] and large[2] < 16_000_000, (fmt, small, large)

    # Over HTTP the body arrives as a stream of the same bytes.
    async with (
        AsyncTestClient(app) as client,
        client.stream("GET", f"/v1/players/{player}/games/export") as response,
    ):
        assert response.status_code == 200
        first = b""
        async for part in response.aiter_bytes():
            first += part
            if first.count(b"\n") > len(one):
                break
    assert first.startswith(one[0][:30])


async def test_dumps_are_written_listed_and_downloaded_with_ranges(
    database_dsn, pool, app_pool, projections_pool, tmp_path
):
    players = [str(uuid.uuid4()) for _ in range(3)]
    log = game_log(app_pool, announce=False)
    ids = [
        (await import_game(log, finished_export(s, players, target=1))).game_id
        for s in (21, 22, 23)
    ]
    await pool.execute("UPDATE api.games SET dealing = 'fixed' WHERE game_id = $1", ids[2])
    friendly = finished_export(24, players, target=1, table={"rating_weight": 0})
    await import_game(log, friendly)  # not rated: not dumped
    dumper = Dumper(
        game_log(projections_pool, announce=False), tmp_path, interval=3600, pseudonyms=False,
        page=2,
    )  # fmt: skip
    info = await dumper.dump(datetime(2026, 12, 6, 20, 0, tzinfo=UTC))
    assert (info.games, info.name) == (2, "preferans-20261206T200000Z.ndjson.gz")
    data = (tmp_path / info.name).read_bytes()
    assert hashlib.sha256(data).hexdigest() == info.sha256 and len(data) == info.bytes
    assert (tmp_path / info.checksum_file).read_text() == f"{info.sha256}  {info.name}\n"
    body = gzip.decompress(data)
    dumped = _games_of(body)
    assert [uuid.UUID(msgspec.json.decode(g[0])["game_id"]) for g in dumped] == sorted(ids[:2])
    heads = (tmp_path / info.heads_file).read_text().splitlines()
    assert heads == [
        f"{h['game_id']} {h['head']}" for h in (msgspec.json.decode(g[0]) for g in dumped)
    ]
    assert all(p in body.decode() for p in players)

    secret = Dumper(
        game_log(projections_pool, announce=False), tmp_path, interval=3600, pseudonyms=True
    )
    hidden = await secret.dump(datetime(2026, 12, 6, 21, 0, tzinfo=UTC))
    text = gzip.decompress((tmp_path / hidden.name).read_bytes()).decode()
    assert hidden.pseudonymised and hidden.games == 2
    assert not any(p in text for p in players) and '"name":"Player ' in text
    assert (
        len({msgspec.json.decode(g[0])["players"][0]["id"] for g in _games_of(text.encode())}) == 1
    )

    app = make_app(database_dsn, {"dump_dir": str(tmp_path)})
    async with AsyncTestClient(app) as client:
        listed = (await client.get("/v1/dumps")).json()["items"]
        assert [d["name"] for d in listed] == [hidden.name, info.name]
        assert listed[1]["sha256"] == info.sha256 and listed[1]["games"] == 2
        url = listed[1]["url"]

        full = await client.get(url)
        assert full.status_code == 200 and full.content == data
        assert full.headers["accept-ranges"] == "bytes"
        size = len(data)
        part = await client.get(url, headers={"Range": "bytes=100-"})
        assert part.status_code == 206 and part.content == data[100:]
        assert part.headers["content-range"] == f"bytes 100-{size - 1}/{size}"
        middle = await client.get(url, headers={"Range": "bytes=10-19"})
        assert middle.status_code == 206 and middle.content == data[10:20]
        tail = await client.get(url, headers={"Range": "bytes=-7"})
        assert tail.status_code == 206 and tail.content == data[-7:]
        resumed = await client.get(
            url, headers={"Range": "bytes=5-", "If-Range": full.headers["etag"]}
        )
        assert resumed.status_code == 206 and resumed.content == data[5:]
        stale = await client.get(url, headers={"Range": "bytes=5-", "If-Range": '"other"'})
        assert stale.status_code == 200 and stale.content == data
        beyond = await client.get(url, headers={"Range": f"bytes={size}-"})
        assert beyond.status_code == 416 and beyond.headers["content-type"] == PROBLEM
        assert beyond.headers["content-range"] == f"bytes */{size}"
        assert (await client.get(listed[1]["checksum_url"])).text.startswith(info.sha256)
        for name in ("nothing.ndjson.gz", "..%2Fsecret", "preferans-1.json"):
            missing = await client.get(f"/v1/dumps/{name}")
            assert missing.status_code == 404, name
