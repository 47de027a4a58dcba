"""The deck, the bidding ladder and the notation of cards and bids (docs/rules.md §N, §A, §B.1)."""

from __future__ import annotations

import pytest

from domain.cards import (
    BID_RANK,
    DECK,
    FULL_LADDER,
    LADDER,
    MISER,
    MISER_WT,
    RANKS,
    SUITS,
    TALONLESS_NINES,
    check_bid,
    is_miser,
    is_talonless,
    level_of,
    parse_bid,
    parse_card,
    parse_cards,
    price,
    sort_hand,
    strain_of,
    trump_of,
)
from domain.errors import NotationError


def test_the_deck_has_32_cards_of_four_suits_from_seven_to_ace():
    assert len(DECK) == len(set(DECK)) == 32
    assert {card[1] for card in DECK} == {"S", "C", "D", "H"}
    for suit in SUITS:
        assert [c for c in DECK if c[1] == suit] == [rank + suit for rank in "789TJQKA"]


def test_ranks_ascend_seven_eight_nine_ten_jack_queen_king_ace():
    assert RANKS == "789TJQKA"


def test_suit_seniority_in_bidding_is_spades_clubs_diamonds_hearts_then_no_trump():
    sixes = [bid for bid in LADDER if bid.startswith("6")]
    assert sixes == ["6S", "6C", "6D", "6H", "6NT"]


def test_the_ladder_has_25_trick_bids_and_misere_between_8nt_and_9s():
    assert len(LADDER) == 26
    assert LADDER[0] == "6S" and LADDER[-1] == "10NT"
    assert LADDER[14:17] == ("8NT", MISER, "9S")
    assert BID_RANK["8NT"] < BID_RANK[MISER] < BID_RANK["9S"]


def test_a_higher_level_outranks_any_strain_of_a_lower_level():
    assert BID_RANK["7S"] > BID_RANK["6NT"]
    assert BID_RANK["10S"] > BID_RANK["9NT"]


@pytest.mark.parametrize(
    ("text", "card"),
    [("AS", "AS"), ("TD", "TD"), ("7h", "7H"), ("as", "AS"), ("A♠", "AS"), ("t♥", "TH"),
     ("K♦", "KD"), ("Q♣", "QC"), ("9♡", "9H")],
)  # fmt: skip
def test_cards_parse_in_upper_or_lower_case_and_with_suit_symbols(text, card):
    assert parse_card(text) == card


@pytest.mark.parametrize("text", ["1S", "10H", "10♥", "AX", "A", "ASS", "", "ТП", 7])
def test_malformed_cards_are_a_notation_error(text):
    with pytest.raises(NotationError) as refusal:
        parse_card(text)
    assert refusal.value.code == "notation"


def test_a_list_of_cards_parses_card_by_card():
    assert parse_cards(["as", "7♣"]) == ("AS", "7C")
    with pytest.raises(NotationError):
        parse_cards(["AS", "XX"])


@pytest.mark.parametrize(
    ("text", "bid"),
    [("6S", "6S"), ("6s", "6S"), ("7nt", "7NT"), ("7♥", "7H"), ("10♦", "10D"), ("10NT", "10NT"),
     ("miser", MISER), ("Misère", MISER), (" 8c ", "8C")],
)  # fmt: skip
def test_bids_parse_in_upper_or_lower_case_and_with_suit_symbols(text, bid):
    assert parse_bid(text) == bid


@pytest.mark.parametrize("text", ["5S", "11S", "6X", "6", "NT", "PASS", "", "6 S", None])
def test_malformed_bids_are_a_notation_error(text):
    with pytest.raises(NotationError) as refusal:
        parse_bid(text)
    assert refusal.value.code == "notation"


def test_level_strain_and_trump_of_a_contract():
    assert (level_of("7H"), strain_of("7H"), trump_of("7H")) == (7, "H", "H")
    assert (level_of("10NT"), strain_of("10NT"), trump_of("10NT")) == (10, "NT", None)
    assert (level_of(MISER), strain_of(MISER), trump_of(MISER)) == (0, None, None)


def test_contract_prices_are_2_4_6_8_10_and_misere_10():
    assert [price(f"{lvl}S") for lvl in (6, 7, 8, 9, 10)] == [2, 4, 6, 8, 10]
    assert price(MISER) == 10


@pytest.mark.parametrize(
    ("text", "bid"),
    [("9SWT", "9SWT"), ("9swt", "9SWT"), ("9♠ WT", "9SWT"), ("9nt-wt", "9NTWT"),
     ("9H_WT", "9HWT"), ("MISERWT", MISER_WT), ("misère wt", MISER_WT), ("Miser-WT", MISER_WT)],
)  # fmt: skip
def test_games_without_the_talon_are_written_with_the_suffix_wt(text, bid):
    assert parse_bid(text) == bid
    assert check_bid(bid) == bid


@pytest.mark.parametrize("text", ["6SWT", "10SWT", "8NTWT", "WT", "9WT", "MISER WTX"])
def test_only_nines_and_misere_are_played_without_the_talon(text):
    with pytest.raises(NotationError):
        parse_bid(text)


def test_the_full_ladder_puts_misere_then_the_nines_without_the_talon_between_9nt_and_10s():
    assert tuple(b for b in FULL_LADDER if not b.endswith("WT")) == LADDER
    assert FULL_LADDER[20:28] == ("9NT", MISER_WT, *TALONLESS_NINES, "10S")
    assert BID_RANK["9NT"] < BID_RANK[MISER_WT] < BID_RANK["9SWT"] < BID_RANK["9NTWT"]
    assert BID_RANK["9NTWT"] < BID_RANK["10S"]


def test_a_game_without_the_talon_has_the_level_strain_trump_and_price_of_its_twin():
    assert (level_of("9HWT"), strain_of("9HWT"), trump_of("9HWT"), price("9HWT")) == (
        9,
        "H",
        "H",
        8,
    )
    assert (level_of("9NTWT"), trump_of("9NTWT")) == (9, None)
    assert (level_of(MISER_WT), strain_of(MISER_WT), price(MISER_WT)) == (0, None, 10)
    assert is_miser(MISER_WT) and is_miser(MISER) and not is_miser("9SWT")
    assert is_talonless("9SWT") and is_talonless(MISER_WT) and not is_talonless("9S")


def test_an_open_hand_is_sorted_by_suit_then_rank():
    assert sort_hand(["AH", "7S", "TC", "8S"]) == ("7S", "8S", "TC", "AH")
