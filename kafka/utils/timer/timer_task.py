"""TimerTask: something to run once a delay has passed (Kafka's org.apache.kafka.server.util.timer.TimerTask).

Seed 000 "Purgatories and Delayed Operations": every delayed operation is, underneath, a timer task;
its run() is what happens when the operation's time is up.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kafka.utils.timer.timer_task_entry import TimerTaskEntry


class TimerTask(ABC):
    """A task to run after `delay_ms` milliseconds, unless cancelled first.

    The task remembers the single TimerTaskEntry that currently holds it in a timer bucket. Cancelling
    unlinks that entry, which is O(1): this is what makes completing a waiting request cheap.
    """

    def __init__(self, delay_ms: int) -> None:
        self.delay_ms = int(delay_ms)
        # Guards _timer_task_entry: cancel() and a timer re-inserting the task can race.
        self._entry_lock = threading.Lock()
        self._timer_task_entry: TimerTaskEntry | None = None

    @abstractmethod
    def run(self) -> None:
        """What to do when the delay has passed. Called at most once per add() to a timer."""

    def cancel(self) -> None:
        """Take the task out of its timer bucket, so it will not run. Safe to call at any time, repeatedly."""
        with self._entry_lock:
            entry = self._timer_task_entry
            self._timer_task_entry = None
        if entry is not None:
            # Unlinking outside our lock keeps the lock order simple: bucket lock, then entry lock.
            entry.remove()

    def is_cancelled(self) -> bool:
        return self._timer_task_entry is None

    def _set_timer_task_entry(self, entry: TimerTaskEntry) -> None:
        """Called by a new TimerTaskEntry: a task lives in at most one bucket, so drop any older entry."""
        with self._entry_lock:
            old = self._timer_task_entry
            self._timer_task_entry = entry
        if old is not None and old is not entry:
            old.remove()

    def _get_timer_task_entry(self) -> TimerTaskEntry | None:
        return self._timer_task_entry
