"""java.util.PriorityQueue's binary heap, for decisions that must break ties as Kafka's do.

Kafka's StickyTaskAssignor picks the least-loaded process, and a process its least-loaded member, from a
PriorityQueue; among equals, which one comes out first depends on the heap's exact sifts. Python's heapq
sifts differently (it moves the last leaf to the root and sifts it to the bottom, then up), so the same
ties could fall the other way. This is Java's offer (siftUp) and poll (siftDown), over a key function
whose values compare as the Java Comparator does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class JavaPriorityQueue(Generic[T]):
    def __init__(self, key: Callable[[T], Any], items: Iterable[T] = ()) -> None:
        self.key = key
        self.queue: list[T] = []
        for item in items:  # PriorityQueue.addAll: one offer each, in iteration order
            self.add(item)

    def __len__(self) -> int:
        return len(self.queue)

    def add(self, item: T) -> None:
        """Java's offer: the new element sifts up while it is smaller than its parent."""
        queue, key = self.queue, self.key
        queue.append(item)
        k = len(queue) - 1
        while k > 0:
            parent = (k - 1) >> 1
            if not key(item) < key(queue[parent]):
                break
            queue[k] = queue[parent]
            k = parent
        queue[k] = item

    def poll(self) -> T | None:
        """Java's poll: the head; the last element takes its place and sifts down."""
        queue, key = self.queue, self.key
        if not queue:
            return None
        result, last = queue[0], queue.pop()
        n = len(queue)
        if n:
            k, half = 0, n >> 1
            while k < half:
                child = 2 * k + 1
                if child + 1 < n and key(queue[child + 1]) < key(queue[child]):
                    child += 1
                if not key(queue[child]) < key(last):
                    break
                queue[k] = queue[child]
                k = child
            queue[k] = last
        return result

    def is_empty(self) -> bool:
        return not self.queue
