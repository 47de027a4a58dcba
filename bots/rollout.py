"""Fast play-outs of an all-pass (распасы) with every hand known, for the strong bot.

All-pass is not a two-sided game (each player minimises his own tricks), so a double-dummy
value is only a worst case (the other two against one). A play-out instead lets every hand
follow the all-pass rules of thumb (duck under the card winning the trick with the highest card
that ducks, win with the highest when forced, lead low, throw the highest card when void) and
counts the tricks: a cheap estimate of what a card leads to against opponents who play for
themselves. Cards are one bit each, as in `domain.solver.bits`.
"""

from __future__ import annotations

from domain.solver.bits import SUIT_MASK


def _high(x: int) -> int:
    return 1 << (x.bit_length() - 1)


def _choose(hand: int, led: int, winning: int, last: bool) -> int:
    """The rule-of-thumb card of ``hand`` for a trick in suit ``led`` (-1: a lead) with
    ``winning`` the card taking it so far (0: none of the led suit yet)."""
    if led < 0:
        # lead the lowest card of the suit in which it is lowest relative to its own rank
        best = 0
        for sm in SUIT_MASK:
            s = hand & sm
            if s:
                low = s & -s
                if not best or (low.bit_length() - 1) % 8 < (best.bit_length() - 1) % 8:
                    best = low
        return best
    follow = hand & SUIT_MASK[led]
    if not follow:
        # void: throw the highest card, judged by rank within its suit
        best = 0
        for sm in SUIT_MASK:
            s = hand & sm
            if s:
                top = _high(s)
                if not best or (top.bit_length() - 1) % 8 > (best.bit_length() - 1) % 8:
                    best = top
        return best
    if winning:
        below = follow & (winning - 1)
        if below:
            return _high(below)  # the highest card that ducks
    return _high(follow) if last else follow & -follow


def play_out(
    hands: list[int],
    leader: int,
    trick: list[tuple[int, int]],
    k: int,
    talon_leads: tuple[int, ...],
    forced_until: int,
) -> list[int]:
    """Tricks each slot takes from here when every hand plays by the rules of thumb.

    ``hands`` (three masks by slot, consumed), ``trick`` the (slot, card) already on the table
    with ``leader`` its first player, ``k`` the index of the trick in play.
    """
    taken = [0, 0, 0]
    trick = list(trick)
    while True:
        n_left = hands[0] | hands[1] | hands[2]
        if len(trick) == 3:
            led = talon_leads[k] if k < len(talon_leads) else (trick[0][1].bit_length() - 1) >> 3
            follows = [(s, c) for s, c in trick if c & SUIT_MASK[led]]
            w = max(follows, key=lambda sc: sc[1])[0] if follows else trick[0][0]
            taken[w] += 1
            k += 1
            leader = 0 if k < forced_until else w
            trick = []
            if not n_left:
                return taken
        slot = (trick[-1][0] + 1) % 3 if trick else leader
        led = (
            talon_leads[k]
            if k < len(talon_leads)
            else ((trick[0][1].bit_length() - 1) >> 3 if trick else -1)
        )
        winning = 0
        if led >= 0:
            for _, c in trick:
                if c & SUIT_MASK[led] and c > winning:
                    winning = c
        card = _choose(hands[slot], led, winning, len(trick) == 2)
        hands[slot] ^= card
        trick.append((slot, card))
