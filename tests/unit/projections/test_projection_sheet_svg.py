"""The hand-drawn sheet as SVG: well-formed, every number where a player writes it."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from pulkas import flat, play_pulka, small_rules

from projections import sheet
from projections.sheet import running_sums, written
from projections.sheet_svg import escape, render_svg

SVG = "{http://www.w3.org/2000/svg}"


def played(players: int, seed: int, *, stop_after: int | None = None) -> sheet.GameSheet:
    _, appends = play_pulka(small_rules("sochi", players, target=6), seed, stop_after=stop_after)
    model = sheet.EMPTY
    for event in flat(appends):
        model = sheet.apply(model, event)
    return model


def texts(root: ET.Element, cls: str) -> list[ET.Element]:
    return [t for t in root.iter(f"{SVG}text") if t.get("class") == cls]


def content(element: ET.Element) -> str:
    return "".join(element.itertext())


@pytest.mark.parametrize(("players", "seed"), [(3, 1), (3, 2), (4, 3)])
def test_every_column_is_drawn_as_its_running_sums(players, seed):
    model = played(players, seed)
    root = ET.fromstring(render_svg(model, title="game"))
    assert root.tag == f"{SVG}svg"
    columns = running_sums(model)
    for kind in ("pool", "mountain"):
        drawn = {int(t.get("data-seat")): content(t) for t in texts(root, kind)}
        expected = {s: written(getattr(c, kind)) for s, c in enumerate(columns) if getattr(c, kind)}
        assert drawn == expected
    drawn_whists = {
        (int(t.get("data-seat")), int(t.get("data-on"))): content(t) for t in texts(root, "whists")
    }
    assert drawn_whists == {
        (s, on): written(c.whists[on])
        for s, c in enumerate(columns)
        for on in range(players)
        if c.whists[on]
    }


def test_the_sheet_has_the_classic_frame_with_the_pool_target_in_the_circle():
    model = played(3, 5)
    root = ET.fromstring(render_svg(model))
    assert len(list(root.iter(f"{SVG}circle"))) == 1
    # Three nested rectangles (whists, pool, mountain) inside the paper.
    assert len([r for r in root.iter(f"{SVG}rect") if r.get("fill") == "none"]) == 3
    (target,) = texts(root, "target")
    assert content(target) == "6"
    names = {int(t.get("data-seat")): content(t) for t in texts(root, "player")}
    assert names == dict(enumerate(model.players))


def test_after_the_game_the_settlement_is_written_under_the_sheet():
    model = played(3, 8)
    assert model.settlement is not None
    root = ET.fromstring(render_svg(model, names=["Анна", None, "Boris"]))
    results = {int(t.get("data-seat")): content(t) for t in texts(root, "result")}
    values = model.settlement.result
    assert results == {
        0: f"Анна: {values[0]:+d}",
        1: f"{model.players[1]}: {values[1]:+d}",
        2: f"Boris: {values[2]:+d}",
    }


def test_a_running_game_has_no_settlement_yet():
    model = played(3, 9, stop_after=30)
    assert model.status == "playing"
    root = ET.fromstring(render_svg(model))
    assert texts(root, "result") == []


def test_text_is_escaped_so_any_name_or_title_stays_well_formed():
    model = played(3, 4)
    nasty = 'Bob & "Alice" <script>'
    root = ET.fromstring(render_svg(model, title=nasty, names=[nasty, "x", "y"]))
    assert content(texts(root, "title")[0]) == nasty
    assert root.find(f"{SVG}title").text == nasty
    assert escape("<a & 'b'>") == "&lt;a &amp; &apos;b&apos;&gt;"


def test_only_three_or_four_players_are_drawn():
    with pytest.raises(ValueError, match="3 or 4"):
        render_svg(sheet.GameSheet(players=("a", "b")))
