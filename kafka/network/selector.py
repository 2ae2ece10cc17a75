"""Selector: non-blocking I/O over many connections (Kafka's org.apache.kafka.common.network.Selector).

One `selectors` loop over the KafkaChannels it was given (`register`). Each `poll` waits for the
sockets that are ready, then goes on with each channel as far as its socket allows: the TLS handshake
(`prepare`), a SASL exchange (`authenticate`), reading towards the next frame (`attempt_read`),
writing the send under way (`write`). What came of it waits for the caller in three collections,
which the caller empties:

    completed_receives   connection id -> the NetworkReceive of a whole frame (a receive's payload
                         belongs to whoever takes it: it is MemoryPool memory)
    completed_sends      the connections whose send has gone out to the last byte
    disconnected         connection id -> remote address of each connection the Selector closed
                         itself: closed by the peer, a bad frame, a failed handshake or login,
                         silent for connections.max.idle.ms (IdleExpiryManager)

A frame is bytes to the Selector; it never learns which request a frame was, or that there is a
RequestChannel (that is the Processor's side, kafka/network/processor.py). `mute` stops a channel
being read, `unmute` lets it be read again. A channel also mutes itself for memory when the
MemoryPool has no buffer for its next frame, and is read again once the pool has memory.

A muted channel stays registered for reads until it turns out to be readable (the client sent more
before our answer): only then does the selector stop watching it. A client that waits for each
response, the usual case, so costs no selector calls per request at all. Kafka removes the read
interest at once.

A TLS transport may hold bytes the selector cannot see (records already off the socket, decrypted
or not); such channels are read again without waiting for select (Kafka's keysWithBufferedRead),
right after the handshake too, since a client's first request often comes with its last handshake
bytes. On a SASL listener a channel's frames go to its
SaslServerAuthenticator, never to `completed_receives`, until it is authenticated, except an
ApiVersions before the handshake (the Processor answers it like any request). A failed login is
counted, logged once per interval with the user and address, answered after
connection.failed.authentication.delay.ms (a client guessing passwords gets one guess per delay per
connection) and closed (Kafka's DelayedAuthenticationFailureClose).
"""

from __future__ import annotations

import selectors
import socket
from typing import Any

from kafka.network.channel_builder import ChannelBuilder
from kafka.network.idle_expiry_manager import IdleExpiryManager
from kafka.network.kafka_channel import InvalidReceiveError, KafkaChannel
from kafka.network.memory_pool import MemoryPool
from kafka.network.network_receive import NetworkReceive
from kafka.security.ssl_transport_layer import SslAuthenticationError
from kafka.utils.repeated_error_log import RepeatedErrorLog
from kafka.utils.time import Time

_WAKEUP = object()


class Selector:
    def __init__(self, max_receive_size: int, connections_max_idle_ms: int,
                 failed_authentication_delay_ms: int,
                 time: Time, channel_builder: ChannelBuilder, memory_pool: MemoryPool, log: Any,
                 repeated_errors: RepeatedErrorLog) -> None:
        self.max_receive_size = max_receive_size
        self.time = time
        self.channel_builder = channel_builder
        self.memory_pool = memory_pool
        self.failed_authentication_delay_ms = failed_authentication_delay_ms
        self.log = log
        self.repeated_errors = repeated_errors
        # connections.max.idle.ms < 0 turns idle expiry off, as in Kafka's Selector
        self.idle_expiry = IdleExpiryManager(connections_max_idle_ms,
                                             time) if connections_max_idle_ms >= 0 else None
        self.channels: dict[str, KafkaChannel] = {}
        self.completed_receives: dict[str, NetworkReceive] = {}
        self.completed_sends: list[str] = []
        self.disconnected: dict[str, str] = {}
        self._selector = selectors.DefaultSelector()
        self._wakeup_r, self._wakeup_w = socket.socketpair()
        self._wakeup_r.setblocking(False)
        self._wakeup_w.setblocking(False)
        self._selector.register(self._wakeup_r, selectors.EVENT_READ, _WAKEUP)
        self._wakeup_pending = False  # a wake-up byte is on its way and not yet read
        self._muted_for_memory: dict[str, KafkaChannel] = {}
        self._buffered_reads: dict[str, KafkaChannel] = {}  # TLS bytes off the socket but not yet read
        self._authentication_sends: set[str] = set()  # channels writing a SASL answer: read on once it is out
        # id -> (deadline, channel, answer)
        self._delayed_closes: dict[str, tuple[float, KafkaChannel, object]] = {}
        self.idle_time_ns = 0  # time spent waiting in select: NetworkProcessorAvgIdlePercent
        # Kafka's socket-server-metrics: connection-creation-total, connection-close-total (idle closes
        # included), successful-authentication-total, failed-authentication-total (TLS handshakes too)
        self.connections_created = 0
        self.connections_closed = 0
        self.successful_authentications = 0
        self.failed_authentications = 0

    # ------------------------------------------------------------------ connections in, sends out
    def register(self, connection_id: str, sock: socket.socket, remote_address: str) -> None:
        """Build the connection's channel with the listener's ChannelBuilder and watch it. Raises
        OSError when the socket is already unusable (the caller closes it)."""
        channel = self.channel_builder.build_channel(connection_id, sock, remote_address,
                                                     self.max_receive_size,
                                                     self.memory_pool)
        self.channels[connection_id] = channel
        self.connections_created += 1
        if self.idle_expiry is not None:
            self.idle_expiry.update(connection_id)
        self.update_interest(channel)

    def send(self, connection_id: str, payload) -> None:
        """Start writing `payload` (bytes, or a ResponseSend) to the connection. It is written at once
        as far as the socket takes it: most sends fit the socket buffer and complete here, without a
        select round trip; the rest go on in `poll`."""
        channel = self.channels[connection_id]
        channel.set_send(payload)
        self.write(channel)

    def channel(self, connection_id: str) -> KafkaChannel | None:
        return self.channels.get(connection_id)

    def wakeup(self) -> None:
        """Make `poll` come out of select() (Kafka's Selector.wakeup); safe from any thread.

        One byte is enough however many wake-ups come before the loop reads it: under load the
        produce response and the fetch it completed share a single wake-up."""
        if self._wakeup_pending:
            return
        self._wakeup_pending = True
        try:
            self._wakeup_w.send(b"\x00")
        except (BlockingIOError, OSError):
            pass  # the pipe is full of wake-ups, or we are closing: either way the loop will run

    # ------------------------------------------------------------------ the poll
    def poll(self, timeout_s: float) -> None:
        """Wait up to `timeout_s` for ready sockets (less while a delayed close is due; not at all
        while OpenSSL holds bytes select cannot see), then do each ready channel's I/O."""
        if self._muted_for_memory:
            self.unmute_if_memory_available()
        started = self.time.nanoseconds()
        ready = self._selector.select(self._poll_timeout_s(timeout_s))
        now_ns = self.time.nanoseconds()
        self.idle_time_ns += now_ns - started
        for key, events in ready:
            channel = key.data
            if channel is _WAKEUP:
                self._drain_wakeups()
                continue
            if not channel.transport.ready:
                self.prepare(channel)
                continue
            if events & selectors.EVENT_WRITE and channel.has_send:
                self.write(channel)
            if events & selectors.EVENT_READ and channel.id in self.channels:
                if channel.muted or channel.muted_for_memory:  # sent ahead of our answer: stop watching
                    self.update_interest(channel)
                else:
                    self.attempt_read(channel, now_ns)
        if self._buffered_reads:
            self.read_buffered()
        if self._delayed_closes:
            self.complete_delayed_channel_close()
        self.close_idle_connections()

    def _poll_timeout_s(self, timeout_s: float) -> float:
        if self._buffered_reads:
            return 0.0
        if not self._delayed_closes:
            return timeout_s
        first = min(deadline for deadline, _, _ in self._delayed_closes.values())
        return min(timeout_s, max(0.0, (first - self.time.hi_res_clock_ms()) / 1000))

    def _drain_wakeups(self) -> None:
        # Read first, then clear. A wakeup() that comes between the two sends nothing, but what it
        # woke us for is already queued, and the caller looks at its queues after this poll. Cleared
        # first, a byte sent in between could be read here and leave the flag set with the pipe empty:
        # every later wakeup() would then be skipped, and the loop would sleep out select's timeout.
        try:
            self._wakeup_r.recv(4096)
        except (BlockingIOError, OSError):
            pass
        self._wakeup_pending = False

    # ------------------------------------------------------------------ the TLS handshake
    def prepare(self, channel: KafkaChannel) -> None:
        """One step of the channel's handshake, as far as its socket allows (Kafka's KafkaChannel.prepare)."""
        try:
            interest = channel.prepare()
        except SslAuthenticationError as e:
            self.failed_authentications += 1
            self._close(channel, str(e), repeated_key=("handshake", type(e.__cause__).__name__))
            return
        except OSError as e:  # reset or hung up mid-handshake: a disconnect, not a failed authentication
            self._close(channel, f"closed by the client during the TLS handshake ({e})")
            return
        if self.idle_expiry is not None:
            self.idle_expiry.update(channel.id)
        if interest:
            self.update_interest(channel, interest)
            return
        if channel.authenticator is None:  # SASL_SSL: authenticated once SASL is done too
            self.successful_authentications += 1
        self.log.info("TLS handshake done", connection=channel.id, principal=str(channel.principal),
                      protocol=getattr(channel.transport, "protocol", None))
        self.update_interest(channel)
        self._note_buffered(channel)  # the client's first request may have come with its Finished

    def read_buffered(self) -> None:
        """Read the channels OpenSSL holds decrypted bytes for: select would not wake us for them."""
        channels, self._buffered_reads = list(self._buffered_reads.values()), {}
        for channel in channels:
            if self._readable(channel):
                self.attempt_read(channel)

    def _readable(self, channel: KafkaChannel) -> bool:
        """Open, not muted, and its last frame taken (one complete receive per channel at a time)."""
        return (channel.id in self.channels and not (channel.muted or channel.muted_for_memory)
                and channel.id not in self.completed_receives)

    def _note_buffered(self, channel: KafkaChannel) -> None:
        if channel.has_bytes_buffered():
            self._buffered_reads[channel.id] = channel

    # ------------------------------------------------------------------ reading frames
    def attempt_read(self, channel: KafkaChannel, now_ns: int | None = None) -> None:
        """Read towards the channel's next frame; a whole one goes to `completed_receives` (or, while
        the channel is logging in, to its authenticator)."""
        try:
            open_ = channel.read_from_socket()
        except InvalidReceiveError as e:
            if e.looks_like_tls:  # a TLS client on a PLAINTEXT listener
                self._close(channel, f"{e}: the client speaks TLS to a PLAINTEXT listener "
                                     "(see listener.security.protocol.map)", repeated_key="tls-on-plaintext")
            else:
                self._close(channel, str(e))
            return
        except OSError as e:
            self._close(channel, f"read failed: {e}")
            return
        if not open_:
            self._close(channel, "closed by the client")
            return
        if self.idle_expiry is not None:
            self.idle_expiry.update(channel.id, now_ns)
        if channel.receive.waiting_for_memory:
            self.mute_for_memory(channel)
            return
        receive = channel.maybe_complete_receive()
        if receive is None:
            if not channel.muted:
                self._note_buffered(channel)
        elif channel.authenticating:
            self.authenticate(channel, receive)
        else:
            self.completed_receives[channel.id] = receive

    # ------------------------------------------------------------------ SASL
    def authenticate(self, channel: KafkaChannel, receive: NetworkReceive) -> None:
        """One frame of a SASL exchange: handed on (ApiVersions), answered, or failed."""
        payload = receive.payload
        result = channel.authenticator.authenticate(memoryview(payload))
        if result.forward:
            self.completed_receives[channel.id] = receive
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
        self.mute(channel.id)  # the next frame is read once this answer is out
        self._authentication_sends.add(channel.id)
        self.send(channel.id, result.response)

    def fail_authentication(self, channel: KafkaChannel, reason: str, response) -> None:
        """Count, log once per interval per user and address, then answer and close after the delay."""
        self.failed_authentications += 1
        user = channel.authenticator.attempted_user
        self.repeated_errors.log("info", "Failed authentication", key=("sasl", channel.remote_address, user),
                                 address=channel.remote_address, principal=f"User:{user}" if user else None,
                                 mechanism=channel.authenticator.mechanism, connection=channel.id,
                                 reason=reason)
        self.mute(channel.id)
        deadline = self.time.hi_res_clock_ms() + self.failed_authentication_delay_ms
        self._delayed_closes[channel.id] = (deadline, channel, response)
        self.update_interest(channel)

    def complete_delayed_channel_close(self) -> None:
        """The delay of a failed authentication is over: send its answer (if any), then close."""
        now = self.time.hi_res_clock_ms()
        for channel_id, (deadline, channel, response) in list(self._delayed_closes.items()):
            if deadline > now:
                continue
            del self._delayed_closes[channel_id]
            if channel.id not in self.channels:
                continue
            if response is None:
                self._close(channel, "failed authentication", log_level="debug")
                continue
            channel.close_after_send = True
            self.send(channel.id, response)

    # ------------------------------------------------------------------ writing
    def write(self, channel: KafkaChannel) -> None:
        try:
            done = channel.write_to_socket()
        except OSError as e:
            self._close(channel, f"write failed: {e}")
            return
        if self.idle_expiry is not None:
            self.idle_expiry.update(channel.id)
        if not done:
            self.update_interest(channel)  # the socket is full: watch for it to drain
        elif channel.close_after_send:  # the answer to a failed authentication
            self._close(channel, "failed authentication", log_level="debug")
        elif channel.id in self._authentication_sends:  # a SASL answer: read the client's next step
            self._authentication_sends.discard(channel.id)
            self.unmute(channel.id)
        else:
            self.completed_sends.append(channel.id)
            if channel.interest & selectors.EVENT_WRITE:
                self.update_interest(channel)

    # ------------------------------------------------------------------ mute / interest
    def mute(self, connection_id: str) -> None:
        """Read nothing more from this connection until `unmute`. The selector is told only if the
        client does send more meanwhile (`poll` finds a muted channel readable)."""
        self.channels[connection_id].muted = True

    def unmute(self, connection_id: str) -> None:
        channel = self.channels[connection_id]
        channel.muted = False
        self.update_interest(channel)
        self._note_buffered(channel)

    def mute_for_memory(self, channel: KafkaChannel) -> None:
        """The pool had no buffer for this channel's next frame: stop reading it (Kafka's channel mutes
        itself the same way) until the pool has memory again."""
        channel.muted_for_memory = True
        self._muted_for_memory[channel.id] = channel
        self.update_interest(channel)

    def unmute_if_memory_available(self) -> None:
        """Once handled requests have given memory back, read the connections muted for it again."""
        if self.memory_pool.is_out_of_memory:
            return
        channels, self._muted_for_memory = list(self._muted_for_memory.values()), {}
        for channel in channels:
            channel.muted_for_memory = False
            if channel.id in self.channels:
                if self._readable(channel):
                    self.attempt_read(channel)  # its size is known: try the allocation now
                self.update_interest(channel)

    def update_interest(self, channel: KafkaChannel, handshake_interest: int = 0) -> None:
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

    # ------------------------------------------------------------------ closing
    def close_idle_connections(self) -> None:
        """Close the connections silent for longer than connections.max.idle.ms."""
        if self.idle_expiry is None:
            return
        for connection_id in self.idle_expiry.poll_expired_connections():
            channel = self.channels.get(connection_id)
            if channel is not None:
                self._close(channel, "idle for longer than connections.max.idle.ms", log_level="info")

    def lowest_priority_channel(self) -> KafkaChannel | None:
        """The channel to close first when the broker has too many: the one silent longest (Kafka's
        lowestPriorityChannel)."""
        oldest = self.idle_expiry.oldest() if self.idle_expiry is not None else None
        if oldest is not None and oldest in self.channels:
            return self.channels[oldest]
        return next(iter(self.channels.values()), None)

    def close(self, connection_id: str) -> None:
        """The caller closes a connection: it is not reported in `disconnected` (as in Kafka)."""
        channel = self.channels.get(connection_id)
        if channel is not None:
            self._close(channel, None, notify=False)

    def _close(self, channel: KafkaChannel, reason: str | None, log_level: str = "warning",
               repeated_key: object = None, notify: bool = True) -> None:
        """`repeated_key`: a failure a client may repeat without end (a handshake that fails, TLS
        on a plain port) is logged once per interval under this key, with a count of the rest."""
        if self.channels.pop(channel.id, None) is None:
            return
        self.connections_closed += 1
        self._muted_for_memory.pop(channel.id, None)
        self._buffered_reads.pop(channel.id, None)
        self._delayed_closes.pop(channel.id, None)
        self._authentication_sends.discard(channel.id)
        receive = self.completed_receives.pop(channel.id, None)
        if receive is not None:  # read but not taken: its pool memory goes back
            self.memory_pool.release(receive.payload)
        if self.idle_expiry is not None:
            self.idle_expiry.remove(channel.id)
        if channel.interest:
            try:
                self._selector.unregister(channel.socket)
            except (KeyError, ValueError):  # a socket that already failed: close it all the same
                pass
            channel.interest = 0
        channel.close()
        if notify:
            self.disconnected[channel.id] = channel.remote_address
        if reason is None:
            return
        self.log.debug("connection closed", connection=channel.id, reason=reason)
        if repeated_key is not None:
            self.repeated_errors.log(log_level, "closing connection", key=repeated_key, connection=channel.id,
                                     reason=reason)
        elif "closed by the client" not in reason:
            getattr(self.log, log_level)("closing connection", connection=channel.id, reason=reason)

    def close_all(self) -> None:
        """Close every connection, then the selector itself (Kafka's Selector.close)."""
        for channel in list(self.channels.values()):
            self._close(channel, None, notify=False)
        self._selector.close()
        self._wakeup_r.close()
        self._wakeup_w.close()
