"""`domain.audit`: a log passes only if the rules could have produced each of its events.

Random legal pulkas (every preset, both table sizes, a clock, claims, control time) pass whole;
each forgery of issue 21 is named at its own position, with the rules' reason."""

from __future__ import annotations

import random

import msgspec
import pytest

from domain import fairness
from domain import game as g
from domain.audit import audit
from domain.deal.messages import CardPlayed, DealStarted
from domain.deal.state import Playing
from domain.rules import rules_for
from domain.simulation import play_random_pulka

SECRET = bytes(range(32))


def _log(preset: str = "sochi", players: int = 3, seed: int = 1, **table: object) -> list[g.Event]:
    overrides = {"players": players, "pool": {"target": 4}, "table": {"claims": True, **table}}
    _, appends = play_random_pulka(
        rules_for(preset, overrides), random.Random(seed), ms_per_command=1_000, claims=0.2
    )
    return [event for batch in appends for event in batch]


def _committed(events: list[g.Event]) -> list[g.Event]:
    """The log as a committed game has it: the commitment in `game_created`, the secret last."""
    created = events[0]
    assert isinstance(created, g.GameCreated)
    opened = msgspec.structs.replace(
        created, dealing="random", commitment=fairness.commitment(SECRET)
    )
    return [opened, *events[1:], g.SecretRevealed(secret=SECRET.hex())]


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("preset", ["sochi", "leningrad", "rostov"])
def test_a_log_of_legal_play_passes_whole(preset: str, players: int) -> None:
    for seed in range(3):
        events = _committed(_log(preset, players, seed, move_seconds=30, bank_seconds=60))
        checked = audit(events)
        assert checked.illegal is None, checked.illegal
        assert checked.checked == len(events)
        assert checked.state == g.fold(events)


def _first_card(events: list[g.Event]) -> int:
    return next(i for i, e in enumerate(events) if isinstance(e, CardPlayed))


def test_a_card_of_a_seat_not_to_act_is_named() -> None:
    events = _log()
    at = _first_card(events)
    before = g.fold(events[:at])
    assert isinstance(before, g.Pulka) and isinstance(before.deal, Playing)
    to_act = g.to_act(before)[0]
    other = next(s for s in range(3) if s != to_act and before.deal.hands[s])
    forged = CardPlayed(seat=other, card=before.deal.hands[other][0])
    checked = audit([*events[:at], forged, *events[at:]])
    assert checked.illegal is not None
    assert (checked.illegal.index, checked.illegal.type) == (at, "card_played")
    assert "turn" in checked.illegal.reason
    assert checked.checked == at and checked.state == before


def test_an_event_after_the_games_end_is_named() -> None:
    events = _committed(_log())
    forged = g.PlayerSeated(seat=0, player="intruder")
    checked = audit([*events, forged])
    assert checked.illegal is not None
    assert (checked.illegal.index, checked.illegal.type) == (len(events), "player_seated")
    assert "game is over" in checked.illegal.reason


def test_a_secret_revealed_before_the_end_is_named() -> None:
    events = _committed(_log())
    dealt = next(i for i, e in enumerate(events) if isinstance(e, DealStarted))
    forged = g.SecretRevealed(secret=SECRET.hex())
    checked = audit([*events[: dealt + 1], forged, *events[dealt + 1 :]])
    assert checked.illegal is not None
    assert (checked.illegal.index, checked.illegal.type) == (dealt + 1, "secret_revealed")
    assert "illegal.not_over" in checked.illegal.reason


def test_a_revealed_secret_that_does_not_open_the_commitment_is_named() -> None:
    events = _committed(_log())
    forged = g.SecretRevealed(secret=bytes(32).hex())
    checked = audit([*events[:-1], forged])
    assert checked.illegal is not None
    assert (checked.illegal.index, checked.illegal.type) == (len(events) - 1, "secret_revealed")
    assert "does not open" in checked.illegal.reason


def test_an_event_no_command_begins_with_is_named() -> None:
    events = _log()
    at = _first_card(events)
    scored = next(e for e in events if isinstance(e, g.DealScored))
    checked = audit([*events[:at], scored, *events[at:]])
    assert checked.illegal is not None
    assert (checked.illegal.index, checked.illegal.type) == (at, "deal_scored")
    assert "no command of the rules begins with 'deal_scored'" in checked.illegal.reason


def test_a_consequence_the_rules_do_not_give_is_named_where_it_differs() -> None:
    """A deal scored otherwise than its outcome gives: the card before it is explained, the
    score is the event named."""
    events = _log()
    at = next(i for i, e in enumerate(events) if isinstance(e, g.DealScored))
    scored = events[at]
    assert isinstance(scored, g.DealScored)
    forged = msgspec.structs.replace(scored, next_min_level=scored.next_min_level + 1)
    checked = audit([*events[:at], forged, *events[at + 1 :]])
    assert checked.illegal is not None
    assert (checked.illegal.index, checked.illegal.type) == (at, "deal_scored")
    assert "the rules produce" in checked.illegal.reason


def test_a_log_cut_inside_a_command_is_named() -> None:
    events = _log()
    at = next(i for i, e in enumerate(events) if isinstance(e, g.DealScored))
    checked = audit(events[:at])
    assert checked.illegal is not None
    assert checked.illegal.index == at
    assert "the log ends" in checked.illegal.reason


def test_no_value_an_event_field_can_take_makes_the_audit_raise() -> None:
    """Every int field of every event of a log set out of any range (a seat 7 or -1, a trick
    count of 99), every str field set to nonsense: the audit answers, it never raises (and names
    an event for nearly all; a time or a client's seed may take any value)."""
    events = _committed(_log(seed=4))
    forged = named = 0
    for at, event in enumerate(events):
        for field in msgspec.structs.fields(type(event)):
            value = getattr(event, field.name)
            if isinstance(value, bool) or not isinstance(value, int | str):
                continue
            for wrong in (7, -1, 99) if isinstance(value, int) else ("ZZ", ""):
                try:
                    changed = msgspec.structs.replace(event, **{field.name: wrong})
                except (TypeError, ValueError):
                    continue
                if changed == event:
                    continue
                checked = audit([*events[:at], changed, *events[at + 1 :]])
                forged += 1
                named += checked.illegal is not None  # here, or later (a commitment at its reveal)
    assert forged > 100 and named > 0.8 * forged, (forged, named)
