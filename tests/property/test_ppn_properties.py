"""PPN round-trips with the NDJSON export: a game exported, written as PPN and read back gives
the same export byte for byte, and so the same events, the same chain and the same head; its
record is the record of those events, and a record edited to tell another story is caught."""

from __future__ import annotations

import random
import uuid

import msgspec
from _hypothesis import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from open_data import recorded

from domain import game as g
from domain.rules import rules_for
from domain.simulation import play_random_pulka
from projections import ppn
from service.eventlog.codec import domain_codec
from service.games.export import ExportPlayer, export_lines, from_ppn, read_lines, to_ppn

_codec = domain_codec()

names = st.one_of(st.none(), st.text(min_size=1, max_size=20).filter(lambda s: "\n" not in s))


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(["sochi", "leningrad", "rostov"]),
    players=st.sampled_from([3, 4]),
    options=st.sampled_from([
        {}, {"classic": {"dark_games": True, "totus": True}},
        {"bidding": {"talonless_games": True}}, {"pool": {"time_limit_minutes": 1}},
    ]),
    claims=st.sampled_from([0.0, 0.3]),
    seed=st.integers(0, 2**32 - 1),
    named=st.lists(names, min_size=4, max_size=4),
)  # fmt: skip
def test_export_to_ppn_and_back_gives_the_same_game(preset, players, options, claims, seed, named):
    rules = rules_for(preset, {"players": players, "pool": {"target": 4}, **options})
    timed = 1000 if options.get("pool") else None
    state, appends = play_random_pulka(rules, random.Random(seed), claims=claims,
                                       ms_per_command=timed)  # fmt: skip
    assert isinstance(state, g.PulkaClosed)
    events = [e for batch in appends for e in batch]
    game_id = uuid.UUID(int=random.Random(seed).getrandbits(128), version=4)
    seated = [ExportPlayer(id=p, name=named[i]) for i, p in enumerate(state.players) if p]
    lines = list(export_lines(game_id, recorded(game_id, events, seed), seated))

    text = to_ppn(lines, _codec)
    back = from_ppn(text)

    assert back == lines  # byte for byte: the same events, ids, salts and chain
    assert read_lines(back, _codec).events == events
    parsed = ppn.read(text)
    assert parsed.head == msgspec.json.decode(lines[0])["head"]
    assert ppn.same_record(parsed, events) is None
    deals = sum(isinstance(e, g.DealScored) for e in events)
    assert len(parsed.deals) == deals

    # A record edited (the first deal's talon) no longer matches its log.
    first = parsed.deals[0]
    tags = tuple((n, "7S 8S" if n == "Talon" else v) for n, v in first.tags)
    edited = (msgspec.structs.replace(first, tags=tags), *parsed.deals[1:])
    assert tags != first.tags
    assert ppn.same_record(msgspec.structs.replace(parsed, deals=edited), events)
