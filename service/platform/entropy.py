"""The service's randomness: one source, handed to whatever draws (as the clock is).

Every random draw a game depends on is made here: a game's server secret for a game of the
first derivation (since migration 0018 the database draws every new game's secret, and no
source here can predict it: docs/fairness.md), a seat's client seed drawn for a player who
gave none, the fresh entropy a command brings for a legacy shuffle, and the random generator a
bot thinks with. The composition root (`service.bootstrap`) hands one source to all of them.

`SYSTEM_ENTROPY` is the running service's: every draw from the operating system's CSPRNG
(`secrets`). `SeededEntropy` makes every draw a function of a seed, so that two runs of a test
draw the same seeds; it is for tests alone. No setting or environment variable selects it: only
code that builds the services itself (`open_services(..., entropy=…)`, `create_app(...,
entropy=…)`) can pass one, and `preferans serve`, `preferans bots` and the CLI never do. A game
dealt from a seeded source is as predictable as its seed, which is why it must never serve.

What is not drawn here stays with `secrets` and `os.urandom` wherever it is made, tests or not:
bearer tokens and invite codes (`service.players`), the hash chain's salts
(`service.eventlog.log`), and the random part of event and game ids (uuid7).
"""

from __future__ import annotations

import hashlib
import random
import secrets
from collections import Counter
from typing import Literal

Draw = Literal["secret", "client seed", "command", "bot"]
"""What a draw is for. A seeded source keeps one sequence per kind, so that the order of the
bots' draws (a background worker's) never moves a game's secret or its client seeds."""


class Entropy:
    """The system's randomness: every draw from `secrets`."""

    seeded = False
    """Whether the draws are predictable (a test's source)."""

    def secret(self, n: int) -> bytes:
        """``n`` bytes for a game's server secret, committed to before the first deal."""
        return secrets.token_bytes(n)

    def client_seed(self) -> str:
        """A seat's client seed, drawn for a player who gave none: 32 hex digits."""
        return secrets.token_hex(16)

    def command_bytes(self, n: int) -> bytes:
        """``n`` bytes of fresh entropy for a command: the shuffle of a legacy game's deal."""
        return secrets.token_bytes(n)

    def generator(self) -> random.Random:
        """A new random generator for a bot's decisions (not a secret: it chooses moves)."""
        return random.Random(secrets.randbits(128))


class SeededEntropy(Entropy):
    """Every draw a function of ``seed`` and of the draws of its kind before it. For tests."""

    seeded = True

    def __init__(self, seed: str) -> None:
        self.seed = seed
        self._drawn: Counter[Draw] = Counter()

    def _bytes(self, kind: Draw, n: int) -> bytes:
        index = self._drawn[kind]
        self._drawn[kind] += 1
        return hashlib.shake_256(f"{self.seed}\n{kind}\n{index}".encode()).digest(n)

    def secret(self, n: int) -> bytes:
        return self._bytes("secret", n)

    def client_seed(self) -> str:
        return self._bytes("client seed", 16).hex()

    def command_bytes(self, n: int) -> bytes:
        return self._bytes("command", n)

    def generator(self) -> random.Random:
        return random.Random(self._bytes("bot", 16))

    def __repr__(self) -> str:
        return f"SeededEntropy({self.seed!r})"


SYSTEM_ENTROPY = Entropy()
"""The randomness of a running service."""
