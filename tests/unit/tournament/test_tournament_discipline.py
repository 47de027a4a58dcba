"""Discipline and the arbiter: yellow cards, disqualification, paused tables, replacements,
adjusted and annulled results, appeals; every decision an event with its reason."""

from __future__ import annotations

from tournament_helpers import SECRETS, finish_round, fmt, live, refused, run, start, with_field

from domain.tournament import decider as d
from domain.tournament import messages as m
from domain.tournament.format import Discipline

CARDS = fmt(rounds=3, discipline=Discipline(card_below=100))


def _round_one(form=CARDS, n=9):
    state, _ = start(with_field(n, form))
    return state, live(state).rounds[0].tables[0]


def test_a_timeout_removal_gives_a_yellow_card_and_the_seat_is_played_for_to_the_end():
    state, table = _round_one()
    player = table.seating[0]
    state, events = run(state, m.ReportTimeoutRemoval(round_no=1, table=1, player=player, at=5))
    assert events == [
        m.PlayerRemoved(at=5, round_no=1, table=1, player=player),
        m.YellowCard(at=5, player=player, reason="timeout_removal", round_no=1),
    ]
    assert live(state).rounds[0].tables[0].removed == (player,)
    state, _ = run(state, m.RecordResult(round_no=1, table=1, whists=(-30, 10, 20)))
    assert live(state).rounds[0].tables[0].result.players[0] == player  # his result counts


def test_falling_below_minus_n_whists_in_a_round_gives_a_card():
    state, table = _round_one()
    state, events = run(state, m.RecordResult(round_no=1, table=1, whists=(-101, 1, 100)))
    cards = [e for e in events if isinstance(e, m.YellowCard)]
    assert [(c.player, c.reason) for c in cards] == [(table.seating[0], "below_threshold")]
    state, events = run(state, m.RecordResult(round_no=1, table=2, whists=(-100, 0, 100)))
    assert not any(isinstance(e, m.YellowCard) for e in events)


def test_two_cards_disqualify_and_the_player_is_not_paired_again():
    state, table = _round_one()
    player = table.seating[0]
    state, _ = run(state, m.ReportTimeoutRemoval(round_no=1, table=1, player=player))
    state, events = run(state, m.RecordResult(round_no=1, table=1, whists=(-150, 50, 100)))
    assert events[-1] == m.Disqualified(player=player, cards=2)
    assert d.entrant(live(state), player).status == "disqualified"
    state = finish_round(state)
    state, _ = start(state)
    assert all(player not in t.seating for t in live(state).rounds[1].tables)


def test_every_arbiter_decision_states_its_reason():
    state, _ = _round_one()
    refused(state, m.PauseTable(round_no=1, table=1, arbiter="judge", reason=" "),
            "illegal.no_reason")  # fmt: skip


def test_a_paused_table_records_no_result_until_resumed_and_the_round_waits_for_it():
    state, _ = _round_one()
    state, events = run(state, m.PauseTable(round_no=1, table=1, arbiter="judge", reason="dispute"))
    assert events == [m.TablePaused(round_no=1, table=1, arbiter="judge", reason="dispute")]
    refused(state, m.RecordResult(round_no=1, table=1, whists=(0, 0, 0)), "illegal.table_paused")
    refused(
        state, m.PauseTable(round_no=1, table=1, arbiter="j", reason="r"), "illegal.table_paused"
    )
    state = finish_round(state, close=False)  # the other tables
    refused(state, m.CloseRound(round_no=1, secret=SECRETS[0].hex()), "illegal.tables_playing")
    state, _ = run(state, m.ResumeTable(round_no=1, table=1, arbiter="judge", reason="settled"))
    state = finish_round(state)
    assert live(state).rounds[0].secret == SECRETS[0].hex()


def test_a_replaced_player_gives_his_seat_and_its_result_to_the_substitute():
    state, table = _round_one(n=10, form=fmt(uneven="byes"))
    bye = live(state).rounds[0].byes[0]
    out = table.seating[1]
    refused(
        state,
        m.ReplacePlayer(round_no=1, table=1, player=out, substitute=table.seating[2],
                        arbiter="judge", reason="ill"),
        "illegal.substitute_busy",
    )  # fmt: skip
    state, _ = run(
        state,
        m.ReplacePlayer(round_no=1, table=1, player=out, substitute=bye, arbiter="judge",
                        reason="taken ill"),
    )  # fmt: skip
    assert live(state).rounds[0].tables[0].seating[1] == bye
    state = finish_round(state)
    assert out not in live(state).rounds[0].tables[0].result.players


def test_an_adjusted_result_replaces_the_recorded_one_in_the_standings():
    state, table = _round_one(form=fmt(rounds=1))
    state = finish_round(state, close=False)
    refused(state, m.AdjustResult(round_no=1, table=1, whists=(1, 1, 1), arbiter="j", reason="r"),
            "illegal.bad_result")  # fmt: skip
    adjust = m.AdjustResult(
        round_no=1, table=1, whists=(-50, 0, 50), arbiter="j", reason="miscount"
    )
    state, events = run(state, adjust)
    assert events[0].reason == "miscount"
    points = {s.player: s.points for s in d.current_standings(live(state))}
    assert points[table.seating[2]] == 3 and points[table.seating[0]] == 0


def test_an_annulled_result_counts_for_nobody():
    state, table = _round_one()
    state = finish_round(state, close=False)
    state, _ = run(state, m.AnnulResult(round_no=1, table=1, arbiter="j", reason="collusion"))
    standing = {s.player: s for s in d.current_standings(live(state))}
    assert all(standing[p].rounds == 0 for p in table.seating)
    refused(state, m.AnnulResult(round_no=1, table=1, arbiter="j", reason="x"), "illegal.annulled")
    state, _ = run(state, m.CloseRound(round_no=1, secret=SECRETS[0].hex()))


def test_an_appeal_and_an_arbiters_card_are_recorded_with_their_reasons():
    state, table = _round_one()
    p = table.seating[0]
    state, events = run(
        state,
        m.RecordAppeal(player=p, appeal="misdeal", decision="rejected", arbiter="j",
                       reason="the deal was verified"),
        m.GiveCard(player=p, arbiter="j", reason="rude"),
        m.GiveCard(player=p, arbiter="j", reason="rude again"),
    )  # fmt: skip
    assert isinstance(events[0], m.AppealRecorded) and events[0].decision == "rejected"
    assert [type(e).__name__ for e in events[1:]] == ["YellowCard", "YellowCard", "Disqualified"]


def test_a_result_is_whists_in_seat_order_summing_to_zero_recorded_once():
    state, _ = _round_one()
    refused(state, m.RecordResult(round_no=1, table=1, whists=(10, 0, 0)), "illegal.bad_result")
    refused(state, m.RecordResult(round_no=1, table=1, whists=(0, 0)), "illegal.bad_result")
    refused(state, m.RecordResult(round_no=1, table=9, whists=(0, 0, 0)), "illegal.no_such_table")
    refused(state, m.RecordResult(round_no=2, table=1, whists=(0, 0, 0)), "illegal.no_such_round")
    state, _ = run(state, m.RecordResult(round_no=1, table=1, whists=(0, 0, 0)))
    refused(state, m.RecordResult(round_no=1, table=1, whists=(0, 0, 0)),
            "illegal.already_recorded")  # fmt: skip


def test_an_appeal_heard_after_the_last_round_may_still_adjust_a_result():
    state, table = _round_one(form=fmt(rounds=1))
    state = finish_round(state)
    assert d.is_terminal(state)
    refused(state, m.PauseTable(round_no=1, table=1, arbiter="j", reason="r"),
            "illegal.tournament_over")  # fmt: skip
    state, events = run(
        state,
        m.RecordAppeal(player=table.seating[0], appeal="miscount", decision="upheld",
                       arbiter="j", reason="the sheet was added up wrong"),
        m.AdjustResult(round_no=1, table=1, whists=(30, -10, -20), arbiter="j",
                       reason="appeal upheld"),
    )  # fmt: skip
    assert d.is_terminal(state)
    assert [type(e).__name__ for e in events] == ["AppealRecorded", "ResultAdjusted"]
    points = {s.player: s.points for s in d.current_standings(live(state))}
    assert points[table.seating[0]] == 3
