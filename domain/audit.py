"""Could the rules have produced this log? Each event is checked against the state before it.

A game's log is a sequence of decisions: every command `domain.game.decide` accepted left its
events, in order, one command after another. `audit` reads the log the same way: at each
position it rebuilds, from the event there, the commands that could have begun it (a card
played names its card, a seat taken its seat and player, a deal its cards; the acting seat and
the command's time are tried where the event does not say them), decides each in the state the
events before it folded to, and requires the decision to be exactly the events that follow. The
first event no command explains is named (`Illegal`), with the rules' refusal or what the
rules produce there instead: another seat's move, anything after the end, a secret revealed
early or one that does not open the commitment, a score the deal does not give.

It checks the rules, not the cards' origin: which cards a deal holds is data the service brings
(`domain.fairness` derives the decks, and the proof compares them), and the time of a command
is only known where an event records it (a command whose events record no time is decided
untimed, so a deadline it may have missed is not checked).

Pure, like the rest of the domain: no clock, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import msgspec

from domain import game as g
from domain import table as tbl
from domain.deal import messages as m
from domain.errors import PreferansError

__all__ = ["Audit", "Illegal", "audit"]


class Illegal(msgspec.Struct, frozen=True, kw_only=True):
    """The first event of a log that the rules could not have produced."""

    index: int
    """Its position in the audited events, from 0."""
    type: str
    reason: str


class Audit(msgspec.Struct, frozen=True, kw_only=True):
    """The state the log's legal prefix folds to, and its first illegal event if any."""

    state: g.GameState
    checked: int
    """How many events were explained (all of them when ``illegal`` is None)."""
    illegal: Illegal | None = None


def audit(events: Sequence[g.Event], state: g.GameState = g.INITIAL_STATE) -> Audit:
    """Replay ``events`` from ``state`` through `domain.game.decide` (see the module docstring)."""
    at = 0
    while at < len(events):
        produced, illegal = _explain(events, at, state)
        if illegal is not None:
            return Audit(state=state, checked=at, illegal=illegal)
        state = g.fold(produced, state)
        at += len(produced)
    return Audit(state=state, checked=at)


def _tag(event: object) -> str:
    return str(type(event).__struct_config__.tag)  # type: ignore[attr-defined]


def _explain(
    events: Sequence[g.Event], at: int, state: g.GameState
) -> tuple[list[g.Event], Illegal | None]:
    """The events of the command that produced ``events[at:]``'s first ones, or why none did."""
    first = events[at]
    refusal: str | None = None
    differs: tuple[int, str] | None = None
    tried = False
    try:
        commands = list(_commands(events, at, state))
    except _UNREADABLE as exc:  # a forged event no command of the rules could be built from
        return [], Illegal(index=at, type=_tag(first), reason=_unreadable(exc))
    for command in commands:
        tried = True
        try:
            produced = g.decide(command, state)
        except PreferansError as exc:
            refusal = refusal or _refusal(exc)
            continue
        except _UNREADABLE as exc:  # e.g. a seat or a card out of any range the rules know
            refusal = refusal or _unreadable(exc)
            continue
        logged = list(events[at : at + len(produced)])
        if produced and produced == logged:
            return produced, None
        if differs is None:
            differs = _difference(produced, logged, at)
    if differs is not None:  # the rules allow the command, not what the log says followed it
        index, reason = differs
        named = events[index] if index < len(events) else first
        return [], Illegal(index=index, type=_tag(named), reason=reason)
    if not tried:
        refusal = f"no command of the rules begins with '{_tag(first)}' here"
    return [], Illegal(index=at, type=_tag(first), reason=refusal or "the rules refuse it")


_UNREADABLE = (IndexError, KeyError, LookupError, TypeError, ValueError, AttributeError)
"""What the rules' code raises on values no legal log holds (an audit reads forged logs too)."""


def _unreadable(exc: Exception) -> str:
    return f"the rules cannot read it ({type(exc).__name__}: {exc})"


def _refusal(exc: PreferansError) -> str:
    code = getattr(exc, "code", None)
    return f"{exc} ({code})" if code else str(exc)


def _difference(produced: list[g.Event], logged: list[g.Event], at: int) -> tuple[int, str]:
    """Where the decision and the log part: the index and what the rules produce there."""
    for offset, made in enumerate(produced):
        if offset >= len(logged):
            return at + offset, f"the rules produce '{_tag(made)}' after it, and the log ends"
        if made != logged[offset]:
            return at + offset, f"the rules produce {_shown(made)} here"
    return at, "the rules produce nothing here"


def _shown(event: g.Event) -> str:
    text = msgspec.json.encode(event).decode()
    return text if len(text) <= 300 else text[:300] + "…"


# ---- the commands an event may have come from -----------------------------------------------


def _commands(events: Sequence[g.Event], at: int, state: g.GameState) -> Iterator[g.Command]:
    first = events[at]
    times = _times(events, at, state)
    match first:
        case g.GameCreated():
            yield g.CreateGame(
                rules=first.rules, first_dealer=first.first_dealer, at=first.at,
                dealing=first.dealing, commitment=first.commitment, fixed_deals=first.fixed_deals,
                fairness=first.fairness,
            )  # fmt: skip
        case g.PlayerSeated():
            yield g.TakeSeat(seat=first.seat, player=first.player, client_seed=first.client_seed)
        case g.SecretRevealed():
            yield g.RevealSecret(secret=first.secret)
        case m.DealStarted():
            talon = tuple(first.talon)
            for when in times:
                yield g.DealCards(hands=first.hands, talon=talon, at=when)  # type: ignore[arg-type]
        case tbl.TimedOut():
            move_at = at + 2 if isinstance(_at(events, at + 1), tbl.PlayerAbsent) else at + 1
            for move in _moves(_at(events, move_at), state, actor=first.seat, at=first.at):
                yield tbl.TimeOut(seat=first.seat, move=move, at=first.at)
        case tbl.PlayedFor():
            for when in times:
                for move in _moves(_at(events, at + 1), state, actor=first.seat, at=when):
                    yield tbl.PlayFor(seat=first.seat, move=move, at=when)
        case tbl.PlayerReturned():
            yield from _moves(_at(events, at + 1), state, actor=first.seat, at=first.at)
            yield tbl.ReturnToSeat(seat=first.seat, at=first.at)
        case tbl.SeatLeft():
            yield tbl.LeaveSeat(seat=first.seat, at=first.at)
        case tbl.SeatAbandoned():
            yield tbl.AbandonSeat(seat=first.seat, at=first.at)
        case _:
            for when in times:
                yield from _moves(first, state, actor=None, at=when)


def _at(events: Sequence[g.Event], index: int) -> g.Event | None:
    return events[index] if index < len(events) else None


def _times(events: Sequence[g.Event], at: int, state: g.GameState) -> list[int | None]:
    """When the command at ``at`` may have been made: the time the first timed event from there
    records (one request stamps all its events with one time), the moment the control time ran
    out (a deal that ended the game on time records no time), or untimed."""
    times: list[int | None] = []
    for event in events[at : at + 64]:
        when = getattr(event, "at", None)
        if isinstance(when, int) and not isinstance(event, g.GameCreated):
            times.append(when)
            break
    if isinstance(state, g.Pulka) and state.started_at is not None:
        limit = state.rules.pool.time_limit_minutes
        if limit:
            times.append(state.started_at + limit * 60_000)
    # Untimed last: its decision may be a prefix of a timed one (the same card, without the
    # game's end on time), and the first whole match is taken.
    times.append(None)
    return times


def _actors(event: g.Event, seat: int, state: g.GameState) -> list[int]:
    """Who may have made the command that begins with ``event``: the seat it names, except that
    a whister plays the passer's cards (a card names its hand, not its player), a totus discard
    is chosen by an opponent (``by``), and a silent take of the talon picks up the other dark
    hands first."""
    if isinstance(event, m.Discarded):
        return [event.by if event.by is not None else seat]
    if isinstance(event, m.CardPlayed | m.CardsLooked):
        count = len(state.players) if isinstance(state, g.Pulka) else 0
        return [seat] + [s for s in range(count) if s != seat]
    return [seat]


def _moves(
    event: g.Event | None, state: g.GameState, *, actor: int | None, at: int | None
) -> Iterator[m.SeatCommand]:
    """The seat commands whose events may begin with ``event``, by ``actor`` if he is known."""
    if event is None:
        return
    seat = getattr(event, "seat", None)
    if not isinstance(seat, int):
        return
    for by in [actor] if actor is not None else _actors(event, seat, state):
        match event:
            case m.CardsLooked():
                if by == seat:
                    yield m.LookAtCards(seat=by, at=at)
                yield m.TakeTalon(seat=by, at=at)  # silently, after the dark hands are picked up
            case m.BidMade():
                yield m.MakeBid(seat=by, bid=event.bid, dark=event.dark, at=at)
            case m.Passed():
                yield m.Pass(seat=by, dark=event.dark, at=at)
            case m.AuctionWon():
                if event.bid is None:
                    yield m.TakeTalon(seat=by, at=at)
                else:  # a dark game turned misère
                    yield m.Declare(seat=by, contract=event.bid, at=at)
            case m.TalonTaken():
                yield m.TakeTalon(seat=by, at=at)
            case m.Discarded() if len(event.cards) == 2:
                yield m.Discard(seat=by, cards=(event.cards[0], event.cards[1]), at=at)
            case m.ContractDeclared():
                yield m.Declare(seat=by, contract=event.contract, at=at)
            case m.TotusShown():
                yield m.DeclareTotus(seat=by, strain=event.strain, at=at)
            case m.Conceded():
                yield m.Concede(seat=by, at=at)
            case m.WhistCalled():
                yield m.CallWhist(seat=by, choice=event.choice, at=at)
            case m.HandLookedAt():
                yield m.LookAtHand(seat=by, hand=event.hand, at=at)
            case m.PlayChosen():
                yield m.ChoosePlay(seat=by, open=event.open, at=at)
            case m.CardPlayed():
                yield m.PlayCard(seat=by, card=event.card, at=at)
            case m.ClaimMade():
                yield m.Claim(seat=by, tricks=event.tricks, at=at)
            case m.ClaimAnswered():
                yield m.AnswerClaim(seat=by, accept=event.accept, at=at)
