"""Puzzles mined from finished deals: positions where exactly one card keeps par.

`mine_game` walks every finished deal of a finished game and, before every card played, asks
the solver (`domain.solver`) for the value of each legal card of the hand to play. The position
is a puzzle when

- the hand has two legal cards or more, and exactly one of them keeps par (a card equivalent
  to another, such as a king beside its queen, always shares its value: such a pair is never
  one card that alone keeps par);
- every other legal card is a decisive mistake by the analysis' own measure
  (`projections.analysis.decisive`): it turns a contract made into one down or back, a misère
  escaped into one caught or back, loses an all-pass player's zero-trick bonus, or costs two
  tricks or more.

The theme says whose decision it is: ``declarer`` (the declarer's line in a contract),
``defence`` (a whister's card against it), ``misere_escape`` (the misère player's own card),
``misere_catch`` (a catcher's card against a misère) or ``all_pass_escape`` (an all-pass
player's card, judged against the coalition of the other two, docs/bots.md §4.2).

Every puzzle is double-dummy: the answer keeps par with every card known. So a puzzle shows
what its solver (the seat that chose the card: the hand's own player, or the whister playing
his partner's open hand) knew at that moment, through the domain's own door
(`domain.deal.view.seat_view`), and beside it the full layout: every hand's cards, the talon and
the discard. It reveals every card of the deal: the caller mines only games that are over, and
serves them only once their information is public (docs/puzzles-and-studies.md).

Pure and fast: one solver per judged seat along each deal, as the analysis keeps.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import msgspec

from domain.cards import Seat
from domain.deal.decider import initial_state
from domain.deal.evolve import evolve
from domain.deal.messages import CardPlayed, DealEnded, DealEvent, DealStarted
from domain.deal.state import DealState, Playing
from domain.deal.view import SeatView, seat_view
from domain.game import Event, GameEnded
from domain.outcome import DealKind
from domain.rules import Rules
from domain.solver import Solver, from_playing, solve, solver_for
from domain.solver.solve import fits
from projections.analysis import decisive
from projections.replay import DealNotFound, deal_log

Theme = Literal["declarer", "defence", "misere_escape", "misere_catch", "all_pass_escape"]


class GameStillInPlay(ValueError):
    """Puzzles are mined from finished games only: a game still in play hides its cards."""


class CardValue(msgspec.Struct, frozen=True, kw_only=True):
    """A legal card of the puzzle and the judged seat's total tricks after it, with perfect
    play by all from then on."""

    card: str
    total: int
    cost: int
    """Tricks it gives away against par for the side that plays it (0: the answer)."""


class PuzzlePosition(msgspec.Struct, frozen=True, kw_only=True):
    """What a puzzle shows before it is attempted: the position, not its answer."""

    deal_no: int
    step: int
    """The deal's events before the card to find (a replay's step: the card is step + 1)."""
    trick: int
    """1 … 10."""
    theme: Theme
    kind: DealKind
    contract: str | None
    declarer: Seat | None
    seat: Seat
    """The hand to play."""
    solver: Seat
    """The seat that chooses the card: the hand's player, or the whister playing it."""
    judged: Seat
    """The seat whose tricks par counts: the declarer, or (all-pass) the player himself."""
    par: int
    """``judged``'s total tricks with the one right card and perfect play after it."""
    seen: SeatView
    """What the solver knew: his own hand, the hands lying open, the trick, the auction."""
    hands: tuple[tuple[str, ...] | None, ...]
    """The full layout (double-dummy): every hand's cards by seat, None for a seat out."""
    talon: tuple[str, ...]
    """The talon's cards, face up or down."""
    discard: tuple[str, ...] | None
    """The declarer's discard (снос), when there was one."""
    legal: tuple[str, ...]
    """The cards the hand may play: one of them is the answer."""


class PuzzleSolution(msgspec.Struct, frozen=True, kw_only=True):
    """What an attempt reveals."""

    answer: str
    values: tuple[CardValue, ...]
    played: str
    """The card played at the table."""


class Puzzle(msgspec.Struct, frozen=True, kw_only=True):
    position: PuzzlePosition
    solution: PuzzleSolution


def mine_game(events: Sequence[Event]) -> tuple[Puzzle, ...]:
    """The puzzles of every finished deal of a finished game (`GameStillInPlay` otherwise)."""
    if not any(isinstance(e, GameEnded) for e in events):
        raise GameStillInPlay("puzzles are mined once the game is over")
    found: list[Puzzle] = []
    deal_no = 1
    while True:
        try:
            log = deal_log(events, deal_no)
        except DealNotFound:
            break
        if log.finished:
            found += mine_deal(log.events, log.rules, deal_no)
        deal_no += 1
    return tuple(found)


def mine_deal(events: Sequence[DealEvent], rules: Rules, deal_no: int) -> list[Puzzle]:
    """The puzzles of one finished deal (its events from `DealStarted` to `DealEnded`)."""
    if not events or not isinstance(events[0], DealStarted):
        raise ValueError("the events must start with the deal's DealStarted")
    if not isinstance(events[-1], DealEnded):
        raise ValueError("the deal is not finished: puzzles come from finished deals")
    state: DealState = initial_state(rules)
    solvers: dict[Seat, Solver] = {}
    found: list[Puzzle] = []
    for step, e in enumerate(events):
        if isinstance(e, CardPlayed) and isinstance(state, Playing):
            puzzle = _puzzle(state, e, step, deal_no, solvers)
            if puzzle is not None:
                found.append(puzzle)
        state = evolve(state, e)
    return found


def theme_of(state: Playing, seat: Seat) -> Theme:
    """Whose decision a card of ``seat`` is."""
    if state.kind == "raspasy":
        return "all_pass_escape"
    own = seat == state.declarer
    if state.kind == "miser":
        return "misere_escape" if own else "misere_catch"
    return "declarer" if own else "defence"


def _puzzle(
    state: Playing, e: CardPlayed, step: int, deal_no: int, solvers: dict[Seat, Solver]
) -> Puzzle | None:
    judged = e.seat if state.kind == "raspasy" else state.declarer
    assert judged is not None
    pos = from_playing(state, focus=judged)
    solver = solvers.get(judged)
    if solver is None or not fits(solver, pos):
        solver = solvers[judged] = solver_for(pos)
    solution = solve(pos, solver=solver)
    best = solution.best()
    if len(solution.values) < 2 or len(best) != 1:
        return None
    done = state.tricks[judged]
    par = done + solution.focus_tricks
    contract = state.contract
    others = [done + v for c, v in solution.values.items() if c != best[0]]
    if not all(decisive(par, total, state.kind, contract) for total in others):
        return None
    by = state.controllers[e.seat] if state.controllers else e.seat
    solver_seat = e.seat if by < 0 else by
    talon = (*state.shown_talon, *state.talon)
    return Puzzle(
        position=PuzzlePosition(
            deal_no=deal_no, step=step, trick=state.tricks_played + 1,
            theme=theme_of(state, e.seat), kind=state.kind, contract=contract,
            declarer=state.declarer, seat=e.seat, solver=solver_seat, judged=judged, par=par,
            seen=seat_view(state, solver_seat, (e.seat,)),
            hands=tuple(state.hands[s] or None for s in range(state.seats)),
            talon=talon, discard=state.discard or None, legal=tuple(solution.values),
        ),
        solution=PuzzleSolution(
            answer=best[0],
            values=tuple(
                CardValue(card=c, total=done + v, cost=solution.cost(c))
                for c, v in solution.values.items()
            ),
            played=e.card,
        ),
    )  # fmt: skip
