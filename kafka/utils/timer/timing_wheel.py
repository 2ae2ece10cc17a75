"""TimingWheel: hierarchical timing wheels (Kafka's org.apache.kafka.server.util.timer.TimingWheel).

Seed 000 "Purgatories and Delayed Operations": how thousands of waiting produce and fetch requests
time out cheaply. Insert is O(number of levels), cancel is O(1), and the delay queue holds buckets.

A wheel of `wheel_size` buckets, each `tick_ms` wide, covers `interval = tick_ms * wheel_size` ms
from its current time. A task further out goes to an overflow wheel whose tick is this wheel's whole
interval (created on demand). With tick 1 ms and 20 buckets the levels cover 20 ms, 400 ms, 8 s,
160 s, 3200 s, ... When an overflow bucket expires its tasks are re-added and fall to a finer level,
until the finest level finds them expired and the timer runs them.

Worked example (tick 1, size 20, start 0; the bucket's expiration is its start time):
    task due at 25 ms -> level 1 covers [0, 20): no. Level 2 (tick 20) covers [0, 400): bucket [20, 40),
    expiring at 20. At 20 ms that bucket expires, the task is re-added: level 1 now covers [20, 40),
    bucket [25, 26) expiring at 25. At 25 ms it expires again and the task is run.
"""

from __future__ import annotations

import threading
from typing import Protocol

from kafka.utils.timer.atomic import AtomicInteger
from kafka.utils.timer.timer_task_entry import TimerTaskEntry
from kafka.utils.timer.timer_task_list import TimerTaskList


class BucketQueue(Protocol):
    """Where a wheel announces a bucket that has (re)started waiting: SystemTimer's DelayQueue."""

    def offer(self, bucket: TimerTaskList) -> None: ...


class TimingWheel:
    """One level of the hierarchy; the overflow wheel above it is created when first needed.

    Not thread-safe on its own: SystemTimer never lets add() run during advance_clock() (Kafka uses
    a read/write lock for that; we use one lock). Creating the overflow wheel is guarded anyway, so a
    wheel used on its own from two threads never builds two parents.
    """

    def __init__(
        self,
        tick_ms: int,
        wheel_size: int,
        start_ms: int,
        task_counter: AtomicInteger,
        queue: BucketQueue,
    ) -> None:
        if tick_ms <= 0 or wheel_size <= 0:
            raise ValueError("tick_ms and wheel_size must be positive")
        self.tick_ms = tick_ms
        self.wheel_size = wheel_size
        self.interval = tick_ms * wheel_size
        self._task_counter = task_counter
        self._queue = queue
        self._buckets = [TimerTaskList(task_counter) for _ in range(wheel_size)]
        # Rounded down to a whole tick: bucket boundaries are multiples of tick_ms.
        self._current_time = start_ms - (start_ms % tick_ms)
        self._overflow_wheel: TimingWheel | None = None
        self._overflow_lock = threading.Lock()

    @property
    def current_time(self) -> int:
        """Start of the tick this wheel is in; everything before current_time + tick_ms is expired."""
        return self._current_time

    @property
    def overflow_wheel(self) -> TimingWheel | None:
        return self._overflow_wheel

    def add(self, entry: TimerTaskEntry) -> bool:
        """Put the entry in its bucket. False means "not added": it is cancelled or already expired."""
        expiration = entry.expiration_ms
        if entry.cancelled():
            return False
        if expiration < self._current_time + self.tick_ms:
            return False
        if expiration < self._current_time + self.interval:
            self._add_to_bucket(entry, expiration)
            return True
        return self._get_overflow_wheel().add(entry)

    def _add_to_bucket(self, entry: TimerTaskEntry, expiration: int) -> None:
        # virtual_id counts ticks since time 0; the wheel reuses bucket slots round and round.
        virtual_id = expiration // self.tick_ms
        bucket = self._buckets[virtual_id % self.wheel_size]
        bucket.add(entry)
        # Queue the bucket only when its expiration changed, i.e. the slot starts a new round.
        # Later adds to the same round see the same expiration and do not queue it twice.
        if bucket.set_expiration(virtual_id * self.tick_ms):
            self._queue.offer(bucket)

    def _get_overflow_wheel(self) -> TimingWheel:
        if self._overflow_wheel is None:
            with self._overflow_lock:
                if self._overflow_wheel is None:
                    self._overflow_wheel = TimingWheel(
                        tick_ms=self.interval,
                        wheel_size=self.wheel_size,
                        start_ms=self._current_time,
                        task_counter=self._task_counter,
                        queue=self._queue,
                    )
        return self._overflow_wheel

    def advance_clock(self, time_ms: int) -> None:
        """Move this wheel (and the ones above it) to the tick containing time_ms; never backwards."""
        if time_ms >= self._current_time + self.tick_ms:
            self._current_time = time_ms - (time_ms % self.tick_ms)
            if self._overflow_wheel is not None:
                self._overflow_wheel.advance_clock(self._current_time)

    def levels(self) -> list[TimingWheel]:
        """This wheel and every overflow wheel above it, finest first (for tests and the docs)."""
        wheels: list[TimingWheel] = []
        wheel: TimingWheel | None = self
        while wheel is not None:
            wheels.append(wheel)
            wheel = wheel._overflow_wheel
        return wheels
