"""Processor: a network thread (Kafka's kafka.network.SocketServer's Processor).

Seed 002: "the network thread just takes those bytes from the socket buffer, and forms a produce
request object, and puts that into a shared request queue"; later it "will pick up the generated
response, and will then send the response data into the send socket buffer". The Processor is the
RequestChannel's side of that: the bytes are its Selector's business (kafka/network/selector.py),
which owns the connections the Acceptor hands this thread and reads and writes them. Each turn of
the loop is Kafka's:

    configure_new_connections -> process_new_responses -> poll -> process_completed_receives
        -> process_completed_sends -> process_disconnected -> close_excess_connections

A complete frame becomes a Request once its header parses and names an API and version the broker
has; anything else closes that connection and nothing else. The connection is then muted while its
request is in flight, so one client's requests are handled strictly in order. A client over its
quota gets its response at once, with throttle_time_ms, and its connection then stays muted for that
long (KIP-219): its next request waits in the socket, not in the broker. Every connection that
closes, whoever closed it, is counted back into ConnectionQuotas.
"""

from __future__ import annotations

import queue
import re
import socket
import threading

import structlog

from kafka.network.channel_builder import ChannelBuilder, PlaintextChannelBuilder
from kafka.network.connection_quotas import ConnectionQuotas
from kafka.network.kafka_channel import KafkaChannel
from kafka.network.memory_pool import MemoryPool
from kafka.network.request_channel import Request, RequestChannel, Response
from kafka.network.selector import Selector
from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.header import decode_request, parse_request_header
from kafka.protocol.response_send import release
from kafka.utils.repeated_error_log import RepeatedErrorLog
from kafka.utils.time import Time

POLL_TIMEOUT_S = 0.3


class Processor(threading.Thread):
    def __init__(self, processor_id: int, listener: str, request_channel: RequestChannel,
                 max_request_size: int, memory_pool: MemoryPool, connection_quotas: ConnectionQuotas,
                 connections_max_idle_ms: int, time: Time, channel_builder: ChannelBuilder | None = None,
                 repeated_errors: RepeatedErrorLog | None = None,
                 failed_authentication_delay_ms: int = 100) -> None:
        super().__init__(name=f"data-plane-kafka-network-thread-{processor_id}", daemon=True)
        self.id = processor_id
        self.listener = listener
        self.request_channel = request_channel
        self.memory_pool = memory_pool
        self.connection_quotas = connection_quotas
        self.time = time
        self.log = structlog.get_logger("kafka.network.Processor").bind(listener=listener,
                                                                        processor=processor_id)
        selector_log = structlog.get_logger("kafka.network.Selector").bind(listener=listener,
                                                                           processor=processor_id)
        self.selector = Selector(max_request_size, connections_max_idle_ms, failed_authentication_delay_ms,
                                 time,
                                 channel_builder or PlaintextChannelBuilder(), memory_pool, selector_log,
                                 repeated_errors or RepeatedErrorLog(selector_log, time))
        self.in_flight: dict[str, Request] = {}  # connection id -> its request, from read until answered
        self._throttled: dict[str, KafkaChannel] = {}  # muted past their response until throttled_until_ms
        self._new_connections: queue.SimpleQueue[tuple[socket.socket, str]] = queue.SimpleQueue()
        self._responses: queue.SimpleQueue[Response] = queue.SimpleQueue()
        self._running = True
        self._connection_index = 0

    # ------------------------------------------------------------------ called from other threads
    def accept(self, sock: socket.socket, ip: str) -> None:
        """The Acceptor hands over a new connection, already counted in ConnectionQuotas under `ip`."""
        self._new_connections.put((sock, ip))
        self.wakeup()

    def enqueue_response(self, response: Response, wake: bool = True) -> None:
        """An I/O thread (or a purgatory) hands back a response; without `wake`, the caller wakes us
        later (RequestChannel's deferred_wakeups)."""
        self._responses.put(response)
        if wake:
            self.wakeup()

    def wakeup(self) -> None:
        """Make the loop come out of its poll and look at its queues."""
        self.selector.wakeup()

    @property
    def response_queue_size(self) -> int:
        return self._responses.qsize()

    @property
    def idle_time_ns(self) -> int:
        """Time spent waiting in the selector: NetworkProcessorAvgIdlePercent."""
        return self.selector.idle_time_ns

    def shutdown(self) -> None:
        self._running = False
        self.wakeup()

    # ------------------------------------------------------------------ the loop
    def run(self) -> None:
        try:
            while self._running:
                self.configure_new_connections()
                self.process_new_responses()
                # Selector.send writes at once, and most responses fit the socket buffer: their sends
                # are complete already. Unmuted now, their connections' next requests are read in this
                # poll, not the next one (Kafka handles completed sends only after the poll).
                self.process_completed_sends()
                self.poll()
                self.process_completed_receives()
                self.process_completed_sends()
                self.process_disconnected()
                self.close_excess_connections()
                self.unmute_throttled_channels()
        finally:
            self.close_all()

    def configure_new_connections(self) -> None:
        while True:
            try:
                sock, ip = self._new_connections.get_nowait()
            except queue.Empty:
                return
            try:
                local, remote = sock.getsockname(), sock.getpeername()
            except OSError:
                sock.close()  # the client went away before we got to it
                self.connection_quotas.dec(self.listener, ip)
                continue
            self._connection_index += 1
            connection_id = f"{local[0]}:{local[1]}-{remote[0]}:{remote[1]}-{self._connection_index}"
            try:
                self.selector.register(connection_id, sock, ip)
            except OSError as e:
                sock.close()
                self.connection_quotas.dec(self.listener, ip)
                self.log.info("connection dropped before its channel was built", error=str(e))

    def process_new_responses(self) -> None:
        while True:
            try:
                response = self._responses.get_nowait()
            except queue.Empty:
                return
            request = response.request
            request.response_dequeue_time_ns = request.mark("taken by network thread")
            channel = self.selector.channel(request.connection_id)
            if channel is None:  # the client disconnected while its request was being handled
                release(response.payload)
                continue
            if request.throttle_time_ms > 0:
                channel.throttle(self.time.hi_res_clock_ms() + request.throttle_time_ms)
            if response.close_connection:
                self.close(channel.id, "closed by the request handler")
            elif response.is_no_op:
                self.complete_in_flight(channel)
            else:
                self.send_response(channel, response.payload)

    def send_response(self, channel: KafkaChannel, payload) -> None:
        self.selector.send(channel.id, payload)

    def poll(self) -> None:
        """Wait for the Selector's I/O, no longer than until the first throttled channel is due."""
        timeout_s = POLL_TIMEOUT_S
        if self._throttled:
            first = min(c.throttled_until_ms for c in self._throttled.values())
            timeout_s = min(timeout_s, max(0.0, (first - self.time.hi_res_clock_ms()) / 1000))
        self.selector.poll(timeout_s)

    # ------------------------------------------------------------------ frames in: requests
    def process_completed_receives(self) -> None:
        receives = self.selector.completed_receives
        if not receives:
            return
        for receive in list(receives.values()):
            del receives[receive.source]  # taken: closing its connection now does not release it twice
            self.dispatch_request(self.selector.channels[receive.source], receive.payload)

    def dispatch_request(self, channel: KafkaChannel, payload) -> None:
        """Turn a complete frame into a Request for the I/O threads, then mute the channel. From
        here the I/O thread that handles it gives the frame's memory back to the pool."""
        frame = memoryview(payload).toreadonly()
        try:
            header = parse_request_header(frame)
        except Exception as e:  # garbage where a header should be: this connection only
            self.memory_pool.release(payload)
            self.close(channel.id, f"malformed request header: {e}")
            return
        if not self._is_answerable(header):
            self.memory_pool.release(payload)
            self.close(channel.id,
                       f"unsupported request api_key={header.api_key} version={header.api_version}")
            return
        if header.api_key == ApiKey.API_VERSIONS and header.api_version >= 3:
            register_client_information(channel, header, frame)
        request = Request(self.id, channel.id, self.listener, channel.remote_address, header, frame,
                          principal=channel.principal, memory_pool=self.memory_pool, pooled_buffer=payload,
                          client_information=channel.client_information)
        self.selector.mute(channel.id)
        self.in_flight[channel.id] = request
        while not self.request_channel.send_request(request, timeout=POLL_TIMEOUT_S):
            if not self._running:  # the queue is full and the broker is stopping
                return

    @staticmethod
    def _is_answerable(header) -> bool:
        api = APIS.get(header.api_key)
        if api is None:
            return False
        # An ApiVersions request of a version we do not know is still answered (in v0, with our ranges).
        return header.api_key == ApiKey.API_VERSIONS or api.is_supported(header.api_version)

    # ------------------------------------------------------------------ responses out
    def process_completed_sends(self) -> None:
        sends = self.selector.completed_sends
        if not sends:
            return
        for connection_id in sends:
            channel = self.selector.channel(connection_id)
            if channel is not None:
                self.complete_in_flight(channel)
        sends.clear()

    def complete_in_flight(self, channel: KafkaChannel) -> None:
        """The response is out (or there was none): unmute, so the selector hands us the next request."""
        request = self.in_flight.pop(channel.id, None)
        if request is not None:
            request.response_sent_time_ns = request.mark("response sent")
            self.request_channel.update_request_metrics(request)
        if channel.is_throttled(self.time.hi_res_clock_ms()):  # over its quota: stays muted (KIP-219)
            self._throttled[channel.id] = channel
            return
        self.selector.unmute(channel.id)

    def unmute_throttled_channels(self) -> None:
        """Channels whose throttle time has passed take requests again (Kafka's THROTTLE_ENDED)."""
        if not self._throttled:
            return
        now = self.time.hi_res_clock_ms()
        for channel in [c for c in self._throttled.values() if not c.is_throttled(now)]:
            del self._throttled[channel.id]
            if channel.id in self.selector.channels:
                self.selector.unmute(channel.id)  # the selector hands us its next request

    # ------------------------------------------------------------------ closed connections
    def process_disconnected(self) -> None:
        """Connections the Selector closed (by the client, idle, a bad frame, a failed login): count
        them out of ConnectionQuotas and forget their requests; tell the RequestChannel's disconnect
        listeners."""
        disconnected = self.selector.disconnected
        if not disconnected:
            return
        for connection_id, remote_address in disconnected.items():
            self.connection_quotas.dec(self.listener, remote_address)
            self.in_flight.pop(connection_id, None)
            self._throttled.pop(connection_id, None)
            self.request_channel.connection_disconnected(connection_id)  # a share session ends with it
        disconnected.clear()

    def close_excess_connections(self) -> None:
        """Over max.connections, close the connection silent longest (Kafka's closeExcessConnections)."""
        if self.connection_quotas.max_connections_exceeded(self.listener):
            channel = self.selector.lowest_priority_channel()
            if channel is not None:
                self.close(channel.id, "too many connections: max.connections", log_level="info")

    def close(self, connection_id: str, reason: str, log_level: str = "warning") -> None:
        """Close a connection the Processor gave up on, and count it out of ConnectionQuotas."""
        channel = self.selector.channel(connection_id)
        if channel is None:
            return
        self.selector.close(connection_id)
        self.connection_quotas.dec(self.listener, channel.remote_address)
        self.in_flight.pop(connection_id, None)
        self._throttled.pop(connection_id, None)
        self.log.debug("connection closed", connection=connection_id, reason=reason)
        if "shutting down" not in reason:
            getattr(self.log, log_level)("closing connection", connection=connection_id, reason=reason)

    def close_all(self) -> None:
        """The thread is stopping: every connection, configured or still queued, closes."""
        while True:
            try:
                sock, ip = self._new_connections.get_nowait()
            except queue.Empty:
                break
            sock.close()
            self.connection_quotas.dec(self.listener, ip)
        for connection_id in list(self.selector.channels):
            self.close(connection_id, "broker shutting down")
        self.process_disconnected()
        self.selector.close_all()


_VALID_CLIENT_SOFTWARE = re.compile(r"[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?")


def register_client_information(channel: KafkaChannel, header, frame) -> None:
    """Kafka's Processor keeps the client software name and version a valid ApiVersions (v3+) gives on the
    channel (its ClientInformation): client-metrics subscriptions match on them (KIP-714)."""
    api = APIS[ApiKey.API_VERSIONS]
    if not api.is_supported(header.api_version):
        return
    try:
        body = decode_request(api, header.api_version, frame, header.header_size)
    except Exception:  # a malformed body is the I/O thread's to refuse
        return
    name, version = body.get("client_software_name", None), body.get("client_software_version", None)
    if name and version and all(_VALID_CLIENT_SOFTWARE.fullmatch(v) for v in (name, version)):
        channel.client_information = (name, version)
