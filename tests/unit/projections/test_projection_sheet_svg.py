"""The hand-drawn sheet as SVG: well-formed, every number where a player writes it."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import msgspec
import pytest
from pulkas import flat, play_pulka, small_rules

from projections import sheet
from projections.sheet import running_sums, written
from projections.sheet_svg import LEGIBLE_FONT, column_steps, escape, render_svg

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


def as_written(steps) -> str:
    return ".".join(step.written() for step in steps)


@pytest.mark.parametrize(("players", "seed"), [(3, 1), (3, 2), (4, 3)])
def test_every_column_is_drawn_as_its_running_sums(players, seed):
    model = played(players, seed)
    root = ET.fromstring(render_svg(model, title="game"))
    assert root.tag == f"{SVG}svg"
    steps = column_steps(model)
    columns = running_sums(model)
    for kind in ("pool", "mountain"):
        drawn = {int(t.get("data-seat")): content(t) for t in texts(root, kind)}
        expected = {
            s: as_written(getattr(c, kind)) for s, c in enumerate(steps) if getattr(c, kind)
        }
        assert drawn == expected
        for s, c in enumerate(steps):  # the same totals as the sheet's running sums
            assert tuple(step.total for step in getattr(c, kind)) == getattr(columns[s], kind)
            if all(step.moved is None for step in getattr(c, kind)):
                assert as_written(getattr(c, kind)) == written(getattr(columns[s], kind))
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
    assert root.find(f"{SVG}title").text.startswith(nasty)
    assert escape("<a & 'b'>") == "&lt;a &amp; &apos;b&apos;&gt;"


def test_only_three_or_four_players_are_drawn():
    with pytest.raises(ValueError, match="3 or 4"):
        render_svg(sheet.GameSheet(players=("a", "b")))


def long_pulka() -> sheet.GameSheet:
    """181 deals to a pool of 40: columns of fifty numbers and more, one mountain written off."""
    _, appends = play_pulka(small_rules("sochi", 3, target=40), 2)
    model = sheet.EMPTY
    for event in flat(appends):
        model = sheet.apply(model, event)
    return model


def test_a_long_pulka_stays_legible_its_long_columns_carried_as_a_total():
    model = long_pulka()
    steps = column_steps(model)
    assert max(len(c.mountain) for c in steps) > 50
    root = ET.fromstring(render_svg(model))
    sizes = [float(t.get("font-size")) for t in root.iter(f"{SVG}text") if t.get("font-size")]
    assert min(sizes) >= LEGIBLE_FONT
    carried = [t for t in root.iter(f"{SVG}text") if t.get("data-carried")]
    assert carried
    for text in carried:
        kind, seat, k = text.get("class"), int(text.get("data-seat")), int(text.get("data-carried"))
        column = getattr(steps[seat], kind) if kind != "whists" else None
        if column is None:
            column = steps[seat].whists[int(text.get("data-on"))]
        written_text = content(text)
        assert written_text.startswith(f"…→{column[k - 1].total}.")
        assert written_text.endswith(column[-1].written())  # the total is always there
        assert len(written_text.split(".")) == len(column) - k + 1


def test_the_heading_names_the_players_the_convention_and_the_day():
    model = msgspec.structs.replace(played(3, 1), created_at=1_764_590_400_000)  # 1 Dec 2025
    root = ET.fromstring(render_svg(model, names=["Анна", "Vera", "Kolya"]))
    assert content(texts(root, "title")[0]) == "Анна · Vera · Kolya"
    assert content(texts(root, "subtitle")[0]) == "Sochi, pool to 6 · 1 Dec 2025"
    assert root.find(f"{SVG}title").text == "Анна · Vera · Kolya — Sochi, pool to 6 · 1 Dec 2025"
    assert not any(len(part) == 36 and part.count("-") == 4 for part in content(root).split())


def test_a_written_off_mountain_is_marked_never_a_silent_decrease():
    model = long_pulka()
    (off,) = [
        (deal.deal_no, e)
        for deal in model.deals
        for e in deal.entries
        if e.rule == "mountain_written_off"
    ]
    deal_no, entry = off
    steps = column_steps(model)
    for c in steps:  # every fall of a mountain carries its move
        for before, after in zip(c.mountain, c.mountain[1:], strict=False):
            assert after.total >= before.total or after.moved == after.total - before.total
    marked = [s for s in steps[entry.seat].mountain if s.moved is not None]
    assert marked and marked[0].moved == entry.amount < 0
    root = ET.fromstring(render_svg(model, names=["Анна", "Vera", "Kolya"]))
    (mountain,) = [t for t in texts(root, "mountain") if t.get("data-seat") == str(entry.seat)]
    assert f"−{-entry.amount}→{marked[0].total}" in content(mountain)
    notes = [content(t) for t in texts(root, "transfer")]
    name = ["Анна", "Vera", "Kolya"][entry.seat]
    assert f"Deal {deal_no}: {name}'s mountain −{-entry.amount}, written off" in " ".join(notes)
    assert model.settlement is not None and model.settlement.mountain_amnesty > 0
    (amnesty,) = texts(root, "amnesty")
    assert f"{model.settlement.mountain_amnesty} off every mountain" in content(amnesty)


def test_in_russian_every_word_is_russian_and_a_free_seat_has_its_number_from_one():
    model = played(3, 8)
    assert model.settlement is not None
    root = ET.fromstring(render_svg(model, names=["Анна", "Vera", None], lang="ru"))
    assert content(texts(root, "settlement-title")[0]) == "Расчёт, в вистах:"
    assert content(texts(root, "bands-title")[0]) == "От края к центру: висты, пуля, гора"
    assert "пуля до 6" in content(texts(root, "subtitle")[0])
    if model.settlement.mountain_amnesty:
        assert content(texts(root, "amnesty")[0]).startswith("Амнистия: с каждой горы снято")
    english = ET.fromstring(render_svg(model, names=["Анна", "Vera", None]))
    assert content(texts(english, "settlement-title")[0]) == "Settlement, in whists:"
    free = sheet.GameSheet(players=("a", "b", None))
    drawn = ET.fromstring(render_svg(free, lang="ru"))
    assert {content(t) for t in texts(drawn, "player")} == {"a", "b", "место 3"}
    assert root.get("{http://www.w3.org/XML/1998/namespace}lang") == "ru"
