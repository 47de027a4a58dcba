"""Invariants of the tournament's pure helpers: schedules that promise no repeats keep the
promise, place points match the published tables, duplicate comparisons are zero-sum (the
IMP-like scale) or share a constant (matchpoints) per deal and seat, and a stream replays."""

from __future__ import annotations

from fractions import Fraction
from itertools import pairwise

import msgspec
from _hypothesis import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.fairness import commitment
from domain.tournament import decider as d
from domain.tournament import messages as m
from domain.tournament.draw import Draw
from domain.tournament.duplicate import cross_imps, imps, matchpoints, percent
from domain.tournament.format import PUBLISHED_DAMPING, Band, Format, PointsRules, Registration
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


def plain_swiss(ranked, met, size, uneven, byes_had, penalty=100, window=8):
    """`swiss` as it was first written: every pair of tables tried for a swap, no skipping."""
    from itertools import combinations

    from domain.tournament.pairing import Pairing, pairs_of, table_sizes

    sizes, bye_count = table_sizes(len(ranked), size, uneven)
    rank = {p: i for i, p in enumerate(ranked)}
    byes = set(sorted(reversed(ranked), key=lambda p: byes_had.get(p, 0))[:bye_count])
    free = [p for p in ranked if p not in byes]

    def cost(table):
        repeats = sum(met[pair] for pair in pairs_of(table))
        return penalty * repeats + max(rank[p] for p in table) - min(rank[p] for p in table)

    tables = []
    for table_size in sorted(sizes):
        head, rest = free[0], free[1:]
        best = min(combinations(rest[:window], table_size - 1), key=lambda o: cost((head, *o)))
        tables.append([head, *best])
        free = [p for p in rest if p not in best]
    improved = True
    while improved:
        improved = False
        for a, b in combinations(range(len(tables)), 2):
            for i in range(len(tables[a])):
                for j in range(len(tables[b])):
                    ta, tb = list(tables[a]), list(tables[b])
                    ta[i], tb[j] = tb[j], ta[i]
                    if cost(ta) + cost(tb) < cost(tables[a]) + cost(tables[b]):
                        tables[a], tables[b] = ta, tb
                        improved = True
    return Pairing(
        tables=tuple(tuple(sorted(t, key=rank.__getitem__)) for t in tables),
        byes=tuple(sorted(byes, key=rank.__getitem__)),
    )


@settings(max_examples=examples(ci=40))
@given(
    n=st.integers(3, 40), seed=seeds, rounds=st.integers(0, 3),
    uneven=st.sampled_from(["mixed", "byes"]), penalty=st.sampled_from([0, 1, 7, 100]),
)  # fmt: skip
def test_swiss_skipping_hopeless_swaps_pairs_exactly_as_trying_every_swap(
    n, seed, rounds, uneven, penalty
):
    field = [f"p{i}" for i in range(n)]
    draw = Draw(seed)
    played = [swiss(draw.shuffle(field), meetings([]), 3, uneven, {}) for _ in range(rounds)]
    met = meetings(played)
    ranked = draw.shuffle(field)
    byes_had = {p: 1 for r in played for p in r.byes}
    assert swiss(ranked, met, 3, uneven, byes_had, penalty) == plain_swiss(
        ranked, met, 3, uneven, byes_had, penalty
    )


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


def _event_of(n: int, rounds: int, results: st.DataObject):
    """A Swiss event of ``n`` players played to the end with drawn zero-sum results."""
    form = Format(rounds=rounds, registration=Registration(closes_at=1000), uneven="mixed")
    secrets = [bytes([i + 1]) * 16 for i in range(rounds + 1)]
    log: list[m.TournamentEvent] = []

    def act(command: m.TournamentCommand) -> None:
        log.extend(d.decide(command, d.fold(log)))

    act(m.CreateTournament(format=form, commitment=commitment(secrets[0])))
    for i in range(n):
        act(m.Register(player=f"p{i:02}", at=1))
    for r in range(rounds):
        act(m.StartRound(secret=secrets[r].hex(), next_commitment=commitment(secrets[r + 1])))
        state = d.fold(log)
        assert isinstance(state, d.Tournament)
        for t in state.rounds[-1].tables:
            whists = results.draw(zero_sum(len(t.seating)))
            act(m.RecordResult(round_no=r + 1, table=t.table, whists=whists))
        act(m.CloseRound(round_no=r + 1, secret=secrets[r].hex()))
    return log


@settings(max_examples=examples(ci=10))
@given(n=st.integers(3, 31), results=st.data())
def test_a_played_event_replays_round_trips_and_seats_everyone_once_a_round(n, results):
    log = _event_of(n, 3, results)
    state = d.fold(log)
    assert d.is_terminal(state) and isinstance(state, d.Tournament)
    decoded = msgspec.json.decode(msgspec.json.encode(log), type=list[m.TournamentEvent])
    assert decoded == log and d.fold(decoded) == state
    for r in state.rounds:
        seated = [p for t in r.tables for p in t.seating] + list(r.byes)
        assert sorted(seated) == sorted(d.field(state))
    # place points per round add up to the published tables (plus each alone-positive bonus
    # and each bye's points)
    table = d.current_standings(state)
    rules = state.format.points
    expected = sum(
        sum(rules.places_4 if len(res.whists) == 4 else rules.places_3)
        + (rules.alone_positive_bonus if sum(w > 0 for w in res.whists) == 1 else 0)
        for res in d.results(state)
    )
    expected += len(d.byes(state)) * Fraction(rules.bye_points)
    assert sum(s.points for s in table) == expected
    assert [s.place for s in table] == sorted(s.place for s in table)
    assert all(a.points >= b.points for a, b in pairwise(table))
