"""The outcome of one deal, as data ready for scoring (docs/rules.md §F).

The deal decider produces it; `domain.scoring` turns it into pool-sheet entries. It holds facts
only (who declared what, who whisted, who took how many tricks), never points.
"""

from __future__ import annotations

from typing import Literal

import msgspec

WhistChoice = Literal["whist", "pass", "half_whist"]
DealKind = Literal["game", "miser", "raspasy"]
"""A trick contract (игра), misère (мизер), or all-pass (распасы)."""


class DefenderRole(msgspec.Struct, frozen=True, kw_only=True):
    """How one opponent of the declarer defended."""

    seat: int
    choice: WhistChoice
    """Final role: whist (вист), pass (пас) or half-whist (полвиста)."""
    whist_rank: int = 0
    """1 for the first to say whist, 2 for the second; 0 for a non-whister. On 8–10 the second
    whister answers for a short defence (Lesnoy 3.8.11)."""
    was_half_whist: bool = False
    """A half-whister whose whist was returned: a passer who writes nothing on a remiz (§D.3)."""
    forced: bool = False
    """Whisted because the rules compelled it (Stalingrad, a dark six)."""


class DealOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """Everything scoring needs to know about a finished deal."""

    kind: DealKind
    """A trick contract (игра), misère (мизер), or all-pass (распасы)."""
    dealer: int
    seats: int
    """Players at the table (3 or 4); at 4 the dealer sits the deal out."""
    hands: tuple[int, int, int]
    """The active seats: first, second and third hand."""
    tricks: tuple[int, ...]
    """Tricks taken, indexed by seat (for all-pass: each player's all-pass tricks); a seat that
    sat the deal out took none. Schema 2 of ``deal_ended`` (schema 1 mapped active seats)."""
    declarer: int | None = None
    contract: str | None = None
    defenders: tuple[DefenderRole, ...] = ()
    played: bool = True
    """False when the contract counted as made without play (both passed, or half-whist)."""
    open_play: bool = False
    """A single whister played in the light (в светлую)."""
    checked: bool = False
    """A 10 checked (проверяется) rather than whisted."""
    conceded: int = 0
    """Undertricks conceded without play («без трёх», I-17); 0 if played."""
    dark: bool = False
    """Classic: a game bid in the dark; every entry is doubled (§B.3)."""
    raspasy_factor: int = 1
    """Classic: an all-pass after dark passes is priced ×2 per dark pass."""
    dark_passers: tuple[int, ...] = ()
    """Classic: players who passed in the dark (they earn a bomb if the deal is an all-pass)."""
    totus: bool = False
    """Classic: a totus (тотус), scored as a 10."""

    @property
    def declarer_tricks(self) -> int:
        return 0 if self.declarer is None else self.tricks[self.declarer]

    def taken(self) -> tuple[tuple[int, int], ...]:
        """``(seat, tricks)`` for each active seat, first hand first."""
        return tuple((s, self.tricks[s]) for s in self.hands)
