"""HeartbeatThread: "I am still here", every ``heartbeat.interval.ms``
(Kafka's AbstractCoordinator.HeartbeatThread).

Seed 003 lists heartbeat requests as the ones that tell the broker "given client is still open".
The group coordinator evicts a member that sends none for ``session.timeout.ms``, and its
answer is how a member learns that a rebalance has begun (REBALANCE_IN_PROGRESS). The thread
also enforces ``max.poll.interval.ms``: an application that stops calling ``poll()`` leaves the
group, so its partitions go to someone who will read them.
"""

from __future__ import annotations

import threading

import structlog

from kafka.utils.time import Time

log = structlog.get_logger("kafka.clients.consumer.HeartbeatThread")


class HeartbeatThread(threading.Thread):
    def __init__(self, coordinator, heartbeat_interval_ms: int, session_timeout_ms: int,
                 max_poll_interval_ms: int, time: Time) -> None:
        super().__init__(name=f"kafka-coordinator-heartbeat-thread | {coordinator.group_id}", daemon=True)
        self.coordinator = coordinator
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.session_timeout_ms = session_timeout_ms
        self.max_poll_interval_ms = max_poll_interval_ms
        self.time = time
        self.enabled = False
        self.closed = False
        self.last_heartbeat_send_ms = 0
        self.last_heartbeat_receive_ms = time.hi_res_clock_ms()
        self.last_poll_ms = time.hi_res_clock_ms()
        self._condition = threading.Condition()

    def enable(self) -> None:
        with self._condition:
            now = self.time.hi_res_clock_ms()
            self.enabled = True
            self.last_heartbeat_receive_ms = self.last_poll_ms = now
            self.last_heartbeat_send_ms = 0  # heartbeat right after joining
            self._condition.notify_all()

    def disable(self) -> None:
        with self._condition:
            self.enabled = False

    def close(self) -> None:
        with self._condition:
            self.closed = True
            self._condition.notify_all()

    def poll_called(self) -> None:
        self.last_poll_ms = self.time.hi_res_clock_ms()

    def run(self) -> None:
        while True:
            with self._condition:
                if self.closed:
                    return
                if not self.enabled:
                    self._condition.wait(0.1)
                    continue
            try:
                self._run_once()
            except Exception:
                log.exception("heartbeat thread error")
                with self._condition:
                    self._condition.wait(0.1)

    def _run_once(self) -> None:
        now = self.time.hi_res_clock_ms()
        coordinator = self.coordinator
        if coordinator.coordinator_unknown():
            with self._condition:
                self._condition.wait(0.1)  # the application thread looks the coordinator up
            return
        if now - self.last_heartbeat_receive_ms > self.session_timeout_ms:
            coordinator.mark_coordinator_unknown("no heartbeat response within session.timeout.ms")
            return
        if now - self.last_poll_ms > self.max_poll_interval_ms:
            log.warning("poll() was not called within max.poll.interval.ms; leaving the group",
                        group=coordinator.group_id)
            coordinator.maybe_leave_group("consumer poll timeout has expired")
            self.disable()
            return
        wait_ms = self.last_heartbeat_send_ms + self.heartbeat_interval_ms - now
        if wait_ms > 0:
            with self._condition:
                self._condition.wait(min(wait_ms, 100) / 1000)
            return
        self.last_heartbeat_send_ms = now
        future = coordinator.send_heartbeat_request()
        # The application thread may be polling the client; if it is not, drive it ourselves.
        while not future.done() and not self.closed:
            if not coordinator.client.try_poll(50):
                future_wait = 0.05
                try:
                    future.result(future_wait)
                except Exception:
                    pass
        if future.done() and coordinator.handle_heartbeat_response(future.result()):
            self.last_heartbeat_receive_ms = self.time.hi_res_clock_ms()
