"""Random legal deals keep the deal's invariants, whatever the layout, the rules and the choices.

A deal is a random permutation of the 32-card deck, a random dealer and a rules preset (three or
four players, greedy or gentleman whist, Classic dark games, totus and concession …), played by
drawing every choice from `legal_actions` with hypothesis. After each step:

- each of the 32 cards is in exactly one place (hands, talon, discard, the trick on the table,
  the turned talon cards, the pile of played tricks);
- exactly the seats of `to_act` have legal actions;
- every legal action is accepted, and sampled actions outside them (other seats, other cards,
  other bids) are refused with an `IllegalAction`;
- `decide` leaves its input state unchanged;
- no seat view and no redacted event names a card that seat may not see.

At the end the deal has played exactly 10 tricks (unless it ended without play), and folding the
recorded events, also after a JSON round trip, rebuilds the same state.
"""

from __future__ import annotations

import copy
import random

import msgspec
import pytest
from _hypothesis import examples
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

from domain.cards import DECK, FULL_LADDER, SORT_KEY, STRAINS
from domain.deal.decider import decide, fold, initial_state, is_terminal, legal_actions, to_act
from domain.deal.messages import (
    AllPassed,
    AuctionWon,
    CallWhist,
    CardPlayed,
    CardsLooked,
    ChoosePlay,
    Concede,
    DealEvent,
    DealStarted,
    Declare,
    DeclareTotus,
    Discard,
    HandLookedAt,
    HandsOpened,
    LookAtCards,
    LookAtHand,
    MakeBid,
    OpenHand,
    Pass,
    PlayCard,
    SeatCommand,
    StartDeal,
    TakeTalon,
    TalonCardTurned,
    TalonTaken,
    TrickWon,
)
from domain.deal.state import DealFinished, DealState, DealTable, Playing
from domain.deal.view import redact_event, seat_view, visible_cards
from domain.errors import DealOver, IllegalAction
from domain.rules import LENINGRAD, ROSTOV, SOCHI, Rules, rules_for

RULESETS: dict[str, Rules] = {
    "sochi": SOCHI,
    "leningrad (gentleman)": LENINGRAD,
    "rostov (talon unused)": ROSTOV,
    "sochi, 4 players": rules_for("sochi", {"players": 4}),
    "leningrad, 4 players": rules_for("leningrad", {"players": 4}),
    "classic: dark games, totus, down three": rules_for(
        "sochi",
        {
            "classic": {"dark_games": True, "bombs": True, "totus": True},
            "play": {"concede": "down3"},
        },
    ),
    "classic, 4 players, gentleman, down two": rules_for(
        "leningrad",
        {
            "players": 4,
            "classic": {"dark_games": True, "totus": True},
            "play": {"concede": "down2"},
        },
    ),
    "stalingrad, 10 whisted, misère opens after a trick": rules_for(
        "sochi",
        {
            "whist": {"stalingrad": True, "ten_is_checked": False},
            "play": {"miser_open_timing": "after_first_trick"},
        },
    ),
    "jumps, starter holds, silent taker may misère": rules_for(
        "sochi",
        {"bidding": {"allow_jumps": True, "hold_rule": "starter", "third_hand_may_miser": True}},
    ),
    "4 players, the dealer whists with both hands open, greedy": rules_for(
        "sochi", {"players": 4, "players4": {"dealer_whist_hand": "open"}}
    ),
    "4 players, the dealer plays the talon on an all-pass": rules_for(
        "leningrad", {"players": 4, "players4": {"dealer_raspasy": "plays_talon"}}
    ),
    "4 players, the dealer is never asked": rules_for(
        "rostov", {"players": 4, "players4": {"dealer_whist": False}}
    ),
    "games without the talon, jumps, the outbid misère raises": rules_for(
        "sochi",
        {
            "bidding": {"talonless_games": True, "miser_without_talon": True, "allow_jumps": True},
            "scoring": {"talonless_extra": 2},
        },
    ),
    "4 players, dark games and games without the talon": rules_for(
        "leningrad",
        {
            "players": 4,
            "bidding": {"talonless_games": True, "miser_without_talon": True},
            "classic": {"dark_games": True},
        },
    ),
    "holds through a passer and lapse, no half-whist": rules_for(
        "rostov",
        {
            "bidding": {"hold_rule": "through_passer", "hold_lapses": True},
            "whist": {"half_whist": False},
        },
    ),
}

DECK_SET = frozenset(DECK)
WHIST_CHOICES = ("whist", "pass", "half_whist")


@st.composite
def layouts(draw: st.DrawFn) -> tuple[str, Rules, StartDeal]:
    """A rules preset and a shuffled deal of the 32 cards for its table."""
    name = draw(st.sampled_from(sorted(RULESETS)))
    rules = RULESETS[name]
    deck = draw(st.permutations(DECK))
    dealer = draw(st.integers(0, rules.players - 1))
    min_level = draw(st.sampled_from((6, 6, 6, 7, 8)))
    hands: list[tuple[str, ...]] = []
    at = 0
    for seat in range(rules.players):
        if rules.players == 4 and seat == dealer:
            hands.append(())
            continue
        hands.append(tuple(deck[at : at + 10]))
        at += 10
    start = StartDeal(
        dealer=dealer, hands=tuple(hands), talon=(deck[30], deck[31]), min_level=min_level
    )
    return name, rules, start


def choose(data: st.DataObject, actions: list[SeatCommand]) -> SeatCommand:
    """A legal action: first the kind of command (so that rare kinds such as a totus or a
    concession are drawn as often as a discard), then one of that kind."""
    kinds = sorted({type(a).__name__ for a in actions})
    kind = data.draw(st.sampled_from(kinds)) if len(kinds) > 1 else kinds[0]
    of_kind = [a for a in actions if type(a).__name__ == kind]
    if len(of_kind) == 1:
        return of_kind[0]
    return of_kind[data.draw(st.integers(0, len(of_kind) - 1))]


# ---- where the cards are ----------------------------------------------------------------


def card_places(state: DealState) -> list[str]:
    """Every card of a dealt deal, from every place a card can be."""
    assert isinstance(state, DealTable)
    places = [c for hand in state.hands for c in hand]
    places += state.talon
    places += getattr(state, "discard", ())
    places += getattr(state, "turned", ())
    places += getattr(state, "played", ())
    if isinstance(state, Playing):
        places += [c for _, c in state.trick]
    return places


def assert_each_card_in_one_place(state: DealState) -> None:
    places = card_places(state)
    assert len(places) == 32, sorted(places)
    assert frozenset(places) == DECK_SET


# ---- what a seat may see: a model independent of the view -------------------------------


class Knowledge:
    """The cards each seat has been allowed to see so far, learnt from the full event log:
    its own hand once picked up, a talon it took, and everything laid face up for all."""

    def __init__(self, seats: int) -> None:
        self.public: set[str] = set()
        self.private: dict[int, set[str]] = {s: set() for s in range(seats)}

    def allowed(self, viewer: int | None) -> set[str]:
        return self.public | (self.private[viewer] if viewer is not None else set())

    def learn(self, event: DealEvent, before: DealState) -> None:
        match event:
            case DealStarted() if not before.rules.classic.dark_games:
                for seat, hand in enumerate(event.hands):
                    self.private[seat] |= set(hand)
            case CardsLooked():
                assert isinstance(before, DealTable)
                self.private[event.seat] |= set(before.hands[event.seat])
            case AuctionWon() | AllPassed():
                # the auction is over: everyone has picked up his cards
                assert isinstance(before, DealTable)
                for seat, hand in enumerate(before.hands):
                    self.private[seat] |= set(hand)
            case HandLookedAt():
                assert isinstance(before, DealTable)
                self.private[event.seat] |= set(before.hands[event.hand])
            case TalonTaken():
                self.private[event.seat] |= set(event.cards)
                if event.shown:
                    self.public |= set(event.cards)
            case HandsOpened():
                for hand in event.hands:
                    self.public |= set(hand.cards)
            case TalonCardTurned() | CardPlayed():
                self.public.add(event.card)


CARD_FIELDS = ("hands", "talon", "hand", "cards", "card")
"""The event fields that hold cards (a bid such as ``7S`` is spelt like a card)."""


def event_cards(event: DealEvent) -> set[str]:
    """Every card an event names."""
    found: set[str] = set()
    for name in CARD_FIELDS:
        value = getattr(event, name, None)
        if isinstance(value, str):
            found.add(value)
        elif isinstance(value, tuple):  # not a seat number (``HandLookedAt.hand``)
            for item in value:
                cards = item.cards if isinstance(item, OpenHand) else item
                found |= {cards} if isinstance(cards, str) else set(cards)
    return found


def viewers(state: DealState) -> list[int | None]:
    assert isinstance(state, DealTable)
    return [*range(state.seats), None]


def assert_views_hide_what_they_must(state: DealState, knowledge: Knowledge) -> None:
    assert isinstance(state, DealTable)
    for viewer in viewers(state):
        view = seat_view(state, viewer, to_act(state))
        leaked = visible_cards(view) - knowledge.allowed(viewer)
        assert not leaked, f"seat {viewer} sees {sorted(leaked)} in {type(state).__name__}"
        if viewer is None or viewer not in state.looked:
            assert view.hand == ()
        else:
            assert view.hand == state.hands[viewer]


# ---- refusals ------------------------------------------------------------------------------


def canonical(command: SeatCommand) -> SeatCommand:
    if isinstance(command, Discard):
        first, second = sorted(command.cards, key=SORT_KEY.__getitem__)
        return Discard(seat=command.seat, cards=(first, second))
    return command


def random_command(state: DealState, rng: random.Random) -> SeatCommand:
    """Any well-formed command of any seat, legal or not."""
    assert isinstance(state, DealTable)
    seat = rng.randrange(state.seats)
    hand = list(state.hands[seat]) or list(DECK)
    first, second = rng.sample(hand if len(hand) > 1 and rng.random() < 0.5 else DECK, 2)
    return rng.choice(
        [
            LookAtCards(seat=seat),
            Pass(seat=seat, dark=rng.random() < 0.5),
            MakeBid(seat=seat, bid=rng.choice(FULL_LADDER), dark=rng.random() < 0.5),
            TakeTalon(seat=seat),
            Discard(seat=seat, cards=(first, second)),
            Declare(seat=seat, contract=rng.choice(FULL_LADDER)),
            DeclareTotus(seat=seat, strain=rng.choice(STRAINS)),
            Concede(seat=seat),
            CallWhist(seat=seat, choice=rng.choice(WHIST_CHOICES)),
            LookAtHand(seat=seat, hand=rng.randrange(state.seats)),
            ChoosePlay(seat=seat, open=rng.random() < 0.5),
            PlayCard(seat=seat, card=rng.choice(hand)),
            PlayCard(seat=seat, card=rng.choice(DECK)),
        ]
    )


def outside_actions(
    state: DealState, chosen: SeatCommand, actions: list[SeatCommand], rng: random.Random
) -> list[SeatCommand]:
    """Actions next to the chosen one that are not legal: the same command from the other seats,
    other cards, other bids, other contracts, other whisting calls; and a few random ones."""
    assert isinstance(state, DealTable)
    legal = {canonical(a) for a in actions} | {
        canonical(a) for s in range(state.seats) for a in legal_actions(state, s)
    }
    others = [
        msgspec.structs.replace(chosen, seat=s) for s in range(state.seats) if s != chosen.seat
    ]
    seat = chosen.seat
    match chosen:
        case PlayCard():
            others += [PlayCard(seat=seat, card=c) for c in rng.sample(DECK, 6)]
        case MakeBid() | Pass():
            dark = chosen.dark
            others += [MakeBid(seat=seat, bid=b, dark=dark) for b in rng.sample(FULL_LADDER, 4)]
            others.append(Pass(seat=seat, dark=not dark))
        case Declare():
            others += [Declare(seat=seat, contract=b) for b in rng.sample(FULL_LADDER, 4)]
        case CallWhist():
            others += [CallWhist(seat=seat, choice=c) for c in WHIST_CHOICES]
            others += [LookAtHand(seat=seat, hand=h) for h in range(state.seats)]
        case LookAtHand():
            others += [LookAtHand(seat=seat, hand=h) for h in range(state.seats)]
            others += [CallWhist(seat=seat, choice=c) for c in WHIST_CHOICES]
        case Discard():
            others += [Discard(seat=seat, cards=(a, b)) for a, b in [rng.sample(DECK, 2)] * 2]
    others += [random_command(state, rng) for _ in range(3)]
    return [c for c in others if canonical(c) not in legal]


def assert_refused(command: SeatCommand, state: DealState) -> None:
    snapshot = copy.deepcopy(state)
    with pytest.raises(IllegalAction) as refusal:
        decide(command, state)
    assert refusal.value.code.startswith("illegal")
    assert state == snapshot


# ---- one random deal ---------------------------------------------------------------------


def play_random_deal(
    data: st.DataObject, rules: Rules, start: StartDeal, *, thorough: bool
) -> tuple[DealFinished, list[DealEvent]]:
    rng = random.Random(data.draw(st.integers(0, 2**32))) if thorough else None
    state: DealState = initial_state(rules)
    log: list[DealEvent] = []
    knowledge = Knowledge(rules.players)
    pending = decide(start, state)
    for _ in range(400):
        for e in pending:
            if thorough:
                knowledge.learn(e, state)
                for viewer in (*range(rules.players), None):
                    hidden = event_cards(redact_event(e, viewer, state))
                    assert hidden <= knowledge.allowed(viewer), (type(e).__name__, viewer)
            if isinstance(e, TrickWon):
                assert isinstance(state, Playing)
                assert sorted(s for s, _ in state.trick) == sorted(state.order)
                assert e.cards == tuple(c for _, c in state.trick)
            state = fold(state, [e])
            assert_each_card_in_one_place(state)
        log += pending
        if is_terminal(state):
            break
        (seat,) = to_act(state)
        actions = legal_actions(state, seat)
        assert actions, f"seat {seat} is to act in {type(state).__name__} but has no action"
        chosen = choose(data, actions)
        if thorough:
            assert rng is not None
            for other in range(state.seats):
                # only the seat to act may act, but for picking up one's cards in a dark auction
                moves = [a for a in legal_actions(state, other) if not isinstance(a, LookAtCards)]
                assert not moves if other != seat else bool(legal_actions(state, other))
            snapshot = copy.deepcopy(state)
            for action in actions:
                decide(action, state)  # every legal action is accepted
            assert state == snapshot
            for command in outside_actions(state, chosen, actions, rng):
                assert_refused(command, state)
            assert_views_hide_what_they_must(state, knowledge)
        pending = decide(chosen, state)
    else:
        raise AssertionError("the deal did not end")
    assert isinstance(state, DealFinished)
    if thorough:
        assert_views_hide_what_they_must(state, knowledge)
        assert rng is not None
        with pytest.raises(DealOver):
            decide(random_command(state, rng), state)
    return state, log


def assert_deal_ended_properly(state: DealFinished, log: list[DealEvent]) -> None:
    outcome = state.outcome
    plays = sum(isinstance(e, CardPlayed) for e in log)
    tricks = sum(isinstance(e, TrickWon) for e in log)
    assert len(outcome.tricks) == state.seats
    assert {s for s, _ in outcome.taken()} == set(state.order)
    if outcome.played:
        assert (plays, tricks, len(state.played)) == (30, 10, 30)
        assert sum(outcome.tricks) == 10
    else:
        assert (plays, tricks) == (0, 0)
    if outcome.kind == "raspasy":
        assert outcome.declarer is None and outcome.played
    else:
        assert outcome.declarer in state.order
        opponents = set(state.order) - {outcome.declarer}
        seats = [r.seat for r in outcome.defenders]
        assert set(seats[:2]) == opponents
        if len(seats) == 3:  # the dealer at four whisted: the single whister, after both
            assert seats[2] == outcome.dealer not in state.order
            assert [r.choice for r in outcome.defenders] == ["pass", "pass", "whist"]
            event("the dealer whisted")
    event(f"{outcome.kind}, {'played' if outcome.played else 'not played'}")
    if outcome.open_play:
        event("open play")
    if outcome.contract is not None and outcome.contract.endswith("WT"):
        event("without the talon")
    if outcome.totus or outcome.conceded or outcome.dark:
        event("totus" if outcome.totus else "conceded" if outcome.conceded else "dark game")


def assert_replay_gives_the_same_state(
    rules: Rules, state: DealFinished, log: list[DealEvent]
) -> None:
    assert fold(initial_state(rules), log) == state
    wire = msgspec.json.encode(log)
    decoded = msgspec.json.decode(wire, type=list[DealEvent])
    assert decoded == log
    assert fold(initial_state(rules), decoded) == state


NO_EXPLAIN = (Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink)


@settings(
    max_examples=examples(30),
    deadline=None,
    phases=NO_EXPLAIN,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(layout=layouts(), data=st.data())
def test_random_legal_deals_keep_every_invariant_at_every_step(
    layout: tuple[str, Rules, StartDeal], data: st.DataObject
) -> None:
    name, rules, start = layout
    event(name)
    state, log = play_random_deal(data, rules, start, thorough=True)
    assert_deal_ended_properly(state, log)
    assert_replay_gives_the_same_state(rules, state, log)


@settings(
    max_examples=examples(400),
    deadline=None,
    phases=NO_EXPLAIN,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(layout=layouts(), data=st.data())
def test_thousands_of_random_deals_end_and_replay_from_their_events(
    layout: tuple[str, Rules, StartDeal], data: st.DataObject
) -> None:
    _, rules, start = layout
    state, log = play_random_deal(data, rules, start, thorough=False)
    assert_deal_ended_properly(state, log)
    assert_replay_gives_the_same_state(rules, state, log)
