"""Tests for the hierarchical timing wheel timer (Kafka's TimerTest / TimerTaskListTest), on a MockTime.

Expiry is decided by the mock clock only; nothing here sleeps. The two tests that involve a second
thread wait on an Event with a deadline.
"""

from __future__ import annotations

import random
import threading
import time as wall

from kafka.utils.time import SYSTEM, MockTime
from kafka.utils.timer import DelayQueue, SystemTimer, TimerTask, TimerTaskEntry, TimingWheel
from kafka.utils.timer.atomic import AtomicInteger


class RecordingTask(TimerTask):
    """Appends (name, mock time at run) to a shared list when it runs."""

    def __init__(self, delay_ms: int, name: object, ran: list, clock: MockTime | None = None) -> None:
        super().__init__(delay_ms)
        self.name = name
        self._ran = ran
        self._clock = clock

    def run(self) -> None:
        self._ran.append((self.name, self._clock.hi_res_clock_ms() if self._clock else None))


def make_timer(clock: MockTime) -> SystemTimer:
    return SystemTimer("test", tick_ms=1, wheel_size=20, time=clock)


def names(ran: list) -> list:
    return [name for name, _ in ran]


# --- expiry order and timing ---------------------------------------------------------------------

DEADLINES = [1, 19, 25, 500, 10_000, 3_600_000]


def test_tasks_expire_in_order_across_wheel_levels_and_never_early() -> None:
    clock = MockTime(start_hi_res_ms=0)
    timer = make_timer(clock)
    ran: list = []
    for deadline in reversed(DEADLINES):  # added out of order on purpose
        timer.add(RecordingTask(deadline, deadline, ran, clock))
    assert timer.size() == len(DEADLINES)
    # 3_600_000 ms needs the sixth level: intervals are 20, 400, 8_000, 160_000, 3_200_000, 64_000_000.
    assert [w.tick_ms for w in timer.timing_wheel.levels()] == [1, 20, 400, 8_000, 160_000, 3_200_000]

    expected: list[int] = []
    for deadline in DEADLINES:
        clock.advance(deadline - 1 - clock.hi_res_clock_ms())
        timer.advance_clock(0)
        assert names(ran) == expected, f"something ran before {deadline}"
        clock.advance(1)
        assert timer.advance_clock(0) is True
        expected.append(deadline)
        assert ran[-1] == (deadline, deadline), "runs exactly when its deadline is reached"
        assert names(ran) == expected
        assert timer.size() == len(DEADLINES) - len(expected)
    assert timer.advance_clock(0) is False


def test_one_big_clock_jump_expires_everything_in_deadline_order() -> None:
    clock = MockTime(start_hi_res_ms=0)
    timer = make_timer(clock)
    ran: list = []
    for deadline in reversed(DEADLINES):
        timer.add(RecordingTask(deadline, deadline, ran))
    clock.advance(3_600_000)
    timer.advance_clock(0)
    assert names(ran) == DEADLINES
    assert timer.size() == 0


def test_each_millisecond_step_runs_exactly_the_tasks_that_are_due() -> None:
    clock = MockTime(start_hi_res_ms=7)  # a start that is not a multiple of any tick
    timer = make_timer(clock)
    ran: list = []
    rng = random.Random(42)
    delays = [rng.randint(1, 900) for _ in range(300)]
    for i, delay in enumerate(delays):
        timer.add(RecordingTask(delay, (i, delay), ran, clock))
    for _ in range(901):
        clock.advance(1)
        timer.advance_clock(0)
        now = clock.hi_res_clock_ms()
        due = {(i, d) for i, d in enumerate(delays) if 7 + d <= now}
        assert set(names(ran)) == due
    assert all(at == 7 + delay for (_, delay), at in ran), "nothing ran late or early"
    order = [7 + delay for (_, delay), _ in ran]
    assert order == sorted(order)


def test_worked_example_from_the_docstring() -> None:
    """Task due at 25 ms: a level-2 bucket expiring at 20, then a level-1 bucket expiring at 25."""
    clock = MockTime(start_hi_res_ms=0)
    queue = DelayQueue(clock)
    wheel = TimingWheel(tick_ms=1, wheel_size=20, start_ms=0, task_counter=AtomicInteger(), queue=queue)
    ran: list = []
    entry = TimerTaskEntry(RecordingTask(25, "t", ran), 25)
    assert wheel.add(entry) is True
    assert wheel.overflow_wheel is not None and wheel.overflow_wheel.tick_ms == 20
    assert entry.list is not None and entry.list.get_expiration() == 20

    clock.advance(19)
    assert queue.poll(0) is None
    clock.advance(1)
    bucket = queue.poll(0)
    assert bucket is entry.list
    wheel.advance_clock(bucket.get_expiration())
    assert wheel.current_time == 20 and wheel.overflow_wheel.current_time == 20
    bucket.flush(lambda e: wheel.add(e))
    assert entry.list is not None and entry.list.get_expiration() == 25

    clock.advance(5)
    bucket = queue.poll(0)
    wheel.advance_clock(bucket.get_expiration())
    expired = []
    bucket.flush(lambda e: expired.append(e) if not wheel.add(e) else None)
    assert expired == [entry]


def test_wheel_add_refuses_expired_and_cancelled_entries() -> None:
    clock = MockTime(start_hi_res_ms=100)
    wheel = TimingWheel(1, 20, 100, AtomicInteger(), DelayQueue(clock))
    assert wheel.add(TimerTaskEntry(RecordingTask(0, "past", []), 99)) is False
    assert wheel.add(TimerTaskEntry(RecordingTask(0, "now", []), 100)) is False
    task = RecordingTask(5, "cancelled", [])
    entry = TimerTaskEntry(task, 105)
    task.cancel()
    assert wheel.add(entry) is False
    assert wheel.add(TimerTaskEntry(RecordingTask(1, "next tick", []), 101)) is True


# --- immediate, cancelled, re-added ----------------------------------------------------------------


def test_task_already_due_runs_immediately_on_add() -> None:
    clock = MockTime(start_hi_res_ms=0)
    timer = make_timer(clock)
    ran: list = []
    timer.add(RecordingTask(0, "zero", ran))
    timer.add(RecordingTask(-5, "negative", ran))
    assert names(ran) == ["zero", "negative"]
    # The wheel lags the clock here (nobody ticked it for 1000 ms); a due task still runs at once.
    clock.advance(1000)
    timer.add(RecordingTask(0, "late", ran))
    assert names(ran) == ["zero", "negative", "late"]
    assert timer.size() == 0


def test_cancelled_tasks_never_run() -> None:
    clock = MockTime(start_hi_res_ms=0)
    timer = make_timer(clock)
    ran: list = []
    tasks = [RecordingTask(d, d, ran) for d in (1, 5, 19, 25, 500, 10_000, 3_600_000)]
    for task in tasks:
        timer.add(task)
    cancelled = tasks[1::2]
    for task in cancelled:
        task.cancel()
        task.cancel()  # idempotent
    assert all(t.is_cancelled() for t in cancelled)
    assert timer.size() == len(tasks) - len(cancelled), "cancel unlinks the entry at once"
    for step in (1, 30, 600, 20_000, 3_600_000):
        clock.advance(step)
        timer.advance_clock(0)
    assert names(ran) == [t.name for t in tasks[0::2]]
    assert timer.size() == 0


def test_cancel_after_bucket_moved_down_a_level_still_prevents_the_run() -> None:
    clock = MockTime(start_hi_res_ms=0)
    timer = make_timer(clock)
    ran: list = []
    task = RecordingTask(25, "t", ran)
    timer.add(task)
    clock.advance(20)
    timer.advance_clock(0)  # moves the task from level 2 to level 1
    task.cancel()
    clock.advance(10)
    timer.advance_clock(0)
    assert ran == []


def test_re_adding_a_task_replaces_its_old_entry() -> None:
    clock = MockTime(start_hi_res_ms=0)
    timer = make_timer(clock)
    ran: list = []
    task = RecordingTask(10, "t", ran)
    timer.add(task)
    timer.add(task)
    assert timer.size() == 1
    clock.advance(10)
    timer.advance_clock(0)
    assert names(ran) == ["t"]


def test_a_failing_task_does_not_stop_the_others() -> None:
    class Boom(TimerTask):
        def run(self) -> None:
            raise RuntimeError("boom")

    clock = MockTime(start_hi_res_ms=0)
    timer = make_timer(clock)
    ran: list = []
    timer.add(Boom(3))
    timer.add(RecordingTask(3, "after", ran))
    clock.advance(3)
    timer.advance_clock(0)
    assert names(ran) == ["after"]


def test_a_task_may_add_to_its_own_timer_while_running() -> None:
    clock = MockTime(start_hi_res_ms=0)
    timer = make_timer(clock)
    ran: list = []

    class Chain(TimerTask):
        def run(self) -> None:
            ran.append(("chain", clock.hi_res_clock_ms()))
            timer.add(RecordingTask(5, "child", ran, clock))

    timer.add(Chain(2))
    clock.advance(2)
    timer.advance_clock(0)
    clock.advance(5)
    timer.advance_clock(0)
    assert ran == [("chain", 2), ("child", 7)]


# --- blocking advance_clock (real threads, bounded waits) ---------------------------------------


def wait_until_polling(timer: SystemTimer) -> None:
    """Spin (bounded, no sleep) until a thread is blocked inside the timer's delay queue."""
    cond = timer._delay_queue._cond
    deadline = wall.monotonic() + 2.0
    while not cond._waiters:  # CPython's Condition keeps its waiters here
        assert wall.monotonic() < deadline, "poller never started waiting"


def test_add_wakes_a_waiting_advance_clock() -> None:
    """The poller sleeps up to 5 s on an empty queue; an add due in 10 ms must wake it early."""
    timer = SystemTimer("wake", time=SYSTEM)
    ran = threading.Event()
    done = threading.Event()

    class SetEvent(TimerTask):
        def run(self) -> None:
            ran.set()

    def poll() -> None:
        # Like the reaper, poll until the task has run: added more than a wheel's span after the
        # timer was made (a busy machine), it first lands in the overflow wheel, and the bucket that
        # wakes this poll only moves it down to a finer one, due a few ms later.
        while not ran.is_set() and wall.monotonic() - start < 5.0:
            timer.advance_clock(5_000)
        done.set()

    start = wall.monotonic()
    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    wait_until_polling(timer)
    timer.add(SetEvent(10))
    assert ran.wait(2.0), "the new earlier bucket did not wake advance_clock"
    assert done.wait(2.0)
    assert wall.monotonic() - start < 2.0
    timer.shutdown()


def test_shutdown_wakes_a_waiting_advance_clock() -> None:
    timer = SystemTimer("shutdown", time=SYSTEM)
    timer.add(RecordingTask(60_000, "far", []))
    result: list[bool] = []
    done = threading.Event()

    def poll() -> None:
        result.append(timer.advance_clock(5_000))
        done.set()

    threading.Thread(target=poll, daemon=True).start()
    wait_until_polling(timer)
    timer.shutdown()
    assert done.wait(2.0)
    assert result == [False]
