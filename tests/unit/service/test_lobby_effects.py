"""What a command's events write beside them (`service.games.lobby.lobby_effects`), pure over
the game's state before and after: the lobby's row, the notifications, the token check."""

from __future__ import annotations

import random
from typing import Any

from game_requests import AT, CLOCKED, GAME_ID, PLAYERS, STREAM, Table, committed, create, world

from domain import game as g
from domain.deal.messages import Pass, SeatCommand
from domain.table import AbandonSeat, PlayFor, TimeOut
from service.games.commands import Act, AtTable, GameRequest, Join, StewardAct
from service.games.lobby import lobby_effects

TOKEN = bytes(range(32))


def effects(table: Table, request: GameRequest) -> dict[str, object] | None:
    """Run ``request`` at ``table``; what its events write beside them."""
    table.run(request)
    return lobby_effects(STREAM, request, table.before, table.state, len(table.events))


def notes_of(effect: dict[str, object] | None) -> list[tuple[str, str]]:
    assert effect is not None
    notes = effect.get("notes", [])
    assert isinstance(notes, list)
    return [(n["player"], n["kind"]) for n in notes]


def test_a_new_game_inserts_its_row_with_its_deal_source_and_checks_the_token() -> None:
    source = committed()
    assert source.secret is not None
    effect = effects(Table(), create(source=source, private=True, token=TOKEN))
    assert effect == {
        "token": TOKEN.hex(), "op": "insert", "game_id": GAME_ID, "preset": "sochi",
        "seats": 3, "created_by": "anna", "imported": False, "private": True, "seed": None,
        "layouts": (), "secret": source.secret.hex(), "dealing": "random",
        "rating_weight": 100,
        "status": "seating", "players": ["anna", None, None], "to_act": [],
        "deadline_ms": None, "due_ms": None,
    }  # fmt: skip


def test_another_stream_or_no_game_after_writes_nothing() -> None:
    request = create()
    table = Table()
    table.run(request)
    assert lobby_effects("other-1", request, table.before, table.state, 2) is None
    assert lobby_effects(STREAM, request, g.INITIAL_STATE, g.INITIAL_STATE, 0) is None


def test_a_seat_taken_updates_the_players_and_the_last_starts_the_game_for_everyone() -> None:
    table = Table()
    table.run(create())
    joined = effects(table, Join(**world("boris")))
    assert joined is not None and joined["op"] == "update"
    assert joined["players"] == ["anna", "boris", None] and "notes" not in joined
    started = effects(table, Join(**world("vera")))
    assert started is not None and started["status"] == "playing"
    forehand = g.to_act(table.pulka)[0]
    assert started["to_act"] == [forehand]
    assert notes_of(started) == [
        *((p, "game_started") for p in PLAYERS), (PLAYERS[forehand], "your_turn"),
    ]  # fmt: skip
    note = started["notes"][-1]  # type: ignore[index]
    assert note["data"] == {"seat": forehand, "deadline": None, "version": len(table.events)}
    assert note["game_id"] == GAME_ID


def test_each_turn_notifies_the_seat_that_now_acts_and_nobody_else() -> None:
    table = Table().seated()
    forehand = g.to_act(table.pulka)[0]
    player = table.pulka.players[forehand]
    assert player is not None
    effect = effects(table, act(player, Pass(seat=forehand), token=TOKEN))
    nxt = g.to_act(table.pulka)[0]
    assert effect is not None and effect["to_act"] == [nxt] and effect["token"] == TOKEN.hex()
    assert notes_of(effect) == [(PLAYERS[nxt], "your_turn")]


def act(player: str, move: SeatCommand, **kw: Any) -> Act:
    return Act(command=move, **world(player), **kw)


def test_a_timeout_notifies_the_seat_and_its_absence_the_others_and_is_due_at_once() -> None:
    table = Table().seated(rules=CLOCKED)
    seat = g.to_act(table.pulka)[0]
    late = AT + 60_000
    request = StewardAct(command=TimeOut(seat=seat, move=Pass(seat=seat)), **world("x", at=late))
    effect = effects(table, request)
    others = [p for s, p in enumerate(PLAYERS) if s != seat]
    nxt = g.to_act(table.pulka)[0]
    assert notes_of(effect) == [
        (PLAYERS[seat], "timed_out"), *((p, "player_absent") for p in others),
        (PLAYERS[nxt], "your_turn"),
    ]  # fmt: skip
    assert effect is not None and effect["deadline_ms"] == late + 10_000
    assert effect["due_ms"] == late + 10_000  # the next seat is present: due at its deadline


def test_an_abandoned_seat_is_announced_to_the_others_and_hears_nothing_more() -> None:
    table = Table().seated()
    effect = effects(table, AtTable(command=AbandonSeat(seat=0), **world("vera")))
    assert notes_of(effect) == [("anna", "player_left"), ("boris", "player_left")]
    rng = random.Random(5)
    heard: set[str] = set()
    while not g.is_terminal(table.state):
        seat = g.to_act(table.pulka)[0]
        move = rng.choice(g.legal_actions(table.pulka, seat))
        request: GameRequest
        if seat == 2:  # vera's seat is the service's to play
            request = StewardAct(command=PlayFor(seat=seat, move=move), **world("service"))
        else:
            request = act(PLAYERS[seat], move)
        effect = effects(table, request)
        heard |= {player for player, _ in notes_of(effect)} if effect else set()
    assert "vera" not in heard and heard == {"anna", "boris"}
    assert notes_of(effect)[-2:] == [("anna", "game_ended"), ("boris", "game_ended")]
    assert effect is not None and effect["status"] == "finished" and effect["to_act"] == []
