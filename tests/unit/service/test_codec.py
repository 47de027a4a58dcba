"""The event codec: stable type names, upcaster chains, and the domain's golden fixtures.

Golden fixtures live in tests/fixtures/events/<type>@<schema_version>.json, one per historical
shape of every domain event, as stored. `bench/make_event_fixtures.py` writes the missing ones by
playing random pulkas with the pure domain; a released fixture is never rewritten. Reshaping an
event means: bump its version in `service.eventlog.codec.SCHEMA_VERSIONS`, add the upcaster from the
old version to `service.eventlog.codec.UPCASTERS`, and run the script to add the new version's
fixture.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest

from domain.game import GameCreated
from domain.scoring import raspasy_price
from service.eventlog.codec import (
    EventCodec,
    EventDecodeError,
    UnknownEventType,
    domain_codec,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "events"
FIXTURE_NAME = re.compile(r"(?P<type>[a-z][a-z0-9_]*)@(?P<version>[1-9][0-9]*)\.json")


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    pass


class BidMade(Event, tag="bid_made"):
    seat: int
    contract: str
    hold: bool = False


class Passed(Event, tag="passed"):
    seat: int


def bid_made_v1(data: dict[str, Any]) -> tuple[str, int, dict[str, Any]]:
    """v1 called the contract ``bid``."""
    data = dict(data)
    data["contract"] = data.pop("bid")
    return "bid_made", 2, data


def bid_made_v2(data: dict[str, Any]) -> tuple[str, int, dict[str, Any]]:
    """v2 wrote a hold as the contract "hold"; v3 has a flag."""
    held = data["contract"] == "hold"
    return "bid_made", 3, {**data, "contract": "?" if held else data["contract"], "hold": held}


def bid_placed_v1(data: dict[str, Any]) -> tuple[str, int, dict[str, Any]]:
    """A retired alias: the first name of bid_made."""
    return "bid_made", 1, data


UPCASTERS = {
    ("bid_made", 1): bid_made_v1,
    ("bid_made", 2): bid_made_v2,
    ("bid_placed", 1): bid_placed_v1,
}
codec = EventCodec(BidMade | Passed, UPCASTERS, schema_versions={"bid_made": 3})


def test_events_are_stored_under_their_tag_at_the_current_version() -> None:
    name, version, data = codec.encode(BidMade(seat=1, contract="6S"))
    assert (name, version) == ("bid_made", 3)
    assert msgspec.json.decode(data) == {
        "type": "bid_made",
        "seat": 1,
        "contract": "6S",
        "hold": False,
    }
    assert codec.encode(Passed(seat=2))[:2] == ("passed", 1)
    assert dict(codec.current_versions) == {"bid_made": 3, "passed": 1}


@pytest.mark.parametrize(
    "data",
    [
        b'{"type": "bid_made", "seat": 1, "contract": "7H", "hold": true}',
        '{"seat": 1, "contract": "7H", "hold": true}',
        {"type": "bid_made", "seat": 1, "contract": "7H", "hold": True},
    ],
)
def test_current_events_decode_from_bytes_text_or_dict(data: Any) -> None:
    assert codec.decode("bid_made", 3, data) == BidMade(seat=1, contract="7H", hold=True)


def test_old_versions_go_through_every_upcaster_in_turn() -> None:
    assert codec.decode("bid_made", 1, '{"seat": 2, "bid": "8NT"}') == BidMade(
        seat=2, contract="8NT"
    )
    assert codec.decode("bid_made", 1, {"seat": 2, "bid": "hold"}) == BidMade(
        seat=2, contract="?", hold=True
    )
    assert codec.decode("bid_made", 2, {"seat": 0, "contract": "6S"}) == BidMade(
        seat=0, contract="6S"
    )


def test_a_retired_type_name_upcasts_into_its_successor() -> None:
    stored = '{"type": "bid_placed", "seat": 1, "bid": "6D"}'
    assert codec.decode("bid_placed", 1, stored) == BidMade(seat=1, contract="6D")


def test_decoding_leaves_the_callers_data_untouched() -> None:
    data = {"type": "bid_made", "seat": 2, "bid": "7S"}
    codec.decode("bid_made", 1, data)
    assert data == {"type": "bid_made", "seat": 2, "bid": "7S"}


def test_stored_data_that_no_longer_fits_is_a_typed_error() -> None:
    with pytest.raises(UnknownEventType):
        codec.decode("bid_withdrawn", 1, "{}")
    with pytest.raises(EventDecodeError, match="no upcaster from passed@0"):
        codec.decode("passed", 0, "{}")
    with pytest.raises(EventDecodeError, match="no upcaster from bid_made@4"):
        codec.decode("bid_made", 4, "{}")
    with pytest.raises(EventDecodeError, match=r"\$.seat"):
        codec.decode("passed", 1, '{"seat": "north"}')
    with pytest.raises(EventDecodeError, match="Object missing required field `contract`"):
        codec.decode("bid_made", 3, '{"seat": 1}')
    with pytest.raises(EventDecodeError, match="upcaster from bid_made@2 failed: KeyError"):
        codec.decode("bid_made", 2, '{"seat": 1}')
    with pytest.raises(EventDecodeError, match="not a JSON object"):
        codec.decode("bid_made", 1, "[1, 2]")
    with pytest.raises(EventDecodeError):
        codec.decode("passed", 1, "{not json")
    with pytest.raises(EventDecodeError):
        codec.decode("passed", 1, '{"type": "bid_made", "seat": 1}')


def test_an_upcaster_cycle_is_caught() -> None:
    cycle = {("old", 1): lambda d: ("older", 1, d), ("older", 1): lambda d: ("old", 1, d)}
    looping = EventCodec(Passed, cycle)
    with pytest.raises(EventDecodeError, match="does not end"):
        looping.decode("old", 1, "{}")


def test_a_codec_refuses_ambiguous_or_untagged_types() -> None:
    class Untagged(msgspec.Struct):
        seat: int

    class Twin(Event, tag="passed"):
        seat: int

    with pytest.raises(TypeError, match="string tag"):
        EventCodec((Passed, Untagged))
    with pytest.raises(TypeError, match="share the tag"):
        EventCodec((Passed, Twin))
    with pytest.raises(ValueError, match="shadow"):
        EventCodec(Passed, {("passed", 1): lambda d: ("passed", 2, d)})
    with pytest.raises(ValueError, match="bad schema version"):
        EventCodec(Passed, schema_versions={"passed": 0})
    with pytest.raises(UnknownEventType, match="Untagged"):
        codec.encode(Untagged(seat=1))  # type: ignore[arg-type]


# --- the domain's golden fixtures -------------------------------------------------------------


def fixtures() -> list[tuple[str, int, Path]]:
    found = []
    for path in sorted(FIXTURES.glob("*.json")):
        match = FIXTURE_NAME.fullmatch(path.name)
        assert match, f"{path.name} is not named <type>@<schema_version>.json"
        found.append((match["type"], int(match["version"]), path))
    return found


def test_every_domain_event_type_has_a_fixture_of_its_current_version() -> None:
    have = {(name, version) for name, version, _ in fixtures()}
    missing = sorted(set(domain_codec().current_versions.items()) - have)
    assert missing == [], "run `python bench/make_event_fixtures.py` to add the missing fixtures"


@pytest.mark.parametrize(("name", "version", "path"), fixtures(), ids=lambda v: str(v))
def test_every_stored_shape_still_decodes(name: str, version: int, path: Path) -> None:
    stored = path.read_text(encoding="utf-8")
    event = domain_codec().decode(name, version, stored)
    if domain_codec().current_versions.get(name) == version:
        # The current shape round-trips exactly: what we write is what the fixture holds.
        encoded = domain_codec().encode(event)
        assert encoded[:2] == (name, version)
        assert json.loads(encoded[2]) == json.loads(stored)


# --- game_created: schema 1 games keep their meaning --------------------------------------------


def _old_game_created(**raspasy: object) -> dict[str, Any]:
    stored = json.loads((FIXTURES / "game_created@1.json").read_text(encoding="utf-8"))
    stored["rules"]["raspasy"].update(raspasy)
    return stored


@pytest.mark.parametrize("cap", [0, 1, 2, 3, 4, 8, 16])
def test_an_old_geometric_all_pass_keeps_its_capped_step_sequence(cap: int) -> None:
    event = domain_codec().decode(
        "game_created", 1, _old_game_created(progression="geom", progression_cap=cap)
    )
    assert isinstance(event, GameCreated)
    old = [min(1 << k, cap) if cap else 1 << k for k in range(8)]  # schema 1 capped the step
    assert [raspasy_price(k, event.rules.raspasy) for k in range(8)] == old


def test_an_old_game_of_four_never_asks_the_dealer_to_whist() -> None:
    event = domain_codec().decode("game_created", 1, _old_game_created())
    assert isinstance(event, GameCreated)
    assert event.rules.players4.dealer_whist is False
    assert GameCreated(rules=event.rules).rules.players4.dealer_raspasy == "sits_out"


def test_a_game_created_before_commitments_reads_as_dealt_without_one() -> None:
    for version in (1, 2):
        stored = json.loads((FIXTURES / f"game_created@{version}.json").read_text("utf-8"))
        event = domain_codec().decode("game_created", version, stored)
        assert isinstance(event, GameCreated)
        assert (event.dealing, event.commitment, event.fixed_deals) == (None, None, 0)
    seated = json.loads((FIXTURES / "player_seated@1.json").read_text("utf-8"))
    assert domain_codec().decode("player_seated", 1, seated).client_seed is None  # type: ignore[attr-defined]


def test_a_game_created_before_rating_weights_counts_as_an_ordinary_game() -> None:
    for version in (1, 2, 3, 4):
        stored = json.loads((FIXTURES / f"game_created@{version}.json").read_text("utf-8"))
        event = domain_codec().decode("game_created", version, stored)
        assert isinstance(event, GameCreated)
        assert event.rules.table.rating_weight == 100
