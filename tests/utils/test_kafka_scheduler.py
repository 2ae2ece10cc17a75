import sys

from kafka.utils.kafka_scheduler import KafkaScheduler
from kafka.utils.time import SYSTEM, MockTime
from tests.helpers import wait_until


def test_tasks_run_when_the_mock_clock_reaches_them():
    time = MockTime()
    scheduler = KafkaScheduler(time, tick_ms=5)
    runs = []
    scheduler.startup()
    try:
        scheduler.schedule("periodic", lambda: runs.append("p"), delay_ms=100, period_ms=100)
        scheduler.schedule_once("once", lambda: runs.append("o"), delay_ms=150)
        scheduler.schedule_once("boom", lambda: 1 / 0, delay_ms=0)  # a failing task stops nothing
        time.advance(99)
        scheduler.wakeup()
        time.advance(1)
        scheduler.wakeup()
        wait_until(lambda: runs == ["p"], message="the periodic task at 100 ms")
        time.advance(100)
        scheduler.wakeup()
        wait_until(lambda: sorted(runs) == ["o", "p", "p"],
                   message="the one-off at 150 ms and the second period")
    finally:
        scheduler.shutdown()
    # Its own thread is gone (other brokers in this test process may run schedulers of the same name).
    assert scheduler._thread is not None and not scheduler._thread.is_alive()


def test_a_cancelled_task_does_not_run():
    time = MockTime()
    scheduler = KafkaScheduler(time, tick_ms=5)
    runs = []
    scheduler.startup()
    try:
        scheduler.schedule_once("cancelled", lambda: runs.append("x"), delay_ms=10).cancel()
        scheduler.schedule_once("marker", lambda: runs.append("m"), delay_ms=20)
        time.advance(30)
        wait_until(lambda: runs == ["m"], message="the marker task")
    finally:
        scheduler.shutdown()


def test_with_the_system_clock_an_idle_scheduler_sleeps_until_a_task_is_due():
    """No tick: the thread sleeps until the first due time, and schedule() wakes it for an earlier one."""
    scheduler = KafkaScheduler(SYSTEM)
    runs = []
    scheduler.startup()
    try:
        scheduler.schedule_once("far", lambda: runs.append("far"), delay_ms=3_600_000)
        wait_until(lambda: _waiting(scheduler), message="the scheduler waiting for the hour-away task")
        scheduler.schedule_once("soon", lambda: runs.append("soon"), delay_ms=10)
        wait_until(lambda: runs == ["soon"], message="the task scheduled after the thread went to sleep")
    finally:
        scheduler.shutdown()
    assert runs == ["soon"]  # shutdown drops what is not yet due


def _waiting(scheduler: KafkaScheduler) -> bool:
    frame = sys._current_frames().get(scheduler._thread.ident)
    return frame is not None and frame.f_code.co_name == "wait"
