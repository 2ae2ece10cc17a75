"""RequestChannel, Request and Response (Kafka's kafka.network.RequestChannel).

Seed 002: the network thread "forms a produce request object, and puts that into a shared request
queue"; I/O threads take requests from it; a finished response goes to "the corresponding ...
response queue for the network thread". Here the request queue is one bounded queue shared by all
I/O threads (queued.max.requests: a full queue stops the network threads reading, which is the
broker's back-pressure), and each Processor has its own response queue.

Every Request records a nanosecond timestamp at each hand-off, so the metrics can split its life
into queue, local, remote (purgatory), response-queue and send time as Kafka's RequestMetrics do.
"""

from __future__ import annotations

import queue
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from kafka.protocol.header import RequestHeader


class ResponseSink(Protocol):
    """What a Processor offers the channel: somewhere to drop a response and wake its selector."""

    id: int

    def enqueue_response(self, response: Response) -> None: ...


@dataclass(eq=False)
class Request:
    """One request frame, its parsed header and where it came from. KafkaApis decodes the body."""

    processor: int
    connection_id: str
    listener: str
    client_address: str
    header: RequestHeader
    buffer: memoryview  # the whole frame after the size prefix: header, then body
    start_time_ns: int = field(default_factory=time.monotonic_ns)
    request_dequeue_time_ns: int = -1
    api_local_complete_time_ns: int = -1
    api_remote_complete_time_ns: int = -1
    response_complete_time_ns: int = -1
    response_dequeue_time_ns: int = -1
    response_sent_time_ns: int = -1
    body: Any = None  # the decoded request Record, set by KafkaApis on the I/O thread

    def __repr__(self) -> str:
        h = self.header
        return (f"Request(api_key={h.api_key}, version={h.api_version}, correlation_id={h.correlation_id}, "
                f"client_id={h.client_id!r}, connection={self.connection_id})")


@dataclass(eq=False)
class Response:
    """What goes back to the Processor: bytes to send, nothing (acks=0: just unmute), or a close."""

    request: Request
    payload: bytes | None = None
    close_connection: bool = False

    @property
    def is_no_op(self) -> bool:
        return self.payload is None and not self.close_connection


class RequestChannel:
    def __init__(self, queue_size: int) -> None:
        self.request_queue: queue.Queue[Request | None] = queue.Queue(maxsize=queue_size)
        self._processors: dict[int, ResponseSink] = {}

    def add_processor(self, processor: ResponseSink) -> None:
        self._processors[processor.id] = processor

    def remove_processor(self, processor_id: int) -> None:
        self._processors.pop(processor_id, None)

    # ------------------------------------------------------------------ network thread -> I/O thread
    def send_request(self, request: Request, timeout: float | None = None) -> bool:
        """Enqueue a request; blocks while the queue is full. False if it stayed full past timeout."""
        try:
            self.request_queue.put(request, timeout=timeout)
            return True
        except queue.Full:
            return False

    def receive_request(self, timeout: float) -> Request | None:
        try:
            request = self.request_queue.get(timeout=timeout)
        except queue.Empty:
            return None
        if request is not None:
            request.request_dequeue_time_ns = time.monotonic_ns()
        return request

    def wake_handlers(self, count: int) -> None:
        """Put one shutdown marker per handler thread so each returns from receive_request."""
        for _ in range(count):
            self.request_queue.put(None)

    # ------------------------------------------------------------------ I/O thread -> network thread
    def send_response(self, response: Response) -> None:
        response.request.response_complete_time_ns = time.monotonic_ns()
        processor = self._processors.get(response.request.processor)
        if processor is not None:  # None: the broker is shutting down; the connection goes with it
            processor.enqueue_response(response)

    def close_connection(self, request: Request) -> None:
        self.send_response(Response(request, close_connection=True))

    def no_operation(self, request: Request) -> None:
        self.send_response(Response(request))

    @property
    def request_queue_size(self) -> int:
        return self.request_queue.qsize()

    def response_queue_sizes(self) -> dict[int, int]:
        return {pid: getattr(p, "response_queue_size", 0) for pid, p in self._processors.items()}
