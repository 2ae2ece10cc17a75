"""EventAccumulator: one queue of events per key, handing out one key at a time (Kafka's EventAccumulator).

The rule that makes a shard single-threaded without a lock: poll() takes the first event of a key that has
events and is not in flight, and marks the key in flight until done(event). So two events of one partition
never run at once (even on two threads), and a partition with a long queue never holds back the others:
keys are drawn at random among the available ones, as Kafka draws them, so none starves.
"""

from __future__ import annotations

import random
import threading
from collections import deque
from typing import Generic, Protocol, TypeVar

K = TypeVar("K")


class KeyedEvent(Protocol):
    def key(self): ...


E = TypeVar("E", bound=KeyedEvent)


class RejectedExecutionError(Exception):
    """The accumulator (or the processor around it) is closed: the event will never run."""


class EventAccumulator(Generic[K, E]):
    def __init__(self, rng: random.Random | None = None) -> None:
        self._random = rng if rng is not None else random.Random()
        self._queues: dict[K, deque[E]] = {}
        self._available_keys: list[K] = []  # keys with events and none in flight
        self._inflight_keys: set[K] = set()
        self._condition = threading.Condition()
        self._size = 0
        self._closed = False

    def add_last(self, event: E) -> None:
        self._add(event, first=False)

    def add_first(self, event: E) -> None:
        self._add(event, first=True)

    def _add(self, event: E, first: bool) -> None:
        with self._condition:
            if self._closed:
                raise RejectedExecutionError("the event accumulator is closed")
            key = event.key()
            queue = self._queues.get(key)
            if queue is None:
                queue = self._queues[key] = deque()
                if key not in self._inflight_keys:
                    self._add_available_key(key)
            if first:
                queue.appendleft(event)
            else:
                queue.append(event)
            self._size += 1

    def poll(self, timeout_s: float = 0.0) -> E | None:
        """The next event of a random available key (marking the key in flight), waiting up to timeout_s
        for one; None if there is none, or the accumulator is closed and drained of available keys."""
        with self._condition:
            key = self._random_key()
            if key is None and timeout_s > 0 and not self._closed:
                self._condition.wait(timeout_s)
                key = self._random_key()
            if key is None:
                return None
            queue = self._queues[key]
            event = queue.popleft()
            if not queue:
                del self._queues[key]
            self._inflight_keys.add(key)
            self._size -= 1
            return event

    def done(self, event: E) -> None:
        """The event has run: its key may be handed out again."""
        with self._condition:
            key = event.key()
            self._inflight_keys.discard(key)
            if key in self._queues:
                self._add_available_key(key)

    def size(self) -> int:
        with self._condition:
            return self._size

    def close(self) -> None:
        with self._condition:
            self._closed = True
            self._condition.notify_all()

    def _add_available_key(self, key: K) -> None:
        self._available_keys.append(key)
        self._condition.notify()

    def _random_key(self) -> K | None:
        if not self._available_keys:
            return None
        # Swap the chosen key with the last and pop: O(1), and order does not matter.
        index = self._random.randrange(len(self._available_keys))
        keys = self._available_keys
        keys[index], keys[-1] = keys[-1], keys[index]
        return keys.pop()
