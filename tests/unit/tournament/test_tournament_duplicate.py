"""Duplicate: the same deals at every table, each deal scored alone, compared per deal and seat
on matchpoints and an IMP-like scale; the deals' secret opened at the end; robot duplicate."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import msgspec
import pytest
from tournament_helpers import (
    DEALS_SECRET,
    created,
    finish_round,
    fmt,
    live,
    players,
    refused,
    run,
    start,
    with_field,
)

from domain.cards import DECK
from domain.outcome import DealOutcome, DefenderRole
from domain.rules import SOCHI
from domain.tournament import decider as d
from domain.tournament import messages as m
from domain.tournament.draw import Draw, duplicate_deck
from domain.tournament.duplicate import (
    balanced_seating,
    cross_imps,
    deal_alone,
    imps,
    matchpoints,
    percent,
)
from domain.tournament.format import Duplicate, InvalidTournament, Registration, Robots, validate
from domain.tournament.pairing import NoSchedule, Pairing, meetings, rotation_schedule

F = Fraction
DUP = fmt(rounds=3, uneven="byes", duplicate=Duplicate(deals_per_round=2))


def test_matchpoints_give_two_per_entrant_beaten_and_one_per_tie():
    # one deal, seat 0's cards, at four tables
    assert matchpoints([30, 10, 10, -20]) == (6, 3, 3, 0)
    assert sum(matchpoints([30, 10, 10, -20])) == 4 * 3
    assert [percent(mp, 4) for mp in (6, 3, 3, 0)] == [100, 50, 50, 0]


def test_the_imp_like_scale_damps_a_difference_in_whists_by_its_table():
    assert [imps(x) for x in (0, 4, 5, 14, 15, 29, 30, 120, 749, 750, 5000)] == [
        0, 0, 1, 1, 2, 2, 3, 6, 11, 12, 12,
    ]  # fmt: skip
    assert imps(-30) == -3


def test_cross_imps_compare_each_entrant_with_every_other_and_sum_to_zero():
    scores = [30, 10, 10, -20]
    assert cross_imps(scores) == (F(8, 3), F(1, 3), F(1, 3), F(-10, 3))
    assert sum(cross_imps(scores)) == 0
    assert cross_imps([7]) == (0,)


def test_a_deal_is_scored_alone_on_an_empty_sheet_and_settles_to_zero():
    outcome = DealOutcome(
        kind="game", dealer=2, seats=3, hands=(0, 1, 2), tricks=(6, 3, 1), declarer=0,
        contract="6S", played=True,
        defenders=(DefenderRole(seat=1, choice="whist", whist_rank=1),
                   DefenderRole(seat=2, choice="pass")),
    )  # fmt: skip
    values = deal_alone(outcome, SOCHI)
    assert sum(values) == 0
    assert values[0] > 0  # two pool points are worth more than the whists against them


def test_every_table_of_a_round_gets_the_same_deck_and_each_deal_its_own():
    first = duplicate_deck(DEALS_SECRET, 1, 0)
    assert sorted(first) == sorted(DECK)
    assert first == duplicate_deck(DEALS_SECRET, 1, 0)
    assert first != duplicate_deck(DEALS_SECRET, 1, 1) != duplicate_deck(DEALS_SECRET, 2, 0)


def test_duplicate_compares_like_tables_only():
    with pytest.raises(InvalidTournament):
        validate(fmt(duplicate=Duplicate(deals_per_round=2)))
    with pytest.raises(InvalidTournament):
        validate(msgspec.structs.replace(DUP, table_size=4, pairing="schedule"))
    refused(
        d.INITIAL_STATE,
        m.CreateTournament(format=DUP, commitment="00"),
        "illegal.no_commitment",
    )


def game(tricks: int, declarer: int = 0) -> DealOutcome:
    """Six spades by ``declarer``, whisted by the next seat, taking ``tricks``."""
    whister, passer = (declarer + 1) % 3, (declarer + 2) % 3
    taken = [0, 0, 0]
    taken[declarer], taken[whister] = tricks, 10 - tricks
    return DealOutcome(
        kind="game", dealer=passer, seats=3, hands=(declarer, whister, passer),
        tricks=tuple(taken), declarer=declarer, contract="6S", played=True,
        defenders=(DefenderRole(seat=whister, choice="whist", whist_rank=1),
                   DefenderRole(seat=passer, choice="pass")),
    )  # fmt: skip


def _outcomes(round_no, seating):
    """Two deals declared by the player with the lowest name, who takes 6 and then 7."""
    low = min(range(3), key=lambda i: seating[i])
    return (game(6, low), game(7, low))


def test_seats_rotate_between_rounds_so_each_player_holds_every_seats_layout():
    state = with_field(9, msgspec.structs.replace(DUP, pairing="schedule"))
    for _ in range(3):
        state, _ = start(state)
        tournament = live(state)
        r = tournament.rounds[-1]
        for t in r.tables:
            state, _ = run(
                state,
                m.RecordResult(
                    round_no=r.round_no, table=t.table, whists=(0, 0, 0),
                    outcomes=_outcomes(r.round_no, t.seating),
                ),
            )  # fmt: skip
        state = finish_round(state)
    held = Counter(
        (p, seat) for r in live(state).rounds for t in r.tables for seat, p in enumerate(t.seating)
    )
    assert all(held[(p, s)] == 1 for p in d.field(live(state)) for s in range(3))
    played = [Pairing(tables=tuple(t.seating for t in r.tables)) for r in live(state).rounds]
    assert max(meetings(played).values()) == 1


def test_paired_by_swiss_a_table_is_seated_where_its_players_held_those_seats_least():
    held = {"a": [1, 0, 0], "b": [1, 0, 0], "c": [0, 1, 0]}
    seating = balanced_seating(("a", "b", "c"), held, ("a", "b", "c"))
    assert all(held[p][s] == 0 for s, p in enumerate(seating))
    assert seating == ("c", "a", "b")  # of the two perfect seatings, the drawn order's first
    everyone_in_seat_0 = {p: [1, 0, 0] for p in "abc"}
    seating = balanced_seating(("a", "b", "c"), everyone_in_seat_0, ("b", "c", "a"))
    assert sum(everyone_in_seat_0[p][s] for s, p in enumerate(seating)) == 1


def test_the_rotation_schedule_meets_nobody_twice_for_as_many_rounds_as_groups_allow():
    for n, rounds in ((9, 3), (15, 5), (27, 9), (12, 2), (30, 5)):
        schedule = rotation_schedule(players(n), rounds, Draw(b"r"))
        assert max(meetings(schedule).values()) == 1
        held = Counter((p, s) for r in schedule[:3] for t in r.tables for s, p in enumerate(t))
        assert set(held.values()) == {1}
    with pytest.raises(NoSchedule):
        rotation_schedule(players(12), 3, Draw(b"r"))


def test_duplicate_totals_compare_each_deal_and_seat_across_the_tables():
    state, _ = start(with_field(9, DUP))
    r = live(state).rounds[0]
    refused(state, m.RecordResult(round_no=1, table=1, whists=(0, 0, 0)), "illegal.bad_result")
    refused(
        state,
        m.RecordResult(round_no=1, table=1, whists=(0, 0, 0), outcomes=(game(6),)),
        "illegal.bad_result",
    )
    for t in r.tables:
        state, _ = run(state, m.RecordResult(round_no=1, table=t.table, whists=(0, 0, 0),
                                             outcomes=_outcomes(1, t.seating)))  # fmt: skip
    totals = d.duplicate_totals(live(state))
    # 2 deals × 3 seats, each group of 3 tables shares 3 × 2 = 6 matchpoints
    assert sum(totals.values()) == 2 * 3 * 6
    imp_state = d.fold([], live(state))
    imp_format = live(state).format
    imp = msgspec.structs.replace(
        imp_state, format=msgspec.structs.replace(
            imp_format, duplicate=Duplicate(deals_per_round=2, scale="imp")))  # fmt: skip
    assert sum(d.duplicate_totals(imp).values()) == 0


def test_the_deals_secret_is_revealed_only_when_the_event_ends_and_must_open_the_commitment():
    state = with_field(3, msgspec_rounds(DUP, 1))
    state, _ = start(state)
    refused(state, m.RevealDeals(secret=DEALS_SECRET.hex()), "illegal.not_over")
    t = live(state).rounds[0].tables[0]
    state, _ = run(state, m.RecordResult(round_no=1, table=1, whists=(0, 0, 0),
                                         outcomes=_outcomes(1, t.seating)))  # fmt: skip
    state = finish_round(state)
    assert d.is_terminal(state)
    refused(state, m.RevealDeals(secret=b"\x00".hex() * 32), "illegal.wrong_secret")
    state, events = run(state, m.RevealDeals(secret=DEALS_SECRET.hex()))
    assert events == [m.DealsRevealed(secret=DEALS_SECRET.hex())]
    refused(state, m.RevealDeals(secret=DEALS_SECRET.hex()), "illegal.already_revealed")


def msgspec_rounds(form, rounds):
    return msgspec.structs.replace(form, rounds=rounds)


ROBOTS = fmt(
    rounds=1, uneven="byes", registration=Registration(opens_at=0, closes_at=10_000),
    duplicate=Duplicate(deals_per_round=3, robots=Robots(level="strong")),
)  # fmt: skip


def test_robot_duplicate_runs_each_entrant_alone_with_two_bots_within_the_window():
    state = created(ROBOTS)
    for p in ("ann", "bob", "cid", "dan"):
        state, _ = run(state, m.Register(player=p, at=100))
    refused(state, m.StartRound(secret="00", next_commitment="x"), "illegal.robot_event")
    for i, p in enumerate(("ann", "bob", "cid")):
        state, events = run(state, m.StartRobotRun(player=p, at=200 + i))
        assert events[0].seating == (p, "bot:strong:1", "bot:strong:2")
    refused(state, m.StartRobotRun(player="ann", at=300), "illegal.already_played")
    refused(state, m.StartRobotRun(player="dan", at=10_000), "illegal.window_closed")
    state, _ = run(state, m.Register(player="eve", at=5000))  # the window is still open
    # deal k: the human (seat 0) holds layout seat k, as the service rotates the deck; he
    # declares six spades each time, taking these tricks; the bots are never compared
    tricks = {"ann": (8, 6, 7), "bob": (7, 6, 7), "cid": (5, 6, 7)}
    for run_no, p in enumerate(("ann", "bob", "cid"), start=1):
        outcomes = tuple(game(t) for t in tricks[p])
        state, events = run(state, m.RecordResult(round_no=0, table=run_no, whists=(0, 0, 0),
                                                  outcomes=outcomes))  # fmt: skip
        assert d.withheld_until(events[0], ROBOTS) == 10_000
        assert events[0].deals[0] == tuple(str(v) for v in deal_alone(outcomes[0], SOCHI))
    totals = d.duplicate_totals(live(state))
    # deal 0: 8 > 7 > 5 tricks gives 4, 2, 0 matchpoints; deals 1 and 2 are ties, 2 each
    assert totals == {"ann": 4 + 2 + 2, "bob": 2 + 2 + 2, "cid": 0 + 2 + 2}
    refused(state, m.EndEvent(at=9_999), "illegal.window_open")
    state, _ = run(state, m.EndEvent(at=10_000))
    assert d.is_terminal(state)
