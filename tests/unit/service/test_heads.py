"""What a process knows of streams' heads: a version read or committed is current until a hint
names a later one, the hints stop being heard, or the trust runs out."""

from __future__ import annotations

from service.eventlog.log import Heads


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def heads() -> tuple[Heads, Clock]:
    clock = Clock()
    known = Heads(trust=1.0, clock=clock)
    known.listen(True)
    return known, clock


def test_a_version_read_is_current_until_the_trust_runs_out():
    known, clock = heads()
    known.confirmed("game-a", 7)
    assert known.current("game-a", 7)
    assert not known.current("game-a", 6) and not known.current("game-b", 7)
    clock.now += 1.0
    assert not known.current("game-a", 7)


def test_a_hint_of_a_later_version_spoils_it_even_one_heard_while_the_read_was_running():
    known, clock = heads()
    read_at = clock()
    known.hinted("game-a", 8)  # committed elsewhere while our read of version 7 ran
    known.confirmed("game-a", 7, read_at)
    assert not known.current("game-a", 7)
    known.confirmed("game-a", 8)
    assert known.current("game-a", 8)
    known.hinted("game-a", 8)  # the hint of what we read (or committed) ourselves
    assert known.current("game-a", 8)


def test_nothing_is_current_while_the_hints_are_not_heard_and_a_reconnect_forgets_all():
    known, _ = heads()
    known.confirmed("game-a", 3)
    known.listen(False)
    assert not known.current("game-a", 3)
    known.listen(True)
    assert not known.current("game-a", 3)


def test_the_trust_counts_from_when_the_read_began():
    known, clock = heads()
    began = clock()
    clock.now += 0.9
    known.confirmed("game-a", 5, began)
    clock.now += 0.2
    assert not known.current("game-a", 5)
