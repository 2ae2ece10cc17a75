"""DeferredEventQueue: answers that wait for an offset to commit
(Kafka's org.apache.kafka.deferred.DeferredEventQueue).

The active controller decides at once, but a decision is only true once the quorum has committed
the records it rests on. So each answer waits here, under the offset it needs:

    a write         the offset of its own last record
    a read, or a    the highest offset still pending when it was decided: what it saw may include
    write with      records not yet committed (a topic that "already exists" only in this
    no records      controller's memory), and it must not be told before they are

Offsets only grow while one controller is active, so the answers leave in order, from the front,
as handle_commit moves the committed offset. When the controller renounces, every waiting answer is
failed at once (fail_all): what it rested on may never commit.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from concurrent.futures import Future


class DeferredEventQueue:
    def __init__(self) -> None:
        # (offset, future, response), offsets ascending
        self._waiting: deque[tuple[int, Future, object]] = deque()

    def __len__(self) -> int:
        return len(self._waiting)

    def add(self, offset: int, future: Future, response: object) -> None:
        if self._waiting and offset < self._waiting[-1][0]:
            raise ValueError(f"offset {offset} is below the highest pending offset {self._waiting[-1][0]}")
        self._waiting.append((offset, future, response))

    def complete_up_to(self, committed_offset: int) -> None:
        while self._waiting and self._waiting[0][0] <= committed_offset:
            _, future, response = self._waiting.popleft()
            if not future.done():
                future.set_result(response)

    def fail_all(self, failed: Callable[[object], object]) -> None:
        """Answer everything still waiting with `failed(response)`: the same shape, an error in it."""
        waiting, self._waiting = self._waiting, deque()
        for _, future, response in waiting:
            if not future.done():
                future.set_result(failed(response))
