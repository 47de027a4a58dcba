"""The pulka (пуля): a whole game as a decider that composes deals.

A game is created with its rules (stored in `GameCreated`, so it keeps them for ever), the seats
are taken, and deals follow until every pool is closed, or the deals or the time the rules allow
are used up (a time limit is read from the ``at`` of the commands). The service supplies each
deal's cards (`DealCards`: a shuffle, or a tournament's fixed layout); the pulka chooses the
dealer and the minimum opening level, forwards seat commands to the current deal, and scores a
finished deal into a `DealScored` event. The sheet is read from those events alone, so a later
change of the scoring code never rewrites a finished game. When the game ends, `GameEnded`
carries the final settlement.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

import msgspec

from domain import table as tbl
from domain.cards import Seat
from domain.deal import claims
from domain.deal import decider as deal
from domain.deal.messages import (
    Claim,
    DealEnded,
    DealEvent,
    DealStarted,
    LookAtCards,
    LookAtHand,
    SeatCommand,
    StartDeal,
)
from domain.deal.state import AwaitingDeal, DealFinished, DealState, Playing
from domain.deal.view import SeatView, redact_event, seat_view
from domain.errors import DealOver, IllegalAction, InvalidLayout, NotYourTurn, WrongPhase, refuse
from domain.fairness import Dealing, Scheme, reveals
from domain.outcome import DealOutcome
from domain.rules import Rules
from domain.scoring import score_deal
from domain.settlement import Settlement, settle
from domain.sheet import DealScore, PoolSheet, apply_score, empty_sheet, is_closed
from domain.table import (
    AbandonSeat,
    LeaveSeat,
    PlayedFor,
    PlayerAbsent,
    PlayerReturned,
    PlayFor,
    ReturnToSeat,
    SeatAbandoned,
    SeatClock,
    SeatLeft,
    TableCommand,
    TableEvent,
    TableState,
    TimedOut,
    TimeOut,
)


class GameCommand(
    msgspec.Struct, frozen=True, kw_only=True, tag_field="type", forbid_unknown_fields=True
):
    """A command to the pulka itself, issued by the service rather than by a seat."""

    at: int | None = None
    """When the service issued it, in milliseconds since the epoch (see `SeatCommand.at`)."""


class CreateGame(GameCommand, frozen=True, tag="create_game"):
    rules: Rules
    first_dealer: Seat = 0
    dealing: Dealing | None = None
    commitment: str | None = None
    fixed_deals: int = 0
    fairness: Scheme = 1


class TakeSeat(GameCommand, frozen=True, tag="take_seat"):
    """``player`` (an opaque id, never personal data) sits down at ``seat``."""

    seat: Seat
    player: str
    client_seed: str | None = None


class RevealSecret(GameCommand, frozen=True, tag="reveal_secret"):
    """Open the commitment of a finished game: the secret its decks were derived from (hex)."""

    secret: str


class DealCards(GameCommand, frozen=True, tag="deal_cards"):
    """The cards of the next deal: one hand per seat (empty for a sitting-out dealer) and the
    talon. The pulka decides who deals."""

    hands: tuple[tuple[str, ...], ...]
    talon: tuple[str, str]


class GameEvent(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    pass


class GameCreated(GameEvent, frozen=True, tag="game_created"):
    rules: Rules
    first_dealer: Seat = 0
    at: int | None = None
    """When the game was created (ms since the epoch, the command's ``at``): the start of a
    time limit (``pool.time_limit_minutes``)."""
    dealing: Dealing | None = None
    """How the game is dealt (`domain.fairness.Dealing`); null for a game created before deals
    were committed to."""
    commitment: str | None = None
    """SHA-256 (hex) of the secret every deck is derived from, opened by `SecretRevealed`."""
    fixed_deals: int = 0
    """How many of the first deals are laid out by the creator (``fixed``), not derived."""
    fairness: Scheme = 1
    """The derivation of the decks (`domain.fairness.Scheme`): 2 for every game created since
    the database deals (migration 0018), 1 before (schema 3 and older)."""


class PlayerSeated(GameEvent, frozen=True, tag="player_seated"):
    seat: Seat
    player: str
    client_seed: str | None = None
    """The player's contribution to the decks of the deals after this (`domain.fairness`)."""


class SecretRevealed(GameEvent, frozen=True, tag="secret_revealed"):
    """The game is over: the secret (hex) behind its `GameCreated` commitment, so that anyone
    can recompute every deck (docs/fairness.md)."""

    secret: str


class DealScored(GameEvent, frozen=True, tag="deal_scored"):
    """A finished deal written into the pool sheet (запись)."""

    deal_no: int
    score: DealScore
    next_dealer: Seat
    next_min_level: int = 6
    """The next deal's minimum opening level (the exit from all-pass, выход из распасов)."""


class LastRoundStarted(GameEvent, frozen=True, tag="last_round_started"):
    """The control time ran out during deal ``deal_no`` (at ``at``): the last round (последний
    круг) follows, one more deal by each seat from ``dealer``, who deals next; the game ends when
    the deal comes back to him (§G [P18])."""

    deal_no: int
    dealer: Seat
    at: int | None = None


class GameEnded(GameEvent, frozen=True, tag="game_ended"):
    """The game is over: every pool is closed, or the deals or the time allowed are used up (the
    unclosed pools are then settled too); the final settlement (расчёт) in whists."""

    settlement: Settlement


Event = (
    GameCreated | PlayerSeated | DealScored | LastRoundStarted | GameEnded | SecretRevealed
    | tbl.TableEvents | DealEvent
)  # fmt: skip
Command = CreateGame | TakeSeat | DealCards | RevealSecret | tbl.TableCommands | SeatCommand


class NoGame(msgspec.Struct, frozen=True):
    """Before `GameCreated`."""


class Pulka(msgspec.Struct, frozen=True, kw_only=True):
    """A game in progress."""

    rules: Rules
    players: tuple[str | None, ...]
    sheet: PoolSheet
    deal: DealState
    deal_no: int = 0
    """Number of the current (or last) deal, from 1."""
    next_dealer: Seat = 0
    next_min_level: int = 6
    started_at: int | None = None
    """When the game was created (ms since the epoch), if known."""
    last_round_dealer: Seat | None = None
    """Once the control time has run out: the seat that deals first in the last round."""
    table: TableState = TableState()
    """The clock and who is there (`domain.table`)."""
    dealing: Dealing | None = None
    commitment: str | None = None
    fixed_deals: int = 0
    fairness: Scheme = 1
    client_seeds: tuple[str, ...] = ()
    """The client seeds of every seat taken so far, in the order of the log."""
    secret: str | None = None
    """The revealed secret (hex), once the game is over."""


class PulkaClosed(Pulka, frozen=True, kw_only=True):
    """Every pool reached the target; the game is over."""

    settlement: Settlement


GameState = NoGame | Pulka | PulkaClosed
INITIAL_STATE: GameState = NoGame()


def is_terminal(state: GameState) -> bool:
    return isinstance(state, PulkaClosed)


def seated(state: Pulka) -> bool:
    return all(p is not None for p in state.players)


def needs_cards(state: GameState) -> bool:
    """Whether the next thing to happen is a deal of the cards (the service then shuffles)."""
    return (
        type(state) is Pulka
        and seated(state)
        and isinstance(state.deal, AwaitingDeal | DealFinished)
    )


# ---- decide ---------------------------------------------------------------------------------


def decide(command: Command, state: GameState) -> list[Event]:
    """The events ``command`` causes; raises a `PreferansError` subclass if it is not allowed."""
    if isinstance(command, RevealSecret):
        return [_reveal(command, state)]
    if isinstance(state, PulkaClosed):
        raise DealOver("the pulka is closed: the game is over", code="illegal.game_over")
    if isinstance(command, CreateGame):
        if not isinstance(state, NoGame):
            raise WrongPhase("the game already exists", code="illegal.game_exists")
        if not 0 <= command.first_dealer < command.rules.players:
            raise refuse("no_such_seat", f"seat {command.first_dealer} is not at this table")
        return [
            GameCreated(
                rules=command.rules, first_dealer=command.first_dealer, at=command.at,
                dealing=command.dealing, commitment=command.commitment,
                fixed_deals=command.fixed_deals, fairness=command.fairness,
            )
        ]  # fmt: skip
    if isinstance(state, NoGame):
        raise WrongPhase("the game has not been created", code="illegal.no_game")
    mover: Seat | None = None
    own = False
    match command:
        case TakeSeat():
            return [_take_seat(command, state)]
        case DealCards():
            events = _deal_cards(command, state)
        case TableCommand():
            events = _table_command(command, state)
            if isinstance(command, TimeOut | PlayFor):
                mover = command.seat  # a move, but not the player's own
        case _:
            events = _seat_command(command, state)
            own = True
            mover = None if isinstance(command, LookAtCards | LookAtHand) else command.seat
    return events + _clock_after(state, events, command.at, mover, own)


def _take_seat(command: TakeSeat, state: Pulka) -> PlayerSeated:
    seat = command.seat
    if not 0 <= seat < len(state.players):
        raise refuse("no_such_seat", f"seat {seat} is not at this table")
    if any(player == command.player for _, player in state.table.abandoned_by):
        raise refuse("abandoned", "you abandoned this game: you cannot sit down at it again")
    taken_over = seat in state.table.abandoned and state.rules.table.reseat
    if state.players[seat] is not None and not taken_over:
        if seat in state.table.abandoned:
            raise refuse("no_reseat", f"seat {seat} was abandoned, and this table is not reseated")
        raise refuse("seat_taken", f"seat {seat} is already taken")
    if command.player in state.players:
        raise refuse("already_seated", "this player already has a seat at this table")
    return PlayerSeated(seat=seat, player=command.player, client_seed=command.client_seed)


def _reveal(command: RevealSecret, state: GameState) -> SecretRevealed:
    """The secret is revealed once the game is over, once, and only the committed one."""
    if not isinstance(state, PulkaClosed):
        raise WrongPhase("the secret is revealed when the game is over", code="illegal.not_over")
    if state.dealing is None:
        raise refuse("no_commitment", "this game was dealt before deals were committed to")
    if state.secret is not None:
        raise refuse("already_revealed", "the secret was already revealed")
    # A seeded game commits to nothing (docs/fairness.md): its seed is checked by the decks.
    if state.commitment is not None and not reveals(command.secret, state.commitment):
        raise refuse("wrong_secret", "that secret does not open the game's commitment")
    return SecretRevealed(secret=command.secret)


def deal_seeds(state: Pulka) -> tuple[str, ...]:
    """The client seeds the next deck is derived from: none in a seeded game (its seed alone
    deals it, anywhere), else every seat's so far."""
    return () if state.dealing == "seeded" else state.client_seeds


def _deal_cards(command: DealCards, state: Pulka) -> list[Event]:
    if not seated(state):
        raise refuse("seats_free", "the cards are dealt once every seat is taken")
    if not needs_cards(state):
        raise WrongPhase("a deal is in progress", code="illegal.deal_in_progress")
    start = StartDeal(
        dealer=state.next_dealer,
        hands=command.hands,
        talon=command.talon,
        min_level=state.next_min_level,
    )
    return list(deal.decide(start, deal.initial_state(state.rules)))


def _seat_command(command: SeatCommand, state: Pulka) -> list[Event]:
    """A player's own command at his seat: in time, and bringing him back if he was absent."""
    seat, table = command.seat, state.table
    if 0 <= seat < len(state.players) and seat in table.abandoned:
        raise refuse("abandoned", "this seat was abandoned: it is played for to the end")
    due = tbl.deadline(state.rules, table, seat) if table.turns else None
    if due is not None and command.at is not None and command.at >= due:
        raise refuse(
            "time_out", "your time to act ran out: the move is being made for you by the table"
        )
    try:
        events = _move(command, state)
    except IllegalAction as refusal:
        if table.timeouts and table.timeouts[seat] and refusal.code != "illegal.timed_out":
            raise refuse(
                "timed_out",
                f"your time ran out and the table moved for you: {refusal.message}",
            ) from refusal
        raise
    if seat in table.absent:
        player = state.players[seat]
        assert player is not None
        events.insert(0, PlayerReturned(seat=seat, player=player, at=command.at))
    return events


def _table_command(command: TableCommand, state: Pulka) -> list[Event]:
    seat, table = command.seat, state.table
    if not 0 <= seat < len(state.players):
        raise refuse("no_such_seat", f"seat {seat} is not at this table")
    player = state.players[seat]
    match command:
        case LeaveSeat():
            if player is None:
                raise refuse("seat_free", f"seat {seat} is free: nobody is there to leave it")
            if seated(state):
                raise refuse("game_started", "the game has started: abandon it instead")
            return [SeatLeft(seat=seat, player=player, at=command.at)]
        case AbandonSeat():
            if not seated(state):
                raise refuse("not_started", "the game has not started: leave the seat instead")
            if seat in table.abandoned:
                raise refuse("already_abandoned", f"seat {seat} was already abandoned")
            assert player is not None
            return [SeatAbandoned(seat=seat, player=player, at=command.at)]
        case ReturnToSeat():
            if seat not in table.absent:
                raise refuse("not_absent", "you are not marked absent")
            assert player is not None
            return [PlayerReturned(seat=seat, player=player, at=command.at)]
    assert isinstance(command, TimeOut | PlayFor)
    if seat not in to_act(state):
        raise refuse("not_to_act", f"seat {seat} is not to act")
    if command.move.seat != seat:
        raise refuse("wrong_seat", f"the move must be seat {seat}'s")
    move = msgspec.structs.replace(command.move, at=command.at)
    if isinstance(command, PlayFor):
        reason = tbl.played_for(table, seat)
        if reason is None:
            raise refuse("present", f"seat {seat}'s player is there: nobody plays for him")
        return [PlayedFor(seat=seat, reason=reason), *_move(move, state)]
    due = tbl.deadline(state.rules, table, seat)
    if due is None:
        raise refuse("no_clock", "this table has no clock")
    if command.at is None or command.at < due:
        raise refuse("not_timed_out", f"seat {seat}'s time has not run out")
    in_a_row = table.timeouts[seat] + 1
    events: list[Event] = [TimedOut(seat=seat, at=command.at, in_a_row=in_a_row)]
    limit = state.rules.table.timeouts_to_absent
    if limit and in_a_row >= limit and tbl.played_for(table, seat) is None:
        assert player is not None
        events.append(PlayerAbsent(seat=seat, player=player, timeouts=in_a_row, at=command.at))
    return events + _move(move, state)


def _clock_after(
    state: Pulka, events: list[Event], at: int | None, mover: Seat | None, own: bool
) -> list[Event]:
    """The `domain.table.TurnClock` that follows a command's ``events`` at a clocked table."""
    if at is None or not tbl.clocked(state.rules) or not events:
        return []
    after = fold(events, state)
    if type(after) is not Pulka:
        return []
    clock = tbl.next_clock(
        state.rules, after.table, at=at, mover=mover, own=own,
        before=to_act(state), after=to_act(after),
    )  # fmt: skip
    return [] if clock is None else [clock]


def _move(command: SeatCommand, state: Pulka) -> list[Event]:
    """A seat's move in the current deal, and the scoring of the deal it ends."""
    if not seated(state):
        raise refuse("seats_free", "the game starts once every seat is taken")
    if isinstance(state.deal, AwaitingDeal | DealFinished):
        raise WrongPhase("no deal is in progress", code="illegal.no_deal")
    if isinstance(command, Claim) and not state.rules.table.claims:
        raise refuse("no_claims", "claims are not allowed at this table")
    events: list[Event] = list(deal.decide(command, state.deal))
    last = events[-1] if events else None
    if isinstance(last, DealEnded):
        events += _score(state, last.outcome, command.at)
    return events


def _score(state: Pulka, outcome: DealOutcome, at: int | None) -> list[Event]:
    """The deal's `DealScored`; then the end of the game (`GameEnded`) or of its time
    (`LastRoundStarted`), `at` being when the deal ended."""
    rules = state.rules
    score = score_deal(outcome, state.sheet, rules)
    sheet = apply_score(state.sheet, score)
    slide = rules.pool.slide_after_raspasy and outcome.kind == "raspasy"
    dealer = outcome.dealer if slide else (outcome.dealer + 1) % rules.players
    events: list[Event] = [
        DealScored(
            deal_no=state.deal_no,
            score=score,
            next_dealer=dealer,
            next_min_level=exit_level(rules, score.raspasy_streak),
        )
    ]
    if _game_over(state, sheet, outcome.dealer, dealer):
        events.append(GameEnded(settlement=settle(sheet, rules)))
    elif _time_is_up(state, at):
        if rules.pool.last_round:
            events.append(LastRoundStarted(deal_no=state.deal_no, dealer=dealer, at=at))
        else:
            events.append(GameEnded(settlement=settle(sheet, rules)))
    return events


def _game_over(state: Pulka, sheet: PoolSheet, dealt_by: Seat, next_dealer: Seat) -> bool:
    """Every pool is closed ([P11]); or the deals allowed are played; or the last round is over:
    the deal passes back to the seat that dealt first in it (§G)."""
    pool = state.rules.pool
    if is_closed(sheet, pool.target):
        return True
    if pool.max_deals and state.deal_no >= pool.max_deals:
        return True
    first = state.last_round_dealer
    return first is not None and next_dealer == first and dealt_by != first


def _time_is_up(state: Pulka, at: int | None) -> bool:
    """The control time (``pool.time_limit_minutes`` from the game's creation) has run out by
    ``at``, and no last round is under way. Without both times nothing can run out."""
    limit = state.rules.pool.time_limit_minutes
    if not limit or state.last_round_dealer is not None:
        return False
    if at is None or state.started_at is None:
        return False
    return at >= state.started_at + limit * 60_000


def dealer_of(rules: Rules, first_dealer: Seat, deal_no: int) -> Seat | None:
    """The seat that deals deal ``deal_no`` (from 1), where it is known before the game: the
    deal passes clockwise (docs/rules.md §A). With ``pool.slide_after_raspasy`` the dealer stays
    after an all-pass, so every deal after the first depends on the play: None."""
    if deal_no == 1:
        return first_dealer
    if rules.pool.slide_after_raspasy:
        return None
    return (first_dealer + deal_no - 1) % rules.players


def check_layouts(
    rules: Rules, first_dealer: Seat, layouts: Sequence[Sequence[Sequence[str]]]
) -> None:
    """Refuse, before the game exists, a fixed layout that could never be dealt.

    ``layouts[i]`` holds the hands of deal ``i + 1`` in seat order. At a table of four a layout
    of four hands puts its empty hand at a seat, which must be the seat that deals that deal
    (`dealer_of`); where that seat cannot be known in advance the layout must give three hands,
    which are placed at the active seats when the deal is dealt. Three-hand layouts always fit.
    Raises `InvalidLayout` naming the deal and the seat.
    """
    if rules.players != 4 or not 0 <= first_dealer < rules.players:
        return  # a table of three has no empty hand; a bad first dealer is CreateGame's refusal
    for deal_no, hands in enumerate(layouts, start=1):
        if len(hands) != rules.players:
            continue
        dealer = dealer_of(rules, first_dealer, deal_no)
        if dealer is None:
            raise InvalidLayout(
                f"layout {deal_no}: who deals deal {deal_no} depends on the all-passes before it "
                "(pool.slide_after_raspasy), so its empty hand cannot be placed in advance; "
                "give three hands, dealt to the active seats"
            )
        empty = [seat for seat, hand in enumerate(hands) if not hand]
        if empty != [dealer]:
            at = ", ".join(map(str, empty)) or "no seat"
            raise InvalidLayout(
                f"layout {deal_no}: seat {dealer} deals deal {deal_no} and sits out with no "
                f"cards, but the empty hand is at {'seat ' * bool(empty)}{at}"
            )


def exit_level(rules: Rules, raspasy_streak: int) -> int:
    """Minimum opening level after ``raspasy_streak`` all-passes in a row (I-12): the exit
    sequence is indexed by the streak, its last level repeating."""
    if raspasy_streak <= 0:
        return 6
    seq = rules.raspasy.exit_sequence
    return seq[min(raspasy_streak, len(seq)) - 1]


# ---- evolve ---------------------------------------------------------------------------------

FOLD_VERSION = 1
"""The version of the fold: bump it whenever `evolve` would fold the same events into another
state. A stored snapshot of a state names the fold version that made it, and one of another
version is ignored (`service.eventlog.snapshots`); a change of the state's shape is caught without a
bump (the snapshot codec digests the state's fields)."""


def evolve(state: GameState, event: Event) -> GameState:
    """The state after ``event``; records facts only."""
    if isinstance(event, GameEvent):
        return _GAME_EVOLVERS[type(event)](state, event)
    assert isinstance(state, Pulka)
    if isinstance(event, TableEvent):
        return _table_evolved(state, event)
    if isinstance(event, DealStarted):
        return msgspec.structs.replace(
            state,
            deal=deal.evolve(deal.initial_state(state.rules), event),
            deal_no=state.deal_no + 1,
        )
    return msgspec.structs.replace(state, deal=deal.evolve(state.deal, event))


def _created(state: GameState, e: GameCreated) -> Pulka:
    n = e.rules.players
    return Pulka(
        rules=e.rules,
        players=(None,) * n,
        sheet=empty_sheet(n),
        deal=deal.initial_state(e.rules),
        next_dealer=e.first_dealer,
        started_at=e.at,
        table=tbl.new_table(e.rules),
        dealing=e.dealing,
        commitment=e.commitment,
        fixed_deals=e.fixed_deals,
        fairness=e.fairness,
    )


def _seated(state: Pulka, e: PlayerSeated) -> Pulka:
    players = list(state.players)
    players[e.seat] = e.player
    seeds = state.client_seeds if e.client_seed is None else (*state.client_seeds, e.client_seed)
    return msgspec.structs.replace(
        state,
        players=tuple(players),
        table=tbl.taken_over(state.table, e.seat),
        client_seeds=seeds,
    )


def _revealed(state: Pulka, e: SecretRevealed) -> Pulka:
    return msgspec.structs.replace(state, secret=e.secret)


def _table_evolved(state: Pulka, e: TableEvent) -> Pulka:
    table = tbl.TABLE_EVOLVERS[type(e)](state.table, e)
    if isinstance(e, SeatLeft):
        players = list(state.players)
        players[e.seat] = None
        return msgspec.structs.replace(state, players=tuple(players), table=table)
    return msgspec.structs.replace(state, table=table)


def _scored(state: Pulka, e: DealScored) -> Pulka:
    return msgspec.structs.replace(
        state,
        sheet=apply_score(state.sheet, e.score),
        next_dealer=e.next_dealer,
        next_min_level=e.next_min_level,
    )


def _last_round(state: Pulka, e: LastRoundStarted) -> Pulka:
    return msgspec.structs.replace(state, last_round_dealer=e.dealer)


def _ended(state: Pulka, e: GameEnded) -> PulkaClosed:
    fields = {name: getattr(state, name) for name in Pulka.__struct_fields__}
    return PulkaClosed(**fields, settlement=e.settlement)


_GAME_EVOLVERS: dict[type[GameEvent], Callable[[Any, Any], GameState]] = {
    GameCreated: _created,
    PlayerSeated: _seated,
    DealScored: _scored,
    LastRoundStarted: _last_round,
    GameEnded: _ended,
    SecretRevealed: _revealed,
}


def fold(events: list[Event] | tuple[Event, ...], state: GameState = INITIAL_STATE) -> GameState:
    for event in events:
        state = evolve(state, event)
    return state


# ---- what a seat may do and see ------------------------------------------------------------


def seat_of(state: GameState, player: str) -> Seat | None:
    """``player``'s seat, unless he has none or abandoned it."""
    if isinstance(state, NoGame) or player not in state.players:
        return None
    seat = state.players.index(player)
    return None if seat in state.table.abandoned else seat


def legal_actions(state: GameState, seat: Seat) -> list[SeatCommand]:
    """Every command ``seat`` may send now (none between deals, or once the pulka is closed):
    the deal's moves, then the claims the table allows."""
    if type(state) is not Pulka or not seated(state):
        return []
    actions = deal.legal_actions(state.deal, seat)
    if state.rules.table.claims and isinstance(state.deal, Playing):
        actions += claims.claim_offers(state.deal, seat)
    return actions


def to_act(state: GameState) -> tuple[Seat, ...]:
    if type(state) is not Pulka or not seated(state):
        return ()
    return deal.to_act(state.deal)


Status = Literal["seating", "playing", "finished"]
"""Where a game stands: seats still free, deals being played, or every pool closed."""


def status(state: Pulka) -> Status:
    """The game's `Status`."""
    if isinstance(state, PulkaClosed):
        return "finished"
    return "playing" if seated(state) else "seating"


class GameView(msgspec.Struct, frozen=True, kw_only=True):
    """One viewer's picture of the pulka: public sheet, and the current deal as he may see it."""

    status: Status
    rules: Rules
    players: tuple[str | None, ...]
    viewer: Seat | None
    deal_no: int
    sheet: PoolSheet
    deal: SeatView
    settlement: Settlement | None = None
    clocks: tuple[SeatClock, ...] = ()
    """Every seat's time bank, deadline and presence (`domain.table.seat_clocks`)."""
    dealing: Dealing | None = None
    """How the game is dealt: ``random`` (committed), ``seeded`` or ``fixed``
    (docs/fairness.md); null for a game dealt before commitments."""
    commitment: str | None = None
    """SHA-256 (hex) of the secret the decks are derived from."""
    secret: str | None = None
    """The secret (hex), once the game is over and it has been revealed."""


def game_view(state: Pulka, viewer: Seat | None) -> GameView:
    return GameView(
        status=status(state),
        rules=state.rules,
        players=state.players,
        viewer=viewer,
        deal_no=state.deal_no,
        sheet=state.sheet,
        deal=seat_view(state.deal, viewer, to_act(state)),
        settlement=state.settlement if isinstance(state, PulkaClosed) else None,
        clocks=tbl.seat_clocks(state.rules, state.table),
        dealing=state.dealing,
        commitment=state.commitment,
        secret=state.secret,
    )


def redact(event: Event, viewer: Seat | None, before: GameState) -> Event:
    """``event`` as ``viewer`` may see it, given the game state before it."""
    if isinstance(event, GameEvent | TableEvent) or isinstance(before, NoGame):
        return event
    current = before.deal
    if isinstance(event, DealStarted):
        current = deal.initial_state(before.rules)
    return redact_event(event, viewer, current)


__all__ = [
    "INITIAL_STATE",
    "AbandonSeat",
    "Command",
    "CreateGame",
    "DealCards",
    "DealScored",
    "Event",
    "GameCreated",
    "GameEnded",
    "GameState",
    "GameView",
    "IllegalAction",
    "LastRoundStarted",
    "LeaveSeat",
    "NoGame",
    "NotYourTurn",
    "PlayFor",
    "PlayerSeated",
    "Pulka",
    "PulkaClosed",
    "ReturnToSeat",
    "RevealSecret",
    "SecretRevealed",
    "Status",
    "TakeSeat",
    "TimeOut",
    "check_layouts",
    "deal_seeds",
    "dealer_of",
    "decide",
    "evolve",
    "fold",
    "game_view",
    "is_terminal",
    "legal_actions",
    "needs_cards",
    "redact",
    "seat_of",
    "status",
    "to_act",
]
