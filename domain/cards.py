"""Cards, bids and contracts in the notation of docs/rules.md §N.

A card is its canonical two-letter string, rank then suit (``"7S"``, ``"TD"``, ``"AH"``); a bid or
contract is a string on the ladder (``"6S"``, ``"7NT"``, ``"MISER"``), and a game without the talon
(игра без прикупа) carries the suffix ``WT`` (``"9SWT"``, ``"MISERWT"``). Strings keep events small,
readable and directly JSON; lookups go through the precomputed tables below, which is what keeps
the fold fast (a dict hit instead of parsing on every trick).
"""

from __future__ import annotations

from typing import Annotated, Final

import msgspec

from domain.errors import NotationError

SUITS: Final = ("S", "C", "D", "H")
"""Suits in bidding seniority: spades (пики) < clubs (трефы) < diamonds (бубны) < hearts (червы)."""
STRAINS: Final = (*SUITS, "NT")
"""Trump strains of a trick bid; no-trump (без козыря) is above every suit at the same level."""
RANKS: Final = "789TJQKA"
"""Ranks from low to high; T is the ten."""

Card = Annotated[str, msgspec.Meta(pattern="^[789TJQKA][SCDH]$", examples=["AH", "7S", "TD"])]
"""A card in canonical notation: rank then suit."""

DECK: Final[tuple[str, ...]] = tuple(r + s for s in SUITS for r in RANKS)
"""The 32-card deck (колода), in suit then rank order."""

SUIT_OF: Final[dict[str, str]] = {c: c[1] for c in DECK}
RANK_OF: Final[dict[str, int]] = {c: RANKS.index(c[0]) for c in DECK}
SORT_KEY: Final[dict[str, int]] = {c: i for i, c in enumerate(DECK)}

MISER: Final = "MISER"
"""Misère (мизер): the declarer undertakes to take no trick."""
PASS: Final = "PASS"

LEVELS: Final = (6, 7, 8, 9, 10)
TRICK_BIDS: Final[tuple[str, ...]] = tuple(f"{lvl}{s}" for lvl in LEVELS for s in STRAINS)

LADDER: Final[tuple[str, ...]] = (*TRICK_BIDS[:15], MISER, *TRICK_BIDS[15:])
"""The bidding ladder (лестница), lowest first: 6♠ … 8NT, misère, 9♠ … 10NT (docs/rules.md §B.1)."""

WITHOUT_TALON: Final = "WT"
"""Suffix of a game without the talon (игра без прикупа), spelt as preferans.pro does ([C3])."""
MISER_WT: Final = MISER + WITHOUT_TALON
"""Misère without the talon (мизер без прикупа): nobody looks at the talon (I-5, I-6)."""
TALONLESS_NINES: Final[tuple[str, ...]] = tuple(f"9{s}{WITHOUT_TALON}" for s in STRAINS)
"""Nines without the talon (девятерная без прикупа), 9♠ … 9NT (I-6)."""

FULL_LADDER: Final[tuple[str, ...]] = (*LADDER[:21], MISER_WT, *TALONLESS_NINES, *LADDER[21:])
"""The ladder with the games without the talon where the rules allow them (I-5, I-6): … 9NT,
misère without the talon, 9♠ … 9NT without the talon, 10♠ … 10NT. Misère without the talon is
overcalled by "the same game without the talon, or a bigger one" (Lesnoy's glossary) and sits
after 9NT and before the talon-less nine in preferans.pro's ladder ([C3] ``BidsRank``)."""
BID_RANK: Final[dict[str, int]] = {b: i for i, b in enumerate(FULL_LADDER)}

Bid = Annotated[
    str,
    msgspec.Meta(
        pattern="^(?:(?:[6-9]|10)(?:S|C|D|H|NT)|MISER|9(?:S|C|D|H|NT)WT|MISERWT)$",
        examples=["6S", "7NT", "MISER", "9SWT", "MISERWT"],
    ),
]
"""A bid or a final contract on the (full) ladder."""

Seat = int
"""A seat at the table: ``0 .. players-1``, clockwise (docs/rules.md §N)."""

_SUIT_ALIASES: Final = {
    "S": "S", "C": "C", "D": "D", "H": "H",
    "♠": "S", "♣": "C", "♦": "D", "♥": "H", "♤": "S", "♧": "C", "♢": "D", "♡": "H",
}  # fmt: skip


def parse_card(text: str) -> str:
    """The canonical card for ``text``; accepts lower case and suit symbols (``"as"``, ``"A♠"``)."""
    if not isinstance(text, str) or len(text) != 2:
        raise NotationError(f"{text!r} is not a card: expected rank then suit, e.g. 'AS' or 'TD'")
    rank, suit = text[0].upper(), _SUIT_ALIASES.get(text[1].upper())
    if rank not in RANKS or suit is None:
        raise NotationError(f"{text!r} is not a card: ranks are 7 8 9 T J Q K A, suits S C D H")
    return rank + suit


def parse_cards(texts: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    return tuple(parse_card(t) for t in texts)


_EXPECTED = "expected 6S … 10NT or MISER (without the talon: 9SWT … 9NTWT, MISERWT)"


def parse_bid(text: str) -> str:
    """The canonical bid or contract for ``text`` (``"6s"`` → ``"6S"``, ``"7♥"`` → ``"7H"``,
    ``"9♠ wt"`` → ``"9SWT"``, ``"misère-wt"`` → ``"MISERWT"``)."""
    if not isinstance(text, str):
        raise NotationError(f"{text!r} is not a bid")
    up = text.strip().upper()
    suffix = ""
    if up.endswith(WITHOUT_TALON):
        up, suffix = up[: -len(WITHOUT_TALON)].rstrip(" -_/."), WITHOUT_TALON
    if up in ("MISER", "MISÈRE", "MISERE"):
        bid = MISER + suffix
    else:
        level, strain = (
            up[:-2] if up.endswith("NT") else up[:-1],
            up[-2:] if up.endswith("NT") else up[-1:],
        )
        strain = "NT" if strain == "NT" else _SUIT_ALIASES.get(strain, "")
        bid = f"{level}{strain}{suffix}"
    if bid not in BID_RANK:
        raise NotationError(f"{text!r} is not a bid: {_EXPECTED}")
    return bid


def check_bid(bid: str) -> str:
    """``bid`` itself if it is on the ladder, as written (no aliases); a `NotationError` if not.

    Commands built in Python skip the JSON pattern check: a malformed bid fails here, typed.
    """
    if bid not in BID_RANK:
        raise NotationError(f"{bid!r} is not a bid: {_EXPECTED}")
    return bid


def is_miser(bid: str | None) -> bool:
    """Misère, with the talon or without it."""
    return bid in (MISER, MISER_WT)


def is_talonless(bid: str | None) -> bool:
    """A game without the talon (игра без прикупа): ``9SWT`` … ``9NTWT``, ``MISERWT``."""
    return bid is not None and bid.endswith(WITHOUT_TALON)


def _with_talon(bid: str) -> str:
    return bid[: -len(WITHOUT_TALON)] if bid.endswith(WITHOUT_TALON) else bid


def level_of(bid: str) -> int:
    """Tricks undertaken by a trick contract (6..10); misère counts as level 0 here."""
    bid = _with_talon(bid)
    return 0 if bid == MISER else int(bid[:-2] if bid.endswith("NT") else bid[:-1])


def strain_of(bid: str) -> str | None:
    """The trump suit of a trick contract, ``"NT"`` for no-trump, None for misère."""
    bid = _with_talon(bid)
    if bid == MISER:
        return None
    return "NT" if bid.endswith("NT") else bid[-1]


def trump_of(bid: str) -> str | None:
    """The trump suit in play, or None (no-trump, misère)."""
    strain = strain_of(bid)
    return None if strain in (None, "NT") else strain


def price(contract: str) -> int:
    """Contract price (цена игры): 6→2, 7→4, 8→6, 9→8, 10→10, misère→10 (docs/rules.md §F.0). A game
    without the talon has its level's price here; ``scoring.talonless_extra`` may add to it."""
    return 10 if is_miser(contract) else 2 * (level_of(contract) - 5)


def sort_hand(cards: tuple[str, ...] | list[str] | frozenset[str]) -> tuple[str, ...]:
    """Cards in suit then rank order, as an open hand is laid out (docs/rules.md §E.2)."""
    return tuple(sorted(cards, key=SORT_KEY.__getitem__))
