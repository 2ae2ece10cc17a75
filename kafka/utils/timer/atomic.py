"""AtomicInteger: a counter several threads may bump (Java's java.util.concurrent.atomic.AtomicInteger).

`x += 1` on a Python attribute is a read, an add and a write; two threads can interleave between them
and lose an update, so the timer's task count and the purgatory's operation estimate go through this.
"""

from __future__ import annotations

import threading


class AtomicInteger:
    """An int whose read-modify-write operations are atomic."""

    def __init__(self, value: int = 0) -> None:
        self._lock = threading.Lock()
        self._value = value

    def get(self) -> int:
        # A plain read of an int reference is atomic under CPython; no lock needed.
        return self._value

    def set(self, value: int) -> None:
        with self._lock:
            self._value = value

    def increment_and_get(self) -> int:
        return self.add_and_get(1)

    def decrement_and_get(self) -> int:
        return self.add_and_get(-1)

    def add_and_get(self, delta: int) -> int:
        with self._lock:
            self._value += delta
            return self._value

    def __repr__(self) -> str:
        return f"AtomicInteger({self._value})"
