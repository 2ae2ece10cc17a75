"""CoordinatorEvent: one unit of work of the runtime (Kafka's CoordinatorEvent and EventAccumulator.Event).

Its key is the partition whose shard it touches: the event processor never runs two events of one key at
once, which is all the locking a shard needs.
"""

from __future__ import annotations

from typing import Protocol

from kafka.utils.topic_partition import TopicPartition


class CoordinatorEvent(Protocol):
    def key(self) -> TopicPartition: ...

    def run(self) -> None: ...

    def complete(self, exception: BaseException | None) -> None:
        """Called with an error when run() raised, or when the processor rejects the event at shutdown."""

    def created_time_ms(self) -> int: ...
