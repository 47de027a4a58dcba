"""The analysis of decisions judges each call, discard, whist and accepted claim over the layouts
its seat could not tell apart, in whists, against the best alternative.

The deals are built by hand at a table of three, seat 0 dealing (seat 1 is the first hand):

- seat 1 holds five top spades and the bare aces of the three other suits with a small card
  beside two of them; the talon is 8♣ 8♦. Discarding the small clubs and diamonds keeps every
  ace; discarding the aces of clubs and diamonds throws two sure tricks away;
- seat 2 holds the side kings and queens: against seat 1's spade game he whists with
  defensive tricks in three suits, passing throws his whists away;
- a monster hand passed in the auction is a mistake; a hand of nothing passing is the best call.
"""

from __future__ import annotations

import itertools
import math
import random

import msgspec
import pytest

from bots.inference import weight
from bots.knowledge import REST, read
from bots.value import deal_results
from bots.view import BotView
from domain import game as g
from domain.cards import parse_cards
from domain.deal import decider as deal
from domain.deal.claims import claimed_outcome
from domain.deal.ending import outcome_of
from domain.deal.messages import (
    AnswerClaim,
    CallWhist,
    ChoosePlay,
    Claim,
    DealEvent,
    Declare,
    Discard,
    MakeBid,
    Pass,
    PlayCard,
    SeatCommand,
    TakeTalon,
)
from domain.deal.state import Playing
from domain.rules import Rules, rules_for
from domain.solver import from_playing, solve
from domain.solver.reference import brute_force
from projections import decisions as judge
from projections.analysis_text import decision_sentence, worded
from projections.decisions import DecisionAnalysis, analyse_decisions
from projections.game_analysis import analyse_game

RULES = rules_for("sochi", {"pool": {"target": 20}})


def cards(text: str) -> tuple[str, ...]:
    return parse_cards(text.split())


DECLARER = cards("AS KS QS JS TS AC 7C AD 7D AH")
DEFENDER = cards("9S 8S KC QC JC KD QD JD KH QH")  # seat 2: kings and queens
PARTNER = cards("7S TC 9C TD 9D JH TH 9H 8H 7H")  # seat 0, the dealer
TALON = cards("8C 8D")


class Table:
    """A game at three (seat 0 dealing) driven by commands: the game before the deal and the
    deal's events."""

    def __init__(self, hands: tuple[tuple[str, ...], ...], talon: tuple[str, ...]) -> None:
        state: g.GameState = g.INITIAL_STATE
        for c in (g.CreateGame(rules=RULES, first_dealer=0),
                  *(g.TakeSeat(seat=s, player=f"p{s}") for s in range(3))):  # fmt: skip
            state = g.fold(g.decide(c, state), state)
        assert isinstance(state, g.Pulka)
        self.before = state
        self.state: g.GameState = state
        self.events: list[DealEvent] = []
        self.do(g.DealCards(hands=hands, talon=(talon[0], talon[1])))

    def do(self, *commands: g.Command) -> None:
        for command in commands:
            for e in g.decide(command, self.state):
                if isinstance(e, DealEvent):
                    self.events.append(e)
                self.state = g.evolve(self.state, e)

    @property
    def deal(self) -> Playing:
        assert isinstance(self.state, g.Pulka) and isinstance(self.state.deal, Playing)
        return self.state.deal

    def play_perfectly(self, tricks_left: int = 0) -> None:
        """Every hand plays a double-dummy best card until ``tricks_left`` remain."""
        while isinstance(self.state, g.Pulka) and isinstance(self.state.deal, Playing):
            d = self.deal
            if 10 - d.tricks_played <= tricks_left and not d.trick:
                return
            best = solve(from_playing(d)).best()[0]
            self.do(PlayCard(seat=d.controllers[d.turn], card=best))


def _spade_game(discard: tuple[str, str], whist: str = "whist") -> Table:
    t = Table((PARTNER, DECLARER, DEFENDER), TALON)
    t.do(
        MakeBid(seat=1, bid="6S"), Pass(seat=2), Pass(seat=0), TakeTalon(seat=1),
        Discard(seat=1, cards=discard), Declare(seat=1, contract="6S"),
        CallWhist(seat=2, choice=whist),  # type: ignore[arg-type]
    )  # fmt: skip
    return t


def _decision(t: Table, kind: str, seat: int) -> DecisionAnalysis:
    found = [d for d in analyse_decisions(t.before, t.events) if d.kind == kind and d.seat == seat]
    assert len(found) == 1, found
    return found[0]


def _option(d: DecisionAnalysis, action: str) -> float:
    return next(o.value for o in d.options if o.action == action)


def test_throwing_two_aces_away_in_the_discard_is_judged_a_loss() -> None:
    bad = _decision(_spade_game(("AC", "AD")), "discard", 1)
    assert bad.action == "AC AD" and bad.verdict == "mistake"
    assert bad.best != "AC AD" and bad.loss >= judge.MISTAKE_WHISTS and bad.low > 0
    assert bad.low <= bad.loss <= bad.high
    assert bad.loss == pytest.approx(_option(bad, bad.best) - _option(bad, "AC AD"), abs=0.02)
    assert bad.options[0].action == bad.best  # the best first


def test_the_best_discard_is_judged_with_no_loss() -> None:
    best = _decision(_spade_game(("AC", "AD")), "discard", 1).best
    a, b = cards(best)
    again = _decision(_spade_game((a, b)), "discard", 1)
    assert again.action == best and again.best == best
    assert (again.verdict, again.loss) == ("best", 0.0)
    assert again.options[0].action == best


def test_passing_a_strong_defensive_hand_is_a_whisting_mistake_and_whisting_the_best() -> None:
    passed = _decision(_spade_game(("7C", "7D"), whist="pass"), "whist", 2)
    assert passed.action == "pass" and passed.best == "whist"
    assert passed.verdict == "mistake" and passed.low > 0
    whisted = _decision(_spade_game(("7C", "7D"), whist="whist"), "whist", 2)
    assert (whisted.action, whisted.best, whisted.verdict, whisted.loss) == (
        "whist", "whist", "best", 0.0,
    )  # fmt: skip


def test_passing_a_ten_trick_hand_is_a_bidding_mistake_and_passing_nothing_the_best_call() -> None:
    t = Table((PARTNER, DECLARER, DEFENDER), TALON)
    t.do(Pass(seat=1), Pass(seat=2), Pass(seat=0))
    decisions = {d.seat: d for d in analyse_decisions(t.before, t.events) if d.kind == "bid"}
    monster = decisions[1]
    assert monster.action == "PASS" and monster.verdict == "mistake" and monster.best != "PASS"
    assert monster.loss >= judge.MISTAKE_WHISTS and monster.low > 0
    nothing = Table((DEFENDER, PARTNER, DECLARER), TALON)  # seat 1 now holds the small hand
    nothing.do(Pass(seat=1))
    (weak,) = analyse_decisions(nothing.before, nothing.events)
    assert (weak.action, weak.best, weak.verdict, weak.loss) == ("PASS", "PASS", "best", 0.0)
    assert weak.samples >= judge.ROUND
    assert all(o.value <= _option(weak, "PASS") for o in weak.options)


def test_decisions_reproduce_from_the_game_and_report_their_sample() -> None:
    t = _spade_game(("AC", "AD"))
    first = analyse_decisions(t.before, t.events)
    assert first == analyse_decisions(t.before, t.events)
    kinds = [d.kind for d in first]
    assert kinds[:3] == ["bid", "bid", "bid"] and "discard" in kinds and "whist" in kinds
    for d in first:
        assert 1 <= d.samples <= judge.LAYOUTS and d.low <= d.loss <= d.high
        assert t.events[d.step].seat == d.seat  # type: ignore[union-attr]


def test_decisions_judged_over_one_layout_have_no_interval_and_survive_json() -> None:
    """One layout tells no interval: the bounds are none (an infinite one was written to JSON
    as null, which the analysis's own type then refused to read back), no decision is called a
    mistake on it, and the sentence says so."""
    t = _spade_game(("AC", "AD"))
    once = analyse_decisions(t.before, t.events, layouts=1)
    guessed = [d for d in once if not d.exhaustive]
    assert any(d.verdict != "best" for d in guessed), "a sampled decision that was not the best"
    for d in guessed:
        assert d.samples == 1 and d.low is None and d.high is None and d.verdict != "mistake"
        en, ru = decision_sentence(d, "en"), decision_sentence(d, "ru")
        if d.verdict == "best":  # a best choice's sentence gives no interval at all
            assert "(1 layout)" in en and "(1 расклад)" in ru, (en, ru)
        else:  # and never "within the noise", which one layout cannot show
            assert "no interval" in en and "без интервала" in ru, (en, ru)
            assert "too few layouts to tell" in en and "не судить" in ru, (en, ru)
            assert "noise" not in en and "разброса" not in ru, (en, ru)
    encoded = msgspec.json.encode(once)
    assert msgspec.json.decode(encoded, type=tuple[DecisionAnalysis, ...]) == tuple(once)


# ---- a claim, checked against a brute force over every layout ------------------------------


def _claim_accepted() -> tuple[Table, int]:
    """Seat 1's 6♠ whisted open by seat 2 alone; with three tricks left the declarer claims
    all three and the whister (answering for both defending hands) accepts. Returns the table
    and the index of the acceptance among the deal's events."""
    t = Table((PARTNER, DECLARER, DEFENDER), TALON)
    t.do(
        MakeBid(seat=1, bid="6S"), Pass(seat=2), Pass(seat=0), TakeTalon(seat=1),
        Discard(seat=1, cards=("7C", "7D")), Declare(seat=1, contract="6S"),
        CallWhist(seat=2, choice="whist"), CallWhist(seat=0, choice="pass"),
        ChoosePlay(seat=2, open=True),
    )  # fmt: skip
    t.play_perfectly(tricks_left=3)
    t.do(Claim(seat=1, tricks=3))
    at = len(t.events)
    t.do(AnswerClaim(seat=2, accept=True))
    return t, at


def test_the_value_of_accepting_a_claim_matches_a_brute_force_over_every_layout() -> None:
    t, at = _claim_accepted()
    d = _decision(t, "claim", 2)
    assert d.step == at and d.exhaustive and d.low == d.loss == d.high
    # What seat 2 knew: every layout of the cards he had not seen, enumerated here by brute
    # force, each weighed as the analysis weighs it, valued by the exhaustive minimax.
    state = g.fold(t.events[:at], t.before)
    assert isinstance(state, g.Pulka) and isinstance(state.deal, Playing)
    feed = [g.redact(e, 2, s) for e, s in _states(t, at)]
    view = BotView(seat=2, game=g.game_view(state, 2), history=tuple(feed),
                   legal=tuple(g.legal_actions(state, 2)))  # fmt: skip
    k = read(view)
    hidden = sorted(k.hidden.items())
    assert sum(n for _, n in hidden) == len(k.unseen) <= 8
    totals = {"accept": 0.0, "reject": 0.0}
    wsum = 0.0
    layouts = 0
    for world in _every_layout(k.unseen, hidden):
        if any(loc not in k.allowed[c] for loc, cs in world.items() for c in cs):
            continue
        layouts += 1
        w = weight(k, world)
        dealt = _laid(state.deal, world)
        accepted = claimed_outcome(dealt, dealt.claim)  # type: ignore[arg-type]
        totals["accept"] += w * float(deal_results(accepted, RULES)[2])
        rejected = msgspec.structs.replace(dealt, claim=None)
        par, _ = brute_force(from_playing(rejected))
        tricks = list(rejected.tricks)
        tricks[1] += par
        tricks[2] += 3 - par  # the single whister's tricks, the passer's included
        played = outcome_of(
            rejected, kind="game", tricks=dict(enumerate(tricks)), contract="6S",
            defenders=rejected.defenders, open_play=True,
        )  # fmt: skip
        totals["reject"] += w * float(deal_results(played, RULES)[2])
        wsum += w
    assert d.samples == layouts > 1
    for action in ("accept", "reject"):
        assert _option(d, action) == pytest.approx(totals[action] / wsum, abs=0.006)
    best = max(totals, key=lambda a: (totals[a], a == "accept"))
    assert d.best == best
    assert d.loss == pytest.approx((totals[best] - totals["accept"]) / wsum, abs=0.011)


def _states(t: Table, upto: int) -> list[tuple[DealEvent, g.GameState]]:
    out = []
    state: g.GameState = t.before
    for e in t.events[:upto]:
        out.append((e, state))
        state = g.evolve(state, e)
    return out


def _every_layout(
    unseen: tuple[str, ...], hidden: list[tuple[int, int]]
) -> list[dict[int, tuple[str, ...]]]:
    out: list[dict[int, tuple[str, ...]]] = []

    def place(i: int, left: tuple[str, ...], acc: dict[int, tuple[str, ...]]) -> None:
        if i == len(hidden):
            out.append(dict(acc))
            return
        loc, n = hidden[i]
        for chosen in itertools.combinations(left, n):
            place(i + 1, tuple(c for c in left if c not in chosen), {**acc, loc: chosen})

    place(0, unseen, {})
    return out


def _laid(state: Playing, world: dict[int, tuple[str, ...]]) -> Playing:
    hands = list(state.hands)
    for loc, cs in world.items():
        if loc != REST:
            hands[loc] = cs
    return msgspec.structs.replace(state, hands=tuple(hands), discard=world.get(REST, ()))


# ---- any game, any preset ---------------------------------------------------------------------


@pytest.mark.parametrize(("preset", "players"), [("sochi", 3), ("leningrad", 4), ("rostov", 3)])
def test_every_decision_of_random_games_is_judged_with_a_coherent_verdict(
    preset: str, players: int
) -> None:
    from domain.simulation import play_random_pulka

    rules: Rules = rules_for(preset, {"players": players, "pool": {"target": 2}})
    _, appends = play_random_pulka(rules, random.Random(11), claims=0.3)
    events = [e for batch in appends for e in batch]
    analysed = analyse_game(events, layouts=4)
    decisions = [d for deal_ in analysed.deals for d in deal_.analysis.decisions]
    assert decisions and {d.kind for d in decisions} >= {"bid"}
    for d in decisions:
        values = [o.value for o in d.options]
        assert len(values) >= 2 and all(math.isfinite(v) for v in values)
        assert d.options[0].action == d.best and d.action in [o.action for o in d.options]
        assert d.loss == pytest.approx(max(values) - _option(d, d.action), abs=0.011)
        assert d.low <= d.loss <= d.high and d.samples >= 1
        assert (d.verdict == "best") == (d.best == d.action)
    for deal_ in analysed.deals:
        for lang in ("en", "ru"):
            text = worded(deal_.analysis, lang)  # type: ignore[arg-type]
            assert all(s for s in text.summary)
            assert all(d.summary for d in text.decisions)


def test_the_commands_judged_are_the_ones_the_seat_could_make() -> None:
    t = _spade_game(("AC", "AD"))
    legal_kinds: dict[str, type[SeatCommand]] = {"bid": MakeBid, "discard": Discard}
    for d in analyse_decisions(t.before, t.events):
        state = g.fold(t.events[: d.step], t.before)
        assert isinstance(state, g.Pulka)
        legal = {judge.label(a) for a in deal.legal_actions(state.deal, d.seat)}
        assert {o.action for o in d.options} <= legal
        if d.kind in legal_kinds:
            assert len(d.options) <= judge.MAX_OPTIONS
