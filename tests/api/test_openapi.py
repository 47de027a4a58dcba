"""The committed OpenAPI document is the app's, and it documents every route and error."""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from litestar import Litestar

from service.api.errors import KINDS, PROBLEM_MEDIA_TYPE
from service.app import OPENAPI_PATH, create_app, openapi_document
from service.platform.settings import Settings


@functools.cache
def _document() -> bytes:
    """The app's document, made once per test process (each takes an app built and walked)."""
    return openapi_document()


def _spec() -> Any:
    return json.loads(_document())


@functools.cache
def _app() -> Litestar:
    return create_app(Settings(), dsn="postgresql://unused", migrate=False)


def test_the_committed_openapi_document_is_what_the_app_generates() -> None:
    committed = OPENAPI_PATH.read_bytes()
    assert committed == _document(), "openapi/openapi.json is stale: run `preferans openapi`"


def test_every_route_of_the_app_is_documented() -> None:
    app = _app()
    spec = _spec()
    routes = {
        (method.lower(), re.sub(r":\w+}", "}", route.path))
        for route in app.routes
        for method in getattr(route, "methods", ())
        if method not in ("HEAD", "OPTIONS")
        and not route.path.startswith("/schema")
        and route.path != "/metrics"  # for Prometheus, in its own format (docs/operations.md)
    }
    documented = {(m, p) for p, ops in spec["paths"].items() for m in ops}
    assert routes == documented


def test_every_operation_documents_its_errors_as_problems_with_examples() -> None:
    spec = _spec()
    known_types = {kind.type for kind in KINDS.values()}
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            errors = {s: r for s, r in operation["responses"].items() if s[0] in "45"}
            assert "500" in errors, (method, path)
            for status, response in errors.items():
                if path.startswith("/oauth/") and "application/json" in response["content"]:
                    # RFC 6749 §5.2 fixes the token endpoints' refusals: its JSON, not a problem.
                    oauth = response["content"]["application/json"]["schema"]["$ref"]
                    assert oauth.endswith("/OAuthError"), (method, path, status)
                    continue
                content = response["content"][PROBLEM_MEDIA_TYPE]
                examples = content["examples"].values()
                assert examples, (method, path, status)
                assert {e["value"]["type"] for e in examples} <= known_types
                assert {e["value"]["status"] for e in examples} == {int(status)}


def test_the_action_body_is_a_tagged_union_without_a_seat() -> None:
    spec = _spec()
    body = spec["paths"]["/v1/games/{game_id}/actions"]["post"]["requestBody"]
    variants = body["content"]["application/json"]["schema"]["oneOf"]
    schemas = spec["components"]["schemas"]
    shapes = [schemas[v["$ref"].rsplit("/", 1)[1]] for v in variants]
    assert len(shapes) == 14  # the twelve moves of a deal, a claim and its answer
    for shape in shapes:
        assert "seat" not in shape["properties"]
        assert shape["required"][0] == "type" or "type" in shape["required"]
    assert "bearer" in spec["components"]["securitySchemes"]


def test_every_route_names_its_operation_id_so_a_rename_never_renames_a_client_method() -> None:
    app = _app()
    named = {}
    for route in app.routes:
        if route.path.startswith("/schema") or route.path == "/metrics":
            continue
        for handler in getattr(route, "route_handlers", ()):
            if handler.http_methods <= {"OPTIONS", "HEAD"}:
                continue  # Litestar's own
            operation_id = handler.operation_id
            assert isinstance(operation_id, str) and re.fullmatch(
                r"[a-z][A-Za-z]+", operation_id
            ), f"{route.path} {handler.http_methods}: name its operation_id"
            named[operation_id] = route.path
    spec = _spec()
    ids = [op["operationId"] for ops in spec["paths"].values() for op in ops.values()]
    assert len(ids) == len(set(ids)) == len(named)
    assert set(ids) == set(named)


def _schemas_reached(spec: dict, node: object) -> set[str]:
    seen: set[str] = set()
    todo = [node]
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str) and ref.rsplit("/", 1)[1] not in seen:
                name = ref.rsplit("/", 1)[1]
                seen.add(name)
                todo.append(spec["components"]["schemas"][name])
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
    return seen


def test_request_bodies_refuse_unknown_fields_as_the_server_does() -> None:
    spec = _spec()
    bodies = [op["requestBody"] for ops in spec["paths"].values() for op in ops.values()
              if "requestBody" in op]  # fmt: skip
    reached = set().union(*(_schemas_reached(spec, body) for body in bodies))
    assert {"NewGame", "RulesOverrides", "PoolOverrides", "LayoutIn", "BidAction"} <= reached
    for name in reached:
        schema = spec["components"]["schemas"][name]
        if schema.get("type") == "object":
            assert schema["additionalProperties"] is False, name


def test_closed_sets_are_enums_and_the_game_status_is_one_component() -> None:
    spec = _spec()
    schemas = spec["components"]["schemas"]
    assert schemas["SeatView"]["properties"]["phase"]["enum"][:2] == ["awaiting_deal", "bidding"]
    text = json.dumps(spec)
    assert text.count('"enum": ["seating", "playing", "finished"]') == 1  # GameStatus itself
    assert schemas["GameView"]["properties"]["status"] == {
        "$ref": "#/components/schemas/GameStatus"
    }
    for seat_list in ("hand_sizes", "open_hands", "shown_hands", "tricks"):
        assert schemas["SeatView"]["properties"][seat_list]["type"] == "array"


def test_the_documented_headers_and_the_streams_frames() -> None:
    spec = _spec()
    read = spec["paths"]["/v1/games/{game_id}"]["get"]
    assert "ETag" in read["responses"]["200"]["headers"]
    assert (
        "ETag" in read["responses"]["304"]["headers"] and "content" not in read["responses"]["304"]
    )
    acted = spec["paths"]["/v1/games/{game_id}/actions"]["post"]["responses"]["200"]["headers"]
    assert {"ETag", "Idempotent-Replayed", "RateLimit", "RateLimit-Policy"} <= set(acted)
    names = {p["name"] for p in spec["paths"]["/v1/games/{game_id}/actions"]["post"]["parameters"]}
    assert {"If-Match", "Idempotency-Key"} <= names
    stream = spec["paths"]["/v1/games/{game_id}/stream"]["get"]["responses"]["200"]["content"]
    frame = stream["text/event-stream"]["schema"]["$ref"].rsplit("/", 1)[1]
    schemas = spec["components"]["schemas"]
    # An event, the table's chat or rematch offer (no id: no event), the opening retry.
    events, *talk, retry = (schemas[k["$ref"].rsplit("/", 1)[1]] for k in schemas[frame]["oneOf"])
    assert set(retry["required"]) == {"retry"}
    assert [set(k["required"]) for k in talk] == [{"event", "data"}, {"event", "data"}]
    assert [k["properties"]["event"].get("enum") for k in talk] == [["chat"], ["rematch"]]
    # One frame per event type, told apart by `event` (a generated client narrows on it).
    mapping = events["discriminator"]["mapping"]
    assert events["discriminator"]["propertyName"] == "event" and len(mapping) == 36
    for tag, ref in mapping.items():
        kind = schemas[ref.rsplit("/", 1)[1]]
        assert set(kind["required"]) == {"id", "event", "data"}
        assert kind["properties"]["event"]["enum"] == [tag]
    assert "security" not in read  # the default: a token is optional
    assert spec["security"] == [{}, {"bearer": []}]
