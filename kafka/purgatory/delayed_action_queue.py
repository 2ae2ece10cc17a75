"""DelayedActionQueue: work a delayed operation leaves for later (Kafka's
org.apache.kafka.server.purgatory.DelayedActionQueue, the ReplicaManager's action queue).

Seed 000 "Purgatories and Delayed Operations". An operation completing under its own lock must not
check other operations in the same purgatory: their try_complete takes their lock, and if one of them
is completing too and checks us back, each thread holds the lock the other waits for. So a completing
operation that frees something others wait on (a DelayedShareFetch letting its fetch locks go) adds
the check here, and KafkaApis runs what is queued at the end of every request, holding no lock.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import structlog

log = structlog.get_logger("kafka.server.purgatory.DelayedActionQueue")


class DelayedActionQueue:
    def __init__(self) -> None:
        self._queue: deque[Callable[[], None]] = deque()  # append and popleft are atomic

    def add(self, action: Callable[[], None]) -> None:
        self._queue.append(action)

    def try_complete_actions(self) -> None:
        """Run at most what was queued when called: an action that queues another leaves it to the next
        request, so one request never runs an unbounded chain."""
        for _ in range(len(self._queue)):
            try:
                action = self._queue.popleft()
            except IndexError:  # another request thread took the last one
                return
            try:
                action()
            except Exception:  # noqa: BLE001  (one failed check must not stop the others)
                log.exception("failed to complete delayed actions")

    def size(self) -> int:
        return len(self._queue)
