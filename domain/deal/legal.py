"""What may be done now: `legal_actions` (every command a seat may send) and `to_act` (who).

`decide` accepts exactly the commands listed here and refuses anything else with a typed error;
the property tests hold the two to that. One exception: claims (`domain.deal.claims`), which end
the play by agreement rather than play it, are offered by `claims.claim_offers` and listed by the
table (`domain.game.legal_actions`); the answers to a pending claim are listed here.
"""

from __future__ import annotations

from domain.cards import BID_RANK, MISER, MISER_WT, Seat
from domain.deal import auction_rules, whisting_rules
from domain.deal.messages import (
    AnswerClaim,
    CallWhist,
    ChoosePlay,
    Concede,
    Declare,
    DeclareTotus,
    Discard,
    LookAtCards,
    LookAtHand,
    MakeBid,
    Pass,
    PlayCard,
    SeatCommand,
    Strain,
    TakeTalon,
)
from domain.deal.play_rules import playable
from domain.deal.state import (
    AwaitingTalon,
    Bidding,
    DealState,
    Declaring,
    Discarding,
    Playing,
    TotusDiscarding,
    Whisting,
)

_TOTUS_STRAINS: tuple[Strain, ...] = ("S", "C", "D", "H", "NT")


def legal_actions(state: DealState, seat: Seat) -> list[SeatCommand]:
    """Every command ``seat`` may send now; `decide` accepts each of them."""
    match state:
        case Bidding():
            return _legal_bidding(state, seat)
        case AwaitingTalon() if seat == state.declarer:
            actions: list[SeatCommand] = [TakeTalon(seat=seat)]
            if state.dark and auction_rules.below_miser(state.bid):
                actions.append(Declare(seat=seat, contract=MISER))
            return actions
        case Discarding() if seat == state.declarer:
            actions = _discards(seat, state.hands[seat])
            if state.rules.classic.totus and state.bid != MISER:
                floor = BID_RANK[auction_rules.minimum_contract(state)]
                actions += [
                    DeclareTotus(seat=seat, strain=s)
                    for s in _TOTUS_STRAINS
                    if BID_RANK[f"10{s}"] >= floor
                ]
            return actions
        case TotusDiscarding() if seat == state.next_seat(state.declarer):
            return _discards(seat, state.hands[state.declarer])
        case Declaring() if seat == state.declarer:
            return _legal_declarations(state, seat)
        case Whisting():
            return _legal_whisting(state, seat)
        case Playing():
            if state.claim is not None:
                pending = state.claim
                if seat in pending.asked and seat not in pending.accepted:
                    return [AnswerClaim(seat=seat, accept=a) for a in (True, False)]
                return []
            if state.controllers[state.turn] != seat:
                return []
            return [PlayCard(seat=seat, card=c) for c in playable(state, state.hands[state.turn])]
    return []


def to_act(state: DealState) -> tuple[Seat, ...]:
    """The seats that may act now: one; none once the deal is over; while a claim waits, the
    seats yet to answer it."""
    match state:
        case Bidding():
            return (state.turn,)
        case Playing():
            if state.claim is not None:  # the seats yet to answer the claim
                return tuple(s for s in state.claim.asked if s not in state.claim.accepted)
            return (state.controllers[state.turn],)
        case AwaitingTalon() | Discarding() | Declaring():
            return (state.declarer,)
        case TotusDiscarding():
            return (state.next_seat(state.declarer),)
        case Whisting():
            opts = whisting_rules.options(state)
            if opts is not None:
                return (opts[0],)
            res = whisting_rules.resolve(state)
            return (res.whister,) if res.whister is not None else ()
    return ()


def _discards(seat: Seat, hand: tuple[str, ...]) -> list[SeatCommand]:
    """Every pair of cards of ``hand``, in hand order."""
    return [Discard(seat=seat, cards=(a, b)) for i, a in enumerate(hand) for b in hand[i + 1 :]]


def _legal_bidding(state: Bidding, seat: Seat) -> list[SeatCommand]:
    dark_games = state.rules.classic.dark_games
    dark = dark_games and seat not in state.looked
    if seat != state.turn:
        # a player may pick up his cards at any time of the auction, not only on his turn
        return [LookAtCards(seat=seat)] if dark and seat in state.order else []
    actions: list[SeatCommand] = []
    if dark:
        actions.append(LookAtCards(seat=seat))
        if auction_rules.may_pass_dark(state, seat):
            actions.append(Pass(seat=seat, dark=True))
    else:
        actions.append(Pass(seat=seat))
    actions += [
        MakeBid(seat=seat, bid=b, dark=dark)
        for b in auction_rules.trick_bids(state, seat, dark=dark)
    ]
    if auction_rules.may_bid_miser(state, seat) and state.highest != MISER:
        actions.append(MakeBid(seat=seat, bid=MISER, dark=dark))
    if auction_rules.may_bid_miser_without_talon(state, seat):
        actions.append(MakeBid(seat=seat, bid=MISER_WT, dark=dark))
    if auction_rules.may_take_talon_silently(state, seat):
        actions.append(TakeTalon(seat=seat))
    return sorted(actions, key=_bid_sort_key)


def _bid_sort_key(cmd: SeatCommand) -> int:
    if isinstance(cmd, MakeBid):
        return 10 + BID_RANK[cmd.bid]
    return 0 if isinstance(cmd, LookAtCards) else 1 if isinstance(cmd, Pass) else 100


def _legal_declarations(state: Declaring, seat: Seat) -> list[SeatCommand]:
    actions: list[SeatCommand] = [
        Declare(seat=seat, contract=b) for b in auction_rules.declarable(state)
    ]
    if state.bid is None and state.rules.bidding.third_hand_may_miser:
        actions.append(Declare(seat=seat, contract=MISER))
    if state.rules.play.concede != "none":
        actions.append(Concede(seat=seat))
    return actions


def _legal_whisting(state: Whisting, seat: Seat) -> list[SeatCommand]:
    opts = whisting_rules.options(state)
    if opts is not None:
        turn, choices = opts
        if seat != turn:
            return []
        actions: list[SeatCommand] = [CallWhist(seat=seat, choice=c) for c in choices]
        if whisting_rules.may_look(state, seat):
            actions += [LookAtHand(seat=seat, hand=h) for h in whisting_rules.defenders(state)]
        return actions
    resolution = whisting_rules.resolve(state)
    if resolution.mode != "single" or seat != resolution.whister:
        return []
    actions = [ChoosePlay(seat=seat, open=True), ChoosePlay(seat=seat, open=False)]
    if whisting_rules.gentleman_half_whist_open(state):
        actions.append(CallWhist(seat=seat, choice="half_whist"))
    return actions
