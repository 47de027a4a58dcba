"""The notifications hub's own bookkeeping (`service.players.notifications.NotesHub`), without
a database: who is followed, which followers a moved head wakes, and that closing wakes all."""

from __future__ import annotations

from service.players.notifications import NotesHub


class Heads:
    """The one query the hub sends: each followed player's latest ``seq``, as told."""

    def __init__(self) -> None:
        self.seq: dict[str, int] = {}
        self.asked: list[list[str]] = []

    async def fetch(self, query: str, players: list[str]) -> list[tuple[str, int]]:
        assert "api.notification_heads" in query
        self.asked.append(sorted(players))
        return [(p, self.seq[p]) for p in players if p in self.seq]


def hub() -> tuple[NotesHub, Heads]:
    heads = Heads()
    return NotesHub(heads, poll_interval=60), heads  # type: ignore[arg-type]


async def test_a_moved_head_wakes_that_players_followers_and_no_one_elses() -> None:
    notes, heads = hub()
    follow = notes.follow
    async with follow("anna") as anna, follow("anna") as anna_too, follow("boris") as boris:
        heads.seq = {"anna": 3, "boris": 0}
        await notes._round()
        assert anna.woken.is_set() and anna_too.woken.is_set()
        assert not boris.woken.is_set()
        assert heads.asked == [["anna", "boris"]]
        anna.woken.clear()
        await notes._round()  # the same head again: nobody is woken twice
        assert not anna.woken.is_set()


async def test_nobody_followed_means_no_query() -> None:
    notes, heads = hub()
    async with notes.follow("anna"):
        pass
    await notes._round()
    assert heads.asked == []


async def test_the_last_follower_gone_forgets_the_player_and_his_head() -> None:
    notes, heads = hub()
    heads.seq = {"anna": 5}
    async with notes.follow("anna"):
        await notes._round()
    async with notes.follow("anna") as again:
        await notes._round()  # a new follower: the head counts as news again
        assert again.woken.is_set()


async def test_closing_the_hub_wakes_every_follower_and_stops_its_looks() -> None:
    notes, heads = hub()
    async with notes.follow("anna") as anna, notes.follow("boris") as boris:
        notes.close()
        assert notes.closed and anna.woken.is_set() and boris.woken.is_set()
        heads.seq = {"anna": 9}
        await notes._round()
        assert heads.asked == []
