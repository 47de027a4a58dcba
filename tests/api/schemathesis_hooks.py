"""Schemathesis hooks (loaded through SCHEMATHESIS_HOOKS by test_schemathesis): real ids.

Random UUIDs only ever find 404s. Three positive cases in four are pointed at what exists: the
game in play, its players, a spare token, an invite, the first deal; the fourth keeps what
schemathesis generated (the 404 paths stay covered). Negative cases are left alone, so what
they break stays broken. The ids come as JSON in PREFERANS_SCHEMATHESIS_IDS.

What a schema cannot say is settled here for positive cases: an Idempotency-Key names one
request (a key sent again with another body is rightly 422), so each case gets its own; a
cursor of the lobby or the leaderboard is opaque (only one the service handed out is valid),
so the lobby's is a real one and the others are left out; a name must be printable as
`service.players.accounts.clean_name` says, so cases with other names are not generated;
the schema gives a card or a bid its shape and `domain.cards` its spelling, and a layout must
deal the 32 cards once, so positive bodies get real ones; an invite naming a player names a
real one; no text of a request may hold U+0000
(the edge refuses it), which a schema cannot say of a free-form object (a passkey's
credential, as the browser makes it), so such positive cases are not generated.
"""

from __future__ import annotations

import itertools
import json
import os
import zlib
from typing import Any

import schemathesis

from domain.cards import DECK
from service.exceptions import BadRequest
from service.players.accounts import clean_name

IDS: dict[str, Any] = json.loads(os.environ.get("PREFERANS_SCHEMATHESIS_IDS", "{}"))
_KEYS = itertools.count(1)


def _negative(case: Any) -> bool:
    return case.meta is not None and case.meta.generation.mode.is_negative


@schemathesis.hook
def filter_case(context: Any, case: Any) -> bool:
    if _negative(case) or not isinstance(case.body, dict):
        return True
    if "\\u0000" in json.dumps(case.body):
        return False
    for field in ("name", "device"):
        if isinstance(case.body.get(field), str):
            try:
                clean_name(case.body[field])
            except BadRequest:
                return False
    return True


_OPAQUE_CURSORS = {
    "GET /v1/players/me/games", "GET /v1/ratings", "GET /v1/tournaments",
    "GET /v1/players/me/puzzles", "GET /v1/players/me/studies",
}  # fmt: skip
"""Lists whose cursor only the service makes (the events' and notifications' are numbers)."""
_NOTATION = {"card": "AS", "bid": "6S", "contract": "6S"}
_LAYOUT = {"hands": [DECK[0:10], DECK[10:20], DECK[20:30]], "talon": DECK[30:32]}


def _real_notation(body: dict[str, Any]) -> None:
    for field, value in _NOTATION.items():
        if isinstance(body.get(field), str):
            body[field] = value
    if isinstance(body.get("cards"), list):
        body["cards"] = ["7S", "8S"]
    if isinstance(body.get("layouts"), list):
        body["layouts"] = [_LAYOUT] * min(len(body["layouts"]), 3)


@schemathesis.hook
def map_case(context: Any, case: Any) -> Any:
    if _negative(case):
        return case
    if isinstance(case.body, dict):
        _real_notation(case.body)
        if isinstance(case.body.get("action"), dict):  # a study's move wraps an action's body
            _real_notation(case.body["action"])
        if case.operation.label == "POST /v1/games/{game_id}/invites" and case.body.get("player"):
            case.body["player"] = IDS["player_id"]  # a random id names nobody: 404 about him
    if case.headers and "Idempotency-Key" in case.headers:
        case.headers["Idempotency-Key"] = f"schemathesis-{next(_KEYS)}"
    if case.query and "cursor" in case.query:
        label = case.operation.label
        if label == "GET /v1/games":
            case.query["cursor"] = IDS["games_cursor"]
        elif label in _OPAQUE_CURSORS:
            del case.query["cursor"]  # none handed out: the caller has no finished game
    params = case.path_parameters or {}
    if params.get("token_id") == IDS.get("own_token_id"):  # a link found the caller's own:
        params["token_id"] = IDS["token_id"]  # revoking it would end the run
    if not params or zlib.crc32(repr(sorted(params.items())).encode()) % 4 == 0:
        return case
    for name in params:
        if name in IDS:
            params[name] = IDS[name]
    return case
