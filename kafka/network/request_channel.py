"""RequestChannel, Request and Response (Kafka's kafka.network.RequestChannel).

Seed 002: the network thread "forms a produce request object, and puts that into a shared request
queue"; I/O threads take requests from it; a finished response goes to "the corresponding ...
response queue for the network thread". Here the request queue is one bounded queue shared by all
I/O threads (queued.max.requests: a full queue stops the network threads reading, which is the
broker's back-pressure), and each Processor has its own response queue.

Every Request records a nanosecond timestamp at each hand-off, so the metrics can split its life
into queue, local, remote (purgatory), response-queue and send time as Kafka's RequestMetrics do.

An I/O thread wakes the network threads it queued responses for once, when it has finished the
request (`deferred_wakeups`), not at each response. Python runs one thread at a time (the GIL): a
network thread woken at once takes the interpreter from the I/O thread still finishing its work,
and the two hand it back and forth. A produce that completes a waiting fetch queues two responses
for the same network thread, which then wakes once for both. docs/performance.md has the figures.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.errors import Errors
from kafka.security.kafka_principal import ANONYMOUS, KafkaPrincipal

if TYPE_CHECKING:
    from kafka.metrics.request_metrics import RequestMetrics
    from kafka.protocol.header import RequestHeader


class ResponseSink(Protocol):
    """What a Processor offers the channel: somewhere to drop a response and wake its selector."""

    id: int

    def enqueue_response(self, response: Response, wake: bool = True) -> None: ...

    def wakeup(self) -> None: ...


# The network threads to wake when this thread is done with its request: a set inside
# deferred_wakeups(), None outside (a reaper, a coordinator thread: those wake at once).
_to_wake = threading.local()


@contextlib.contextmanager
def deferred_wakeups() -> Iterator[None]:
    """Inside, send_response queues without waking; on the way out each network thread is woken once."""
    if getattr(_to_wake, "sinks", None) is not None:
        yield  # nested: the outer block wakes
        return
    _to_wake.sinks = set()
    try:
        yield
    finally:
        sinks, _to_wake.sinks = _to_wake.sinks, None
        for sink in sinks:
            sink.wakeup()


def _elapsed_ms(later_ns: int, earlier_ns: int) -> float:
    """From one hand-off to the next, in ms, never negative."""
    return (later_ns - earlier_ns) / 1e6 if later_ns > earlier_ns else 0.0


@dataclass(eq=False)
class Request:
    """One request frame, its parsed header and where it came from. KafkaApis decodes the body."""

    processor: int
    connection_id: str
    listener: str
    client_address: str
    header: RequestHeader
    buffer: memoryview  # the whole frame after the size prefix: header, then body
    # Who sent it, as its connection's transport and authenticator decided (Kafka's RequestContext.principal).
    principal: KafkaPrincipal = ANONYMOUS
    # (software name, version) the connection's ApiVersions gave (Kafka's ClientInformation), KIP-714's match
    client_information: tuple[str, str] | None = None
    start_time_ns: int = field(default_factory=time.monotonic_ns)
    request_dequeue_time_ns: int = -1
    api_local_complete_time_ns: int = -1
    api_remote_complete_time_ns: int = -1
    response_complete_time_ns: int = -1
    response_dequeue_time_ns: int = -1
    response_sent_time_ns: int = -1
    body: Any = None  # the decoded request Record, set by KafkaApis on the I/O thread
    # Set by a quota manager (Kafka's apiThrottleTimeMs): once the response is out, the Processor
    # keeps the connection muted this long (KIP-219).
    throttle_time_ms: int = 0
    # With request.trace.enable: (step, monotonic ns, thread name) at every hand-off, for the request trace.
    journey: list[tuple[str, int, str]] | None = None
    # The frame's buffer as the MemoryPool granted it (queued.max.request.bytes), until release_buffer().
    memory_pool: Any = None
    pooled_buffer: Any = None

    def release_buffer(self) -> None:
        """The request has been handled: its bytes no longer count against the pool (Kafka's
        Request.releaseBuffer). The memory itself goes when the last view of the frame is dropped."""
        pooled, self.pooled_buffer = self.pooled_buffer, None
        if pooled is not None:
            self.memory_pool.release(pooled)

    def mark(self, step: str) -> int:
        """The time of a hand-off, in ns; noted with the thread's name when the request is traced."""
        now = time.monotonic_ns()
        if self.journey is not None:
            self.journey.append((step, now, threading.current_thread().name))
        return now

    def log_context(self) -> dict[str, Any]:
        """What a log event written while this request is handled says about it (see utils/logging.py)."""
        header = self.header
        api = APIS.get(header.api_key)
        return dict(listener=self.listener, processor=self.processor, connection=self.connection_id,
                    client_id=header.client_id, correlation_id=header.correlation_id,
                    api=api.name if api else header.api_key, version=header.api_version)

    @property
    def metric_names(self) -> list[str]:
        """Kafka's `request` tag: the API's name, and for a fetch also FetchConsumer or FetchFollower."""
        name = APIS[self.header.api_key].name
        if self.header.api_key == ApiKey.FETCH and self.body is not None:
            return [name + ("Follower" if getattr(self.body, "replica_id", -1) >= 0 else "Consumer"), name]
        return [name]

    def timings_ms(self) -> dict[str, float]:
        """Kafka's Request.updateRequestMetrics: the request's life split at its hand-offs, in ms."""
        return {
            "RequestQueueTimeMs": _elapsed_ms(self.request_dequeue_time_ns, self.start_time_ns),
            "LocalTimeMs": _elapsed_ms(self.api_local_complete_time_ns, self.request_dequeue_time_ns),
            "RemoteTimeMs": _elapsed_ms(self.response_complete_time_ns, self.api_local_complete_time_ns),
            # The quota's, not a hand-off: the connection stays muted this long after the response (KIP-219).
            "ThrottleTimeMs": float(self.throttle_time_ms),
            "ResponseQueueTimeMs": _elapsed_ms(self.response_dequeue_time_ns, self.response_complete_time_ns),
            "ResponseSendTimeMs": _elapsed_ms(self.response_sent_time_ns, self.response_dequeue_time_ns),
            "TotalTimeMs": _elapsed_ms(self.response_sent_time_ns, self.start_time_ns),
        }

    def __repr__(self) -> str:
        h = self.header
        return (f"Request(api_key={h.api_key}, version={h.api_version}, correlation_id={h.correlation_id}, "
                f"client_id={h.client_id!r}, connection={self.connection_id})")


@dataclass(eq=False)
class Response:
    """What goes back to the Processor: bytes to send, nothing (acks=0: just unmute), or a close."""

    request: Request
    payload: bytes | bytearray | None = None
    close_connection: bool = False

    @property
    def is_no_op(self) -> bool:
        return self.payload is None and not self.close_connection


class RequestChannel:
    def __init__(self, queue_size: int) -> None:
        self.request_queue: queue.Queue[Request | None] = queue.Queue(maxsize=queue_size)
        self._processors: dict[int, ResponseSink] = {}
        self.metrics: RequestMetrics | None = None  # set by KafkaServer when metrics are on
        self.request_logger: Callable[[Request], None] | None = None  # the request trace, when on
        # Kafka's ConnectionDisconnectListener: told each connection id a Processor closed (share sessions)
        self.connection_disconnect_listeners: list[Callable[[str], None]] = []

    def add_processor(self, processor: ResponseSink) -> None:
        self._processors[processor.id] = processor

    def remove_processor(self, processor_id: int) -> None:
        self._processors.pop(processor_id, None)

    # ------------------------------------------------------------------ network thread -> I/O thread
    def send_request(self, request: Request, timeout: float | None = None) -> bool:
        """Enqueue a request; blocks while the queue is full. False if it stayed full past timeout."""
        if self.request_logger is not None and request.journey is None:  # once, even if the queue is full
            request.journey = [("read by network thread", request.start_time_ns,
                                threading.current_thread().name)]
            request.mark("into request queue")
        try:
            self.request_queue.put(request, timeout=timeout)
            return True
        except queue.Full:
            return False

    def receive_request(self, timeout: float | None) -> Request | None:
        """The next request, waiting up to timeout seconds (None: until one or a shutdown marker comes)."""
        try:
            request = self.request_queue.get(timeout=timeout)
        except queue.Empty:
            return None
        if request is not None:
            request.request_dequeue_time_ns = request.mark("taken by I/O thread")
        return request

    def wake_handlers(self, count: int) -> None:
        """Put one shutdown marker per handler thread so each returns from receive_request."""
        for _ in range(count):
            self.request_queue.put(None)

    # ------------------------------------------------------------------ I/O thread -> network thread
    def send_response(self, response: Response) -> None:
        response.request.response_complete_time_ns = response.request.mark("into response queue")
        processor = self._processors.get(response.request.processor)
        if processor is None:  # the broker is shutting down; the connection goes with it
            return
        deferred = getattr(_to_wake, "sinks", None)
        processor.enqueue_response(response, wake=deferred is None)
        if deferred is not None:
            deferred.add(processor)

    def close_connection(self, request: Request) -> None:
        self.send_response(Response(request, close_connection=True))

    def connection_disconnected(self, connection_id: str) -> None:
        """A Processor closed this connection (on its own thread): the listeners forget what it held."""
        for listener in self.connection_disconnect_listeners:
            listener(connection_id)

    def update_request_metrics(self, request: Request) -> None:
        """The Processor has sent the response: time its stages (Kafka's Request.updateRequestMetrics)."""
        if self.metrics is not None:
            self.metrics.update(request.metric_names, request.header.api_version, request.timings_ms())
        if self.request_logger is not None:
            self.request_logger(request)

    def update_error_metrics(self, request: Request, error_counts: dict[int, int]) -> None:
        """KafkaApis built a response with these error codes (Kafka's RequestChannel.updateErrorMetrics)."""
        if self.metrics is not None:
            self.metrics.mark_errors(APIS[request.header.api_key].name,
                                     {Errors.for_code(code).name: n for code, n in error_counts.items()})

    @property
    def request_queue_size(self) -> int:
        return self.request_queue.qsize()

    def response_queue_sizes(self) -> dict[int, int]:
        return {pid: getattr(p, "response_queue_size", 0) for pid, p in self._processors.items()}
