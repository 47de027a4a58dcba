"""The API on the open internet: strict input, caching headers, If-Match per RFC 9110, rate
limits, honest failures when the database is slow, away or cut off mid-command."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from urllib.parse import parse_qs, urlsplit, urlunsplit

import asyncpg
import httpx
import pytest
from apitools import PROBLEM, make_app, register, seated_game
from litestar.testing import AsyncTestClient

from service.api.errors import KINDS
from service.app import create_app
from service.games.streams import game_stream
from service.platform.database import with_database
from service.platform.settings import Settings

pytestmark = pytest.mark.integration


def _problem(response: httpx.Response, status: int, slug: str) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    body = response.json()
    assert body["type"] == f"/problems/{slug}"
    return body


# --- strict input --------------------------------------------------------------------------------


async def test_a_body_that_is_not_json_is_415(client: httpx.AsyncClient) -> None:
    for headers in (
        {"content-type": "text/plain"},
        {"content-type": "application/x-www-form-urlencoded"},
    ):
        refused = await client.post("/v1/players", content=b'{"name": "Ann"}', headers=headers)
        _problem(refused, 415, "unsupported-media-type")
    plain = await client.post(
        "/v1/players", content=b'{"name": "Ann"}', headers={"content-type": "application/json"}
    )
    assert plain.status_code == 201


async def test_a_body_of_another_json_type_is_415(client: httpx.AsyncClient) -> None:
    for kind in ("application/json-patch+json", "application/problem+json", "text/json"):
        refused = await client.post(
            "/v1/players", content=b'{"name": "Ann"}', headers={"content-type": kind}
        )
        _problem(refused, 415, "unsupported-media-type")
    charset = await client.post(
        "/v1/players",
        content=b'{"name": "Ann"}',
        headers={"content-type": "application/json; charset=utf-8"},
    )
    assert charset.status_code == 201, charset.text


async def test_an_id_in_the_path_is_only_the_canonical_uuid(client: httpx.AsyncClient) -> None:
    game_id, players = await seated_game(client)
    hexes = game_id.replace("-", "")
    for spelling in (f"{{{game_id}}}", f"urn:uuid:{game_id}", hexes, f"{{{hexes}}}"):
        _problem(await client.get(f"/v1/games/{spelling}"), 404, "not-found")
        refused = await client.post(
            f"/v1/games/{spelling}/actions", json={"type": "pass"}, headers=players[0].auth
        )
        _problem(refused, 404, "not-found")
    _problem(await client.get(f"/v1/players/{{{players[0].id}}}"), 404, "not-found")
    assert (await client.get(f"/v1/games/{game_id}")).status_code == 200
    assert (await client.get(f"/v1/games/{game_id.upper()}")).status_code == 200


async def test_a_query_parameter_given_twice_is_400(client: httpx.AsyncClient) -> None:
    refused = await client.get("/v1/games?limit=1&limit=500")
    body = _problem(refused, 400, "validation")
    assert body["errors"][0]["path"] == "query.limit"
    _problem(await client.get("/v1/games?status=playing&status=finished"), 400, "validation")
    assert (await client.get("/v1/games?limit=1&status=playing")).status_code == 200


async def test_header_fields_beyond_16_kib_are_431(client: httpx.AsyncClient) -> None:
    for headers in ({"x-padding": "a" * 64 * 1024}, {f"x-pad-{i}": "a" * 1024 for i in range(17)}):
        _problem(await client.get("/v1/games", headers=headers), 431, "headers-too-large")
    assert (await client.get("/v1/games", headers={"x-padding": "a" * 8192})).status_code == 200


async def test_json_nested_deeper_than_any_request_is_400_not_a_crash(
    client: httpx.AsyncClient,
) -> None:
    deep = b"[" * 1000 + b"]" * 1000
    for path in ("/v1/players", "/v1/games"):
        refused = await client.post(
            path, content=deep, headers={"content-type": "application/json"}
        )
        assert _problem(refused, 400, "validation")["errors"][0]["path"] == "body"
    strings = b'{"name": "x' + b"[" * 60 + b'"}'  # brackets inside a string do not nest
    named = await client.post(
        "/v1/players", content=strings, headers={"content-type": "application/json"}
    )
    assert named.status_code == 201, named.text


async def test_every_integer_is_bounded_where_it_enters(client: httpx.AsyncClient) -> None:
    alice = await register(client, "Alice")
    huge = await client.post(
        "/v1/games", json={"overrides": {"pool": {"target": 10**30}}}, headers=alice.auth
    )
    assert "<= 1000" in _problem(huge, 400, "validation")["detail"]
    for path, params in (
        ("/v1/ratings", {"cursor": "Ym9hcmQ6OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OQ"}),
        ("/v1/games", {"limit": 10**20}),
        ("/v1/games", {"cursor": "eA"}),
    ):
        _problem(await client.get(path, params=params), 400, "validation")
    game_id, _ = await seated_game(client, seed="bounds")
    _problem(await client.get(f"/v1/games/{game_id}/events", params={"cursor": str(10**30)}), 400,
             "validation")  # fmt: skip


@pytest.mark.parametrize(
    "name",
    ["\u202eanna", "An\u200bna", "Ann\u2066a", "\u0007bell", "   ", "", "x" * 65, "a\u2028b"],
)
async def test_names_that_hide_reverse_or_blank_text_are_refused(
    client: httpx.AsyncClient, name: str
) -> None:
    _problem(await client.post("/v1/players", json={"name": name}), 400, "validation")


async def test_names_are_stored_normalised_and_trimmed(client: httpx.AsyncClient) -> None:
    created = await client.post("/v1/players", json={"name": "  Е\u0308ва Мари́я "})
    assert created.status_code == 201
    assert created.json()["name"] == "Ёва Мари́я"


async def test_an_unknown_query_parameter_is_refused_naming_what_the_route_takes(
    client: httpx.AsyncClient,
) -> None:
    body = _problem(await client.get("/v1/games", params={"limt": 5}), 400, "validation")
    assert "limt" in body["detail"] and "limit" in body["detail"]
    assert body["errors"][0]["path"] == "query.limt"


# --- caching and If-Match ------------------------------------------------------------------------


async def test_per_viewer_bodies_are_private_and_tokens_never_stored(
    client: httpx.AsyncClient,
) -> None:
    created = await client.post("/v1/players", json={"name": "Ann"})
    assert created.headers["cache-control"] == "no-store"
    game_id, players = await seated_game(client, seed="cache")
    for path in (f"/v1/games/{game_id}", f"/v1/games/{game_id}/events", "/v1/players/me"):
        response = await client.get(path, headers=players[0].auth)
        assert response.headers["cache-control"] == "private, no-cache", path
        assert response.headers["vary"] == "Authorization", path
    view = (await client.get(f"/v1/games/{game_id}", headers=players[1].auth)).json()
    acted = await client.post(
        f"/v1/games/{game_id}/actions", json=view["legal_actions"][0], headers=players[1].auth
    )
    assert acted.status_code == 200 and acted.headers["cache-control"] == "no-store"


async def test_if_match_compares_strongly_and_takes_a_list(client: httpx.AsyncClient) -> None:
    game_id, players = await seated_game(client, seed="if-match")
    view = (await client.get(f"/v1/games/{game_id}", headers=players[1].auth)).json()
    version, action = view["version"], view["legal_actions"][0]
    url = f"/v1/games/{game_id}/actions"
    weak = await client.post(
        url, json=action, headers={**players[1].auth, "If-Match": f'W/"{version}"'}
    )
    assert _problem(weak, 412, "version-mismatch")["actual"] == version
    stale_only = await client.post(
        url, json=action, headers={**players[1].auth, "If-Match": '"1", "2"'}
    )
    _problem(stale_only, 412, "version-mismatch")
    listed = await client.post(
        url, json=action, headers={**players[1].auth, "If-Match": f'"1", W/"2", "{version}"'}
    )
    assert listed.status_code == 200, listed.text
    assert listed.json()["version"] > version


async def test_the_sheet_of_a_game_the_projection_has_not_reached_is_folded_from_the_log(
    database_dsn: str,
) -> None:
    async with AsyncTestClient(make_app(database_dsn, projections=False)) as client:
        game_id, _ = await seated_game(client, seed="not reached")
        sheet = await client.get(f"/v1/games/{game_id}/sheet")
        assert sheet.status_code == 200 and sheet.json()["deals"] == []
        drawn = await client.get(f"/v1/games/{game_id}/sheet.svg")
        assert drawn.status_code == 200 and "<svg" in drawn.text


# --- rate limits ---------------------------------------------------------------------------------


async def test_over_the_limit_is_429_with_retry_after_and_ratelimit_fields(
    database_dsn: str,
) -> None:
    settings = Settings(database_url=database_dsn, pool_min_size=1, pool_max_size=5,
                        reads_per_minute=5, writes_per_minute=3)  # fmt: skip
    async with AsyncTestClient(create_app(settings, migrate=False)) as client:
        # Half a minute into a window that does not end during the test (the wall clock's might).
        client.app.state.limiter.clock = lambda: 1_800_000_030.0
        for n in range(3):
            created = await client.post("/v1/players", json={"name": f"p{n}"})
            assert created.status_code == 201
            assert created.headers["ratelimit-policy"] == '"writes";q=3;w=60'
            assert created.headers["ratelimit"] == f'"writes";r={2 - n};t=30'
        refused = await client.post("/v1/players", json={"name": "p3"})
        _problem(refused, 429, "rate-limited")
        assert refused.headers["retry-after"] == "30"
        assert refused.headers["ratelimit"] == '"writes";r=0;t=30'
        # Reads have their own budget; a refused write did not use it.
        for _ in range(5):
            assert (await client.get("/v1/games")).status_code == 200
        _problem(await client.get("/v1/games"), 429, "rate-limited")
        assert (await client.get("/health")).status_code == 200  # readiness is never limited


# --- honest failures -----------------------------------------------------------------------------


async def test_health_answers_within_a_second_when_the_database_is_frozen(
    client: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    assert (await client.get("/health")).status_code == 200
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("LOCK TABLE public.alembic_version IN ACCESS EXCLUSIVE MODE")
        started = time.monotonic()
        frozen = await client.get("/health")
        took = time.monotonic() - started
    body = _problem(frozen, 503, "unavailable")
    assert took < 1.0 and body["dependency"] == "database"
    assert (await client.get("/health")).status_code == 200


async def test_a_database_that_refuses_connections_is_503_and_nothing_changes(
    pg_server_dsn: str, template_database: str
) -> None:
    name = f"preferans_down_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(pg_server_dsn)
    await admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template_database}"')
    try:
        dsn = with_database(pg_server_dsn, name)
        async with AsyncTestClient(make_app(dsn)) as client:
            game_id, players = await seated_game(client, seed="down")
            view = (await client.get(f"/v1/games/{game_id}", headers=players[1].auth)).json()
            await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
            await admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1",
                name,
            )
            await asyncio.sleep(0.2)
            acted = await client.post(
                f"/v1/games/{game_id}/actions", json=view["legal_actions"][0],
                headers={**players[1].auth, "Idempotency-Key": "down-0001"},
            )  # fmt: skip
            body = _problem(acted, 503, "unavailable")
            assert acted.headers["retry-after"] == "2" and body["dependency"] == "database"
            _problem(await client.get("/health"), 503, "unavailable")
            await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
            again = await client.post(
                f"/v1/games/{game_id}/actions", json=view["legal_actions"][0],
                headers={**players[1].auth, "Idempotency-Key": "down-0001"},
            )  # fmt: skip
            assert again.status_code == 200 and again.json()["version"] == view["version"] + 1
    finally:
        await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


class CutProxy:
    """A TCP proxy to PostgreSQL that forwards a client's bytes, and once it has forwarded the
    ones holding ``marker`` closes that connection without passing the answer back: the
    command reached the database, its outcome never reached the service."""

    def __init__(self, dsn: str, marker: bytes) -> None:
        parts = urlsplit(dsn)
        socket_dir = parse_qs(parts.query).get("host", [""])[0]
        port = parts.port or 5432
        # A TCP server, or the embedded one's unix socket.
        self.target = f"{socket_dir}/.s.PGSQL.{port}" if socket_dir else (parts.hostname, port)
        self.marker = marker
        self.cuts = 0
        self.server: asyncio.Server | None = None
        # Its own thread and loop: the test client blocks the test's loop while the app runs.
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    async def start(self) -> int:
        self.thread.start()
        started = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._serve, "127.0.0.1", 0), self.loop
        )
        self.server = started.result(timeout=5)
        return int(self.server.sockets[0].getsockname()[1])

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if isinstance(self.target, str):
            up_reader, up_writer = await asyncio.open_unix_connection(self.target)
        else:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        answers: asyncio.Task[None] | None = None

        async def pump(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            while data := await src.read(65536):
                dst.write(data)
                await dst.drain()

        async def upward() -> None:
            while data := await reader.read(65536):
                if self.marker in data and not self.cuts:
                    assert answers is not None
                    answers.cancel()  # from now on nothing the server says comes back
                    up_writer.write(data)
                    await up_writer.drain()
                    self.cuts += 1
                    await asyncio.sleep(0.3)  # the statement runs; its answer is dropped
                    return
                up_writer.write(data)
                await up_writer.drain()

        answers = asyncio.ensure_future(pump(up_reader, writer))
        requests = asyncio.ensure_future(upward())
        await asyncio.wait([answers, requests], return_when=asyncio.FIRST_COMPLETED)
        for task in (answers, requests):
            task.cancel()
        writer.transport.abort()
        up_writer.transport.abort()

    async def close(self) -> None:
        if self.server is not None:
            self.loop.call_soon_threadsafe(self.server.close)
        self.loop.call_soon_threadsafe(self.loop.stop)


async def test_a_command_cut_off_before_its_outcome_says_so_and_its_key_makes_the_retry_safe(
    database_dsn: str, pool: asyncpg.Pool
) -> None:
    marker = b"cut-off-0001"
    parts = urlsplit(database_dsn)
    proxy = CutProxy(database_dsn, marker)
    port = await proxy.start()
    through = urlunsplit(parts._replace(netloc=f"{parts.username}@127.0.0.1:{port}", query=""))
    try:
        async with AsyncTestClient(make_app(through, projections=False)) as client:
            game_id, players = await seated_game(client, seed="cut off")
            view = (await client.get(f"/v1/games/{game_id}", headers=players[1].auth)).json()
            action, key = view["legal_actions"][0], {"Idempotency-Key": marker.decode()}
            url, auth = f"/v1/games/{game_id}/actions", players[1].auth
            cut = await client.post(url, json=action, headers={**auth, **key})
            assert proxy.cuts == 1
            body = _problem(cut, 503, "commit-unknown")
            assert cut.headers["retry-after"] == "1" and "same Idempotency-Key" in (
                KINDS["commit-unknown"].description
            )
            # Committed or not (the statement reached the server; whether it finished before the
            # socket went is a race), the retry with the same key applies it exactly once.
            retried = await client.post(url, json=action, headers={**auth, **key})
            assert retried.status_code == 200, retried.text
            assert retried.json()["version"] == view["version"] + 1
            again = await client.post(url, json=action, headers={**auth, **key})
            assert again.headers["idempotent-replayed"] == "true"
            assert again.content == retried.content
            stream = game_stream(game_id)
            stored = await pool.fetchval(
                "SELECT version FROM es.streams WHERE stream_id = $1", stream
            )
            assert stored == view["version"] + 1
            assert body["instance"] == url
    finally:
        await proxy.close()
