"""The pool sheet (пулька): each player's pool (пуля), mountain (гора) and whists (висты).

The sheet is plain numbers. `domain.scoring` decides what a deal writes and returns it as a
`DealScore` (the payload of a ``DealScored`` event); `apply_score` only adds those entries, so a
replay never re-runs a scoring rule and an old game keeps its numbers when the rules code changes.

Whists are a directed matrix: ``whists[i][j]`` is what player ``i`` has written on player ``j``
(docs/rules.md §F.0). Seats are ``0 .. players-1``, clockwise.
"""

from __future__ import annotations

from typing import Literal

import msgspec

EntryKind = Literal["pool", "mountain", "whists"]

RuleCode = Literal[
    "contract_made",
    "remiz",
    "whists_for_tricks",
    "consolation",
    "short_whist",
    "half_whist",
    "miser_made",
    "miser_failed",
    "miser_consolation",
    "raspasy_tricks",
    "raspasy_zero",
    "raspasy_whists",
    "raspasy_dealer",
    "help",
    "help_whists",
    "mountain_written_off",
    "overflow_to_mountain",
]
"""Stable codes of the scoring rules that write entries (docs/rules.md §F, §G):

- ``contract_made``: a made contract's price to the pool, played or not (both passed, half-whist).
- ``remiz``: a failed declarer's undertricks (ремиз) to his mountain, conceded ones included.
- ``whists_for_tricks``: a defender's whists on the declarer for the defence's tricks.
- ``consolation``: whists on a failed declarer per undertrick (консоляция), by every other player.
- ``short_whist``: a whister's missing tricks (недовист) to his mountain.
- ``half_whist``: whists for half the obligation (полвиста), the contract counts as made.
- ``miser_made`` / ``miser_failed`` / ``miser_consolation``: misère (мизер).
- ``raspasy_tricks`` / ``raspasy_zero``: all-pass (распасы) tricks to the mountain, and the
  price of one trick to the pool for taking none.
- ``raspasy_whists`` / ``raspasy_dealer``: Rostov all-pass whists, and the sitting-out dealer's
  pool point at a table of four.
- ``help`` / ``help_whists``: pool over the target given to another's pool (помощь), and the
  whists the helper writes on the helped player for it.
- ``mountain_written_off`` / ``overflow_to_mountain``: the excess nobody can take, written off
  the player's own mountain, and once that is 0, onto every other player's mountain.
"""


class Entry(msgspec.Struct, frozen=True, kw_only=True):
    """One number written on the sheet, with the rule that wrote it."""

    kind: EntryKind
    seat: int
    """Whose pool or mountain it is; for whists, the player who writes them."""
    amount: int
    """Points (pool, mountain) or whists; negative only when a mountain is written off."""
    rule: RuleCode
    explanation: str
    """A short sentence naming the contract, the rule and the numbers, for a human reader."""
    on: int | None = None
    """For whists: the player they are written on; None for pool and mountain."""


class PoolSheet(msgspec.Struct, frozen=True, kw_only=True):
    """The running totals of a pulka (пулька)."""

    players: int
    pool: tuple[int, ...]
    """Pool (пуля) per seat: points toward closing, from made contracts."""
    mountain: tuple[int, ...]
    """Mountain (гора) per seat: penalty points."""
    whists: tuple[tuple[int, ...], ...]
    """``whists[i][j]``: whists written by seat i on seat j (висты); the diagonal stays 0."""
    raspasy_streak: int = 0
    """All-passes (распасы) in a row so far; prices the next one and sets the exit (выход)."""
    bombs: tuple[int, ...] = ()
    """Classic: pending bomb (бомба) doublings per seat; the seat's next game or all-pass is
    written ×2 per doubling. Empty means none."""
    deals: int = 0
    """Deals scored so far."""


def empty_sheet(players: int) -> PoolSheet:
    """The sheet of a pulka before its first deal."""
    zeros = (0,) * players
    return PoolSheet(
        players=players,
        pool=zeros,
        mountain=zeros,
        whists=tuple(zeros for _ in range(players)),
        bombs=zeros,
    )


class DealScore(msgspec.Struct, frozen=True, kw_only=True):
    """What one deal writes: the entries, and the new all-pass streak and bombs.

    Everything `apply_score` needs, so the sheet advances without re-running any rule.
    """

    entries: tuple[Entry, ...]
    raspasy_streak: int
    """The all-pass streak after this deal."""
    bombs: tuple[int, ...]
    """Every seat's pending bomb doublings after this deal."""


def apply_score(sheet: PoolSheet, score: DealScore) -> PoolSheet:
    """The sheet with a deal's entries added. Pure arithmetic: no rule lives here."""
    pool, mountain = list(sheet.pool), list(sheet.mountain)
    whists = [list(row) for row in sheet.whists]
    for entry in score.entries:
        if entry.kind == "pool":
            pool[entry.seat] += entry.amount
        elif entry.kind == "mountain":
            mountain[entry.seat] += entry.amount
        else:
            assert entry.on is not None, "whists are written on someone"
            whists[entry.seat][entry.on] += entry.amount
    return msgspec.structs.replace(
        sheet,
        pool=tuple(pool),
        mountain=tuple(mountain),
        whists=tuple(tuple(row) for row in whists),
        raspasy_streak=score.raspasy_streak,
        bombs=score.bombs,
        deals=sheet.deals + 1,
    )


def is_closed(sheet: PoolSheet, target: int) -> bool:
    """The pulka is over when every pool has reached the target (docs/rules.md §G, [P11])."""
    return all(p >= target for p in sheet.pool)
