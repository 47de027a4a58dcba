"""What a seat knows about the deal in play, read from its `BotView` alone.

`read` gathers the facts a strategy reasons with: its own cards, the hands lying open, the cards
already played, the trick on the table, the cards it has not seen and where they may be (the
other hands, the talon or a discard), and the suits each player has shown out of. Nothing here
is a guess: the sampler (`bots.sampling`) turns these facts into possible layouts.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from bots.view import BotView
from domain.cards import DECK, SUIT_OF, Seat
from domain.deal.messages import (
    CardPlayed,
    DealEvent,
    DealStarted,
    PlayCard,
    PlayStarted,
    TalonCardTurned,
    TrickWon,
)
from domain.deal.view import SeatView
from domain.rules import Rules

REST: Seat = -1
"""The location of hidden cards outside every hand: the face-down talon, another player's
discard, an all-pass talon card not yet turned."""


class Knowledge(msgspec.Struct, frozen=True, kw_only=True):
    """The facts of the current deal as one seat knows them."""

    seat: Seat
    rules: Rules
    deal: SeatView
    events: tuple[DealEvent, ...]
    """The current deal's events, redacted for this seat."""
    order: tuple[Seat, Seat, Seat]
    hands: dict[Seat, tuple[str, ...]]
    """The hands this seat can see: its own (once looked at) and those lying open."""
    hidden: dict[Seat, int]
    """Locations of cards this seat cannot see, and how many cards each holds: the other hands
    (by seat) and `REST`."""
    unseen: tuple[str, ...]
    """The cards whose place this seat does not know."""
    allowed: dict[str, tuple[Seat, ...]]
    """For each unseen card, the locations it may be in (voids and the shown talon narrow
    them)."""
    voids: dict[Seat, frozenset[str]]
    """Suits each seat has shown out of in this deal's play."""
    played: tuple[str, ...]
    """Cards of finished tricks, in order."""
    played_by: dict[Seat, tuple[str, ...]]
    """Every card each hand has played in this deal, the trick on the table included."""
    trick: tuple[tuple[Seat, str], ...]
    tricks: dict[Seat, int]
    turned: tuple[str, ...]
    """All-pass: talon cards turned up, in order."""
    turn: Seat | None
    """In play: the hand whose card is to be played now, when this seat plays it."""

    @property
    def tricks_played(self) -> int:
        return sum(self.tricks.values())


def current_deal(view: BotView) -> tuple[DealEvent, ...]:
    """The events of the deal in progress (or the last one), from its `DealStarted` on."""
    history = view.history
    for i in range(len(history) - 1, -1, -1):
        if isinstance(history[i], DealStarted):
            return tuple(e for e in history[i:] if isinstance(e, DealEvent))
    return ()


def read(view: BotView) -> Knowledge:
    """The facts of the current deal for ``view.seat``."""
    deal = view.game.deal
    rules = view.game.rules
    seat = view.seat
    events = current_deal(view)
    order = deal.hands_order
    assert len(order) == 3, "a dealt deal has three active seats"
    hands: dict[Seat, tuple[str, ...]] = {}
    sizes = dict(enumerate(deal.hand_sizes))
    looked = bool(deal.hand) or sizes.get(seat, 0) == 0
    if seat in order and looked:
        hands[seat] = deal.hand
    for s, cards in enumerate(deal.open_hands):
        if cards is not None:
            hands[s] = cards
    played, trick, turned, voids = _play_facts(events)
    table = {c for _, c in trick}
    known = set(played) | table | set(deal.discard or ())
    for cards in hands.values():
        known |= set(cards)
    raspasy = any(isinstance(e, PlayStarted) and e.kind == "raspasy" for e in events)
    if raspasy:
        known |= set(turned)
    unseen = tuple(c for c in DECK if c not in known)
    hidden: dict[Seat, int] = {
        s: sizes.get(s, 0) for s in order if s not in hands and sizes.get(s, 0) > 0
    }
    rest = len(unseen) - sum(hidden.values())
    if rest > 0:
        hidden[REST] = rest
    declarer = deal.declarer
    shown_taken = set() if raspasy or declarer is None or declarer in hands else set(deal.talon)
    allowed: dict[str, tuple[Seat, ...]] = {}
    for c in unseen:
        if c in shown_taken:
            locs = tuple(x for x in (declarer, REST) if x is not None and x in hidden)
        else:
            locs = tuple(x for x in hidden if SUIT_OF[c] not in voids.get(x, frozenset()))
        allowed[c] = locs
    return Knowledge(
        seat=seat, rules=rules, deal=deal, events=events, order=order, hands=hands,
        hidden=hidden, unseen=unseen, allowed=allowed, voids=voids, played=played,
        played_by=_played_by(events), trick=trick,
        tricks={s: t for s, t in enumerate(deal.tricks) if t is not None},
        turned=turned, turn=_hand_on_turn(view, hands),
    )  # fmt: skip


def _played_by(events: tuple[DealEvent, ...]) -> dict[Seat, tuple[str, ...]]:
    out: dict[Seat, list[str]] = {}
    for e in events:
        if isinstance(e, CardPlayed):
            out.setdefault(e.seat, []).append(e.card)
    return {s: tuple(c) for s, c in out.items()}


def _hand_on_turn(view: BotView, hands: Mapping[Seat, tuple[str, ...]]) -> Seat | None:
    cards = [a.card for a in view.legal if isinstance(a, PlayCard)]
    if not cards:
        return None
    for s, hand in hands.items():
        if cards[0] in hand:
            return s
    return None


def _play_facts(
    events: tuple[DealEvent, ...],
) -> tuple[
    tuple[str, ...], tuple[tuple[Seat, str], ...], tuple[str, ...], dict[Seat, frozenset[str]]
]:
    """(cards of finished tricks, the trick on the table, turned talon cards, voids)."""
    played: list[str] = []
    trick: list[tuple[Seat, str]] = []
    turned: list[str] = []
    voids: dict[Seat, set[str]] = {}
    trump: str | None = None
    talon_suit: str | None = None
    for e in events:
        if isinstance(e, PlayStarted):
            trump = e.trump
        elif isinstance(e, TalonCardTurned):
            turned.append(e.card)
            talon_suit = SUIT_OF[e.card]
        elif isinstance(e, CardPlayed):
            led = (
                talon_suit if talon_suit is not None else (SUIT_OF[trick[0][1]] if trick else None)
            )
            suit = SUIT_OF[e.card]
            if led is not None and suit != led:
                voids.setdefault(e.seat, set()).add(led)
                if trump is not None and suit != trump:
                    voids[e.seat].add(trump)
            trick.append((e.seat, e.card))
        elif isinstance(e, TrickWon):
            played += [c for _, c in trick]
            trick = []
            talon_suit = None
    return (
        tuple(played),
        tuple(trick),
        tuple(turned),
        {s: frozenset(v) for s, v in voids.items()},
    )
