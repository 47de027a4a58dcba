"""The rules of a game as data: every choice of docs/rules.md §I is a field here, never a constant.

A `Rules` value is frozen and stored with the game that was created with it, so a later change of
defaults never changes an old game's meaning. A preset (Sochi, Leningrad, Rostov) is only a bundle
of these options, and `rules_for` lets a game override any of them::

    rules_for("leningrad", {"pool": {"target": 20}})

Field names follow the setting names of docs/rules.md §I (``bidding.allow_jumps`` …).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from domain.errors import InvalidRules


class _Options(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class BiddingRules(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Bidding (торговля), docs/rules.md §B and I-1…I-6."""

    allow_jumps: bool = False
    """I-1. The Codex makes every bid the next step up; some clubs allow jump bids."""
    hold_rule: Literal["senior", "starter", "through_passer"] = "senior"
    """I-2. Who may hold («здесь», «мои»): the senior of two remaining bidders (Codex); the player
    who opened the bidding, at any time (OpenPref); only through a passer, never on 6♠ or misère."""
    hold_lapses: bool = False
    """I-3. S0 read literally: a senior who does not hold at his first chance loses the right."""
    third_hand_silent_talon: bool = True
    """I-4. After two passes the last hand may take the talon without a bid (Lesnoy 3.3.15)."""
    third_hand_may_miser: bool = False
    """I-4. Whether that silent taker may still declare misère."""
    miser_without_talon: bool = False
    """I-5. A misère bidder outbid by a nine may raise to misère without the talon (мизер без
    прикупа), where the nine could only pass (preferans.pro [C3]; Lesnoy's glossary: "possible
    only by agreement"); it is overcalled by a nine without the talon or a ten."""
    talonless_games: bool = False
    """I-6. Games without the talon (игры без прикупа) may be bid: misère without the talon as a
    player's first bid, and nines without the talon (9♠ … 9NT) above it, below 10♠ ([C3]
    ``BidsRank``, [P16]). The talon stays face down and nobody sees it."""


class WhistRules(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Whisting (вистование), docs/rules.md §D and I-7, I-8, I-10, I-21, I-24."""

    ten_is_checked: bool = True
    """I-7. A 10-trick game is checked (проверяется), not whisted."""
    half_whist: bool = True
    """Half-whist (полвиста) on 6 and 7."""
    style: Literal["greedy", "gentleman"] = "greedy"
    """I-10. Greedy (жлобский) or gentleman (джентльменский) single whist."""
    responsibility: Literal["full", "half"] = "full"
    """I-21. A short whist (недовист) costs the full price or half the price per missing trick."""
    classic_full_after_close: bool = False
    """I-21. Classic: half-responsible until the whister's pool is closed, then responsible."""
    liability_8_10: Literal["second", "both", "split"] = "second"
    """I-8. Two whisters short on 8, 9, 10: the second to say whist answers (Lesnoy), or both, or
    half each."""
    liability_6_7_cap: bool = False
    """I-8b. Cap each whister's shortfall on 6/7 at the pair's shortfall."""
    stalingrad: bool = False
    """I-24. «Сталинград»: both opponents must whist a 6♠."""


class ScoringRules(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Per-convention scale of the pool sheet (docs/rules.md §F)."""

    whist_factor: Annotated[int, Meta(ge=1, le=10)] = 1
    """Whists per defender trick = price × this (Leningrad writes 2P)."""
    remiz_factor: Annotated[int, Meta(ge=1, le=10)] = 1
    """Declarer's mountain per undertrick = price × this (Leningrad 2P)."""
    miser_fail_per_trick: Annotated[int, Meta(ge=1, le=1000)] = 10
    """Mountain per trick taken on a failed misère (Leningrad 20)."""
    consolation: Literal["price", "double_price", "flat"] = "price"
    """I-11. Consolation (консоляция) per undertrick: P, 2P, or a flat amount."""
    consolation_flat: Annotated[int, Meta(ge=0, le=1000)] = 10
    """The flat consolation per undertrick when ``consolation == "flat"`` (Rostov)."""
    miser_consolation: Annotated[int, Meta(ge=0, le=1000)] = 0
    """I-9. Whists per trick that each other player writes on a failed misère (Rostov 10)."""
    talonless_extra: Annotated[int, Meta(ge=0, le=100)] = 0
    """I-6. Added to the price P of a game without the talon (an even number, so whists still
    halve). 0: priced as with the talon, as preferans.pro prices its misère without the talon
    (10) and Lesnoy's glossary the old "big misère" played without it (10 to the pool, 10 a
    trick); no source prices a nine without the talon."""


class RaspasyRules(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """All-pass (распасы), docs/rules.md §E.4, §F and I-12…I-16, I-22, I-23."""

    writing: Literal["mountain", "whists"] = "mountain"
    """Tricks go to the mountain (Sochi, Leningrad, Classic) or are written in whists (Rostov)."""
    base_price: Annotated[int, Meta(ge=1, le=100)] = 1
    """I-23. Mountain per trick on the first all-pass of a streak (Leningrad 2)."""
    progression: Literal["none", "arith", "geom"] = "arith"
    """I-22. Price of consecutive all-passes: constant, 1-2-3…, or 1-2-4…"""
    progression_cap: Annotated[int, Meta(ge=0, le=100)] = 3
    """I-22. The price stops growing at the cap-th all-pass in a row, as [C3] caps its round
    (1-2-3-3 for ``arith``, 1-2-4-4 for ``geom`` with the cap 3); 0 = no cap."""
    zero_trick_bonus: bool = True
    """A player who took no trick writes the price of one trick to his pool."""
    whist_per_trick: Annotated[int, Meta(ge=1, le=100)] = 5
    """Rostov: whists per trick written by the player with the fewest tricks."""
    rostov_tie: Literal["half_each"] = "half_each"
    """I-14b. Two players tied for the fewest tricks each write ⌊tricks × price / 2⌋."""
    use_talon: bool = True
    """Whether the talon cards set the suit of the first two tricks (Rostov: never opened)."""
    amnesty: bool = False
    """I-13. Write (tricks − fewest) × price instead of tricks × price; same settlement."""
    exit_sequence: Annotated[
        tuple[Annotated[int, Meta(ge=6, le=10)], ...], Meta(min_length=1, max_length=10)
    ] = (6,)
    """I-12. Minimum opening level of the deals after an all-pass; the last level repeats."""
    exit_requires: Literal["any", "made"] = "any"
    """I-12b. What ends an all-pass streak: any played contract, or only a made one."""
    dealer_writes_pool_point: bool = False
    """I-16. At a table of four the dealer writes one pool point on an all-pass (Rostov)."""


class PlayRules(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Play (розыгрыш), docs/rules.md §E and I-14, I-15."""

    miser_open_timing: Literal["codex", "after_first_trick"] = "codex"
    """I-15. The catchers' cards open at once if a catcher leads, else after the misère player's
    first lead (S0); or only after the first trick."""
    concede: Literal["none", "down2", "down3"] = "none"
    """I-17. The declarer may concede without play («без трёх», «без двух»)."""


class PoolRules(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The pool (пуля), its closing and the end of the game, docs/rules.md §G and I-18, I-19, I-25,
    I-27, I-29."""

    target: Annotated[int, Meta(ge=1, le=1000)] = 10
    """I-27. Pool each player must reach."""
    help_enabled: bool = True
    """I-19. Excess over the target goes as help (помощь) into another's pool."""
    help_whists_per_point: Annotated[int, Meta(ge=0, le=1000)] = 10
    slide_after_raspasy: bool = False
    """I-25. The deal stays with the same dealer after an all-pass."""
    max_deals: Annotated[int, Meta(ge=0, le=1000)] = 0
    """§G. The game also ends once this many deals are played, pools closed or not, and the
    unclosed pools are settled (a tournament's fixed number of deals; no source sets one).
    0: no limit."""
    time_limit_minutes: Annotated[int, Meta(ge=0, le=10080)] = 0
    """§G [P18]. The control time (контрольное время) from the game's creation: a deal that
    ends after it starts the last round, or ends the game (``last_round``). The time is read from
    the ``at`` of the command that ends the deal; 0: no limit."""
    last_round: bool = True
    """§G [P18]: after the control time «начинается последний круг», one more deal by each seat
    (the game ends when the deal comes back to the seat that dealt first in it); off: the game
    ends with the deal in which the time ran out."""
    write_order: Literal["forehand", "simultaneous"] = "forehand"
    """I-29. Two pool writes of one deal that both pass the target (two players without a trick
    in an all-pass): applied one after the other in playing order from the first hand, so the
    first one's help may close the second one's pool; or simultaneously, every write filling its
    own pool before any excess is given. No source states an order; it changes the settlement."""


class SettlementRules(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Final settlement (расчёт), docs/rules.md §H and I-20, I-28."""

    whists_per_mountain_point: Annotated[int, Meta(ge=1, le=1000)] = 10
    """Mountain to whists: each other player writes M × this / n on a player."""
    pool_weight: Annotated[int, Meta(ge=1, le=10)] = 1
    """I-28. A pool point weighs this many mountain points (Leningrad 2)."""
    rounding: Literal["largest_remainder", "floor"] = "largest_remainder"
    """I-20. Exact nets, rounded to whole whists keeping the zero sum; or OpenPref's floor."""


class ClassicRules(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Classic (классика) options, docs/rules.md §B.3, §C, §F.4, I-26; all off by default."""

    dark_games: bool = False
    """Pass and bids in the dark (втёмную), made before looking at one's cards."""
    bombs: bool = False
    """A dark passer of an all-pass gets a bomb that doubles his next writing."""
    totus: bool = False
    """Totus (тотус): the declarer shows 12 unbeatable cards, the opponents choose his discard."""


class Players4Rules(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A table of four (вчетвером), docs/rules.md §A, §D.1, I-16: the dealer gets no cards and sits
    the deal out, but he may still whist, and some tables let him play the talon on an all-pass."""

    dealer_whist: bool = True
    """§A(b), §D.1 (Lesnoy 3.8.8–3.8.8.1): when the opponents leave a contract unwhisted (pass,
    pass; or a half-whist that nobody returns) the deal is not scored at once: the dealer is asked
    last whether he whists, after looking at the cards of one of the declarer's opponents if he
    likes. His whist makes a half-whister a passer (3.8.8.2). Off: the dealer is never asked."""
    dealer_whist_hand: Literal["looked", "may_look", "open"] = "looked"
    """Whose cards a whisting dealer plays; the sources are silent. ``looked``: the hand of the
    opponent he looked at (he must look before he whists), and he then chooses open or closed play
    as any single whister; ``may_look``: S4 3.8.8 as written («сдатчику, который может посмотреть
    в карты одного из противников»): he may look first, and then plays as under ``looked``, or
    whist without looking, and then plays both hands laid open as under ``open``; ``open``: both
    opponents' hands are laid open at once and he plays both, in the light, without looking
    first."""
    dealer_raspasy: Literal["sits_out", "plays_talon"] = "sits_out"
    """I-16. On an all-pass the dealer sits out (S0); or ([C6]) he turns the talon and plays its
    two cards in the first two tricks, taking a trick his talon card wins (up to two), written as
    any all-pass trick. Needs ``raspasy.use_talon``."""


class TableRules(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The table around the cards (docs/tables.md): clocks, timeouts, absence, leaving, claims.
    Not rules of the card game: scoring never reads them, and every preset leaves them off but
    claims."""

    move_seconds: Annotated[int, Meta(ge=0, le=3600)] = 0
    """Time for each move; 0: no time per move."""
    bank_seconds: Annotated[int, Meta(ge=0, le=86_400)] = 0
    """Each player's time bank (запас времени), spent once a move's own time is used up; when
    both are spent the move times out. 0: no bank. No clock at all while both are 0."""
    increment_seconds: Annotated[int, Meta(ge=0, le=3600)] = 0
    """Added to a player's bank after each move he makes himself."""
    timeouts_to_absent: Annotated[int, Meta(ge=0, le=100)] = 3
    """After this many timeouts in a row the seat is marked absent and played for until its
    player acts again; 0: never."""
    stand_in: Literal["basic", "simplest"] = "basic"
    """Who moves for a seat that timed out, is absent or was abandoned: the ``basic`` bot, or the
    simplest legal move (the first listed; a claim is rejected)."""
    claims: bool = True
    """The declarer (in an all-pass any player) may claim tricks (docs/tables.md, Claims)."""
    reseat: bool = False
    """A seat its player abandoned may be taken by another player, who plays it from then on."""
    abandon_rating: Literal["last", "as_played"] = "last"
    """How ratings count a player who abandoned the game: as finishing last, or by the result
    of his seat as it was played for him to the end."""
    rating_weight: Annotated[int, Meta(ge=0, le=300)] = 100
    """How much the game moves its players' ratings, in percent of an ordinary game: 0 leaves
    them as they are (a friendly, не на рейтинг), 100 is an ordinary game, more counts more (a
    tournament's tables take the event's weight, docs/tournaments.md)."""


class Rules(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The whole rules of a game. Immutable, stored with the game."""

    convention: Annotated[str, Meta(max_length=64, pattern=r"^[^\x00-\x1f\x7f]*$")] = "sochi"
    """The preset this bundle started from (informational)."""
    players: Literal[3, 4] = 3
    bidding: BiddingRules = BiddingRules()
    whist: WhistRules = WhistRules()
    scoring: ScoringRules = ScoringRules()
    raspasy: RaspasyRules = RaspasyRules()
    play: PlayRules = PlayRules()
    pool: PoolRules = PoolRules()
    settlement: SettlementRules = SettlementRules()
    classic: ClassicRules = ClassicRules()
    players4: Players4Rules = Players4Rules()
    table: TableRules = TableRules()

    def __post_init__(self) -> None:
        if self.pool.target < 1:
            raise InvalidRules("pool.target must be at least 1")
        if not self.raspasy.exit_sequence or not all(
            6 <= lvl <= 10 for lvl in self.raspasy.exit_sequence
        ):
            raise InvalidRules("raspasy.exit_sequence must list levels between 6 and 10")
        if self.raspasy.base_price < 1 or self.raspasy.progression_cap < 0:
            raise InvalidRules("raspasy.base_price must be ≥ 1 and progression_cap ≥ 0")
        if self.pool.max_deals < 0 or self.pool.time_limit_minutes < 0:
            raise InvalidRules("pool.max_deals and pool.time_limit_minutes must be ≥ 0")
        if self.scoring.talonless_extra < 0 or self.scoring.talonless_extra % 2:
            raise InvalidRules("scoring.talonless_extra must be an even number ≥ 0")
        if self.players4.dealer_raspasy == "plays_talon" and not self.raspasy.use_talon:
            raise InvalidRules(
                "players4.dealer_raspasy='plays_talon' needs raspasy.use_talon: the dealer plays "
                "the talon cards of the first two all-pass tricks"
            )


SOCHI = Rules(convention="sochi")
"""Sochi (сочинка): greedy responsible whist, all-pass 1-2-3 to the mountain, help on overflow."""

LENINGRAD = Rules(
    convention="leningrad",
    whist=WhistRules(style="gentleman", responsibility="half"),
    scoring=ScoringRules(
        whist_factor=2, remiz_factor=2, miser_fail_per_trick=20, consolation="double_price"
    ),
    raspasy=RaspasyRules(base_price=2, exit_sequence=(6, 7, 7)),
    settlement=SettlementRules(pool_weight=2),
)
"""Leningrad («Питер»): the sheet at twice the Sochi scale, gentleman half-responsible whist."""

ROSTOV = Rules(
    convention="rostov",
    whist=WhistRules(style="gentleman", responsibility="half"),
    scoring=ScoringRules(consolation="flat", consolation_flat=10, miser_consolation=10),
    raspasy=RaspasyRules(
        writing="whists", progression="none", use_talon=False, dealer_writes_pool_point=True
    ),
)
"""Rostov (московская пулька): all-pass written in whists, gentleman half-responsible whist."""

PRESETS: dict[str, Rules] = {"sochi": SOCHI, "leningrad": LENINGRAD, "rostov": ROSTOV}


def _merge(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def rules_for(preset: str = "sochi", overrides: dict[str, Any] | None = None) -> Rules:
    """The preset's rules with ``overrides`` (a nested dict of option names) applied."""
    if preset not in PRESETS:
        raise InvalidRules(f"unknown preset {preset!r}; known: {', '.join(PRESETS)}")
    raw = _merge(msgspec.to_builtins(PRESETS[preset]), overrides or {})
    try:
        return msgspec.convert(raw, Rules)
    except msgspec.ValidationError as exc:
        raise InvalidRules(f"invalid rules option: {exc}") from exc
