"""The deal as a decider: ``decide(command, state) -> events`` and ``evolve(state, event)``.

Every rule lives in `decide` and the phase modules it hands a command to; `evolve` only records
facts, so a deal folds from its events without running a rule. `legal_actions` lists everything a
seat may do now; `decide` accepts exactly those commands and refuses anything else with a typed
error. This module is the deal's public surface::

    decider    initial_state, is_terminal, decide: checks the deal, routes a seat's command
    ├── auction       look at the cards, bid, pass, take the talon silently
    │   └── auction_rules     which calls a seat may make, the least contract after it
    ├── declaring     take the talon, discard, declare, totus, concede
    ├── whisting      what follows a contract, whisting calls (the dealer's at four), open or
    │                 closed play
    │   └── whisting_rules    who speaks, what he may say, how the calls resolve
    ├── play          play a card, win a trick, end the deal
    │   └── play_rules        following suit, trumping, who wins a trick
    └── claims        claim the tricks left, answer a claim
    evolve     evolve, fold: the state from the events, no rules
    legal      legal_actions, to_act (from the *_rules predicates)
    view       seat_view, redact_event: the only door through which cards leave
    ending     the outcome of a deal that ends now

Each command module (``auction``, ``whisting``, ``play``) turns accepted commands into events;
its ``*_rules`` twin holds the predicates, shared with `legal`.
"""

from __future__ import annotations

from domain.cards import DECK, SORT_KEY
from domain.deal import auction, claims, declaring, play, whisting
from domain.deal.evolve import evolve, fold
from domain.deal.legal import legal_actions, to_act
from domain.deal.messages import (
    AnswerClaim,
    CallWhist,
    ChoosePlay,
    Claim,
    Concede,
    DealEvent,
    DealStarted,
    Declare,
    DeclareTotus,
    Discard,
    LookAtCards,
    LookAtHand,
    MakeBid,
    Pass,
    PlayCard,
    SeatCommand,
    StartDeal,
    TakeTalon,
)
from domain.deal.state import (
    AwaitingDeal,
    AwaitingTalon,
    Bidding,
    DealFinished,
    DealState,
    DealTable,
    Declaring,
    Discarding,
    Playing,
    TotusDiscarding,
    Whisting,
    active_order,
)
from domain.errors import DealOver, InvalidLayout, NotYourTurn, WrongPhase
from domain.rules import Rules

__all__ = [
    "active_order",
    "decide",
    "evolve",
    "fold",
    "initial_state",
    "is_terminal",
    "legal_actions",
    "to_act",
]

_DECK = frozenset(DECK)


def initial_state(rules: Rules) -> AwaitingDeal:
    return AwaitingDeal(rules=rules)


def is_terminal(state: DealState) -> bool:
    return isinstance(state, DealFinished)


def decide(command: StartDeal | SeatCommand, state: DealState) -> list[DealEvent]:
    """The events that ``command`` causes in ``state``; raises `IllegalAction` if not allowed."""
    if isinstance(state, DealFinished):
        raise DealOver("the deal is over: no more actions are possible in it")
    if isinstance(command, StartDeal):
        if not isinstance(state, AwaitingDeal):
            raise WrongPhase("the cards are already dealt", code="illegal.already_dealt")
        return [_deal(command, state.rules)]
    if isinstance(state, AwaitingDeal):
        raise WrongPhase("no cards have been dealt yet", code="illegal.not_dealt")
    if not 0 <= command.seat < state.seats or (
        command.seat not in state.order and not isinstance(state, Whisting | Playing)
    ):  # the sitting-out dealer at four may still whist, and then play
        raise NotYourTurn(f"seat {command.seat} does not play in this deal")
    match command, state:  # the commonest first: some 30 of a deal's 35 commands play a card
        case PlayCard(), Playing():
            return play.play_card(command, state)
        case Claim(), Playing():
            return claims.claim(command, state)
        case AnswerClaim(), Playing():
            return claims.answer(command, state)
        case LookAtCards(), Bidding():
            return auction.look_at_cards(command, state)
        case MakeBid(), Bidding():
            return auction.make_bid(command, state)
        case Pass(), Bidding():
            return auction.pass_(command, state)
        case TakeTalon(), Bidding():
            return auction.take_talon_silently(command, state)
        case TakeTalon(), AwaitingTalon():
            return declaring.take_talon(command, state)
        case Declare(), AwaitingTalon():
            return declaring.switch_to_miser(command, state)
        case Discard(), Discarding():
            return declaring.discard(command, state)
        case DeclareTotus(), Discarding():
            return declaring.declare_totus(command, state)
        case Discard(), TotusDiscarding():
            return declaring.totus_discard(command, state)
        case Declare(), Declaring():
            return declaring.declare(command, state)
        case Concede(), Declaring():
            return declaring.concede(command, state)
        case CallWhist(), Whisting():
            return whisting.call_whist(command, state)
        case ChoosePlay(), Whisting():
            return whisting.choose_play(command, state)
        case LookAtHand(), Whisting():
            return whisting.look_at_hand(command, state)
    raise WrongPhase(
        f"'{type(command).__struct_config__.tag}' is not possible during "
        f"{_PHASE_NAMES[type(state)]}"
    )


def _deal(command: StartDeal, rules: Rules) -> DealStarted:
    seats = rules.players
    hands, talon = command.hands, command.talon
    if len(hands) != seats:
        raise InvalidLayout(f"a table of {seats} needs {seats} hands, got {len(hands)}")
    if not 0 <= command.dealer < seats:
        raise InvalidLayout(f"dealer {command.dealer} is not a seat of a table of {seats}")
    for seat, hand in enumerate(hands):
        want = 0 if seats == 4 and seat == command.dealer else 10
        if len(hand) != want:
            raise InvalidLayout(f"seat {seat} must hold {want} cards, got {len(hand)}")
    cards = [c for hand in hands for c in hand] + list(talon)
    if len(cards) != 32 or frozenset(cards) != _DECK:
        raise InvalidLayout("the hands and the talon must hold each of the 32 cards exactly once")
    if not 6 <= command.min_level <= 10:
        raise InvalidLayout("the minimum opening level must be between 6 and 10")
    return DealStarted(
        dealer=command.dealer,
        hands=tuple(tuple(sorted(h, key=SORT_KEY.__getitem__)) for h in hands),
        talon=talon,
        min_level=command.min_level,
    )


_PHASE_NAMES: dict[type[DealTable], str] = {
    Bidding: "the auction (торговля)",
    AwaitingTalon: "the talon exchange (the declarer takes the talon)",
    Discarding: "the discard (снос)",
    TotusDiscarding: "the totus discard",
    Declaring: "the declaration (заказ)",
    Whisting: "whisting (вистование)",
    Playing: "play (розыгрыш)",
}
