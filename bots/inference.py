"""What the auction implies about the hidden hands: a weight per sampled layout (docs/bots.md §2.3).

A layout is weighed by how well each hidden hand fits what its holder did, judged by the basic
bot's own rules of thumb: a trick bid wants the tricks for it, a misère bid few dangerous cards,
a pass no big hand, a whist the defensive tricks for it, a declared contract the tricks to make
it. The weights are soft (never zero): the rules of thumb are crude and people bid differently.
The play so far is hard evidence (voids), already applied by the sampler.
"""

from __future__ import annotations

from bots.evaluate import best_strain, declarer_tricks, defender_tricks, miser_danger
from bots.knowledge import REST, Knowledge
from bots.sampling import World
from domain.cards import MISER, PASS, Seat, level_of, strain_of

UNLIKELY = 0.25
"""The weight of a hand that does not fit one action."""


def weight(k: Knowledge, world: World) -> float:
    """The relative likelihood of ``world`` given the auction and the whisting."""
    w = 1.0
    deal = k.deal
    for seat, cards in world.items():
        if seat == REST:
            continue
        hand = (*cards, *k.played_by.get(seat, ()))  # the hand as it was before play
        if seat == deal.declarer:
            if deal.contract not in (None, MISER) and len(hand) == 10:
                w *= _contract_fit(deal.contract, hand)
        elif len(hand) == 10:
            w *= _auction_fit(k, seat, hand)
        for call in deal.whist_calls:
            if call.seat == seat:
                w *= _whist_fit(deal.contract, call.call, hand)
    return w


def _auction_fit(k: Knowledge, seat: Seat, hand: tuple[str, ...]) -> float:
    calls = [c for c in k.deal.auction if c.seat == seat and not c.dark]
    if not calls:
        return 1.0
    w = 1.0
    strain, tricks = best_strain(hand)
    for c in calls:
        if c.call == MISER:
            w *= 1.0 if miser_danger(hand) <= 2.0 else UNLIKELY
        elif c.call == PASS:
            w *= 1.0 if tricks < 6.5 else 0.5
        else:
            # a bid: the tricks for its level (the talon adds about one)
            w *= 1.0 if tricks + 1.5 >= level_of(c.call) else UNLIKELY
    del strain
    return w


def _contract_fit(contract: str, hand: tuple[str, ...]) -> float:
    s = strain_of(contract)
    trump = None if s == "NT" else s
    return 1.0 if declarer_tricks(hand, trump) + 1.0 >= level_of(contract) else UNLIKELY


def _whist_fit(contract: str | None, call: str, hand: tuple[str, ...]) -> float:
    if contract is None or contract == MISER:
        return 1.0
    s = strain_of(contract)
    d = defender_tricks(hand, None if s == "NT" else s)
    if call == "whist":
        return 1.0 if d >= 0.75 else 0.5
    if call == "pass":
        return 1.0 if d < 2.0 else 0.5
    return 1.0
