"""SystemTimer: a hierarchical timing wheel plus a delay queue of its buckets (Kafka's
org.apache.kafka.server.util.timer.SystemTimer).

Seed 000 "Purgatories and Delayed Operations" ("its expiry reaper will ... trigger operation.expire()")
and seed 002 "Purgatory holds requests until replicated": this is the clock that ends a request's
wait when max_wait_ms or the produce timeout runs out.

Where expired tasks run: on the thread that calls advance_clock() (the purgatory's expiration reaper),
after the timer's lock is released; a task found already due by add() runs on the caller of add().
Kafka hands them to a one-thread executor instead so that a slow onExpiration never delays the
ticking. We run them inline because it is simpler to read and to step through, it makes
advance_clock(0) in a test run every expiry before it returns (deterministic, no extra thread to
wait for), and our expirations only build a response and hand it to the request channel, which is
quick. The cost: one slow task delays the other expirations of the same purgatory.
"""

from __future__ import annotations

import threading

import structlog

from kafka.utils.time import Time
from kafka.utils.timer.atomic import AtomicInteger
from kafka.utils.timer.delay_queue import DelayQueue
from kafka.utils.timer.timer import Timer
from kafka.utils.timer.timer_task import TimerTask
from kafka.utils.timer.timer_task_entry import TimerTaskEntry
from kafka.utils.timer.timing_wheel import TimingWheel

log = structlog.get_logger(__name__)


class SystemTimer(Timer):
    """Tick 1 ms, 20 buckets per level, expiry decided by `time.hi_res_clock_ms()`."""

    def __init__(
        self,
        executor_name: str,
        tick_ms: int = 1,
        wheel_size: int = 20,
        start_ms: int | None = None,
        *,
        time: Time,
    ) -> None:
        self.executor_name = executor_name
        self._time = time
        self._task_counter = AtomicInteger(0)
        self._delay_queue = DelayQueue(time)
        self._timing_wheel = TimingWheel(
            tick_ms=tick_ms,
            wheel_size=wheel_size,
            start_ms=time.hi_res_clock_ms() if start_ms is None else start_ms,
            task_counter=self._task_counter,
            queue=self._delay_queue,
        )
        # Kafka takes a read lock in add() and a write lock while ticking: adds may run side by side,
        # never during a tick (the wheels' current times move then). Python has no read/write lock
        # and adds are short, so one lock serves both. It is never held while a task runs, so a task
        # may add() to this timer or cancel itself without deadlock.
        self._lock = threading.Lock()

    @property
    def timing_wheel(self) -> TimingWheel:
        return self._timing_wheel

    def add(self, timer_task: TimerTask) -> None:
        now = self._time.hi_res_clock_ms()
        # Creating the entry claims the task, dropping any older entry it had.
        entry = TimerTaskEntry(timer_task, now + timer_task.delay_ms)
        due: list[TimerTaskEntry] = []
        if timer_task.delay_ms <= 0:
            # Already due by the clock. The wheel alone would only call it expired relative to its
            # own current time, which may lag the clock, and park it in a bucket until the next
            # tick; a zero or negative delay means "now", so run it now.
            due.append(entry)
        else:
            with self._lock:
                self._add_timer_task_entry(entry, due)
        self._run(due)

    def _add_timer_task_entry(self, entry: TimerTaskEntry, due: list[TimerTaskEntry]) -> None:
        if not self._timing_wheel.add(entry) and not entry.cancelled():
            # Not added and not cancelled means expired: collect it, to run once the lock is released.
            due.append(entry)

    def advance_clock(self, timeout_ms: float) -> bool:
        """Expire every bucket that is due, waiting up to timeout_ms for the first one.

        Returns True if a bucket expired (its tasks were run or moved to a finer wheel).
        """
        bucket = self._delay_queue.poll(timeout_ms)
        if bucket is None:
            return False
        due: list[TimerTaskEntry] = []
        with self._lock:
            while bucket is not None:
                # Move the wheels to the bucket's time first, so re-adding its tasks either finds
                # them expired or drops them into a finer wheel.
                self._timing_wheel.advance_clock(bucket.get_expiration())
                bucket.flush(lambda entry: self._add_timer_task_entry(entry, due))
                bucket = self._delay_queue.poll(0)
        self._run(due)
        return True

    def _run(self, due: list[TimerTaskEntry]) -> None:
        for entry in due:
            # Re-check: the task may have been cancelled (e.g. its operation completed) since it was
            # collected. DelayedOperation is safe either way; plain TimerTasks rely on this check.
            if entry.cancelled():
                continue
            try:
                entry.timer_task.run()
            except Exception:
                # Like Kafka's executor: one failing task must not stop the reaper or the others.
                log.exception("timer_task_failed", timer=self.executor_name, task=repr(entry.timer_task))

    def size(self) -> int:
        return self._task_counter.get()

    def shutdown(self) -> None:
        self._delay_queue.close()

    def wakeup(self) -> None:
        """Make a blocked advance_clock re-check the clock now (useful with a MockTime)."""
        self._delay_queue.wakeup()
