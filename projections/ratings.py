r"""Player ratings: a multiplayer Bayesian rating updated by every finished game.

Each player has a skill estimate ``mu`` and an uncertainty ``sigma`` (openskill's Plackett–Luce
model, Weng & Lin 2011, with openskill's defaults: μ₀ = 25, σ₀ = 25/3, β = σ₀/2, κ = 0.0001,
τ = σ₀/100). The rating shown and ranked is the conservative ``ordinal = mu − 3·sigma``, and a
player is *provisional* until he has finished `PROVISIONAL_GAMES` games.

A game is a ranking of its players by their settlement result (расчёт, in whists): the highest
result ranks first. For players ranked ``r`` (1 is best), before the update each σᵢ² grows by τ²,
and with ``c² = Σᵢ (σᵢ² + β²)`` and ``Cq = Σ_{s: r_s ≥ r_q} exp(μ_s / c)``::

    μᵢ' = μᵢ + σᵢ²/c · Σ_{q: r_q ≤ rᵢ} ( [q = i] − exp(μᵢ/c) / Cq )
    σᵢ' = σᵢ · sqrt( max(1 − σᵢ/c · σᵢ²/c² · Σ_{q: r_q ≤ rᵢ} (exp(μᵢ/c)/Cq)(1 − exp(μᵢ/c)/Cq), κ) )

Ties: equal results share a place, but openskill's own tie term can rate a tie *below* losing
to the same player. So a tie is rated as the average of the strict orderings of the tied
players, each equally likely: ``μ'`` is the mean of the μ's and ``σ'²`` the mean of the σ²'s over
those orderings (at most 4! = 24 of them). With this, a better result in a game never gives a
player a lower change of ``mu`` or of ``ordinal`` than a worse result in the same game
(tests/unit/projections/test_projection_ratings.py checks it with hypothesis over random priors).

A game counts by its table's ``table.rating_weight`` (percent of an ordinary game; a
tournament's tables take the event's weight). With ``w`` that weight over 100 and ``μₙ, σₙ`` the
update above, ``μ' = μ + w·(μₙ − μ)`` and ``σ'² = σ²·(σₙ²/σ²)^w``: weight 1 is the update itself,
0 no change at all (the game is not rated), 2 about two games' worth of the same result. The
variance shrinks by the same factor raised to ``w``, so it never goes below zero, however large
the weight.

A player who abandoned the game (`SeatAbandoned`) is rated by the table's
``table.abandon_rating``: ``last`` (the default) ranks him below every player who stayed,
whatever his seat scored as it was played for him; ``as_played`` rates that result. If another
player took the seat over (``table.reseat``), the game is rated for the one who abandoned it.

Ratings depend on the order of games; they are applied in the global log's order, so a rebuild
gives the same numbers.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import msgspec
from openskill.models import PlackettLuce

from domain.game import Event, GameCreated, GameEnded, PlayerSeated
from domain.table import SeatAbandoned

PROVISIONAL_GAMES = 5
"""A rating is provisional until the player has finished this many games."""

_MODEL = PlackettLuce()
MU: float = _MODEL.mu
SIGMA: float = _MODEL.sigma


class Rating(msgspec.Struct, frozen=True, kw_only=True):
    """A player's rating."""

    mu: float = MU
    """Estimated skill."""
    sigma: float = SIGMA
    """Uncertainty of ``mu``."""
    games: int = 0
    """Finished games rated."""

    @property
    def ordinal(self) -> float:
        """The conservative rating shown and ranked: ``mu − 3·sigma``."""
        return self.mu - 3 * self.sigma

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES


def places(results: Sequence[int | float]) -> list[int]:
    """Each player's place by result, 1 for the best; equal results share a place."""
    return [1 + sum(1 for other in results if other > mine) for mine in results]


def rate_game(
    prior: Sequence[Rating], results: Sequence[int | float], weight: float = 1.0
) -> list[Rating]:
    """The ratings after a game in which player ``i`` (rated ``prior[i]``) got ``results[i]``,
    the game counting ``weight`` times an ordinary one."""
    n = len(prior)
    if n != len(results) or n < 2:
        raise ValueError("a rated game needs two or more players, one result each")
    if weight < 0:
        raise ValueError("a game's weight is not negative")
    groups: dict[int | float, list[int]] = {}
    for i, value in enumerate(results):
        groups.setdefault(value, []).append(i)
    tied = [itertools.permutations(groups[v]) for v in sorted(groups, reverse=True)]
    teams = [[_MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in prior]
    mu_sum, var_sum, orders = [0.0] * n, [0.0] * n, 0
    for combo in itertools.product(*tied):
        ranks = [0.0] * n
        for place, i in enumerate(i for group in combo for i in group):
            ranks[i] = place + 1
        rated = _MODEL.rate(teams, ranks=ranks)
        for i in range(n):
            mu_sum[i] += rated[i][0].mu
            var_sum[i] += rated[i][0].sigma ** 2
        orders += 1
    mu = [total / orders for total in mu_sum]
    sigma = [math.sqrt(total / orders) for total in var_sum]
    if weight != 1:
        mu = [r.mu + weight * (m - r.mu) for r, m in zip(prior, mu, strict=True)]
        sigma = [r.sigma * (s / r.sigma) ** weight for r, s in zip(prior, sigma, strict=True)]
    return [Rating(mu=mu[i], sigma=sigma[i], games=r.games + 1) for i, r in enumerate(prior)]


# ---- the read model ------------------------------------------------------------------------------


class RatedGame(msgspec.Struct, frozen=True, kw_only=True):
    """What the ratings need of one game: who sits where, and the result once it is over."""

    players: tuple[str | None, ...] = ()
    result: tuple[int, ...] | None = None
    """Settlement results per seat, once `GameEnded` arrived."""
    abandoned: tuple[int, ...] = ()
    """Seats whose player abandoned the game."""
    abandoner_last: bool = True
    """``table.abandon_rating == "last"``."""
    rated: bool = True
    """False for a seeded or fixed game: its creator could know every hand (docs/fairness.md);
    and for a game of weight 0."""
    weight: int = 100
    """``table.rating_weight``: percent of an ordinary game."""


def is_rated(dealing: str | None, weight: int) -> bool:
    """Only games whose deals nobody could choose are rated (never a seeded or a fixed one), and
    only those that count for something: a friendly (weight 0, не на рейтинг) is not."""
    return dealing not in ("seeded", "fixed") and weight > 0


def apply_game(game: RatedGame, event: Event) -> RatedGame:
    """A game's record after ``event``."""
    match event:
        case GameCreated(rules=rules, dealing=dealing):
            return RatedGame(
                players=(None,) * rules.players,
                abandoner_last=rules.table.abandon_rating == "last",
                rated=is_rated(dealing, rules.table.rating_weight),
                weight=rules.table.rating_weight,
            )
        case PlayerSeated(seat=seat, player=player):
            if seat in game.abandoned:
                return game  # taken over: the game stays rated for the one who abandoned it
            players = (*game.players[:seat], player, *game.players[seat + 1 :])
            return msgspec.structs.replace(game, players=players)
        case SeatAbandoned(seat=seat):
            return msgspec.structs.replace(game, abandoned=(*game.abandoned, seat))
        case GameEnded(settlement=settlement):
            return msgspec.structs.replace(game, result=settlement.result)
    return game


HANDLED: frozenset[str] = frozenset(
    cls.__struct_config__.tag  # type: ignore[misc]
    for cls in (GameCreated, PlayerSeated, SeatAbandoned, GameEnded)
)


class RatingChange(msgspec.Struct, frozen=True, kw_only=True):
    """One line of a player's rating history: one finished game."""

    game_id: str
    game_no: int
    """The player's rated games including this one."""
    result: int
    """His settlement result in whists."""
    place: int
    """1 for the best result of the game; equal results share a place (a player who abandoned
    it ranks last when the table says so)."""
    players: int
    weight: int = 100
    """How much the game counted, in percent of an ordinary game (``table.rating_weight``)."""
    mu_before: float
    sigma_before: float
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    @property
    def ordinal_before(self) -> float:
        return self.mu_before - 3 * self.sigma_before


def ranking_results(game: RatedGame) -> tuple[int | float, ...]:
    """The results the ranking is made of: the settlement's, except that a player who
    abandoned ranks below everyone who stayed (all who abandoned share the last place) when the
    table rates abandoners last."""
    assert game.result is not None
    if not game.abandoned or not game.abandoner_last:
        return game.result
    stayed = [r for seat, r in enumerate(game.result) if seat not in game.abandoned]
    floor = min(stayed, default=min(game.result)) - 1
    if not stayed:
        return game.result  # everyone abandoned: the results decide
    return tuple(floor if seat in game.abandoned else r for seat, r in enumerate(game.result))


def rate_finished(
    game_id: str, game: RatedGame, ratings: dict[str, Rating]
) -> list[tuple[str, Rating, RatingChange]]:
    """``(player, new rating, history line)`` for each player of a finished game.

    ``ratings`` holds the players' current ratings (absent: a new player).
    """
    assert game.result is not None, "only a finished game is rated"
    players = [p for p in game.players if p is not None]
    if len(players) != len(game.players):
        raise ValueError(f"game {game_id} ended with a free seat")
    prior = [ratings.get(p, Rating()) for p in players]
    ranked = ranking_results(game)
    after = rate_game(prior, ranked, game.weight / 100)
    place = places(ranked)
    return [
        (
            player,
            after[i],
            RatingChange(
                game_id=game_id,
                game_no=after[i].games,
                result=game.result[i],
                place=place[i],
                players=len(players),
                weight=game.weight,
                mu_before=prior[i].mu,
                sigma_before=prior[i].sigma,
                mu=after[i].mu,
                sigma=after[i].sigma,
            ),
        )
        for i, player in enumerate(players)
    ]


class Board(msgspec.Struct, frozen=True, kw_only=True):
    """Every rating with its history: the whole read model in memory (tests, small logs)."""

    games: dict[str, RatedGame] = {}
    ratings: dict[str, Rating] = {}
    history: dict[str, tuple[RatingChange, ...]] = {}


def apply(board: Board, game_id: str, event: Event) -> Board:
    """The board after ``event`` of game ``game_id`` (events in the global log's order)."""
    before = board.games.get(game_id, RatedGame())
    game = apply_game(before, event)
    if game is before:
        return board
    games = {**board.games, game_id: game}
    if not isinstance(event, GameEnded) or before.result is not None or not game.rated:
        return msgspec.structs.replace(board, games=games)
    ratings, history = dict(board.ratings), dict(board.history)
    for player, rating, change in rate_finished(game_id, game, board.ratings):
        ratings[player] = rating
        history[player] = (*history.get(player, ()), change)
    return Board(games=games, ratings=ratings, history=history)


class LeaderboardEntry(msgspec.Struct, frozen=True, kw_only=True):
    rank: int
    player_id: str
    rating: float
    """``mu − 3·sigma``."""
    mu: float
    sigma: float
    games: int
    provisional: bool


def leaderboard(ratings: dict[str, Rating]) -> list[LeaderboardEntry]:
    """Players by rating (``ordinal``), best first; ties by player id."""
    ordered = sorted(ratings.items(), key=lambda kv: (-kv[1].ordinal, kv[0]))
    return [
        LeaderboardEntry(
            rank=i + 1,
            player_id=player,
            rating=r.ordinal,
            mu=r.mu,
            sigma=r.sigma,
            games=r.games,
            provisional=r.provisional,
        )
        for i, (player, r) in enumerate(ordered)
    ]
