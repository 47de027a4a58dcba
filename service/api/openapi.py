"""The OpenAPI document's finishing pass: what Litestar's generator does not say by itself.

`finish` runs once over the document Litestar builds from the routes and Structs; the app serves
the result at ``/schema`` and ``preferans openapi`` commits it (``openapi/openapi.json``). Each
step keeps a generated client (openapi-python-client, schemathesis) exact:

- request bodies refuse unknown fields (every request Struct forbids them): every schema a
  request body reaches gets ``additionalProperties: false``;
- a closed set several schemas share is one named component (`GameStatus`), not copies;
- optional headers are plain (``type: string``), not ``oneOf [string, null]``, a one-branch
  ``oneOf`` is the branch itself, a tuple has exactly its items, an array's items keep their
  bounds (a card's length, an exit level's range) and a bound of 0 is kept;
- the response headers the service sends are declared: ``ETag``, ``Idempotent-Replayed``,
  ``Location``, ``Retry-After``, ``RateLimit`` and ``RateLimit-Policy``;
- the Server-Sent Events streams describe their frames (``id``, ``event``, ``data``);
- the two downloads (the SVG sheet, the NDJSON export) may also be read as bytes
  (``application/octet-stream``, which the service sends when ``Accept`` asks for it);
- generated clients type what is sent and what comes back as it is: a request field with a
  default is optional (its default said in its description, not as ``default``, which
  openapi-typescript reads as "always present"), and every field of a response schema is
  required, since msgspec always writes it (but the schemas of `_SPARSE`, written with
  ``omit_defaults``); a game's stream frames are one schema per event type, told apart by
  ``event`` (a discriminator), so that ``frame.event === "card_played"`` narrows ``frame.data``;
  a notification is one schema per kind, told apart by ``kind`` (`Notification`), so that its
  ``data`` is typed (a ``your_turn``'s ``deadline``).
"""

from __future__ import annotations

import copy
import typing
from collections.abc import Iterator
from typing import Any

import msgspec
from litestar import Request
from litestar._openapi.schema_generation.schema import SchemaCreator
from litestar.openapi.plugins import JsonRenderPlugin

from domain import game, rules
from projections import ppn
from service.api import oauth
from service.api.actions import schemas as wire_actions
from service.api.games import schemas as wire_games
from service.games.lobby import NoteKind

Schema = dict[str, Any]
OCTET_STREAM = "application/octet-stream"

GAME_STATUS: Schema = {
    "type": "string",
    "enum": ["seating", "playing", "finished"],
    "title": "GameStatus",
    "description": "``seating`` until every seat is taken, ``playing``, then ``finished``.",
}


def _closed_set(title: str, values: list[str], description: str) -> Schema:
    return {"type": "string", "enum": values, "title": title, "description": description}


_NAMED_SETS = {
    "GameStatus": GAME_STATUS,
    "Dealing": _closed_set("Dealing", ["random", "seeded", "fixed"], "Where a game's cards come "
                           "from: shuffled at random, from a seed, or fixed layouts."),
    "ChatPhrase": _closed_set("ChatPhrase", ["good_luck", "well_played", "thanks", "sorry",
                              "hurry_please"], "One of the chat's set phrases."),
    "DealKind": _closed_set("DealKind", ["game", "miser", "raspasy"], "What was played: a "
                            "contract, a misère (мизер) or all-pass (распасы)."),
    "SheetLanguage": _closed_set("SheetLanguage", ["en", "ru"], "The drawn sheet's language."),
    "LeaderboardPlayers": _closed_set("LeaderboardPlayers", ["humans", "computers"],
                                      "Whose leaderboard: the people's or the programs'."),
    "BotLevel": _closed_set("BotLevel", ["random", "basic", "strong", "expert"],
                            "One of the service's bots: random legal moves, rules of thumb, the "
                            "solver's search, or that search with learned bidding, discard and "
                            "whisting."),
    "TournamentStatus": _closed_set("TournamentStatus", ["registering", "running", "finished"],
                                    "A tournament's stage (docs/tournaments.md)."),
    "PuzzleTheme": _closed_set("PuzzleTheme", ["declarer", "defence", "misere_escape",
                               "misere_catch", "all_pass_escape"], "Whose decision a puzzle "
                               "is (docs/puzzles-and-studies.md)."),
}  # fmt: skip
"""Closed sets named once, so that a generated client has one readable type for each (not one
per place, nor ``game_view_dealing_type_2_type_1`` for a nullable one)."""

_ETAG = {
    "description": 'The game version this body reflects, a strong ETag (`"12"`): send it as '
    "If-Match (commands) or If-None-Match (reads).",
    "schema": {"type": "string", "pattern": r'^"\d+"$'},
}
_REPLAYED = {
    "description": "`true` when this is the stored response of an earlier request with the "
    "same Idempotency-Key: nothing was appended again.",
    "schema": {"type": "string", "enum": ["true"]},
}
_LOCATION = {"description": "The new game's path.", "schema": {"type": "string"}}
_RETRY_AFTER = {
    "description": "Seconds to wait before retrying.",
    "schema": {"type": "string", "pattern": r"^\d+$"},
}
_RATE_LIMIT = {
    "description": 'Where the caller stands in the policy\'s window (`"reads";r=119;t=42`: '
    "requests left, seconds to the reset). Sent when rate limits are on.",
    "schema": {"type": "string"},
}
_RATE_LIMIT_POLICY = {
    "description": 'The policy counted (`"reads";q=120;w=60`: requests per window of seconds). '
    "Sent when rate limits are on.",
    "schema": {"type": "string"},
}
_COMMANDS = {
    "createGame", "takeSeat", "act", "leaveGame", "abandonGame", "returnToGame", "seatBot",
    "joinByInvite",
}  # fmt: skip
"""Operations answered by `service.api.common.send`: an outcome with its ETag, replayable."""
_VERSIONED_READS = {"readGame", "readSheet", "drawSheet", "exportGame"}
_DOWNLOADS = {"drawSheet", "exportGame", "exportPlayerGames"}
_PPN_DOWNLOADS = {"exportGame", "exportPlayerGames"}
"""Downloads that ``format=ppn`` turns into PPN text (docs/ppn.md)."""
_OPTIONAL_BODIES = {"takeSeat", "seatBot", "createInvite", "joinByInvite"}
_SPARSE = {"Problem", "FieldError", "OAuthError", "Introspection"}
"""Response schemas whose unset fields are left out (``omit_defaults``): not all required."""
"""Operations whose body may be left out (every field has a default)."""
_STREAMS = {
    "followGame": "GameStreamFrame",
    "followMe": "NotificationFrame",
    "followLobby": "LobbyFrame",
    "followTournament": "TournamentFrame",
}
_TEXT_EXPORTS = {"exportTournament"}
"""Exports that ``format=text`` gives as plain text."""


def finish(document: Schema) -> Schema:
    """The finished document (``document`` is left as it was)."""
    doc = copy.deepcopy(document)
    schemas: dict[str, Schema] = doc.setdefault("components", {}).setdefault("schemas", {})
    for path, operation in _operations(doc):
        for parameter in operation.get("parameters", ()):
            if parameter["in"] == "header":  # Litestar reads ?x=null as absent: not queries
                parameter["schema"] = _plain(parameter["schema"])
        if operation.get("operationId") in _OPTIONAL_BODIES:
            operation["requestBody"]["required"] = False
        _headers(path, operation)
        if operation.get("operationId") in _TEXT_EXPORTS:
            operation["responses"]["200"]["content"]["text/plain"] = {"schema": {"type": "string"}}
        if operation.get("operationId") in _DOWNLOADS:
            _downloads(operation, ppn_text=operation.get("operationId") in _PPN_DOWNLOADS)
        form = oauth.FORMS.get(operation.get("operationId", ""))
        if form is not None:
            operation["requestBody"] = _form_body(schemas, form)
        frame = _STREAMS.get(operation.get("operationId", ""))
        if frame is not None:
            operation["responses"]["200"]["content"]["text/event-stream"]["schema"] = {
                "$ref": f"#/components/schemas/{frame}"
            }
    _notification_union(schemas)
    schemas["StreamRetryFrame"] = copy.deepcopy(_RETRY_FRAME)
    for message, event in (_game_frames(schemas), _notification_frames()):
        schemas[message["title"]] = message
        schemas[event["title"]] = event
    for stream_frame in (*_lobby_frames(), *_tournament_frames()):
        schemas[stream_frame["title"]] = stream_frame
    raspasy_overrides = typing.get_args(
        typing.get_type_hints(wire_games.RulesOverrides)["raspasy"]
    )[0]
    for cls in (
        rules.RaspasyRules,
        raspasy_overrides,
        wire_games.LayoutIn,
        wire_actions.DiscardAction,
        oauth.AppRegistration,
    ):
        _nested_items(schemas, cls)
    requests = _request_schemas(doc)
    for name in requests:
        schema = schemas[name]
        if schema.get("type") == "object":
            schema["additionalProperties"] = False
            _defaults_described(schema)
    for name in _reached(doc, schemas, "responses") - requests - _SPARSE:
        schema = schemas[name]
        if schema.get("type") == "object" and schema.get("properties"):
            schema["required"] = sorted(schema["properties"])
    finished: Schema = _walk(doc)
    finished["components"]["schemas"].update(_NAMED_SETS)  # the walk made them refer to themselves
    return finished


def _form_body(schemas: dict[str, Schema], form: Schema) -> Schema:
    """An OAuth endpoint's form (RFC 6749 sends ``application/x-www-form-urlencoded``)."""
    schemas[form["title"]] = copy.deepcopy(form)
    ref = {"$ref": f"#/components/schemas/{form['title']}"}
    return {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": ref}}}


def _notification_union(schemas: dict[str, Schema]) -> None:
    """The notifications' union as one named component with its discriminator (Litestar writes
    it inline where it is used, which a generated client names after the place)."""
    items = schemas["NotificationPage"]["properties"]["items"]
    branches = items["items"]["oneOf"]
    mapping = {
        schemas[ref.rsplit("/", 1)[1]]["properties"]["kind"]["const"]: ref
        for ref in (branch["$ref"] for branch in branches)
    }
    schemas["Notification"] = {
        "title": "Notification",
        "description": "One of the caller's notifications (also the `data` of a per-player SSE "
        "event), told apart by `kind`: each kind's `data` has its own fields.",
        "oneOf": branches,
        "discriminator": {"propertyName": "kind", "mapping": mapping},
    }
    items["items"] = {"$ref": "#/components/schemas/Notification"}


def _nested_items(schemas: dict[str, Schema], cls: type[msgspec.Struct]) -> None:
    """Array items as msgspec states them: Litestar drops the bounds of an item's type
    (``list[CardText]``, ``tuple[Annotated[int, Meta(ge=6)], ...]``)."""
    own = msgspec.json.schema(cls)
    own = own["$defs"][own["$ref"].rsplit("/", 1)[1]] if "$ref" in own else own
    target = schemas.get(cls.__name__)
    if target is None:
        return
    for name, prop in own.get("properties", {}).items():
        items = prop.get("items")
        if items is not None and "$ref" not in repr(items) and name in target["properties"]:
            target["properties"][name]["items"] = items


def _operations(doc: Schema) -> Iterator[tuple[str, Schema]]:
    for path, item in doc.get("paths", {}).items():
        for method, operation in item.items():
            if method in ("get", "post", "put", "patch", "delete"):
                yield path, operation


def _plain(schema: Schema) -> Schema:
    """An optional string header's schema without its ``null`` (absent is how it is left
    out)."""
    schema = dict(schema)
    branches = schema.get("oneOf")
    if branches is not None:
        kept = [b for b in branches if b != {"type": "null"}]
        if len(kept) == 1 and kept[0].get("type") == "string":
            del schema["oneOf"]
            schema = {**kept[0], **schema}
    kind = schema.get("type")
    if isinstance(kind, list) and "null" in kind:
        rest = [k for k in kind if k != "null"]
        schema["type"] = rest[0] if len(rest) == 1 else rest
        if "enum" in schema:
            schema["enum"] = [v for v in schema["enum"] if v is not None]
    return schema


def _headers(path: str, operation: Schema) -> None:
    op_id = operation.get("operationId", "")
    for status, response in operation.get("responses", {}).items():
        headers: Schema = {}
        success = status.startswith("2") or status == "304"
        if (op_id in _COMMANDS or op_id in _VERSIONED_READS) and success:
            headers["ETag"] = _ETAG
        if op_id in _COMMANDS and status.startswith("2"):
            headers["Idempotent-Replayed"] = _REPLAYED
        if op_id == "createGame" and status == "201":
            headers["Location"] = _LOCATION
        if status == "412":
            headers["ETag"] = _ETAG
        if status in ("409", "429", "503"):
            headers["Retry-After"] = _RETRY_AFTER
        if path.startswith("/v1/"):
            headers["RateLimit"] = _RATE_LIMIT
            headers["RateLimit-Policy"] = _RATE_LIMIT_POLICY
        if headers:
            response["headers"] = {**response.get("headers", {}), **headers}
        elif response.get("headers") == {}:
            del response["headers"]


def _downloads(operation: Schema, *, ppn_text: bool) -> None:
    content = operation["responses"]["200"]["content"]
    if ppn_text:
        content[ppn.MEDIA_TYPE] = {"schema": {"type": "string"}}
    content[OCTET_STREAM] = {"schema": {"type": "string", "format": "binary"}}


_RETRY_FRAME: Schema = {
    "type": "object",
    "title": "StreamRetryFrame",
    "description": "A stream's opening message: `retry:` the reconnection delay a client "
    "should wait before it reconnects.",
    "required": ["retry"],
    "additionalProperties": False,
    "properties": {"retry": {"type": "integer", "description": "The reconnection delay (ms)."}},
}


def _frame(title: str, description: str, event: Schema) -> Schema:
    """A stream's message: the event frame of its kind (``event``) or the opening retry."""
    return {
        "title": title,
        "description": description,
        "oneOf": [
            {"$ref": f"#/components/schemas/{event['title']}"},
            {"$ref": "#/components/schemas/StreamRetryFrame"},
        ],
    }


def _game_frames(schemas: dict[str, Schema]) -> tuple[Schema, Schema]:
    by_type = {str(cls.__struct_config__.tag): cls.__name__ for cls in typing.get_args(game.Event)}
    mapping: dict[str, str] = {}
    for tag, name in sorted(by_type.items()):
        frame_name = f"{name}Frame"
        schemas[frame_name] = {
            "type": "object",
            "title": frame_name,
            "description": f"A `{tag}` event: `id:` its version, `data:` the caller's view of it "
            "(the same shape as an item's `event` in `/events`).",
            "required": ["id", "event", "data"],
            "additionalProperties": False,
            "properties": {
                "id": {"type": "integer", "minimum": 1, "description": "The event's version."},
                "event": {"type": "string", "enum": [tag], "description": "The event's `type`."},
                "data": {"$ref": f"#/components/schemas/{name}"},
            },
        }
        mapping[tag] = f"#/components/schemas/{frame_name}"
    event: Schema = {
        "title": "GameEventFrame",
        "description": "An event of the game: `id:` its version, `event:` its type, `data:` "
        "the caller's redacted event as JSON (the same shape as an item's `event` in `/events`); "
        "one schema per type, told apart by `event`.",
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "event", "mapping": mapping},
    }
    frame = _frame(
        "GameStreamFrame",
        "One message of the `text/event-stream`: a `GameEventFrame`, a `ChatFrame` or a "
        "`RematchFrame` (the table's talk, without `id:`), or the `StreamRetryFrame` it opens "
        "with; a `: ping` comment comes after 15 s of silence.",
        event,
    )
    frame["oneOf"][1:1] = [
        {"$ref": "#/components/schemas/ChatFrame"},
        {"$ref": "#/components/schemas/RematchFrame"},
    ]
    schemas["ChatFrame"] = _talk_frame(
        "ChatFrame", "chat", "ChatMessage", "A message said at the table that the caller reads."
    )
    schemas["RematchFrame"] = _talk_frame(
        "RematchFrame", "rematch", "Rematch", "The finished game's rematch offer, as it changes."
    )
    return frame, event


def _talk_frame(title: str, kind: str, data: str, description: str) -> Schema:
    return {
        "type": "object",
        "title": title,
        "description": description + " No `id:`: it is no event of the game.",
        "required": ["event", "data"],
        "additionalProperties": False,
        "properties": {
            "event": {"type": "string", "enum": [kind]},
            "data": {"$ref": f"#/components/schemas/{data}"},
        },
    }


def _notification_frames() -> tuple[Schema, Schema]:
    event: Schema = {
        "type": "object",
        "title": "NotificationEventFrame",
        "description": "A notification: `id:` its `seq`, `event:` its kind, `data:` the "
        "notification as JSON.",
        "required": ["id", "event", "data"],
        "additionalProperties": False,
        "properties": {
            "id": {"type": "integer", "minimum": 1, "description": "The notification's seq."},
            "event": {"type": "string", "enum": list(typing.get_args(NoteKind))},
            "data": {"$ref": "#/components/schemas/Notification"},
        },
    }
    frame = _frame(
        "NotificationFrame",
        "One message of the `text/event-stream`: a `NotificationEventFrame`, or the "
        "`StreamRetryFrame` it opens with; a `: ping` comment comes after 15 s of silence.",
        event,
    )
    return frame, event


def _lobby_frames() -> tuple[Schema, ...]:
    game_frame: Schema = {
        "type": "object",
        "title": "LobbyGameFrame",
        "description": "A game's row changed: `event: game`, `data:` its summary as JSON.",
        "required": ["event", "data"],
        "additionalProperties": False,
        "properties": {
            "event": {"type": "string", "enum": ["game"]},
            "data": {"$ref": "#/components/schemas/GameSummary"},
        },
    }
    reset: Schema = {
        "type": "object",
        "title": "LobbyResetFrame",
        "description": "Read the lists now (`event: reset`, `data: {}`): sent once the stream "
        "is open, and whenever changes may have been missed.",
        "required": ["event", "data"],
        "additionalProperties": False,
        "properties": {
            "event": {"type": "string", "enum": ["reset"]},
            "data": {"type": "object", "additionalProperties": False},
        },
    }
    frame: Schema = {
        "title": "LobbyFrame",
        "description": "One message of the `text/event-stream`: a `LobbyGameFrame`, a "
        "`LobbyResetFrame`, or the `StreamRetryFrame` it opens with; a `: ping` comment comes "
        "after 15 s of silence.",
        "oneOf": [
            {"$ref": "#/components/schemas/LobbyGameFrame"},
            {"$ref": "#/components/schemas/LobbyResetFrame"},
            {"$ref": "#/components/schemas/StreamRetryFrame"},
        ],
    }
    return frame, game_frame, reset


def _tournament_frames() -> tuple[Schema, ...]:
    """The messages of ``followTournament`` (`service.api.tournaments.controllers`)."""
    version = {"type": "integer", "minimum": 1, "description": "The tournament's version."}
    status = {"type": "string", "enum": ["registering", "running", "finished"]}
    standings = {"type": "array", "items": {"$ref": "#/components/schemas/StandingView"}}
    rounds = {"type": "integer", "minimum": 0}

    def message(title: str, description: str, event: str, data: dict[str, Schema]) -> Schema:
        """An ``id:``-versioned message whose ``data:`` is an object of exactly ``data``."""
        return {
            "type": "object", "title": title, "description": description,
            "required": ["id", "event", "data"], "additionalProperties": False,
            "properties": {
                "id": version,
                "event": {"type": "string", "enum": [event]},
                "data": {
                    "type": "object", "required": list(data), "additionalProperties": False,
                    "properties": data,
                },
            },
        }  # fmt: skip

    whole = message(
        "TournamentStandingsFrame",
        "The standings whole (`event: standings`): first, and again whenever everything changed.",
        "standings",
        {"version": version, "status": status, "standings": standings, "rounds": rounds},
    )
    changes = message(
        "TournamentStandingsChangesFrame",
        "What changed since version `since` (`event: standings-changes`): the standings that "
        "differ or are new, in the standings' order, and the players no longer standing.",
        "standings-changes",
        {
            "version": version, "since": version, "status": status, "changed": standings,
            "left": {"type": "array", "items": {"type": "string"}}, "rounds": rounds,
        },
    )  # fmt: skip
    frame: Schema = {
        "title": "TournamentFrame",
        "description": "One message of the `text/event-stream`: a `TournamentStandingsFrame`, "
        "a `TournamentStandingsChangesFrame`, or the `StreamRetryFrame` it opens with; a "
        "`: ping` comment comes after a silence.",
        "oneOf": [
            {"$ref": "#/components/schemas/TournamentStandingsFrame"},
            {"$ref": "#/components/schemas/TournamentStandingsChangesFrame"},
            {"$ref": "#/components/schemas/StreamRetryFrame"},
        ],
    }
    return frame, whole, changes


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            yield ref.rsplit("/", 1)[1]
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def _request_schemas(doc: Schema) -> set[str]:
    """Every component schema a request body reaches."""
    return _reached(doc, doc["components"]["schemas"], "requestBody")


def _reached(doc: Schema, schemas: dict[str, Schema], part: str) -> set[str]:
    """Every component schema the operations' ``part`` (``requestBody``, ``responses``)
    reaches."""
    todo = [name for _, operation in _operations(doc) for name in _refs(operation.get(part, {}))]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(_refs(schemas[name]))
    return seen


def _defaults_described(schema: Schema) -> None:
    """A request field's default in its description rather than as ``default``: a client may
    leave it out (openapi-typescript would make a field with a default required)."""
    required = set(schema.get("required", ()))
    for name, prop in schema.get("properties", {}).items():
        if name in required or "default" not in prop:
            continue
        default = prop.pop("default")
        said = f"Default: `{msgspec.json.encode(default).decode()}`."
        prop["description"] = f"{prop['description']} {said}" if prop.get("description") else said


def _walk(node: Any) -> Any:
    """One-branch ``oneOf`` inlined; the named closed sets referred to, not copied."""
    if isinstance(node, list):
        return [_walk(v) for v in node]
    if not isinstance(node, dict):
        return node
    node = {k: _walk(v) for k, v in node.items()}
    if isinstance(node.get("oneOf"), list):  # Litestar adds an empty branch to some tuples
        node["oneOf"] = [b for b in node["oneOf"] if b != {}]
    if "prefixItems" in node and "items" not in node:  # a tuple: exactly these items
        size = len(node["prefixItems"])
        node.update(minItems=size, maxItems=size)
    branches = node.get("oneOf")
    if isinstance(branches, list) and len(branches) == 1 and isinstance(branches[0], dict):
        rest = {k: v for k, v in node.items() if k != "oneOf"}
        if "$ref" in branches[0]:
            node = {"allOf": branches, **rest} if rest else branches[0]
        else:
            node = {**branches[0], **rest}
    kinds = node.get("type")
    if isinstance(kinds, list) and "null" in kinds and None in node.get("enum", ()):
        values = [v for v in node["enum"] if v is not None]
        for name, named in _NAMED_SETS.items():
            if values == named["enum"]:
                rest = {k: v for k, v in node.items() if k not in ("enum", "type", "title")}
                branches = [{"$ref": f"#/components/schemas/{name}"}, {"type": "null"}]
                return {"oneOf": branches, **rest}
    for name, named in _NAMED_SETS.items():
        if node.get("enum") == named["enum"] and node.get("type") == named["type"]:
            rest = {k: v for k, v in node.items() if k not in ("enum", "type", "title")}
            ref = {"$ref": f"#/components/schemas/{name}"}
            return {"allOf": [ref], **rest} if rest else ref
    return node


class _Finishing:
    """A render plugin that shows the finished document (Litestar hands it the generated one)."""

    _finished: tuple[int, Schema] | None = None

    def render(self, request: Request[Any, Any, Any], openapi_schema: Schema) -> bytes:
        if self._finished is None or self._finished[0] != id(openapi_schema):
            self._finished = (id(openapi_schema), finish(openapi_schema))
        rendered: bytes = super().render(request, self._finished[1])  # type: ignore[misc]
        return rendered


class FinishedJson(_Finishing, JsonRenderPlugin):
    """``/schema/openapi.json``."""


RENDER_PLUGINS = [FinishedJson()]
"""For ``OpenAPIConfig(render_plugins=…)``, beside the offline Swagger UI (`service.api.docs`),
which reads the document from it."""


_BOUNDS = (("ge", "minimum"), ("le", "maximum"), ("gt", "exclusive_minimum"),
           ("lt", "exclusive_maximum"))  # fmt: skip
_apply_metadata = SchemaCreator._apply_kwarg_definition_metadata


def _apply_metadata_with_zero(self: SchemaCreator, field: Any, schema: Any) -> None:
    """Litestar 2.x tests a bound for truth, so ``ge=0`` vanished from the document (and a
    client would send the negative numbers the service refuses): put the zeros back."""
    _apply_metadata(self, field, schema)
    definition = field.kwarg_definition
    for bound, key in _BOUNDS:
        if getattr(definition, bound, None) == 0 and getattr(schema, key, None) is None:
            setattr(schema, key, 0)


SchemaCreator._apply_kwarg_definition_metadata = _apply_metadata_with_zero  # type: ignore[method-assign]
