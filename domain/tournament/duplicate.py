"""Duplicate (дубль): the same deals at every table, compared per deal among everyone who held
the same seat's cards.

Each deal is scored alone (`deal_alone`): its outcome written on an empty sheet and settled, so
neither the pool's state nor the order of deals matters. The comparison of a group (one deal,
one seat, every table) is on one of two scales:

- matchpoints (`matchpoints`): 2 for each entrant beaten, 1 for each tie, as in bridge; a group
  of n shares n(n − 1) points, the top is 2(n − 1), `percent` rescales to 0–100;
- an IMP-like scale (`cross_imps`): the difference in whists, damped by `IMP_TABLE`, against
  each other entrant in turn and averaged. Against the field's average a damped scale would not
  sum to zero (scores 0, 0, 60 differ from it by −20, −20, +40: −2, −2, +3 units); against
  each other entrant the differences cancel in pairs, so each deal and seat is zero-sum.

Seats rotate between rounds (`balanced_seating`) so each player meets the layouts from every
seat.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from fractions import Fraction
from itertools import permutations

from domain.outcome import DealOutcome
from domain.rules import Rules
from domain.scoring import score_deal
from domain.settlement import settle
from domain.sheet import apply_score, empty_sheet


def deal_alone(outcome: DealOutcome, rules: Rules) -> tuple[Fraction, ...]:
    """A deal's value in whists per seat, scored on an empty sheet and settled (zero-sum)."""
    sheet = empty_sheet(rules.players)
    settled = settle(apply_score(sheet, score_deal(outcome, sheet, rules)), rules)
    return tuple(Fraction(v) for v in settled.exact)


def matchpoints(scores: Sequence[Fraction | int]) -> tuple[int, ...]:
    """2 per entrant beaten, 1 per tie; the group's sum is n(n − 1)."""
    return tuple(
        sum(2 if s > t else 1 if s == t else 0 for j, t in enumerate(scores) if j != i)
        for i, s in enumerate(scores)
    )


def percent(points: int, entrants: int) -> Fraction:
    """Matchpoints as a share of the top, 2(n − 1), in per cent (50 alone in a group)."""
    return Fraction(50) if entrants < 2 else Fraction(100 * points, 2 * (entrants - 1))


IMP_TABLE: tuple[int, ...] = (5, 15, 30, 50, 80, 120, 170, 230, 300, 400, 550, 750)
"""The lower edges, in whists, of 1, 2, … 12 IMP-like units: a difference of 0–4 whists is 0,
5–14 is 1, 15–29 is 2, …, 750 and more is 12. Rounds to a whole unit, as bridge's IMPs do,
with steps that widen (a 5-whist edge is worth as much as a 100-whist one at the top)."""


def imps(difference: Fraction | int) -> int:
    """A difference in whists on the IMP-like scale, odd: imps(−d) = −imps(d)."""
    units = bisect_right(IMP_TABLE, abs(Fraction(difference)))
    return units if difference >= 0 else -units


def cross_imps(scores: Sequence[Fraction | int]) -> tuple[Fraction, ...]:
    """Each entrant's IMP-like units against every other of the group, averaged."""
    n = len(scores)
    if n < 2:
        return (Fraction(0),) * n
    return tuple(
        Fraction(sum(imps(Fraction(s) - t) for j, t in enumerate(scores) if j != i), n - 1)
        for i, s in enumerate(scores)
    )


def balanced_seating(
    players: Sequence[str], held: Mapping[str, Sequence[int]], drawn: Sequence[str]
) -> tuple[str, ...]:
    """The seating of a duplicate table that evens out who has held which seat: the
    permutation whose players have held their new seats least often in total; the drawn
    seating (`domain.tournament.draw.seat_table`) breaks ties."""
    size = len(players)

    def load(seating: Sequence[str]) -> int:
        return sum((held.get(p) or (0,) * size)[seat] for seat, p in enumerate(seating))

    order = [tuple(drawn[i] for i in perm) for perm in permutations(range(size))]
    return min(order, key=load)


def compare(
    groups: Mapping[tuple[int, int, int], Sequence[tuple[str, Fraction]]],
    scale: str,
    as_percent: bool = False,
) -> dict[str, Fraction]:
    """Each entrant's total over every group (round, deal, seat) → [(player, score)]."""
    total: dict[str, Fraction] = {}
    for entries in groups.values():
        scores = [s for _, s in entries]
        if scale == "imp":
            values = cross_imps(scores)
        else:
            mps = matchpoints(scores)
            values = tuple(percent(mp, len(scores)) if as_percent else Fraction(mp) for mp in mps)
        for (player, _), value in zip(entries, values, strict=True):
            total[player] = total.get(player, Fraction(0)) + value
    return total
