"""The database deals (migration 0018): its deck is domain/fairness.py's second derivation, it
gives only the due deal of a game still played, a game it dealt verifies to its end, and a
game of the first derivation still in progress deals and verifies as before.

The games are played through `GameService` on the request path's own role, as the API does."""

from __future__ import annotations

import random
import uuid

import asyncpg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain import fairness
from domain import game as g
from domain.deal.messages import DealStarted
from service.eventlog.codec import domain_codec
from service.eventlog.log import game_log
from service.games.dealing import DealNotDue, Layout, new_source
from service.games.lobby import Lobby
from service.games.proof import Proof, from_records, prove
from service.games.service import GameService, GameSpec, game_spec
from service.games.streams import game_stream
from service.players.accounts import Player

pytestmark = pytest.mark.integration

QUICK = {"pool": {"target": 10, "max_deals": 2}}


async def _players(pool: asyncpg.Pool, seats: int) -> list[Player]:
    players = [Player(id=str(uuid.uuid4()), name=f"p{i}") for i in range(seats)]
    for player in players:
        await pool.execute(
            "INSERT INTO api.players (player_id, name, kind) VALUES ($1, $2, 'human')",
            uuid.UUID(player.id), f"{player.name} {player.id[:8]}",
        )  # fmt: skip
    return players


async def _seated(service: GameService, spec: GameSpec, players: list[Player]) -> uuid.UUID:
    """A game created by the first player (seat 0) and joined by the others, seat by seat."""
    done = await service.create(players[0], spec, key=None, fingerprint=b"")
    assert done.outcome is not None
    game_id = done.outcome.game_id
    for seat, player in enumerate(players[1:], start=1):
        await service.join(
            game_id, player, seat, key=None, fingerprint=b"", expected=None, seed=f"seat {seat}"
        )
    return game_id


async def _play(service: GameService, game_id: uuid.UUID, players: list[Player]) -> g.GameState:
    """Random legal moves to the game's end; its final state."""
    rng = random.Random(str(game_id))
    _, state = await service.state(game_id)
    while not g.is_terminal(state):
        assert isinstance(state, g.Pulka)
        seat = g.to_act(state)[0]
        move = rng.choice(g.legal_actions(state, seat))
        await service.act(game_id, players[seat], move, key=None, fingerprint=b"", expected=None)
        _, state = await service.state(game_id)
    return state


async def _proof(pool: asyncpg.Pool, game_id: uuid.UUID) -> Proof:
    records = await game_log(pool, announce=False).store.read_stream(game_stream(game_id), 1)
    return prove(game_stream(game_id), from_records(records), domain_codec())


def _service(pool: asyncpg.Pool) -> GameService:
    return GameService(game_log(pool, announce=False), Lobby(pool))


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    secret=st.binary(min_size=1, max_size=64),
    seeds=st.lists(st.text(max_size=40), max_size=5),
    deal_no=st.integers(min_value=1, max_value=10_000),
)
async def test_the_databases_deck_is_the_second_derivation(
    pool: asyncpg.Pool, secret: bytes, seeds: list[str], deal_no: int
) -> None:
    seeds = [s.replace("\x00", "") for s in seeds]  # PostgreSQL's text holds no NUL
    deck = await pool.fetchval("SELECT api.deck_v2($1, $2, $3)", secret, seeds, deal_no)
    assert tuple(deck) == fairness.deck_for(secret, seeds, deal_no, 2)
    assert tuple(deck) != fairness.deck_for(secret, seeds, deal_no, 1)  # another scheme


@pytest.mark.parametrize("seats", [3, 4])
async def test_a_game_the_database_deals_verifies_to_its_end(
    app_pool: asyncpg.Pool, pool: asyncpg.Pool, seats: int
) -> None:
    service, players = _service(app_pool), await _players(pool, seats)
    spec = game_spec(
        preset="sochi", overrides=QUICK, seats=seats, first_dealer=0, layouts=(), seed=None,
        seat=0, seat_seed="Anna's",
    )  # fmt: skip
    game_id = await _seated(service, spec, players)
    _, state = await service.state(game_id)
    assert isinstance(state, g.Pulka) and state.fairness == 2 and state.deal_no == 1
    before = await _proof(pool, game_id)
    assert before.verdict == "verified_so_far" and {d.status for d in before.deals} == {"pending"}
    final = await _play(service, game_id, players)
    assert isinstance(final, g.PulkaClosed) and final.secret is not None
    drawn = await pool.fetchval("SELECT secret FROM api.deal_secrets WHERE game_id = $1", game_id)
    assert final.secret == bytes(drawn).hex()  # the database's secret, revealed at the end
    proof = await _proof(pool, game_id)
    assert proof.verdict == "verified" and proof.fairness == 2, proof.problems
    assert len(proof.deals) >= 2 and {d.status for d in proof.deals} == {"matches"}


class Waiting(GameService):
    """A service that stops after each command, before its follow-up (as a process that
    crashed there would): the table waits for its deal."""

    async def _follow_up(self, game_id: uuid.UUID, state: g.GameState | None, version: int) -> None:
        return None


async def test_only_the_due_deal_of_a_game_still_played_is_given(
    app_pool: asyncpg.Pool, pool: asyncpg.Pool
) -> None:
    players = await _players(pool, 3)
    spec = game_spec(
        preset="sochi", overrides=QUICK, seats=3, first_dealer=0, layouts=(), seed=None, seat=0,
    )  # fmt: skip
    game_id = await _seated(Waiting(game_log(app_pool, announce=False), Lobby(app_pool)), spec,
                            players)  # fmt: skip
    lobby = Lobby(app_pool)
    for deal_no in (0, 2, 3, 50):  # the table is full and waits: deal 1 is due
        with pytest.raises(DealNotDue, match=r"deal 1 .* is due"):
            await lobby.due_deal(game_id, deal_no)
    due = await lobby.due_deal(game_id, 1)  # asked again before its deal_started: the same deal
    assert due == await lobby.due_deal(game_id, 1) and due.deck is not None
    assert await lobby.game_secret(game_id) is None  # not before the end

    service = _service(app_pool)
    await service.state(game_id)  # seen waiting: this process deals it before its next command
    await service._unstall(game_id)
    _, dealt = await service.state(game_id)
    assert isinstance(dealt, g.Pulka) and dealt.deal_no == 1 and not g.needs_cards(dealt)
    for deal_no in (1, 2, 3):  # while deal 1 is played, none: not even the next
        with pytest.raises(DealNotDue, match="deal_in_progress"):
            await lobby.due_deal(game_id, deal_no)
    await _play(service, game_id, players)
    with pytest.raises(DealNotDue, match="is over"):
        await lobby.due_deal(game_id, 3)
    assert await lobby.game_secret(game_id) is not None


async def test_a_fixed_game_is_laid_out_then_dealt_by_the_database(
    app_pool: asyncpg.Pool, pool: asyncpg.Pool
) -> None:
    players = await _players(pool, 3)
    deck = fairness.deck_for(b"layout", [], 1)
    hands, talon = fairness.deal_hands(deck, 3, 0)
    spec = game_spec(
        preset="sochi", overrides=QUICK, seats=3, first_dealer=0,
        layouts=[Layout(hands=hands, talon=talon)], seed=None, seat=0,
    )  # fmt: skip
    waiting = Waiting(game_log(app_pool, announce=False), Lobby(app_pool))
    game_id = await _seated(waiting, spec, players)
    due = await Lobby(app_pool).due_deal(game_id, 1)
    assert due.deck is None and due.layout == Layout(hands=hands, talon=talon)
    service = _service(app_pool)
    await service.state(game_id)
    await service._unstall(game_id)
    events = [r.event for r in await service.log.read(game_stream(game_id))]
    dealt = next(e for e in events if isinstance(e, DealStarted))
    assert dealt.hands == hands and tuple(dealt.talon) == talon
    await _play(service, game_id, players)
    proof = await _proof(pool, game_id)
    assert proof.verdict == "verified", proof.problems
    assert [d.status for d in proof.deals][:2] == ["fixed", "matches"]  # then derived


async def test_a_game_of_the_first_derivation_still_deals_and_verifies(
    app_pool: asyncpg.Pool, pool: asyncpg.Pool
) -> None:
    """A game created as before migration 0018 (its secret drawn by the service, kept in
    api.deal_sources, ``fairness`` 1) is dealt by the service from api.deal_source until it
    ends, and reveals its secret in the command that ends it."""
    service, players = _service(app_pool), await _players(pool, 3)
    spec = game_spec(
        preset="sochi", overrides=QUICK, seats=3, first_dealer=0, layouts=(), seed=None, seat=0,
    )  # fmt: skip
    spec = GameSpec(
        rules=spec.rules, first_dealer=0, source=new_source(3), take_seat=0,
        client_seed="Anna's",
    )  # fmt: skip
    game_id = await _seated(service, spec, players)
    _, state = await service.state(game_id)
    assert isinstance(state, g.Pulka) and state.fairness == 1 and state.deal_no == 1
    assert (await service.deal_source(game_id)) is not None  # still read while it is dealt
    final = await _play(service, game_id, players)
    assert spec.source.secret is not None
    assert isinstance(final, g.PulkaClosed) and final.secret == spec.source.secret.hex()
    proof = await _proof(pool, game_id)
    assert proof.verdict == "verified" and proof.fairness == 1, proof.problems
    assert await app_pool.fetch("SELECT * FROM api.deal_source($1)", game_id) == []


async def test_a_table_left_waiting_for_its_deal_is_dealt_when_anyone_reads_it(app_pool):
    """The process whose command seated the last player stopped before its follow-up (the
    deal): no seat can act, and the next reader, in another process, deals it."""
    players = await _players(app_pool, 3)
    crashed = _service(app_pool)
    spec = game_spec(preset="sochi", overrides={"pool": {"target": 2}}, seats=3, first_dealer=0,
                     layouts=(), seed=None, seat=0)  # fmt: skip
    done = await crashed.create(players[0], spec, key=None, fingerprint=b"")
    assert done.outcome is not None
    game_id = done.outcome.game_id
    await crashed.join(game_id, players[1], 1, key=None, fingerprint=b"", expected=None)

    async def stopped(*_: object) -> None:
        return None

    crashed._follow_up = stopped  # type: ignore[method-assign]
    await crashed.join(game_id, players[2], 2, key=None, fingerprint=b"", expected=None)
    _, waiting = await _service(app_pool).state(game_id)
    assert isinstance(waiting, g.Pulka) and g.needs_cards(waiting) and not g.to_act(waiting)
    _, seen, _ = await _service(app_pool).view_state(game_id)
    assert isinstance(seen, g.Pulka) and not g.needs_cards(seen) and g.to_act(seen)


async def test_the_steward_deals_a_table_nobody_reads_that_was_left_waiting(app_pool):
    """A table of bots, say: nobody reads it, nobody can act; the steward's sweep deals it."""
    players = await _players(app_pool, 3)
    crashed = _service(app_pool)
    spec = game_spec(preset="sochi", overrides={"pool": {"target": 2}}, seats=3, first_dealer=0,
                     layouts=(), seed=None, seat=0)  # fmt: skip
    done = await crashed.create(players[0], spec, key=None, fingerprint=b"")
    assert done.outcome is not None
    game_id = done.outcome.game_id
    await crashed.join(game_id, players[1], 1, key=None, fingerprint=b"", expected=None)

    async def stopped(*_: object) -> None:
        return None

    crashed._follow_up = stopped  # type: ignore[method-assign]
    await crashed.join(game_id, players[2], 2, key=None, fingerprint=b"", expected=None)
    other, again = _service(app_pool), _service(app_pool)
    assert game_id in await other.lobby.waiting()
    assert await other.deal_waiting() == 1
    assert await again.deal_waiting() == 0  # dealt once, whoever sweeps next
    _, state = await again.state(game_id)
    assert isinstance(state, g.Pulka) and state.deal_no == 1 and g.to_act(state)
