"""Learned evaluators: small networks that predict double-dummy trick counts from a hand
(docs/bots.md §11).

Two models, each a one-hidden-layer network (numpy, a few thousand weights) whose output is a
probability for each trick count 0 … 10:

- ``declarer``: the declarer's tricks from the opening lead, given the ten cards he keeps
  after the discard, the strain (a trump suit, no-trump or misère) and his place in the order
  of play. Trained on double-dummy solves of layouts of the other twenty cards.
- ``whist``: the declarer's tricks, seen from a defender: his ten cards, the contract, his place
  after the declarer, the declarer's place in the order of play and the partner's call if it is
  already made. Trained on deals played out by basic bots, each labelled by double-dummy solves
  of the real layout and of layouts the defender could not tell apart from it.

Suits are put in a canonical order (the trump first, the side suits by length then by cards),
since who wins a trick does not depend on a suit's name. The weights are package data
(``bots/models/evaluators.npz``), loaded once with numpy; nothing is downloaded. Every function
here is deterministic: the same hand gives the same probabilities.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

from domain.cards import MISER, SUITS

F = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]

MODEL_PATH: Final = Path(__file__).with_name("models") / "evaluators.npz"
TRICKS: Final = 11
"""Outputs: a probability for each trick count 0 … 10."""

STRAIN_INDEX: Final[dict[str, int]] = {**{s: i for i, s in enumerate(SUITS)}, "NT": 4, MISER: 5}
"""A strain as the features number it: the suits (as `domain.cards.SUITS`), no-trump, misère."""

_BITS: Final = np.array([[(b >> r) & 1 for r in range(8)] for b in range(256)], dtype=np.float64)
_POP: Final = _BITS.sum(axis=1).astype(np.int64)

HAND_FEATURES: Final = 5 * 8 + 5
"""A hand in canonical order: the trump suit's eight cards (none in no-trump and misère), then
up to four side suits, longest first (ties: higher cards first), eight cards each; the five
lengths over eight."""
DECLARER_FEATURES: Final = HAND_FEATURES + 3 + 3
"""The hand, the strain's type (suit, no-trump, misère), the declarer's place in the order of
play (leads first, second, third)."""
WHIST_FEATURES: Final = HAND_FEATURES + 2 + 5 + 2 + 3 + 3
"""The defender's hand, the strain's type (suit, no-trump), the level (6 … 10), the defender's
place after the declarer (first, second), the declarer's place in the order of play, the
partner's call (not yet made, pass, whist)."""


def hand_features(masks: Sequence[int] | Ints, strains: Sequence[int] | Ints) -> F:
    """The canonical hand features of each (32-bit card mask, strain index) pair, one row each."""
    m = np.asarray(masks, dtype=np.int64)
    st = np.asarray(strains, dtype=np.int64)
    n = m.shape[0]
    suits = np.stack([(m >> (8 * s)) & 0xFF for s in range(4)], axis=1)  # n × 4
    lengths = _POP[suits]
    is_trump = (np.arange(4)[None, :] == st[:, None]) & (st[:, None] < 4)
    # side suits: longest first, then the higher cards; the trump sorts last (and is dropped)
    key = np.where(is_trump, -1, lengths * 256 + suits)
    order = np.argsort(-key, axis=1, kind="stable")
    side = np.take_along_axis(suits, order, axis=1)
    side_len = np.take_along_axis(lengths, order, axis=1)
    side_is_trump = np.take_along_axis(is_trump, order, axis=1)
    side = np.where(side_is_trump, 0, side)
    side_len = np.where(side_is_trump, 0, side_len)
    trump = np.where(st < 4, suits[np.arange(n), np.minimum(st, 3)], 0)
    trump_len = np.where(st < 4, lengths[np.arange(n), np.minimum(st, 3)], 0)
    out = np.empty((n, HAND_FEATURES))
    out[:, 0:8] = _BITS[trump]
    for j in range(4):
        out[:, 8 + 8 * j : 16 + 8 * j] = _BITS[side[:, j]]
    out[:, 40] = trump_len / 8.0
    out[:, 41:45] = side_len / 8.0
    return out


def _one_hot(values: Ints, size: int) -> F:
    out = np.zeros((values.shape[0], size))
    out[np.arange(values.shape[0]), values] = 1.0
    return out


def declarer_features(
    masks: Sequence[int] | Ints, strains: Sequence[int] | Ints, slots: Sequence[int] | Ints
) -> F:
    """Rows for the declarer model: kept cards, strain index, the declarer's place (0 … 2)."""
    st = np.asarray(strains, dtype=np.int64)
    kind = np.where(st < 4, 0, np.where(st == 4, 1, 2))
    return np.concatenate(
        [hand_features(masks, st), _one_hot(kind, 3), _one_hot(np.asarray(slots, np.int64), 3)],
        axis=1,
    )


PARTNER_CALLS: Final[dict[str | None, int]] = {None: 0, "pass": 1, "whist": 2, "half_whist": 1}


def whist_features(
    masks: Sequence[int] | Ints,
    strains: Sequence[int] | Ints,
    levels: Sequence[int] | Ints,
    after: Sequence[int] | Ints,
    declarer_slots: Sequence[int] | Ints,
    partner: Sequence[int] | Ints,
) -> F:
    """Rows for the whist model: the defender's cards, the contract's strain index (0 … 4) and
    level, his place after the declarer (0: first, 1: second), the declarer's place in the
    order of play and the partner's call (`PARTNER_CALLS`)."""
    st = np.asarray(strains, dtype=np.int64)
    return np.concatenate(
        [
            hand_features(masks, st),
            _one_hot((st == 4).astype(np.int64), 2),
            _one_hot(np.asarray(levels, np.int64) - 6, 5),
            _one_hot(np.asarray(after, np.int64), 2),
            _one_hot(np.asarray(declarer_slots, np.int64), 3),
            _one_hot(np.asarray(partner, np.int64), 3),
        ],
        axis=1,
    )


class Net:
    """A one-hidden-layer network: inputs standardised, ReLU, a softmax over trick counts."""

    def __init__(self, params: dict[str, F]) -> None:
        self.mu = params["mu"]
        self.sd = params["sd"]
        self.w1 = params["w1"]
        self.b1 = params["b1"]
        self.w2 = params["w2"]
        self.b2 = params["b2"]

    def logits(self, x: F) -> F:
        h = np.maximum(0.0, ((x - self.mu) / self.sd) @ self.w1 + self.b1)
        out: F = h @ self.w2 + self.b2
        return out

    def predict(self, x: F) -> F:
        """The probability of each trick count, one row per input row."""
        z = self.logits(x)
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        out: F = e / e.sum(axis=1, keepdims=True)
        return out

    def params(self) -> dict[str, F]:
        return {"mu": self.mu, "sd": self.sd, "w1": self.w1, "b1": self.b1, "w2": self.w2,
                "b2": self.b2}  # fmt: skip

    @property
    def size(self) -> int:
        """Numbers in the network (the standardisation included)."""
        return sum(int(v.size) for v in self.params().values())


class Evaluators:
    """The two trained networks."""

    def __init__(self, declarer: Net, whist: Net, meta: dict[str, str]) -> None:
        self.declarer = declarer
        self.whist = whist
        self.meta = meta


def load(path: Path = MODEL_PATH) -> Evaluators:
    """The networks stored at ``path`` (prefixes ``declarer_`` and ``whist_``)."""
    with np.load(path, allow_pickle=False) as z:
        data: dict[str, npt.NDArray[np.generic]] = {k: np.array(z[k]) for k in z.files}
    nets = {}
    for name in ("declarer", "whist"):
        nets[name] = Net(
            {
                k: data[f"{name}_{k}"].astype(np.float64)
                for k in ("mu", "sd", "w1", "b1", "w2", "b2")
            }
        )
    meta = {k[5:]: str(v) for k, v in data.items() if k.startswith("meta_")}
    return Evaluators(nets["declarer"], nets["whist"], meta)


def save(path: Path, declarer: Net, whist: Net, meta: dict[str, str]) -> None:
    arrays: dict[str, npt.NDArray[np.generic]] = {}
    for name, net in (("declarer", declarer), ("whist", whist)):
        for k, v in net.params().items():
            arrays[f"{name}_{k}"] = v.astype(np.float32)
    for key, text in meta.items():
        arrays[f"meta_{key}"] = np.array(text)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **arrays)  # type: ignore[arg-type]


@functools.cache
def evaluators() -> Evaluators:
    """The shipped networks, loaded once per process."""
    return load()


__all__ = [
    "DECLARER_FEATURES", "MODEL_PATH", "STRAIN_INDEX", "WHIST_FEATURES", "Evaluators", "Net",
    "declarer_features", "evaluators", "hand_features", "load", "save", "whist_features",
]  # fmt: skip
