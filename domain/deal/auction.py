"""The auction's commands (торговля): look at one's cards, bid, pass, or take the talon silently.

Which calls a seat may make is `domain.deal.auction_rules`; this module checks a command against it,
names the rule when it refuses, and turns an accepted call into events, including the end of the
auction: a winner (`AuctionWon`; for a game without the talon, `TalonSetAside` follows at once) or
an all-pass (`AllPassed`, then play starts).
"""

from __future__ import annotations

from domain.cards import (
    BID_RANK,
    MISER,
    MISER_WT,
    Seat,
    check_bid,
    is_miser,
    is_talonless,
    level_of,
)
from domain.deal import auction_rules, declaring
from domain.deal.evolve import evolve
from domain.deal.messages import (
    AllPassed,
    AuctionWon,
    BidMade,
    CardsLooked,
    DealEvent,
    LookAtCards,
    MakeBid,
    Pass,
    Passed,
    PlayStarted,
    TakeTalon,
    TalonCardTurned,
    TalonTaken,
)
from domain.deal.state import AwaitingTalon, Bidding, DealTable, own_controllers
from domain.errors import IllegalAction, NotYourTurn, refuse


def look_at_cards(command: LookAtCards, state: Bidding) -> list[DealEvent]:
    if not state.rules.classic.dark_games:
        raise refuse("dark_games_off", "cards are looked at as dealt when dark games are off")
    if command.seat in state.looked:
        raise refuse("already_looked", "you have already looked at your cards")
    return [CardsLooked(seat=command.seat)]


def make_bid(command: MakeBid, state: Bidding) -> list[DealEvent]:
    check_bid(command.bid)
    _turn(state, command.seat)
    _check_darkness(state, command.seat, command.dark)
    seat, bid = command.seat, command.bid
    if bid == MISER:
        if not auction_rules.may_bid_miser(state, seat):
            if seat in state.bidders:
                raise refuse(
                    "miser_after_trick_bid",
                    "misère may only be a player's first bid (мизер кабальный)",
                )
            raise refuse("bid_not_higher", f"misère is not above the current bid {state.highest}")
    elif bid == MISER_WT:
        if not auction_rules.may_bid_miser_without_talon(state, seat):
            raise _miser_without_talon_refusal(state, seat)
    elif bid not in auction_rules.trick_bids(state, seat, dark=command.dark):
        raise _bid_refusal(state, seat, bid)
    hold = bid == state.highest
    waived = not hold and auction_rules.holder(state) == seat
    event = BidMade(seat=seat, bid=bid, hold=hold, dark=command.dark, hold_waived=waived)
    return [event, *_after_call(_after(state, event))]


def pass_(command: Pass, state: Bidding) -> list[DealEvent]:
    _turn(state, command.seat)
    if command.dark:
        if not auction_rules.may_pass_dark(state, command.seat):
            raise refuse(
                "dark_pass_not_allowed",
                "a dark pass is made before looking and before anyone has bid",
            )
    else:
        _check_darkness(state, command.seat, False)
    event = Passed(seat=command.seat, dark=command.dark)
    return [event, *_after_call(_after(state, event))]


def take_talon_silently(command: TakeTalon, state: Bidding) -> list[DealEvent]:
    _turn(state, command.seat)
    if not auction_rules.may_take_talon_silently(state, command.seat):
        raise refuse(
            "talon_not_yours", "only the auction's winner takes the talon (or the last hand "
            "after two passes, where the rules allow a silent take)",
        )  # fmt: skip
    return [
        *_dark_hands_picked_up(state),
        AuctionWon(seat=command.seat, bid=None),
        TalonTaken(seat=command.seat, cards=state.talon),
    ]


def _turn(state: Bidding, seat: Seat) -> None:
    if seat != state.turn:
        raise NotYourTurn(f"it is seat {state.turn}'s turn to bid, not seat {seat}'s")


def _check_darkness(state: Bidding, seat: Seat, dark: bool) -> None:
    looked = seat in state.looked
    if dark and not state.rules.classic.dark_games:
        raise refuse("dark_games_off", "calls in the dark (втёмную) are not played in this game")
    if dark and looked:
        raise refuse("dark_after_looking", "a dark call must be made before looking at the cards")
    if not dark and not looked:
        raise refuse("look_first", "look at your cards first, or call in the dark")


def _miser_without_talon_refusal(state: Bidding, seat: Seat) -> IllegalAction:
    bidding = state.rules.bidding
    if seat == state.miser_by and not bidding.miser_without_talon:
        return refuse(
            "miser_without_talon_off",
            "an outbid misère bidder may only pass: misère without the talon is not played here",
        )
    if seat != state.miser_by and not bidding.talonless_games:
        return refuse("talonless_off", "games without the talon are not played in this game")
    if seat in state.bidders:
        return refuse(
            "miser_after_trick_bid", "misère may only be a player's first bid (мизер кабальный)"
        )
    if state.highest == MISER and state.highest_dark:
        return refuse("dark_miser", "a dark misère is overcalled only by a dark 10")
    return refuse(
        "bid_not_higher", f"misère without the talon is not above the current bid {state.highest}"
    )


def _bid_refusal(state: Bidding, seat: Seat, bid: str) -> IllegalAction:
    if is_talonless(bid) and not state.rules.bidding.talonless_games:
        return refuse("talonless_off", "games without the talon are not played in this game")
    if seat == state.miser_by:
        return refuse(
            "trick_bid_after_miser", "a player who bid misère may not bid a trick game afterwards"
        )
    if is_miser(state.highest) and state.highest_dark:
        return refuse("dark_miser", "a dark misère is overcalled only by a dark 10")
    floor = auction_rules.effective_min_level(state)
    if level_of(bid) < floor:
        return refuse("below_minimum", f"the bidding opens at {floor} in this deal")
    if state.highest is not None and BID_RANK[bid] <= BID_RANK[state.highest]:
        if bid == state.highest:
            return refuse("hold_not_allowed", f"you may not hold («здесь») at {bid} now")
        return refuse("bid_not_higher", f"{bid} is not above the current bid {state.highest}")
    return refuse("jump_bid", "bids go up one step at a time (no jump bids in this game)")


def _after(state: Bidding, event: BidMade | Passed) -> Bidding:
    after = evolve(state, event)
    assert isinstance(after, Bidding)
    return after


def _after_call(state: Bidding) -> list[DealEvent]:
    """End of the auction: everyone passed, or two passed after a bid (Lesnoy 3.3.12–3.3.13)."""
    passed = state.passed
    if len(passed) == 3:
        return [*_dark_hands_picked_up(state), AllPassed(), *_start_raspasy(state)]
    if len(passed) == 2 and state.highest_by is not None and state.highest_by not in passed:
        won = AuctionWon(seat=state.highest_by, bid=state.highest, dark=state.highest_dark)
        looked = _dark_hands_picked_up(state)
        if is_talonless(state.highest):
            after = evolve(state, won)
            assert isinstance(after, AwaitingTalon)
            return [*looked, won, *declaring.without_talon(after)]
        return [*looked, won]
    return []


def _dark_hands_picked_up(state: Bidding) -> list[DealEvent]:
    """The auction is over: whoever called in the dark and has not looked yet picks up his
    cards now, each in a `CardsLooked` that carries his hand to his seat alone."""
    return [CardsLooked(seat=seat) for seat in state.order if seat not in state.looked]


def _start_raspasy(state: DealTable) -> list[DealEvent]:
    """All-pass (распасы): no trumps; the talon cards set the suit of the first two tricks."""
    events: list[DealEvent] = [
        PlayStarted(
            kind="raspasy",
            controllers=own_controllers(state),
            trump=None,
            leader=state.order[0],
        )
    ]
    if state.rules.raspasy.use_talon:
        events.append(TalonCardTurned(card=state.talon[0]))
    return events
