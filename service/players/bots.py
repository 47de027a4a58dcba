"""The service's own bots as players: fixed identities per level, seated like anyone else.

Each level of `bots.LEVELS` has four players (a table has at most four seats), with ids derived
from the level and number, so every process and every restart knows them without a lookup:
``Random bot 1`` … ``Expert bot 4``. They are ``bot`` players: no token, nobody logs in as one;
`service.workers.steward` moves for them, from exactly what their seat sees, when it is their turn.
Views, the lobby, statistics and ratings show them with their kind.
"""

from __future__ import annotations

import logging
import uuid

import asyncpg

from bots import LEVELS
from domain.errors import refuse
from domain.game import Pulka
from service.platform.database import DatabaseUnavailable
from service.players.accounts import Player
from service.players.names import skeleton

log = logging.getLogger(__name__)

_NAMESPACE = uuid.UUID("8f1d7b52-6a0e-4c3d-9b2a-5e7f0c1d2a34")
PER_LEVEL = 4

# Each bot claims its name's skeleton too, so nobody registers a look-alike of a bot.
_ENSURE = """
WITH bots AS (
  INSERT INTO api.players (player_id, name, kind)
  SELECT id, name, 'bot' FROM unnest($1::uuid[], $2::text[]) AS b(id, name)
  ON CONFLICT (player_id) DO NOTHING
  RETURNING player_id)
INSERT INTO api.player_names (skeleton, player_id)
SELECT s, id FROM unnest($3::text[], $1::uuid[]) AS n(s, id) JOIN bots ON bots.player_id = n.id
ON CONFLICT DO NOTHING"""


def bot_id(level: str, number: int) -> str:
    return str(uuid.uuid5(_NAMESPACE, f"{level}:{number}"))


class BotPlayers:
    """Who the bots are (see the module docstring)."""

    def __init__(self) -> None:
        self.ready = False
        self._levels: dict[str, str] = {}
        self.players: dict[str, Player] = {}
        for level in LEVELS:
            for n in range(1, PER_LEVEL + 1):
                player = Player(id=bot_id(level, n), name=f"{level.title()} bot {n}", kind="bot")
                self._levels[player.id] = level
                self.players[player.id] = player

    async def ensure(self, pool: asyncpg.Pool) -> bool:
        """Register the bots (once per database; later calls change nothing). At startup a
        database that is not ready yet is no reason to fail: False, and the next seating of a
        bot tries again."""
        if self.ready:
            return True
        ids = [uuid.UUID(p.id) for p in self.players.values()]
        names = [p.name for p in self.players.values()]
        try:
            await pool.execute(_ENSURE, ids, names, [skeleton(n) for n in names])
        except (asyncpg.PostgresError, OSError, DatabaseUnavailable) as exc:
            log.warning("the bots are not registered yet: %s", exc)
            return False
        self.ready = True
        return True

    def is_bot(self, player_id: str) -> bool:
        return player_id in self._levels

    def level(self, player_id: str) -> str:
        return self._levels[player_id]

    def free(self, level: str, state: Pulka) -> Player:
        """A bot of ``level`` not yet seated at this game."""
        return self._free(level, state.players)

    def for_new_game(self, levels: list[str]) -> list[Player]:
        """Distinct bots of these levels, for the seats of a game being created."""
        chosen: list[Player] = []
        for level in levels:
            chosen.append(self._free(level, tuple(p.id for p in chosen)))
        return chosen

    def _free(self, level: str, seated: tuple[str | None, ...]) -> Player:
        if level not in LEVELS:
            raise refuse("no_such_level", f"no bot level {level!r}; there are {', '.join(LEVELS)}")
        for n in range(1, PER_LEVEL + 1):
            player_id = bot_id(level, n)
            if player_id not in seated:
                return self.players[player_id]
        raise refuse("table_full", "every seat at this table is taken")
