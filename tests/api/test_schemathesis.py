"""Schemathesis over the whole API: every operation of the committed spec, against a live server.

All checks (server errors, status codes, content types, headers and bodies conforming to the
spec, negative data refused, positive data accepted, authentication honoured), positive and
negative cases, every phase (examples, coverage, fuzzing, stateful links), a bounded number of
examples (`MAX_EXAMPLES`). The hooks (`schemathesis_hooks`) point most
cases at a real game, its players, a spare token and an invite, so they get past the 404s.

Left out: the Server-Sent Events streams, which never end (tests/api/test_sse.py,
test_lobby_stream.py and test_tournaments.py check their messages against the spec).
`schemathesis.toml` names the statuses a valid request may rightly get besides 2xx.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from apitools import layouts, register

from service.app import OPENAPI_PATH

pytestmark = pytest.mark.integration

HERE = Path(__file__).resolve().parent
STREAMS = ("followGame", "followMe", "followLobby", "followTournament")
MAX_EXAMPLES = 12


async def _real_ids(base: str) -> tuple[dict[str, object], str]:
    """A game being played (the first deal done), its players, a spare token, an invite."""
    async with httpx.AsyncClient(base_url=base) as http:
        players = [await register(http, f"st {i}") for i in range(3)]
        created = await http.post(
            "/v1/games",
            json={"seat": 0, "layouts": layouts(7, 3), "overrides": {"pool": {"target": 10}}},
            headers=players[0].auth,
        )
        assert created.status_code == 201, created.text
        game_id = created.json()["id"]
        for seat, player in enumerate(players[1:], 1):
            joined = await http.post(
                f"/v1/games/{game_id}/seats", json={"seat": seat}, headers=player.auth
            )
            assert joined.status_code == 200, joined.text
        by_seat = {seat: p for seat, p in enumerate(players)}
        while True:  # play the first deal out, so that it can be replayed
            snapshot = (await http.get(f"/v1/games/{game_id}", headers=players[0].auth)).json()
            if snapshot["view"]["deal_no"] > 1:
                break
            seat = snapshot["view"]["deal"]["to_act"][0]
            view = (await http.get(f"/v1/games/{game_id}", headers=by_seat[seat].auth)).json()
            acted = await http.post(
                f"/v1/games/{game_id}/actions",
                json=view["legal_actions"][0],
                headers=by_seat[seat].auth,
            )
            assert acted.status_code == 200, acted.text
        study_id, puzzle_id = await _study_and_puzzle(http, by_seat)
        spare = await http.post(
            "/v1/players/me/tokens", json={"name": "spare"}, headers=players[0].auth
        )
        invite = await http.post(f"/v1/games/{game_id}/invites", json={}, headers=players[0].auth)
        assert spare.status_code == invite.status_code == 201
        me = await http.get("/v1/players/me", headers=players[0].auth)
        await http.post("/v1/games", json={}, headers=players[1].auth)  # a second lobby page
        lobby = (await http.get("/v1/games", params={"limit": 1})).json()
        assert lobby["next_cursor"]
    ids = {
        "game_id": game_id,
        "player_id": players[0].id,
        "token_id": spare.json()["info"]["id"],
        "own_token_id": me.json()["token"]["id"],
        "games_cursor": lobby["next_cursor"],
        "code": invite.json()["code"],
        "deal_no": 1,
        "slug": "validation",
        "study_id": study_id,
        "puzzle_id": puzzle_id,
    }
    return ids, players[0].token


async def _study_and_puzzle(http: httpx.AsyncClient, by_seat: dict[int, Any]) -> tuple[str, str]:
    """A game of one deal played out by the same players, a study of it (the first player's),
    and a puzzle (one of its own once the miner found any, else a random id: then the puzzle
    routes are covered by their 404s)."""
    players = list(by_seat.values())
    body = {"seat": 0, "layouts": layouts(11, 1), "overrides": {"pool": {"max_deals": 1}}}
    created = await http.post("/v1/games", json=body, headers=players[0].auth)
    game_id = created.json()["id"]
    for seat, player in enumerate(players[1:], 1):
        await http.post(f"/v1/games/{game_id}/seats", json={"seat": seat}, headers=player.auth)
    while True:
        snapshot = (await http.get(f"/v1/games/{game_id}", headers=players[0].auth)).json()
        if snapshot["view"]["status"] == "finished":
            break
        seat = snapshot["view"]["deal"]["to_act"][0]
        view = (await http.get(f"/v1/games/{game_id}", headers=by_seat[seat].auth)).json()
        await http.post(f"/v1/games/{game_id}/actions", json=view["legal_actions"][-1],
                        headers=by_seat[seat].auth)  # fmt: skip
    study = await http.post(
        "/v1/studies", json={"game_id": game_id, "deal_no": 1}, headers=players[0].auth
    )
    assert study.status_code == 201, study.text
    puzzle_id = str(uuid.uuid4())
    for _ in range(100):
        found = await http.get("/v1/puzzles/next", headers=players[1].auth)
        if found.status_code == 200:
            puzzle_id = found.json()["id"]
            break
        await asyncio.sleep(0.1)
    return study.json()["id"], puzzle_id


def _real_parameters(ids: dict[str, object]) -> str:
    """Three path parameters in four from the real ids, in every phase (the hooks reach only
    the generated cases); the fourth keeps what was generated, so the 404s stay covered."""
    lines = ["", "[parameters]"]
    names = ("game_id", "player_id", "code", "study_id", "puzzle_id")
    for name in names:
        lines.append(f'"path.{name}" = {{ dictionary = "{name}", probability = 0.75 }}')
    for name in names:
        lines += ["", f"[dictionaries.{name}]", f"values = [{json.dumps(ids[name])}]"]
    return "\n".join(lines) + "\n"


# Alone it takes about 100 s (6,255 cases, most of them the coverage phase's, which the number of
# examples does not change); beside the rest of the suite on two cores, three times that.
@pytest.mark.timeout(900)
async def test_schemathesis_finds_no_server_error_and_no_response_off_the_spec(
    server: str, tmp_path: Path
) -> None:
    ids, token = await _real_ids(server)
    report = tmp_path / "report.json"
    config = tmp_path / "schemathesis.toml"
    config.write_text((HERE / "schemathesis.toml").read_text() + _real_parameters(ids))
    command = [
        str(Path(sys.executable).with_name("schemathesis")),
        "--config-file",
        str(config),
        "run",
        str(OPENAPI_PATH),
        "--url",
        server,
        "--checks",
        "all",
        "--max-examples",
        str(MAX_EXAMPLES),
        "--seed",
        "1",
        "--workers",
        "2",
        "--header",
        f"Authorization: Bearer {token}",
        "--request-timeout",
        "10",
        "--report",
        "json",
        "--report-json-path",
        str(report),
        "--no-color",
        "--suppress-health-check",
        "all",
        *(arg for op in STREAMS for arg in ("--exclude-operation-id", op)),
    ]
    env = {
        **os.environ,
        "SCHEMATHESIS_HOOKS": "schemathesis_hooks",
        "PYTHONPATH": f"{HERE}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
        "PREFERANS_SCHEMATHESIS_IDS": json.dumps(ids),
    }
    process = await asyncio.create_subprocess_exec(
        *command,
        env=env,
        cwd=tmp_path,  # its cache stays out of the tree
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await process.communicate()
    text = output.decode(errors="replace")
    summary = text[text.rindex("SUMMARY") :] if "SUMMARY" in text else text
    print(summary)
    assert "Tested:" in summary, text[-6000:]
    failures = text[text.index("FAILURES") :] if "FAILURES" in text else text
    assert process.returncode == 0, failures[:12000]
