"""Puzzle ratings: a solved puzzle raises its solver and lowers the puzzle, a missed one the
other way round, and a harder puzzle is worth more to solve."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as s

from projections.puzzle_rating import MU, SIGMA, PuzzleRating, rate_attempt

mus = s.floats(min_value=0, max_value=50)
sigmas = s.floats(min_value=0.5, max_value=SIGMA)


def test_the_starting_rating_is_the_game_ratings_one() -> None:
    assert PuzzleRating() == PuzzleRating(mu=MU, sigma=SIGMA, attempts=0, solved=0)


@given(mus, sigmas, mus, sigmas)
def test_solving_raises_the_player_and_lowers_the_puzzle(a: float, sa: float, b: float,
                                                        sb: float) -> None:  # fmt: skip
    player, puzzle = PuzzleRating(mu=a, sigma=sa), PuzzleRating(mu=b, sigma=sb)
    won, beaten = rate_attempt(player, puzzle, True)
    lost, held = rate_attempt(player, puzzle, False)
    assert won.mu > a > lost.mu and beaten.mu < b < held.mu
    assert won.attempts == lost.attempts == beaten.attempts == held.attempts == 1
    assert (won.solved, lost.solved, beaten.solved, held.solved) == (1, 0, 1, 0)
    # sigma shrinks with what was learnt, after openskill's drift (tau = sigma0 / 100) widened it
    drift = (SIGMA / 100) ** 2
    assert won.sigma <= math.sqrt(sa**2 + drift) and held.sigma <= math.sqrt(sb**2 + drift)


@given(mus, mus)
def test_a_harder_puzzle_solved_is_worth_more(a: float, b: float) -> None:
    easy, hard = sorted((a, b))
    player = PuzzleRating()
    gain_easy = rate_attempt(player, PuzzleRating(mu=easy), True)[0].mu
    gain_hard = rate_attempt(player, PuzzleRating(mu=hard), True)[0].mu
    assert gain_hard >= gain_easy
