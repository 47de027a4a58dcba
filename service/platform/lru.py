"""A small least-recently-used map, the one the service's in-memory caches share."""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Lru(Generic[K, V]):
    """Up to ``size`` entries; the least recently read or written goes first. Values are meant
    to be immutable (folded states, records), so they are shared, never copied."""

    def __init__(self, size: int) -> None:
        if size < 0:
            raise ValueError(f"an LRU cannot hold {size} entries")
        self.size = size
        """0 keeps nothing."""
        self._items: OrderedDict[K, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: K) -> V | None:
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        if len(self._items) > self.size:
            self._items.popitem(last=False)

    def pop(self, key: K) -> V | None:
        return self._items.pop(key, None)

    def clear(self) -> None:
        self._items.clear()
