"""The auction (торговля): which calls a seat may make (docs/rules.md §B, I-1…I-6, §B.3), and the
least contract its winner may then name.

Pure predicates over the state; `domain.deal.auction` turns an accepted call into events.
"""

from __future__ import annotations

from domain.cards import (
    BID_RANK,
    LADDER,
    MISER,
    MISER_WT,
    TALONLESS_NINES,
    TRICK_BIDS,
    Seat,
    is_miser,
    is_talonless,
    level_of,
)
from domain.deal.state import Bidding, Contracted, DealTable

_MISER_RANK = BID_RANK[MISER]
_MISER_WT_RANK = BID_RANK[MISER_WT]
_WITH_TALONLESS_NINES = tuple(sorted((*TRICK_BIDS, *TALONLESS_NINES), key=BID_RANK.__getitem__))


def effective_min_level(state: DealTable) -> int:
    """The lowest level a trick bid may open at: the exit from all-pass (выход), raised by one
    level per dark pass in this deal (a dark pass is overcalled only by a 7, a second by an 8)."""
    return min(10, max(state.min_level, 6 + len(state.dark_passers)))


def holder(state: Bidding) -> Seat | None:
    """The seat that may name the current highest bid again («здесь»), if any."""
    if state.highest is None or is_miser(state.highest) or state.highest_by is None:
        return None
    rule = state.rules.bidding.hold_rule
    if rule == "starter":
        return state.opened_by if state.opened_by != state.highest_by else None
    if len(state.passed) != 1:
        return None  # the hold applies only when two bidders remain
    remaining = [s for s in state.order if s not in state.passed]
    senior, junior = remaining  # order lists the earlier hand first
    if rule == "through_passer":
        between = state.order.index(state.passed[0]) == 1
        if not between or state.highest == "6S":
            return None
    if state.rules.bidding.hold_lapses and senior in state.hold_lost:
        # S0 read literally (I-3): the right lapsed and passed to the other player
        return junior if state.highest_by == senior else None
    return senior if state.highest_by == junior else None


def _dark_miser_standing(state: Bidding) -> bool:
    return is_miser(state.highest) and state.highest_dark


def trick_ladder(state: DealTable) -> tuple[str, ...]:
    """The trick bids of this game, lowest first: with the nines without the talon if the rules
    play them (I-6)."""
    return _WITH_TALONLESS_NINES if state.rules.bidding.talonless_games else TRICK_BIDS


def trick_bids(state: Bidding, seat: Seat, *, dark: bool) -> list[str]:
    """Trick bids (and the hold) ``seat`` may make now, in the light or in the dark."""
    if seat == state.miser_by:
        return []  # kabal misère: the misère bidder makes no trick bid afterwards
    ladder = trick_ladder(state)
    floor = ladder.index(f"{effective_min_level(state)}S")
    candidates = ladder[floor:]
    out: list[str] = []
    if state.highest is None:
        out = list(candidates) if state.rules.bidding.allow_jumps else [candidates[0]]
    else:
        top = BID_RANK[state.highest]
        higher = [b for b in candidates if BID_RANK[b] > top]
        out = higher if state.rules.bidding.allow_jumps else higher[:1]
        if holder(state) == seat:
            out = [state.highest, *out]
    if _dark_miser_standing(state):
        # a dark misère is overcalled only by a dark 10 (S1 §6.4): a step past the nines
        tens = [b for b in candidates if level_of(b) == 10]
        out = (tens if state.rules.bidding.allow_jumps else tens[:1]) if dark else []
    return out


def may_bid_miser(state: Bidding, seat: Seat) -> bool:
    """Misère only as the player's first bid (мизер кабальный), and only above the current bid."""
    if seat in state.bidders or seat == state.miser_by:
        return False
    return state.highest is None or BID_RANK[state.highest] < _MISER_RANK


def may_bid_miser_without_talon(state: Bidding, seat: Seat) -> bool:
    """Misère without the talon (мизер без прикупа), if it is above the current bid and no dark
    misère stands: as a first bid where games without the talon are played (I-6), or by the
    misère bidder once a nine with the talon has outbid him (I-5)."""
    bidding = state.rules.bidding
    if _dark_miser_standing(state):
        return False
    if state.highest is not None and BID_RANK[state.highest] >= _MISER_WT_RANK:
        return False
    if seat == state.miser_by:
        return (
            bidding.miser_without_talon
            and state.highest is not None
            and BID_RANK[state.highest] > _MISER_RANK
        )
    return bidding.talonless_games and seat not in state.bidders


def may_take_talon_silently(state: Bidding, seat: Seat) -> bool:
    """After two passes the last hand may take the talon without a bid (Lesnoy 3.3.15)."""
    return (
        state.rules.bidding.third_hand_silent_talon
        and state.highest is None
        and len(state.passed) == 2
        and seat not in state.passed
    )


def may_pass_dark(state: Bidding, seat: Seat) -> bool:
    """A dark pass only before looking, and never once a bid has been made (S1 §6.4)."""
    return state.rules.classic.dark_games and seat not in state.looked and state.highest is None


def ladder_position(bid: str) -> int:
    return BID_RANK[bid]


def declarable(state: Contracted) -> list[str]:
    """The contracts the declarer may name (not misère): from the winning bid up the ladder;
    after a game bid without the talon, only the nines without the talon from it (I-6)."""
    floor = BID_RANK[minimum_contract(state)]
    ladder = TALONLESS_NINES if is_talonless(state.bid) else LADDER
    return [b for b in ladder if b != MISER and BID_RANK[b] >= floor]


def minimum_contract(state: Contracted) -> str:
    """The winning bid; after a silent take, the lowest opening bid, which a dark pass raises
    (it is overcalled only by a 7, a second one only by an 8: Lesnoy 3.3.19a)."""
    if state.bid is not None:
        return state.bid
    return f"{effective_min_level(state)}S"


def below_miser(bid: str | None) -> bool:
    """Whether ``bid`` is a trick bid under misère on the ladder (so 6S … 8NT)."""
    return bid is not None and BID_RANK[bid] < _MISER_RANK
