"""The final settlement (расчёт пули), docs/rules.md §H: the pool sheet turned into whists per
player.

The standard method ([P7], [P9]; [C1], [C3], [C5]):

1. amnesty (амнистия горы): the smallest mountain is taken off every mountain;
2. each remaining mountain point costs its owner ``whists_per_mountain_point / n`` whists written
   by every other player on him (10/3 at three, 10/4 at four);
3. pools: when all are equal (closed at the same target) they cancel; otherwise, after the same
   amnesty, each pool point lets its owner write ``pool_weight`` × that much on every other
   player (Leningrad weighs a pool point as 2 mountain points);
4. netting (взаимозачёт): for each pair the smaller whist total is taken off the larger;
5. each player's result is the sum of his differences, and the results sum to zero.

In closed form, ``Net_i = Σ_j (W_ij − W_ji) + (10/n) Σ_j [(M_j − M_i) + w (P_i − P_j)]``.

Values are exact rationals (`fractions.Fraction`), shown as strings such as ``"184/3"``; the
result is rounded once at the end (I-20), so the arithmetic a player is shown is the real one.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Annotated, Literal

import msgspec

from domain.rules import Rules
from domain.sheet import PoolSheet

Exact = Annotated[str, msgspec.Meta(pattern=r"^-?\d+(/\d+)?$", examples=["184/3", "-566", "0"])]
"""An exact rational number of whists: ``"184/3"``, ``"-566"``."""


class Settlement(msgspec.Struct, frozen=True, kw_only=True):
    """The settlement of a pool sheet, with every intermediate step for showing the arithmetic."""

    players: int
    whists_per_mountain_point: int
    pool_weight: int
    rounding: Literal["largest_remainder", "floor"]
    mountain: tuple[int, ...]
    """Mountains as written (гора)."""
    mountain_amnesty: int
    """The smallest mountain, taken off every mountain (амнистия)."""
    mountain_after_amnesty: tuple[int, ...]
    mountain_whists: tuple[Exact, ...]
    """Whists each other player writes on seat i for his remaining mountain: M'_i × 10 / n."""
    pool: tuple[int, ...]
    """Pools as written (пуля)."""
    pools_cancel: bool
    """All pools equal (closed at the same target), so they cancel («в расчётах не участвует»)."""
    pool_after_amnesty: tuple[int, ...]
    pool_whists: tuple[Exact, ...]
    """Whists seat i writes on each other player for his pool: P'_i × weight × 10 / n."""
    whists: tuple[tuple[int, ...], ...]
    """Whists written in play, ``whists[i][j]`` by i on j."""
    converted: tuple[tuple[Exact, ...], ...]
    """All whists by i on j after conversion: whists + mountain_whists[j] + pool_whists[i]."""
    pairwise: tuple[tuple[Exact, ...], ...]
    """Netting (взаимозачёт): ``converted[i][j] − converted[j][i]``, i's gain from j."""
    exact: tuple[Exact, ...]
    """Each player's result in whists, exactly; the sum is 0."""
    result: tuple[int, ...]
    """Each player's result rounded to whole whists per ``settlement.rounding``; the sum is 0."""


def settle(sheet: PoolSheet, rules: Rules) -> Settlement:
    """Settle a pool sheet into whists per player (docs/rules.md §H, I-20, I-28)."""
    n = sheet.players
    per = Fraction(rules.settlement.whists_per_mountain_point, n)
    weight = rules.settlement.pool_weight
    amnesty = min(sheet.mountain)
    mountain = [m - amnesty for m in sheet.mountain]
    pool = [p - min(sheet.pool) for p in sheet.pool]  # equal pools cancel, so only gaps count
    on_mountain = [per * m for m in mountain]
    for_pool = [per * weight * p for p in pool]
    converted = [
        [
            Fraction(sheet.whists[i][j]) + (on_mountain[j] + for_pool[i] if i != j else 0)
            for j in range(n)
        ]
        for i in range(n)
    ]
    pairwise = [[converted[i][j] - converted[j][i] for j in range(n)] for i in range(n)]
    exact = [sum(row, Fraction(0)) for row in pairwise]
    assert sum(exact) == 0, "netting is antisymmetric"
    if rules.settlement.rounding == "floor":
        # C1 floors the conversions of the mountains and pools as written, with no amnesty;
        # flooring does not commute with the amnesty, so it must see them unreduced.
        raw_mountain = [per * m for m in sheet.mountain]
        raw_pool = [per * weight * p for p in sheet.pool]
        result = _floor_per_item(sheet, raw_mountain, raw_pool)
    else:
        result = _largest_remainder(exact)
    return Settlement(
        players=n,
        whists_per_mountain_point=rules.settlement.whists_per_mountain_point,
        pool_weight=weight,
        rounding=rules.settlement.rounding,
        mountain=sheet.mountain,
        mountain_amnesty=amnesty,
        mountain_after_amnesty=tuple(mountain),
        mountain_whists=_texts(on_mountain),
        pool=sheet.pool,
        pools_cancel=len(set(sheet.pool)) == 1,
        pool_after_amnesty=tuple(pool),
        pool_whists=_texts(for_pool),
        whists=sheet.whists,
        converted=tuple(_texts(row) for row in converted),
        pairwise=tuple(_texts(row) for row in pairwise),
        exact=_texts(exact),
        result=tuple(result),
    )


def exact_value(text: Exact) -> Fraction:
    """The `Fraction` behind an exact value of a `Settlement` (``"184/3"`` → 184/3)."""
    return Fraction(text)


def _largest_remainder(exact: list[Fraction]) -> list[int]:
    """Round to whole whists keeping the zero sum: floor every value, then give the missing units
    to the largest fractional parts (ties to the lower seat). Each result is within 1 of exact."""
    result = [math.floor(v) for v in exact]
    missing = -sum(result)
    by_remainder = sorted(range(len(exact)), key=lambda i: (result[i] - exact[i], i))
    for i in by_remainder[:missing]:
        result[i] += 1
    return result


def _floor_per_item(
    sheet: PoolSheet, on_mountain: list[Fraction], for_pool: list[Fraction]
) -> list[int]:
    """OpenPref's rounding ([C1] ``closePool``): each conversion of a mountain or pool as
    written is floored to whole whists before netting (docs/rules.md §H.6).

    Every item is still a transfer between two players, so the sum stays 0; a result may be off
    the exact value by up to n − 1 whists.
    """
    n = sheet.players
    item = [
        [
            sheet.whists[i][j] + math.floor(on_mountain[j]) + math.floor(for_pool[i])
            for j in range(n)
        ]
        for i in range(n)
    ]
    return [sum(item[i][j] - item[j][i] for j in range(n) if j != i) for i in range(n)]


def _texts(values: list[Fraction]) -> tuple[str, ...]:
    return tuple(str(v) for v in values)
