"""What an operator watches: ``/metrics`` moves with the commands played, the request id is
echoed and becomes the events' correlation id, a request is traced down to its append, and
CORS is off unless origins are named."""

from __future__ import annotations

import asyncio
import json
import logging

import asyncpg
import httpx
import pytest
from apitools import make_app, seated_game
from litestar.testing import AsyncTestClient
from prometheus_client.parser import text_string_to_metric_families

from service.platform.settings import Settings
from service.platform.telemetry import JsonFormatter, request_id

pytestmark = pytest.mark.integration


async def scrape(client: httpx.AsyncClient) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    response = await client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def commands(samples, outcome: str) -> float:
    return sum(
        v for (name, labels), v in samples.items()
        if name == "preferans_commands_total" and ("outcome", outcome) in labels
    )  # fmt: skip


async def to_act(client, game_id, players):
    """The seat whose turn it is and one of its legal actions."""
    for seat, player in enumerate(players):
        view = (await client.get(f"/v1/games/{game_id}", headers=player.auth)).json()
        if view["legal_actions"]:
            return seat, view["legal_actions"][0]
    raise AssertionError("nobody to act")


async def test_the_command_counters_move_with_accepted_refused_and_replayed_commands(client):
    game_id, players = await seated_game(client)
    before = await scrape(client)
    seat, action = await to_act(client, game_id, players)

    key = {"Idempotency-Key": "observability-1"}
    accepted = await client.post(
        f"/v1/games/{game_id}/actions", json=action, headers={**players[seat].auth, **key}
    )
    assert accepted.status_code == 200, accepted.text
    replayed = await client.post(
        f"/v1/games/{game_id}/actions", json=action, headers={**players[seat].auth, **key}
    )
    assert replayed.status_code == 200
    refused = await client.post(  # the seat that just acted: not its turn now
        f"/v1/games/{game_id}/actions", json={"type": "pass"}, headers=players[seat].auth
    )
    assert refused.status_code == 409

    after = await scrape(client)
    assert commands(after, "accepted") >= commands(before, "accepted") + 1
    assert commands(after, "replayed") == commands(before, "replayed") + 1
    assert commands(after, "refused") == commands(before, "refused") + 1
    appends = ("preferans_append_seconds_count", frozenset())
    assert after[appends] > before.get(appends, 0)
    # Requests per route template, never per game id.
    routes = {dict(labels).get("path") for name, labels in after
              if name == "preferans_http_requests_total"}  # fmt: skip
    assert "/v1/games/{game_id}/actions" in routes
    assert not any(game_id in (r or "") for r in routes)
    assert ("preferans_projection_lag_events", frozenset({("projection", "sheet")})) in after
    assert any(name == "preferans_timeouts_pending" for name, _ in after)


async def test_metrics_are_outside_the_rate_limits_and_the_schema(database_dsn):
    limited = Settings(database_url=database_dsn, reads_per_minute=2, bot_worker="inline")
    from service.app import create_app

    async with AsyncTestClient(create_app(limited, migrate=False)) as client:
        for _ in range(5):
            assert (await client.get("/metrics")).status_code == 200
        spec = (await client.get("/schema/openapi.json")).json()
        assert "/metrics" not in spec["paths"]


async def test_a_well_formed_request_id_is_echoed_and_becomes_the_events_correlation_id(
    client, database_dsn
):
    players = []
    for name in ("Anna", "Vera", "Kolya"):
        r = await client.post("/v1/players", json={"name": name})
        players.append(r.json())
    auth = {"Authorization": f"Bearer {players[0]['token']}"}
    created = await client.post(
        "/v1/games", json={"seats": 3, "seat": 0}, headers={**auth, "X-Request-ID": "trace-42.a"}
    )
    assert created.status_code == 201
    assert created.headers["x-request-id"] == "trace-42.a"
    conn = await asyncpg.connect(database_dsn)
    try:
        metadata = await conn.fetchval(
            "SELECT metadata::text FROM es.events WHERE stream_id = $1 ORDER BY version LIMIT 1",
            f"game-{created.json()['id']}",
        )
    finally:
        await conn.close()
    assert json.loads(metadata)["correlation_id"] == "trace-42.a"


@pytest.mark.parametrize("given", ["has space", "x" * 200, "<script>", ""])
async def test_a_malformed_request_id_is_replaced_by_a_fresh_one(client, given):
    response = await client.get("/health", headers={"X-Request-ID": given})
    echoed = response.headers["x-request-id"]
    assert echoed != given and len(echoed) == 32


async def test_every_response_carries_a_request_id(client):
    first = (await client.get("/health")).headers["x-request-id"]
    second = (await client.get("/v1/games")).headers["x-request-id"]
    assert first != second


def test_json_logs_carry_the_request_id():
    record = logging.makeLogRecord(
        {"name": "preferans.access", "levelno": 20, "levelname": "INFO", "msg": "GET %s",
         "args": ("/x",)}
    )  # fmt: skip
    token = request_id.set("rid-1")
    try:
        line = JsonFormatter().format(record)
    finally:
        request_id.reset(token)
    entry = json.loads(line)
    assert entry["message"] == "GET /x"
    assert entry["request_id"] == "rid-1"
    assert entry["level"] == "info" and entry["logger"] == "preferans.access"
    assert entry["ts"].endswith("Z")


async def test_a_request_is_traced_down_to_its_append(database_dsn):
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from service.platform.telemetry import configure_tracing

    exporter = InMemorySpanExporter()
    assert configure_tracing(Settings(), exporter=exporter)
    try:
        async with AsyncTestClient(make_app(database_dsn, tracing=True)) as client:
            token = (await client.post("/v1/players", json={"name": "Traced"})).json()["token"]
            exporter.clear()
            created = await client.post(
                "/v1/games", json={"seats": 3, "seat": 0},
                headers={"Authorization": f"Bearer {token}"},
            )  # fmt: skip
            assert created.status_code == 201
        spans = exporter.get_finished_spans()
    finally:
        exporter.shutdown()  # later tests' appends are not kept in memory
    appends = [s for s in spans if s.name == "es.append"]
    assert appends, [s.name for s in spans]
    server = [s for s in spans if s.kind.name == "SERVER"]
    assert server
    # The request's own append (a background worker may append in its own trace meanwhile).
    traced = [a for a in appends if a.context.trace_id == server[0].context.trace_id]
    assert traced, [(a.name, a.context.trace_id) for a in appends]
    append = traced[0]
    assert append.attributes["db.system"] == "postgresql"
    assert append.parent is not None


async def test_no_cors_headers_go_out_by_default(client):
    preflight = await client.options(
        "/v1/games",
        headers={"Origin": "https://elsewhere.example", "Access-Control-Request-Method": "POST"},
    )
    assert "access-control-allow-origin" not in preflight.headers
    plain = await client.get("/v1/games", headers={"Origin": "https://elsewhere.example"})
    assert not any(h.startswith("access-control-") for h in plain.headers)


async def test_cors_allows_the_named_origins_only(database_dsn):
    from service.app import create_app

    settings = Settings(
        database_url=database_dsn, rate_limits=False, bot_worker="inline",
        cors_origins="https://cards.example, https://m.cards.example",
    )  # fmt: skip
    async with AsyncTestClient(create_app(settings, migrate=False)) as client:
        asked = {
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type, idempotency-key",
        }
        allowed = await client.options(
            "/v1/games", headers={"Origin": "https://cards.example", **asked}
        )
        assert allowed.status_code in (200, 204)
        assert allowed.headers["access-control-allow-origin"] == "https://cards.example"
        assert "idempotency-key" in allowed.headers["access-control-allow-headers"].lower()

        refused = await client.options(
            "/v1/games", headers={"Origin": "https://evil.example", **asked}
        )
        assert refused.headers.get("access-control-allow-origin") != "https://evil.example"
        assert refused.status_code == 400

        read = await client.get("/v1/games", headers={"Origin": "https://m.cards.example"})
        assert read.headers["access-control-allow-origin"] == "https://m.cards.example"
        assert "etag" in read.headers["access-control-expose-headers"].lower()


async def test_open_event_streams_are_counted_while_they_last(server):
    def subscribers(samples) -> float:
        return samples.get(("preferans_sse_subscribers", frozenset({("stream", "game")})), 0.0)

    async with httpx.AsyncClient(base_url=server, timeout=30) as http:
        game_id, players = await seated_game(http)
        before = subscribers(await scrape(http))
        async with http.stream(
            "GET", f"/v1/games/{game_id}/stream", headers=players[0].auth
        ) as stream:
            lines = stream.aiter_lines()
            while not (await anext(lines)).startswith("data:"):
                pass
            assert subscribers(await scrape(http)) == before + 1
        for _ in range(50):  # the server notices the disconnect at its next write (a ping)
            if subscribers(await scrape(http)) == before:
                break
            await asyncio.sleep(0.1)
        assert subscribers(await scrape(http)) == before


async def test_a_bots_thinking_is_timed_per_level(client):
    def thought(samples) -> float:
        return samples.get(
            ("preferans_bot_think_seconds_count", frozenset({("level", "random")})), 0
        )

    host = (await client.post("/v1/players", json={"name": "host"})).json()
    auth = {"Authorization": f"Bearer {host['token']}"}
    before = thought(await scrape(client))
    game_id = (await client.post("/v1/games", json={}, headers=auth)).json()["id"]
    for _ in range(3):  # a table of bots only: they play at once
        seated = await client.post(
            f"/v1/games/{game_id}/bots", json={"level": "random"}, headers=auth
        )
        assert seated.status_code == 200, seated.text
    for _ in range(100):
        if thought(await scrape(client)) > before:
            break
        await asyncio.sleep(0.1)
    assert thought(await scrape(client)) > before
