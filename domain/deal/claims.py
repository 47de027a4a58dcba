"""Claims (заявка на взятки): ending the play early by agreement.

On his turn the declarer of a contract or a misère, or any player of an all-pass, may claim a
number of the tricks still to play (the one in progress counts as still to play). The seats that
play the other hands are asked (in open play the whister answers for the passer's hand); play
waits for their answers. One rejection ends the claim and play goes on; when all accept, the deal
ends with the claimer's tricks so and the rest divided among the others in equal shares, an odd
one to the first of them in playing order after the claimer (docs/tables.md, Claims).

Two limits (`ClaimLimited`): a seat makes at most one claim per trick, so that a rejected claim
cannot be made again and again, each holding play up for an answer or a timeout; and in an
all-pass at four where the dealer plays the talon, nobody claims while a talon card is still
to be played: the dealer's talon cards may take those tricks, and he has no hand to answer with.
"""

from __future__ import annotations

from domain.cards import Seat
from domain.deal.ending import outcome_of
from domain.deal.messages import (
    AnswerClaim,
    Claim,
    ClaimAnswered,
    ClaimMade,
    DealEnded,
    DealEvent,
)
from domain.deal.state import PendingClaim, Playing
from domain.errors import ClaimLimited, NotYourTurn, refuse
from domain.outcome import DealOutcome


def remaining(state: Playing) -> int:
    """Tricks still to play, the one in progress included."""
    return 10 - state.tricks_played


def may_claim(state: Playing, seat: Seat) -> bool:
    """Whether ``seat`` may claim now: no claim pending, his turn, his the claiming role, and
    no `limit` in the way."""
    if state.claim is not None or state.controllers[state.turn] != seat:
        return False
    if state.kind == "raspasy":
        return seat in state.order and limit(state, seat) is None
    return seat == state.declarer and limit(state, seat) is None


def dealer_plays_talon_trick(state: Playing) -> bool:
    """An all-pass at four whose dealer plays the talon: a talon trick (the first two) is not
    yet played out."""
    return (
        state.kind == "raspasy"
        and state.seats == 4
        and state.rules.players4.dealer_raspasy == "plays_talon"
        and state.rules.raspasy.use_talon
        and state.tricks_played < 2
    )


def limit(state: Playing, seat: Seat) -> ClaimLimited | None:
    """Why ``seat`` may make no claim now whatever it names, if he may not."""
    if (seat, state.tricks_played) in state.claimed:
        return ClaimLimited(
            "one claim per trick: you claimed in this trick already; claim again in the next"
        )
    if dealer_plays_talon_trick(state):
        return ClaimLimited(
            "no claim while the dealer still plays the talon cards: claim from the third trick"
        )
    return None


def asked_of(state: Playing, claimer: Seat) -> tuple[Seat, ...]:
    """The seats that answer ``claimer``'s claim: whoever plays another active hand."""
    seats = {state.controllers[hand] for hand in state.order if hand != claimer}
    return tuple(sorted(seats - {claimer, -1}))


def claim(command: Claim, state: Playing) -> list[DealEvent]:
    seat = command.seat
    if state.claim is not None:
        raise refuse("claim_pending", "a claim is already waiting for its answers")
    if state.kind != "raspasy" and seat != state.declarer:
        raise refuse("claim_not_yours", "in a contract or a misère only the declarer may claim")
    if state.controllers[state.turn] != seat:
        raise NotYourTurn("a claim is made on one's own turn")
    if (limited := limit(state, seat)) is not None:
        raise limited
    left = remaining(state)
    if command.tricks > left:
        raise refuse(
            "claim_too_many", f"{command.tricks} tricks claimed, but only {left} are left to play"
        )
    asked = asked_of(state, seat)
    return [ClaimMade(seat=seat, tricks=command.tricks, remaining=left, asked=asked)]


def answer(command: AnswerClaim, state: Playing) -> list[DealEvent]:
    pending = state.claim
    if pending is None:
        raise refuse("no_claim", "there is no claim to answer")
    seat = command.seat
    if seat not in pending.asked or seat in pending.accepted:
        raise refuse("not_asked", "you are not asked to answer this claim")
    events: list[DealEvent] = [ClaimAnswered(seat=seat, accept=command.accept)]
    if command.accept and len(pending.accepted) + 1 == len(pending.asked):
        events.append(DealEnded(outcome=claimed_outcome(state, pending)))
    return events


def claimed_outcome(state: Playing, pending: PendingClaim) -> DealOutcome:
    """The deal's outcome once everyone accepted ``pending``."""
    tricks = list(state.tricks)
    order = state.order
    at = order.index(pending.seat)
    others = (order[(at + 1) % 3], order[(at + 2) % 3])
    rest = pending.remaining - pending.tricks
    tricks[pending.seat] += pending.tricks
    tricks[others[0]] += rest - rest // 2
    tricks[others[1]] += rest // 2
    return outcome_of(
        state, kind=state.kind, tricks=dict(enumerate(tricks)),
        contract=state.contract, defenders=state.defenders, open_play=state.open_play,
        checked=state.checked, totus=state.totus,
    )  # fmt: skip


def claim_offers(state: Playing, seat: Seat) -> list[Claim]:
    """Every claim ``seat`` may make now: all the tricks left down to none."""
    if not may_claim(state, seat):
        return []
    return [Claim(seat=seat, tricks=k) for k in range(remaining(state), -1, -1)]
