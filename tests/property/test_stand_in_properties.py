"""No table can stall (issue 21): whole deals where every seat times out at random points, goes
absent and is played for by the table's stand-in, under random rules (three and four players,
open and closed whist, the dealer whisting at four, misère, all-pass with the dealer's talon,
dark games, claims). At every step someone is to act and the stand-in has a legal move, the
domain accepts it as a timeout or a move played for the seat, and every deal reaches its end.

The stand-ins are the steward's own: `service.workers.steward.simplest` for most deals, the
``basic`` bot seeing exactly what its seat sees (`bots.SeatFeed`) for the first deal of each
example. Under the ``ci`` profile 50 examples of 40 deals each: 2,000 deals, 7 s on a busy
two-core machine; ``deep`` plays 40 times as many, freshly drawn.
"""

from __future__ import annotations

import random

import msgspec
from _hypothesis import examples
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from bots import LEVELS, SeatFeed
from domain import game as g
from domain import table as tbl
from domain.deal import whisting_rules
from domain.deal.messages import ChoosePlay, Claim, SeatCommand
from domain.deal.state import Bidding, Playing, Whisting
from domain.rules import Rules, rules_for
from domain.simulation import random_deal
from service.workers.steward import simplest

DEALS = 40
"""Deals per example."""
STEPS_PER_DEAL = 200
"""More commands than any deal needs (an auction, the talon, whisting, 10 tricks, claims)."""
MOVE_MS = 10_000


@st.composite
def table_rules(draw: st.DrawFn) -> Rules:
    players = draw(st.sampled_from([3, 4]))
    options: dict = {
        "players": players,
        "bidding": {
            "miser_without_talon": draw(st.booleans()),
            "talonless_games": draw(st.booleans()),
            "third_hand_may_miser": draw(st.booleans()),
        },
        "whist": {"style": draw(st.sampled_from(["greedy", "gentleman"]))},
        "classic": {"dark_games": draw(st.booleans()), "totus": draw(st.booleans())},
        "play": {
            "concede": draw(st.sampled_from(["none", "down2"])),
            "miser_open_timing": draw(st.sampled_from(["codex", "after_first_trick"])),
        },
        "pool": {"target": 1000},  # the deals, not the pulka's end, are the point here
        "table": {
            "move_seconds": MOVE_MS // 1000,
            "timeouts_to_absent": draw(st.integers(0, 3)),
            "claims": draw(st.booleans()),
        },
    }
    if players == 4:
        options["players4"] = {
            "dealer_whist": draw(st.booleans()),
            "dealer_whist_hand": draw(st.sampled_from(["looked", "may_look", "open"])),
            "dealer_raspasy": draw(st.sampled_from(["sits_out", "plays_talon"])),
        }
    return rules_for(draw(st.sampled_from(["sochi", "leningrad"])), options)


def decision_kind(state: g.Pulka, seat: int) -> str:
    """What ``seat`` is to decide: the deal's phase, and in play whose cards he plays."""
    deal = state.deal
    match deal:
        case Playing() if deal.claim is not None:
            return "answer a claim"
        case Playing() if deal.kind == "raspasy":
            return "play an all-pass" + (" beside the dealer's talon" if deal.seats == 4 and
                                         deal.rules.players4.dealer_raspasy == "plays_talon"
                                         and deal.tricks_played < 2 else "")  # fmt: skip
        case Playing():
            return "play his own hand" if deal.turn == seat else "play another's open hand"
        case Whisting() if seat == deal.dealer and deal.seats == 4:
            return "whist as the dealer at four"
        case Whisting() if whisting_rules.options(deal) is None:
            return "choose open or closed play"
        case Bidding() if deal.rules.classic.dark_games and seat not in deal.looked:
            return "bid in the dark"
    return type(deal).__name__.lower()


ALL_DECISIONS = {
    "bidding", "bid in the dark", "awaitingtalon", "discarding", "totusdiscarding", "declaring",
    "whisting", "whist as the dealer at four", "choose open or closed play", "play his own hand",
    "play another's open hand", "play an all-pass", "play an all-pass beside the dealer's talon",
    "answer a claim",
}  # fmt: skip
"""Every decision a seat can be asked for (`decision_kind`)."""


class Table:
    """A game at a clocked table, every command stamped with a clock made of data."""

    def __init__(self, rules: Rules, rng: random.Random) -> None:
        self.rng = rng
        self.now = 0
        self.state: g.GameState = g.INITIAL_STATE
        self.decisions: set[str] = set()
        """The kinds of decision the stand-in made (`decision_kind`)."""
        self.feeds: list[SeatFeed] | None = [SeatFeed(seat) for seat in range(rules.players)]
        """Each seat's feed for the bot stand-in; dropped (None) once no bot stands in."""
        self.do(g.CreateGame(rules=rules, first_dealer=rng.randrange(rules.players)))
        for seat in range(rules.players):
            self.do(g.TakeSeat(seat=seat, player=f"p{seat}"))

    def do(self, command: g.Command) -> list[g.Event]:
        events = g.decide(msgspec.structs.replace(command, at=self.now), self.state)
        self.state = g.fold(events, self.state)
        for feed in self.feeds or ():
            feed.extend(events)
        return events

    def stand_in(self, seat: int, basic: bool) -> SeatCommand:
        """The steward's move for ``seat``: never a claim, always legal."""
        assert isinstance(self.state, g.Pulka)
        self.decisions.add(decision_kind(self.state, seat))
        legal = g.legal_actions(self.state, seat)
        move = simplest(legal)
        if basic:
            assert self.feeds is not None
            chosen = LEVELS["basic"](self.feeds[seat].view(), self.rng, 0.01)
            move = chosen if chosen in legal and not isinstance(chosen, Claim) else move
        assert move in legal and not isinstance(move, Claim)
        return move

    def step(self, timeout_rate: float, basic: bool) -> None:
        """One command: the seat to act times out (or, absent, is played for) by chance,
        else moves himself, now and then with a claim."""
        state = self.state
        assert isinstance(state, g.Pulka)
        to_act = g.to_act(state)
        assert to_act, f"nobody is to act in {type(state.deal).__name__}"
        seat = self.rng.choice(to_act)
        reason = tbl.played_for(state.table, seat)
        if reason is not None and self.rng.random() < 0.9:
            self.do(tbl.PlayFor(seat=seat, move=self.stand_in(seat, basic)))
            return
        due = tbl.deadline(state.rules, state.table, seat)
        assert due is not None, "a seat to act at a clocked table has a deadline"
        if self.now >= due or self.rng.random() < timeout_rate:  # late, or chosen to be
            self.now = max(self.now, due)
            self.do(tbl.TimeOut(seat=seat, move=self.stand_in(seat, basic)))
            return
        self.now += 1
        legal = g.legal_actions(state, seat)
        claims = [a for a in legal if isinstance(a, Claim)]
        moves = [a for a in legal if not isinstance(a, Claim)]
        assert moves, f"seat {seat} to act has only {legal!r}"
        self.do(self.rng.choice(claims if claims and self.rng.random() < 0.1 else moves))


@settings(
    max_examples=examples(50), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)  # fmt: skip
@given(rules=table_rules(), seed=st.integers(0, 2**32 - 1),
       timeout_rate=st.sampled_from([0.2, 0.6, 1.0]))  # fmt: skip
def test_every_deal_ends_however_the_seats_time_out_through_the_stand_ins_moves(
    rules, seed, timeout_rate
):
    rng = random.Random(seed)
    table = Table(rules, rng)
    played = 0
    for deal_no in range(DEALS):
        state = table.state
        if not isinstance(state, g.Pulka) or g.is_terminal(state):
            break
        assert g.needs_cards(state)
        table.do(random_deal(rng, rules.players, state.next_dealer))
        basic = deal_no == 0  # the bot stand-in is dearer (its feeds): the first deal
        if not basic:
            table.feeds = None
        for _ in range(STEPS_PER_DEAL):
            if g.needs_cards(table.state) or g.is_terminal(table.state):
                break
            table.step(timeout_rate, basic)
        else:
            raise AssertionError(f"deal {deal_no + 1} did not end in {STEPS_PER_DEAL} commands")
        played += 1
    final = table.state
    assert isinstance(final, g.Pulka)
    everyone_absent = rules.table.timeouts_to_absent and timeout_rate == 1.0
    if everyone_absent:
        assert final.table.absent == frozenset(range(rules.players))
    event(f"deals played: {played}")


def test_every_seat_absent_in_open_play_the_whister_is_played_for_both_hands():
    """The issue's stall: open play, the passer's hand to play, every seat absent. The seat to
    act is the whister who plays that hand; he has its cards to play, never only claims."""
    rng = random.Random(7)
    rules = rules_for("sochi", {"table": {"move_seconds": 10, "timeouts_to_absent": 1}})
    seen = 0
    for _ in range(300):
        table = Table(rules, rng)
        table.do(random_deal(rng, 3, table.state.next_dealer))
        while not g.needs_cards(table.state):
            state = table.state
            deal = state.deal
            if not isinstance(deal, Playing):  # the players bid and whist themselves, in time
                (seat,) = g.to_act(state)
                legal = g.legal_actions(state, seat)
                opened = [a for a in legal if isinstance(a, ChoosePlay) and a.open]
                table.now += 1
                table.do(opened[0] if opened else rng.choice(legal))
                continue
            if deal.open_play and deal.claim is None:
                (seat,) = g.to_act(state)
                if deal.controllers[deal.turn] != deal.turn:  # the passer's hand is to play
                    assert seat == deal.controllers[deal.turn]
                    assert not isinstance(table.stand_in(seat, basic=True), Claim)
                    seen += 1
            table.step(timeout_rate=1.0, basic=False)  # then everyone times out, goes absent
        assert isinstance(table.state, g.Pulka)
        if seen >= 20:
            break
    assert seen >= 20


def test_the_stand_in_makes_every_kind_of_decision_as_the_seats_go_absent():
    """Seats bid and whist themselves now and then (a stand-in only passes, so contracts come
    from them) and time out otherwise, until all are absent: across these tables the stand-in
    is asked for every kind of decision, open hands and the dealer's talon included, and each
    time has a legal move that the table accepts."""
    configs = [
        {"classic": {"dark_games": True, "totus": True}},
        {"players": 4, "players4": {"dealer_whist_hand": "open"}},
        {"players": 4, "players4": {"dealer_whist_hand": "may_look",
                                    "dealer_raspasy": "plays_talon"}},
        {"players": 4, "players4": {"dealer_whist_hand": "looked"}},
        {"whist": {"style": "gentleman"}, "play": {"concede": "down2"}},
    ]  # fmt: skip
    seen: set[str] = set()
    for n in range(150):
        rng = random.Random(n)
        options = configs[n % len(configs)]
        table_options = {"move_seconds": 10, "timeouts_to_absent": 2, "stand_in": "simplest"}
        rules = rules_for("sochi", {**options, "pool": {"target": 1000}, "table": table_options})
        table = Table(rules, rng)
        table.feeds = None
        for _ in range(3):
            table.do(random_deal(rng, rules.players, table.state.next_dealer))
            for _ in range(STEPS_PER_DEAL):
                if g.needs_cards(table.state):
                    break
                table.step(timeout_rate=0.5, basic=False)
            assert g.needs_cards(table.state), "the deal ended"
        seen |= table.decisions
        if seen >= ALL_DECISIONS:
            break
    assert ALL_DECISIONS - seen == set()
    assert n < 100, f"{n + 1} tables to see every kind of decision (36 today)"
