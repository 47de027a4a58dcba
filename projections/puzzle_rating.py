"""Puzzle ratings: the solver's and the puzzle's, both moved by each rated attempt.

An attempt is a duel between a player and a puzzle: solved, the player ranks first; missed, the
puzzle does. Both are rated with openskill's Plackett–Luce model and its defaults (μ₀ = 25,
σ₀ = 25/3), the model of the game ratings (`projections.ratings`), so the two scales read alike:
a puzzle rated as high as a player is one he solves about half the time. A player's first
attempt at a puzzle is the only one rated; the next puzzle offered is the one he has not tried
whose ``mu`` is nearest his own.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec
from openskill.models import PlackettLuce

_MODEL = PlackettLuce()
MU: float = _MODEL.mu
SIGMA: float = _MODEL.sigma


class PuzzleRating(msgspec.Struct, frozen=True, kw_only=True):
    """A player's puzzle rating, or a puzzle's."""

    mu: float = MU
    sigma: float = SIGMA
    attempts: int = 0
    solved: int = 0
    """Attempts that found the answer: the player's puzzles solved, or the puzzle's solvers."""


def rate_attempt(
    player: PuzzleRating, puzzle: PuzzleRating, solved: bool
) -> tuple[PuzzleRating, PuzzleRating]:
    """The player's and the puzzle's ratings after the player's attempt."""
    teams = [
        [_MODEL.rating(mu=player.mu, sigma=player.sigma)],
        [_MODEL.rating(mu=puzzle.mu, sigma=puzzle.sigma)],
    ]
    (p,), (q,) = _MODEL.rate(teams, ranks=[1, 2] if solved else [2, 1])
    return (
        PuzzleRating(mu=p.mu, sigma=p.sigma, attempts=player.attempts + 1,
                     solved=player.solved + solved),
        PuzzleRating(mu=q.mu, sigma=q.sigma, attempts=puzzle.attempts + 1,
                     solved=puzzle.solved + solved),
    )  # fmt: skip


class Attempt(msgspec.Struct, frozen=True):
    """A rated attempt as the log of attempts keeps it: who, which puzzle, found or not."""

    player: str
    puzzle: str
    solved: bool


def fold_attempts(
    attempts: Iterable[Attempt],
) -> tuple[dict[str, PuzzleRating], dict[str, PuzzleRating]]:
    """Every player's and every puzzle's rating after ``attempts``, in the order they were
    rated: the ratings rebuilt from zero, equal to those kept as each attempt was made."""
    players: dict[str, PuzzleRating] = {}
    puzzles: dict[str, PuzzleRating] = {}
    for a in attempts:
        players[a.player], puzzles[a.puzzle] = rate_attempt(
            players.get(a.player, PuzzleRating()), puzzles.get(a.puzzle, PuzzleRating()), a.solved
        )
    return players, puzzles
