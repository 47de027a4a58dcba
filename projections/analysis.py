"""Double-dummy analysis of a finished deal: par at every step of play, what each card cost
against it, and the decisive mistakes.

`analyse` folds the deal's full (unredacted) events, and before every card played asks the
solver (`domain.solver`) for the par of the position: the tricks the declarer takes from there
with perfect play by all, counting those he has already taken. The card's cost is how many
tricks it gave away against that par, for the side that played it (0 for a best card). In an
all-pass (распасы) every player is on his own, so each seat is judged against a coalition of the
other two (paranoid par, docs/bots.md §4.2, §8): a card's cost is the tricks it adds to its own
player's worst case.

A mistake is a card with a cost. It is decisive when it changed the deal's verdict: a
contract's par crossed its level (made ↔ down), a misère's par left or reached zero, an all-pass
player's worst case went from no trick to some (the zero-trick bonus lost), or a cost of two
tricks or more.

Pure and fast: one solver per judged seat is kept along the deal, so later positions reuse the
table of earlier ones (a deal typically takes well under a second).
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from domain.cards import MISER, Seat, level_of
from domain.deal.decider import initial_state
from domain.deal.evolve import evolve
from domain.deal.messages import CardPlayed, DealEnded, DealEvent, DealStarted
from domain.deal.state import DealState, Playing
from domain.outcome import DealKind
from domain.rules import Rules
from domain.solver import Position, Solver, card_value, from_playing, solve, solver_for
from domain.solver.solve import fits
from projections.analysis_text import mistake_sentence, summary_sentences
from projections.decisions import DecisionAnalysis


class CardAnalysis(msgspec.Struct, frozen=True, kw_only=True):
    """One card of the play, judged double-dummy."""

    step: int
    """0 for the opening lead … 29 for the last card."""
    trick: int
    """1 … 10."""
    seat: Seat
    """The hand the card came from."""
    by: Seat
    """The seat that chose it: the hand's own player, or the one who plays it for him (a
    whister playing his partner's open hand)."""
    card: str
    judged: Seat
    """The seat whose tricks par counts: the declarer, or (all-pass) the player himself."""
    par: int
    """``judged``'s total tricks with perfect play from before this card."""
    after: int
    """``judged``'s total with perfect play once this card is down."""
    cost: int
    """Tricks the card gave away for the side that played it (0: a best card)."""
    best: tuple[str, ...]
    """The cards that kept par."""


class Mistake(msgspec.Struct, frozen=True, kw_only=True):
    step: int
    trick: int
    seat: Seat
    card: str
    cost: int
    decisive: bool
    explanation: str


class DealAnalysis(msgspec.Struct, frozen=True, kw_only=True):
    """The double-dummy story of one deal's play."""

    kind: DealKind | None
    """None when the deal ended without play."""
    declarer: Seat | None = None
    contract: str | None = None
    opening_par: tuple[int | None, ...] = ()
    """Par at the opening lead: the declarer's tricks (contract, misère), or each all-pass
    player's worst case; by seat, None for a seat not judged."""
    result: tuple[int | None, ...] = ()
    """Tricks actually taken, per seat (None: the seat had no hand)."""
    cards: tuple[CardAnalysis, ...] = ()
    mistakes: tuple[Mistake, ...] = ()
    """Every card with a cost, the decisive ones first, then by cost and order of play."""
    summary: tuple[str, ...] = ()
    """A few sentences: par, the result, the decisive mistakes and the decisions' verdicts, in
    the language the replay was asked in (`projections.analysis_text`)."""
    decisions: tuple[DecisionAnalysis, ...] = ()
    """Each decision of the deal (the auction, the discard, the contract, the whisting, open
    or closed play, an accepted claim) judged over the layouts its seat could not tell apart
    (`projections.decisions`), in the order they were made."""


def analyse(events: Iterable[object], rules: Rules) -> DealAnalysis:
    """The analysis of the deal whose events are ``events`` (from its ``DealStarted`` to its
    ``DealEnded``; events of the game around it are skipped). Raises ValueError if the deal is
    not finished."""
    deal_events = [e for e in events if isinstance(e, _DEAL_EVENTS)]
    if not deal_events or not isinstance(deal_events[0], DealStarted):
        raise ValueError("the events must start with the deal's DealStarted")
    if not isinstance(deal_events[-1], DealEnded):
        raise ValueError("the deal is not finished: analysis runs only after its end")
    cards, opening, _ = judge_line(deal_events, rules)
    outcome = deal_events[-1].outcome
    seats = len(deal_events[0].hands)
    if not cards:
        return DealAnalysis(kind=None, declarer=outcome.declarer, contract=outcome.contract,
                            result=_by_seat(dict(outcome.taken()), seats))  # fmt: skip
    mistakes = _mistakes(cards, outcome.kind, outcome.contract)
    result = dict(outcome.taken())
    found = DealAnalysis(
        kind=outcome.kind, declarer=outcome.declarer, contract=outcome.contract,
        opening_par=_by_seat(opening, seats), result=_by_seat(result, seats),
        cards=tuple(cards), mistakes=mistakes,
    )  # fmt: skip
    return msgspec.structs.replace(found, summary=summary_sentences(found, "en"))


_DEAL_EVENTS = DealEvent.__args__


def judge_line(
    events: Iterable[object], rules: Rules
) -> tuple[list[CardAnalysis], dict[Seat, int], DealState]:
    """Every card of a deal's line judged double-dummy, finished or not (a study's line is
    judged as it is played): the cards, the par at the opening lead (empty before it) and the
    state after the events."""
    state: DealState = initial_state(rules)
    solvers: dict[Seat, Solver] = {}
    guesses: dict[Seat, int] = {}
    cards: list[CardAnalysis] = []
    opening: dict[Seat, int] = {}
    step = 0
    for e in events:
        if not isinstance(e, _DEAL_EVENTS):
            continue
        if isinstance(e, CardPlayed) and isinstance(state, Playing):
            if step == 0:
                opening = _opening(state, solvers)
            cards.append(_judge(state, e, step, solvers, guesses))
            step += 1
        state = evolve(state, e)
    return cards, opening, state


def _by_seat(values: dict[Seat, int], seats: int) -> tuple[int | None, ...]:
    """A per-seat map as a list indexed by seat (JSON clients index seats by integers)."""
    return tuple(values.get(seat) for seat in range(seats))


def _solver(solvers: dict[Seat, Solver], pos: Position, judged: Seat) -> Solver:
    """The solver kept for ``judged`` along the deal (a new one if the kind changed)."""
    s = solvers.get(judged)
    if s is None or not fits(s, pos):
        s = solver_for(pos)
        solvers[judged] = s
    return s


def _opening(state: Playing, solvers: dict[Seat, Solver]) -> dict[Seat, int]:
    seats = state.order if state.kind == "raspasy" else (state.declarer,)
    out: dict[Seat, int] = {}
    for seat in seats:
        assert seat is not None
        pos = from_playing(state, focus=seat)
        out[seat] = solve(pos, solver=_solver(solvers, pos, seat), values=False).focus_tricks
    return out


def _judge(
    state: Playing, e: CardPlayed, step: int, solvers: dict[Seat, Solver], guesses: dict[Seat, int]
) -> CardAnalysis:
    judged = e.seat if state.kind == "raspasy" else state.declarer
    assert judged is not None
    pos = from_playing(state, focus=judged)
    solver = _solver(solvers, pos, judged)
    par = solve(pos, solver=solver, values=False, guess=guesses.get(judged)).focus_tricks
    value = card_value(pos, e.card, par=par, solver=solver)
    guesses[judged] = value
    best: tuple[str, ...] = (e.card,)
    if value != par:  # a mistake: which cards would have kept par
        best = solve(pos, solver=solver, guess=par).best()
    maximising = (pos.turn == judged) == (pos.mode == "contract")
    done = state.tricks[judged]
    by = state.controllers[e.seat] if state.controllers else e.seat
    return CardAnalysis(
        step=step, trick=state.tricks_played + 1, seat=e.seat, by=e.seat if by < 0 else by,
        card=e.card, judged=judged,
        par=done + par, after=done + value, cost=par - value if maximising else value - par,
        best=best,
    )  # fmt: skip


def decisive(par: int, after: int, kind: DealKind | None, contract: str | None) -> bool:
    """Whether a card that moved ``judged``'s total from ``par`` to ``after`` changed the
    deal's verdict: a contract made ↔ down, a misère caught ↔ escaped, an all-pass player's
    zero-trick bonus lost, or two tricks and more."""
    if kind == "raspasy":
        return (par == 0 and after > 0) or abs(after - par) >= 2
    if kind == "miser" or contract == MISER:
        return (par == 0) != (after == 0)
    level = level_of(contract) if contract else 0
    return (par >= level) != (after >= level)


def _mistakes(
    cards: list[CardAnalysis], kind: DealKind, contract: str | None
) -> tuple[Mistake, ...]:
    out: list[Mistake] = []
    for c in cards:
        if c.cost <= 0:
            continue
        changed = decisive(c.par, c.after, kind, contract)
        text = mistake_sentence(c, changed, kind, contract, "en")
        out.append(Mistake(step=c.step, trick=c.trick, seat=c.seat, card=c.card, cost=c.cost,
                           decisive=changed, explanation=text))  # fmt: skip
    out.sort(key=lambda m: (not m.decisive, -m.cost, m.step))
    return tuple(out)
