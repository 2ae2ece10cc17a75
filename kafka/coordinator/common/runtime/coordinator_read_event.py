"""CoordinatorReadEvent: a read operation on a shard (Kafka's CoordinatorRuntime.CoordinatorReadEvent).

op(shard, last committed offset) runs on the event thread and answers at once: it reads the timeline
collections at that offset, so it sees only committed state, never a write still waiting for its records.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future

from kafka.coordinator.common.runtime.coordinator_write_event import complete_future
from kafka.utils.topic_partition import TopicPartition


class CoordinatorReadEvent:
    def __init__(self, runtime, name: str, tp: TopicPartition,
                 op: Callable[[object, int], object]) -> None:
        self.runtime = runtime
        self.name = name
        self.tp = tp
        self.op = op
        self.future: Future = Future()
        self._created_time_ms = runtime.time.milliseconds()

    def key(self) -> TopicPartition:
        return self.tp

    def run(self) -> None:
        try:
            context = self.runtime.active_context_or_raise(self.tp)
            coordinator = context.coordinator
            response = self.op(coordinator.coordinator, coordinator.last_committed_offset)
        except Exception as e:
            self.complete(e)
            return
        complete_future(self.future, response, None)

    def complete(self, exception: BaseException | None) -> None:
        complete_future(self.future, None, exception)

    def created_time_ms(self) -> int:
        return self._created_time_ms

    def __repr__(self) -> str:
        return f"CoordinatorReadEvent(name={self.name})"
