"""PPN's reader and writer (`projections.ppn`): the worked example of docs/ppn.md is what the
writer writes for its game, tag values survive any character, and malformed text is refused
naming its line."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import msgspec
import pytest
from open_data import fair_pulka, finished_export

from domain import game as g
from projections import ppn
from service.eventlog.codec import domain_codec
from service.games.export import from_ppn, read_lines, to_ppn
from service.games.proof import from_export, prove

DOC = Path(__file__).resolve().parents[3] / "docs" / "ppn.md"
PLAYERS = [str(uuid.UUID(int=i + 1, version=4)) for i in range(3)]
NAMES = ["Anna", "Vera", "Kolya"]


def _worked_example() -> str:
    found = re.search(r"```ppn\n(.*?)\n…\n```", DOC.read_text(), re.S)
    assert found, "docs/ppn.md has its worked example in a ```ppn block"
    return found.group(1) + "\n"


def test_the_documented_example_is_the_record_and_the_log_of_its_game():
    example = ppn.read(_worked_example())
    events = fair_pulka(0, PLAYERS)
    lines = finished_export(0, PLAYERS, target=1, names=NAMES, fair=True)

    assert ppn.same_record(example, events) is None  # every tag and trick, as the writer writes
    assert [p.name for p in example.players] == NAMES
    whole = ppn.read(to_ppn(lines, domain_codec()))
    assert example.events == whole.events[: len(example.events)]  # the log's first lines
    assert (example.game_id, example.head) == (whole.game_id, whole.head)


def test_the_documented_example_says_what_the_prose_says():
    example = ppn.read(_worked_example())
    tags = dict(example.tags)
    first, second = (dict(d.tags) for d in example.deals)
    assert (tags["Dealing"], tags["Fairness"], tags["Result"]) == ("random", "2", "+30 -42 +12")
    assert (first["Declarer"], first["Discard"], first["Contract"]) == ("1 6S", "1 7S 8S", "1 8D")
    assert first["Whists"] == "2:whist 0:whist" and first["Tricks"] == "2 7 1"
    assert (second["Declarer"], second["Contract"], second["Tricks"]) == ("1 7D", "1 8D", "2 8 0")
    assert len(example.deals[0].play) == 10 and example.deals[0].play[0] == "1. 1:AD 2:8D 0:TD >1"


def test_a_ppn_file_checks_as_its_export_does():
    lines = finished_export(0, PLAYERS, target=1, names=NAMES, fair=True)
    back = from_ppn(to_ppn(lines, domain_codec()))
    stream_id, head, links = from_export(back)
    proof = prove(stream_id, links, domain_codec())
    assert proof.problems == () and proof.head == head
    assert isinstance(g.fold(read_lines(back, domain_codec()).events), g.PulkaClosed)


@pytest.mark.parametrize(
    "name",
    ['Quote " and \\ back', "line\nbreak", "tab\tand\u2028sep\x85", "emoji 🂡 and \\u0041"],
)
def test_a_tag_value_survives_any_character(name):
    game = ppn.PpnGame(game_id="x", players=(ppn.PpnPlayer("p", name),))
    text = ppn.write(game, [])
    assert ppn.read(text).players[0].name == name
    assert len(text.split("\n")) == len(text.splitlines()) + 1  # no line break but the lines'


def test_several_games_read_back_in_order():
    texts = [ppn.write(ppn.PpnGame(game_id=str(k), tags=(("Result", f"+{k}"),))) for k in range(3)]
    found = list(ppn.read_all("\n".join(texts).split("\n")))
    assert [(f.game_id, f.tags) for f in found] == [
        (str(k), (("Result", f"+{k}"),)) for k in range(3)
    ]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('[Format "PPN/1"]\n[Game "x"\n', "line 2"),
        ('[Format "PPN/1"]\n[Game x]\n', "quoted"),
        ('[Format "PPN/1"]\n[Game "x"]\nhello\n', "line 3"),
        ('[Game "x"]\n', "Format"),
        ('[Format "PPN/1"]\n', "names itself"),
        ('[Format "PPN/1"]\n[Game "x"]\n[Log "1"]\n2 a 1 - - - - {}\n', "version 2"),
        ('[Format "PPN/1"]\n[Game "x"]\n[Log "1"]\n1 a 1 - -\n', "eight fields"),
    ],
)
def test_malformed_ppn_is_refused_naming_the_fault(text, says):
    with pytest.raises(ppn.PpnError, match=says):
        ppn.read(text)


def test_an_event_line_keeps_its_data_verbatim():
    event = ppn.PpnEvent(version=1, type="t", schema_version=1, data='{"a": "b c\u2028"}',
                         event_id="i", salt=None, prev_hash=ppn.GENESIS, hash="h")  # fmt: skip
    back = ppn.read(ppn.write(ppn.PpnGame(game_id="x", events=(event,)), []))
    assert back.events == (event,)
    assert msgspec.json.decode(back.events[0].data) == {"a": "b c\u2028"}


def test_an_attached_analysis_rides_with_its_deal_and_is_never_checked():
    lines = finished_export(0, PLAYERS, target=1, names=NAMES, fair=True)
    found = ppn.read(to_ppn(lines, domain_codec()))
    attached = ppn.with_analysis(found, {2: '{"par": 8}', 9: '{"nothing": 1}'})
    back = ppn.read(ppn.write(attached))
    assert [d.analysis for d in back.deals] == [None, '{"par": 8}']
    assert ppn.same_record(back, fair_pulka(0, PLAYERS)) is None
