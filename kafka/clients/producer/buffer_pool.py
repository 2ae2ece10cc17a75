"""BufferPool: the producer's ``buffer.memory`` budget (Kafka's producer.internals.BufferPool).

Every open batch holds ``batch.size`` bytes of the budget until the broker has answered for it.
When the budget is spent, ``send()`` blocks -- back-pressure on a producer that is faster than
its brokers -- for at most ``max.block.ms``, then fails.
"""

from __future__ import annotations

import threading

from kafka.clients.errors import KafkaTimeoutError


class BufferPool:
    def __init__(self, total_memory: int) -> None:
        self.total_memory = total_memory
        self.available = total_memory
        self.waiters = 0
        self._condition = threading.Condition()

    def allocate(self, size: int, max_time_to_block_ms: float) -> int:
        if size > self.total_memory:
            raise ValueError(f"a {size}-byte batch is larger than buffer.memory ({self.total_memory})")
        with self._condition:
            self.waiters += 1
            try:
                enough = self._condition.wait_for(lambda: self.available >= size, max_time_to_block_ms / 1000)
            finally:
                self.waiters -= 1
            if not enough:
                raise KafkaTimeoutError(f"failed to allocate {size} bytes of buffer.memory within "
                                        f"{max_time_to_block_ms} ms (max.block.ms)")
            self.available -= size
            return size

    def deallocate(self, size: int) -> None:
        with self._condition:
            self.available += size
            self._condition.notify_all()

    def queued(self) -> bool:
        """Is anyone waiting for memory? Then batches are sent without waiting for linger.ms."""
        with self._condition:
            return self.waiters > 0
