"""KafkaEventQueue: the controller's single thread (Kafka's org.apache.kafka.queue.KafkaEventQueue).

Every read and write of the QuorumController runs as an event on this one thread, one after another,
so the controller's state needs no locks and every decision sees the result of the one before it
(seed 004's "single-threaded" controller). Deferred events run at a deadline (fencing a broker whose
session expired, the periodic NoOpRecord); one with the same tag replaces the earlier one.

With `threaded=False` nothing runs by itself: a test calls run_pending() after moving its MockTime,
and the controller steps deterministically.

close() is Kafka's beginShutdown: the events still waiting are rejected (each one's `on_rejected`
runs, so whoever waits for it gets an error at once), so is anything appended afterwards, and the
thread ends after the event it is running. A Python thread cannot be interrupted, which is why no
event may run long: the controller bounds every request before it acts on it.
"""

from __future__ import annotations

import heapq
import itertools
import threading
from collections import deque
from collections.abc import Callable

import structlog

from kafka.utils.time import Time

log = structlog.get_logger("kafka.controller.KafkaEventQueue")


class KafkaEventQueue:
    def __init__(self, time: Time, name: str, threaded: bool = True) -> None:
        self.time = time
        self.name = name
        self._events: deque[tuple[str, Callable[[], None], Callable[[], None] | None]] = deque()
        self._deferred: list[tuple[int, int, str]] = []  # (deadline ms, sequence, tag) heap
        self._deferred_by_tag: dict[str, tuple[int, Callable[[], None]]] = {}
        self._sequence = itertools.count()
        self._cond = threading.Condition()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True) if threaded else None
        if self._thread is not None:
            self._thread.start()

    def append(self, name: str, event: Callable[[], None],
               on_rejected: Callable[[], None] | None = None) -> None:
        """Run `event` on the controller thread; if the queue closes first, run `on_rejected` instead."""
        with self._cond:
            if not self._closed:
                self._events.append((name, event, on_rejected))
                self._cond.notify()
                return
        _reject(name, on_rejected)

    @property
    def closed(self) -> bool:
        return self._closed

    def schedule_deferred(self, tag: str, deadline_ms: int, event: Callable[[], None]) -> None:
        with self._cond:
            self._deferred_by_tag[tag] = (deadline_ms, event)
            heapq.heappush(self._deferred, (deadline_ms, next(self._sequence), tag))
            self._cond.notify()

    def cancel_deferred(self, tag: str) -> None:
        with self._cond:
            self._deferred_by_tag.pop(tag, None)

    def _next_ready(self) -> tuple[str, Callable[[], None]] | None:
        if self._events:
            name, event, _ = self._events.popleft()
            return name, event
        now = self.time.milliseconds()
        while self._deferred and self._deferred[0][0] <= now:
            deadline, _, tag = heapq.heappop(self._deferred)
            entry = self._deferred_by_tag.get(tag)
            if entry is not None and entry[0] == deadline:  # not replaced or cancelled since
                del self._deferred_by_tag[tag]
                return tag, entry[1]
        return None

    def _wait_s(self) -> float:
        if not self._deferred:
            return 1.0
        return max(0.0, min(1.0, (self._deferred[0][0] - self.time.milliseconds()) / 1000))

    def _run(self) -> None:
        while True:
            with self._cond:
                ready = self._next_ready()
                while ready is None and not self._closed:
                    self._cond.wait(self._wait_s())
                    ready = self._next_ready()
                if ready is None:
                    return
            self._run_event(*ready)

    def _run_event(self, name: str, event: Callable[[], None]) -> None:
        try:
            event()
        except Exception:  # one bad event must not stop the controller
            log.exception("controller event failed", operation=name)

    def run_pending(self) -> int:
        """Without a thread: run every event that is due now; returns how many ran."""
        ran = 0
        while True:
            with self._cond:
                ready = self._next_ready()
            if ready is None:
                return ran
            self._run_event(*ready)
            ran += 1

    def close(self, join_timeout_s: float = 5.0) -> None:
        with self._cond:
            self._closed = True
            rejected, self._events = list(self._events), deque()
            self._deferred, self._deferred_by_tag = [], {}
            self._cond.notify_all()
        for name, _, on_rejected in rejected:
            _reject(name, on_rejected)
        if self._thread is not None and self._thread is not threading.current_thread():
            # a long event may still run: shutdown does not wait for it
            self._thread.join(timeout=join_timeout_s)


def _reject(name: str, on_rejected: Callable[[], None] | None) -> None:
    if on_rejected is None:
        return
    try:
        on_rejected()
    except Exception:
        log.exception("controller event rejection failed", operation=name)
