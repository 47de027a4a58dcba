"""Tricks (взятки): following suit, trumping, and who wins (docs/rules.md §E.1, §E.4).

Speed matters here (a deal is ~30 plays): suits and ranks come from the precomputed tables of
`domain.cards`, never from parsing.
"""

from __future__ import annotations

from typing import NamedTuple

from domain.cards import RANK_OF, SUIT_OF, Seat
from domain.deal.state import Playing


def led_suit(state: Playing) -> str | None:
    """The suit to follow: the first card of the trick, or the turned talon card of an all-pass."""
    if state.talon_card is not None:
        return SUIT_OF[state.talon_card]
    if state.trick:
        return SUIT_OF[state.trick[0][1]]
    return None


def playable(state: Playing, hand: tuple[str, ...]) -> tuple[str, ...]:
    """Cards of ``hand`` that may be played now: follow suit; if void, trump; else anything."""
    suit = led_suit(state)
    if suit is None:
        return hand
    follow = tuple(c for c in hand if SUIT_OF[c] == suit)
    if follow:
        return follow
    if state.trump is not None:
        trumps = tuple(c for c in hand if SUIT_OF[c] == state.trump)
        if trumps:
            return trumps
    return hand


class Refusal(NamedTuple):
    """Why a card may not be played: the rule's stable code and a sentence naming it."""

    code: str
    message: str


def play_refusal(state: Playing, hand: tuple[str, ...], card: str) -> Refusal | None:
    """Why ``card`` may not be played from ``hand`` now; None if it may."""
    suit = led_suit(state)
    if suit is None:
        return None
    if SUIT_OF[card] == suit:
        return None
    if any(SUIT_OF[c] == suit for c in hand):
        return Refusal(
            "must_follow_suit", f"you must follow suit: {card} is not a {suit} and you hold {suit}"
        )
    trump = state.trump
    if trump is not None and SUIT_OF[card] != trump and any(SUIT_OF[c] == trump for c in hand):
        return Refusal("must_trump", f"you must trump: void in {suit}, you hold trumps ({trump})")
    return None


def talon_player(state: Playing) -> Seat | None:
    """The seat whose card the turned talon card is, on an all-pass trick: the sitting-out dealer
    at four under ``players4.dealer_raspasy = "plays_talon"`` (I-16, [C6]); else nobody."""
    if (
        state.talon_card is None
        or state.seats != 4
        or state.rules.players4.dealer_raspasy != "plays_talon"
    ):
        return None
    return state.dealer


def trick_winner(
    trick: tuple[tuple[Seat, str], ...], trump: str | None, talon_card: str | None
) -> Seat:
    """The highest trump wins, else the highest card of the led suit. On an all-pass talon trick
    nobody may have followed the talon card's suit: then the first player takes it (I-14). Where
    the dealer plays the talon, his card is the trick's first (`talon_player`)."""
    led = SUIT_OF[talon_card] if talon_card is not None else SUIT_OF[trick[0][1]]
    best: tuple[int, int] | None = None
    winner = trick[0][0]
    for seat, card in trick:
        suit = SUIT_OF[card]
        if suit == trump:
            key = (2, RANK_OF[card])
        elif suit == led:
            key = (1, RANK_OF[card])
        else:
            continue
        if best is None or key > best:
            best, winner = key, seat
    return winner
