"""RequestTrace: the last few hundred requests' journeys through the broker, as timelines.

No Kafka class does this; the nearest is the request log (`kafka.request.logger` at DEBUG), which
prints each request's five times in one line. Seed 002 draws the journey as a picture:

    network thread -> request queue -> I/O thread -> commit log -> purgatory -> response queue
    -> network thread -> socket

With `request.trace.enable=true` each Request notes every hand-off (Request.mark) with the thread that made
it, and every decision the authoriser took on it (AuthHelper: "authorize User:ANONYMOUS WRITE TOPIC:orders ->
DENIED by NoMatchingAllow"), under the principal that sent it; when its response has gone out the Processor
hands it here. `render` draws the journeys as text, with real numbers: an acks=all produce parked in the
produce purgatory, a consumer's fetch long-polling until `fetch.max.wait.ms` and answered by the
ExpirationReaper thread.

Served next to /metrics at /requests; `kafka-request-trace` prints the same page.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass

from kafka.network.request_channel import Request

DEFAULT_CAPACITY = 500
BAR_WIDTH = 40


@dataclass(frozen=True)
class TracedRequest:
    """What is kept of one request once its response is sent: plain values, no buffers."""

    names: tuple[str, ...]  # Kafka's request metric names: ("FetchConsumer", "Fetch")
    version: int
    correlation_id: int
    client_id: str | None
    connection_id: str
    steps: tuple[tuple[str, int, str], ...]  # (step, monotonic ns, thread)
    timings_ms: Mapping[str, float]
    principal: str = "User:ANONYMOUS"  # who sent it; the authoriser's decisions are steps of the journey

    @property
    def total_ms(self) -> float:
        return self.timings_ms["TotalTimeMs"]


class RequestTrace:
    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self._recent: deque[TracedRequest] = deque(maxlen=capacity)
        self._lock = threading.Lock()

    def record(self, request: Request) -> None:
        """Called by the Processor's thread once the response is sent (RequestChannel.request_logger)."""
        if not request.journey:
            return
        traced = TracedRequest(tuple(request.metric_names), request.header.api_version,
                               request.header.correlation_id, request.header.client_id, request.connection_id,
                               tuple(request.journey), request.timings_ms(), str(request.principal))
        with self._lock:
            self._recent.append(traced)

    def recent(self, api: str | None = None, min_total_ms: float = 0.0, limit: int = 20,
               client_id: str | None = None, correlation_id: int | None = None) -> list[TracedRequest]:
        """The newest `limit` requests (oldest first), optionally only of one request type, slower than a
        bound, or sent with a client id or correlation id (the request header's, so a student finds the
        request they just sent: kcat's `-X client.id=...`, a client's own correlation counter)."""
        with self._lock:
            requests = list(self._recent)
        if api:
            requests = [r for r in requests if api.lower() in (n.lower() for n in r.names)]
        if client_id is not None:
            requests = [r for r in requests if r.client_id == client_id]
        if correlation_id is not None:
            requests = [r for r in requests if r.correlation_id == correlation_id]
        requests = [r for r in requests if r.total_ms >= min_total_ms]
        return requests[-limit:] if limit > 0 else requests

    # ------------------------------------------------------------------ the page
    def render_page(self, query: Mapping[str, list[str]]) -> str:
        """/requests?api=Produce&limit=5&min_ms=10&client_id=producer-1&correlation_id=7"""
        def first(key: str, default: str) -> str:
            return query.get(key, [default])[0]
        try:
            limit, min_ms = int(first("limit", "20")), float(first("min_ms", "0"))
            correlation_id = int(first("correlation_id", "")) if "correlation_id" in query else None
        except ValueError:
            return "limit and correlation_id must be integers and min_ms a number\n"
        client_id = first("client_id", "") if "client_id" in query else None
        requests = self.recent(first("api", "") or None, min_ms, limit, client_id, correlation_id)
        if not requests:
            return "no traced requests match (yet)\n"
        return "\n".join(render(r) for r in requests)


def render(request: TracedRequest) -> str:
    """One request as a timeline: each hand-off, when (ms after it was read), on which thread, and a
    bar showing how long the request stayed in that step."""
    start = request.steps[0][1]
    end = request.steps[-1][1]
    span = max(end - start, 1)
    name = request.names[0]
    lines = [f"{name} v{request.version}  correlation_id={request.correlation_id}  "
             f"client_id={request.client_id!r}  principal={request.principal}  "
             f"connection={request.connection_id}  "
             f"total {request.total_ms:.3f} ms"]
    for i, (step, ns, thread) in enumerate(request.steps):
        next_ns = request.steps[i + 1][1] if i + 1 < len(request.steps) else ns
        lines.append(f"  {(ns - start) / 1e6:10.3f} ms  {_bar(ns - start, next_ns - start, span)}  "
                     f"{step:<38} {thread}")
    t = request.timings_ms
    lines.append(f"  queue {t['RequestQueueTimeMs']:.3f} | local {t['LocalTimeMs']:.3f} | "
                 f"remote {t['RemoteTimeMs']:.3f} | response queue {t['ResponseQueueTimeMs']:.3f} | "
                 f"send {t['ResponseSendTimeMs']:.3f} ms")
    return "\n".join(lines) + "\n"


def _bar(from_ns: int, to_ns: int, span: int) -> str:
    left = min(int(from_ns / span * BAR_WIDTH), BAR_WIDTH - 1)
    if to_ns <= from_ns:  # the last step: a point in time
        body = "|"
    else:
        body = "=" * max(1, min(BAR_WIDTH, round(to_ns / span * BAR_WIDTH)) - left)
    return "[" + (" " * left + body).ljust(BAR_WIDTH) + "]"
