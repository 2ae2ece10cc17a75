"""CoordinatorInternalEvent: the runtime's own work on a partition (Kafka's CoordinatorRuntime's
CoordinatorInternalEvent): loading, unloading, a new high watermark, a timeout, a new metadata image. It
runs as the partition's other events do, one at a time, and has no future: a failure is logged.
"""

from __future__ import annotations

from collections.abc import Callable

import structlog

from kafka.coordinator.common.runtime.event_accumulator import RejectedExecutionError
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.coordinator.common.runtime.CoordinatorRuntime")


class CoordinatorInternalEvent:
    def __init__(self, runtime, name: str, tp: TopicPartition, op: Callable[[], None]) -> None:
        self.name = name
        self.tp = tp
        self.op = op
        self._created_time_ms = runtime.time.milliseconds()

    def key(self) -> TopicPartition:
        return self.tp

    def run(self) -> None:
        try:
            self.op()
        except Exception as e:
            self.complete(e)

    def complete(self, exception: BaseException | None) -> None:
        if isinstance(exception, RejectedExecutionError):
            log.debug("internal event dropped: the processor is closed", name=self.name)
        elif exception is not None:
            log.error("internal event failed", name=self.name, error=repr(exception), exc_info=exception)

    def created_time_ms(self) -> int:
        return self._created_time_ms

    def __repr__(self) -> str:
        return f"InternalEvent(name={self.name})"
