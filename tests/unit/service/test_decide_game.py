"""The games' decider (`service.games.commands.decide_game`), pure: a player's request is the
domain's command plus the deals that follow it and, at the end, the secret; the world (the deal
source, entropy, the time) comes in with the request."""

from __future__ import annotations

import hashlib
import random

import pytest
from game_requests import AT, CLOCKED, FIXED, HANDS, PLAYERS, TALON, Table, committed, create, world

from domain import game as g
from domain.deal.messages import DealStarted, Pass, Passed
from domain.errors import IllegalAction
from domain.table import AbandonSeat, TimedOut, TimeOut, TurnClock
from service.exceptions import GameNotFound, NotSeated
from service.games.commands import (
    CALLERS_SEAT,
    Act,
    AtTable,
    GameRequest,
    Join,
    StewardAct,
    decide_game,
)
from service.games.dealing import DealSource, new_source


def kinds(events: list[g.Event]) -> list[str]:
    return [type(e).__name__ for e in events]


def test_creating_a_game_seats_its_creator_and_its_bots_and_deals_once_the_table_is_full() -> None:
    request = create(bots=((None, "bot-1", "bot seed 1"), (2, "bot-2", "bot seed 2")))
    events = decide_game(request, g.INITIAL_STATE)
    assert kinds(events) == ["GameCreated", "PlayerSeated", "PlayerSeated", "PlayerSeated",
                             "DealStarted"]  # fmt: skip
    seated = [e for e in events if isinstance(e, g.PlayerSeated)]
    assert [(e.seat, e.player, e.client_seed) for e in seated] == [
        (0, "anna", "anna's"), (1, "bot-1", "bot seed 1"), (2, "bot-2", "bot seed 2"),
    ]  # fmt: skip
    assert isinstance(events[0], g.GameCreated) and events[0].at == AT
    dealt = events[-1]
    assert isinstance(dealt, DealStarted) and dealt.talon == TALON
    assert [sorted(hand) for hand in dealt.hands] == [sorted(hand) for hand in HANDS]


def test_a_new_game_names_how_it_is_dealt_and_commits_to_a_drawn_secret_only() -> None:
    source = committed()
    (created, _) = decide_game(create(source=source), g.INITIAL_STATE)
    assert isinstance(created, g.GameCreated) and source.secret is not None
    assert created.dealing == "random"
    assert created.commitment == hashlib.sha256(source.secret).hexdigest()
    (seeded, _) = decide_game(create(source=new_source(3, seed="t-7")), g.INITIAL_STATE)
    assert isinstance(seeded, g.GameCreated)
    assert (seeded.dealing, seeded.commitment) == ("seeded", None)
    (legacy, _) = decide_game(create(source=FIXED), g.INITIAL_STATE)
    assert isinstance(legacy, g.GameCreated)
    assert (legacy.dealing, legacy.commitment, legacy.fixed_deals) == (None, None, 1)


@pytest.mark.parametrize(
    "request_",
    [
        Join(**world("boris")),
        Act(command=Pass(seat=0), **world("anna")),
        AtTable(command=AbandonSeat(seat=0), **world("anna")),
        StewardAct(command=TimeOut(seat=0, move=Pass(seat=0)), **world("service")),
    ],
    ids=["join", "act", "at table", "steward"],
)
def test_anything_but_creating_it_is_refused_before_the_game_exists(request_: GameRequest) -> None:
    with pytest.raises(GameNotFound):
        decide_game(request_, g.INITIAL_STATE)


def test_joining_takes_the_first_free_seat_unless_a_seat_is_asked_for() -> None:
    table = Table()
    table.run(create())
    (seated,) = table.run(Join(wanted=2, client_seed="vera's", **world("vera")))
    assert isinstance(seated, g.PlayerSeated) and (seated.seat, seated.player) == (2, "vera")
    events = table.run(Join(client_seed="boris's", **world("boris")))
    assert kinds(events) == ["PlayerSeated", "DealStarted"]
    assert table.pulka.players == ("anna", "boris", "vera")


def test_a_second_seat_for_the_same_player_and_a_seat_at_a_full_table_are_refused() -> None:
    table = Table()
    table.run(create())
    with pytest.raises(IllegalAction) as again:
        table.run(Join(**world("anna")))
    assert again.value.code == "illegal.already_seated"
    for player in PLAYERS[1:]:
        table.run(Join(**world(player)))
    with pytest.raises(IllegalAction) as full:
        table.run(Join(**world("gleb")))
    assert full.value.code == "illegal.table_full"


def test_a_players_command_is_decided_for_his_own_seat_and_stamped_with_the_services_time() -> None:
    table = Table().seated(rules=CLOCKED)
    forehand = g.to_act(table.pulka)[0]
    player = table.pulka.players[forehand]
    assert player is not None
    # Another seat, and a time the client would send: his own seat and the service's time count.
    sent = Pass(seat=(forehand + 1) % 3, at=1)

    events = table.run(Act(command=sent, **world(player, at=AT + 5)))
    assert events[0] == Passed(seat=forehand)
    (clock,) = [e for e in events if isinstance(e, TurnClock)]
    assert clock.at == AT + 5 and clock.turns[(forehand + 1) % 3] == AT + 5


def test_a_command_from_someone_not_seated_is_refused_and_so_is_one_after_abandoning() -> None:
    table = Table().seated()
    with pytest.raises(NotSeated):
        table.act("gleb", Pass(seat=0))
    table.run(AtTable(command=AbandonSeat(seat=CALLERS_SEAT), **world("vera")))
    with pytest.raises(IllegalAction) as abandoned:
        table.act("vera", Pass(seat=0))
    assert abandoned.value.code == "illegal.abandoned"


def test_the_stewards_timeout_is_stamped_with_its_own_time() -> None:
    table = Table().seated(rules=CLOCKED)
    seat = g.to_act(table.pulka)[0]
    late = AT + 60_000
    events = table.run(
        StewardAct(command=TimeOut(seat=seat, move=Pass(seat=seat)), **world("service", at=late))
    )
    (timed_out,) = [e for e in events if isinstance(e, TimedOut)]
    assert (timed_out.seat, timed_out.at) == (seat, late)
    assert "Passed" in kinds(events)


def test_the_stewards_timeout_before_the_deadline_is_refused() -> None:
    table = Table().seated(rules=CLOCKED)
    seat = g.to_act(table.pulka)[0]
    with pytest.raises(IllegalAction):
        table.run(StewardAct(command=TimeOut(seat=seat, move=Pass(seat=seat)), **world("service")))


def test_a_request_of_no_known_kind_is_a_type_error() -> None:
    table = Table().seated()
    with pytest.raises(TypeError):
        decide_game(GameRequest(**world("anna")), table.state)


def test_the_request_that_ends_a_committed_game_reveals_its_secret_in_the_same_events() -> None:
    source = committed()
    table = Table().seated(source=source)
    last = table.play_out(random.Random(3), source)
    assert isinstance(table.state, g.PulkaClosed)
    assert kinds(last)[-2:] == ["GameEnded", "SecretRevealed"]
    assert source.secret is not None and last[-1] == g.SecretRevealed(secret=source.secret.hex())


def test_a_game_without_a_secret_reveals_nothing_at_its_end() -> None:
    table = Table().seated()
    last = table.play_out(random.Random(3))
    assert isinstance(table.state, g.PulkaClosed) and "SecretRevealed" not in kinds(last)


def test_a_legacy_shuffle_is_the_entropy_the_request_brings() -> None:
    legacy = DealSource(seats=3)

    def first_deal(entropy: bytes) -> DealStarted:
        table = Table()
        table.run(create(source=legacy))
        for player in PLAYERS[1:]:
            base = world(player, legacy)
            table.run(Join(**{**base, "entropy": entropy}))
        dealt = table.events[-1]
        assert isinstance(dealt, DealStarted)
        return dealt

    assert first_deal(b"a" * 32) == first_deal(b"a" * 32)
    assert first_deal(b"a" * 32).hands != first_deal(b"b" * 32).hands
