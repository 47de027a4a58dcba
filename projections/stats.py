"""Player statistics: per game and seat counters, combined per player on reading.

`apply` folds one game's events into `GameStats`, a `SeatStats` per seat. Every counter is read
from what the domain recorded, never from a rule run again here:

- the deal's facts come from ``DealEnded.outcome`` (kind, declarer, contract, whist choices,
  tricks);
- success comes from the entries ``DealScored`` wrote: a contract failed when the deal wrote
  undertricks (ремиз, ``remiz``) on its declarer's mountain, else it was made (even when its
  price went to another pool as help); a misère failed when it wrote ``miser_failed``; a whist
  failed when the whister wrote a short whist (недовист, ``short_whist``) on his mountain;
- the result of a game is the settlement's rounded ``result`` in whists.

A player's statistics (`player_stats`) add up his seats over every game he sat in; the per game
rows stay separate, so a row is rewritten whole and re-applying an event can never count twice.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

import msgspec

from domain.cards import level_of
from domain.deal.messages import DealEnded
from domain.game import DealScored, Event, GameCreated, GameEnded, PlayerSeated
from domain.outcome import DealOutcome
from domain.table import SeatAbandoned

LEVELS = (6, 7, 8, 9, 10)


class SeatStats(msgspec.Struct, frozen=True, kw_only=True):
    """What one seat did in one game."""

    deals: int = 0
    """Deals played (a sitting-out dealer at a table of four plays none)."""
    declared: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)
    """Trick contracts declared at levels 6, 7, 8, 9, 10."""
    made: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)
    """Of those, made (no undertricks)."""
    miser_declared: int = 0
    miser_made: int = 0
    whists: int = 0
    """Times this seat said whist (вист) and defended."""
    whists_failed: int = 0
    """Whists that fell short of the obligation (недовист)."""
    half_whists: int = 0
    """Half-whists (полвиста)."""
    raspasy_deals: int = 0
    """All-pass (распасы) deals played."""
    raspasy_tricks: int = 0
    """Tricks taken on all-pass deals."""


class GameStats(msgspec.Struct, frozen=True, kw_only=True):
    """The statistics read model of one game."""

    players: tuple[str | None, ...] = ()
    seats: tuple[SeatStats, ...] = ()
    ended: DealOutcome | None = None
    """The last deal's outcome, counted once its score arrives."""
    finished: bool = False
    result: tuple[int, ...] = ()
    """Settlement results in whists per seat, once the game is over."""
    abandoned: tuple[int, ...] = ()
    """Seats whose player abandoned the game (its row stays his, also if the seat is taken
    over)."""
    dealing: str | None = None
    """How the game was dealt (docs/fairness.md); null before commitments."""


EMPTY = GameStats()

HANDLED: frozenset[str] = frozenset(
    cls.__struct_config__.tag  # type: ignore[misc]
    for cls in (GameCreated, PlayerSeated, SeatAbandoned, DealEnded, DealScored, GameEnded)
)
"""Stored event types that change the statistics."""


def apply(model: GameStats, event: Event) -> GameStats:
    """The game's statistics after ``event``."""
    replace = msgspec.structs.replace
    match event:
        case GameCreated(rules=rules, dealing=dealing):
            n = rules.players
            return GameStats(players=(None,) * n, seats=(SeatStats(),) * n, dealing=dealing)
        case PlayerSeated(seat=seat, player=player):
            if seat in model.abandoned:
                return model
            players = (*model.players[:seat], player, *model.players[seat + 1 :])
            return replace(model, players=players)
        case SeatAbandoned(seat=seat):
            return replace(model, abandoned=(*model.abandoned, seat))
        case DealEnded(outcome=outcome):
            return replace(model, ended=outcome)
        case DealScored():
            if model.ended is None:
                return model
            return replace(model, seats=_count(model.seats, model.ended, event), ended=None)
        case GameEnded(settlement=settlement):
            return replace(model, finished=True, result=settlement.result)
    return model


def _bump(values: tuple[int, ...], index: int) -> tuple[int, int, int, int, int]:
    out = list(values)
    out[index] += 1
    return tuple(out)  # type: ignore[return-value]


def _count(
    seats: tuple[SeatStats, ...], outcome: DealOutcome, scored: DealScored
) -> tuple[SeatStats, ...]:
    out = list(seats)
    entries = scored.score.entries
    replace = msgspec.structs.replace
    for seat in outcome.hands:
        out[seat] = replace(out[seat], deals=out[seat].deals + 1)
    if outcome.kind == "raspasy":
        for seat in outcome.hands:
            s = out[seat]
            out[seat] = replace(
                s,
                raspasy_deals=s.raspasy_deals + 1,
                raspasy_tricks=s.raspasy_tricks + outcome.tricks[seat],
            )
        return tuple(out)
    decl = outcome.declarer
    if decl is None or outcome.contract is None:
        return tuple(out)
    s = out[decl]
    if outcome.kind == "miser":  # with the talon or without it
        made = not any(e.rule == "miser_failed" and e.seat == decl for e in entries)
        out[decl] = replace(
            s, miser_declared=s.miser_declared + 1, miser_made=s.miser_made + int(made)
        )
    else:
        i = LEVELS.index(level_of(outcome.contract))
        made = not any(e.rule == "remiz" and e.seat == decl for e in entries)
        out[decl] = replace(
            s, declared=_bump(s.declared, i), made=_bump(s.made, i) if made else s.made
        )
    short = {e.seat for e in entries if e.rule == "short_whist"}
    for role in outcome.defenders:
        d = out[role.seat]
        if role.choice == "whist":
            out[role.seat] = replace(
                d, whists=d.whists + 1, whists_failed=d.whists_failed + (role.seat in short)
            )
        elif role.choice == "half_whist":
            out[role.seat] = replace(d, half_whists=d.half_whists + 1)
    return tuple(out)


# ---- a player's statistics ---------------------------------------------------------------------


class PlayerGame(msgspec.Struct, frozen=True, kw_only=True):
    """One player's row for one game: what `player_stats` adds up."""

    game_id: str
    seat: int
    stats: SeatStats
    finished: bool = False
    result: int | None = None
    """His settlement result in whists, once the game is over."""
    abandoned: bool = False
    """He abandoned the game (its seat was played for him from then on)."""
    dealing: str | None = None
    """``seeded`` or ``fixed``: the creator could know the hands (counted apart)."""


def player_rows(game_id: str, model: GameStats) -> list[tuple[str, PlayerGame]]:
    """``(player id, row)`` for every seated player of a game."""
    return [
        (
            player,
            PlayerGame(
                game_id=game_id,
                seat=seat,
                stats=model.seats[seat],
                finished=model.finished,
                result=model.result[seat] if model.finished else None,
                abandoned=seat in model.abandoned,
                dealing=model.dealing,
            ),
        )
        for seat, player in enumerate(model.players)
        if player is not None
    ]


class ContractLine(msgspec.Struct, frozen=True, kw_only=True):
    level: int | str
    """6 … 10, or ``"misère"``."""
    declared: int
    made: int
    made_pct: float | None
    """Made per declared, in percent; None when never declared."""


class WhistLine(msgspec.Struct, frozen=True, kw_only=True):
    whists: int
    made: int
    failed: int
    """Short of the obligation (недовист)."""
    half_whists: int


class RaspasyLine(msgspec.Struct, frozen=True, kw_only=True):
    deals: int
    tricks: int
    tricks_per_deal: float | None


class GameResult(msgspec.Struct, frozen=True, kw_only=True):
    game_id: str
    result: int


class ParLine(msgspec.Struct, frozen=True, kw_only=True):
    """Double-dummy: the tricks the player's cards gave away against perfect play."""

    deals: int
    """Analysed deals (of finished games) in which he chose a card."""
    tricks_lost: int
    tricks_lost_per_deal: float | None


class PlayerStats(msgspec.Struct, frozen=True, kw_only=True):
    """A player's statistics over every game he sat in."""

    player_id: str
    kind: Literal["human", "guest", "bot", "program"] = "human"
    """The player's kind as the service knows him (``bot``, ``program``: a computer player)."""
    games: int
    """Finished games."""
    games_in_progress: int
    games_abandoned: int
    """Games he abandoned (counted among the finished ones once they end)."""
    deals: int
    contracts: tuple[ContractLine, ...]
    """Per level 6 … 10, then misère (мизер)."""
    whists: WhistLine
    raspasy: RaspasyLine
    average_result: float | None
    """Average settlement result per finished game, in whists."""
    total_result: int
    best_game: GameResult | None
    worst_game: GameResult | None
    against_par: ParLine
    """From the analysis of finished games (`projections.game_analysis`)."""
    games_dealt_known: int = 0
    """Of ``games``, those dealt ``seeded`` or ``fixed``: their creator could know every hand
    (docs/fairness.md); counted in the figures above, never in the ratings."""


def _pct(made: int, declared: int) -> float | None:
    return round(100 * made / declared, 1) if declared else None


def player_stats(
    player_id: str, rows: Iterable[PlayerGame], par: tuple[int, int] = (0, 0)
) -> PlayerStats:
    """Add up a player's rows (one per game); ``par``: his analysed deals and the tricks he
    lost against par in them."""
    rows = sorted(rows, key=lambda r: r.game_id)
    declared, made = [0] * 5, [0] * 5
    fields = ("deals", "miser_declared", "miser_made", "whists", "whists_failed", "half_whists",
              "raspasy_deals", "raspasy_tricks")  # fmt: skip
    sums = dict.fromkeys(fields, 0)
    for row in rows:
        for name in fields:
            sums[name] += getattr(row.stats, name)
        for i in range(5):
            declared[i] += row.stats.declared[i]
            made[i] += row.stats.made[i]
    total = SeatStats(**sums)  # type: ignore[arg-type]  # declared/made have defaults
    finished = [r for r in rows if r.finished and r.result is not None]
    results = [(r.result, r.game_id) for r in finished if r.result is not None]
    # Ties go to the earliest game id: max and min keep the first of equal keys.
    best = max(results, key=lambda x: x[0], default=None)
    worst = min(results, key=lambda x: x[0], default=None)
    contracts = (
        *(
            ContractLine(
                level=lvl, declared=declared[i], made=made[i], made_pct=_pct(made[i], declared[i])
            )
            for i, lvl in enumerate(LEVELS)
        ),
        ContractLine(
            level="misère",
            declared=total.miser_declared,
            made=total.miser_made,
            made_pct=_pct(total.miser_made, total.miser_declared),
        ),
    )
    return PlayerStats(
        player_id=player_id,
        games=len(finished),
        games_in_progress=len(rows) - len(finished),
        games_abandoned=sum(1 for r in rows if r.abandoned),
        deals=total.deals,
        contracts=contracts,
        whists=WhistLine(
            whists=total.whists,
            made=total.whists - total.whists_failed,
            failed=total.whists_failed,
            half_whists=total.half_whists,
        ),
        raspasy=RaspasyLine(
            deals=total.raspasy_deals,
            tricks=total.raspasy_tricks,
            tricks_per_deal=(
                round(total.raspasy_tricks / total.raspasy_deals, 3)
                if total.raspasy_deals
                else None
            ),
        ),
        average_result=round(sum(r for r, _ in results) / len(results), 2) if results else None,
        total_result=sum(r for r, _ in results),
        best_game=GameResult(game_id=best[1], result=best[0]) if best else None,
        worst_game=GameResult(game_id=worst[1], result=worst[0]) if worst else None,
        against_par=ParLine(
            deals=par[0],
            tricks_lost=par[1],
            tricks_lost_per_deal=round(par[1] / par[0], 3) if par[0] else None,
        ),
        games_dealt_known=sum(r.dealing in ("seeded", "fixed") for r in finished),
    )
