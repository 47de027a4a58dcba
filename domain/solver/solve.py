"""Solving a position: the par (tricks the focus seat takes from here with perfect play by all)
and the value of every legal card of the hand to play.

`solve` is the entry point; pass a `Solver` from `solver_for` to share its transposition table
between positions of the same kind (the steps of one deal, the samples of one decision).
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from domain.cards import DECK, Seat
from domain.solver.bits import CARD_INDEX, REPS, SUIT_MASK, legal_mask
from domain.solver.position import Mode, Position
from domain.solver.search import SearchAborted, Solver


class Solution(msgspec.Struct, frozen=True, kw_only=True):
    """The double-dummy value of a position.

    ``focus_tricks`` is counted for the focus seat (the declarer, or the all-pass seat); the
    other side takes the rest of ``tricks_left``. ``values`` maps every legal card of the hand to
    play to the focus tricks from here after that card, with perfect play afterwards.
    """

    focus: Seat
    mode: Mode
    turn: Seat
    tricks_left: int
    focus_tricks: int
    values: dict[str, int] = {}

    @property
    def other_tricks(self) -> int:
        """Tricks the other side (the defenders, or the all-pass coalition) takes from here."""
        return self.tricks_left - self.focus_tricks

    @property
    def maximising(self) -> bool:
        """Whether the hand to play wants the focus to take tricks (a contract's declarer, a
        misère's catchers, the all-pass coalition)."""
        return (self.turn == self.focus) == (self.mode == "contract")

    def cost(self, card: str) -> int:
        """Tricks ``card`` gives away against par, for the side that plays it (0: a best card)."""
        v = self.values[card]
        return self.focus_tricks - v if self.maximising else v - self.focus_tricks

    def best(self) -> tuple[str, ...]:
        """The cards that keep par."""
        return tuple(c for c in self.values if self.values[c] == self.focus_tricks)


def solver_for(pos: Position) -> Solver:
    """A fresh solver for positions like ``pos`` (same trump, mode, focus and talon leads)."""
    return Solver(
        trump=pos.trump,
        mode=pos.mode,
        focus_slot=pos.order.index(pos.focus),
        talon_leads=pos.talon_leads,
        forehand_leads_until=pos.forehand_leads_until,
    )


def fits(solver: Solver, pos: Position) -> bool:
    """Whether ``solver``'s table is valid for ``pos``."""
    return (
        solver.trump == pos.trump
        and solver.mode == pos.mode
        and solver.focus_slot == pos.order.index(pos.focus)
        and solver.talon_leads == pos.talon_leads
        and solver.forehand_leads_until == pos.forehand_leads_until
    )


def solve(
    pos: Position,
    *,
    solver: Solver | None = None,
    values: bool = True,
    guess: int | None = None,
) -> Solution:
    """The par of ``pos`` and (with ``values``) the value of each legal card of the hand to play.

    ``guess`` (a likely par) saves a search step or two when it is right.
    """
    if solver is None:
        solver = solver_for(pos)
    elif not fits(solver, pos):
        raise ValueError("this solver was made for another trump, mode, focus or talon")
    root = _Root(solver, pos)
    n = pos.tricks_left
    par = _mtd(root.test, 0, n, n // 2 if guess is None else guess)
    out: dict[str, int] = {}
    if values:
        maximising = solver.is_max[root.turn_slot]
        for card_bits in root.groups():
            first = card_bits[0]

            def after(need: int, c: int = first) -> bool:
                return root.test_after(c, need)

            # a maximiser's card is worth at most par, a minimiser's at least par
            v = _mtd(after, 0, par, par) if maximising else _mtd(after, par, n, par)
            for c in card_bits:
                out[DECK[c.bit_length() - 1]] = v
    return Solution(
        focus=pos.focus, mode=pos.mode, turn=pos.turn, tricks_left=n, focus_tricks=par,
        values=dict(sorted(out.items(), key=lambda kv: DECK.index(kv[0]))),
    )  # fmt: skip


def card_value(pos: Position, card: str, *, par: int, solver: Solver | None = None) -> int:
    """The focus tricks from ``pos`` once the hand on turn plays ``card`` (legal), given the
    position's ``par``: cheaper than `solve` with every value when only one card matters."""
    if solver is None:
        solver = solver_for(pos)
    elif not fits(solver, pos):
        raise ValueError("this solver was made for another trump, mode, focus or talon")
    root = _Root(solver, pos)
    bit = 1 << CARD_INDEX[card]
    if not legal_mask(pos.hands[pos.turn], pos.led, pos.trump) & bit:
        raise ValueError(f"{card} may not be played by seat {pos.turn} now")

    def after(need: int) -> bool:
        return root.test_after(bit, need)

    if solver.is_max[root.turn_slot]:
        return _mtd(after, 0, par, par)
    return _mtd(after, par, pos.tricks_left, par)


def par(pos: Position, *, solver: Solver | None = None, guess: int | None = None) -> int:
    """The focus seat's tricks from ``pos`` with perfect play by all."""
    return solve(pos, solver=solver, values=False, guess=guess).focus_tricks


def _mtd(test: Callable[[int], bool], lo: int, hi: int, guess: int) -> int:
    """The largest ``v`` in ``[lo, hi]`` with ``test(v)``, given ``test(lo)``; zero-window steps
    from ``guess``."""
    while lo < hi:
        t = min(max(guess, lo + 1), hi)
        if test(t):
            lo = t
            guess = t + 1
        else:
            hi = t - 1
            guess = t - 1
    return lo


class _Root:
    """A position mapped onto the solver's slots, searched card by card until the trick on the
    table is complete and trick by trick after that."""

    def __init__(self, solver: Solver, pos: Position) -> None:
        self.solver = solver
        self.order = pos.order
        self.hands = [pos.hands[s] for s in pos.order]
        self.table = [(pos.order.index(s), 1 << c) for s, c in pos.trick]
        self.turn_slot = pos.order.index(pos.turn)
        self.n = pos.tricks_left
        self.k = pos.tricks_played
        self.led = pos.led
        self.trump = pos.trump

    def _present(self) -> int:
        p = self.hands[0] | self.hands[1] | self.hands[2]
        for _, c in self.table:
            p |= c
        return p

    def groups(self) -> list[list[int]]:
        """The legal cards of the hand to play, in runs of equivalent cards (lowest first)."""
        hand = self.hands[self.turn_slot]
        legal = legal_mask(hand, self.led, self.trump)
        present = self._present()
        out: list[list[int]] = []
        for s in range(4):
            sh = s << 3
            held = (legal >> sh) & 255
            if not held:
                continue
            pr = (present >> sh) & 255
            reps = REPS[pr << 8 | held]
            run: list[int] = []
            for r in range(8):
                bit = 1 << r
                if not pr & bit:
                    continue
                if held & bit:
                    if reps & bit and run:
                        out.append(run)
                        run = []
                    run.append(bit << sh)
                elif run:
                    out.append(run)
                    run = []
            if run:
                out.append(run)
        return out

    def test(self, need: int) -> bool:
        if self.solver.kernel is not None:
            return self._compiled(need)
        return self._node(need)

    def test_after(self, card: int, need: int) -> bool:
        slot = self.turn_slot
        self.hands[slot] ^= card
        self.table.append((slot, card))
        try:
            if self.solver.kernel is not None:
                return self._compiled(need)
            return self._node(need)
        finally:
            self.table.pop()
            self.hands[slot] ^= card

    def _compiled(self, need: int) -> bool:
        """`_node` in the compiled search: the cards on the table played out there too."""
        h = self.hands
        kernel = self.solver.kernel
        assert kernel is not None
        got = kernel.root(
            h[0], h[1], h[2], self.table, self.turn_slot, need,
            self.n, self.k, -1 if self.led is None else self.led,
        )  # fmt: skip
        if got is None:
            raise SearchAborted
        return bool(got)

    def _node(self, need: int) -> bool:
        solver = self.solver
        table = self.table
        if len(table) == 3:
            w = _winner(table, self.led if self.led is not None else -1, self.trump)
            won = 1 if w == solver.focus_slot else 0
            if self.n == 1:
                return won >= need
            nxt = 0 if self.k + 1 < solver.forehand_leads_until else w
            return self._trick(nxt, need - won, self.n - 1, self.k + 1)
        if not table:
            return self._trick(self.turn_slot, need, self.n, self.k)
        slot = (table[-1][0] + 1) % 3
        hand = self.hands[slot]
        led = self.led if self.led is not None else (table[0][1].bit_length() - 1) >> 3
        legal = legal_mask(hand, led, self.trump)
        present = self._present()
        reps = 0
        for s in range(4):
            sh = s << 3
            held = (legal >> sh) & 255
            if held:
                reps |= REPS[((present >> sh) & 255) << 8 | held] << sh
        maximising = solver.is_max[slot]
        result = not maximising
        while reps:
            c = reps & -reps
            reps ^= c
            self.hands[slot] = hand ^ c
            table.append((slot, c))
            r = self._node(need)
            table.pop()
            if r == maximising:
                result = r
                break
        self.hands[slot] = hand
        return result

    def _trick(self, leader: int, need: int, n: int, k: int) -> bool:
        solver = self.solver
        solver.hands[:] = self.hands
        return solver.test(leader, need, n, k)


def _winner(table: list[tuple[int, int]], talon_led: int, trump: int | None) -> int:
    """The slot taking a complete trick (``talon_led`` ≥ 0 on an all-pass talon trick)."""
    played = table[0][1] | table[1][1] | table[2][1]
    led = talon_led if talon_led >= 0 else (table[0][1].bit_length() - 1) >> 3
    top = played & SUIT_MASK[trump] if trump is not None else 0
    if not top:
        top = played & SUIT_MASK[led]
    if not top:
        return table[0][0]
    hb = 1 << (top.bit_length() - 1)
    return next(s for s, c in table if c == hb)
