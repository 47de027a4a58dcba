"""Playing a card (розыгрыш): who may play it, the trick it completes (an all-pass talon card
the dealer plays at four included), who leads next, the misère catchers' hands laid open, and the
deal's end after the tenth trick.

Following suit and the winner of a trick are `domain.deal.play_rules`; this module turns a
played card into events.
"""

from __future__ import annotations

from domain.cards import Seat
from domain.deal.ending import outcome_of
from domain.deal.messages import (
    CardPlayed,
    DealEnded,
    DealEvent,
    HandsOpened,
    PlayCard,
    TalonCardTurned,
    TrickWon,
)
from domain.deal.play_rules import play_refusal, talon_player, trick_winner
from domain.deal.state import Playing
from domain.errors import NotYourTurn, refuse
from domain.outcome import DealOutcome


def play_card(command: PlayCard, state: Playing) -> list[DealEvent]:
    if state.claim is not None:
        raise refuse("claim_pending", "play waits for the answers to the claim")
    hand_seat, card = state.turn, command.card
    controller = state.controllers[hand_seat]
    if command.seat != controller:
        if card in state.hands[command.seat] and command.seat != hand_seat:
            raise NotYourTurn(f"it is seat {hand_seat}'s turn to play, not seat {command.seat}'s")
        raise NotYourTurn(f"seat {controller} plays the cards of seat {hand_seat} now")
    hand = state.hands[hand_seat]
    if card not in hand:
        raise refuse("card_not_in_hand", f"{card} is not in the hand of seat {hand_seat}")
    refusal = play_refusal(state, hand, card)
    if refusal is not None:
        raise refuse(refusal.code, refusal.message)
    events: list[DealEvent] = [CardPlayed(seat=hand_seat, card=card)]
    trick = (*state.trick, (hand_seat, card))
    if (
        state.kind == "miser"
        and hand_seat == state.declarer
        and not state.trick
        and not state.open_hands
        and state.rules.play.miser_open_timing == "codex"
    ):
        # the misère player led: now the catchers' cards are laid open (S0)
        events.append(HandsOpened.of(_catchers(state, after_card=card)))
    if len(trick) < 3:
        return events
    dealer = talon_player(state)
    if dealer is not None and state.talon_card is not None:  # his talon card may take it
        winner = trick_winner(((dealer, state.talon_card), *trick), None, state.talon_card)
    else:
        winner = trick_winner(trick, state.trump, state.talon_card)
    done = state.tricks_played + 1
    talon_tricks = state.kind == "raspasy" and state.rules.raspasy.use_talon
    leader: Seat | None
    if done == 10:
        leader = None
    elif talon_tricks and done < 3:
        leader = state.order[0]  # the first hand leads the first three all-pass tricks
    else:
        leader = winner
    events.append(TrickWon(seat=winner, cards=tuple(c for _, c in trick), leader=leader))
    if (
        done == 1
        and state.kind == "miser"
        and not state.open_hands
        and state.rules.play.miser_open_timing == "after_first_trick"
    ):
        events.append(HandsOpened.of(_catchers(state, after_card=card)))
    if done == 10:
        tricks = list(state.tricks)
        tricks[winner] += 1
        events.append(DealEnded(outcome=_outcome(state, tricks)))
    elif talon_tricks and done == 1:
        events.append(TalonCardTurned(card=state.talon[0]))
    return events


def _catchers(state: Playing, after_card: str) -> dict[Seat, tuple[str, ...]]:
    return {
        r.seat: tuple(c for c in state.hands[r.seat] if c != after_card) for r in state.defenders
    }


def _outcome(state: Playing, tricks: list[int]) -> DealOutcome:
    return outcome_of(
        state, kind=state.kind, tricks=dict(enumerate(tricks)),
        contract=state.contract, defenders=state.defenders, open_play=state.open_play,
        checked=state.checked, totus=state.totus,
    )  # fmt: skip
