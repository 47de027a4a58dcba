"""The double-dummy analysis of a finished deal names the cards that gave tricks away.

The hand-built deal: the first hand (seat 0, forehand, dealer seat 2) holds all eight spades,
the ace of clubs and the seven of diamonds, and plays 8NT. Cashing the spades and the club ace
takes nine tricks (the seven of diamonds always loses to seat 1's diamonds): par 9. Leading the
seven of diamonds first is the known mistake: seat 1 wins it and runs three more diamonds, and
the declarer must throw three winners away, so he ends with six. The lead costs three tricks
and sinks the contract.
"""

from __future__ import annotations

from domain.cards import parse_cards
from domain.deal.decider import decide, fold, initial_state, to_act
from domain.deal.messages import (
    CallWhist,
    Declare,
    Discard,
    MakeBid,
    Pass,
    PlayCard,
    SeatCommand,
    StartDeal,
    TakeTalon,
)
from domain.deal.state import DealState, Playing
from domain.rules import SOCHI
from domain.solver import from_playing, solve
from projections.analysis import analyse


def cards(text: str) -> tuple[str, ...]:
    return parse_cards(text.split())


HANDS = (
    cards("AS KS QS JS TS 9S 8S 7S AC 7D"),
    cards("KC QC JC TC 9C 8C AD KD QD JD"),
    cards("AH KH QH JH TH 9H 8H 7H 8D 9D"),
)
TALON = ("TD", "7C")


def _deal_with_a_mistake() -> list[object]:
    state: DealState = initial_state(SOCHI)
    events: list[object] = []

    def do(command: StartDeal | SeatCommand) -> None:
        nonlocal state
        new = decide(command, state)
        events.extend(new)
        state = fold(state, new)

    do(StartDeal(dealer=2, hands=HANDS, talon=TALON))
    for command in (
        MakeBid(seat=0, bid="6S"), Pass(seat=1), Pass(seat=2), TakeTalon(seat=0),
        Discard(seat=0, cards=TALON), Declare(seat=0, contract="8NT"),
        CallWhist(seat=1, choice="whist"), CallWhist(seat=2, choice="whist"),
    ):  # fmt: skip
        do(command)
    assert isinstance(state, Playing)
    do(PlayCard(seat=0, card="7D"))  # the mistake
    while to_act(state):
        assert isinstance(state, Playing)
        (seat,) = to_act(state)
        best = solve(from_playing(state)).best()[0]  # everyone plays perfectly from here
        do(PlayCard(seat=seat, card=best))
    return events


def test_the_analysis_names_the_losing_lead_and_its_cost() -> None:
    analysis = analyse(_deal_with_a_mistake(), SOCHI)
    assert analysis.kind == "game" and analysis.contract == "8NT" and analysis.declarer == 0
    assert analysis.opening_par == (9, None, None)
    assert analysis.result[0] == 6
    (mistake,) = analysis.mistakes
    assert (mistake.trick, mistake.seat, mistake.card, mistake.cost) == (1, 0, "7D", 3)
    assert mistake.decisive
    assert "7♦" in analysis.summary[1] and "8NT now fails" in analysis.summary[1]


def test_par_is_kept_by_every_later_card_and_falls_by_the_cost_at_the_mistake() -> None:
    analysis = analyse(_deal_with_a_mistake(), SOCHI)
    first, *rest = analysis.cards
    assert (first.par, first.after, first.cost) == (9, 6, 3)
    assert first.best and set(first.best) <= set(cards("AS KS QS JS TS 9S 8S 7S AC"))
    assert all(c.cost == 0 and c.par == 6 == c.after for c in rest)
    assert len(analysis.cards) == 30


def test_a_deal_without_play_has_nothing_to_analyse() -> None:
    state: DealState = initial_state(SOCHI)
    events: list[object] = []
    for command in (
        StartDeal(dealer=2, hands=HANDS, talon=TALON), MakeBid(seat=0, bid="6S"),
        Pass(seat=1), Pass(seat=2), TakeTalon(seat=0), Discard(seat=0, cards=TALON),
        Declare(seat=0, contract="6S"), CallWhist(seat=1, choice="pass"),
        CallWhist(seat=2, choice="pass"),
    ):  # fmt: skip
        new = decide(command, state)
        events.extend(new)
        state = fold(state, new)
    analysis = analyse(events, SOCHI)
    assert analysis.kind is None and analysis.cards == () and analysis.mistakes == ()


def test_a_whole_game_is_analysed_deal_by_deal_and_each_card_counts_against_its_chooser() -> None:
    from pulkas import flat, play_pulka, small_rules

    from projections.game_analysis import analyse_game
    from projections.replay import DealNotFound, deal_log

    for players in (3, 4):
        _, appends = play_pulka(small_rules("leningrad", players, target=2), seed=7)
        events = flat(appends)
        whole = analyse_game(events, layouts=0)  # the cards alone
        expected_lost: dict[str, int] = {}
        expected_deals: dict[str, int] = {}
        n = 0
        while True:
            n += 1
            try:
                log = deal_log(events, n)
            except DealNotFound:
                break
            if not log.finished:
                continue
            one = analyse(log.events, log.rules)
            assert one in [d.analysis for d in whole.deals if d.deal_no == n]
            for seat in {c.by for c in one.cards}:
                player = log.players[seat]
                assert player is not None
                expected_deals[player] = expected_deals.get(player, 0) + 1
                lost = sum(c.cost for c in one.cards if c.by == seat)
                expected_lost[player] = expected_lost.get(player, 0) + lost
        assert {p.player: p.deals for p in whole.players} == expected_deals
        assert {p.player: p.tricks_lost for p in whole.players} == expected_lost
        assert sum(expected_deals.values()) > 0
        # At four the dealer sits out: his seat never chooses a card in his own deal.
        for d in whole.deals:
            dealer = deal_log(events, d.deal_no).events[0].dealer  # type: ignore[union-attr]
            if players == 4:
                assert all(c.by != dealer for c in d.analysis.cards)
