"""What-if studies on a real PostgreSQL: forked from a finished deal only, played to the deal's
end by hand and by bots, compared, annotated, shared; and never seen by a projection."""

from __future__ import annotations

import uuid
from typing import Any

import asyncpg
import pytest
from bot_games import append_games

from domain import study as st
from domain.deal.messages import CardPlayed, DealEnded
from projections.replay import deal_log
from service.eventlog.log import game_log
from service.exceptions import Forbidden, NotYet, StudyNotFound, StudyOfLiveGame
from service.games.studies import StudyService, study_codec, study_log, study_stream
from service.games.tournaments import DuplicateEmbargo, Embargo
from service.read_models.analyst import Analyst
from service.read_models.miner import Miner
from service.read_models.runner import Projections
from service.read_models.storage import READ_MODELS

pytestmark = [pytest.mark.integration]

OWNER, FRIEND = str(uuid.uuid4()), str(uuid.uuid4())
PLAYERS = [str(uuid.uuid4()) for _ in range(3)]


def service(pool: asyncpg.Pool) -> StudyService:
    games = game_log(pool)
    return StudyService(study_log(games), games, Embargo(pool))


async def test_the_catalog_of_a_study_stream_is_the_domains_events(pool: asyncpg.Pool) -> None:
    rows = await pool.fetch(
        "SELECT event_type, schema_version, place FROM es.event_kinds WHERE stream_type = 'study'"
    )
    codec = study_codec()
    assert {r[0]: r[1] for r in rows} == dict(codec.current_versions)
    tags = {cls.__struct_config__.tag for cls in st.Event.__args__}
    assert set(codec.current_versions) == tags
    places = {r[0]: r[2] for r in rows}
    assert places.pop("study_forked") == "first"
    assert set(places.values()) == {"any"}


def _first_card(events: list[Any], deal_no: int) -> int:
    log = deal_log(events, deal_no)
    return next(k for k, e in enumerate(log.events) if isinstance(e, CardPlayed))


def _played_deal(events: list[Any]) -> int:
    n = 1
    while not any(isinstance(e, CardPlayed) for e in deal_log(events, n).events):
        n += 1
    return n


async def test_a_study_is_forked_played_to_the_end_compared_annotated_and_shared(
    app_pool: asyncpg.Pool,
) -> None:
    (game,), _ = await append_games(game_log(app_pool).store, PLAYERS, [21])
    studies = service(app_pool)
    deal_no = _played_deal(game.events)
    step = _first_card(game.events, deal_no)
    study_id, result = await studies.fork(
        OWNER, uuid.UUID(game.game_id), deal_no, step, bots=(None, "basic", "random")
    )
    state = result.state
    assert isinstance(state, st.Study)
    real = deal_log(game.events, deal_no).events
    assert state.events[:step] == real[:step]
    # The owner plays seat 0 (his hand) with its last legal card each time; the bots answer.
    while not state.over:
        seat = st.to_act(state)[0]
        assert state.bots[seat] is None, "a bot's turn is played before the owner hears back"
        result = await studies.move(study_id, OWNER, st.legal_moves(state, seat)[-1])
        assert isinstance(result.state, st.Study)
        state = result.state
    assert isinstance(state.events[-1], DealEnded)
    stored = await app_pool.fetch(
        "SELECT metadata->>'actor' FROM es.events WHERE stream_id = $1 ORDER BY version",
        study_stream(study_id),
    )
    actors = {r[0] for r in stored}
    assert {OWNER, "bot:basic", "bot:random"} <= actors

    found = await studies.comparison(study_id, OWNER)
    assert found.fork_step == step and found.study.finished and found.real.finished
    assert [c.analysis.card for c in found.study.cards] == [
        e.card for e in state.events if isinstance(e, CardPlayed)
    ]
    if found.diverged_at is not None:
        assert state.events[found.diverged_at - 1] != real[found.diverged_at - 1]

    await studies.annotate(study_id, OWNER, step + 1, "the first card of the study")
    _, state = await studies.state(study_id)
    assert [(n.step, n.text) for n in state.notes] == [(step + 1, "the first card of the study")]

    # Not shared: nobody else reads it. Shared: anyone reads it, and only its owner changes it.
    with pytest.raises(StudyNotFound):
        await studies.read(study_id, FRIEND)
    await studies.share(study_id, OWNER, True)
    _, seen = await studies.read(study_id, FRIEND)
    assert seen.notes == state.notes
    _, anonymous = await studies.read(study_id, None)
    assert anonymous.shared
    with pytest.raises(Forbidden):
        await studies.annotate(study_id, FRIEND, 1, "mine now")
    listed, _ = await studies.mine(OWNER)
    assert [i.id for i in listed] == [study_id]
    assert (await studies.mine(FRIEND))[0] == []


async def test_a_game_in_play_and_an_open_duplicate_table_are_never_forked(
    app_pool: asyncpg.Pool, pool: asyncpg.Pool
) -> None:
    store = game_log(app_pool).store
    (finished, live), _ = await append_games(store, PLAYERS, [22, 23], unfinished=1)
    studies = service(app_pool)
    assert deal_log(live.events, 1).finished, "the live game has a finished deal"
    with pytest.raises(StudyOfLiveGame) as refused:
        await studies.fork(OWNER, uuid.UUID(live.game_id), 1)
    assert refused.value.code == "study.game_in_play" and isinstance(refused.value, NotYet)

    tournament = uuid.uuid4()
    await pool.execute(
        "INSERT INTO api.tournaments (tournament_id, name, kind, status)"
        " VALUES ($1, 'Cup', 'duplicate', 'running')",
        tournament,
    )
    await pool.execute(
        "INSERT INTO api.tournament_tables (game_id, tournament_id, round_no, table_no, players,"
        " embargoed) VALUES ($1, $2, 1, 1, $3::uuid[], true)",
        uuid.UUID(finished.game_id), tournament, PLAYERS,
    )  # fmt: skip
    with pytest.raises(DuplicateEmbargo):
        await studies.fork(OWNER, uuid.UUID(finished.game_id), 1)
    await pool.execute("UPDATE api.tournament_tables SET embargoed = false")
    study_id, _ = await service(app_pool).fork(OWNER, uuid.UUID(finished.game_id), 1)
    assert await app_pool.fetchval("SELECT count(*) FROM api.studies") == 1
    assert study_id


async def _read_models(pool: asyncpg.Pool) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every read model's tables (both slots), the times of writing left out."""
    out: dict[str, list[tuple[Any, ...]]] = {}
    for model in READ_MODELS:
        for table in model.tables:
            for slot in "ab":
                rows = await pool.fetch(f"SELECT * FROM rm.{table}_{slot}")
                out[f"{table}_{slot}"] = sorted(
                    tuple(v for k, v in r.items() if k not in ("at", "leased_until")) for r in rows
                )
    return out


async def test_the_projections_ignore_studies(
    app_pool: asyncpg.Pool, projections_pool: asyncpg.Pool, pool: asyncpg.Pool
) -> None:
    games, log = await append_games(game_log(app_pool).store, PLAYERS, [24, 25])
    runner = Projections(game_log(projections_pool))
    await runner.catch_up(until=log.cursor)
    await Analyst(game_log(projections_pool)).drain()
    await Miner(game_log(projections_pool)).drain()
    before = await _read_models(pool)
    assert before["ratings_a"] and before["stats_players_a"] and before["sheet_a"]

    studies = service(app_pool)
    for game in games:  # every deal with play forked, played to its end by the owner
        deal_no = _played_deal(game.events)
        study_id, result = await studies.fork(OWNER, uuid.UUID(game.game_id), deal_no, 1)
        state = result.state
        assert isinstance(state, st.Study)
        while not state.over:
            seat = st.to_act(state)[0]
            result = await studies.move(study_id, OWNER, st.legal_moves(state, seat)[0])
            assert isinstance(result.state, st.Study)
            state = result.state
        last = await studies.annotate(study_id, OWNER, 1, "dealt")
    ended = await pool.fetchval(
        "SELECT count(*) FROM es.events"
        " WHERE stream_id LIKE 'study-%' AND event_type = 'deal_ended'"
    )
    assert ended == len(games)

    assert last.cursor is not None
    await runner.catch_up(until=last.cursor)
    await Analyst(game_log(projections_pool)).drain()
    await Miner(game_log(projections_pool)).drain()
    assert await _read_models(pool) == before
    assert all(s.lag == 0 for s in await runner.status())
    # And a rebuild from the whole log, studies and all, gives the same read models.
    await runner.rebuild([m.name for m in READ_MODELS])
    await Analyst(game_log(projections_pool)).drain()
    await Miner(game_log(projections_pool)).drain()
    after = await _read_models(pool)
    for table in ("sheet", "stats_players", "ratings", "rating_history", "analysis_players"):
        assert after[f"{table}_b"] == before[f"{table}_a"], table
    assert not any("study" in repr(rows) for rows in after.values())
