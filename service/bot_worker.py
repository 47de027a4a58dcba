"""The bot worker: the service's bots think and move here, in a process of their own.

``preferans bots`` runs it; ``preferans serve`` starts one beside its API workers
(``PREFERANS_BOT_WORKER=process``, the default), so that a bot's thinking never runs on an API
event loop. It is a `service.steward.Steward` with the ``bots`` duty over its own pool and
event log: it sleeps until ``api.games.bot_due_at`` says a bot is to move (woken by the event
store's append hints), decides from exactly what the bot's seat sees, and sends the move as an
ordinary command at the game's exact version under a key of game, version and bot, so two
workers, a crash or a restart never make a bot act twice, and a restarted worker picks up where
the last one stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal

from service.bot_players import BotPlayers
from service.database import app_dsn, pool_from_settings, resolve_dsn
from service.event_log import game_log
from service.games import GameService
from service.lobby import Lobby
from service.players import Players
from service.settings import Settings
from service.snapshots import game_snapshots
from service.steward import Steward

log = logging.getLogger(__name__)


async def run_worker(settings: Settings, *, stop: asyncio.Event | None = None) -> None:
    """Move the bots until ``stop`` is set (or the task is cancelled)."""
    stop = stop or asyncio.Event()
    dsn = app_dsn(await asyncio.to_thread(resolve_dsn, settings), settings)
    pool = await pool_from_settings(settings, dsn)
    events = game_log(pool, announce=settings.notify)
    bots = BotPlayers()
    players = Players(pool)
    snapshots = game_snapshots(pool, every=settings.snapshot_every) if settings.snapshots else None
    games = GameService(
        events, Lobby(pool), players=players, cache_size=settings.state_cache_size,
        snapshots=snapshots,
    )  # fmt: skip
    steward = Steward(
        games, pool, duty="bots", bots=bots, think_budget=settings.bot_budget,
        pace=settings.bot_pace,
        poll_interval=settings.steward_poll_interval,
    )  # fmt: skip
    events.add_listener(steward.hint)

    async def hints() -> None:
        while True:
            try:
                async with events.store.listen() as feed:
                    while True:
                        await feed.wait(settings.steward_poll_interval)
                        steward.hint()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("bot worker: the hint listener failed; retrying", exc_info=True)
                await asyncio.sleep(1)

    while not await bots.ensure(pool):
        await asyncio.sleep(1)
    tasks = [asyncio.create_task(steward.run(), name="bots"), asyncio.create_task(hints())]
    if snapshots is not None:
        tasks.append(asyncio.create_task(snapshots.run(), name="snapshots"))
    log.info("bot worker: moving the bots")
    try:
        await stop.wait()
    finally:
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await events.close()
        if snapshots is not None:
            await snapshots.close()
        await pool.close()


def main(settings: Settings) -> int:
    """``preferans bots``: run until SIGTERM or SIGINT."""

    async def serve() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await run_worker(settings, stop=stop)

    asyncio.run(serve())
    return 0
