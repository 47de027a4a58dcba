"""The pool sheet (пулька) holds no rules: it adds what a DealScore says."""

from __future__ import annotations

import msgspec

from domain.sheet import DealScore, Entry, PoolSheet, apply_score, empty_sheet, is_closed


def test_an_empty_sheet_has_zero_everywhere_and_no_streak() -> None:
    sheet = empty_sheet(4)
    assert sheet.pool == sheet.mountain == sheet.bombs == (0, 0, 0, 0)
    assert sheet.whists == ((0, 0, 0, 0),) * 4
    assert (sheet.raspasy_streak, sheet.deals) == (0, 0)


def test_apply_score_adds_each_entry_to_its_column_and_takes_the_new_streak_and_bombs() -> None:
    score = DealScore(
        entries=(
            Entry(kind="pool", seat=0, amount=4, rule="contract_made", explanation="7♥ made"),
            Entry(kind="mountain", seat=2, amount=6, rule="short_whist", explanation="short"),
            Entry(kind="whists", seat=1, on=0, amount=8, rule="whists_for_tricks", explanation="w"),
            Entry(kind="mountain", seat=2, amount=-2, rule="mountain_written_off", explanation="o"),
        ),
        raspasy_streak=0,
        bombs=(0, 1, 0),
    )
    after = apply_score(empty_sheet(3), score)
    assert after.pool == (4, 0, 0)
    assert after.mountain == (0, 0, 4)
    assert after.whists == ((0, 0, 0), (8, 0, 0), (0, 0, 0))
    assert after.bombs == (0, 1, 0)
    assert after.deals == 1


def test_a_deal_score_round_trips_through_json_as_an_event_payload() -> None:
    score = DealScore(
        entries=(
            Entry(kind="whists", seat=1, on=0, amount=8, rule="consolation", explanation="c"),
        ),
        raspasy_streak=2,
        bombs=(0, 0, 0),
    )
    assert msgspec.json.decode(msgspec.json.encode(score), type=DealScore) == score


def test_the_pulka_is_closed_only_when_every_pool_reaches_the_target() -> None:
    def with_pools(*pool: int) -> PoolSheet:
        return msgspec.structs.replace(empty_sheet(3), pool=pool)

    assert not is_closed(with_pools(10, 10, 9), 10)
    assert is_closed(with_pools(10, 10, 10), 10)
    assert is_closed(with_pools(20, 20, 20), 20)
