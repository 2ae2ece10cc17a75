"""SystemTimerReaper: a Timer that drives itself (Kafka's
org.apache.kafka.server.util.timer.SystemTimerReaper).

A purgatory drives its SystemTimer from its own expiration reaper; the coordinator runtime's timer
has no purgatory around it, so this wrapper owns the reaper thread: it calls advance_clock in a loop
until shutdown, and every expired task runs on that thread (the runtime's tasks only enqueue events).
"""

from __future__ import annotations

import threading

import structlog

from kafka.utils.timer.timer import Timer
from kafka.utils.timer.timer_task import TimerTask

log = structlog.get_logger(__name__)

WORK_TIMEOUT_MS = 200  # Kafka's: how long one advance_clock waits before looking at shutdown again


class SystemTimerReaper(Timer):
    def __init__(self, reaper_thread_name: str, timer: Timer) -> None:
        self._timer = timer
        self._shutdown = threading.Event()
        self._reaper = threading.Thread(target=self._run, name=reaper_thread_name, daemon=True)
        self._reaper.start()

    def _run(self) -> None:
        while not self._shutdown.is_set():
            try:
                self._timer.advance_clock(WORK_TIMEOUT_MS)
            except Exception:  # a task that raised must not stop every later expiry
                log.exception("timer task failed", thread=self._reaper.name)

    def add(self, timer_task: TimerTask) -> None:
        self._timer.add(timer_task)

    def advance_clock(self, timeout_ms: float) -> bool:
        return self._timer.advance_clock(timeout_ms)

    def size(self) -> int:
        return self._timer.size()

    def shutdown(self) -> None:
        self._shutdown.set()
        self._timer.shutdown()  # wakes the reaper out of its wait
        if threading.current_thread() is not self._reaper:
            self._reaper.join(timeout=5)
