"""MultiThreadedEventProcessor: group.coordinator.threads threads running the runtime's events (Kafka's
MultiThreadedEventProcessor).

Each thread polls the shared EventAccumulator, runs the event, and tells the accumulator it is done, which
frees the event's partition for the next thread. Shutting down closes the accumulator first (new events
are refused), then each thread rejects what is still queued, so every event's future is answered.
"""

from __future__ import annotations

import threading

import structlog

from kafka.coordinator.common.runtime.coordinator_event import CoordinatorEvent
from kafka.coordinator.common.runtime.coordinator_runtime_metrics import CoordinatorRuntimeMetrics
from kafka.coordinator.common.runtime.event_accumulator import EventAccumulator, RejectedExecutionError
from kafka.utils.time import Time

log = structlog.get_logger("kafka.coordinator.common.runtime.MultiThreadedEventProcessor")

POLL_TIMEOUT_S = 0.3  # how often an idle thread looks at the shutdown flag


class MultiThreadedEventProcessor:
    def __init__(self, thread_prefix: str, num_threads: int, time: Time, metrics: CoordinatorRuntimeMetrics,
                 accumulator: EventAccumulator | None = None) -> None:
        self._time = time
        self._metrics = metrics
        self._accumulator = accumulator if accumulator is not None else EventAccumulator()
        self._shutting_down = False
        self._lock = threading.Lock()
        metrics.register_event_queue_size_gauge(self._accumulator.size)
        self._threads = [threading.Thread(target=self._run, name=f"{thread_prefix}{i}", daemon=True)
                         for i in range(num_threads)]
        for thread in self._threads:
            thread.start()

    def enqueue_last(self, event: CoordinatorEvent) -> None:
        self._accumulator.add_last(event)

    def enqueue_first(self, event: CoordinatorEvent) -> None:
        self._accumulator.add_first(event)

    def _run(self) -> None:
        try:
            self._handle_events()
        except Exception:
            log.exception("event processor thread failed", thread=threading.current_thread().name)
        if self._shutting_down:
            self._drain_events()

    def _handle_events(self) -> None:
        while not self._shutting_down:
            idle_start = self._time.milliseconds()
            event = self._accumulator.poll(POLL_TIMEOUT_S)
            dequeued = self._time.milliseconds()
            # One ratio for the pool: each thread's idle time counts for its share of the pool.
            self._metrics.record_thread_idle_time((dequeued - idle_start) / len(self._threads))
            if event is None:
                continue
            try:
                self._metrics.record_event_queue_time(dequeued - event.created_time_ms())
                event.run()
                self._metrics.record_event_processing_time(self._time.milliseconds() - dequeued)
            except Exception as e:  # run() answers its own errors; this is a bug in an event
                log.exception("event failed", name=repr(event))
                event.complete(e)
            finally:
                self._accumulator.done(event)

    def _drain_events(self) -> None:
        while (event := self._accumulator.poll()) is not None:
            try:
                event.complete(RejectedExecutionError("the event processor is closed"))
            except Exception:
                log.exception("failed to reject an event", name=repr(event))
            finally:
                self._accumulator.done(event)

    def begin_shutdown(self) -> None:
        with self._lock:
            if self._shutting_down:
                return
            # Close the accumulator before the threads stop: nothing new comes in while they drain it.
            self._accumulator.close()
            self._shutting_down = True

    def close(self) -> None:
        self.begin_shutdown()
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join()
