"""The solver's card model: one bit per card, one Python ``int`` per hand (docs/bots.md §4.1).

Card ``i`` is bit ``i`` with ``i = suit * 8 + rank``: suits in `domain.cards.SUITS` order (♠ ♣ ♦ ♥),
ranks 7 … A as 0 … 7, which is exactly the index of the card in `domain.cards.DECK`. A suit is
then one byte of the mask, so following suit is an ``&`` and the highest card of a suit is the
highest set bit.

The rules are those of `domain.deal.play_rules` (follow suit; if void, trump; else anything; the
highest trump wins, else the highest card of the suit led, and on an all-pass talon trick that
nobody follows the first player takes it); `tests/property/test_solver_properties.py` holds the
two to each other. The tables below are built once at import (about 10 ms): the search looks
them up instead of looping over ranks.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from domain.cards import DECK, SUITS

CARD_INDEX: Final[dict[str, int]] = {c: i for i, c in enumerate(DECK)}
"""Card notation → bit index (``"7S"`` → 0, ``"AH"`` → 31)."""
SUIT_MASK: Final[tuple[int, int, int, int]] = (0xFF, 0xFF << 8, 0xFF << 16, 0xFF << 24)
"""Every card of suit ``s`` (indexed as `domain.cards.SUITS`)."""
SUIT_INDEX: Final[dict[str, int]] = {s: i for i, s in enumerate(SUITS)}


def mask_of(cards: Iterable[str]) -> int:
    """The bitmask of ``cards`` (canonical notation)."""
    m = 0
    for c in cards:
        m |= 1 << CARD_INDEX[c]
    return m


def cards_of(mask: int) -> tuple[str, ...]:
    """The cards of ``mask``, in deck order (suit, then rank)."""
    out: list[str] = []
    while mask:
        low = mask & -mask
        out.append(DECK[low.bit_length() - 1])
        mask ^= low
    return tuple(out)


def card_of(bit: int) -> str:
    """The card of a one-bit mask."""
    return DECK[bit.bit_length() - 1]


def suit_of_bit(bit: int) -> int:
    """The suit index of a one-bit mask."""
    return (bit.bit_length() - 1) >> 3


def legal_mask(hand: int, led: int | None, trump: int | None) -> int:
    """The cards of ``hand`` that may be played to a trick whose suit is ``led`` (None: a lead).

    Follow suit; if void, trump; if void in trumps too (or no trumps), anything.
    """
    if led is None:
        return hand
    follow = hand & SUIT_MASK[led]
    if follow:
        return follow
    if trump is not None:
        trumps = hand & SUIT_MASK[trump]
        if trumps:
            return trumps
    return hand


def winner_index(cards: tuple[int, ...], led: int, trump: int | None) -> int:
    """The position in ``cards`` (one-bit masks, in play order) of the card that takes the trick.

    The highest trump, else the highest card of ``led``; if no card is of either suit (an
    all-pass talon trick nobody followed), the first player's.
    """
    played = 0
    for c in cards:
        played |= c
    best = played & SUIT_MASK[trump] if trump is not None else 0
    if not best:
        best = played & SUIT_MASK[led]
        if not best:
            return 0
    top = 1 << (best.bit_length() - 1)
    return cards.index(top)


def _run_representatives(present: int, held: int) -> int:
    """Of ``held`` ⊆ ``present`` (one suit, a byte), the lowest card of each run of held cards
    that are adjacent among the present ones: cards of a run are worth the same."""
    out = 0
    prev_held = False
    for r in range(8):
        bit = 1 << r
        if not present & bit:
            continue
        if held & bit:
            if not prev_held:
                out |= bit
            prev_held = True
        else:
            prev_held = False
    return out


def _relative(present: int, held: int) -> int:
    """``held`` ⊆ ``present`` with the ranks renumbered among the present cards (0 = lowest)."""
    out = 0
    k = 0
    for r in range(8):
        bit = 1 << r
        if present & bit:
            if held & bit:
                out |= 1 << k
            k += 1
    return out


def _tables() -> tuple[list[int], list[int]]:
    reps = [0] * 65536
    rel = [0] * 65536
    for present in range(256):
        sub = present
        while True:
            reps[present << 8 | sub] = _run_representatives(present, sub)
            rel[present << 8 | sub] = _relative(present, sub)
            if sub == 0:
                break
            sub = (sub - 1) & present
    return reps, rel


REPS, RELATIVE = _tables()
"""``REPS[present << 8 | held]``: the lowest card of each run of equivalent held cards (one suit's
byte); ``RELATIVE[present << 8 | held]``: the held cards with ranks renumbered among the present
ones. Both are defined for ``held ⊆ present``."""
