"""Bots act on a seat's view alone and always act legally.

From random positions of random pulkas (every preset, three and four players, Classic dark
games, totus and concession, Stalingrad, a whisted 10 …), each level's strategy, given only the
`BotView` of the seat to act, returns one of that view's legal actions. The view itself names no
card the seat may not see: no card of another hand still hidden, no discard but one's own.
"""

from __future__ import annotations

import inspect
import random
import typing

import msgspec
from _hypothesis import examples
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from bots import basic, expert, random_bot, strong
from bots.budget import Budget
from bots.view import BotView, seat_input
from domain import game as g
from domain.cards import DECK
from domain.deal.state import Contracted, DealFinished, DealTable, Playing
from domain.rules import LENINGRAD, ROSTOV, SOCHI, Rules, rules_for
from domain.simulation import play_random_pulka

RULESETS: tuple[Rules, ...] = (
    SOCHI,
    LENINGRAD,
    ROSTOV,
    rules_for("sochi", {"players": 4}),
    rules_for("leningrad", {"players": 4, "whist": {"half_whist": True}}),
    rules_for(
        "sochi",
        {
            "classic": {"dark_games": True, "bombs": True, "totus": True},
            "play": {"concede": "down3"},
        },
    ),
    rules_for(
        "leningrad",
        {
            "players": 4,
            "classic": {"dark_games": True, "totus": True},
            "play": {"concede": "down2"},
        },
    ),
    rules_for(
        "sochi",
        {
            "whist": {"stalingrad": True, "ten_is_checked": False},
            "play": {"miser_open_timing": "after_first_trick"},
            "bidding": {"allow_jumps": True, "third_hand_may_miser": True},
        },
    ),
)
STRATEGIES = {
    "random": random_bot.decide, "basic": basic.decide, "strong": strong.decide,
    "expert": expert.decide,
}  # fmt: skip
_CARDS = frozenset(DECK)
_BID_FIELDS = frozenset({"bid", "contract", "call", "highest", "explanation", "rules"})


def _names_of_cards(view: BotView) -> set[str]:
    """Every card string anywhere in the view's JSON (bids such as "7S" look like cards: the
    fields that hold bids and contracts are skipped)."""
    found: set[str] = set()

    def walk(x: object) -> None:
        if isinstance(x, str):
            if x in _CARDS:
                found.add(x)
        elif isinstance(x, dict):
            for k, v in x.items():
                if k not in _BID_FIELDS:
                    walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(msgspec.to_builtins(view))
    return found


def _hidden_from(deal: DealTable, seat: int) -> set[str]:
    """Cards that ``seat`` must not see now: other hands still face down, others' discards."""
    hidden: set[str] = set()
    for s, hand in enumerate(deal.hands):
        if s != seat and s not in deal.open_hands:
            hidden |= set(hand) - set(deal.shown_talon)
    if seat not in deal.looked and seat < len(deal.hands):
        hidden |= set(deal.hands[seat])
    discard = getattr(deal, "discard", ())
    declarer = getattr(deal, "declarer", None)
    if isinstance(deal, DealFinished):
        declarer = deal.outcome.declarer
    if discard and seat != declarer:
        hidden |= set(discard)
    if not isinstance(deal, Playing) or deal.kind != "raspasy":
        hidden |= set(deal.talon) - set(deal.shown_talon)
    return hidden


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules=st.sampled_from(RULESETS),
    seed=st.integers(0, 2**32 - 1),
    steps=st.integers(4, 160),
)
def test_every_level_returns_a_legal_action_from_the_seat_view_alone(
    rules: Rules, seed: int, steps: int
) -> None:
    state, appends = play_random_pulka(rules, random.Random(seed), stop_after=steps)
    if not isinstance(state, g.Pulka) or g.is_terminal(state) or not g.to_act(state):
        return
    events = [e for batch in appends for e in batch]
    (seat,) = g.to_act(state)
    view = seat_input(events, seat)
    assert view.legal == tuple(g.legal_actions(state, seat))
    event(view.game.deal.phase)
    assert not (_names_of_cards(view) & _hidden_from(state.deal, seat))
    for name, decide in STRATEGIES.items():
        action = decide(view, random.Random(seed), Budget.of_nodes(2_000))
        assert action in view.legal, (name, action)


def test_a_strategy_takes_the_view_and_nothing_that_holds_the_state() -> None:
    for decide in STRATEGIES.values():
        hints = typing.get_type_hints(decide)
        params = list(inspect.signature(decide).parameters)
        assert hints[params[0]] is BotView
    for name, field_type in typing.get_type_hints(BotView).items():
        text = repr(field_type)
        assert "Pulka" not in text and "DealState" not in text, name
        assert not isinstance(field_type, type) or not issubclass(field_type, Contracted)
