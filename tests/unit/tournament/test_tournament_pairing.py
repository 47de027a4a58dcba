"""Pairing engines: the no-repeat schedule, Swiss, uneven fields, cuts, uploads, seat draws."""

from __future__ import annotations

from collections import Counter

import pytest
from tournament_helpers import (
    SECRETS,
    committed,
    finish_round,
    fmt,
    live,
    play,
    players,
    refused,
    start,
    with_field,
)

from domain.tournament import decider as d
from domain.tournament import messages as m
from domain.tournament.draw import Draw, schedule_draw, seat_table
from domain.tournament.format import Cut
from domain.tournament.pairing import (
    NoSchedule,
    Pairing,
    check_pairing,
    cut,
    meetings,
    random_schedule,
    swiss,
    table_sizes,
)


def _covers_field_once(pairing: Pairing, field: list[str]) -> bool:
    seen = [p for t in pairing.tables for p in t] + list(pairing.byes)
    return sorted(seen) == sorted(field)


@pytest.mark.parametrize(
    ("n", "uneven", "sizes", "byes"),
    [
        (29, "mixed", [4, 4] + [3] * 7, 0),
        (30, "mixed", [3] * 10, 0),
        (31, "mixed", [4] + [3] * 9, 0),
        (29, "byes", [3] * 9, 2),
        (31, "byes", [3] * 10, 1),
    ],
)
def test_a_field_not_divisible_by_three_gets_tables_of_four_or_byes(n, uneven, sizes, byes):
    assert table_sizes(n, 3, uneven) == (sizes, byes)


def test_nine_players_get_four_rounds_in_which_nobody_meets_twice():
    field = players(9)
    schedule = random_schedule(field, 4, 3, "mixed", Draw(b"nine"))
    met = meetings(schedule)
    assert len(met) == 36 and set(met.values()) == {1}  # every pair exactly once: AG(2, 3)
    assert all(_covers_field_once(r, field) for r in schedule)


@pytest.mark.parametrize("n", [29, 30, 31])
@pytest.mark.parametrize("uneven", ["mixed", "byes"])
def test_fields_of_29_30_and_31_get_seven_rounds_without_repeats(n, uneven):
    field = players(n)
    schedule = random_schedule(field, 7, 3, uneven, Draw(b"%d" % n))
    assert max(meetings(schedule).values()) == 1
    assert all(_covers_field_once(r, field) for r in schedule)
    byes = Counter(p for r in schedule for p in r.byes)
    assert not byes or max(byes.values()) - min(byes.get(p, 0) for p in field) <= 1


def test_the_schedule_is_a_function_of_the_draw():
    field = players(12)
    assert random_schedule(field, 3, 3, "mixed", Draw(b"a")) == random_schedule(
        field, 3, 3, "mixed", Draw(b"a")
    )
    assert random_schedule(field, 3, 3, "mixed", Draw(b"a")) != random_schedule(
        field, 3, 3, "mixed", Draw(b"b")
    )


def test_six_players_cannot_play_two_rounds_without_a_repeat():
    with pytest.raises(NoSchedule):
        random_schedule(players(6), 2, 3, "mixed", Draw(b"six"), attempts=5)


def test_team_mates_are_never_scheduled_together():
    field = players(12)
    teams = [frozenset(p) for p in (("p00", "p01"), ("p02", "p03"))]
    schedule = random_schedule(field, 4, 3, "mixed", Draw(b"t"), avoid=teams)
    assert all(meetings(schedule)[pair] == 0 for pair in teams)


def test_swiss_seats_the_leaders_together_when_they_have_not_met():
    ranked = players(9)
    pairing = swiss(ranked, Counter(), 3, "mixed", {})
    assert pairing.tables[0] == ("p00", "p01", "p02")
    assert _covers_field_once(pairing, ranked)


def test_swiss_pays_a_penalty_to_avoid_a_repeat():
    ranked = players(9)
    met = meetings([Pairing(tables=(("p00", "p01", "p02"),))])
    pairing = swiss(ranked, met, 3, "mixed", {})
    assert all(max(met[pair] for pair in meetings([Pairing(tables=(t,))])) == 0
               for t in pairing.tables)  # fmt: skip
    assert pairing.tables[0][0] == "p00"


def test_swiss_gives_byes_to_the_bottom_players_who_had_fewest():
    ranked = players(11)
    pairing = swiss(ranked, Counter(), 3, "byes", {"p10": 1})
    assert pairing.byes == ("p08", "p09")


def test_a_cut_keeps_the_top_of_the_standings():
    assert cut(players(30), 6) == (tuple(players(6)), tuple(players(30)[6:]))


def test_an_uploaded_pairing_must_seat_the_field_once_at_allowed_tables():
    field = players(7)
    good = Pairing(tables=(("p00", "p01", "p02", "p03"), ("p04", "p05", "p06")))
    check_pairing(good, field, 3, "mixed")
    for bad in (
        Pairing(tables=(("p00", "p01", "p02"), ("p03", "p04", "p05"))),
        Pairing(tables=(("p00", "p01", "p02", "p03"), ("p04", "p05", "p05"))),
        Pairing(tables=(("p00", "p01"), ("p02", "p03", "p04", "p05", "p06"))),
    ):
        with pytest.raises(Exception, match=r"sits exactly once|seats"):
            check_pairing(bad, field, 3, "mixed")


def test_an_arbiter_uploads_a_pairing_and_the_round_uses_it():
    state = with_field(6)
    pairing = Pairing(tables=(("p00", "p02", "p04"), ("p01", "p03", "p05")))
    refused(
        state,
        m.StartRound(secret=SECRETS[0].hex(), next_commitment=committed(1), pairing=pairing),
        "illegal.no_arbiter",
    )
    state, events = start(state, pairing=pairing, arbiter="judge")
    started = events[-1]
    assert isinstance(started, m.RoundStarted) and started.pairing == "arbiter"
    assert [sorted(t.seating) for t in started.tables] == [list(t) for t in pairing.tables]


def test_a_scheduled_event_plays_the_schedule_drawn_at_round_one():
    state = with_field(9, fmt(pairing="schedule", rounds=4))
    state, events = start(state)
    drawn = next(e for e in events if isinstance(e, m.ScheduleDrawn))
    assert drawn.first_round == 1 and len(drawn.rounds) == 4
    state = finish_round(state)
    state = play(state, 3)
    played = [Pairing(tables=tuple(tuple(sorted(t.seating)) for t in r.tables))
              for r in live(state).rounds]  # fmt: skip
    assert max(meetings(played).values()) == 1
    assert [sorted(map(sorted, p.tables)) for p in played] == [
        sorted(map(sorted, p.tables)) for p in drawn.rounds
    ]


def test_seats_and_first_dealers_can_be_recomputed_once_the_round_secret_is_revealed():
    state = with_field(9, fmt(pairing="schedule"))
    state, events = start(state)
    started = events[-1]
    assert isinstance(started, m.RoundStarted)
    assert SECRETS[0].hex() not in repr(events)  # only the commitment while the round runs
    state = finish_round(state)
    ended = live(state).rounds[0].secret
    assert ended is not None
    secret = bytes.fromhex(ended)
    for t in started.tables:
        names = sorted(t.seating)
        assert seat_table(secret, 1, t.table, names, [""] * 3) == (t.seating, t.first_dealer)
    drawn = next(e for e in events if isinstance(e, m.ScheduleDrawn))
    assert drawn.rounds == random_schedule(
        players(9), 3, 3, "mixed", schedule_draw(secret, 1, players(9))
    )


def test_a_round_secret_that_does_not_open_the_commitment_is_refused():
    state = with_field(3)
    refused(
        state,
        m.StartRound(secret=SECRETS[5].hex(), next_commitment="x"),
        "illegal.wrong_secret",
    )
    state, _ = start(state)
    state = finish_round(state, close=False)
    refused(state, m.CloseRound(round_no=1, secret=SECRETS[1].hex()), "illegal.wrong_secret")


def test_a_commitment_that_no_secret_could_open_is_refused():
    state = with_field(3)
    refused(state, m.StartRound(secret=SECRETS[0].hex(), next_commitment="x" * 64),
            "illegal.bad_commitment")  # fmt: skip
    refused(d.INITIAL_STATE, m.CreateTournament(format=fmt(), commitment="ABC"),
            "illegal.bad_commitment")  # fmt: skip


def test_a_round_does_not_start_before_the_last_one_ended():
    state = with_field(3)
    state, _ = start(state)
    refused(state, m.StartRound(secret=SECRETS[1].hex(), next_commitment="x"),
            "illegal.round_running")  # fmt: skip


def test_thirty_cut_to_a_final_of_nine_plays_the_final_among_the_top_nine():
    form = fmt(rounds=5, cuts=(Cut(after_round=3, keep=9, carry="none"),))
    state = play(with_field(30, form), 3)
    ranked = [s.player for s in d.current_standings(live(state), d.field(live(state)))]
    state, events = start(state)
    cut_event = events[0]
    assert isinstance(cut_event, m.FieldCut)
    assert cut_event.finalists == tuple(ranked[:9])
    assert len(cut_event.eliminated) == 21
    final = {p for t in live(state).rounds[3].tables for p in t.seating}
    assert final == set(ranked[:9])
    assert any(isinstance(e, m.ScheduleDrawn) and e.first_round == 4 for e in events)
    state = finish_round(state)
    state = play(state, 1)
    assert d.is_terminal(state)
    finals = d.current_standings(live(state), cut_event.finalists)
    assert all(s.rounds == 2 for s in finals)  # carry none: only the final's rounds count


def test_thirty_cut_to_six_keeps_the_points_when_the_cut_carries_them():
    form = fmt(rounds=3, cuts=(Cut(after_round=2, keep=6, pairing="swiss"),))
    state = play(with_field(30, form), 2)
    state, events = start(state)
    assert isinstance(events[0], m.FieldCut) and len(events[0].finalists) == 6
    assert events[-1].pairing == "swiss"
    state = finish_round(state)
    assert all(s.rounds == 3 for s in d.current_standings(live(state), events[0].finalists))


def test_swiss_rounds_of_an_event_avoid_repeats_while_they_can():
    state = play(with_field(12, fmt(rounds=3)), 3)
    played = [Pairing(tables=tuple(t.seating for t in r.tables)) for r in live(state).rounds]
    assert max(meetings(played).values()) == 1


def test_the_worked_examples_of_docs_tournaments_md():
    nine = list("ABCDEFGHI")
    schedule = random_schedule(nine, 4, 3, "mixed", Draw(b"example"))
    assert [["".join(sorted(t)) for t in r.tables] for r in schedule] == [
        ["ABH", "CEG", "DFI"],
        ["AGI", "DEH", "BCF"],
        ["FGH", "ACD", "BEI"],
        ["AEF", "BDG", "CHI"],
    ]
    met = meetings([Pairing(tables=(("A", "B", "C"), ("D", "E", "F"), ("G", "H", "I")))])
    assert swiss(nine, met, 3, "mixed", {}).tables == (
        ("A", "D", "G"), ("B", "E", "H"), ("C", "F", "I"),
    )  # fmt: skip
