"""PPN, the Preferans Portable Notation: a game as text, written and read (docs/ppn.md).

A PPN game has two layers, as a PGN game has its tags and its moves:

- **the record**, for people and for programs that want the deals: tag pairs for the game
  (``[Convention "sochi"]``, the seats and players, the first dealer, the pool, the fairness
  fields, the result) and, per deal, its dealer, hands and talon, the auction, the discard,
  the contract, the whists and open or closed play, the play trick by trick with claims, the
  tricks taken and the sheet's line;
- **the log**, one line per event of the game's stream, as stored (its version, type, schema,
  id, salt, hash and its data in JSON), so that a PPN file reads back into the very events it
  was written from and its hash chain can be checked like an NDJSON export.

`write` makes the text from a `PpnGame` (the export's header and lines) and the decoded events;
`read` parses one game, `read_all` every game of a file. Both are pure: no I/O, no decoding of
the events' data (the service's codec does that, with its upcasters); `record` gives the record
of decoded events, which the service compares with the record read, so that a file whose
record was edited to tell another story than its log is refused.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Final

import msgspec

from domain import game
from domain.deal import messages as m
from domain.table import TimedOut

FORMAT: Final = "PPN/1"
MEDIA_TYPE: Final = "application/x-preferans-ppn"
GENESIS: Final = "0" * 64

Tag = tuple[str, str]


class PpnPlayer(msgspec.Struct, frozen=True):
    id: str
    name: str | None = None


class PpnEvent(msgspec.Struct, frozen=True, kw_only=True):
    """One event of the log, as an NDJSON export's line holds it (``data`` its JSON text)."""

    version: int
    type: str
    schema_version: int
    data: str
    event_id: str | None = None
    salt: str | None = None
    prev_hash: str | None = None
    hash: str | None = None


class PpnDeal(msgspec.Struct, frozen=True, kw_only=True):
    """A deal's part of the record: its tags and its play, a line per trick."""

    tags: tuple[Tag, ...]
    play: tuple[str, ...] = ()
    analysis: str | None = None
    """The deal's analysis attached as JSON (``; analysis {...}``), if any: never checked."""


class PpnGame(msgspec.Struct, frozen=True, kw_only=True):
    """One game: the export header's fields, the record, and the log."""

    game_id: str
    stream_id: str | None = None
    head: str | None = None
    players: tuple[PpnPlayer, ...] = ()
    tags: tuple[Tag, ...] = ()
    """The game's tags after the header's (``Format``, ``Game``, ``Stream``, ``Head``,
    ``SeatN``): convention, pool, fairness, result …"""
    deals: tuple[PpnDeal, ...] = ()
    events: tuple[PpnEvent, ...] = ()


class PpnError(ValueError):
    """Malformed PPN: names the line."""


# --- the record -----------------------------------------------------------------------------


def _cards(cards: Iterable[str]) -> str:
    return " ".join(cards)


def _seats(values: Iterable[int | None]) -> str:
    return " ".join("-" if v is None else str(v) for v in values)


def _date(ms: int | None) -> str | None:
    if ms is None:
        return None
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y.%m.%d")


def _score_line(score: msgspec.Struct) -> str:
    """The sheet's line of a deal: ``pool 1 +4, whists 0/1 +8, mountain 2 +6``."""
    parts = []
    for e in score.entries:  # type: ignore[attr-defined]
        if e.kind == "whists":
            parts.append(f"whists {e.seat}/{e.on} {e.amount:+d}")
        else:
            parts.append(f"{e.kind} {e.seat} {e.amount:+d}")
    return ", ".join(parts) if parts else "-"


class _Deal:
    """A deal's record being written, event by event."""

    def __init__(self, started: m.DealStarted, number: int) -> None:
        self.tags: list[Tag] = [
            ("Deal", str(number)),
            ("Dealer", str(started.dealer)),
        ]
        if started.min_level != 6:
            self.tags.append(("MinLevel", str(started.min_level)))
        for seat, hand in enumerate(started.hands):
            self.tags.append((f"Hand{seat}", _cards(hand) or "-"))
        self.tags.append(("Talon", _cards(started.talon)))
        self.auction: list[str] = []
        self.whists: list[str] = []
        self.play: list[str] = []
        self.trick: list[str] = []
        self.tricks = 0

    def tag(self, name: str, value: str) -> None:
        self.tags.append((name, value))

    def token(self, text: str) -> None:
        self.trick.append(text)

    def flush_auction(self) -> None:
        if self.auction:
            self.tag("Auction", " ".join(self.auction))
            self.auction = []

    def flush_whists(self) -> None:
        if self.whists:
            self.tag("Whists", " ".join(self.whists))
            self.whists = []

    def end_trick(self, won: m.TrickWon) -> None:
        self.tricks += 1
        tail = f">{won.seat}"
        self.play.append(f"{self.tricks}. " + " ".join([*self.trick, tail]))
        self.trick = []

    def done(self) -> PpnDeal:
        self.flush_auction()
        self.flush_whists()
        if self.trick:
            self.play.append("... " + " ".join(self.trick))
            self.trick = []
        return PpnDeal(tags=tuple(self.tags), play=tuple(self.play))


def record(events: Sequence[object]) -> tuple[tuple[Tag, ...], tuple[PpnDeal, ...]]:
    """The record of a game's decoded events: its tags and its deals (see docs/ppn.md)."""
    tags: list[Tag] = []
    deals: list[PpnDeal] = []
    deal: _Deal | None = None
    number = 0
    result: str | None = None
    for e in events:
        match e:
            case game.GameCreated(rules=rules):
                tags += [
                    ("Convention", rules.convention),
                    ("Players", str(rules.players)),
                    ("Pool", str(rules.pool.target)),
                    ("FirstDealer", str(e.first_dealer)),
                ]
                if (day := _date(e.at)) is not None:
                    tags.append(("Date", day))
                if e.dealing is not None:
                    tags.append(("Dealing", e.dealing))
                tags.append(("Fairness", str(e.fairness)))
                if e.commitment is not None:
                    tags.append(("Commitment", e.commitment))
                if e.fixed_deals:
                    tags.append(("FixedDeals", str(e.fixed_deals)))
                tags.append(("Rules", json.dumps(msgspec.to_builtins(rules), sort_keys=True)))
            case game.PlayerSeated(seat=seat, player=player):
                tags.append((f"Player{seat}", player))
                if e.client_seed is not None:
                    tags.append((f"Seed{seat}", e.client_seed))
            case game.SecretRevealed(secret=secret):
                tags.append(("Secret", secret))
            case game.LastRoundStarted(deal_no=n, dealer=dealer):
                tags.append(("LastRound", f"{n} {dealer}"))
            case game.GameEnded(settlement=settlement):
                result = " ".join(f"{r:+d}" for r in settlement.result)
            case m.DealStarted():
                number += 1
                deal = _Deal(e, number)
            case game.DealScored(score=score) if deal is not None:
                deal.tag("Score", _score_line(score))
                deals.append(deal.done())
                deal = None
            case _ if deal is not None:
                _deal_event(deal, e)
    if deal is not None:
        deals.append(deal.done())
    if result is not None:
        tags.append(("Result", result))
    return tuple(tags), tuple(deals)


def _deal_event(deal: _Deal, e: object) -> None:
    match e:
        case m.CardsLooked(seat=seat):
            deal.auction.append(f"{seat}:look")
        case m.BidMade(seat=seat, bid=bid):
            mark = ("d" if e.dark else "") + bid + ("=" if e.hold else "")
            deal.auction.append(f"{seat}:{mark}" + ("!" if e.hold_waived else ""))
        case m.Passed(seat=seat):
            deal.auction.append(f"{seat}:{'d' if e.dark else ''}P")
        case m.AuctionWon(seat=seat, bid=bid):
            deal.flush_auction()
            deal.tag("Declarer", f"{seat} {bid or '-'}" + (" dark" if e.dark else ""))
        case m.AllPassed():
            deal.flush_auction()
            deal.tag("Contract", "all-pass")
        case m.TalonSetAside(seat=seat):
            deal.tag("TalonSetAside", str(seat))
        case m.TalonTaken(seat=seat, cards=cards):
            deal.tag("TalonTaken", f"{seat} {_cards(cards)}" + ("" if e.shown else " hidden"))
        case m.Discarded(seat=seat, cards=cards):
            deal.tag("Discard", f"{seat} {_cards(cards)}" + ("" if e.by is None else f" by {e.by}"))
        case m.ContractDeclared(seat=seat, contract=contract):
            flags = (" dark" if e.dark else "") + (" totus" if e.totus else "")
            deal.tag("Contract", f"{seat} {contract}{flags}")
        case m.TotusShown(seat=seat, strain=strain):
            deal.tag("TotusShown", f"{seat} {strain}")
        case m.Conceded(seat=seat, undertricks=n):
            deal.tag("Conceded", f"{seat} {n}")
        case m.WhistCalled(seat=seat, choice=choice):
            deal.whists.append(f"{seat}:{choice}" + ("!" if e.forced else ""))
        case m.HandLookedAt(seat=seat, hand=hand):
            deal.flush_whists()
            deal.tag("LookedAt", f"{seat} {hand}")
        case m.PlayChosen(seat=seat, open=is_open):
            deal.flush_whists()
            deal.tag("PlayMode", f"{seat} {'open' if is_open else 'closed'}")
        case m.PlayStarted(leader=leader, controllers=controllers):
            deal.flush_whists()
            deal.tag("Lead", str(leader))
            deal.tag("Controllers", _seats(None if c < 0 else c for c in controllers))
        case m.HandsOpened(hands=hands):
            deal.tag("Opened", " ".join(str(h.seat) for h in hands))
        case m.TalonCardTurned(card=card):
            deal.token(f"T:{card}")
        case m.CardPlayed(seat=seat, card=card):
            deal.token(f"{seat}:{card}")
        case m.TrickWon():
            deal.end_trick(e)
        case m.ClaimMade(seat=seat, tricks=tricks, remaining=remaining):
            deal.token(f"claim:{seat}:{tricks}/{remaining}")
        case m.ClaimAnswered(seat=seat, accept=accept):
            deal.token(f"{seat}:{'accept' if accept else 'reject'}")
        case TimedOut(seat=seat):
            deal.token(f"timeout:{seat}")
        case m.DealEnded(outcome=outcome):
            deal.flush_whists()
            if deal.trick:
                deal.play.append("... " + " ".join(deal.trick))
                deal.trick = []
            deal.tag("Kind", outcome.kind)
            deal.tag("Tricks", _seats(outcome.tricks))
        case _:
            pass  # the clock and the table's events are in the log only


# --- writing ---------------------------------------------------------------------------------


def _quote(value: str) -> str:
    """A tag's value in quotes: ``\\`` and ``\"`` escaped, and any character that is not
    printable (a line break of any kind among them) as ``\\uXXXX``."""
    out = []
    for ch in value:
        if ch in '\\"':
            out.append("\\" + ch)
        elif not ch.isprintable() or ch in "\x85\u2028\u2029":
            out.extend(f"\\u{b:04x}" for b in _utf16(ch))
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _utf16(ch: str) -> list[int]:
    data = ch.encode("utf-16-be")
    return [int.from_bytes(data[k : k + 2], "big") for k in range(0, len(data), 2)]


def _tag_line(name: str, value: str) -> str:
    return f"[{name} {_quote(value)}]"


def header_tags(g: PpnGame) -> list[Tag]:
    tags: list[Tag] = [("Format", FORMAT), ("Game", g.game_id)]
    if g.stream_id is not None:
        tags.append(("Stream", g.stream_id))
    for n, p in enumerate(g.players):
        tags.append((f"Name{n}", p.id if p.name is None else f"{p.id} {p.name}"))
    if g.head is not None:
        tags.append(("Head", g.head))
    return tags


def _dash(text: str | None) -> str:
    return "-" if text is None else text


def _log_line(e: PpnEvent, prev: str | None) -> str:
    """``version type schema id salt prev hash data``; ``prev`` is ``^`` when it is the hash
    of the line before (or the genesis), ``-`` for a field the export left out."""
    linked = e.prev_hash is not None and e.prev_hash == (GENESIS if prev is None else prev)
    fields = (
        str(e.version), e.type, str(e.schema_version), _dash(e.event_id), _dash(e.salt),
        "^" if linked else _dash(e.prev_hash), _dash(e.hash), e.data,
    )  # fmt: skip
    return " ".join(fields)


def write(g: PpnGame, events: Sequence[object] | None = None) -> str:
    """The PPN text of ``g``: its header, the record (made from ``events``, the log decoded, if
    ``g`` has none of its own) and the log. Ends with a newline."""
    tags, deals = (g.tags, g.deals) if events is None else record(events)
    lines = ["% PPN/1: Preferans Portable Notation, docs/ppn.md"]
    lines += [_tag_line(n, v) for n, v in [*header_tags(g), *tags]]
    for k, deal in enumerate(deals):
        lines.append("")
        lines += [_tag_line(n, v) for n, v in deal.tags]
        analysis = g.deals[k].analysis if k < len(g.deals) else deal.analysis
        if analysis is not None:
            lines.append("; analysis " + analysis)
        if deal.play:
            lines.append(_tag_line("Play", str(len(deal.play))))
            lines += deal.play
    lines += ["", _tag_line("Log", str(len(g.events)))]
    prev: str | None = None
    for e in g.events:
        lines.append(_log_line(e, prev))
        prev = e.hash
    return "\n".join(lines) + "\n"


def with_analysis(g: PpnGame, analyses: Mapping[int, str]) -> PpnGame:
    """``g`` with each deal's analysis (JSON text, by deal number from 1) attached."""
    deals = list(g.deals)
    for n, text in analyses.items():
        if 1 <= n <= len(deals):
            deals[n - 1] = msgspec.structs.replace(deals[n - 1], analysis=text)
    return msgspec.structs.replace(g, deals=tuple(deals))


# --- reading ---------------------------------------------------------------------------------


def _unquote(text: str, number: int) -> str:
    if len(text) < 2 or text[0] != '"' or text[-1] != '"':
        raise PpnError(f"line {number}: a tag's value is quoted")
    body = text[1:-1]
    out: list[str] = []
    units: list[int] = []
    k = 0
    while k < len(body):
        ch = body[k]
        if ch == "\\" and body[k + 1 : k + 2] == "u" and len(body) >= k + 6:
            try:
                units.append(int(body[k + 2 : k + 6], 16))
            except ValueError:
                raise PpnError(f"line {number}: a bad \\u escape in a tag's value") from None
            k += 6
            continue
        if units:
            out.append(_from_utf16(units, number))
            units = []
        if ch == "\\" and k + 1 < len(body):
            out.append(body[k + 1])
            k += 2
            continue
        if ch in '\\"':
            raise PpnError(f"line {number}: an unescaped quote in a tag's value")
        out.append(ch)
        k += 1
    if units:
        out.append(_from_utf16(units, number))
    return "".join(out)


def _from_utf16(units: list[int], number: int) -> str:
    try:
        return b"".join(u.to_bytes(2, "big") for u in units).decode("utf-16-be")
    except UnicodeDecodeError:
        raise PpnError(f"line {number}: a \\u escape that is not a character") from None


def _parse_tag(line: str, number: int) -> Tag:
    if not line.endswith("]"):
        raise PpnError(f'line {number}: a tag is [Name "value"]')
    name, _, value = line[1:-1].partition(" ")
    if not name.isalnum():
        raise PpnError(f"line {number}: a tag's name is letters and digits")
    return name, _unquote(value.strip(), number)


def _parse_log_line(line: str, prev: str | None, number: int) -> PpnEvent:
    parts = line.split(" ", 7)
    if len(parts) != 8:
        raise PpnError(f"line {number}: a log line has eight fields")
    version, kind, schema, event_id, salt, prev_hash, hash_, data = parts
    if not version.isdigit() or not schema.isdigit():
        raise PpnError(f"line {number}: a version and a schema version are numbers")

    def opt(text: str) -> str | None:
        return None if text == "-" else text

    linked = (GENESIS if prev is None else prev) if prev_hash == "^" else opt(prev_hash)
    return PpnEvent(
        version=int(version), type=kind, schema_version=int(schema), data=data,
        event_id=opt(event_id), salt=opt(salt), prev_hash=linked, hash=opt(hash_),
    )  # fmt: skip


def read_all(lines: Iterable[str]) -> Iterator[PpnGame]:
    """Every game of a PPN text (a file of several: each begins with its ``Format`` tag), given
    line by line (split at ``\\n`` only: a log line's JSON may hold any other line break)."""
    chunk: list[tuple[int, str]] = []
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r\n")
        if line.startswith("[Format ") and any(t.startswith("[") for _, t in chunk):
            yield _read(chunk)
            chunk = []
        chunk.append((number, line))
    if any(t.strip() for _, t in chunk):
        yield _read(chunk)


def read(text: str) -> PpnGame:
    """The one game of a PPN text (`PpnError` if it holds none or several)."""
    games = list(read_all(text.split("\n")))
    if len(games) != 1:
        raise PpnError(f"a PPN text of one game holds {len(games)}")
    return games[0]


def _read(chunk: Sequence[tuple[int, str]]) -> PpnGame:
    header: dict[str, str] = {}
    players: list[PpnPlayer] = []
    tags: list[Tag] = []
    deals: list[PpnDeal] = []
    deal_tags: list[Tag] | None = None
    play: list[str] = []
    analysis: str | None = None
    events: list[PpnEvent] = []
    section = "game"

    def close_deal() -> None:
        nonlocal deal_tags, play, analysis
        if deal_tags is not None:
            deals.append(PpnDeal(tags=tuple(deal_tags), play=tuple(play), analysis=analysis))
        deal_tags, play, analysis = None, [], None

    for number, line in chunk:
        text = line.strip()
        if not text or text.startswith("%"):
            continue
        if section == "log":
            prev = events[-1].hash if events else None
            events.append(_parse_log_line(text, prev, number))
            continue
        if text.startswith(";"):
            if text.startswith("; analysis ") and deal_tags is not None:
                analysis = text[len("; analysis ") :]
            continue
        if text.startswith("["):
            name, value = _parse_tag(text, number)
            if name == "Log":
                close_deal()
                section = "log"
            elif name == "Deal":
                close_deal()
                deal_tags = [(name, value)]
                section = "deal"
            elif name == "Play":
                section = "play"
            elif section == "game":
                if name in ("Format", "Game", "Stream", "Head"):
                    header[name] = value
                elif name.startswith("Name") and name[4:].isdigit():
                    pid, _, pname = value.partition(" ")
                    players.append(PpnPlayer(pid, pname or None))
                else:
                    tags.append((name, value))
            elif deal_tags is not None:
                deal_tags.append((name, value))
                section = "deal"
            continue
        if section == "play":
            play.append(" ".join(text.split()))
            continue
        raise PpnError(f"line {number}: neither a tag nor a line of play")
    close_deal()
    if header.get("Format") != FORMAT:
        raise PpnError(f'a PPN game begins with [Format "{FORMAT}"]')
    if "Game" not in header:
        raise PpnError('a PPN game names itself: [Game "<id>"]')
    for k, e in enumerate(events, start=1):
        if e.version != k:
            raise PpnError(f"the log's event {k} has version {e.version}")
    return PpnGame(
        game_id=header["Game"], stream_id=header.get("Stream"), head=header.get("Head"),
        players=tuple(players), tags=tuple(tags), deals=tuple(deals), events=tuple(events),
    )  # fmt: skip


def same_record(g: PpnGame, events: Sequence[object]) -> str | None:
    """None if ``g``'s record is the record of ``events`` (its log decoded), else the first
    difference, for a refusal."""
    tags, deals = record(events)
    if tags != g.tags:
        for mine, theirs in zip(tags, g.tags, strict=False):
            if mine != theirs:
                return f"the tag {theirs[0]} says {theirs[1]!r}, the log {mine[1]!r}"
        return "the game's tags are not the log's"
    if len(deals) != len(g.deals):
        return f"the record has {len(g.deals)} deals, the log {len(deals)}"
    for n, (mine_deal, theirs_deal) in enumerate(zip(deals, g.deals, strict=True), start=1):
        if mine_deal.tags != theirs_deal.tags or mine_deal.play != theirs_deal.play:
            return f"deal {n} of the record is not the log's"
    return None
