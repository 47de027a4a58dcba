"""Tournament points: damping, cut-offs and caps, place points, shared places, tie-breaks,
byes, the end-of-time rule and team sums."""

from __future__ import annotations

from fractions import Fraction

import msgspec
from tournament_helpers import finish_round, fmt, live, play, start, with_field

from domain.tournament import decider as d
from domain.tournament.format import PUBLISHED_DAMPING, PointsRules, RoundLength, Teams
from domain.tournament.points import (
    Result,
    counted,
    damp,
    head_to_head,
    place_points,
    standings,
    team_standings,
)

F = Fraction


def test_a_result_of_plus_120_counts_77_under_the_published_damping():
    assert damp(120, PUBLISHED_DAMPING) == 50 + F(50, 2) + F(20, 10) == 77
    assert damp(-120, PUBLISHED_DAMPING) == -77
    assert damp(50, PUBLISHED_DAMPING) == 50
    assert damp(100, PUBLISHED_DAMPING) == 75
    assert damp(120, ()) == 120


def test_the_cap_and_the_cut_off_bound_a_counted_result_after_damping():
    rules = PointsRules(damping=PUBLISHED_DAMPING, cap=60, cut_off=70)
    assert counted(120, rules) == 60
    assert counted(-300, rules) == -70
    assert counted(-60, rules) == -55


def test_a_positive_result_is_not_recorded_when_the_table_ran_out_of_time():
    form = fmt(length=RoundLength(kind="time", minutes=90, on_time="void_positive"))
    result = Result(round_no=1, players=("a", "b", "c"), whists=(40, -10, -30), timed_out=True)
    table = standings(["a", "b", "c"], [result], msgspec_replace(form, primary="whists"))
    assert {s.player: s.whists for s in table} == {"a": 0, "b": -10, "c": -30}


def msgspec_replace(form, **points):
    return msgspec.structs.replace(form, points=msgspec.structs.replace(form.points, **points))


def test_place_points_at_four_are_three_two_one_nothing_with_a_bonus_when_alone_positive():
    rules = PointsRules()
    assert place_points((30, -5, -10, -15), rules) == (4, 2, 1, 0)
    assert place_points((30, 10, -10, -30), rules) == (3, 2, 1, 0)
    assert place_points((20, -10, -10), rules) == (3, F(1, 2), F(1, 2))


def test_equal_results_share_the_points_of_the_places_they_cover():
    assert place_points((10, 10, -20), PointsRules()) == (F(3, 2), F(3, 2), 0)
    assert place_points((0, 0, 0, 0), PointsRules()) == (F(3, 2),) * 4


def test_ties_in_points_are_broken_by_whists_then_head_to_head_then_bula():
    form = fmt()
    rounds = [
        Result(round_no=1, players=("a", "b", "x"), whists=(20, 0, -20), pool=(10, 6, 0)),
        Result(round_no=2, players=("b", "y", "z"), whists=(20, 0, -20), pool=(10, 4, 2)),
        Result(round_no=2, players=("a", "w", "v"), whists=(0, 10, -10), pool=(8, 9, 1)),
    ]
    table = standings(["a", "b"], rounds, form)
    # a: 2 + 1 (alone positive) + 1 = 4 points, 20 whists; b: 1 + 2 + 1 = 4, 20 whists;
    # a finished ahead of b at their one common table
    assert [(s.player, s.place, s.points, s.whists) for s in table] == [
        ("a", 1, 4, 20),
        ("b", 2, 4, 20),
    ]
    assert head_to_head(["a", "b"], rounds) == {"a": 1, "b": -1}
    bula_first = msgspec_replace(form, tiebreaks=("bula",))
    assert [s.player for s in standings(["a", "b"], rounds, bula_first)] == ["a", "b"]
    assert [s.bula for s in standings(["a", "b"], rounds, bula_first)] == [18, 16]


def test_players_tied_on_every_key_share_the_place():
    result = Result(round_no=1, players=("a", "b", "c"), whists=(0, 0, 0))
    assert [s.place for s in standings(["a", "b", "c"], [result], fmt())] == [1, 1, 1]


def test_a_bye_scores_the_events_bye_points_and_no_whists():
    table = standings(["a"], [], fmt(), byes=[(1, "a")])
    assert (table[0].points, table[0].whists, table[0].rounds) == (1, 0, 1)


def test_whists_as_the_primary_measure_rank_by_counted_whists():
    form = msgspec_replace(fmt(), primary="whists", damping=PUBLISHED_DAMPING)
    rounds = [
        Result(round_no=1, players=("a", "b", "c"), whists=(120, -60, -60)),
        Result(round_no=2, players=("b", "c", "a"), whists=(90, 30, -120)),
    ]
    table = standings(["a", "b", "c"], rounds, form)
    # a: 77 − 77; b: −55 + (50 + 40/2); c: −55 + 30
    assert {s.player: s.whists for s in table} == {"a": 0, "b": 15, "c": -25}
    assert [s.player for s in table] == ["b", "a", "c"]


def test_team_sums_add_the_playing_members_and_team_mates_never_share_a_table():
    state = play(with_field(9, fmt(teams=Teams(), rounds=2)), 2)
    tournament = live(state)
    teams = {"t0": ["p00", "p01", "p02"], "t1": ["p03", "p04", "p05"], "t2": ["p06", "p07", "p08"]}
    for r in tournament.rounds:
        for t in r.tables:
            assert len({p[:2] + str(int(p[1:]) // 3) for p in t.seating}) == 3
    table = team_standings(teams, d.results(tournament), tournament.format)
    total = {s.team: s.points for s in table}
    assert sum(total.values()) == sum(s.points for s in d.current_standings(tournament))
    singles = {s.player: s.points for s in d.current_standings(tournament)}
    assert total["t0"] == sum(singles[p] for p in teams["t0"])


def test_standings_after_a_round_are_the_place_points_of_its_tables():
    state, _ = start(with_field(9))
    state = finish_round(state)
    table = {s.player: s.points for s in d.current_standings(live(state))}
    assert sorted(table.values(), reverse=True) == [3, 3, 3, 1, 1, 1, 0, 0, 0]


def test_the_primary_measure_ranks_before_any_tie_break():
    rounds = [
        Result(round_no=1, players=("a", "b", "c"), whists=(10, 5, -15)),
        Result(round_no=2, players=("a", "b", "c"), whists=(10, 5, -15)),
        Result(round_no=3, players=("b", "a", "c"), whists=(300, -10, -290)),
        Result(round_no=4, players=("a", "b", "c"), whists=(1, 0, -1)),
    ]
    # a: 2 + 2 + 1 + 3 = 8 points, 11 whists; b: 1 + 1 + 3 + 1 = 6 points, 310 whists
    table = standings(["a", "b", "c"], rounds, fmt())
    assert [(s.player, s.points, s.whists) for s in table] == [
        ("a", 8, 11), ("b", 6, 310), ("c", 0, -321),
    ]  # fmt: skip


def test_a_team_of_four_plays_three_its_lineup_names_and_only_they_count():
    from tournament_helpers import refused, run

    from domain.tournament import messages as m

    state = with_field(0, fmt(teams=Teams(), rounds=2))
    for team, members in (("A", "a1 a2 a3 a4"), ("B", "b1 b2 b3"), ("C", "c1 c2 c3")):
        for p in members.split():
            state, _ = run(state, m.Register(player=p, team=team, at=1))
    assert "a4" not in d.field(live(state))  # the first three by default
    refused(state, m.NameLineup(team="A", players=("a1", "a2")), "illegal.bad_lineup")
    refused(state, m.NameLineup(team="A", players=("a1", "a2", "b1")), "illegal.bad_lineup")
    state, _ = run(state, m.NameLineup(team="A", players=("a4", "a2", "a3")))
    assert d.captain(live(state), "A") == "a1" and d.lineup(live(state), "A") == ("a2", "a3", "a4")
    state, _ = start(state)
    seated = {p for t in live(state).rounds[0].tables for p in t.seating}
    assert "a1" not in seated and "a4" in seated and len(seated) == 9
    # Named while round 1 is played (the next round starts as soon as it ends), it counts from
    # round 2; the last round's lineup is the last one named.
    state, events = run(state, m.NameLineup(team="A", players=("a1", "a2", "a3"), by="a1"))
    assert events == [m.LineupNamed(team="A", players=("a1", "a2", "a3"), by="a1", for_round=2)]
    state = finish_round(state)
    state, _ = start(state)
    assert "a4" not in {p for t in live(state).rounds[1].tables for p in t.seating}
    refused(state, m.NameLineup(team="A", players=("a4", "a2", "a3")), "illegal.no_round_left")
    state = finish_round(state)
    table = team_standings(d.teams(live(state)), d.results(live(state)), live(state).format)
    singles = {s.player: s.points for s in d.current_standings(live(state))}
    played = {s.player: s.rounds for s in d.current_standings(live(state))}
    assert played["a1"] == played["a4"] == 1 and played["a2"] == 2
    assert next(t for t in table if t.team == "A").points == sum(
        singles[p] for p in ("a1", "a2", "a3", "a4")
    )
