"""The solver's card model follows the rules engine: on every position of random legal deals
(every preset, three and four players, contracts, misère, all-pass with and without the talon),
the bitmask legality and trick winner are `domain.deal.play_rules`'s, the position built from the
state lists exactly the cards the rules allow, and near the end the solver's values are the
brute force's."""

from __future__ import annotations

import itertools
import random

from _hypothesis import examples
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from domain.cards import SUIT_OF
from domain.deal.decider import decide, fold, initial_state, legal_actions, to_act
from domain.deal.messages import PlayCard, StartDeal
from domain.deal.play_rules import led_suit, playable, trick_winner
from domain.deal.state import DealState, Playing
from domain.rules import LENINGRAD, ROSTOV, SOCHI, Rules, rules_for
from domain.simulation import random_deal
from domain.solver import from_playing, solve
from domain.solver.bits import SUIT_INDEX, cards_of, legal_mask, mask_of, winner_index
from domain.solver.reference import brute_force

RULESETS: tuple[Rules, ...] = (
    SOCHI,
    LENINGRAD,
    ROSTOV,
    rules_for("sochi", {"players": 4}),
    rules_for("rostov", {"players": 4}),
    rules_for("sochi", {"play": {"miser_open_timing": "after_first_trick"}}),
)


def _deal_states(rules: Rules, rng: random.Random) -> list[DealState]:
    """Every state of one deal played with random legal actions; misère and all-pass are drawn
    more often than chance would give them."""
    dealer = rng.randrange(rules.players)
    cards = random_deal(rng, rules.players, dealer)
    state: DealState = initial_state(rules)
    state = fold(
        state, decide(StartDeal(dealer=dealer, hands=cards.hands, talon=cards.talon), state)
    )
    want = rng.choice(("any", "pass", "miser"))
    states = [state]
    while to_act(state):
        (seat,) = to_act(state)
        actions = legal_actions(state, seat)
        preferred = [
            a
            for a in actions
            if (want == "pass" and type(a).__name__ == "Pass")
            or (want == "miser" and getattr(a, "bid", None) == "MISER")
        ]
        action = rng.choice(preferred or actions)
        state = fold(state, decide(action, state))
        states.append(state)
    return states


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=st.sampled_from(RULESETS), seed=st.integers(0, 2**32 - 1))
def test_the_bitmask_rules_are_the_rules_engines_and_the_solver_exact_near_the_end(
    rules: Rules, seed: int
) -> None:
    rng = random.Random(seed)
    states = _deal_states(rules, rng)
    tricks = 0
    for before, after in itertools.pairwise(states):
        if not isinstance(before, Playing):
            continue
        led = led_suit(before)
        led_i = None if led is None else SUIT_INDEX[led]
        trump_i = None if before.trump is None else SUIT_INDEX[before.trump]
        for seat in before.order:
            hand = before.hands[seat]
            got = cards_of(legal_mask(mask_of(hand), led_i, trump_i))
            assert set(got) == set(playable(before, hand))
        if len(before.trick) == 2:
            trick = after.last_trick  # type: ignore[attr-defined]
            bits = tuple(mask_of([c]) for _, c in trick)
            led_for_trick = SUIT_INDEX[SUIT_OF[before.talon_card or trick[0][1]]]
            w = trick[winner_index(bits, led_for_trick, trump_i)][0]
            assert w == trick_winner(trick, before.trump, before.talon_card)
            tricks += 1
        focus = before.turn if before.kind == "raspasy" else None
        pos = from_playing(before, focus=focus)
        (controller,) = to_act(before)
        rules_cards = {a.card for a in legal_actions(before, controller) if isinstance(a, PlayCard)}
        if pos.tricks_left <= 4:
            solution = solve(pos)
            assert set(solution.values) == rules_cards
            assert (solution.focus_tricks, solution.values) == brute_force(pos)
    final = states[-1]
    event(f"{getattr(final, 'outcome', None) and final.outcome.kind}, {tricks} tricks")  # type: ignore[attr-defined]
