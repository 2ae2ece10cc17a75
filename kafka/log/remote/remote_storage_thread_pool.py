"""RemoteStorageThreadPool: the threads that read remote storage for fetches and offset lookups (Kafka's
org.apache.kafka.storage.internals.log.RemoteStorageThreadPool, a fixed ThreadPoolExecutor over a
bounded queue).

A remote read may take a long time (an object store's latency, a whole segment streamed); the request
handler threads never wait for one. The ReplicaManager submits a RemoteLogReader here and parks the
fetch in a purgatory; a reader thread does the read and calls back, which completes the fetch.

    remote.log.reader.threads            how many reader threads (Kafka's default 10)
    remote.log.reader.max.pending.tasks  how many reads may wait for a thread (default 100); one more
                                         is refused (RejectedExecutionError), and that partition of
                                         the fetch is answered with an error rather than queued
                                         without a bound

Its two gauges are Kafka's: RemoteLogReaderTaskQueueSize (reads waiting) and RemoteLogReaderAvgIdlePercent
(1 - busy threads / threads).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import TypeVar

import structlog

from kafka.metrics.kafka_metrics_group import KafkaMetricsGroup
from kafka.metrics.remote_storage_metrics import (
    REMOTE_LOG_READER_AVG_IDLE_PERCENT,
    REMOTE_LOG_READER_TASK_QUEUE_SIZE,
)

log = structlog.get_logger("kafka.log.remote.RemoteStorageThreadPool")

T = TypeVar("T")
_STOP = object()  # what a thread takes from the queue to know the pool is shutting down


class RejectedExecutionError(Exception):
    """The queue holds remote.log.reader.max.pending.tasks reads already (Java's
    RejectedExecutionException)."""


class RemoteStorageThreadPool:
    def __init__(self, thread_name_prefix: str, num_threads: int, max_pending_tasks: int,
                 metrics_group: KafkaMetricsGroup | None = None) -> None:
        if num_threads < 1 or max_pending_tasks < 1:
            raise ValueError(f"a reader pool needs threads and room for a task: {num_threads}, "
                             f"{max_pending_tasks}")
        self.num_threads = num_threads
        self._tasks: queue.Queue = queue.Queue(max_pending_tasks)
        self._lock = threading.Lock()
        self._active = 0
        self._shutdown = False
        self._threads = [threading.Thread(target=self._run, name=f"{thread_name_prefix}{n}", daemon=True)
                         for n in range(num_threads)]
        for thread in self._threads:
            thread.start()
        self._gauges: list = []
        self._metrics_group: KafkaMetricsGroup | None = None
        if metrics_group is not None:
            self.register_metrics(metrics_group)

    def register_metrics(self, metrics_group: KafkaMetricsGroup) -> None:
        """Export the two gauges in this group (from the one they were in, if any)."""
        self._remove_metrics()
        self._gauges = [metrics_group.new_gauge(REMOTE_LOG_READER_TASK_QUEUE_SIZE, self.queue_size),
                        metrics_group.new_gauge(REMOTE_LOG_READER_AVG_IDLE_PERCENT, self.idle_percent)]
        self._metrics_group = metrics_group

    def _remove_metrics(self) -> None:
        for gauge in self._gauges:
            self._metrics_group.remove(gauge)
        self._gauges = []

    def submit(self, task: Callable[[], T]) -> Future[T]:
        """Queue the task for a reader thread; its Future can be cancelled until a thread takes it.
        Raises RejectedExecutionError when the queue is full or the pool is shut down."""
        future: Future[T] = Future()
        if self._shutdown:
            raise RejectedExecutionError("the remote storage reader pool is shut down")
        try:
            self._tasks.put_nowait((future, task))
        except queue.Full:
            raise RejectedExecutionError(f"{self._tasks.maxsize} remote reads are already waiting for a "
                                         f"reader thread (remote.log.reader.max.pending.tasks)") from None
        return future

    def queue_size(self) -> int:
        """Reads waiting for a thread (the RemoteLogReaderTaskQueueSize gauge)."""
        return self._tasks.qsize()

    def idle_percent(self) -> float:
        """1 - busy threads / threads (the RemoteLogReaderAvgIdlePercent gauge)."""
        with self._lock:
            return 1 - self._active / self.num_threads

    def _run(self) -> None:
        while True:
            item = self._tasks.get()
            if item is _STOP:
                return
            future, task = item
            if not future.set_running_or_notify_cancel():  # cancelled while it waited (an expired fetch)
                continue
            with self._lock:
                self._active += 1
            try:
                future.set_result(task())
            except BaseException as e:  # the task's own failure goes to whoever waits on its Future
                if not self._shutdown:
                    log.error("error while executing a remote storage task", error=repr(e))
                future.set_exception(e)
            finally:
                with self._lock:
                    self._active -= 1

    def shutdown(self, timeout_s: float = 10) -> None:
        """Cancel the reads still waiting, let the running ones finish, stop the threads."""
        self._shutdown = True
        while True:
            try:
                item = self._tasks.get_nowait()
            except queue.Empty:
                break
            if item is not _STOP:
                item[0].cancel()
        for _ in self._threads:
            self._tasks.put(_STOP)
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(timeout_s)
        self._remove_metrics()
