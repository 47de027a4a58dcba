"""The levels, and every kind of decision: each level answers every situation of every preset
at three and four seats with a legal action, including actions it has never heard of."""

from __future__ import annotations

import random
from collections import Counter

import msgspec
from bot_helpers import Game

from bots import LEVELS, basic, claims, expert, guarded, random_bot, strong
from bots.budget import Budget
from bots.table import Table
from bots.view import BotView, seat_input
from domain.deal.messages import AnswerClaim, Claim, Command, PlayCard, SeatCommand
from domain.rules import LENINGRAD, ROSTOV, SOCHI, Rules, rules_for
from domain.simulation import random_deal

RAW = {
    "random": random_bot.decide, "basic": basic.decide, "strong": strong.decide,
    "expert": expert.decide,
}  # fmt: skip
BUDGET = Budget.of_nodes(200)
"""A short think in solver nodes: the strong bot steers the same deals on any machine."""
RULESETS: dict[str, Rules] = {
    "sochi": SOCHI,
    "leningrad": LENINGRAD,
    "rostov": ROSTOV,
    "sochi, 4": rules_for("sochi", {"players": 4}),
    "leningrad, 4": rules_for("leningrad", {"players": 4}),
    "rostov, 4": rules_for("rostov", {"players": 4}),
    "classic: dark games, totus, down three": rules_for(
        "sochi",
        {
            "classic": {"dark_games": True, "bombs": True, "totus": True},
            "play": {"concede": "down3"},
        },
    ),
    "classic, 4, down two": rules_for(
        "leningrad",
        {
            "players": 4,
            "classic": {"dark_games": True, "totus": True},
            "play": {"concede": "down2"},
        },
    ),
    "stalingrad, 10 whisted, jumps": rules_for(
        "sochi",
        {
            "whist": {"stalingrad": True, "ten_is_checked": False},
            "bidding": {"allow_jumps": True, "third_hand_may_miser": True},
            "play": {"miser_open_timing": "after_first_trick"},
        },
    ),
}


class Unheard(Command, frozen=True, tag="unheard"):
    """An action the bots have never heard of (the rules keep growing)."""


def test_the_levels_are_random_basic_strong_and_expert() -> None:
    assert list(LEVELS) == ["random", "basic", "strong", "expert"]


def test_an_action_of_an_unknown_kind_still_gets_a_legal_answer() -> None:
    game = Game()
    game.deal(
        "AS KS QS JS TS 9S AC KC AD KD", "8S 7S QC JC TC 9C QD JD TD 9D",
        "8C 7C 8D 7D AH KH QH JH TH 9H", talon="8H 7H",
    )  # fmt: skip
    view = seat_input(game.events, 0)
    claim = Unheard(seat=0)
    for legal in ((claim,), (*view.legal, claim), (claim, *view.legal)):
        odd = msgspec.structs.replace(view, legal=legal)  # type: ignore[arg-type]
        for name, decide in RAW.items():
            assert decide(odd, random.Random(1), 0.05) in legal, name


def test_a_guarded_strategy_answers_with_a_legal_default_when_it_fails() -> None:
    def broken(view: BotView, rng: random.Random, budget_s: float) -> SeatCommand:
        raise RuntimeError("a bug")

    def illegal(view: BotView, rng: random.Random, budget_s: float) -> SeatCommand:
        return PlayCard(seat=view.seat, card="AS")

    game = Game()
    game.deal(
        "AS KS QS JS TS 9S AC KC AD KD", "8S 7S QC JC TC 9C QD JD TD 9D",
        "8C 7C 8D 7D AH KH QH JH TH 9H", talon="8H 7H",
    )  # fmt: skip
    view = seat_input(game.events, 0)
    assert guarded(broken)(view, random.Random(0), 0.1) in view.legal
    assert guarded(illegal)(view, random.Random(0), 0.1) in view.legal


def _situations(view: BotView) -> set[str]:
    kinds = set()
    for a in view.legal:
        name = type(a).__name__
        if name == "MakeBid":
            name += " misère" if a.bid == "MISER" else (" dark" if a.dark else "")  # type: ignore[attr-defined]
        elif name == "CallWhist":
            name += " " + a.choice  # type: ignore[attr-defined]
        elif name == "PlayCard":
            contract = view.game.deal.contract
            name += " " + (
                "all-pass" if contract is None else "misère" if contract == "MISER" else "game"
            )
        kinds.add(name)
    return kinds


def test_every_level_meets_every_kind_of_decision_and_answers_it_legally() -> None:
    met: Counter[str] = Counter()
    rng = random.Random(20)

    def play(view: BotView, r: random.Random, level: str, where: str) -> SeatCommand:
        if any(isinstance(a, AnswerClaim) for a in view.legal):
            return claims.answer(view)  # as `guarded` does: claims are the table's
        view = msgspec.structs.replace(
            view, legal=tuple(a for a in view.legal if not isinstance(a, Claim))
        )
        action = RAW[level](view, r, BUDGET)
        assert action in view.legal, (where, level, action)
        for kind in _situations(view):
            met[f"{kind} ({level})"] += 1
        return action

    def deals(lineups: list[tuple[str, ...]]) -> None:
        for name, rules in RULESETS.items():
            for d, lineup in enumerate(lineups):
                dealer = d % rules.players
                table = Table(rules, first_dealer=dealer)
                strategies = [
                    (lambda v, r, b, lvl=lineup[(s + d) % len(lineup)], w=name: play(v, r, lvl, w))
                    for s in range(rules.players)
                ]
                table.play_deal(random_deal(rng, rules.players, dealer), strategies, rng, BUDGET)

    kinds = (
        "LookAtCards", "MakeBid", "MakeBid misère", "Pass", "TakeTalon", "Discard",
        "Declare", "CallWhist whist", "CallWhist pass", "CallWhist half_whist",
        "ChoosePlay", "PlayCard game", "PlayCard all-pass",
    )  # fmt: skip
    strong_lineups = [("strong", "strong", "basic", "random")] * 4
    expert_lineups = [("expert", "strong", "basic", "random")] * 3
    deals(
        [("basic", "basic", "basic", "basic")] * 6 + [("random", "basic")] * 6 + strong_lineups
        + expert_lineups
    )  # fmt: skip
    for level in ("basic", "strong"):
        for kind in kinds:
            assert met[f"{kind} ({level})"], f"{level} never met {kind}"
    for kind in ("LookAtCards", "MakeBid", "Pass", "PlayCard game", "PlayCard all-pass"):
        assert met[f"{kind} (expert)"], f"expert never met {kind}"
    for kind in ("PlayCard misère", "DeclareTotus", "Concede", "MakeBid dark"):
        assert met[f"{kind} (basic)"] or met[f"{kind} (random)"], kind


def test_the_default_action_of_nothing_is_a_named_refusal_not_an_index_error():
    import pytest

    from bots.common import NoLegalAction, default_action

    with pytest.raises(NoLegalAction):
        default_action([])
