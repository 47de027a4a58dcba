"""Group commit without a database: what arrives in one loop turn goes out in one batch, no
caller hears back before its batch is sent, and each hears its own outcome."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from service.eventlog.group_commit import GroupCommit


class Recorder:
    """A ``send`` that keeps its batches and answers each item with its double (odd items
    with an error), once ``release`` is set."""

    def __init__(self) -> None:
        self.batches: list[list[int]] = []
        self.release = asyncio.Event()
        self.release.set()

    async def send(self, batch: Sequence[int]) -> list[int | BaseException]:
        self.batches.append(list(batch))
        await self.release.wait()
        return [ValueError(i) if i % 2 else i * 2 for i in batch]


async def test_what_arrives_in_one_loop_turn_goes_in_one_batch() -> None:
    sent = Recorder()
    group = GroupCommit(sent.send, most=16)
    outcomes = await asyncio.gather(*(group.submit(i) for i in range(6)), return_exceptions=True)
    assert sent.batches == [[0, 1, 2, 3, 4, 5]]
    assert [o if isinstance(o, int) else repr(o) for o in outcomes] == [
        0, "ValueError(1)", 4, "ValueError(3)", 8, "ValueError(5)",
    ]  # fmt: skip


async def test_batches_hold_at_most_so_many_and_wait_for_a_free_slot() -> None:
    sent = Recorder()
    sent.release.clear()
    group = GroupCommit(sent.send, most=3, in_flight=2)
    waiting = [asyncio.ensure_future(group.submit(i * 2)) for i in range(8)]
    for _ in range(3):
        await asyncio.sleep(0)
    assert sent.batches == [[0, 2, 4], [6, 8, 10]]  # the third waits for a slot
    assert not any(w.done() for w in waiting)  # nothing answered before its batch returned
    sent.release.set()
    assert await asyncio.gather(*waiting) == [i * 4 for i in range(8)]
    assert sent.batches == [[0, 2, 4], [6, 8, 10], [12, 14]]


async def test_a_failed_batch_fails_every_command_in_it() -> None:
    async def send(batch: Sequence[int]) -> list[int | BaseException]:
        raise ConnectionError("gone")

    group = GroupCommit(send, most=4)
    outcomes = await asyncio.gather(group.submit(1), group.submit(2), return_exceptions=True)
    assert all(isinstance(o, ConnectionError) for o in outcomes)


async def test_a_caller_who_gives_up_leaves_the_others_their_answers() -> None:
    sent = Recorder()
    sent.release.clear()
    group = GroupCommit(sent.send, most=4)
    impatient = asyncio.ensure_future(group.submit(2))
    patient = asyncio.ensure_future(group.submit(4))
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    impatient.cancel()
    sent.release.set()
    assert await patient == 8
    assert sent.batches == [[2, 4]]


def test_a_group_needs_room_for_one_command() -> None:
    async def send(batch: Sequence[int]) -> list[int | BaseException]:
        return list(batch)

    with pytest.raises(ValueError):
        GroupCommit(send, most=0)
