from kafka.utils.kafka_scheduler import KafkaScheduler
from kafka.utils.time import MockTime
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
        wait_until(lambda: sorted(runs) == ["o", "p", "p"], message="the one-off at 150 ms and the second period")
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
