"""The collusion statistics (`projections.collusion`, docs/fair-play.md): the facts folded from a
game's events, the figures' arithmetic, and the simulation in which colluding bots play among
honest ones and must come out on top."""

from __future__ import annotations

import msgspec
import pytest
from bot_games import bot_pulka
from collusion_sim import simulate

from domain.deal.messages import DealEnded
from domain.game import DealScored
from projections import collusion
from projections.game_analysis import analyse_game

SIM_GAMES = 160
"""About 2,100 deals: the colluders stand out well before (docs/fair-play.md §5)."""
FALSE_POSITIVE_RATE = 0.05
"""The stated ceiling: honest pairs flagged at `collusion.FLAG_Z` (0 measured on this seed)."""


def fold(events):
    model = collusion.EMPTY
    for e in events:
        model = collusion.apply(model, e)
    return model


def test_a_game_folds_into_one_fact_per_scored_deal_with_its_players_and_whists():
    events = bot_pulka(7, ["ann", "bob", "cid"], target=5)
    model = fold(events)
    scored = [e for e in events if isinstance(e, DealScored)]
    ended = [e.outcome for e in events if isinstance(e, DealEnded)]
    assert model.finished
    assert [d.deal_no for d in model.deals] == [e.deal_no for e in scored]
    assert [d.kind for d in model.deals] == [o.kind for o in ended]
    for facts, score in zip(model.deals, scored, strict=True):
        assert facts.players == ("ann", "bob", "cid")
        written = sum(e.amount for e in score.score.entries if e.kind == "whists")
        assert sum(w for _, _, w in facts.whists) == written


def test_a_game_in_play_gives_no_records():
    events = bot_pulka(7, ["ann", "bob", "cid"], target=5, stop_after=120)
    assert collusion.records("g", fold(events)) == []


def test_the_play_of_a_deal_adds_up_each_seats_cards_and_costs():
    events = bot_pulka(3, ["ann", "bob", "cid"], target=5)
    for deal in analyse_game(events, layouts=0).deals:
        play = collusion.play_of(deal.analysis)
        assert sum(s.cards for s in play.seats) == len(deal.analysis.cards)
        for s in play.seats:
            mine = [c for c in deal.analysis.cards if c.by == s.seat]
            assert s.best == sum(c.cost <= 0 for c in mine)
            assert s.cost == sum(max(c.cost, 0) for c in mine)


def _record(game, deal_no, *, declarer=0, choices=(), whists=(), play=None, kind="game"):
    facts = collusion.DealFacts(
        deal_no=deal_no, kind=kind, players=("a", "b", "c"), hands=(0, 1, 2),
        declarer=declarer, contract="6S", choices=choices, whists=whists,
    )  # fmt: skip
    return collusion.DealRecord(game, facts, play)


def test_a_giver_who_always_passes_for_one_declarer_scores_against_his_own_record():
    deals = []
    for n in range(40):  # b passes whenever a declares, whists half the time against c
        deals.append(
            _record("g1", n, declarer=0, choices=((1, "pass", False), (2, "whist", False)))
        )
        c = "whist" if n % 2 else "pass"
        deals.append(_record("g1", 100 + n, declarer=2, choices=((1, c, False), (0, c, False))))
    report = collusion.report(deals)
    pair = next(p for p in report.pairs if p.players == ("a", "b"))
    fig = next(f for f in pair.figures if f.name == "passes_for" and f.giver == "b")
    assert fig.value == 1.0 and fig.deals == 40
    # b's own record with c (0.5) shrunk towards the population's mean by PRIOR deals
    population = (40 + 0 + 20 + 20) / 160  # b for a, c for a, b and a against c
    assert fig.baseline == pytest.approx((20 + collusion.PRIOR * population) / (40 + 20), abs=1e-3)
    assert fig.z > collusion.FLAG_Z and pair.flagged and pair.top == "passes_for"
    assert report.pairs[0].players == ("a", "b")
    assert len(fig.examples) == collusion.EXAMPLES


def test_a_forced_whist_is_no_choice_and_a_figure_under_min_deals_is_not_scored():
    deals = [
        _record("g", n, declarer=0, choices=((1, "pass", False), (2, "whist", True)))
        for n in range(collusion.MIN_DEALS - 1)
    ]
    report = collusion.report(deals)
    figures = [f for p in report.pairs for f in p.figures if f.name == "passes_for"]
    assert {f.giver for f in figures} == {"b"}
    assert not any(f.scored for f in figures)
    assert all(p.score == 0 and not p.flagged for p in report.pairs)


def test_the_report_round_trips_as_json():
    deals = [_record("g", n, declarer=n % 3, whists=((1, 0, 4),)) for n in range(12)]
    report = collusion.report(deals)
    again = msgspec.json.decode(msgspec.json.encode(report), type=collusion.Report)
    assert again == report


def test_colluding_bots_rank_first_and_honest_pairs_stay_below_the_flag():
    sim = simulate(2024, SIM_GAMES)
    assert sim.report.deals > 2000 and sim.report.analysed == sim.report.deals
    ranks = sorted(sim.rank_of(pair) for pair in sim.colluding)
    assert ranks == [1, 2], [(p.players, p.score, p.top) for p in sim.report.pairs[:5]]
    assert all(p.flagged for p in sim.report.pairs[:2])
    assert sim.false_positive_rate() <= FALSE_POSITIVE_RATE
    tops = {frozenset(p.players): p.top for p in sim.report.pairs[:2]}
    assert tops[frozenset(("passer-a", "passer-b"))] == "passes_for"
    assert tops[frozenset(("feeder-a", "feeder-b"))] in ("fed_tricks", "defence_accuracy")
