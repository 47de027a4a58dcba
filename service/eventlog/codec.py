"""Domain events to stored JSON and back, through upcasters (docs/event-store.md §9.6).

An event type is stored under a stable alias: its msgspec tag (``class BidMade(Event,
tag="bid_made")`` is stored as ``bid_made``), never a Python class path, plus a schema version.
Reading an old version runs pure upcasters keyed by ``(type, schema_version)``::

    def bid_made_v1(data: dict) -> tuple[str, int, dict]:
        return "bid_made", 2, {**data, "contract": data.pop("bid")}

    codec = EventCodec(domain.game.Event, {("bid_made", 1): bid_made_v1},
                       schema_versions={"bid_made": 2})

An upcaster may also rename the type (a retired alias upcasts into a current one). The chain
must end at a current type and its current schema version, else decoding fails loudly.

Errors::

    CodecError            base
    ├── UnknownEventType  a type (or Python class) the codec does not know
    └── EventDecodeError  stored data that no longer fits: the upcasters are missing or wrong
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

import msgspec

Upcaster = Callable[[dict[str, Any]], tuple[str, int, dict[str, Any]]]
"""A pure function from an old payload to ``(type, schema_version, payload)`` one step newer."""

_MAX_UPCASTS = 64  # a longer chain is a cycle


class CodecError(Exception):
    """Base of the codec's errors."""


class UnknownEventType(CodecError, KeyError):
    """An event type name, or a Python class, the codec was not built with."""

    def __str__(self) -> str:
        return str(self.args[0])


class EventDecodeError(CodecError, ValueError):
    """Stored event data that cannot become a current event."""

    def __init__(self, event_type: str, schema_version: int, reason: str) -> None:
        super().__init__(f"cannot decode {event_type}@{schema_version}: {reason}")
        self.event_type = event_type
        self.schema_version = schema_version


def _event_classes(event_types: Any) -> tuple[type[msgspec.Struct], ...]:
    origin = typing.get_origin(event_types)
    if origin is typing.Union or origin is types.UnionType:
        return typing.get_args(event_types)
    if isinstance(event_types, type):
        return (event_types,)
    return tuple(event_types)


class EventCodec:
    """Encodes tagged msgspec Struct events and decodes stored ones, upcasting old versions.

    ``event_types`` is a typing Union of the event Structs (or any iterable of them); each
    must carry a string tag. ``schema_versions`` gives each type's current version (default 1).
    """

    def __init__(
        self,
        event_types: Any,
        upcasters: Mapping[tuple[str, int], Upcaster] | None = None,
        *,
        schema_versions: Mapping[str, int] | None = None,
    ) -> None:
        self._classes: dict[str, type[msgspec.Struct]] = {}
        self._names: dict[type, str] = {}
        for cls in _event_classes(event_types):
            config = getattr(cls, "__struct_config__", None)
            if config is None or not isinstance(config.tag, str):
                raise TypeError(f"{cls!r} is not a msgspec Struct with a string tag")
            if config.tag in self._classes:
                raise TypeError(f"two event types share the tag {config.tag!r}")
            self._classes[config.tag] = cls
            self._names[cls] = config.tag
        self._current = {name: 1 for name in self._classes}
        for name, version in (schema_versions or {}).items():
            if name not in self._classes or version < 1:
                raise ValueError(f"bad schema version {name}@{version}")
            self._current[name] = version
        self._upcasters = dict(upcasters or {})
        for name, version in self._upcasters:
            if version < 1 or version >= self._current.get(name, version + 1):
                raise ValueError(f"an upcaster for {name}@{version} would shadow a current version")
        # Reused instances: building a msgspec decoder per call costs more than decoding.
        self._encoder = msgspec.json.Encoder()
        self._any = msgspec.json.Decoder()
        self._decoders = {name: msgspec.json.Decoder(cls) for name, cls in self._classes.items()}

    @property
    def current_versions(self) -> Mapping[str, int]:
        """Each known event type with the schema version `encode` writes."""
        return types.MappingProxyType(self._current)

    def type_name(self, event: msgspec.Struct | type) -> str:
        """The stored alias of an event (or event class)."""
        cls = event if isinstance(event, type) else type(event)
        try:
            return self._names[cls]
        except KeyError:
            raise UnknownEventType(f"{cls.__qualname__} is not an event of this codec") from None

    def encode(self, event: msgspec.Struct) -> tuple[str, int, bytes]:
        """``(type, schema_version, JSON bytes)`` for storage."""
        name = self.type_name(event)
        return name, self._current[name], self._encoder.encode(event)

    def decode(
        self, event_type: str, schema_version: int, data: bytes | str | Mapping[str, Any]
    ) -> msgspec.Struct:
        """The current event for a stored one; ``data`` is JSON text/bytes or a decoded dict."""
        try:
            if self._current.get(event_type) == schema_version and not isinstance(data, Mapping):
                return self._decoders[event_type].decode(data)  # the common, current case
            raw = dict(data) if isinstance(data, Mapping) else self._any.decode(data)
            if not isinstance(raw, dict):
                raise EventDecodeError(event_type, schema_version, "data is not a JSON object")
            raw.pop("type", None)  # the tag is the stored type; an upcaster may have renamed it
            name, _, raw = self.upcast(event_type, schema_version, raw)
            return msgspec.convert(raw, self._classes[name])
        except msgspec.MsgspecError as exc:
            raise EventDecodeError(event_type, schema_version, str(exc)) from exc

    def upcast(
        self, event_type: str, schema_version: int, data: dict[str, Any]
    ) -> tuple[str, int, dict[str, Any]]:
        """Run upcasters until the event is a current type at its current schema version.

        An upcaster that fails on the data it is given raises `EventDecodeError`.
        """
        name, version = event_type, schema_version
        for _ in range(_MAX_UPCASTS):
            if self._current.get(name) == version:
                return name, version, data
            step = self._upcasters.get((name, version))
            if step is None:
                if name in self._classes:
                    reason = f"no upcaster from {name}@{version} (current is {self._current[name]})"
                    raise EventDecodeError(event_type, schema_version, reason)
                raise UnknownEventType(f"unknown event type {name}@{version}")
            try:
                name, version, data = step(data)
            except Exception as exc:  # stored data the upcaster did not expect
                reason = f"upcaster from {name}@{version} failed: {exc!r}"
                raise EventDecodeError(event_type, schema_version, reason) from exc
        raise EventDecodeError(event_type, schema_version, "the upcaster chain does not end")


# --- the domain's events ----------------------------------------------------------------------


def _hands_opened_v1(data: dict[str, Any]) -> tuple[str, int, dict[str, Any]]:
    """Schema 1 mapped each seat (a JSON object key) to its cards; schema 2 lists `OpenHand`s."""
    opened = sorted((int(seat), cards) for seat, cards in data["hands"].items())
    hands = [{"seat": seat, "cards": cards} for seat, cards in opened]
    return "hands_opened", 2, {**data, "hands": hands}


def _deal_ended_v1(data: dict[str, Any]) -> tuple[str, int, dict[str, Any]]:
    """Schema 1's outcome mapped each active seat to its tricks; schema 2 lists them per seat."""
    outcome = dict(data["outcome"])
    by_seat = {int(seat): count for seat, count in outcome["tricks"].items()}
    outcome["tricks"] = [by_seat.get(seat, 0) for seat in range(outcome["seats"])]
    return "deal_ended", 2, {**data, "outcome": outcome}


def _game_created_v1(data: dict[str, Any]) -> tuple[str, int, dict[str, Any]]:
    """Schema 2's rules have options schema 1 did not know; every new one defaults to what the
    rules did before, except where a game created earlier must keep its old meaning:

    - ``players4.dealer_whist`` is off: the dealer at four was never asked whether he whists;
    - ``raspasy.progression_cap`` used to cap the geometric *step*, and now counts all-passes:
      the old caps 0, 1, 2, 3 and the powers of two keep their sequence (3 gave 1-2-3-3, which is
      now ``arith`` with cap 3; 2^m gave 1-2-…-2^m, now cap m + 1); any other cap under ``geom``
      takes the new meaning, since no new cap repeats its sequence.
    """
    rules = dict(data["rules"])
    raspasy = dict(rules.get("raspasy", {}))
    cap = raspasy.get("progression_cap", 3)
    if raspasy.get("progression") == "geom" and cap >= 3:
        if cap == 3:
            raspasy["progression"] = "arith"
        elif cap & (cap - 1) == 0:
            raspasy["progression_cap"] = cap.bit_length()
    rules["raspasy"] = raspasy
    rules["players4"] = {"dealer_whist": False, **rules.get("players4", {})}
    return "game_created", 2, {**data, "rules": rules}


def _game_created_v2(data: dict[str, Any]) -> tuple[str, int, dict[str, Any]]:
    """Schema 3 says how the game is dealt and commits to its secret; a game created before
    was dealt without a commitment (``dealing`` null)."""
    return "game_created", 3, {"dealing": None, "commitment": None, "fixed_deals": 0, **data}


def _game_created_v3(data: dict[str, Any]) -> tuple[str, int, dict[str, Any]]:
    """Schema 4 names the derivation of the decks; every game created before was dealt with
    the first (``fairness`` 1, SHAKE-256), and keeps it."""
    return "game_created", 4, {"fairness": 1, **data}


def _game_created_v4(data: dict[str, Any]) -> tuple[str, int, dict[str, Any]]:
    """Schema 5's table rules say how much the game counts toward the ratings
    (``table.rating_weight``); every game created before counted as an ordinary one."""
    rules = dict(data["rules"])
    rules["table"] = {"rating_weight": 100, **rules.get("table", {})}
    return "game_created", 5, {**data, "rules": rules}


def _player_seated_v1(data: dict[str, Any]) -> tuple[str, int, dict[str, Any]]:
    """Schema 2 carries the seat's client seed; none was given before."""
    return "player_seated", 2, {"client_seed": None, **data}


SCHEMA_VERSIONS: dict[str, int] = {
    "hands_opened": 2,
    "deal_ended": 2,
    "game_created": 5,
    "player_seated": 2,
}
"""The current schema version of each domain event type reshaped since its first release (else 1).

To reshape an event: bump its version here, add the upcaster from the old version below, and
keep the old version's golden fixture (tests/fixtures/events/<type>@<old>.json).
"""

UPCASTERS: dict[tuple[str, int], Upcaster] = {
    ("hands_opened", 1): _hands_opened_v1,
    ("deal_ended", 1): _deal_ended_v1,
    ("game_created", 1): _game_created_v1,
    ("game_created", 2): _game_created_v2,
    ("game_created", 3): _game_created_v3,
    ("game_created", 4): _game_created_v4,
    ("player_seated", 1): _player_seated_v1,
}
"""The domain's upcasters, keyed by the (type, schema_version) they upgrade."""


@functools.cache
def domain_codec() -> EventCodec:
    """The codec of the domain's events (``domain.game.Event``), built on first use."""
    from domain.game import Event

    return EventCodec(Event, UPCASTERS, schema_versions=SCHEMA_VERSIONS)
