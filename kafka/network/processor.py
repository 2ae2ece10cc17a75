"""Processor: a network thread (Kafka's kafka.network.Processor).

Seed 002: "the network thread just takes those bytes from the socket buffer, and forms a produce
request object, and puts that into a shared request queue"; later it "will pick up the generated
response, and will then send the response data into the send socket buffer". Each Processor owns
the connections the Acceptor handed it and runs one `selectors` loop over them:

    configure_new_connections -> process_new_responses -> poll (read frames / write responses)
        -> close_idle_connections -> unmute_if_memory_available -> unmute_throttled_channels

It decodes only the request header. A connection is muted while its request is in flight, so one
client's requests are handled strictly in order; bad frames close that connection and nothing else.
A frame's buffer comes from the shared MemoryPool (queued.max.request.bytes): when the pool is
exhausted the connection is muted for memory until a handled request gives its bytes back. A
connection silent for connections.max.idle.ms is closed, and every close is counted back into
ConnectionQuotas. A client over its quota gets its response at once, with throttle_time_ms, and its
connection then stays muted for that long (KIP-219): its next request waits in the socket, not in
the broker.

On a TLS listener a new connection first goes through its handshake, driven by the same selector
(`prepare`): its bytes become frames, and its requests reach the RequestChannel, only once the
handshake is done. A failed handshake closes that connection, is counted (failed-authentication-
total) and logged once per interval. OpenSSL may hold decrypted bytes the selector cannot see;
such channels are read again without waiting for select (Kafka's keysWithBufferedRead).

On a SASL listener the frames of a connection not yet authenticated go to its SaslServerAuthenticator
(`authenticate`), never to the RequestChannel, except an ApiVersions before the handshake. A failed
authentication is counted, logged once per interval with the user and address, answered after
connection.failed.authentication.delay.ms (a client guessing passwords gets one guess per delay per
connection) and closed (Kafka's delayed close on authentication failure).
"""

from __future__ import annotations

import queue
import selectors
import socket
import threading

import structlog

from kafka.network.channel_builder import ChannelBuilder, PlaintextChannelBuilder
from kafka.network.connection_quotas import ConnectionQuotas
from kafka.network.idle_expiry_manager import IdleExpiryManager
from kafka.network.kafka_channel import InvalidReceiveError, KafkaChannel
from kafka.network.memory_pool import MemoryPool
from kafka.network.request_channel import Request, RequestChannel, Response
from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.header import parse_request_header
from kafka.protocol.response_send import release
from kafka.security.ssl_transport_layer import SslAuthenticationError
from kafka.utils.repeated_error_log import RepeatedErrorLog
from kafka.utils.time import Time

POLL_TIMEOUT_S = 0.3
_WAKEUP = object()


class Processor(threading.Thread):
    def __init__(self, processor_id: int, listener: str, request_channel: RequestChannel,
                 max_request_size: int, memory_pool: MemoryPool, connection_quotas: ConnectionQuotas,
                 connections_max_idle_ms: int, time: Time, channel_builder: ChannelBuilder | None = None,
                 repeated_errors: RepeatedErrorLog | None = None, failed_authentication_delay_ms: int = 100) -> None:
        super().__init__(name=f"data-plane-kafka-network-thread-{processor_id}", daemon=True)
        self.id = processor_id
        self.listener = listener
        self.request_channel = request_channel
        self.max_request_size = max_request_size
        self.memory_pool = memory_pool
        self.connection_quotas = connection_quotas
        self.time = time
        # connections.max.idle.ms < 0 turns idle expiry off, as in Kafka's Selector
        self.idle_expiry = IdleExpiryManager(connections_max_idle_ms, time) if connections_max_idle_ms >= 0 else None
        self.channels: dict[str, KafkaChannel] = {}
        self._muted_for_memory: dict[str, KafkaChannel] = {}
        self._selector = selectors.DefaultSelector()
        self._new_connections: queue.SimpleQueue[tuple[socket.socket, str]] = queue.SimpleQueue()
        self._responses: queue.SimpleQueue[Response] = queue.SimpleQueue()
        self._wakeup_r, self._wakeup_w = socket.socketpair()
        self._wakeup_r.setblocking(False)
        self._wakeup_w.setblocking(False)
        self._selector.register(self._wakeup_r, selectors.EVENT_READ, _WAKEUP)
        self._wakeup_pending = False  # a wake-up byte is on its way and not yet read
        self._running = True
        self._connection_index = 0
        self._throttled: dict[str, KafkaChannel] = {}  # muted past their response until throttled_until_ms
        self.idle_time_ns = 0  # time spent waiting in select: NetworkProcessorAvgIdlePercent
        # Kafka's socket-server-metrics of this processor: connection-creation-total, connection-close-total
        self.connections_created = 0
        self.connections_closed = 0  # an idle connection closed counts here too, as in Kafka's Selector
        self.log = structlog.get_logger("kafka.network.Processor").bind(listener=listener, processor=processor_id)
        self.channel_builder = channel_builder or PlaintextChannelBuilder()
        self.repeated_errors = repeated_errors or RepeatedErrorLog(self.log, time)
        self._buffered_reads: dict[str, KafkaChannel] = {}  # TLS bytes decrypted but not yet read
        # Kafka's Selector: successful-authentication-total, failed-authentication-total (TLS handshakes here)
        self.successful_authentications = 0
        self.failed_authentications = 0
        self.failed_authentication_delay_ms = failed_authentication_delay_ms
        self._delayed_closes: dict[str, tuple[float, KafkaChannel, object]] = {}  # id -> (deadline, channel, answer)

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
        """Make the loop come out of select() and look at its queues (Kafka's Selector.wakeup).

        One byte is enough however many responses were queued before the loop reads it: under load
        the produce response and the fetch it completed share a single wake-up."""
        if self._wakeup_pending:
            return
        self._wakeup_pending = True
        try:
            self._wakeup_w.send(b"\x00")
        except (BlockingIOError, OSError):
            pass  # the pipe is full of wake-ups, or we are closing: either way the loop will run

    @property
    def response_queue_size(self) -> int:
        return self._responses.qsize()

    def shutdown(self) -> None:
        self._running = False
        self.wakeup()

    # ------------------------------------------------------------------ the loop
    def run(self) -> None:
        try:
            while self._running:
                self.configure_new_connections()
                self.process_new_responses()
                self.poll()
                self.close_idle_connections()
                self.unmute_if_memory_available()
                self.unmute_throttled_channels()
                self.complete_delayed_closes()
        finally:
            for channel in list(self.channels.values()):
                self.close_channel(channel, "broker shutting down")
            self._selector.close()
            self._wakeup_r.close()
            self._wakeup_w.close()

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
                channel = self.channel_builder.build_channel(connection_id, sock, ip, self.max_request_size,
                                                             self.memory_pool)
            except OSError as e:
                sock.close()
                self.connection_quotas.dec(self.listener, ip)
                self.log.info("connection dropped before its channel was built", error=str(e))
                continue
            self.channels[connection_id] = channel
            self.connections_created += 1
            if self.idle_expiry is not None:
                self.idle_expiry.update(connection_id)
            self._update_interest(channel)

    def process_new_responses(self) -> None:
        while True:
            try:
                response = self._responses.get_nowait()
            except queue.Empty:
                return
            response.request.response_dequeue_time_ns = response.request.mark("taken by network thread")
            channel = self.channels.get(response.request.connection_id)
            if channel is None:  # the client disconnected while its request was being handled
                release(response.payload)
                continue
            if response.request.throttle_time_ms > 0:
                channel.throttle(self.time.hi_res_clock_ms() + response.request.throttle_time_ms)
            if response.close_connection:
                self.close_channel(channel, "closed by the request handler")
            elif response.is_no_op:
                self.complete_in_flight(channel)
            else:
                self.send_response(channel, response.payload)

    def poll(self) -> None:
        started = self.time.nanoseconds()
        ready = self._selector.select(self._poll_timeout_s())
        self.idle_time_ns += self.time.nanoseconds() - started
        for key, events in ready:
            if key.data is _WAKEUP:
                self._drain_wakeups()
                continue
            channel: KafkaChannel = key.data
            if not channel.transport.ready:
                self.prepare(channel)
                continue
            if events & selectors.EVENT_WRITE and channel.has_send:
                self.write(channel)
            if events & selectors.EVENT_READ and channel.id in self.channels:
                if channel.muted or channel.muted_for_memory:  # sent ahead of our response: stop watching
                    self._update_interest(channel)
                else:
                    self.read(channel)
        self.read_buffered()

    # ------------------------------------------------------------------ the TLS handshake
    def prepare(self, channel: KafkaChannel) -> None:
        """One step of the channel's handshake, as far as its socket allows (Kafka's KafkaChannel.prepare)."""
        try:
            interest = channel.prepare()
        except SslAuthenticationError as e:
            self.failed_authentications += 1
            self.close_channel(channel, str(e), repeated_key=("handshake", type(e.__cause__).__name__))
            return
        except OSError as e:  # reset or hung up mid-handshake: a disconnect, not a failed authentication
            self.close_channel(channel, f"closed by the client during the TLS handshake ({e})")
            return
        if self.idle_expiry is not None:
            self.idle_expiry.update(channel.id)
        if interest:
            self._update_interest(channel, interest)
            return
        if channel.authenticator is None:  # SASL_SSL: authenticated once SASL is done too
            self.successful_authentications += 1
        self.log.info("TLS handshake done", connection=channel.id, principal=str(channel.principal),
                      protocol=getattr(channel.transport, "protocol", None))
        self._update_interest(channel)

    def read_buffered(self) -> None:
        """Read the channels OpenSSL holds decrypted bytes for: select would not wake us for them."""
        if not self._buffered_reads:
            return
        channels, self._buffered_reads = list(self._buffered_reads.values()), {}
        for channel in channels:
            if channel.id in self.channels and not (channel.muted or channel.muted_for_memory):
                self.read(channel)

    def _note_buffered(self, channel: KafkaChannel) -> None:
        if channel.has_bytes_buffered():
            self._buffered_reads[channel.id] = channel

    # ------------------------------------------------------------------ reading requests
    def read(self, channel: KafkaChannel) -> None:
        try:
            open_ = channel.read_from_socket()
        except InvalidReceiveError as e:
            if e.looks_like_tls:  # a TLS client on a PLAINTEXT listener
                self.close_channel(channel, f"{e}: the client speaks TLS to a PLAINTEXT listener "
                                            "(see listener.security.protocol.map)", repeated_key="tls-on-plaintext")
            else:
                self.close_channel(channel, str(e))
            return
        except OSError as e:
            self.close_channel(channel, f"read failed: {e}")
            return
        if not open_:
            self.close_channel(channel, "closed by the client")
            return
        if self.idle_expiry is not None:
            self.idle_expiry.update(channel.id)
        if channel.receive.waiting_for_memory:
            self.mute_for_memory(channel)
            return
        payload = channel.completed_receive()
        if payload is not None and channel.authenticating:
            self.authenticate(channel, payload)
        elif payload is not None:
            self.dispatch_request(channel, payload)
        elif not channel.muted:
            self._note_buffered(channel)

    # ------------------------------------------------------------------ SASL
    def authenticate(self, channel: KafkaChannel, payload) -> None:
        """One frame of a SASL exchange: handed on (ApiVersions), answered, or failed."""
        result = channel.authenticator.authenticate(memoryview(payload))
        if result.forward:
            self.dispatch_request(channel, payload)
            return
        self.memory_pool.release(payload)
        if result.failure is not None:
            self.fail_authentication(channel, result.failure, result.response)
            return
        if channel.authenticator.complete:
            channel.complete_authentication()
            self.successful_authentications += 1
            self.log.info("SASL authentication done", connection=channel.id, principal=str(channel.principal),
                          mechanism=channel.authenticator.mechanism)
        self.mute(channel)
        self.send_response(channel, result.response)

    def fail_authentication(self, channel: KafkaChannel, reason: str, response) -> None:
        """Count, log once per interval per user and address, then answer and close after the delay."""
        self.failed_authentications += 1
        user = channel.authenticator.attempted_user
        self.repeated_errors.log("info", "Failed authentication", key=(self.listener, "sasl", channel.remote_address,
                                                                        user),
                                 address=channel.remote_address, principal=f"User:{user}" if user else None,
                                 mechanism=channel.authenticator.mechanism, connection=channel.id, reason=reason)
        self.mute(channel)
        deadline = self.time.hi_res_clock_ms() + self.failed_authentication_delay_ms
        self._delayed_closes[channel.id] = (deadline, channel, response)
        self._update_interest(channel)

    def complete_delayed_closes(self) -> None:
        """The delay of a failed authentication is over: send its answer (if any), then close."""
        if not self._delayed_closes:
            return
        now = self.time.hi_res_clock_ms()
        for channel_id, (deadline, channel, response) in list(self._delayed_closes.items()):
            if deadline > now:
                continue
            del self._delayed_closes[channel_id]
            if channel.id not in self.channels:
                continue
            if response is None:
                self.close_channel(channel, "failed authentication", log_level="debug")
                continue
            channel.close_after_send = True
            self.send_response(channel, response)

    def dispatch_request(self, channel: KafkaChannel, payload) -> None:
        """Turn a complete frame into a Request for the I/O threads, then mute the channel. From
        here the I/O thread that handles it gives the frame's memory back to the pool."""
        frame = memoryview(payload).toreadonly()
        try:
            header = parse_request_header(frame)
        except Exception as e:  # garbage where a header should be: this connection only
            self.memory_pool.release(payload)
            self.close_channel(channel, f"malformed request header: {e}")
            return
        if not self._is_answerable(header):
            self.memory_pool.release(payload)
            self.close_channel(channel, f"unsupported request api_key={header.api_key} "
                                        f"version={header.api_version}")
            return
        request = Request(self.id, channel.id, self.listener, channel.remote_address, header, frame,
                          principal=channel.principal, memory_pool=self.memory_pool, pooled_buffer=payload)
        self.mute(channel)
        channel.in_flight = request
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

    # ------------------------------------------------------------------ writing responses
    def send_response(self, channel: KafkaChannel, payload: bytes) -> None:
        channel.set_send(payload)
        self.write(channel)  # most responses fit the socket buffer: skip a select round trip

    def write(self, channel: KafkaChannel) -> None:
        try:
            done = channel.write_to_socket()
        except OSError as e:
            self.close_channel(channel, f"write failed: {e}")
            return
        if self.idle_expiry is not None:
            self.idle_expiry.update(channel.id)
        if done:
            self.complete_in_flight(channel)
        else:
            self._update_interest(channel)

    def complete_in_flight(self, channel: KafkaChannel) -> None:
        """The response is out (or there was none): unmute, so the selector hands us the next request."""
        if channel.close_after_send:  # the answer to a failed authentication
            self.close_channel(channel, "failed authentication", log_level="debug")
            return
        if channel.in_flight is not None:
            request, channel.in_flight = channel.in_flight, None
            request.response_sent_time_ns = request.mark("response sent")
            self.request_channel.update_request_metrics(request)
        if channel.is_throttled(self.time.hi_res_clock_ms()):  # over its quota: stays muted (KIP-219)
            self._throttled[channel.id] = channel
            return
        self.unmute(channel)

    # ------------------------------------------------------------------ throttled channels (KIP-219)
    def unmute_throttled_channels(self) -> None:
        """Channels whose throttle time has passed take requests again (Kafka's THROTTLE_ENDED)."""
        if not self._throttled:
            return
        now = self.time.hi_res_clock_ms()
        for channel in [c for c in self._throttled.values() if not c.is_throttled(now)]:
            del self._throttled[channel.id]
            if channel.id in self.channels:
                self.unmute(channel)  # the selector hands us its next request

    def _poll_timeout_s(self) -> float:
        """Wake up for the first throttle (or delayed close) deadline if it comes before the usual poll
        timeout; do not wait at all while OpenSSL holds bytes of a channel that select cannot see."""
        if self._buffered_reads:
            return 0.0
        if not self._throttled and not self._delayed_closes:
            return POLL_TIMEOUT_S
        first = min([c.throttled_until_ms for c in self._throttled.values()]
                    + [deadline for deadline, _, _ in self._delayed_closes.values()])
        return min(POLL_TIMEOUT_S, max(0.0, (first - self.time.hi_res_clock_ms()) / 1000))

    # ------------------------------------------------------------------ mute / interest / close
    def mute(self, channel: KafkaChannel) -> None:
        """No more requests from this connection until its response is sent (one in flight).

        Kafka removes OP_READ at once. We stop reading now but tell the selector only if the client
        does send more meanwhile (poll finds a muted channel readable): a client that waits for each
        response, the usual case, then costs no selector calls per request at all."""
        channel.muted = True

    def unmute(self, channel: KafkaChannel) -> None:
        channel.muted = False
        self._update_interest(channel)
        self._note_buffered(channel)

    def mute_for_memory(self, channel: KafkaChannel) -> None:
        """The pool had no buffer for this channel's next frame: stop reading it (Kafka's Selector
        mutes it the same way) until the pool has memory again."""
        channel.muted_for_memory = True
        self._muted_for_memory[channel.id] = channel
        self._update_interest(channel)

    def unmute_if_memory_available(self) -> None:
        """Once handled requests have given memory back, read the connections muted for it again."""
        if not self._muted_for_memory or self.memory_pool.is_out_of_memory:
            return
        channels, self._muted_for_memory = list(self._muted_for_memory.values()), {}
        for channel in channels:
            channel.muted_for_memory = False
            if channel.id in self.channels:
                self.read(channel)  # its size is known: try the allocation now
                self._update_interest(channel)

    def close_idle_connections(self) -> None:
        """Close the connections silent for longer than connections.max.idle.ms."""
        if self.idle_expiry is None:
            return
        for connection_id in self.idle_expiry.poll_expired_connections():
            channel = self.channels.get(connection_id)
            if channel is not None:
                self.close_channel(channel, "idle for longer than connections.max.idle.ms", log_level="info")

    def _update_interest(self, channel: KafkaChannel, handshake_interest: int = 0) -> None:
        """`handshake_interest`: the one event a handshake in progress waits for."""
        if channel.id not in self.channels:
            return
        if handshake_interest:
            events = handshake_interest
        else:
            events = 0 if channel.muted or channel.muted_for_memory else selectors.EVENT_READ
            if channel.has_send:
                events |= selectors.EVENT_WRITE
        if events == channel.interest:
            return  # the common case: nothing for the selector to change
        # A muted connection with nothing to send is not watched at all.
        if not events:
            self._selector.unregister(channel.socket)
        elif not channel.interest:
            self._selector.register(channel.socket, events, channel)
        else:
            self._selector.modify(channel.socket, events, channel)
        channel.interest = events

    def close_channel(self, channel: KafkaChannel, reason: str, log_level: str = "warning",
                      repeated_key: object = None) -> None:
        """`repeated_key`: a failure a client may repeat without end (a handshake that fails, TLS
        on a plain port) is logged once per interval under this key, with a count of the rest."""
        if self.channels.pop(channel.id, None) is None:
            return
        self.connections_closed += 1
        self.connection_quotas.dec(self.listener, channel.remote_address)
        self.request_channel.connection_disconnected(channel.id)
        self._muted_for_memory.pop(channel.id, None)
        self._throttled.pop(channel.id, None)
        self._buffered_reads.pop(channel.id, None)
        self._delayed_closes.pop(channel.id, None)
        if self.idle_expiry is not None:
            self.idle_expiry.remove(channel.id)
        if channel.interest:
            try:
                self._selector.unregister(channel.socket)
            except (KeyError, ValueError):  # a socket that already failed: close it all the same
                pass
            channel.interest = 0
        channel.close()
        self.log.debug("connection closed", connection=channel.id, reason=reason)
        if repeated_key is not None:
            self.repeated_errors.log(log_level, "closing connection", key=(self.listener, repeated_key),
                                     connection=channel.id, reason=reason)
        elif "closed by the client" not in reason and "shutting down" not in reason:
            getattr(self.log, log_level)("closing connection", connection=channel.id, reason=reason)

    def _drain_wakeups(self) -> None:
        # Read first, then clear. A wakeup() that comes between the two sends nothing, but its
        # response is already queued, and the loop looks at the queues after this. Cleared first,
        # a byte sent in between could be read here and leave the flag set with the pipe empty:
        # every later wakeup() would then be skipped and responses would wait out select's timeout.
        try:
            self._wakeup_r.recv(4096)
        except (BlockingIOError, OSError):
            pass
        self._wakeup_pending = False
