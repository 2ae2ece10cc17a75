"""TimerTaskEntry: one link of a bucket's list (Kafka's org.apache.kafka.server.util.timer.TimerTaskEntry).

Seed 000 "Purgatories and Delayed Operations": the link that lets a completed operation leave the
timer in O(1) instead of waiting in it until its timeout.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kafka.utils.timer.timer_task import TimerTask
    from kafka.utils.timer.timer_task_list import TimerTaskList


class TimerTaskEntry:
    """A TimerTask with its absolute expiration time, linked into at most one TimerTaskList."""

    __slots__ = ("timer_task", "expiration_ms", "list", "next", "prev", "lock")

    def __init__(self, timer_task: TimerTask | None, expiration_ms: int) -> None:
        self.timer_task = timer_task
        self.expiration_ms = expiration_ms
        # The bucket that holds us, and our neighbours in it; all three change only under the
        # bucket's lock and our own lock, taken in that order.
        self.list: TimerTaskList | None = None
        self.next: TimerTaskEntry | None = None
        self.prev: TimerTaskEntry | None = None
        self.lock = threading.Lock()
        if timer_task is not None:
            # Claims the task: any older entry for the same task is removed, so it cannot run twice.
            timer_task._set_timer_task_entry(self)

    def cancelled(self) -> bool:
        """True when the task was cancelled or has since been claimed by a newer entry."""
        return self.timer_task is None or self.timer_task._get_timer_task_entry() is not self

    def remove(self) -> None:
        """Unlink from whatever bucket holds us.

        The bucket can change under us while the timer moves the entry down a wheel level, so retry
        until we see no bucket. (As in Kafka, a move that starts just after we see None can still
        re-link the entry; it is then dropped when that bucket expires, because cancelled() is true.)
        """
        current = self.list
        while current is not None:
            current.remove(self)
            current = self.list

    def __repr__(self) -> str:
        return f"TimerTaskEntry(expiration_ms={self.expiration_ms}, task={self.timer_task!r})"
