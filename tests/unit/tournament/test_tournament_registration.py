"""Registration (регистрация): the window, check-in, withdrawal, late entry, teams, capacity."""

from __future__ import annotations

import pytest
from tournament_helpers import created, finish_round, fmt, live, refused, run, start, with_field

from domain.tournament import decider as d
from domain.tournament import messages as m
from domain.tournament.format import InvalidTournament, Registration, Teams, validate


def test_a_player_registers_only_while_the_window_is_open():
    state = created(fmt(registration=Registration(opens_at=100, closes_at=1000)))
    refused(state, m.Register(player="early", at=99), "illegal.registration_closed")
    refused(state, m.Register(player="late", at=1000), "illegal.registration_closed")
    state, events = run(state, m.Register(player="p", at=100))
    assert events == [m.PlayerRegistered(player="p", at=100)]
    refused(state, m.Register(player="p", at=200), "illegal.already_registered")


def test_the_field_is_closed_at_its_capacity():
    state = created(fmt(registration=Registration(closes_at=1000, capacity=2)))
    state, _ = run(state, m.Register(player="a", at=1), m.Register(player="b", at=1))
    refused(state, m.Register(player="c", at=1), "illegal.field_full")


CHECK_IN = Registration(closes_at=1000, check_in_opens_at=1000, check_in_closes_at=2000)


def test_players_who_do_not_check_in_are_dropped_before_round_one():
    state = with_field(10, fmt(registration=CHECK_IN))
    refused(state, m.CheckIn(player="p00", at=999), "illegal.check_in_closed")
    for p in [f"p{i:02}" for i in range(9)]:
        state, _ = run(state, m.CheckIn(player=p, at=1500, client_seed=f"seed-{p}"))
    refused(state, m.CheckIn(player="p00", at=1600), "illegal.checked_in")
    state, events = start(state)
    assert events[0] == m.CheckInClosed(at=2000, no_shows=("p09",))
    seated = {p for t in live(state).rounds[0].tables for p in t.seating}
    assert "p09" not in seated and len(seated) == 9
    assert d.entrant(live(state), "p09").status == "no_show"


def test_check_in_is_refused_when_the_event_has_none():
    state = with_field(3)
    refused(state, m.CheckIn(player="p00", at=10), "illegal.no_check_in")


def test_a_withdrawal_before_the_start_takes_the_player_out_of_the_field():
    state = with_field(10)
    state, _ = run(state, m.Withdraw(player="p09", at=20, reason="ill"))
    assert "p09" not in d.field(live(state))
    state, _ = start(state)
    assert all(len(t.seating) == 3 for t in live(state).rounds[0].tables)


def test_after_a_withdrawal_mid_event_the_results_stand_and_the_player_is_not_paired_again():
    state = with_field(9)
    state, _ = start(state)
    state = finish_round(state)
    state, _ = run(state, m.Withdraw(player="p00", at=3000))
    state, _ = start(state)
    seated = {p for t in live(state).rounds[1].tables for p in t.seating}
    assert "p00" not in seated
    assert next(s for s in d.current_standings(live(state)) if s.player == "p00").rounds == 1
    refused(state, m.Withdraw(player="p00", at=3001), "illegal.not_registered")


def test_a_late_entrant_joins_until_the_allowed_round_and_plays_the_next_one():
    state = with_field(8, fmt(registration=Registration(closes_at=1000, late_entry_rounds=1)))
    state, _ = start(state)
    state, events = run(state, m.Register(player="late", at=5000))
    assert events == [m.PlayerRegistered(player="late", at=5000, late=True)]
    state = finish_round(state)
    state, _ = start(state)
    assert any("late" in t.seating for t in live(state).rounds[1].tables)
    refused(state, m.Register(player="later", at=9000), "illegal.registration_closed")


def test_a_schedule_made_in_advance_takes_no_late_entry():
    bad = fmt(pairing="schedule", registration=Registration(closes_at=10, late_entry_rounds=1))
    with pytest.raises(InvalidTournament):
        validate(bad)
    refused(d.INITIAL_STATE, m.CreateTournament(format=bad, commitment="00"), "invalid_tournament")


def test_team_events_register_players_in_teams_of_at_most_the_maximum():
    state = created(fmt(teams=Teams(max_size=4)))
    refused(state, m.Register(player="solo", at=1), "illegal.team")
    for i in range(4):
        state, _ = run(state, m.Register(player=f"a{i}", team="A", at=1))
    refused(state, m.Register(player="a4", team="A", at=1), "illegal.team_full")
    refused(created(), m.Register(player="x", team="A", at=1), "illegal.team")


def test_a_team_event_with_changing_lineups_is_not_scheduled_in_advance():
    with pytest.raises(InvalidTournament):
        validate(fmt(teams=Teams(max_size=4), pairing="schedule"))
    validate(fmt(teams=Teams(max_size=3), pairing="schedule"))


def test_an_unknown_game_preset_is_refused_at_creation():
    refused(
        d.INITIAL_STATE,
        m.CreateTournament(format=fmt(preset="nowhere"), commitment="00"),
        "invalid_rules",
    )


def test_commands_before_creation_and_after_the_end_are_refused():
    refused(d.INITIAL_STATE, m.Register(player="p", at=1), "illegal.no_tournament")
    state = with_field(3, fmt(rounds=1))
    state, _ = start(state)
    state = finish_round(state)
    assert d.is_terminal(state)
    refused(state, m.Register(player="q", at=1), "illegal.tournament_over")


def test_each_tables_game_rules_carry_the_round_length_and_personal_time_at_its_size():
    from domain.tournament.format import RoundLength, table_rules

    timed = fmt(
        preset="leningrad", overrides={"pool": {"help_enabled": False}},
        length=RoundLength(kind="time", minutes=90), personal_time_seconds=600,
    )  # fmt: skip
    rules = table_rules(timed, 4)
    assert (rules.players, rules.convention, rules.pool.help_enabled) == (4, "leningrad", False)
    assert (rules.pool.time_limit_minutes, rules.pool.last_round) == (90, False)
    assert rules.table.bank_seconds == 600
    assert table_rules(fmt(length=RoundLength(kind="deals", deals=24)), 3).pool.max_deals == 24
    assert table_rules(fmt(length=RoundLength(kind="pool", pool_target=20)), 3).pool.target == 20


def test_each_tables_rating_weight_is_the_events_and_is_set_nowhere_else():
    from domain.tournament.format import table_rules

    assert table_rules(fmt(), 3).table.rating_weight == 100
    assert table_rules(fmt(rating_weight=150), 4).table.rating_weight == 150
    assert table_rules(fmt(rating_weight=0), 3).table.rating_weight == 0  # not rated
    for weight in (-1, 301):
        with pytest.raises(InvalidTournament, match="0 to 300"):
            validate(fmt(rating_weight=weight))
    with pytest.raises(InvalidTournament, match="not an override"):
        validate(fmt(overrides={"table": {"rating_weight": 50}}))
    refused(
        d.INITIAL_STATE,
        m.CreateTournament(format=fmt(overrides={"table": 5}), commitment="00"),
        "invalid_tournament",
    )
