"""Ratings: openskill Plackett–Luce by settlement result; doing better never rates you lower."""

from __future__ import annotations

import itertools
import math

import msgspec
import pytest
from _hypothesis import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pulkas import flat, play_pulka, small_rules

from domain import game as g
from projections import ratings
from projections.ratings import (
    MU,
    PROVISIONAL_GAMES,
    SIGMA,
    Board,
    Rating,
    leaderboard,
    places,
    rate_game,
)

EPS = 1e-9

priors = st.builds(
    Rating,
    mu=st.floats(min_value=0.0, max_value=50.0),
    sigma=st.floats(min_value=0.5, max_value=SIGMA),
    games=st.integers(0, 50),
)


@st.composite
def game_and_two_results(draw):
    n = draw(st.sampled_from([3, 4]))
    prior = draw(st.lists(priors, min_size=n, max_size=n))
    results = draw(st.lists(st.integers(-300, 300), min_size=n, max_size=n))
    player = draw(st.integers(0, n - 1))
    # Results near the others' make ties likely, the delicate case.
    near = st.sampled_from(results) | st.integers(-300, 300)
    worse, better = sorted((draw(near), draw(near)))
    weight = draw(st.sampled_from([1.0, 0.5, 1.5, 2.0, 3.0]) | st.floats(0.0, 3.0))
    return prior, results, player, worse, better, weight


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_and_two_results())
def test_a_better_result_never_gives_a_lower_rating_change(case):
    """Whatever the game's weight (a tournament's tables count more or less)."""
    prior, results, player, worse, better, weight = case

    def change(result):
        mine = list(results)
        mine[player] = result
        after = rate_game(prior, mine, weight)[player]
        return after.mu - prior[player].mu, after.ordinal - prior[player].ordinal

    (mu_worse, ordinal_worse), (mu_better, ordinal_better) = change(worse), change(better)
    assert mu_better >= mu_worse - EPS
    assert ordinal_better >= ordinal_worse - EPS


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(st.integers(-300, 300), min_size=3, max_size=4),
    priors,
)
def test_among_equally_rated_players_the_better_result_gains_at_least_as_much(results, prior):
    after = rate_game([prior] * len(results), results)
    for i, a in enumerate(results):
        for j, b in enumerate(results):
            if a > b:
                assert after[i].mu > after[j].mu
            if a == b:
                assert after[i].mu == pytest.approx(after[j].mu)
                assert after[i].sigma == pytest.approx(after[j].sigma)


def test_a_won_game_raises_the_winner_and_lowers_the_loser_and_uncertainty_shrinks():
    before = [Rating(), Rating(), Rating()]
    after = rate_game(before, [120, -20, -100])
    assert after[0].mu > MU > after[2].mu
    assert all(a.sigma < SIGMA for a in after)
    assert [a.games for a in after] == [1, 1, 1]


def test_places_share_a_place_on_equal_results():
    assert places([10, -5, -5]) == [1, 2, 2]
    assert places([0, 0, 0, 0]) == [1, 1, 1, 1]
    assert places([-1, 3, 2, 3]) == [4, 1, 3, 1]


def test_a_rating_is_provisional_until_enough_games():
    assert Rating(games=PROVISIONAL_GAMES - 1).provisional
    assert not Rating(games=PROVISIONAL_GAMES).provisional
    assert Rating(mu=30, sigma=2).ordinal == pytest.approx(24)


def test_a_game_needs_one_result_per_player():
    with pytest.raises(ValueError, match="one result each"):
        rate_game([Rating(), Rating()], [1, 2, 3])


def test_the_board_rates_every_finished_game_once_in_log_order_with_history():
    board = Board()
    games = []
    ids = ["ann", "bob", "cid", "dan"]
    for n, seed in enumerate(range(6)):
        seats = [ids[(n + k) % 4] for k in range(3)]
        state, appends = play_pulka(small_rules(target=2), seed, seats)
        games.append((f"game-{n}", state, flat(appends)))
    for game_id, _, events in games:
        for event in events:
            board = ratings.apply(board, game_id, event)
    for player in ids:
        history = board.history[player]
        played = [gid for gid, state, _ in games if player in state.players]
        assert [h.game_id for h in history] == played
        assert [h.game_no for h in history] == list(range(1, len(played) + 1))
        assert board.ratings[player].games == len(played)
        # Each line starts from the previous one.
        for a, b in itertools.pairwise(history):
            assert (b.mu_before, b.sigma_before) == (a.mu, a.sigma)
        assert (history[-1].mu, history[-1].sigma) == (
            board.ratings[player].mu,
            board.ratings[player].sigma,
        )
    # A repeated GameEnded (an upstream replay) does not rate the game again.
    game_id, state, events = games[0]
    ended = next(e for e in events if isinstance(e, g.GameEnded))
    assert ratings.apply(board, game_id, ended).ratings == board.ratings


def test_the_leaderboard_orders_by_the_conservative_rating():
    board = leaderboard({
        "a": Rating(mu=30, sigma=5, games=9),   # 15
        "b": Rating(mu=28, sigma=1, games=2),   # 25
        "c": Rating(mu=25, sigma=1, games=12),  # 22
    })  # fmt: skip
    assert [(e.rank, e.player_id) for e in board] == [(1, "b"), (2, "c"), (3, "a")]
    assert [e.provisional for e in board] == [True, False, False]
    assert board[0].rating == pytest.approx(25)


def test_a_player_who_abandoned_ranks_last_unless_the_table_rates_the_seat_as_played() -> None:
    from domain.game import PlayerSeated
    from domain.table import SeatAbandoned
    from projections.ratings import RatedGame, apply_game, rate_finished

    game = RatedGame(players=("a", "b", "c"))
    game = apply_game(game, SeatAbandoned(seat=1, player="b"))
    game = apply_game(game, PlayerSeated(seat=1, player="d"))  # taken over: still b's game
    assert game.players == ("a", "b", "c") and game.abandoned == (1,)
    ended = msgspec.structs.replace(game, result=(10, 30, -40))
    last = {p: change for p, _, change in rate_finished("g", ended, {})}
    assert [last[p].place for p in "abc"] == [1, 3, 2]
    assert last["b"].result == 30  # the history shows what his seat scored
    played = msgspec.structs.replace(ended, abandoner_last=False)
    as_played = {p: change for p, _, change in rate_finished("g", played, {})}
    assert [as_played[p].place for p in "abc"] == [2, 1, 3]
    assert last["b"].mu < as_played["b"].mu


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(priors, min_size=3, max_size=3),
    st.lists(st.integers(-300, 300), min_size=3, max_size=3),
    st.floats(0.0, 3.0),
)
def test_a_games_weight_scales_the_move_and_never_the_direction(prior, results, weight):
    ordinary = rate_game(prior, results)
    weighed = rate_game(prior, results, weight)
    for r, one, w in zip(prior, ordinary, weighed, strict=True):
        assert w.mu - r.mu == pytest.approx(weight * (one.mu - r.mu), abs=EPS)
        assert w.sigma > 0
        # The variance shrinks by the same factor raised to the weight.
        assert math.log(w.sigma / r.sigma) == pytest.approx(weight * math.log(one.sigma / r.sigma))
        assert w.games == one.games == r.games + 1


def test_weight_one_is_the_ordinary_update_exactly_and_weight_zero_changes_nothing():
    prior = [Rating(mu=27, sigma=5), Rating(), Rating(mu=20, sigma=3)]
    assert rate_game(prior, [40, -10, -30], 1) == rate_game(prior, [40, -10, -30])
    still = rate_game(prior, [40, -10, -30], 0)
    assert [(r.mu, r.sigma) for r in still] == [(r.mu, r.sigma) for r in prior]
    with pytest.raises(ValueError, match="not negative"):
        rate_game(prior, [40, -10, -30], -1)


def _weighed_rules(weight: int):
    rules = small_rules(target=2)
    table = msgspec.structs.replace(rules.table, rating_weight=weight)
    return msgspec.structs.replace(rules, table=table)


def test_the_board_rates_a_game_by_its_tables_weight_and_leaves_a_friendly_out():
    seats = ["ann", "bob", "cid"]
    boards = {}
    for weight in (100, 200, 0):
        board = Board()
        _, appends = play_pulka(_weighed_rules(weight), 3, seats)
        for event in flat(appends):
            board = ratings.apply(board, "game", event)
        boards[weight] = board
    assert boards[0].ratings == {} and boards[0].history == {}  # a friendly is not rated
    for player in seats:
        one, two = boards[100].history[player][0], boards[200].history[player][0]
        assert (one.weight, two.weight) == (100, 200)
        assert two.mu - MU == pytest.approx(2 * (one.mu - MU))
        assert two.sigma < one.sigma < SIGMA
