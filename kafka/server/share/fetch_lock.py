"""FetchLock: one fetch at a time reads and acquires for a share partition (Kafka's SharePartition.fetchLock,
an AtomicReference<Uuid>, with the times behind FetchLockTimeMs and FetchLockRatio).

A DelayedShareFetch takes the lock of each share partition it will read, and lets it go once it has
acquired what it read, so two fetches never race to acquire the same records. How long the lock is
held, against how long it stays free, says whether the share partition is the bottleneck.
"""

from __future__ import annotations

import threading
import uuid

import structlog

from kafka.utils.time import Time

log = structlog.get_logger("kafka.server.share.SharePartition")


class FetchLock:
    def __init__(self, time: Time, metrics) -> None:
        self.time = time
        self.metrics = metrics  # SharePartitionMetrics
        self._lock = threading.Lock()
        self.holder: uuid.UUID | None = None
        self._acquired_ms = 0
        self._released_ms = 0
        self._idle_ms = 0

    def try_acquire(self, fetch_id: uuid.UUID) -> bool:
        with self._lock:
            if self.holder is not None:
                return False
            self.holder = fetch_id
            now = self.time.hi_res_clock_ms()
            self._acquired_ms = now
            self._idle_ms = now - self._released_ms if self._released_ms else 0
            return True

    def release(self, fetch_id: uuid.UUID) -> None:
        """Only by the fetch holding it (Kafka's compareAndSet(fetchId, null)): a fetch that lost it must
        not free it under the one that holds it now."""
        with self._lock:
            if self.holder != fetch_id:
                log.error("a fetch that does not hold the fetch lock tried to release it",
                          holder=str(self.holder), fetch=str(fetch_id))
                return
            self.holder = None
            now = self.time.hi_res_clock_ms()
            held, idle = now - self._acquired_ms, self._idle_ms
            self._released_ms = now
        self.metrics.record_fetch_lock_time_ms(held)
        self.metrics.record_fetch_lock_ratio(100 if held + idle == 0 else int(100 * held / (held + idle)))
