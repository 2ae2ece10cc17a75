"""CoordinatorRuntimeMetrics: the runtime's metrics (Kafka's CoordinatorRuntimeMetrics interface and its
CoordinatorRuntimeMetricsImpl, in one class), under kafka.server:type=group-coordinator-metrics.

Counts of partitions by state, the event queue's size, how long partitions took to load and how idle the
event threads were over the last 30 s (gauges), and four latency histograms: event queue time, event
processing time, purgatory time (a write waiting for its records to commit) and batch flush time (the
append). Kafka reports -max/-avg/-p50.. of each latency; a Prometheus histogram gives all of them.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable

from kafka.coordinator.common.runtime.coordinator_state import CoordinatorState
from kafka.metrics import metric_names as m
from kafka.metrics.kafka_metrics_group import KafkaMetricsGroup
from kafka.utils.time import Time

WINDOW_MS = 30_000  # Kafka's sensors' default: two 30 s samples; one window is near enough here


class CoordinatorRuntimeMetrics:
    def __init__(self, time: Time, group: KafkaMetricsGroup | None = None) -> None:
        """`group`: the broker's metrics group; None keeps the metrics in a registry of their own (tests)."""
        self._time = time
        self._group = group if group is not None else KafkaMetricsGroup()
        self._lock = threading.Lock()
        self._num_partitions = {CoordinatorState.LOADING: 0, CoordinatorState.ACTIVE: 0,
                                CoordinatorState.FAILED: 0}
        self._load_times: deque[tuple[int, int]] = deque()  # (end ms, duration ms)
        self._idle_times: deque[tuple[int, float]] = deque()  # (when ms, idle ms)
        self._queue_size: Callable[[], int] = lambda: 0
        self._collectors = [
            self._group.new_gauge(m.COORDINATOR_NUM_PARTITIONS, lambda: [
                ((state.value,), n) for state, n in self._num_partitions.items()]),
            self._group.new_gauge(m.COORDINATOR_EVENT_QUEUE_SIZE, lambda: self._queue_size()),
            self._group.new_gauge(m.COORDINATOR_PARTITION_LOAD_TIME_MAX,
                                  lambda: max(self._recent_load_times(),
                                              default=0)),
            self._group.new_gauge(m.COORDINATOR_PARTITION_LOAD_TIME_AVG, self._average_load_time),
            self._group.new_gauge(m.COORDINATOR_THREAD_IDLE_RATIO_AVG, self.thread_idle_ratio),
        ]
        self.event_queue_time = self._group.new_histogram(m.COORDINATOR_EVENT_QUEUE_TIME_MS)
        self.event_processing_time = self._group.new_histogram(m.COORDINATOR_EVENT_PROCESSING_TIME_MS)
        self.event_purgatory_time = self._group.new_histogram(m.COORDINATOR_EVENT_PURGATORY_TIME_MS)
        self.flush_time = self._group.new_histogram(m.COORDINATOR_BATCH_FLUSH_TIME_MS)
        self._collectors += [self.event_queue_time, self.event_processing_time, self.event_purgatory_time,
                             self.flush_time]
        for histogram in (self.event_queue_time, self.event_processing_time, self.event_purgatory_time,
                          self.flush_time):
            histogram.labels()  # the series exists from the start, at 0, so a dashboard's panel has it

    def register_with(self, group: KafkaMetricsGroup) -> None:
        """Export these metrics through another group's registry too: the broker's, made after the runtime."""
        for collector in self._collectors:
            group.registry.register(collector)

    def record_partition_state_change(self, old: CoordinatorState, new: CoordinatorState) -> None:
        with self._lock:
            if old in self._num_partitions:
                self._num_partitions[old] -= 1
            if new in self._num_partitions:
                self._num_partitions[new] += 1

    def num_partitions(self, state: CoordinatorState) -> int:
        return self._num_partitions.get(state, 0)

    def record_partition_load_sensor(self, start_ms: int, end_ms: int) -> None:
        with self._lock:
            self._load_times.append((end_ms, end_ms - start_ms))

    def record_event_queue_time(self, duration_ms: float) -> None:
        self._observe(self.event_queue_time, duration_ms)

    def record_event_processing_time(self, duration_ms: float) -> None:
        self._observe(self.event_processing_time, duration_ms)

    def record_event_purgatory_time(self, duration_ms: float) -> None:
        self._observe(self.event_purgatory_time, duration_ms)

    def record_flush_time(self, duration_ms: float) -> None:
        self._observe(self.flush_time, duration_ms)

    def record_thread_idle_time(self, idle_ms: float) -> None:
        with self._lock:
            self._idle_times.append((self._time.milliseconds(), idle_ms))

    def register_event_queue_size_gauge(self, size: Callable[[], int]) -> None:
        self._queue_size = size

    def close(self) -> None:
        for collector in self._collectors:
            self._group.remove(collector)
        self._collectors = []

    # ------------------------------------------------------------------ the windows
    @staticmethod
    def _observe(histogram, value: float) -> None:
        series = histogram.labels()
        with histogram.lock:
            series.observe(max(0.0, value))

    def _recent_load_times(self) -> list[int]:
        with self._lock:
            since = self._time.milliseconds() - WINDOW_MS
            while self._load_times and self._load_times[0][0] < since:
                self._load_times.popleft()
            return [duration for _, duration in self._load_times]

    def _average_load_time(self) -> float:
        times = self._recent_load_times()
        return sum(times) / len(times) if times else 0.0

    def thread_idle_ratio(self) -> float:
        with self._lock:
            since = self._time.milliseconds() - WINDOW_MS
            while self._idle_times and self._idle_times[0][0] < since:
                self._idle_times.popleft()
            return min(1.0, sum(idle for _, idle in self._idle_times) / WINDOW_MS)
