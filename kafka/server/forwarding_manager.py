"""ForwardingManager: admin requests a broker receives go to the active controller (Kafka's
kafka.server.ForwardingManager, KIP-590).

Seed 004: in KRaft only the controller changes metadata. A client may send CreateTopics to any
broker (Metadata names a random live broker as "controller"); the broker forwards the request over
the control plane and relays the answer. Kafka wraps the client's request in an Envelope so the
controller sees the original principal; the teaching broker has no authentication, so it forwards
the request body itself, at the version the client used when the controller speaks it.

Forwarding never waits, as Kafka's `forwardRequest(request, responseCallback)` does not: the I/O
thread sends and goes on to the next request, and the callback answers the client later, exactly
once, from whichever thread comes first with an outcome:

    the controller channel's thread   the controller's response (or an error it gave up with)
    the scheduler's thread            REQUEST_TIMED_OUT when nothing came within the timeout
    the thread stopping the broker    BROKER_NOT_AVAILABLE for every forward still pending

So a controller that is slow, paused or gone costs the client a late answer, never an I/O thread:
produce and fetch go on being served meanwhile.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from typing import Any

import structlog

from kafka.protocol.errors import Errors
from kafka.utils.kafka_scheduler import KafkaScheduler, ScheduledTask

log = structlog.get_logger("kafka.server.ForwardingManager")

ResponseCallback = Callable[[Any, Errors], None]  # (response body or None, error)


class ForwardedRequest:
    """One forward waiting for its outcome; whichever of controller, timer and shutdown comes first wins.

    The callback runs in the context of the thread that forwarded (its contextvars), so what it logs
    still names the client's request (kafka/utils/logging.py), as it would have on the I/O thread."""

    def __init__(self, callback: ResponseCallback) -> None:
        self.callback = callback
        self.context = contextvars.copy_context()
        self.timeout_task: ScheduledTask | None = None
        self._answered = False
        self._lock = threading.Lock()

    def complete(self, response: Any, error: Errors) -> bool:
        """Hand the outcome to the callback, once; False if another thread already did."""
        with self._lock:
            if self._answered:
                return False
            self._answered = True
        if self.timeout_task is not None:
            self.timeout_task.cancel()
        try:
            self.context.run(self.callback, response, error)
        except Exception:  # the callback's thread (the controller channel's) must survive a handler's bug
            log.exception("answering a forwarded request failed")
        return True


class ForwardingManager:
    def __init__(self, channel, scheduler: KafkaScheduler) -> None:
        self.channel = channel  # a NodeToControllerChannelManager
        self.scheduler = scheduler  # its thread answers the forwards that time out
        self._lock = threading.Lock()
        self._pending: set[ForwardedRequest] = set()
        self._closed = False

    def forward_request(self, api_key: int, body: Any, timeout_ms: int, callback: ResponseCallback,
                        max_version: int | None = None) -> None:
        """Send to the active controller and return at once; `callback(response body or None, error)`
        runs once, later, on another thread (see the module docstring)."""
        forwarded = ForwardedRequest(callback)
        with self._lock:
            closed = self._closed
            if not closed:
                self._pending.add(forwarded)
        if closed:
            forwarded.complete(None, Errors.BROKER_NOT_AVAILABLE)
            return
        forwarded.timeout_task = self.scheduler.schedule_once(
            "forwarded-request-timeout", lambda: self._complete(forwarded, None, Errors.REQUEST_TIMED_OUT),
            timeout_ms)
        self.channel.send_request(api_key, body, lambda response,
                                  error: self._complete(forwarded, response, error),
                                  timeout_ms, max_version)

    def _complete(self, forwarded: ForwardedRequest, response: Any, error: Errors) -> None:
        with self._lock:
            self._pending.discard(forwarded)
        forwarded.complete(response, error)

    @property
    def pending_count(self) -> int:
        return len(self._pending)

    def shutdown(self) -> None:
        """Answer every forward still pending: the broker is stopping, and a controller busy with a
        long event must not hold its clients (or its shutdown) for a whole request timeout."""
        with self._lock:
            self._closed = True
            pending, self._pending = list(self._pending), set()
        for forwarded in pending:
            forwarded.complete(None, Errors.BROKER_NOT_AVAILABLE)
