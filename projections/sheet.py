"""The pool sheet (пулька) of one game, as its players keep it.

`apply` folds the game's events into a `GameSheet`: the running totals (each player's pool,
mountain and whists on each other player, the all-pass streak), every scored deal with the entries
it wrote and why, and, once the game is over, the settlement (расчёт). It only adds up what the
``DealScored`` events carry, exactly like the domain's own fold, so the two sheets never differ.

`sheet_view` shapes the model for reading, with the numbers written as players write them: a
running sum per column, ``"2.6.10"`` (`running_sums`).
"""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.deal.messages import DealEnded, DealStarted
from domain.game import DealScored, Event, GameCreated, GameEnded, PlayerSeated
from domain.outcome import DealOutcome
from domain.rules import Rules
from domain.scoring import played_by
from domain.settlement import Settlement
from domain.sheet import Entry, PoolSheet, apply_score, empty_sheet

Status = Literal["none", "seating", "playing", "finished"]


class SheetDeal(msgspec.Struct, frozen=True, kw_only=True):
    """One scored deal (сдача) as written on the sheet."""

    deal_no: int
    dealer: int
    kind: Literal["game", "miser", "raspasy"]
    """A trick contract (игра), misère (мизер) or all-pass (распасы)."""
    declarer: int | None = None
    contract: str | None = None
    tricks: tuple[int | None, ...] = ()
    """Tricks taken, by seat; null for a seat that did not play the deal."""
    """Tricks taken per active seat."""
    entries: tuple[Entry, ...] = ()
    """What the deal wrote, each entry with the rule and a sentence explaining it."""
    raspasy_streak: int = 0
    """All-passes in a row after this deal."""


class GameSheet(msgspec.Struct, frozen=True, kw_only=True):
    """The read model of one game's sheet."""

    status: Status = "none"
    rules: Rules | None = None
    players: tuple[str | None, ...] = ()
    """The opaque player id at each seat."""
    sheet: PoolSheet | None = None
    deals: tuple[SheetDeal, ...] = ()
    deal_no: int = 0
    """The deal being played (or the last one), from 1."""
    dealer: int | None = None
    """The dealer of the deal being played."""
    ended: DealOutcome | None = None
    """The outcome of a deal that ended and awaits its score (the next event)."""
    settlement: Settlement | None = None
    created_at: int | None = None
    """When the game was created (ms since the epoch), for the sheet's heading."""


EMPTY = GameSheet()


def apply(model: GameSheet, event: Event) -> GameSheet:
    """The sheet after ``event``. Events that write nothing on the sheet leave it as it is."""
    replace = msgspec.structs.replace
    match event:
        case GameCreated(rules=rules, at=at):
            return GameSheet(
                status="seating",
                rules=rules,
                players=(None,) * rules.players,
                sheet=empty_sheet(rules.players),
                created_at=at,
            )
        case PlayerSeated(seat=seat, player=player):
            players = (*model.players[:seat], player, *model.players[seat + 1 :])
            status: Status = "playing" if None not in players else "seating"
            return replace(model, players=players, status=status)
        case DealStarted(dealer=dealer):
            return replace(model, deal_no=model.deal_no + 1, dealer=dealer, ended=None)
        case DealEnded(outcome=outcome):
            return replace(model, ended=outcome)
        case DealScored():
            return _scored(model, event)
        case GameEnded(settlement=settlement):
            return replace(model, status="finished", settlement=settlement)
    return model


HANDLED: frozenset[str] = frozenset(
    cls.__struct_config__.tag  # type: ignore[misc]
    for cls in (GameCreated, PlayerSeated, DealStarted, DealEnded, DealScored, GameEnded)
)
"""Stored event types that change a sheet; the others need not even be decoded."""


def _by_seat(outcome: DealOutcome, rules: Rules | None) -> tuple[int | None, ...]:
    """The deal's tricks by seat; null for a seat that did not play it (a dealer at four who
    played the talon of an all-pass did: his tricks are written, so they are shown)."""
    seats = outcome.hands if rules is None else played_by(outcome, rules)
    return tuple(outcome.tricks[s] if s in seats else None for s in range(len(outcome.tricks)))


def _scored(model: GameSheet, event: DealScored) -> GameSheet:
    assert model.sheet is not None, "a deal is scored in a created game"
    outcome = model.ended
    line = SheetDeal(
        deal_no=event.deal_no,
        dealer=outcome.dealer if outcome else (model.dealer or 0),
        kind=outcome.kind if outcome else "game",
        declarer=outcome.declarer if outcome else None,
        contract=outcome.contract if outcome else None,
        tricks=_by_seat(outcome, model.rules) if outcome else (),
        entries=event.score.entries,
        raspasy_streak=event.score.raspasy_streak,
    )
    return msgspec.structs.replace(
        model,
        sheet=apply_score(model.sheet, event.score),
        deals=(*model.deals, line),
        ended=None,
    )


# ---- reading ---------------------------------------------------------------------------------


class Columns(msgspec.Struct, frozen=True, kw_only=True):
    """One player's columns as written by hand: every running total, oldest first.

    ``pool`` ``[2, 6, 10]`` is written ``"2.6.10"``; ``whists[j]`` are the whists on seat ``j``
    (empty for the player himself).
    """

    pool: tuple[int, ...] = ()
    mountain: tuple[int, ...] = ()
    whists: tuple[tuple[int, ...], ...] = ()


def running_sums(model: GameSheet) -> tuple[Columns, ...]:
    """Every column's running totals, one value per deal that changed it (the hand-written form).

    The last value of each column is the sheet's total.
    """
    n = len(model.players)
    pool: list[list[int]] = [[] for _ in range(n)]
    mountain: list[list[int]] = [[] for _ in range(n)]
    whists: list[list[list[int]]] = [[[] for _ in range(n)] for _ in range(n)]
    totals_pool, totals_mountain = [0] * n, [0] * n
    totals_whists = [[0] * n for _ in range(n)]
    for deal in model.deals:
        touched: set[tuple[str, int, int]] = set()
        for e in deal.entries:
            if e.kind == "pool":
                totals_pool[e.seat] += e.amount
                touched.add(("pool", e.seat, -1))
            elif e.kind == "mountain":
                totals_mountain[e.seat] += e.amount
                touched.add(("mountain", e.seat, -1))
            else:
                assert e.on is not None
                totals_whists[e.seat][e.on] += e.amount
                touched.add(("whists", e.seat, e.on))
        for kind, seat, on in sorted(touched):
            if kind == "pool":
                pool[seat].append(totals_pool[seat])
            elif kind == "mountain":
                mountain[seat].append(totals_mountain[seat])
            else:
                whists[seat][on].append(totals_whists[seat][on])
    return tuple(
        Columns(
            pool=tuple(pool[i]),
            mountain=tuple(mountain[i]),
            whists=tuple(tuple(w) for w in whists[i]),
        )
        for i in range(n)
    )


def written(values: tuple[int, ...]) -> str:
    """A column as players write it: running totals joined by dots, ``"2.6.10"``."""
    return ".".join(str(v) for v in values)


class SeatSheet(msgspec.Struct, frozen=True, kw_only=True):
    """One player's part of the sheet."""

    seat: int
    player: str | None
    pool: int
    """Pool (пуля)."""
    mountain: int
    """Mountain (гора)."""
    whists: tuple[int | None, ...]
    """Whists (висты) this player has written on each other seat."""
    pool_written: str
    """The pool column as written by hand, running totals: ``"2.6.10"``."""
    mountain_written: str
    whists_written: tuple[str | None, ...]
    result: int | None = None
    """The settlement result in whists, once the game is over."""


class SheetView(msgspec.Struct, frozen=True, kw_only=True):
    """The pool sheet of a game for reading: totals, the hand-written columns, the deals."""

    game_id: str
    status: Status
    convention: str | None
    target: int | None
    """The pool every player must reach (the number in the circle)."""
    players: tuple[str | None, ...]
    raspasy_streak: int
    """All-passes (распасы) in a row so far."""
    deals_scored: int
    seats: tuple[SeatSheet, ...]
    deals: tuple[SheetDeal, ...]
    settlement: Settlement | None = None


def sheet_view(game_id: str, model: GameSheet) -> SheetView:
    """The `SheetView` of a game's sheet model."""
    sheet = model.sheet or empty_sheet(len(model.players))
    columns = running_sums(model)
    result = model.settlement.result if model.settlement else None
    seats = tuple(
        SeatSheet(
            seat=i,
            player=model.players[i],
            pool=sheet.pool[i],
            mountain=sheet.mountain[i],
            whists=tuple(sheet.whists[i][j] if j != i else None for j in range(sheet.players)),
            pool_written=written(columns[i].pool),
            mountain_written=written(columns[i].mountain),
            whists_written=tuple(
                written(columns[i].whists[j]) if j != i else None for j in range(sheet.players)
            ),
            result=result[i] if result else None,
        )
        for i in range(sheet.players)
    )
    return SheetView(
        game_id=game_id,
        status=model.status,
        convention=model.rules.convention if model.rules else None,
        target=model.rules.pool.target if model.rules else None,
        players=model.players,
        raspasy_streak=sheet.raspasy_streak,
        deals_scored=sheet.deals,
        seats=seats,
        deals=model.deals,
        settlement=model.settlement,
    )
