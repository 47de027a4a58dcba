"""Invariants of the tournament's pure helpers: schedules that promise no repeats keep the
promise, place points match the published tables, duplicate comparisons are zero-sum (the
IMP-like scale) or share a constant (matchpoints) per deal and seat, and a stream replays."""

from __future__ import annotations

from fractions import Fraction

from _hypothesis import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.tournament.draw import Draw
from domain.tournament.duplicate import cross_imps, imps, matchpoints, percent
from domain.tournament.format import PUBLISHED_DAMPING, Band, PointsRules
from domain.tournament.pairing import (
    meetings,
    random_schedule,
    reachable_rounds,
    rotation_schedule,
    swiss,
)
from domain.tournament.points import damp, place_points

seeds = st.binary(min_size=1, max_size=8)


@settings(max_examples=examples(ci=15))
@given(n=st.integers(9, 33), seed=seeds, uneven=st.sampled_from(["mixed", "byes"]))
def test_a_schedule_made_in_advance_never_seats_a_pair_twice(n, seed, uneven):
    rounds = reachable_rounds(n, uneven)
    field = [f"p{i}" for i in range(n)]
    schedule = random_schedule(field, rounds, 3, uneven, Draw(seed))
    assert len(schedule) == rounds
    assert max(meetings(schedule).values()) == 1
    for pairing in schedule:
        seen = [p for t in pairing.tables for p in t] + list(pairing.byes)
        assert sorted(seen) == sorted(field)


@settings(max_examples=examples(ci=25))
@given(groups=st.integers(1, 11), seed=seeds)
def test_the_rotation_keeps_its_promise_of_no_repeats(groups, seed):
    limit = groups if groups % 2 else max(groups // 2, 1)
    field = [f"p{i}" for i in range(3 * groups)]
    schedule = rotation_schedule(field, limit, Draw(seed))
    assert not meetings(schedule) or max(meetings(schedule).values()) == 1


@settings(max_examples=examples(ci=25))
@given(n=st.integers(3, 31), seed=seeds)
def test_swiss_seats_every_player_of_the_field_exactly_once(n, seed):
    ranked = Draw(seed).shuffle([f"p{i}" for i in range(n)])
    pairing = swiss(ranked, meetings([]), 3, "mixed", {})
    seen = [p for t in pairing.tables for p in t] + list(pairing.byes)
    assert sorted(seen) == sorted(ranked)


def zero_sum(size: int) -> st.SearchStrategy[tuple[int, ...]]:
    return st.lists(st.integers(-300, 300), min_size=size - 1, max_size=size - 1).map(
        lambda xs: (*xs, -sum(xs))
    )


@settings(max_examples=examples(ci=50))
@given(whists=st.integers(3, 4).flatmap(zero_sum))
def test_place_points_per_table_match_the_published_table(whists):
    rules = PointsRules()
    points = place_points(whists, rules)
    table = rules.places_4 if len(whists) == 4 else rules.places_3
    alone = sum(1 for w in whists if w > 0) == 1
    assert sum(points) == sum(table) + (rules.alone_positive_bonus if alone else 0)
    for i in range(len(whists)):
        for j in range(len(whists)):
            if whists[i] > whists[j]:
                assert points[i] > points[j]
            if whists[i] == whists[j]:
                assert points[i] == points[j]
    if len(set(whists)) == len(whists) and not alone:
        assert sorted(points, reverse=True) == list(table)


@settings(max_examples=examples(ci=50))
@given(x=st.integers(-2000, 2000), y=st.integers(-2000, 2000))
def test_damping_is_odd_monotone_and_never_adds(x, y):
    assert damp(-x, PUBLISHED_DAMPING) == -damp(x, PUBLISHED_DAMPING)
    assert abs(damp(x, PUBLISHED_DAMPING)) <= abs(x)
    if x <= y:
        assert damp(x, PUBLISHED_DAMPING) <= damp(y, PUBLISHED_DAMPING)
    assert damp(x, (Band(above=0, factor="1"),)) == x


scores = st.lists(
    st.fractions(min_value=-500, max_value=500, max_denominator=3), min_size=1, max_size=12
)


@settings(max_examples=examples(ci=50))
@given(group=scores)
def test_the_imp_like_scale_is_zero_sum_per_deal_and_seat(group):
    assert sum(cross_imps(group)) == 0


@settings(max_examples=examples(ci=50))
@given(group=scores)
def test_matchpoints_share_the_constant_n_times_n_minus_one(group):
    n = len(group)
    mps = matchpoints(group)
    assert sum(mps) == n * (n - 1)
    assert sum(percent(mp, n) for mp in mps) == (Fraction(50) * n if n > 1 else 50)


@settings(max_examples=examples(ci=50))
@given(d=st.fractions(min_value=-1000, max_value=1000))
def test_imps_are_odd_and_grow_with_the_difference(d):
    assert imps(-d) == -imps(d)
    assert abs(imps(d)) <= abs(imps(abs(d) + 1))
