"""A client generated from the committed spec (openapi-python-client) plays a whole game.

The client is generated once per module into a temporary directory, without a single warning
(every operation, the SVG sheet and the NDJSON export included), imported, and driven against a
live server: three players register, one creates a game with a small pool, all sit down, and
each seat sends the first of its `legal_actions` with If-Match set from the ETag the read
declared, until the game is over; then every message of the game's stream parses as the
frame declared for its type, each notification as the model of its kind (a ``your_turn``'s
``data.deadline`` typed), and the export and the drawn sheet come back as bytes. Its names are
readable: every operation under its tag (none in ``api/default``), no model named after the
place of an inline union (``game_view_dealing_type_2_type_1``).

A README-style script (tests/clients/python/client.py) type-checks under mypy --strict against
the generated client with no error and no note, and plays a deal against a live server while it
follows the game's stream with httpx-sse across a reconnect.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
from apitools import layouts

from service.app import OPENAPI_PATH

pytestmark = pytest.mark.integration


SCRIPT = Path(__file__).resolve().parents[1] / "clients" / "python"


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[ModuleType, str]:
    out = tmp_path_factory.mktemp("client")
    tool = Path(sys.executable).with_name("openapi-python-client")
    done = subprocess.run(
        [str(tool), "generate", "--path", str(OPENAPI_PATH), "--meta", "none",
         "--output-path", str(out / "preferans_client")],
        capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "PATH": f"{tool.parent}{os.pathsep}{os.environ.get('PATH', '')}"},
    )  # fmt: skip  # its post-hooks run ruff
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    sys.path.insert(0, str(out))
    return importlib.import_module("preferans_client"), output


def _package_root(generated: tuple[ModuleType, str]) -> Path:
    assert generated[0].__file__ is not None
    return Path(generated[0].__file__).parents[1]


def test_a_readme_style_script_type_checks_clean(generated: tuple[ModuleType, str]) -> None:
    from mypy import api as mypy

    root = _package_root(generated)
    config = str(SCRIPT / "mypy.ini")
    cache = str(root / ".mypy_cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MYPYPATH", str(root))
        stdout, stderr, status = mypy.run(
            ["--config-file", config, "--cache-dir", cache, str(SCRIPT / "client.py")]
        )
    assert status == 0, stdout + stderr
    assert stdout.strip() == "Success: no issues found in 1 source file", stdout


async def test_a_readme_style_script_plays_a_deal_across_a_stream_reconnect(
    server: str, generated: tuple[ModuleType, str]
) -> None:
    root = _package_root(generated)
    env = {**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    # The server runs on this test's event loop: the script must not block it.
    script = await asyncio.create_subprocess_exec(
        sys.executable, str(SCRIPT / "client.py"), server, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(script.communicate(), 180)
    played = out.decode()
    assert script.returncode == 0, played + err.decode()
    assert "deal 1 scored" in played
    assert "frames in order across a reconnect" in played
    assert "turns notified, the first at seat" in played


def test_the_client_generates_without_a_warning(generated: tuple[ModuleType, str]) -> None:
    _, output = generated
    assert "Warning" not in output and "WARNING" not in output, output


def test_the_clients_names_are_readable(generated: tuple[ModuleType, str]) -> None:
    module, _ = generated
    assert module.__file__ is not None
    root = Path(module.__file__).parent
    assert not (root / "api" / "default").exists(), "an operation without a tag"
    tags = {p.name for p in (root / "api").iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert tags >= {"players", "games", "actions", "events", "table", "oauth"}
    placed = [p.stem for p in (root / "models").glob("*.py") if re.search(r"_type_\d", p.stem)]
    assert placed == [], placed


async def test_a_generated_client_plays_a_whole_game(
    server: str, generated: tuple[ModuleType, str]
) -> None:
    client_module, _ = generated
    from preferans_client import AuthenticatedClient, Client
    from preferans_client.api.actions import act
    from preferans_client.api.games import create_game, read_game, take_seat
    from preferans_client.api.players import register_player
    from preferans_client.api.read_models import draw_sheet, export_game
    from preferans_client.models import GameSnapshot, JoinGame, NewGame, NewPlayer, PlayerCreated
    from preferans_client.types import File

    del client_module
    anonymous = Client(base_url=server, raise_on_unexpected_status=True)
    tokens = []
    for name in ("Anna", "Vera", "Kolya"):
        created = await register_player.asyncio(client=anonymous, body=NewPlayer(name=name))
        assert isinstance(created, PlayerCreated)
        tokens.append(AuthenticatedClient(base_url=server, token=created.token))
    body = NewGame.from_dict(
        {"seat": 0, "layouts": layouts(11, 30), "overrides": {"pool": {"target": 2}}}
    )
    made = await create_game.asyncio_detailed(client=tokens[0], body=body)
    assert made.status_code == 201 and made.parsed is not None
    game_id = made.parsed.id
    for seat in (1, 2):
        await take_seat.asyncio(game_id, client=tokens[seat], body=JoinGame(seat=seat))
    moves = 0
    while True:
        read = await read_game.asyncio_detailed(game_id, client=tokens[0])
        snapshot = read.parsed
        assert isinstance(snapshot, GameSnapshot), read.content
        if snapshot.view.status == "finished":
            break
        seat = snapshot.view.deal.to_act[0]
        mine = await read_game.asyncio_detailed(game_id, client=tokens[seat])
        assert isinstance(mine.parsed, GameSnapshot)
        etag = mine.headers["ETag"]
        action = mine.parsed.legal_actions[0]
        sent = await act.asyncio_detailed(game_id, client=tokens[seat], body=action, if_match=etag)
        assert sent.status_code == 200, sent.content
        moves += 1
        assert moves < 3000
    await _frames_are_the_declared_shape(server, str(game_id), snapshot.version)
    await _notifications_are_typed_per_kind(tokens[1])
    exported = await export_game.asyncio(game_id, client=anonymous)
    assert isinstance(exported, File) and exported.payload.read().startswith(b"{")
    drawn = await draw_sheet.asyncio(game_id, client=anonymous)
    assert isinstance(drawn, File) and b"<svg" in drawn.payload.read()
    async with httpx.AsyncClient(base_url=server) as http:
        for path, native in (("sheet.svg", "image/svg+xml"), ("export", "application/x-ndjson")):
            url = f"/v1/games/{game_id}/{path}"
            assert (await http.get(url)).headers["content-type"].startswith(native)
            as_bytes = await http.get(url, headers={"Accept": "application/octet-stream"})
            assert as_bytes.headers["content-type"] == "application/octet-stream"


async def _notifications_are_typed_per_kind(client: Any) -> None:
    from preferans_client.api.players import list_notifications
    from preferans_client.models import GameEndedNote, GameStartedNote, TurnData, YourTurnNote

    notes: list[Any] = []
    cursor = "0"
    while True:
        page = await list_notifications.asyncio(client=client, cursor=cursor, limit=100)
        assert page is not None
        if not page.items:
            break
        notes.extend(page.items)
        cursor = str(page.last_seq)
    kinds = {type(note) for note in notes}
    assert {GameStartedNote, YourTurnNote, GameEndedNote} <= kinds
    turn = next(note for note in notes if isinstance(note, YourTurnNote))
    assert isinstance(turn.data, TurnData) and turn.data.seat == 1
    assert turn.data.deadline is None or isinstance(turn.data.deadline, int)
    ended = next(note for note in notes if isinstance(note, GameEndedNote))
    assert isinstance(ended.data.result, int)


async def _frames_are_the_declared_shape(base: str, game_id: str, last: int) -> None:
    """Every event message of the game's stream parses as the frame the spec declares for its
    type (a branch of `GameEventFrame`, the `GameStreamFrame` that is not the opening retry)."""
    from preferans_client import models

    spec = json.loads(OPENAPI_PATH.read_bytes())
    frames = spec["components"]["schemas"]["GameEventFrame"]["discriminator"]["mapping"]

    frame: dict[str, Any] = {}
    opening: list[str] = []
    async with (
        httpx.AsyncClient(base_url=base, timeout=10) as http,
        http.stream("GET", f"/v1/games/{game_id}/stream") as stream,
    ):
        async for line in stream.aiter_lines():
            if len(opening) < 2:  # the opening retry: a message of its own, no event nor id
                opening.append(line)
                if len(opening) == 2:
                    assert opening[0].startswith("retry: ") and opening[1] == "", opening
                continue
            field, _, value = line.partition(": ")
            if field in ("id", "event", "data"):
                frame[field] = value
            elif not line and "data" in frame:
                model = getattr(models, frames[frame["event"]].rsplit("/", 1)[1])
                parsed = model.from_dict(
                    {
                        "id": int(frame["id"]),
                        "event": frame["event"],
                        "data": json.loads(frame["data"]),
                    }
                )
                assert parsed.data.type_ == parsed.event.value == frame["event"]
                if parsed.id == last:
                    return
                frame = {}
