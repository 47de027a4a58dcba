"""The ``basic`` level: rules of thumb for every decision, in well under a millisecond or two.

- Bidding: the best strain's expected tricks (`bots.evaluate`), plus what the talon and the
  lead add, set the highest bid; misère when the hand has at most one dangerous card.
- Discard: the pair that keeps the most tricks (misère: the least danger).
- Contract: the highest level the hand expects to make in its best strain, at least the bid;
  concede when it expects to go down by more than the concession costs.
- Whist: whist with half the obligation in expected tricks, half-whist a little below, play
  open.
- Card play: cash winners and draw trumps as declarer, second hand low, win cheaply, duck with
  the highest card that ducks in misère and all-pass.
"""

from __future__ import annotations

import math
import random

from bots.budget import Budget
from bots.common import (
    OBLIGATION,
    contract_ceiling,
    default_action,
    find_discard,
    find_whist,
    light_bids,
    of_type,
    within,
)
from bots.evaluate import (
    best_strain,
    by_suit,
    declarer_tricks,
    defender_tricks,
    miser_danger,
    miser_discard,
    trick_discard,
)
from bots.knowledge import Knowledge, read
from bots.view import BotView
from domain.cards import BID_RANK, MISER, RANK_OF, SUIT_OF, SUITS, Seat, level_of, strain_of
from domain.deal.messages import (
    ChoosePlay,
    Concede,
    Declare,
    DeclareTotus,
    Discard,
    LookAtCards,
    PlayCard,
    SeatCommand,
    TakeTalon,
    TotusShown,
)

TALON_BONUS = 1.75
"""Tricks the talon and the lead are expected to add to the rule-of-thumb count: measured
against double-dummy play of random deals, a hand counted at 4 tricks takes about 6."""
MISER_DANGER = 1.0
"""The most misère danger a hand may have for the basic bot to bid misère."""


def decide(view: BotView, rng: random.Random, budget: Budget | float = 0.0) -> SeatCommand:
    """A legal action by rules of thumb."""
    legal = view.legal
    if len(legal) == 1:
        return legal[0]
    looks = of_type(legal, LookAtCards)
    if looks:
        return looks[0]
    plays = of_type(legal, PlayCard)
    if plays:
        return play(read(view), plays)
    phase = view.game.deal.phase
    k = read(view)
    if phase == "bidding":
        return bid(k, legal)
    if phase == "awaiting_talon":
        return next(iter(of_type(legal, TakeTalon)), default_action(legal))
    if phase == "discarding":
        return discard(k, legal)
    if phase == "totus_discarding":
        return totus_discard(k, legal)
    if phase == "declaring":
        return declare(k, legal)
    if phase == "whisting":
        return whist(k, legal)
    return default_action(legal)


# ---- the auction ---------------------------------------------------------------------------


def bid_ceiling(hand: tuple[str, ...], bonus: float = TALON_BONUS) -> str | None:
    """The highest trick bid the hand is worth with the talon to come; None below a six."""
    strain, tricks = best_strain(hand)
    level = math.floor(tricks + bonus)
    if level < 6:
        return None
    return contract_ceiling(level, strain)


def miser_ok(hand: tuple[str, ...]) -> bool:
    return miser_danger(hand) <= MISER_DANGER


def bid(k: Knowledge, legal: tuple[SeatCommand, ...]) -> SeatCommand:
    hand = k.hands.get(k.seat, ())
    bids = light_bids(legal)
    ceiling = bid_ceiling(hand)
    miser = next((b for b in bids if b.bid == MISER), None)
    if miser is not None and miser_ok(hand) and (ceiling is None or level_of(ceiling) < 9):
        return miser
    trick_bids = [b for b in bids if b.bid != MISER and within(b.bid, ceiling)]
    if trick_bids:
        return trick_bids[0]  # the cheapest step, the hold included
    take = of_type(legal, TakeTalon)
    if take and ceiling is not None:
        return take[0]
    return default_action(legal)


# ---- talon, discard, contract ---------------------------------------------------------------


def discard(k: Knowledge, legal: tuple[SeatCommand, ...]) -> SeatCommand:
    hand = k.hands.get(k.seat, ())
    if k.deal.bid == MISER:
        pair = miser_discard(hand)
    else:
        totus = of_type(legal, DeclareTotus)
        strain, _ = best_strain(hand)
        if totus and _sure_tricks(hand) >= 12:
            want = "NT" if strain is None else strain
            pick = next((t for t in totus if t.strain == want), totus[0])
            return pick
        pair = trick_discard(hand, strain)
    return find_discard(legal, pair) or default_action(legal)


def _sure_tricks(hand: tuple[str, ...]) -> int:
    """Cards on top of their suits (no card of the others above them)."""
    total = 0
    for ranks in by_suit(hand).values():
        for i, r in enumerate(ranks):
            if r != 7 - i:
                break
            total += 1
    return total


def totus_discard(k: Knowledge, legal: tuple[SeatCommand, ...]) -> SeatCommand:
    """The first opponent chooses the totus declarer's discard: the pair that hurts most."""
    declarer = k.deal.declarer
    hand = k.hands.get(declarer, ()) if declarer is not None else ()
    strain = None
    for e in k.events:
        if isinstance(e, TotusShown):
            strain = None if e.strain == "NT" else e.strain
    best: tuple[float, SeatCommand] | None = None
    for a in of_type(legal, Discard):
        rest = tuple(c for c in hand if c not in a.cards)
        score = declarer_tricks(rest, strain)
        if best is None or score < best[0]:
            best = (score, a)
    return best[1] if best is not None else default_action(legal)


def declare(k: Knowledge, legal: tuple[SeatCommand, ...]) -> SeatCommand:
    hand = k.hands.get(k.seat, ())
    declares = of_type(legal, Declare)
    miser = next((d for d in declares if d.contract == MISER), None)
    if miser is not None and miser_danger(hand) <= 0.5:
        return miser
    options = [d for d in declares if d.contract != MISER]
    if not options:
        return default_action(legal)
    strain, tricks = best_strain(hand)
    made = math.floor(tricks)
    best = max(options, key=lambda d: _declare_score(d.contract, hand, strain, made))
    concede = of_type(legal, Concede)
    if concede:
        s = strain_of(best.contract)
        exp = declarer_tricks(hand, None if s == "NT" else s)
        down = level_of(best.contract) - exp
        allowed = 2 if k.rules.play.concede == "down2" else 3
        if down > allowed + 0.5:
            return concede[0]
    return best


def _declare_score(contract: str, hand: tuple[str, ...], strain: str | None, made: int) -> float:
    s = strain_of(contract)
    trump = None if s == "NT" else s
    exp = declarer_tricks(hand, trump)
    level = level_of(contract)
    price = 2 * (level - 5)
    if exp + 0.25 >= level:
        return price + (0.5 if trump == strain else 0.0)
    return -price * (level - exp) - BID_RANK[contract] * 0.001


# ---- whisting -------------------------------------------------------------------------------


def whist(k: Knowledge, legal: tuple[SeatCommand, ...]) -> SeatCommand:
    plays = of_type(legal, ChoosePlay)
    if plays:
        return next((p for p in plays if p.open), plays[0])
    contract = k.deal.contract or ""
    if contract == MISER or not contract:
        return default_action(legal)
    s = strain_of(contract)
    trump = None if s == "NT" else s
    mine = defender_tricks(k.hands.get(k.seat, ()), trump)
    level = level_of(contract)
    need = OBLIGATION.get(level, 1) / 2
    calls = [c.call for c in k.deal.whist_calls]
    returning = len(calls) >= 2  # after pass–half-whist, the first opponent may return
    if returning:
        need += 0.5
    choice = None
    if mine >= need and find_whist(legal, "whist") is not None:
        choice = "whist"
    elif mine >= need - 0.75 and find_whist(legal, "half_whist") is not None:
        choice = "half_whist"
    pick = find_whist(legal, choice) if choice is not None else None  # type: ignore[arg-type]
    return pick or find_whist(legal, "pass") or default_action(legal)


# ---- card play ------------------------------------------------------------------------------


def kind_of(k: Knowledge) -> str:
    """``game``, ``miser`` or ``raspasy``."""
    if k.deal.contract == MISER:
        return "miser"
    if k.deal.contract is None:
        return "raspasy"
    return "game"


def play(k: Knowledge, plays: list[PlayCard]) -> SeatCommand:
    cards = [p.card for p in plays]
    if len(cards) == 1:
        return plays[0]
    card = choose_card(k, cards)
    return next(p for p in plays if p.card == card)


def _outstanding(k: Knowledge, me: Seat) -> set[str]:
    """Cards still to be played by the other hands (seen or not)."""
    out = set(k.unseen)
    for s, cards in k.hands.items():
        if s != me:
            out |= set(cards)
    return out - {c for _, c in k.trick}


def _winning(
    trick: tuple[tuple[Seat, str], ...], trump: str | None, led: str | None
) -> tuple[Seat, str] | None:
    best: tuple[Seat, str] | None = None
    for seat, card in trick:
        if best is None:
            if SUIT_OF[card] == led or SUIT_OF[card] == trump:
                best = (seat, card)
            continue
        if _beats(card, best[1], trump):
            best = (seat, card)
    return best


def _beats(card: str, other: str, trump: str | None) -> bool:
    s, o = SUIT_OF[card], SUIT_OF[other]
    if s == o:
        return RANK_OF[card] > RANK_OF[other]
    return s == trump


def choose_card(k: Knowledge, cards: list[str]) -> str:
    me = k.turn if k.turn is not None else k.seat
    kind = kind_of(k)
    trump = k.deal.trump
    low = sorted(cards, key=lambda c: RANK_OF[c])
    high = low[::-1]
    outstanding = _outstanding(k, me)
    trick = k.trick
    led = (
        SUIT_OF[k.deal.talon_card]
        if k.deal.talon_card
        else (SUIT_OF[trick[0][1]] if trick else None)
    )
    last = len(trick) == 2
    if kind == "game":
        declarer = k.deal.declarer
        mine_side = me == declarer

        def ours(seat: Seat) -> bool:
            return (seat == declarer) == mine_side

        if not trick:
            return _lead_contract(cards, outstanding, trump, mine_side, k)
        win = _winning(trick, trump, led)
        if win is not None and ours(win[0]):
            return _cheapest_discard(low, trump)
        beaters = [c for c in low if win is None or _beats(c, win[1], trump)]
        if not beaters:
            return _cheapest_discard(low, trump)
        if last:
            return beaters[0]
        # second hand: a sure winner if one is cheap, else low
        sure = [
            c
            for c in beaters
            if not any(SUIT_OF[o] == SUIT_OF[c] and RANK_OF[o] > RANK_OF[c] for o in outstanding)
        ]
        return sure[0] if sure else _cheapest_discard(low, trump)
    # misère and all-pass: nobody wants the trick except the catchers for the declarer
    declarer = k.deal.declarer
    catching = kind == "miser" and me != declarer
    if not trick:
        if catching:
            return _lead_catching(k, low)
        return min(low, key=lambda c: (-_higher_out(c, outstanding), RANK_OF[c]))
    win = _winning(trick, None, led)
    if catching:
        declarer_played = any(s == declarer for s, _ in trick)
        if declarer_played and win is not None and win[0] == declarer:
            ducks = [c for c in high if not _beats(c, win[1], None)]
            return ducks[0] if ducks else high[0]
        return low[0]
    ducks = [c for c in high if win is None or not _beats(c, win[1], None)]
    if ducks:
        return ducks[0]
    return high[0] if last else low[0]


def _higher_out(card: str, outstanding: set[str]) -> int:
    return sum(1 for o in outstanding if SUIT_OF[o] == SUIT_OF[card] and RANK_OF[o] > RANK_OF[card])


def _cheapest_discard(low: list[str], trump: str | None) -> str:
    """The lowest card, from a suit other than trumps when there is a choice."""
    side = [c for c in low if SUIT_OF[c] != trump]
    return (side or low)[0]


def _lead_contract(
    cards: list[str], outstanding: set[str], trump: str | None, declarer: bool, k: Knowledge
) -> str:
    def top(c: str) -> bool:
        return not any(SUIT_OF[o] == SUIT_OF[c] and RANK_OF[o] > RANK_OF[c] for o in outstanding)

    if declarer and trump is not None:
        trumps_out = any(SUIT_OF[o] == trump for o in outstanding)
        my_trumps = sorted((c for c in cards if SUIT_OF[c] == trump), key=lambda c: -RANK_OF[c])
        if trumps_out and my_trumps and top(my_trumps[0]):
            return my_trumps[0]
    winners = [c for c in cards if top(c) and SUIT_OF[c] != trump]
    if winners:
        return max(winners, key=lambda c: RANK_OF[c])
    suits = by_suit(cards)
    side = [s for s in SUITS if suits[s] and s != trump] or [s for s in SUITS if suits[s]]
    longest = max(side, key=lambda s: len(suits[s]))
    return min((c for c in cards if SUIT_OF[c] == longest), key=lambda c: RANK_OF[c])


def _lead_catching(k: Knowledge, low: list[str]) -> str:
    """A catcher leads under the declarer's cards in a suit where the declarer must go over."""
    declarer = k.deal.declarer
    dhand = k.hands.get(declarer, ()) if declarer is not None else ()
    if dhand:
        dsuits = by_suit(dhand)
        for c in low:
            d = dsuits[SUIT_OF[c]]
            if d and min(d) > RANK_OF[c]:
                return c
    return low[0]
