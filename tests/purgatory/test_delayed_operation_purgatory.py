"""Tests for DelayedOperation and DelayedOperationPurgatory (Kafka's DelayedOperationTest).

The purgatory runs with the reaper disabled and a MockTime; the tests drive expiry by advancing the
mock clock and calling advance_clock(0). Only the reaper test uses the real clock, with 20 ms delays
and Event waits bounded by a deadline. Nothing sleeps.
"""

from __future__ import annotations

import sys
import threading
import time as wall
from collections.abc import Iterator

import pytest

from kafka.purgatory import (
    DelayedOperation,
    DelayedOperationPurgatory,
    GroupKey,
    TopicPartitionOperationKey,
)
from kafka.utils.time import SYSTEM, MockTime

TP0 = TopicPartitionOperationKey("orders", 0)
TP1 = TopicPartitionOperationKey("orders", 1)


class MockDelayedOperation(DelayedOperation):
    """Completes when `completable` is set; counts its callbacks."""

    def __init__(self, delay_ms: int, completable: bool = False) -> None:
        super().__init__(delay_ms)
        self.completable = completable
        self.try_complete_calls = 0
        self.completions = 0
        self.expirations = 0
        self._count_lock = threading.Lock()

    def try_complete(self) -> bool:
        self.try_complete_calls += 1
        return self.force_complete() if self.completable else False

    def on_complete(self) -> None:
        with self._count_lock:
            self.completions += 1

    def on_expiration(self) -> None:
        with self._count_lock:
            self.expirations += 1


@pytest.fixture
def clock() -> MockTime:
    return MockTime(start_hi_res_ms=0)


@pytest.fixture
def purgatory(clock: MockTime) -> Iterator[DelayedOperationPurgatory]:
    p = DelayedOperationPurgatory("mock", reaper_enabled=False, time=clock)
    yield p
    p.shutdown()


def expire(purgatory: DelayedOperationPurgatory, clock: MockTime, ms: int) -> None:
    clock.advance(ms)
    purgatory.advance_clock(0)


# --- completing ----------------------------------------------------------------------------------


def test_completes_immediately_when_try_complete_is_true(purgatory: DelayedOperationPurgatory) -> None:
    op = MockDelayedOperation(100_000, completable=True)
    assert purgatory.try_complete_else_watch(op, [TP0]) is True
    assert op.is_completed and op.completions == 1
    assert purgatory.watched() == 0, "never put on a watch list"
    assert purgatory.num_delayed() == 0, "never put in the timer"


def test_watched_op_completes_on_check_and_complete(purgatory: DelayedOperationPurgatory) -> None:
    op = MockDelayedOperation(100_000)
    assert purgatory.try_complete_else_watch(op, [TP0]) is False
    assert op.try_complete_calls == 2, "checked once before and once after watching"
    assert purgatory.watched() == 1 and purgatory.num_delayed() == 1
    assert purgatory.check_and_complete(TP0) == 0, "not completable yet"
    op.completable = True
    assert purgatory.check_and_complete(TP1) == 0, "a key nobody watches"
    assert purgatory.check_and_complete(TP0) == 1
    assert op.completions == 1 and op.expirations == 0
    assert purgatory.num_delayed() == 0, "completion cancels the timer task"
    assert purgatory.watched() == 0 and purgatory.watched_keys() == []


def test_check_and_complete_across_multiple_keys(
    purgatory: DelayedOperationPurgatory, clock: MockTime
) -> None:
    both = MockDelayedOperation(100_000)
    only0 = MockDelayedOperation(100_000)
    only1 = MockDelayedOperation(100_000)
    purgatory.try_complete_else_watch(both, [TP0, TP1])
    purgatory.try_complete_else_watch(only0, [TP0])
    purgatory.try_complete_else_watch(only1, [TP1])
    assert purgatory.watched() == 4 and purgatory.num_delayed() == 3

    both.completable = only1.completable = True
    assert purgatory.check_and_complete(TP1) == 2
    assert both.completions == 1 and only1.completions == 1 and only0.completions == 0
    # `both` is still on TP0's list; the next check there drops it without completing it again.
    assert purgatory.watched() == 2
    assert purgatory.check_and_complete(TP0) == 0
    assert purgatory.watched() == 1 and purgatory.watched_keys() == [TP0]
    assert both.completions == 1

    expire(purgatory, clock, 100_000)
    assert only0.completions == 1 and only0.expirations == 1


def test_completed_between_the_two_checks(purgatory: DelayedOperationPurgatory) -> None:
    class SecondTime(MockDelayedOperation):
        def try_complete(self) -> bool:
            self.try_complete_calls += 1
            return self.force_complete() if self.try_complete_calls == 2 else False

    op = SecondTime(100_000)
    assert purgatory.try_complete_else_watch(op, [TP0, TP1]) is True
    assert op.completions == 1 and purgatory.num_delayed() == 0
    assert purgatory.check_and_complete(TP0) == 0 and purgatory.check_and_complete(TP1) == 0
    assert purgatory.watched() == 0


def test_empty_watch_keys_are_rejected(purgatory: DelayedOperationPurgatory) -> None:
    with pytest.raises(ValueError):
        purgatory.try_complete_else_watch(MockDelayedOperation(10), [])


def test_on_complete_may_reenter_the_purgatory(purgatory: DelayedOperationPurgatory) -> None:
    """A completion callback that checks the same key again (as a produce completing a fetch might)."""
    follower = MockDelayedOperation(100_000, completable=True)

    class Reentrant(MockDelayedOperation):
        def on_complete(self) -> None:
            super().on_complete()
            purgatory.try_complete_else_watch(follower, [TP0])
            purgatory.check_and_complete(TP0)

    op = Reentrant(100_000)
    purgatory.try_complete_else_watch(op, [TP0])
    op.completable = True
    assert purgatory.check_and_complete(TP0) == 1
    assert op.completions == 1 and follower.completions == 1


def test_group_keys_work_like_partition_keys(purgatory: DelayedOperationPurgatory) -> None:
    op = MockDelayedOperation(100_000)
    purgatory.try_complete_else_watch(op, [GroupKey("g1")])
    op.completable = True
    assert purgatory.check_and_complete(GroupKey("g1")) == 1


# --- expiring ------------------------------------------------------------------------------------


def test_expires_at_its_deadline_not_before(purgatory: DelayedOperationPurgatory, clock: MockTime) -> None:
    op = MockDelayedOperation(100)
    purgatory.try_complete_else_watch(op, [TP0])
    expire(purgatory, clock, 99)
    assert not op.is_completed
    expire(purgatory, clock, 1)
    assert op.completions == 1 and op.expirations == 1
    assert purgatory.num_delayed() == 0
    # Expiry leaves the op on the watch list (until a purge or a check); the next check drops it.
    assert purgatory.watched() == 1
    assert purgatory.check_and_complete(TP0) == 0
    assert purgatory.watched() == 0 and purgatory.watched_keys() == []


def test_completed_op_never_expires(purgatory: DelayedOperationPurgatory, clock: MockTime) -> None:
    op = MockDelayedOperation(100)
    purgatory.try_complete_else_watch(op, [TP0])
    op.completable = True
    purgatory.check_and_complete(TP0)
    expire(purgatory, clock, 1_000)
    assert op.completions == 1 and op.expirations == 0


def test_zero_delay_expires_at_once(purgatory: DelayedOperationPurgatory) -> None:
    op = MockDelayedOperation(0)
    assert purgatory.try_complete_else_watch(op, [TP0]) is False
    assert op.completions == 1 and op.expirations == 1


def test_cancel_for_key_stops_watching_without_completing(
    purgatory: DelayedOperationPurgatory, clock: MockTime
) -> None:
    ops = [MockDelayedOperation(100) for _ in range(3)]
    for op in ops:
        purgatory.try_complete_else_watch(op, [TP0])
    other = MockDelayedOperation(100)
    purgatory.try_complete_else_watch(other, [TP1])

    assert purgatory.cancel_for_key(TP0) == ops
    assert purgatory.cancel_for_key(TP0) == []
    assert purgatory.watched_keys() == [TP1]
    assert purgatory.num_delayed() == 1
    expire(purgatory, clock, 1_000)
    assert all(op.completions == 0 and op.expirations == 0 for op in ops)
    assert other.expirations == 1


# --- purging -------------------------------------------------------------------------------------


def test_thousands_of_completed_operations_are_purged(clock: MockTime) -> None:
    purgatory = DelayedOperationPurgatory("purge", purge_interval=100, reaper_enabled=False, time=clock)
    keys = [TopicPartitionOperationKey("t", p) for p in range(50)]
    ops = [MockDelayedOperation(60_000) for _ in range(10_000)]
    for i, op in enumerate(ops):
        purgatory.try_complete_else_watch(op, [keys[i % 50], keys[(i + 1) % 50]])
    assert purgatory.watched() == 20_000 and purgatory.num_delayed() == 10_000

    # Complete them behind the purgatory's back (as another key's check would): they leave the
    # timer at once but linger on the watch lists.
    for op in ops[:9_990]:
        op.force_complete()
    assert purgatory.num_delayed() == 10 and purgatory.watched() == 20_000

    purgatory.advance_clock(0)  # 10_000 watched - 10 delayed > purge_interval: purge
    assert purgatory.watched() == 20, "only the 10 live ops remain, each under two keys"
    live_keys = {keys[i % 50] for i in range(9_990, 10_000)} | {
        keys[(i + 1) % 50] for i in range(9_990, 10_000)
    }
    assert set(purgatory.watched_keys()) == live_keys, "empty watcher lists are removed"

    for op in ops[9_990:]:
        op.force_complete()
    for key in live_keys:
        purgatory.check_and_complete(key)
    assert purgatory.watched() == 0 and purgatory.watched_keys() == []
    purgatory.shutdown()


def test_no_purge_below_the_interval(purgatory: DelayedOperationPurgatory) -> None:
    ops = [MockDelayedOperation(60_000) for _ in range(500)]
    for op in ops:
        purgatory.try_complete_else_watch(op, [TP0])
        op.force_complete()
    purgatory.advance_clock(0)
    assert purgatory.watched() == 500, "500 <= purge_interval (1000): left for later"


# --- completion racing expiry ----------------------------------------------------------------------


class RaceOperation(MockDelayedOperation):
    def __init__(self, delay_ms: int) -> None:
        super().__init__(delay_ms, completable=True)
        self.external_wins = 0

    def try_complete(self) -> bool:
        won = self.completable and self.force_complete()
        if won:
            with self._count_lock:
                self.external_wins += 1
        return won


def test_completion_racing_expiry_completes_exactly_once(clock: MockTime) -> None:
    """Real threads: the timer expiring, two threads force-completing, one checking keys, all at once."""
    purgatory = DelayedOperationPurgatory("race", reaper_enabled=False, time=clock)
    rounds, per_round = 150, 40
    barrier = threading.Barrier(4)
    batch: list[RaceOperation] = []
    errors: list[BaseException] = []

    def expirer() -> None:
        purgatory.advance_clock(0)

    def completer(reverse: bool) -> None:
        for op in reversed(batch) if reverse else batch:
            if op.force_complete():
                with op._count_lock:
                    op.external_wins += 1

    def checker() -> None:
        purgatory.check_and_complete(TP0)
        purgatory.check_and_complete(TP1)

    def worker(job, *args) -> None:
        try:
            for _ in range(rounds):
                barrier.wait(5)  # round starts
                job(*args)
                barrier.wait(5)  # round done
        except BaseException as e:  # surfaced by the assertion below
            errors.append(e)
            barrier.abort()

    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads often so the race actually happens
    threads = [
        threading.Thread(target=worker, args=(expirer,)),
        threading.Thread(target=worker, args=(completer, False)),
        threading.Thread(target=worker, args=(completer, True)),
    ]
    try:
        for t in threads:
            t.start()
        all_ops: list[RaceOperation] = []
        for _ in range(rounds):
            batch[:] = [RaceOperation(5) for _ in range(per_round)]
            for i, op in enumerate(batch):
                # Not completable while being watched, so each one really enters the timer.
                op.completable = False
                purgatory.try_complete_else_watch(op, [TP0 if i % 2 else TP1])
                op.completable = True
            clock.advance(5)  # every op is now due: expiry and completion race for it
            barrier.wait(5)
            checker()
            barrier.wait(5)
            all_ops.extend(batch)
    finally:
        sys.setswitchinterval(old_interval)
        for t in threads:
            t.join(5)
    assert not errors, errors

    expired_total = 0
    for op in all_ops:
        assert op.completions == 1, "on_complete ran exactly once"
        assert op.external_wins + op.expirations == 1, "exactly one winner"
        expired_total += op.expirations
    # Both outcomes must really have occurred, or the test did not exercise the race.
    assert 0 < expired_total < len(all_ops)
    assert purgatory.num_delayed() == 0
    purgatory.shutdown()


# --- the reaper thread, on the real clock -----------------------------------------------------------


def test_reaper_thread_expires_operations_on_the_real_clock() -> None:
    purgatory = DelayedOperationPurgatory("Fetch", broker_id=7, time=SYSTEM)
    try:
        names = [t.name for t in threading.enumerate()]
        assert "ExpirationReaper-7-Fetch" in names
        expired = threading.Event()

        class Signalling(MockDelayedOperation):
            def on_expiration(self) -> None:
                super().on_expiration()
                expired.set()

        op = Signalling(20)
        start = wall.monotonic()
        purgatory.try_complete_else_watch(op, [TP0])
        assert expired.wait(2.0), "the reaper did not expire a 20 ms operation within 2 s"
        assert wall.monotonic() - start >= 0.015  # not long before its time (1 ms ticks, ms rounding)
        assert op.completions == 1 and op.expirations == 1
    finally:
        start = wall.monotonic()
        purgatory.shutdown()
        assert wall.monotonic() - start < 1.0, "shutdown must not wait out the 200 ms poll"
    assert "ExpirationReaper-7-Fetch" not in [t.name for t in threading.enumerate() if t.is_alive()]


def test_shutdown_stops_the_reaper_and_is_idempotent() -> None:
    purgatory = DelayedOperationPurgatory("stopping", broker_id=7, time=SYSTEM)
    reaper_name = "ExpirationReaper-7-stopping"
    assert any(t.name == reaper_name and t.is_alive() for t in threading.enumerate())
    purgatory.shutdown()
    purgatory.shutdown()  # a second call (broker shutdown after a failed start-up) is harmless
    assert not any(t.name == reaper_name and t.is_alive() for t in threading.enumerate())
