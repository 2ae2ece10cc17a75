"""TimerTaskList: one bucket of a timing wheel (Kafka's org.apache.kafka.server.util.timer.TimerTaskList).

Seed 000 "Purgatories and Delayed Operations": the expiry side of the purgatory. All tasks that fall
into one tick of one wheel share a bucket, and the bucket, not each task, waits in the delay queue.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from kafka.utils.timer.atomic import AtomicInteger
from kafka.utils.timer.timer_task_entry import TimerTaskEntry


class TimerTaskList:
    """A doubly-linked circular list of TimerTaskEntry with one expiration time for the whole bucket.

    A dummy root entry makes insert and unlink branch-free: root.next is the head, root.prev the tail.
    Entries are linked and unlinked in O(1), which is why cancelling a timer task costs nothing much.
    """

    def __init__(self, task_counter: AtomicInteger) -> None:
        # Shared by every bucket of every wheel level of one timer: it is the timer's size().
        self._task_counter = task_counter
        # Reentrant because flush() unlinks entries through remove() while already holding it.
        self._lock = threading.RLock()
        self._expiration_lock = threading.Lock()
        self._expiration = -1
        self._root = TimerTaskEntry(None, -1)
        self._root.next = self._root
        self._root.prev = self._root

    def set_expiration(self, expiration_ms: int) -> bool:
        """Set the bucket's expiration; True when it changed, i.e. the bucket must be (re)queued."""
        with self._expiration_lock:
            old, self._expiration = self._expiration, expiration_ms
        return old != expiration_ms

    def get_expiration(self) -> int:
        return self._expiration

    def add(self, entry: TimerTaskEntry) -> None:
        """Append an entry, first taking it out of any bucket it is in (a task moving down a level)."""
        while True:
            # Unlink outside our lock: holding two bucket locks at once could deadlock.
            entry.remove()
            with self._lock, entry.lock:
                if entry.list is None:
                    tail = self._root.prev
                    entry.next = self._root
                    entry.prev = tail
                    entry.list = self
                    tail.next = entry
                    self._root.prev = entry
                    self._task_counter.increment_and_get()
                    return
            # Another thread linked it elsewhere between our remove() and our lock: try again.

    def remove(self, entry: TimerTaskEntry) -> None:
        with self._lock, entry.lock:
            if entry.list is self:
                entry.next.prev = entry.prev
                entry.prev.next = entry.next
                entry.next = None
                entry.prev = None
                entry.list = None
                self._task_counter.decrement_and_get()

    def flush(self, fn: Callable[[TimerTaskEntry], None]) -> None:
        """Empty the bucket, handing each entry to fn (the timer re-inserts or runs it).

        The entries are unlinked under the lock and handed over after it is released, so fn may add
        entries to other buckets without ever holding two bucket locks.
        """
        detached: list[TimerTaskEntry] = []
        with self._lock:
            head = self._root.next
            while head is not self._root:
                self.remove(head)
                detached.append(head)
                head = self._root.next
            # -1 marks the bucket as free: the next add sets a new expiration and re-queues it.
            with self._expiration_lock:
                self._expiration = -1
        for entry in detached:
            fn(entry)

    def __len__(self) -> int:
        count = 0
        with self._lock:
            entry = self._root.next
            while entry is not self._root:
                count += 1
                entry = entry.next
        return count

    def __repr__(self) -> str:
        return f"TimerTaskList(expiration={self._expiration})"
