"""Checking a game: its hash chain, its commitment and every deck (docs/fairness.md).

`prove` takes a game's events as stored (from the log, or from an export file: `from_export`)
and recomputes, without trusting anything it is given:

- the chain: each event's version is its position, its ``prev_hash`` is the hash before it, and
  its ``hash`` is `service.eventlog.chain.event_hash` of its bytes; the first position where one
  does not hold is named (an event changed, dropped, inserted or moved);
- the commitment: the revealed secret's SHA-256 is the one `GameCreated` published;
- each deal: its `DealStarted` hands and talon are `domain.fairness.deck_for` (by the game's
  ``fairness`` scheme) of the secret, the client seeds seated before it and its number; the
  first deal that differs is named;
- the rules: every event is one the rules could have produced from the state before it
  (`domain.audit`: another seat's move, anything after the end, a secret revealed early or
  one that does not open the commitment fail), and one this service can read at all; the first
  that is not is named (`IllegalEvent`: its version, type and why).

Before the secret is revealed the proof says what can be checked so far: the chain, and that a
commitment was published before any player acted. Both `GET /v1/games/{id}/proof` and
``preferans games verify EXPORT`` answer with a `Proof`.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import msgspec

from domain import fairness
from domain import game as g
from domain.audit import audit
from domain.deal.messages import DealStarted
from service.eventlog import chain
from service.eventlog.codec import EventCodec
from service.eventlog.store import RecordedEvent
from service.games.export import ExportLine, encode_line

DealStatus = Literal["matches", "differs", "fixed", "pending", "unverifiable"]
"""A deal's check: recomputed and equal, or not; laid out by the creator (nothing to derive);
waiting for the secret; or dealt before commitments."""


class StoredLink(msgspec.Struct, frozen=True, kw_only=True):
    """One event as stored, with its link in the chain (all hex)."""

    version: int
    event_id: str
    type: str
    schema_version: int
    data: Any
    """The decoded JSON object."""
    salt: str
    prev_hash: str
    hash: str
    canonical: bool = True
    """False for an export line with bytes outside the chain changed (spacing, an extra
    field): every byte of a line is covered."""


class DealCheck(msgspec.Struct, frozen=True, kw_only=True):
    deal_no: int
    version: int
    """The version of its `deal_started` event."""
    status: DealStatus
    detail: str | None = None


class IllegalEvent(msgspec.Struct, frozen=True, kw_only=True):
    """The first event the rules could not have produced, or that cannot be read at all."""

    version: int
    type: str
    reason: str


class Proof(msgspec.Struct, frozen=True, kw_only=True):
    """What a game's log proves (see the module docstring)."""

    verdict: Literal["verified", "verified_so_far", "failed"]
    """``verified``: the chain holds, the secret opens the commitment and every derived deck
    matches; ``verified_so_far``: nothing failed, but the secret is not revealed yet (or the
    game was dealt before commitments); ``failed``: see ``problems``."""
    stream_id: str
    events: int
    head: str | None
    """The hash of the last event: compare it with a head pinned during play."""
    chain_ok: bool
    first_bad_event: int | None = None
    """The position (from 1) of the first event whose link does not hold."""
    dealing: str | None = None
    fairness: int | None = None
    """The derivation of the decks (docs/fairness.md): 1 (SHAKE-256) for a game created before
    the database dealt, 2 (SHA-256 in counter mode) since; null without a `game_created`."""
    commitment: str | None = None
    committed_before_play: bool = False
    """The commitment is in `game_created`, the stream's first event, before any seat acted."""
    revealed: bool = False
    commitment_opened: bool | None = None
    """Whether the revealed secret's SHA-256 is the commitment (null: nothing to open yet)."""
    deals: tuple[DealCheck, ...] = ()
    first_bad_deal: int | None = None
    problems: tuple[str, ...] = ()
    """What failed, first failure first."""
    rules_ok: bool = True
    """Every event is one the rules could have produced from the state before it."""
    first_illegal_event: IllegalEvent | None = None


def from_records(records: Sequence[RecordedEvent]) -> list[StoredLink]:
    """Links from the log."""
    return [
        StoredLink(
            version=r.version,
            event_id=str(r.event_id),
            type=r.event_type,
            schema_version=r.schema_version,
            data=msgspec.json.decode(r.data),
            salt=r.salt.hex(),
            prev_hash=r.prev_hash.hex(),
            hash=r.hash.hex(),
        )
        for r in records
    ]


class _Line(msgspec.Struct, frozen=True):
    version: int
    type: str
    schema_version: int
    data: Any
    event_id: str | None = None
    salt: str | None = None
    prev_hash: str | None = None
    hash: str | None = None
    recorded_at: str | None = None


class _Header(msgspec.Struct, frozen=True):
    format: str
    game_id: str
    stream_id: str | None = None
    head: str | None = None


class ExportUnreadable(ValueError):
    """The file is not an export of this service's format."""


def from_export(lines: Iterable[bytes | str]) -> tuple[str, str | None, list[StoredLink]]:
    """The stream id, the header's head and the links of an export file (`service.games.export`);
    `ExportUnreadable` naming the line that is not one."""
    stream_id: str | None = None
    head: str | None = None
    links: list[StoredLink] = []
    for number, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text or _bytes(text).startswith(b'{"analysis"'):  # an attached analysis
            continue
        try:
            if stream_id is None and not links:
                header = msgspec.json.decode(text, type=_Header)
                stream_id = header.stream_id or f"game-{header.game_id}"
                head = header.head
                continue
            line = msgspec.json.decode(text, type=_Line)
        except msgspec.DecodeError as exc:
            where = f"event {len(links) + 1} (line {number})" if stream_id else f"line {number}"
            raise ExportUnreadable(f"{where}: {exc}") from None
        link = StoredLink(
            version=line.version, event_id=line.event_id or "", type=line.type,
            schema_version=line.schema_version, data=line.data, salt=line.salt or "",
            prev_hash=line.prev_hash or "", hash=line.hash or "",
        )  # fmt: skip
        canonical = line.recorded_at is None and _canonical_line(link) == _bytes(text)
        links.append(msgspec.structs.replace(link, canonical=canonical))
    if stream_id is None:
        raise ExportUnreadable("no export header")
    return stream_id, head, links


def _bytes(text: bytes | str) -> bytes:
    return text.encode() if isinstance(text, str) else text


def _canonical_line(link: StoredLink) -> bytes | None:
    """The line `service.games.export` writes for ``link`` (without its newline)."""
    try:
        line = ExportLine(
            version=link.version, type=link.type, schema_version=link.schema_version,
            data=msgspec.Raw(chain.jsonb_text(link.data).encode()),
            event_id=uuid.UUID(link.event_id), salt=link.salt, prev_hash=link.prev_hash,
            hash=link.hash,
        )  # fmt: skip
    except (TypeError, ValueError):
        return None
    return encode_line(line).rstrip(b"\n")


def _hex(text: str) -> bytes | None:
    try:
        return bytes.fromhex(text)
    except ValueError:
        return None


def check_chain(stream_id: str, links: Sequence[StoredLink]) -> tuple[int, str] | None:
    """None if the chain holds, else the first position (from 1) where it does not, and what
    is wrong there (the message starts with ``event <position>``)."""
    prev = chain.GENESIS
    for position, link in enumerate(links, start=1):
        where = f"event {position} ({link.type})"
        problem = _link_problem(stream_id, position, link, prev)
        if problem is not None:
            return position, f"{where}: {problem}"
        prev = bytes.fromhex(link.hash)
    return None


def _link_problem(stream_id: str, position: int, link: StoredLink, prev: bytes) -> str | None:
    """What is wrong with one link, given the hash before it; None if it holds."""
    if link.version != position:
        moved = "an event dropped, inserted or moved"
        return f"version {link.version} at position {position} ({moved})"
    salt, stored = _hex(link.salt), _hex(link.hash)
    if link.prev_hash != prev.hex():
        return "its prev_hash is not the hash of the event before it"
    if salt is None or stored is None or salt.hex() != link.salt or len(salt) != 16:
        return "no salt or hash (16 and 32 bytes in lowercase hex)"
    if not link.canonical:
        return "its line is not as exported (a byte outside its data changed)"
    try:
        computed = chain.event_hash(
            prev, stream_id, link.version, link.event_id, link.type, link.schema_version, salt,
            link.data,
        )  # fmt: skip
    except (TypeError, ValueError) as exc:
        return f"cannot be hashed ({exc})"
    if computed.hex() != link.hash:
        return "its bytes do not hash to its hash (changed)"
    return None


def prove(stream_id: str, links: Sequence[StoredLink], codec: EventCodec) -> Proof:
    """Check a game's chain, commitment and decks (see the module docstring)."""
    problems: list[str] = []
    broken = check_chain(stream_id, links)
    first_bad_event = None
    if broken is not None:
        first_bad_event, problem = broken
        problems.append(problem)
    created: g.GameCreated | None = None
    seeds: list[str] = []
    dealt: list[tuple[int, DealStarted, tuple[str, ...]]] = []
    secret: str | None = None
    decoded: list[g.Event] = []
    illegal: IllegalEvent | None = None
    for position, link in enumerate(links, start=1):
        try:
            event = codec.decode(link.type, link.schema_version, link.data)
        except Exception as exc:
            problems.append(f"event {position} ({link.type}): does not decode ({exc})")
            if illegal is None:
                illegal = IllegalEvent(version=position, type=link.type,
                                       reason=f"cannot be decoded ({exc})")  # fmt: skip
            continue
        if illegal is None:
            decoded.append(event)  # type: ignore[arg-type]
        match event:
            case g.GameCreated() if position == 1:
                created = event
            case g.PlayerSeated(client_seed=str() as seed):
                seeds.append(seed)
            case DealStarted():
                dealt.append((link.version, event, tuple(seeds)))
            case g.SecretRevealed():
                secret = event.secret
    if created is None:
        problems.append("the first event is not game_created")
    replayed = audit(decoded)  # up to the first event that cannot be read, if any
    if replayed.illegal is not None:
        index = replayed.illegal.index
        illegal = IllegalEvent(
            version=index + 1, type=replayed.illegal.type, reason=replayed.illegal.reason
        )
        problems.append(f"event {index + 1} ({illegal.type}): the rules could not have "
                        f"produced it: {illegal.reason}")  # fmt: skip
    dealing = created.dealing if created else None
    commitment = created.commitment if created else None
    opened = None
    if secret is not None and commitment is not None:
        opened = fairness.reveals(secret, commitment)
        if not opened:
            problems.append("the revealed secret does not open the commitment")
    deals, first_bad_deal = _check_deals(created, dealt, secret)
    if first_bad_deal is not None:
        problems.append(f"deal {first_bad_deal}: the cards are not the ones its deck derives")
    if problems:
        verdict: Literal["verified", "verified_so_far", "failed"] = "failed"
    elif secret is not None and all(d.status in ("matches", "fixed") for d in deals):
        verdict = "verified"
    else:
        verdict = "verified_so_far"
    return Proof(
        verdict=verdict,
        stream_id=stream_id,
        events=len(links),
        head=links[-1].hash if links else None,
        chain_ok=broken is None,
        first_bad_event=first_bad_event,
        dealing=dealing,
        fairness=created.fairness if created else None,
        commitment=commitment,
        committed_before_play=commitment is not None and created is not None,
        revealed=secret is not None,
        commitment_opened=opened,
        deals=tuple(deals),
        first_bad_deal=first_bad_deal,
        problems=tuple(problems),
        rules_ok=illegal is None,
        first_illegal_event=illegal,
    )


def _check_deals(
    created: g.GameCreated | None,
    dealt: Sequence[tuple[int, DealStarted, tuple[str, ...]]],
    secret: str | None,
) -> tuple[list[DealCheck], int | None]:
    checks: list[DealCheck] = []
    first_bad = None
    key = _hex(secret) if secret is not None else None
    for deal_no, (version, event, seeds) in enumerate(dealt, start=1):
        status: DealStatus
        detail = None
        if created is None or created.dealing is None:
            status, detail = "unverifiable", "dealt before deals were committed to"
        elif deal_no <= created.fixed_deals:
            status, detail = "fixed", "laid out by the game's creator"
        elif key is None:
            status, detail = "pending", "the secret is revealed when the game is over"
        else:
            used = () if created.dealing == "seeded" else seeds
            deck = fairness.deck_for(key, used, deal_no, created.fairness)
            hands, talon = fairness.deal_hands(deck, len(event.hands), event.dealer)
            status = "matches" if (hands, talon) == (event.hands, tuple(event.talon)) else "differs"
            if status == "differs" and first_bad is None:
                first_bad = deal_no
        checks.append(DealCheck(deal_no=deal_no, version=version, status=status, detail=detail))
    return checks, first_bad
