"""A play position for double-dummy solving, and the ways to build one.

A position is the cards still in each hand (one bitmask per seat, `domain.solver.bits`), the
trick on the table, who plays next, the trump, and which side is which:

- ``contract``: the declarer against the two defenders; the value is the declarer's tricks;
- ``misere``: the same sides, but the declarer wants no trick (мизер);
- ``paranoid``: all-pass (распасы) seen from one seat, which wants as few tricks as possible
  against a coalition of the other two that gives it as many as they can (docs/bots.md §4.2).

In every mode the value is counted for the ``focus`` seat (the declarer, or the all-pass seat):
its tricks from here on, the trick on the table included. At a table of four the sitting-out
dealer holds no cards and never plays.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Literal

import msgspec

from domain.cards import SUIT_OF, Seat
from domain.deal.state import Playing
from domain.solver.bits import CARD_INDEX, SUIT_INDEX, legal_mask, mask_of, winner_index

Mode = Literal["contract", "misere", "paranoid"]


class Position(msgspec.Struct, frozen=True, kw_only=True):
    """Everything the solver needs to know about a play position (all cards known)."""

    hands: tuple[int, ...]
    """``hands[seat]``: the bitmask of the cards in that seat's hand (0 for a sitting-out
    dealer)."""
    order: tuple[Seat, Seat, Seat]
    """The active seats clockwise, first hand (forehand) first: the order of play."""
    turn: Seat
    """The hand that plays the next card."""
    focus: Seat
    """The seat whose tricks are counted: the declarer, or the all-pass seat of ``paranoid``."""
    mode: Mode = "contract"
    trump: int | None = None
    """The trump suit's index (0 ♠, 1 ♣, 2 ♦, 3 ♥), or None."""
    trick: tuple[tuple[Seat, int], ...] = ()
    """The cards on the table, in play order: (seat, card bit index)."""
    tricks_played: int = 0
    """Tricks finished before this one (0 … 9)."""
    talon_leads: tuple[int, ...] = ()
    """All-pass with the talon: ``talon_leads[k]`` is the suit the turned talon card sets for
    trick ``k`` (0-based); empty otherwise."""
    forehand_leads_until: int = 0
    """All-pass with the talon: the first hand leads every trick with an index below this (3)."""

    def __post_init__(self) -> None:
        if self.turn not in self.order or self.focus not in self.order:
            raise ValueError("turn and focus must be active seats")
        seen = 0
        for seat, hand in enumerate(self.hands):
            if hand & seen:
                raise ValueError("a card is in two hands")
            seen |= hand
            if seat not in self.order and hand:
                raise ValueError(f"seat {seat} does not play but holds cards")
        for _, card in self.trick:
            if seen >> card & 1:
                raise ValueError("a card on the table is also in a hand")
        if len(self.trick) >= 3:
            raise ValueError("a complete trick is not a position: start the next one")
        if self.trick:
            last = self.order.index(self.trick[-1][0])
            if self.order[(last + 1) % 3] != self.turn:
                raise ValueError("the turn does not follow the cards on the table")
        played = {s for s, _ in self.trick}
        sizes = {bin(self.hands[s]).count("1") + (1 if s in played else 0) for s in self.order}
        if len(sizes) != 1:
            raise ValueError("the hands do not hold the same number of tricks")
        (tricks_left,) = sizes
        if tricks_left == 0 or tricks_left + self.tricks_played > 10:
            raise ValueError("a position has 1 to 10 tricks left")

    @property
    def tricks_left(self) -> int:
        """Tricks still to be finished, the one on the table included."""
        return bin(self.hands[self.turn]).count("1") + (
            1 if any(s == self.turn for s, _ in self.trick) else 0
        )

    @property
    def led(self) -> int | None:
        """The suit to follow in the trick on the table (None when the next card is a lead)."""
        if self.tricks_played < len(self.talon_leads):
            return self.talon_leads[self.tricks_played]
        if self.trick:
            return self.trick[0][1] >> 3
        return None


def advance(pos: Position, card: str) -> tuple[Position | None, Seat | None]:
    """The position once the hand on turn plays ``card``, and the seat that took the trick if
    the card completed one (else None). The position is None after the last trick.

    ``card`` must be legal (`domain.solver.bits.legal_mask`); a `ValueError` if it is not.
    """
    bit = CARD_INDEX[card]
    hand = pos.hands[pos.turn]
    if not (legal_mask(hand, pos.led, pos.trump) >> bit) & 1:
        raise ValueError(f"{card} may not be played by seat {pos.turn} now")
    hands = list(pos.hands)
    hands[pos.turn] = hand & ~(1 << bit)
    trick = (*pos.trick, (pos.turn, bit))
    order = pos.order
    if len(trick) < 3:
        nxt = order[(order.index(pos.turn) + 1) % 3]
        return msgspec.structs.replace(pos, hands=tuple(hands), trick=trick, turn=nxt), None
    led = pos.led if pos.led is not None else trick[0][1] >> 3
    w = trick[winner_index(tuple(1 << c for _, c in trick), led, pos.trump)][0]
    if not any(hands):
        return None, w
    done = pos.tricks_played + 1
    leader = order[0] if done < pos.forehand_leads_until else w
    after = msgspec.structs.replace(
        pos, hands=tuple(hands), trick=(), turn=leader, tricks_played=done
    )
    return after, w


def position(
    hands: Mapping[Seat, Iterable[str]],
    *,
    order: tuple[Seat, Seat, Seat],
    turn: Seat,
    focus: Seat,
    mode: Mode = "contract",
    trump: str | None = None,
    trick: Iterable[tuple[Seat, str]] = (),
    tricks_played: int = 0,
    talon: Iterable[str] = (),
    seats: int | None = None,
) -> Position:
    """A position from cards in notation: ``hands`` maps each active seat to its cards,
    ``trump`` is a suit letter (or None for no-trump, misère and all-pass), ``talon`` the
    all-pass talon cards whose suits lead the first tricks (the first hand then leads the first
    three tricks)."""
    n = seats if seats is not None else max(max(order), *hands) + 1
    masks = [0] * n
    for seat, cards in hands.items():
        masks[seat] = mask_of(cards)
    talon_leads = tuple(SUIT_INDEX[SUIT_OF[c]] for c in talon)
    return Position(
        hands=tuple(masks),
        order=order,
        turn=turn,
        focus=focus,
        mode=mode,
        trump=None if trump in (None, "NT") else SUIT_INDEX[trump],
        trick=tuple((s, CARD_INDEX[c]) for s, c in trick),
        tricks_played=tricks_played,
        talon_leads=talon_leads,
        forehand_leads_until=3 if talon_leads else 0,
    )


def from_playing(state: Playing, focus: Seat | None = None) -> Position:
    """The position of a deal being played, all hands known.

    A contract counts the declarer's tricks; a misère the declarer's too (who wants none); an
    all-pass is solved from the seat ``focus`` (required there) against the other two.
    """
    if state.kind == "raspasy":
        if focus is None:
            raise ValueError("an all-pass position is solved for one seat: pass focus")
        mode: Mode = "paranoid"
    else:
        if state.declarer is None:
            raise ValueError("a contract position needs a declarer")
        focus = state.declarer if focus is None else focus
        if focus != state.declarer:
            raise ValueError("a contract or misère is counted for its declarer")
        mode = "misere" if state.kind == "miser" else "contract"
    talon_leads: tuple[int, ...] = ()
    if state.kind == "raspasy" and state.rules.raspasy.use_talon:
        # the turned card leads trick 0, the other one (turned or still face down) trick 1
        cards = (*state.turned, *state.talon)
        talon_leads = tuple(SUIT_INDEX[SUIT_OF[c]] for c in cards[:2])
    return Position(
        hands=tuple(mask_of(h) for h in state.hands),
        order=state.order,
        turn=state.turn,
        focus=focus,
        mode=mode,
        trump=None if state.trump is None else SUIT_INDEX[state.trump],
        trick=tuple((s, CARD_INDEX[c]) for s, c in state.trick),
        tricks_played=state.tricks_played,
        talon_leads=talon_leads,
        forehand_leads_until=3 if talon_leads else 0,
    )
