"""MultiThreadedEventProcessor (Kafka's MultiThreadedEventProcessorTest): two threads run events of several
partitions, never two of one partition at once; closing rejects what is still queued."""

from __future__ import annotations

import threading
import time as real_time

from kafka.coordinator.common.runtime.coordinator_runtime_metrics import CoordinatorRuntimeMetrics
from kafka.coordinator.common.runtime.event_accumulator import RejectedExecutionError
from kafka.coordinator.common.runtime.multi_threaded_event_processor import MultiThreadedEventProcessor
from kafka.utils.time import SYSTEM


class Event:
    running: dict = {}
    lock = threading.Lock()

    def __init__(self, key, done: list, overlaps: list, sleep_s: float = 0.001) -> None:
        self._key, self.done, self.overlaps, self.sleep_s = key, done, overlaps, sleep_s
        self.completed_with = "not yet"

    def key(self):
        return self._key

    def run(self) -> None:
        with Event.lock:
            if Event.running.get(self._key):
                self.overlaps.append(self._key)
            Event.running[self._key] = True
        real_time.sleep(self.sleep_s)
        with Event.lock:
            Event.running[self._key] = False
        self.done.append(self._key)

    def complete(self, exception) -> None:
        self.completed_with = exception

    def created_time_ms(self) -> int:
        return SYSTEM.milliseconds()


def test_events_of_one_partition_never_run_at_once_on_two_threads():
    metrics = CoordinatorRuntimeMetrics(SYSTEM)
    processor = MultiThreadedEventProcessor("test-coordinator-", 2, SYSTEM, metrics)
    done, overlaps = [], []
    for i in range(60):
        processor.enqueue_last(Event(i % 3, done, overlaps))
    deadline = real_time.monotonic() + 10
    while len(done) < 60 and real_time.monotonic() < deadline:
        real_time.sleep(0.01)
    processor.close()
    assert len(done) == 60 and overlaps == []
    assert sum(metrics.event_processing_time.labels().counts) == 60


def test_close_rejects_the_events_still_queued():
    metrics = CoordinatorRuntimeMetrics(SYSTEM)
    processor = MultiThreadedEventProcessor("test-coordinator-", 1, SYSTEM, metrics)
    done, overlaps = [], []
    events = [Event("a", done, overlaps, sleep_s=0.05) for _ in range(5)]
    for event in events:
        processor.enqueue_last(event)
    processor.close()
    rejected = [e for e in events if isinstance(e.completed_with, RejectedExecutionError)]
    assert len(done) + len(rejected) == 5 and rejected
    try:
        processor.enqueue_last(Event("a", done, overlaps))
    except RejectedExecutionError:
        pass
    else:
        raise AssertionError("a closed processor took an event")
