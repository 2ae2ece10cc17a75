"""HighWatermarkListener: how the runtime hears its partition commit (Kafka's
CoordinatorRuntime.HighWatermarkListener).

The partition calls it on whatever thread moved the high watermark, maybe under the partition's lock, so it
only notes the offset and puts an event at the front of the partition's queue; the event, on the event
thread, advances the shard's last committed offset and answers the writes now committed. While one such
event waits, later moves only overwrite the offset: one event carries the newest high watermark.
"""

from __future__ import annotations

import threading

import structlog

from kafka.coordinator.common.runtime.coordinator_error import CoordinatorError
from kafka.coordinator.common.runtime.coordinator_internal_event import CoordinatorInternalEvent
from kafka.coordinator.common.runtime.coordinator_state import CoordinatorState
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.coordinator.common.runtime.CoordinatorRuntime")

NO_OFFSET = -1


class HighWatermarkListener:
    def __init__(self, runtime) -> None:
        self.runtime = runtime
        self._lock = threading.Lock()
        self._last_high_watermark = NO_OFFSET

    def __call__(self, tp: TopicPartition, offset: int) -> None:
        with self._lock:
            previous, self._last_high_watermark = self._last_high_watermark, offset
        if previous != NO_OFFSET:
            return  # an event is already on its way; it will read the offset just stored
        event = CoordinatorInternalEvent(self.runtime, "HighWatermarkUpdate", tp, lambda: self._apply(tp))
        try:
            self.runtime.enqueue_first(event)
        except CoordinatorError:
            log.debug("high watermark not applied: the runtime is closed", topic_partition=str(tp))

    def _apply(self, tp: TopicPartition) -> None:
        with self._lock:
            high_watermark, self._last_high_watermark = self._last_high_watermark, NO_OFFSET
        context = self.runtime.coordinators.get(tp)
        # Only for the shard this listener was registered for, if it is still active.
        active = context is not None and context.state is CoordinatorState.ACTIVE
        if not active or context.high_watermark_listener is not self:
            log.debug("high watermark ignored: the coordinator is not active", topic_partition=str(tp))
            return
        context.update_last_committed_offset(high_watermark)
