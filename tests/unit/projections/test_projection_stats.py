"""Player statistics: counted from the domain's outcomes and scores, equal to a hand count."""

from __future__ import annotations

import pytest
from _hypothesis import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pulkas import flat, play_pulka, small_rules

from domain import game as g
from domain.deal.messages import DealEnded, DealStarted
from domain.outcome import DealOutcome, DefenderRole
from domain.rules import SOCHI
from domain.scoring import score_deal
from domain.settlement import settle
from domain.sheet import apply_score, empty_sheet
from projections import stats
from projections.stats import GameStats, PlayerGame, SeatStats, player_rows, player_stats

ANN, BOB, CID = "ann", "bob", "cid"


def outcome(dealer, kind, tricks, declarer=None, contract=None, defenders=(), **kw):
    hands = tuple((dealer + k) % 3 for k in (1, 2, 3))
    roles = tuple(DefenderRole(seat=s, choice=c, whist_rank=r) for s, c, r in defenders)
    per_seat = tuple(tricks.get(s, 0) for s in range(3))
    return DealOutcome(kind=kind, dealer=dealer, seats=3, hands=hands, tricks=per_seat,
                       declarer=declarer, contract=contract, defenders=roles, **kw)  # fmt: skip


# A scripted game of seven deals; the comments give what a person counts.
DEALS = [
    # 6♠ by Ann made; Bob and Cid whist, the pair takes its 4: no short whist.
    outcome(2, "game", {0: 6, 1: 3, 2: 1}, 0, "6S", ((1, "whist", 1), (2, "whist", 2))),
    # All-pass: Ann 4 tricks, Bob 3, Cid 3.
    outcome(0, "raspasy", {1: 3, 2: 3, 0: 4}),
    # Misère by Bob, no trick: made.
    outcome(1, "miser", {2: 5, 0: 5, 1: 0}, 1, "MISER"),
    # 8♥ by Cid made with 9; Ann whists alone and takes her one trick, Bob passes.
    outcome(2, "game", {0: 1, 1: 0, 2: 9}, 2, "8H", ((0, "whist", 1), (1, "pass", 0))),
    # 6♠ by Ann with 10 tricks: Bob whisted alone and took none of 4, a short whist.
    outcome(0, "game", {1: 0, 2: 0, 0: 10}, 0, "6S", ((1, "whist", 1), (2, "pass", 0))),
    # 7♦ by Bob, Ann half-whists, Cid passes: made without play (Bob's pool is closed, so
    # the price goes to Cid as help: still made).
    outcome(1, "game", {2: 0, 0: 0, 1: 0}, 1, "7D", ((2, "pass", 0), (0, "half_whist", 0)),
            played=False),
    # 9NT by Cid, down 2; Ann and Bob whist, the defence takes 3.
    outcome(2, "game", {0: 2, 1: 1, 2: 7}, 2, "9NT", ((0, "whist", 1), (1, "whist", 2))),
    # Misère by Ann with 2 tricks: failed.
    outcome(0, "miser", {1: 4, 2: 4, 0: 2}, 0, "MISER"),
    # A second all-pass: Ann 2, Bob 5, Cid 3.
    outcome(1, "raspasy", {2: 3, 0: 2, 1: 5}),
]  # fmt: skip


def scripted_game() -> list[g.Event]:
    events: list[g.Event] = [g.GameCreated(rules=SOCHI, first_dealer=0)]
    events += [g.PlayerSeated(seat=i, player=p) for i, p in enumerate((ANN, BOB, CID))]
    sheet = empty_sheet(3)
    for n, o in enumerate(DEALS, start=1):
        score = score_deal(o, sheet, SOCHI)
        sheet = apply_score(sheet, score)
        events += [
            DealStarted(dealer=o.dealer, hands=((), (), ()), talon=()),
            DealEnded(outcome=o),
            g.DealScored(deal_no=n, score=score, next_dealer=(o.dealer + 1) % 3),
        ]
    events.append(g.GameEnded(settlement=settle(sheet, SOCHI)))
    return events


def fold(events: list[g.Event]) -> GameStats:
    model = stats.EMPTY
    for event in events:
        model = stats.apply(model, event)
    return model


def test_the_statistics_of_a_scripted_game_equal_the_hand_count():
    model = fold(scripted_game())
    ann, bob, cid = model.seats
    assert ann == SeatStats(
        deals=9, declared=(2, 0, 0, 0, 0), made=(2, 0, 0, 0, 0), miser_declared=1, miser_made=0,
        whists=2, whists_failed=0, half_whists=1, raspasy_deals=2, raspasy_tricks=6,
    )  # fmt: skip
    assert bob == SeatStats(
        deals=9, declared=(0, 1, 0, 0, 0), made=(0, 1, 0, 0, 0), miser_declared=1, miser_made=1,
        whists=3, whists_failed=1, half_whists=0, raspasy_deals=2, raspasy_tricks=8,
    )  # fmt: skip
    assert cid == SeatStats(
        deals=9, declared=(0, 0, 1, 1, 0), made=(0, 0, 1, 0, 0), miser_declared=0, miser_made=0,
        whists=1, whists_failed=0, half_whists=0, raspasy_deals=2, raspasy_tricks=6,
    )  # fmt: skip
    assert model.finished
    assert sum(model.result) == 0


def test_a_players_statistics_add_up_his_games():
    model = fold(scripted_game())
    rows = [row for player, row in player_rows("g1", model) if player == BOB]
    second = PlayerGame(
        game_id="g2", seat=0, finished=True, result=-40,
        stats=SeatStats(deals=4, declared=(1, 0, 0, 0, 0), made=(0, 0, 0, 0, 0), whists=1,
                        whists_failed=1, raspasy_deals=1, raspasy_tricks=2),
    )  # fmt: skip
    running = PlayerGame(game_id="g3", seat=2, stats=SeatStats(deals=2))
    result = player_stats(BOB, [*rows, second, running])
    bob_result = model.result[1]
    assert result.games == 2 and result.games_in_progress == 1
    assert result.deals == 9 + 4 + 2
    six, seven = result.contracts[0], result.contracts[1]
    assert (six.declared, six.made, six.made_pct) == (1, 0, 0.0)
    assert (seven.declared, seven.made, seven.made_pct) == (1, 1, 100.0)
    assert result.contracts[2].made_pct is None
    miser = result.contracts[-1]
    assert (miser.level, miser.declared, miser.made, miser.made_pct) == ("misère", 1, 1, 100.0)
    assert (result.whists.whists, result.whists.made, result.whists.failed) == (4, 2, 2)
    assert result.raspasy.deals == 3 and result.raspasy.tricks == 10
    assert result.raspasy.tricks_per_deal == pytest.approx(10 / 3, abs=1e-3)
    assert result.average_result == pytest.approx((bob_result - 40) / 2)
    best, worst = sorted([(bob_result, "g1"), (-40, "g2")], reverse=True)
    assert (result.best_game.result, result.best_game.game_id) == best
    assert (result.worst_game.result, result.worst_game.game_id) == worst


def test_a_player_without_games_has_empty_statistics():
    result = player_stats("nobody", [])
    assert result.games == 0 and result.deals == 0
    assert result.average_result is None and result.best_game is None
    assert result.raspasy.tricks_per_deal is None


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.sampled_from([3, 4]), seed=st.integers(0, 2**32 - 1))
def test_random_games_count_every_deal_once_for_each_player_in_it(players, seed):
    state, appends = play_pulka(small_rules("sochi", players, target=4), seed)
    events = flat(appends)
    model = fold(events)
    outcomes = [e.outcome for e in events if isinstance(e, DealEnded)]
    for seat in range(players):
        s = model.seats[seat]
        assert s.deals == sum(seat in o.hands for o in outcomes)
        assert s.raspasy_deals == sum(o.kind == "raspasy" and seat in o.hands for o in outcomes)
        assert sum(s.declared) == sum(o.kind == "game" and o.declarer == seat for o in outcomes)
        assert s.miser_declared == sum(o.kind == "miser" and o.declarer == seat for o in outcomes)
        assert all(m <= d for m, d in zip(s.made, s.declared, strict=True))
        assert s.whists_failed <= s.whists
    assert model.result == state.settlement.result
    raspasy_tricks = sum(sum(o.tricks) for o in outcomes if o.kind == "raspasy")
    assert sum(s.raspasy_tricks for s in model.seats) == raspasy_tricks


def test_a_game_abandoned_is_counted_in_the_players_statistics() -> None:
    from domain.table import SeatAbandoned
    from projections.stats import GameStats, SeatStats, apply, player_rows

    model = GameStats(players=("a", "b", "c"), seats=(SeatStats(),) * 3)
    model = apply(model, SeatAbandoned(seat=2, player="c"))
    rows = dict(player_rows("g", model))
    assert rows["c"].abandoned and not rows["a"].abandoned
    assert player_stats("c", [rows["c"]]).games_abandoned == 1
    assert player_stats("a", [rows["a"]]).games_abandoned == 0
