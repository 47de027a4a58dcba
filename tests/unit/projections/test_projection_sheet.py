"""The pool sheet read model: the domain's own sheet, deal by deal, with the numbers of
docs/rules.md."""

from __future__ import annotations

from fractions import Fraction

import msgspec
import pytest
from _hypothesis import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pulkas import flat, play_pulka, small_rules

from domain import game as g
from domain.deal.messages import DealEnded, DealStarted
from domain.outcome import DealOutcome, DefenderRole
from domain.rules import SOCHI, rules_for
from domain.scoring import score_deal
from domain.settlement import settle
from domain.sheet import DealScore, Entry, PoolSheet, apply_score, empty_sheet
from projections import sheet
from projections.sheet import GameSheet, running_sums, sheet_view, written

PLAYERS = ["p-south", "p-west", "p-east"]


def fold(events: list[g.Event]) -> GameSheet:
    model = sheet.EMPTY
    for event in events:
        model = sheet.apply(model, event)
    return model


def seated(rules=SOCHI) -> list[g.Event]:
    return [
        g.GameCreated(rules=rules, first_dealer=0),
        *(g.PlayerSeated(seat=i, player=p) for i, p in enumerate(PLAYERS)),
    ]


def scored_deal(outcome: DealOutcome, sheet_before: PoolSheet, deal_no: int) -> list[g.Event]:
    score = score_deal(outcome, sheet_before, SOCHI)
    return [
        DealStarted(dealer=outcome.dealer, hands=((), (), ()), talon=()),
        DealEnded(outcome=outcome),
        g.DealScored(deal_no=deal_no, score=score, next_dealer=(outcome.dealer + 1) % 3),
    ]


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(["sochi", "leningrad", "rostov"]),
    players=st.sampled_from([3, 4]),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_projected_sheet_is_the_domains_sheet_after_every_deal(preset, players, seed):
    state, appends = play_pulka(small_rules(preset, players, target=4), seed)
    model = sheet.EMPTY
    replayed: g.GameState = g.INITIAL_STATE
    for event in flat(appends):
        model = sheet.apply(model, event)
        replayed = g.evolve(replayed, event)
        if isinstance(event, g.DealScored):
            assert model.sheet == replayed.sheet
            assert model.deals[-1].entries == event.score.entries
    assert isinstance(state, g.PulkaClosed)
    assert model.status == "finished"
    assert model.settlement == state.settlement
    assert len(model.deals) == state.sheet.deals
    # The hand-written columns end at the sheet's totals.
    for seat, columns in enumerate(running_sums(model)):
        assert (columns.pool or (0,))[-1] == state.sheet.pool[seat]
        assert (columns.mountain or (0,))[-1] == state.sheet.mountain[seat]
        for on in range(players):
            assert (columns.whists[on] or (0,))[-1] == state.sheet.whists[seat][on]


def test_the_model_survives_a_json_round_trip():
    _, appends = play_pulka(small_rules(), seed=7)
    model = fold(flat(appends))
    assert msgspec.json.decode(msgspec.json.encode(model), type=GameSheet) == model


# docs/rules.md §F.5, Sochi, from C3's tests: (contract, declarer tricks, W1 tricks, W2 tricks,
# declarer pool, declarer mountain, W1 whists, W2 whists); both opponents whist.
F5_ROWS = [
    ("6S", 6, 2, 2, 2, 0, 4, 4),
    ("7S", 7, 1, 2, 4, 0, 4, 8),
    ("8S", 8, 1, 1, 6, 0, 6, 6),
    ("9S", 9, 1, 0, 8, 0, 8, 0),
    ("6S", 5, 3, 2, 0, 2, 8, 6),
    ("7S", 5, 3, 2, 0, 8, 20, 16),
    ("8S", 5, 3, 2, 0, 18, 36, 30),
    ("9S", 5, 3, 2, 0, 32, 56, 48),
    ("10S", 5, 3, 2, 0, 50, 80, 70),
]


@pytest.mark.parametrize(("contract", "t", "w1", "w2", "pool", "mountain", "wh1", "wh2"), F5_ROWS)
def test_the_sheet_writes_the_rules_worked_deal_examples(
    contract, t, w1, w2, pool, mountain, wh1, wh2
):
    outcome = DealOutcome(
        kind="game", dealer=2, seats=3, hands=(0, 1, 2), tricks=(t, w1, w2),
        declarer=0, contract=contract,
        defenders=(DefenderRole(seat=1, choice="whist", whist_rank=1),
                   DefenderRole(seat=2, choice="whist", whist_rank=2)),
    )  # fmt: skip
    view = sheet_view("g1", fold(seated() + scored_deal(outcome, empty_sheet(3), 1)))
    declarer, first, second = view.seats
    assert (declarer.pool, declarer.mountain) == (pool, mountain)
    assert (first.whists[0], second.whists[0]) == (wh1, wh2)
    assert first.whists_written[0] == (str(wh1) if wh1 else "")
    assert view.deals[0].contract == contract and view.deals[0].declarer == 0
    assert all(e.explanation for e in view.deals[0].entries)


def _one_deal_sheet(pool, mountain, whists) -> list[g.Event]:
    """A sheet written by hand: one deal carrying exactly these totals."""
    entries = [
        Entry(kind="pool", seat=i, amount=a, rule="contract_made", explanation="pool")
        for i, a in enumerate(pool)
        if a
    ]
    entries += [
        Entry(kind="mountain", seat=i, amount=a, rule="remiz", explanation="mountain")
        for i, a in enumerate(mountain)
        if a
    ]
    entries += [Entry(kind="whists", seat=i, on=j, amount=a, rule="whists_for_tricks",
                      explanation="whists")
                for i, row in enumerate(whists) for j, a in enumerate(row) if a]  # fmt: skip
    score = DealScore(entries=tuple(entries), raspasy_streak=0, bombs=(0, 0, 0))
    final = apply_score(empty_sheet(3), score)
    return [
        g.DealScored(deal_no=1, score=score, next_dealer=1),
        g.GameEnded(settlement=settle(final, SOCHI)),
    ]


# docs/rules.md §H.5: (pool, mountain, whists[i][j], exact results)
H5_CASES = {
    "2a filled": ((14, 8, 0), (12, 26, 6), ((0, 12, 0), (22, 0, 0), (22, 4, 0)),
                  ("184/3", "-302/3", "118/3")),
    "2b partially filled": ((0, 0, 0), (2, 0, 0), ((0, 0, 0), (4, 0, 0), (10, 0, 0)),
                            ("-82/3", "32/3", "50/3")),
    "2c partially filled1": ((2, 0, 0), (0, 62, 6), ((0, 110, 14), (2, 0, 12), (4, 70, 0)),
                             ("358", "-566", "208")),
}  # fmt: skip


@pytest.mark.parametrize("case", H5_CASES)
def test_the_sheet_and_its_settlement_match_the_rules_worked_settlements(case):
    pool, mountain, whists, exact = H5_CASES[case]
    view = sheet_view("g1", fold(seated() + _one_deal_sheet(pool, mountain, whists)))
    assert view.status == "finished"
    assert tuple(s.pool for s in view.seats) == pool
    assert tuple(s.mountain for s in view.seats) == mountain
    for i, seat in enumerate(view.seats):
        assert seat.whists == tuple(whists[i][j] if j != i else None for j in range(3))
    assert view.settlement is not None
    assert view.settlement.exact == exact
    results = [s.result for s in view.seats]
    assert sum(results) == 0
    assert all(abs(r - Fraction(x)) < 1 for r, x in zip(results, exact, strict=True))


def test_columns_are_written_as_running_sums_one_number_per_change():
    events = seated()
    sheet_now = empty_sheet(3)
    for deal_no, amount in enumerate((2, 4, 4), start=1):
        entry = Entry(kind="pool", seat=1, amount=amount, rule="contract_made", explanation="x")
        score = DealScore(entries=(entry,), raspasy_streak=0, bombs=(0, 0, 0))
        events.append(g.DealScored(deal_no=deal_no, score=score, next_dealer=0))
        sheet_now = apply_score(sheet_now, score)
    view = sheet_view("g1", fold(events))
    assert view.seats[1].pool_written == "2.6.10"
    assert view.seats[0].pool_written == ""
    assert written((2, 6, 10)) == "2.6.10"


def test_a_game_being_seated_has_an_empty_sheet_and_no_settlement():
    model = fold(seated()[:2])
    assert model.status == "seating"
    assert model.players == ("p-south", None, None)
    view = sheet_view("g1", model)
    assert [s.pool for s in view.seats] == [0, 0, 0]
    assert view.settlement is None


def test_events_that_write_nothing_leave_the_model_unchanged():
    _, appends = play_pulka(small_rules(), seed=3, stop_after=8)
    model = fold(flat(appends))
    quiet = [e for e in flat(appends) if type(e).__struct_config__.tag not in sheet.HANDLED]
    assert quiet, "a deal in play has bids and cards"
    assert all(sheet.apply(model, e) is model for e in quiet)


@pytest.mark.parametrize(
    ("dealer_raspasy", "shown"), [("plays_talon", (1, 0, 4, 5)), ("sits_out", (None, 0, 4, 5))]
)
def test_a_dealer_at_four_who_played_the_talon_has_his_all_pass_tricks_on_the_sheet(
    dealer_raspasy, shown
):
    # Seat 0 deals at four; under plays_talon he took a talon trick and is charged for it, so
    # the sheet shows it (it used to show null beside the trick written to his mountain).
    rules = rules_for("sochi", {"players": 4, "players4": {"dealer_raspasy": dealer_raspasy}})
    players = [*PLAYERS, "p-north"]
    outcome = DealOutcome(kind="raspasy", dealer=0, seats=4, hands=(1, 2, 3), tricks=(1, 0, 4, 5))
    score = score_deal(outcome, empty_sheet(4), rules)
    model = fold([
        g.GameCreated(rules=rules, first_dealer=0),
        *(g.PlayerSeated(seat=i, player=p) for i, p in enumerate(players)),
        DealStarted(dealer=0, hands=((), (), (), ()), talon=()),
        DealEnded(outcome=outcome),
        g.DealScored(deal_no=1, score=score, next_dealer=1),
    ])  # fmt: skip
    assert model.deals[-1].tricks == shown
    dealer_mountain = sum(e.amount for e in score.entries if e.seat == 0 and e.kind == "mountain")
    assert (dealer_mountain > 0) == (dealer_raspasy == "plays_talon")
