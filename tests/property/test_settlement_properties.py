"""Invariants of scoring and settlement over random sheets and random valid deal outcomes."""

from __future__ import annotations

from fractions import Fraction

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from domain.cards import LEVELS, MISER, MISER_WT, STRAINS
from domain.outcome import DealOutcome, DefenderRole
from domain.rules import LENINGRAD, ROSTOV, SOCHI, Rules, rules_for
from domain.scoring import score_deal
from domain.settlement import exact_value, settle
from domain.sheet import Entry, PoolSheet, apply_score

RULES = [
    SOCHI,
    LENINGRAD,
    ROSTOV,
    rules_for("sochi", {"classic": {"dark_games": True, "bombs": True}}),
    rules_for("leningrad", {"pool": {"help_enabled": False}}),
    rules_for("sochi", {"whist": {"liability_8_10": "split", "responsibility": "half"}}),
    rules_for("rostov", {"raspasy": {"amnesty": True}, "whist": {"style": "greedy"}}),
    rules_for(
        "sochi", {"players4": {"dealer_raspasy": "plays_talon"}, "raspasy": {"amnesty": True}}
    ),
    rules_for(
        "rostov",
        {"players4": {"dealer_raspasy": "plays_talon"}, "raspasy": {"use_talon": True}},
    ),
    rules_for("leningrad", {"pool": {"write_order": "simultaneous"}}),
    rules_for("rostov", {"scoring": {"talonless_extra": 2}, "bidding": {"talonless_games": True}}),
]


@st.composite
def sheets(draw: st.DrawFn, players: int | None = None, target: int = 10) -> PoolSheet:
    n = players or draw(st.sampled_from([3, 4]))
    row = st.lists(st.integers(0, 300), min_size=n, max_size=n)
    whists = [draw(row) for _ in range(n)]
    for i in range(n):
        whists[i][i] = 0
    return PoolSheet(
        players=n,
        pool=tuple(draw(st.lists(st.integers(0, target), min_size=n, max_size=n))),
        mountain=tuple(draw(st.lists(st.integers(0, 200), min_size=n, max_size=n))),
        whists=tuple(tuple(r) for r in whists),
        raspasy_streak=draw(st.integers(0, 4)),
        bombs=tuple(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))),
    )


@st.composite
def outcomes(draw: st.DrawFn, seats: int) -> DealOutcome:
    """A deal outcome the deal decider could produce."""
    dealer = draw(st.integers(0, seats - 1))
    hands = ((dealer + 1) % seats, (dealer + 2) % seats, (dealer + 3) % seats)
    kind = draw(st.sampled_from(["game", "game", "miser", "raspasy"]))
    talon_tricks = draw(st.integers(0, 2)) if kind == "raspasy" and seats == 4 else 0
    a = draw(st.integers(0, 10 - talon_tricks))
    b = draw(st.integers(0, 10 - talon_tricks - a))
    rest = 10 - talon_tricks - a - b
    by_seat = dict(zip(hands, draw(st.permutations([a, b, rest])), strict=True))
    by_seat[dealer] = by_seat.get(dealer, talon_tricks)  # a dealer at four who played the talon
    tricks = tuple(by_seat.get(s, 0) for s in range(seats))
    base = DealOutcome(kind="raspasy", dealer=dealer, seats=seats, hands=hands, tricks=tricks)
    if kind == "raspasy":
        factor = draw(st.sampled_from([1, 1, 2, 4]))
        dark = tuple(draw(st.sets(st.sampled_from(hands), min_size=1))) if factor > 1 else ()
        return msgspec.structs.replace(base, raspasy_factor=factor, dark_passers=dark)
    declarer = draw(st.sampled_from(hands))
    if kind == "miser":
        contract = draw(st.sampled_from([MISER, MISER_WT]))
        return msgspec.structs.replace(base, kind="miser", declarer=declarer, contract=contract)
    level = draw(st.sampled_from(LEVELS))
    talonless = "WT" if level == 9 and draw(st.booleans()) else ""
    contract = f"{level}{draw(st.sampled_from(STRAINS))}{talonless}"
    i = hands.index(declarer)
    left, right = hands[(i + 1) % 3], hands[(i + 2) % 3]
    shapes = (
        ["two", "one", "none", "conceded"] + ["half"] * (level <= 7) + ["checked"] * (level == 10)
    )
    shape = draw(st.sampled_from(shapes))
    first_rank = draw(st.sampled_from([1, 2]))
    roles = {
        "two": (
            DefenderRole(seat=left, choice="whist", whist_rank=first_rank),
            DefenderRole(seat=right, choice="whist", whist_rank=3 - first_rank),
        ),
        "one": (
            DefenderRole(seat=left, choice="whist", whist_rank=1),
            DefenderRole(
                seat=right, choice="pass", was_half_whist=draw(st.booleans()) and level <= 7
            ),
        ),
        "half": (
            DefenderRole(seat=left, choice="pass"),
            DefenderRole(seat=right, choice="half_whist"),
        ),
    }.get(shape, (DefenderRole(seat=left, choice="pass"), DefenderRole(seat=right, choice="pass")))
    return msgspec.structs.replace(
        base,
        kind="game",
        declarer=declarer,
        contract=contract,
        defenders=roles,
        played=shape in ("two", "one", "checked"),
        checked=shape == "checked",
        conceded=draw(st.integers(1, 3)) if shape == "conceded" else 0,
        dark=draw(st.booleans()),
        open_play=shape == "one" and draw(st.booleans()),
    )


@st.composite
def deals(draw: st.DrawFn) -> tuple[DealOutcome, PoolSheet, Rules]:
    rules = draw(st.sampled_from(RULES))
    seats = draw(st.sampled_from([3, 4]))
    return draw(outcomes(seats)), draw(sheets(seats, rules.pool.target)), rules


def fold(sheet: PoolSheet, entries: tuple[Entry, ...]) -> PoolSheet:
    """An independent recomputation of apply_score's arithmetic."""
    pool, mountain = list(sheet.pool), list(sheet.mountain)
    whists = [list(r) for r in sheet.whists]
    for e in entries:
        column = {"pool": pool, "mountain": mountain}.get(e.kind)
        if column is None:
            assert e.on is not None
            whists[e.seat][e.on] += e.amount
        else:
            column[e.seat] += e.amount
    return msgspec.structs.replace(
        sheet,
        pool=tuple(pool),
        mountain=tuple(mountain),
        whists=tuple(tuple(r) for r in whists),
    )


@given(sheets(), st.sampled_from([1, 2]))
def test_the_rounded_settlement_sums_to_zero_and_stays_within_one_of_exact(
    sheet: PoolSheet, weight: int
) -> None:
    result = settle(sheet, rules_for("sochi", {"settlement": {"pool_weight": weight}}))
    exact = [exact_value(v) for v in result.exact]
    assert sum(exact) == 0
    assert sum(result.result) == 0
    assert all(abs(r - x) < 1 for r, x in zip(result.result, exact, strict=True))


@given(sheets())
def test_floor_rounding_also_sums_to_zero(sheet: PoolSheet) -> None:
    assert sum(settle(sheet, rules_for("sochi", {"settlement": {"rounding": "floor"}})).result) == 0


@given(sheets(), st.integers(-50, 50), st.integers(-10, 10))
def test_amnesty_of_mountains_or_pools_does_not_change_the_nets(
    sheet: PoolSheet, shift: int, pool_shift: int
) -> None:
    shifted = msgspec.structs.replace(
        sheet,
        mountain=tuple(m + shift for m in sheet.mountain),
        pool=tuple(p + pool_shift for p in sheet.pool),
    )
    assert settle(shifted, LENINGRAD).exact == settle(sheet, LENINGRAD).exact


@given(sheets())
def test_the_nets_match_the_closed_form(sheet: PoolSheet) -> None:
    n, w = sheet.players, 2
    m, p, wh = sheet.mountain, sheet.pool, sheet.whists
    closed = [
        sum(wh[i][j] - wh[j][i] for j in range(n))
        + Fraction(10, n) * sum((m[j] - m[i]) + w * (p[i] - p[j]) for j in range(n))
        for i in range(n)
    ]
    assert [exact_value(v) for v in settle(sheet, LENINGRAD).exact] == closed


@given(deals())
def test_every_entry_is_explained_and_apply_score_only_adds_them(
    deal: tuple[DealOutcome, PoolSheet, Rules],
) -> None:
    outcome, sheet, rules = deal
    score = score_deal(outcome, sheet, rules)
    assert all(e.explanation.strip() for e in score.entries)
    assert all(e.amount > 0 or e.rule == "mountain_written_off" for e in score.entries)
    assert all(e.on is None or e.on != e.seat for e in score.entries)
    after = apply_score(sheet, score)
    assert msgspec.structs.replace(
        after, raspasy_streak=0, bombs=(), deals=0
    ) == msgspec.structs.replace(fold(sheet, score.entries), raspasy_streak=0, bombs=(), deals=0)
    assert (after.raspasy_streak, after.bombs, after.deals) == (
        score.raspasy_streak,
        score.bombs,
        sheet.deals + 1,
    )


@given(deals())
def test_no_pool_passes_the_target_and_no_mountain_goes_below_zero(
    deal: tuple[DealOutcome, PoolSheet, Rules],
) -> None:
    outcome, sheet, rules = deal
    after = apply_score(sheet, score_deal(outcome, sheet, rules))
    assert all(p <= rules.pool.target for p in after.pool)
    assert all(m >= 0 for m in after.mountain)
