"""A brute-force minimax over every card, the yardstick for the solver's tests and benchmarks.

It shares nothing with `domain.solver.search` but the `Position`: cards are strings, tricks are
won by `domain.deal.play_rules.trick_winner`, nothing is pruned, no card is skipped as
equivalent. Only exact repetitions are remembered (the same cards left, the same leader), which
changes no value. Fine for endings of up to five tricks; hopeless for a whole deal.
"""

from __future__ import annotations

import random

from domain.cards import DECK, SUIT_OF, SUITS, Seat
from domain.deal.play_rules import trick_winner
from domain.solver.bits import cards_of
from domain.solver.position import Mode, Position, position


def brute_force(pos: Position) -> tuple[int, dict[str, int]]:
    """The par of ``pos`` and the value of every legal card of the hand to play (focus tricks
    from here), by exhaustive minimax."""
    trump = None if pos.trump is None else SUITS[pos.trump]
    focus = pos.focus
    contract = pos.mode == "contract"
    order = pos.order
    nxt = {s: order[(i + 1) % 3] for i, s in enumerate(order)}
    maximising = {s: (s == focus) == contract for s in order}
    talon = [
        None if k >= len(pos.talon_leads) else "7" + SUITS[pos.talon_leads[k]] for k in range(10)
    ]
    memo: dict[tuple[object, ...], int] = {}

    def legal(hand: tuple[str, ...], trick: tuple[tuple[Seat, str], ...], k: int) -> list[str]:
        t = talon[k]
        suit = SUIT_OF[t] if t is not None else (SUIT_OF[trick[0][1]] if trick else None)
        if suit is None:
            return list(hand)
        follow = [c for c in hand if SUIT_OF[c] == suit]
        if follow:
            return follow
        trumps = [c for c in hand if trump is not None and SUIT_OF[c] == trump]
        return trumps or list(hand)

    def value(
        hands: tuple[tuple[str, ...], ...], trick: tuple[tuple[Seat, str], ...], turn: Seat, k: int
    ) -> int:
        """Focus tricks from here; ``hands`` by position in ``order``."""
        if len(trick) == 3:
            w = trick_winner(trick, trump, talon[k])
            won = 1 if w == focus else 0
            if not hands[0]:
                return won
            leader = order[0] if k + 1 < pos.forehand_leads_until else w
            return won + value(hands, (), leader, k + 1)
        key = (hands, trick, turn, k)
        got = memo.get(key)
        if got is not None:
            return got
        i = order.index(turn)
        results = []
        for card in legal(hands[i], trick, k):
            rest = (*hands[:i], tuple(c for c in hands[i] if c != card), *hands[i + 1 :])
            results.append(value(rest, (*trick, (turn, card)), nxt[turn], k))
        v = max(results) if maximising[turn] else min(results)
        memo[key] = v
        return v

    hands = tuple(cards_of(pos.hands[s]) for s in order)
    trick = tuple((s, cards_of(1 << c)[0]) for s, c in pos.trick)
    values: dict[str, int] = {}
    i = order.index(pos.turn)
    for card in legal(hands[i], trick, pos.tricks_played):
        rest = (*hands[:i], tuple(c for c in hands[i] if c != card), *hands[i + 1 :])
        values[card] = value(rest, (*trick, (pos.turn, card)), nxt[pos.turn], pos.tricks_played)
    best = max(values.values()) if maximising[pos.turn] else min(values.values())
    return best, values


def random_ending(
    rng: random.Random, tricks: int, *, mode: Mode | None = None, seats: int | None = None
) -> Position:
    """A random position with ``tricks`` tricks left: random hands, trump, mode and focus, at
    three or four seats, sometimes with a trick partly played and, in all-pass, sometimes early
    enough for the talon to set the suit and the first hand to lead."""
    seats = seats if seats is not None else rng.choice((3, 3, 4))
    dealer = rng.randrange(seats)
    order = tuple((dealer + i) % seats for i in (1, 2, 3))
    assert len(order) == 3
    modes: tuple[Mode, ...] = ("contract", "contract", "misere", "paranoid")
    mode_: Mode = mode if mode is not None else rng.choice(modes)
    deck = list(DECK)
    rng.shuffle(deck)
    talon: tuple[str, ...] = ()
    k = 10 - tricks
    if mode_ == "paranoid" and rng.random() < 0.5:
        k = rng.randrange(0, min(3, 10 - tricks + 1))
        talon = (deck.pop(), deck.pop())
    elif rng.random() < 0.3:
        k = rng.randrange(0, 10 - tricks + 1)
    hands = {s: sorted(deck[i * tricks : (i + 1) * tricks]) for i, s in enumerate(order)}
    trump = rng.choice((*SUITS, None)) if mode_ == "contract" else None
    focus = rng.choice(order)
    leader = order[0] if talon and k < 3 else rng.choice(order)
    trick: list[tuple[Seat, str]] = []
    turn = leader
    talon_suit = SUIT_OF[talon[k]] if k < len(talon) else None
    for _ in range(rng.randrange(3)):
        hand = hands[turn]
        suit = talon_suit if talon_suit is not None else (SUIT_OF[trick[0][1]] if trick else None)
        ok = [c for c in hand if SUIT_OF[c] == suit] if suit is not None else []
        if not ok and trump is not None and suit is not None:
            ok = [c for c in hand if SUIT_OF[c] == trump]
        card = rng.choice(ok or hand)
        hand.remove(card)
        trick.append((turn, card))
        turn = order[(order.index(turn) + 1) % 3]
    return position(
        hands, order=order, turn=turn, focus=focus, mode=mode_, trump=trump, trick=trick,
        tricks_played=k, talon=talon, seats=seats,
    )  # fmt: skip
