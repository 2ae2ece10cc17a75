"""NetworkClient: one connection per broker, requests in order, metadata first
(Kafka's clients.NetworkClient).

Seed 003 is this file: "The connection to the broker is initiated inside poll() method which is
responsible for all writes and reads. Generally, the connection is opened only once, when the
first request is sent." Each connection starts with an ApiVersions exchange, and from then on
every request goes out at the highest version both sides speak. Sent requests wait in
InFlightRequests, one queue per node, and the next response on a connection always answers the
oldest request on its queue. And "if metadata needs to be updated, other requests than metadata
one are put in pending state until the metadata refresh is done": ``is_ready`` says no to every
node while a refresh is due, and ``poll`` sends the Metadata request first.

Callers ``send`` a ClientRequest (it waits in an unsent queue until its node is ready) and call
``poll``, which does all the socket work and runs the callbacks of the responses that came in.
One lock makes it safe to share between a consumer's application and heartbeat threads.

With security.protocol SASL_PLAINTEXT or SASL_SSL a connection logs in after ApiVersions and before
it is ready: SaslHandshake(sasl.mechanism), then SaslAuthenticate until the SaslClientAuthenticator
is satisfied (PLAIN, SCRAM-SHA-256/512; credentials from sasl.jaas.config). A refused login closes
the connection, logged, and the node is tried again after the reconnect backoff.
"""

from __future__ import annotations

import itertools
import selectors
import socket
import threading
from collections import deque
from concurrent.futures import Future
from typing import Any

import structlog

from kafka.clients.client_config import ClientConfig
from kafka.clients.client_request import ClientRequest, ClientResponse
from kafka.clients.cluster_connection_states import ClusterConnectionStates, ConnectionState
from kafka.clients.errors import ConfigError, DisconnectError, KafkaError, KafkaTimeoutError
from kafka.clients.in_flight_requests import InFlightRequests
from kafka.clients.kafka_channel import KafkaChannel
from kafka.clients.metadata import Metadata, Node
from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.errors import Errors, ProtocolDecodeError, ProtocolEncodeError
from kafka.protocol.header import decode_response, encode_request
from kafka.security.sasl_authentication_exception import SaslAuthenticationException
from kafka.security.sasl_client_authenticator import SaslClientAuthenticator
from kafka.security.security_protocol import SecurityProtocol
from kafka.security.ssl_factory import SSL_DEFAULTS, SslConfigError, SslFactory
from kafka.security.ssl_transport_layer import SslAuthenticationError
from kafka.utils.time import Time

log = structlog.get_logger("kafka.clients.NetworkClient")

CLIENT_SOFTWARE_NAME = "kafka-teaching-python"
CLIENT_SOFTWARE_VERSION = "0.1.0"
_MAX_POLL_MS = 2**31 - 1


class NetworkClient:
    def __init__(self, metadata: Metadata, config: ClientConfig, time: Time,
                 allow_auto_topic_creation: bool = True) -> None:
        self.metadata = metadata
        self.time = time
        self.client_id = config["client.id"]
        self.request_timeout_ms = config["request.timeout.ms"]
        self.connection_setup_timeout_ms = config["socket.connection.setup.timeout.ms"]
        self.reconnect_backoff_ms = config["reconnect.backoff.ms"]
        self.allow_auto_topic_creation = allow_auto_topic_creation
        self.connection_states = ClusterConnectionStates(config["reconnect.backoff.ms"],
                                                         config["reconnect.backoff.max.ms"])
        self.in_flight_requests = InFlightRequests(config["max.in.flight.requests.per.connection"])
        self.api_versions: dict[int, dict[int, tuple[int, int]]] = {}  # node -> api key -> broker's range
        self.channels: dict[int, KafkaChannel] = {}
        self.selector = selectors.DefaultSelector()
        self._wakeup_r, self._wakeup_w = socket.socketpair()
        self._wakeup_r.setblocking(False)
        self._wakeup_w.setblocking(False)
        self.selector.register(self._wakeup_r, selectors.EVENT_READ, None)
        self._unsent: dict[int, deque[ClientRequest]] = {}
        self._completed: list[ClientResponse] = []
        self._correlation_ids = itertools.count(1)
        self._connect_started_ms: dict[int, int] = {}
        self._metadata_fetch_in_progress = False
        self._bootstrap_nodes: dict[int, Node] = {}
        self._extra_nodes: dict[int, Node] = {}  # e.g. the group coordinator's own connection
        self._lock = threading.RLock()
        self._unsent_lock = threading.RLock()
        self._closed = False
        self._ssl_context = self._client_ssl_context(config)
        self._sasl = self._client_sasl(config)  # (sasl.mechanism, sasl.jaas.config) on a SASL protocol
        self._authenticators: dict[int, SaslClientAuthenticator] = {}
        self._bootstrap_servers = config["bootstrap.servers"]
        metadata.bootstrap(self._bootstrap_servers)
        self._bootstrap_nodes = dict(metadata.cluster.nodes)

    # ------------------------------------------------------------------ readiness
    def is_ready(self, node_id: int, now_ms: int) -> bool:
        """Seed 003's rule: while a metadata refresh is due, no node is ready for other requests."""
        return not self.metadata.is_update_due(now_ms) and self._can_send_request(node_id)

    def ready(self, node_id: int, now_ms: int) -> bool:
        """Like is_ready, but starts connecting to the node if we are not yet (and may)."""
        with self._lock:
            if self.is_ready(node_id, now_ms):
                return True
            if self.connection_states.can_connect(node_id, now_ms):
                self._initiate_connect(node_id, now_ms)
            return False

    def _can_send_request(self, node_id: int) -> bool:
        channel = self.channels.get(node_id)
        return (self.connection_states.is_ready(node_id) and channel is not None
                and self.in_flight_requests.can_send_more(node_id, channel.has_send))

    def connection_delay(self, node_id: int, now_ms: int) -> int:
        return self.connection_states.connection_delay(node_id, now_ms)

    def node(self, node_id: int) -> Node | None:
        return (self.metadata.cluster.nodes.get(node_id) or self._extra_nodes.get(node_id)
                or self._bootstrap_nodes.get(node_id))

    def register_node(self, node: Node) -> None:
        """Make a node known that metadata does not list (the coordinator's separate connection)."""
        self._extra_nodes[node.node_id] = node

    def least_loaded_node(self, now_ms: int) -> Node | None:
        """The node with the fewest requests in flight: where metadata and admin requests go.
        A connected node beats one we would have to connect to; a node in backoff is skipped."""
        nodes = list(self.metadata.cluster.nodes.values()) or list(self._bootstrap_nodes.values())
        best, best_load = None, None
        for node in nodes:
            state = self.connection_states.state(node.node_id)
            if state == ConnectionState.DISCONNECTED and not self.connection_states.can_connect(node.node_id,
                                                                                                now_ms):
                continue
            load = self.in_flight_requests.count(node.node_id) + (0 if state == ConnectionState.READY
                                                                  else 1000)
            if best_load is None or load < best_load:
                best, best_load = node, load
        return best

    # ------------------------------------------------------------------ sending
    def send(self, request: ClientRequest) -> Future:
        """Queue a request for its node; the returned future gets the ClientResponse."""
        future: Future = Future()
        user_callback = request.callback

        def complete(response: ClientResponse) -> None:
            if user_callback is not None:
                user_callback(response)
            if not future.done():
                future.set_result(response)

        request.callback = complete
        # Only the small unsent lock: a heartbeat thread must be able to queue its request while
        # the application thread sits in poll() holding the big lock; wakeup() then ends that poll.
        with self._unsent_lock:
            request.created_ms = self.time.hi_res_clock_ms()
            request.timeout_ms = request.timeout_ms or self.request_timeout_ms
            self._unsent.setdefault(request.node_id, deque()).append(request)
        self.wakeup()
        return future

    def _send_unsent(self, now_ms: int) -> None:
        with self._unsent_lock:
            for node_id, queue in list(self._unsent.items()):
                while queue and self.is_ready(node_id, now_ms):
                    self._do_send(queue.popleft(), now_ms)
                if queue and self.connection_states.can_connect(node_id, now_ms):
                    self._initiate_connect(node_id, now_ms)
                if not queue:
                    del self._unsent[node_id]

    def _do_send(self, request: ClientRequest, now_ms: int) -> None:
        try:
            request.version = self._choose_version(request)
        except KafkaError as e:
            self._completed.append(ClientResponse(request, received_ms=now_ms, error=e))
            return
        request.correlation_id = next(self._correlation_ids)
        request.send_time_ms = now_ms
        api = APIS[request.api_key]
        try:
            body = request.body(request.version) if callable(request.body) else request.body  # a Builder
            frame = encode_request(api, request.version, request.correlation_id, self.client_id, body)
        except ProtocolEncodeError as e:  # a bug in the caller's body: fail this request, not the client
            self._completed.append(ClientResponse(request, received_ms=now_ms,
                                                  error=KafkaError(Errors.INVALID_REQUEST, str(e))))
            return
        channel = self.channels[request.node_id]
        channel.send(frame, request)
        self.in_flight_requests.add(request)
        self._update_interest(channel)

    def _choose_version(self, request: ClientRequest) -> int:
        """The highest version both we and this broker speak (KIP-35)."""
        api = APIS[request.api_key]
        ours_max = min(api.max_version, request.max_version if request.max_version is not None
                       else api.max_version)
        if request.api_key == ApiKey.API_VERSIONS:
            return ours_max
        theirs = self.api_versions.get(request.node_id, {}).get(request.api_key)
        if theirs is None:
            raise KafkaError(Errors.UNSUPPORTED_VERSION,
                             f"node {request.node_id} does not support {api.name}")
        low, high = max(api.min_version, theirs[0]), min(ours_max, theirs[1])
        if low > high:
            raise KafkaError(Errors.UNSUPPORTED_VERSION,
                             f"{api.name}: we speak {api.min_version}-{ours_max}, "
                             f"node {request.node_id} speaks {theirs[0]}-{theirs[1]}")
        return high

    # ------------------------------------------------------------------ connecting
    @staticmethod
    def _client_ssl_context(config: ClientConfig):
        """security.protocol=SSL: Kafka's client-side SslFactory from the ssl.* keys; PLAINTEXT: None."""
        try:
            protocol = SecurityProtocol.for_name(config["security.protocol"])
        except ValueError as e:
            raise ConfigError(f"configuration key 'security.protocol': {e}") from None
        if not protocol.uses_tls:
            return None
        try:
            return SslFactory({k: config.values.get(k) for k in SSL_DEFAULTS}, server_mode=False).context
        except SslConfigError as e:
            raise ConfigError(str(e)) from None

    @staticmethod
    def _client_sasl(config: ClientConfig) -> tuple[str, str] | None:
        if not SecurityProtocol.for_name(config["security.protocol"]).uses_sasl:
            return None
        try:
            SaslClientAuthenticator.from_configs(config["sasl.mechanism"], config["sasl.jaas.config"])
        except ValueError as e:
            raise ConfigError(f"configuration key 'sasl.mechanism' or 'sasl.jaas.config': {e}") from None
        return config["sasl.mechanism"], config["sasl.jaas.config"]

    def _initiate_connect(self, node_id: int, now_ms: int) -> None:
        node = self.node(node_id)
        if node is None:  # a broker that registered after our last metadata: ask again, as Kafka does
            self.metadata.request_update()
            return
        self.connection_states.connecting(node_id, now_ms)
        channel = KafkaChannel(node_id, node.host, node.port, self._ssl_context)
        try:
            connected = channel.connect()
        except OSError as e:
            log.info("connect failed", node=str(node), error=str(e))
            channel.close()
            self._fail_node(node_id, now_ms, f"connect to {node} failed: {e}")
            return
        self.channels[node_id] = channel
        self._connect_started_ms[node_id] = now_ms
        self.selector.register(channel.sock, selectors.EVENT_WRITE, channel)
        if connected:
            self._on_tcp_connected(channel, now_ms)

    def _on_tcp_connected(self, channel: KafkaChannel, now_ms: int) -> None:
        """TCP is up: over TLS the handshake comes first, as the selector allows."""
        self.selector.unregister(channel.sock)  # TLS wraps the socket in a new object
        try:
            channel.start_transport()
        except OSError as e:
            self._fail_node(channel.node_id, now_ms, f"connection to node {channel.node_id} lost: {e}")
            return
        self.selector.register(channel.sock, selectors.EVENT_WRITE, channel)
        self._continue_handshake(channel, now_ms)

    def _continue_handshake(self, channel: KafkaChannel, now_ms: int) -> None:
        try:
            interest = channel.handshake()
        except SslAuthenticationError as e:
            log.warning("TLS handshake with the broker failed", node=str(self.node(channel.node_id)),
                        error=str(e))
            self._fail_node(channel.node_id, now_ms, str(e))
            return
        except OSError as e:  # the broker hung up mid-handshake
            self._fail_node(channel.node_id, now_ms, f"connection to node {channel.node_id} lost: {e}")
            return
        if interest:
            self.selector.modify(channel.sock, interest, channel)
        else:
            self._on_connected(channel, now_ms)

    def _on_connected(self, channel: KafkaChannel, now_ms: int) -> None:
        """TCP is up: ask the broker which versions it speaks before anything else."""
        self._connect_started_ms.pop(channel.node_id, None)
        self.connection_states.checking_api_versions(channel.node_id)
        self._send_api_versions_request(channel.node_id, APIS[ApiKey.API_VERSIONS].max_version, now_ms)

    def _send_api_versions_request(self, node_id: int, version: int, now_ms: int) -> None:
        request = ClientRequest(node_id, ApiKey.API_VERSIONS,
                                {"client_software_name": CLIENT_SOFTWARE_NAME,
                                 "client_software_version": CLIENT_SOFTWARE_VERSION},
                                callback=self._handle_api_versions_response,
                                timeout_ms=self.request_timeout_ms, max_version=version)
        self._do_send(request, now_ms)

    def _handle_api_versions_response(self, response: ClientResponse) -> None:
        node_id = response.request.node_id
        body = response.body
        if response.disconnected or body is None:
            return
        if body.error_code == Errors.UNSUPPORTED_VERSION:
            # KIP-511: an older broker answered in v0 with the ApiVersions range it does speak.
            theirs = next((k for k in body.api_keys if k.api_key == ApiKey.API_VERSIONS), None)
            if theirs is not None and response.request.version > theirs.max_version:
                self._send_api_versions_request(node_id, theirs.max_version, self.time.hi_res_clock_ms())
                return
        if body.error_code != Errors.NONE:
            self._close_channel(node_id, self.time.hi_res_clock_ms(),
                                f"ApiVersions failed: {body.error_code}")
            return
        self.api_versions[node_id] = {k.api_key: (k.min_version, k.max_version) for k in body.api_keys}
        if self._sasl is not None and ApiKey.SASL_HANDSHAKE not in self.api_versions[node_id]:
            self._sasl_failed(node_id, "the broker does not offer SaslHandshake on this listener")
            return
        if self._sasl is not None:
            self._authenticators[node_id] = SaslClientAuthenticator.from_configs(*self._sasl)
            self._do_send(ClientRequest(node_id, ApiKey.SASL_HANDSHAKE, {"mechanism": self._sasl[0]},
                                        callback=self._handle_sasl_handshake_response,
                                        timeout_ms=self.request_timeout_ms), self.time.hi_res_clock_ms())
            return
        self.connection_states.ready(node_id)
        log.debug("connected", node=str(self.node(node_id)))

    # ------------------------------------------------------------------ SASL (SaslClientAuthenticator)
    def _handle_sasl_handshake_response(self, response: ClientResponse) -> None:
        node_id, body = response.request.node_id, response.body
        if response.disconnected or body is None:
            return
        if body.error_code != Errors.NONE:
            self._sasl_failed(node_id, f"SaslHandshake: {Errors(body.error_code).name} (the broker enables "
                                       f"{', '.join(body.mechanisms)})")
            return
        self._send_sasl_token(node_id, self._authenticators[node_id].first_token())

    def _send_sasl_token(self, node_id: int, token: bytes) -> None:
        self._do_send(ClientRequest(node_id, ApiKey.SASL_AUTHENTICATE, {"auth_bytes": token},
                                    callback=self._handle_sasl_authenticate_response,
                                    timeout_ms=self.request_timeout_ms), self.time.hi_res_clock_ms())

    def _handle_sasl_authenticate_response(self, response: ClientResponse) -> None:
        node_id, body = response.request.node_id, response.body
        if response.disconnected or body is None:
            return
        if body.error_code != Errors.NONE:
            self._sasl_failed(node_id, f"{Errors(body.error_code).name}: {body.error_message}")
            return
        try:
            token = self._authenticators[node_id].evaluate(bytes(body.auth_bytes))
        except SaslAuthenticationException as e:
            self._sasl_failed(node_id, str(e))
            return
        if token is not None:
            self._send_sasl_token(node_id, token)
            return
        self._authenticators.pop(node_id, None)
        self.connection_states.ready(node_id)
        log.debug("connected and authenticated", node=str(self.node(node_id)), mechanism=self._sasl[0])

    def _sasl_failed(self, node_id: int, reason: str) -> None:
        self._authenticators.pop(node_id, None)
        log.warning("SASL authentication with the broker failed", node=str(self.node(node_id)), reason=reason)
        self._close_channel(node_id, self.time.hi_res_clock_ms(), f"SASL authentication failed: {reason}")

    # ------------------------------------------------------------------ metadata first
    def _maybe_update_metadata(self, now_ms: int) -> int:
        """Send a Metadata request if one is due; returns how long poll may sleep for its sake."""
        wait = self.metadata.time_to_next_update(now_ms)
        if self._metadata_fetch_in_progress:
            return self.request_timeout_ms
        if wait > 0:
            return wait
        node = self.least_loaded_node(now_ms)
        if node is None:
            return self.reconnect_backoff_ms
        if self._can_send_request(node.node_id):
            topics = self.metadata.request_topics()
            body = {"topics": None if topics is None else [{"name": t} for t in topics],
                    "allow_auto_topic_creation": self.allow_auto_topic_creation}
            self._metadata_fetch_in_progress = True
            self._do_send(ClientRequest(node.node_id, ApiKey.METADATA, body,
                                        callback=self._handle_metadata_response,
                                        timeout_ms=self.request_timeout_ms), now_ms)
            return self.request_timeout_ms
        if self.connection_states.can_connect(node.node_id, now_ms):
            self._initiate_connect(node.node_id, now_ms)
        return self.reconnect_backoff_ms

    def _handle_metadata_response(self, response: ClientResponse) -> None:
        """As Java's DefaultMetadataUpdater: v13's top-level REBOOTSTRAP_REQUIRED (KIP-1102) starts again
        from bootstrap.servers; an answer without brokers (a request the broker failed whole) is ignored."""
        self._metadata_fetch_in_progress = False
        now_ms = self.time.hi_res_clock_ms()
        if response.body is not None and response.body.get("error_code") == Errors.REBOOTSTRAP_REQUIRED:
            log.info("Rebootstrap requested by server.")
            self.metadata.bootstrap(self._bootstrap_servers)
            self.metadata.request_update()
        elif response.body is None or not response.body.brokers:
            self.metadata.failed_update(now_ms)
        else:
            self.metadata.update(response.body, now_ms)

    # ------------------------------------------------------------------ poll
    def poll(self, timeout_ms: float) -> list[ClientResponse]:
        """Do the socket work: connect, send, receive; run callbacks; return the responses."""
        with self._lock:
            if self._closed:
                raise KafkaError(Errors.NETWORK_EXCEPTION, "client is closed")
            now_ms = self.time.hi_res_clock_ms()
            metadata_timeout = self._maybe_update_metadata(now_ms)
            self._send_unsent(now_ms)
            timeout = 0 if self._completed else max(0,
                                                    min(timeout_ms, metadata_timeout,
                                                        self.request_timeout_ms))
            for key, mask in self.selector.select(timeout / 1000):
                now_ms = self.time.hi_res_clock_ms()
                if key.data is None:
                    self._drain_wakeups()
                elif self.channels.get(key.data.node_id) is key.data:  # not closed earlier in this loop
                    self._handle_io(key.data, mask, now_ms)
            now_ms = self.time.hi_res_clock_ms()
            self._handle_timed_out_requests(now_ms)
            self._maybe_update_metadata(now_ms)
            self._send_unsent(now_ms)
            responses, self._completed = self._completed, []
            for response in responses:
                if response.request.callback is not None:
                    response.request.callback(response)
        return responses

    def _handle_io(self, channel: KafkaChannel, mask: int, now_ms: int) -> None:
        node_id = channel.node_id
        try:
            if self.connection_states.state(node_id) == ConnectionState.CONNECTING:
                if channel.transport is not None:  # the TLS handshake goes on
                    self._continue_handshake(channel, now_ms)
                elif mask & selectors.EVENT_WRITE:
                    try:
                        channel.finish_connect()
                    except OSError as e:
                        self._fail_node(node_id, now_ms, str(e))
                        return
                    self._on_tcp_connected(channel, now_ms)
                return
            if mask & selectors.EVENT_WRITE:
                for request in channel.write():
                    if not request.expect_response:  # acks=0: done once written
                        self.in_flight_requests.remove(request)
                        self._completed.append(ClientResponse(request, received_ms=now_ms))
            if mask & selectors.EVENT_READ:
                for frame in channel.read():
                    self._handle_completed_receive(node_id, frame, now_ms)
            self._update_interest(channel)
        except (OSError, ConnectionError, ProtocolDecodeError) as e:
            self._close_channel(node_id, now_ms, str(e))

    def _handle_completed_receive(self, node_id: int, frame: bytes, now_ms: int) -> None:
        request = self.in_flight_requests.complete_next(node_id)
        api = APIS[request.api_key]
        try:
            correlation_id, body = decode_response(api, request.version, frame)
        except ProtocolDecodeError:
            if request.api_key != ApiKey.API_VERSIONS:
                raise
            # A broker that cannot speak our ApiVersions version answers in v0 (KIP-511).
            correlation_id, body = decode_response(api, 0, frame)
        if correlation_id != request.correlation_id:
            raise ConnectionError(f"correlation id {correlation_id} does not match request's "
                                  f"{request.correlation_id}: responses are out of order")
        self._completed.append(ClientResponse(request, body, received_ms=now_ms))

    def _update_interest(self, channel: KafkaChannel) -> None:
        if channel.sock is None or channel.sock.fileno() < 0:
            return
        events = selectors.EVENT_READ | (selectors.EVENT_WRITE if channel.has_send else 0)
        self.selector.modify(channel.sock, events, channel)

    def _drain_wakeups(self) -> None:
        try:
            while self._wakeup_r.recv(1024):
                pass
        except (BlockingIOError, InterruptedError):
            pass

    # ------------------------------------------------------------------ failures
    def _handle_timed_out_requests(self, now_ms: int) -> None:
        for node_id in self.in_flight_requests.timed_out_nodes(now_ms):
            self._close_channel(node_id, now_ms, "request timed out", timed_out=True)
        for node_id, started in list(self._connect_started_ms.items()):
            if now_ms - started > self.connection_setup_timeout_ms:
                self._close_channel(node_id, now_ms, "connection setup timed out")
        with self._unsent_lock:
            for queue in self._unsent.values():
                while queue and now_ms - queue[0].created_ms > queue[0].timeout_ms:
                    request = queue.popleft()
                    self._completed.append(ClientResponse(request, received_ms=now_ms, timed_out=True,
                                                          error=KafkaTimeoutError("request was not sent in "
                                                                                  "time")))

    def _close_channel(self, node_id: int, now_ms: int, reason: str, timed_out: bool = False) -> None:
        """A broken connection fails everything in flight on it; metadata may be stale, so refresh."""
        channel = self.channels.pop(node_id, None)
        if channel is not None:
            log.debug("disconnected", node=str(self.node(node_id)), reason=reason)
            try:
                self.selector.unregister(channel.sock)
            except (KeyError, ValueError):
                pass
            channel.close()
        self._connect_started_ms.pop(node_id, None)
        self._authenticators.pop(node_id, None)  # a login cut short starts again on the next connection
        self.connection_states.disconnected(node_id, now_ms)
        self.api_versions.pop(node_id, None)
        for request in self.in_flight_requests.clear_all(node_id):
            if request.api_key == ApiKey.METADATA:
                self._metadata_fetch_in_progress = False
                self.metadata.failed_update(now_ms)
            self._completed.append(ClientResponse(request, disconnected=True, timed_out=timed_out,
                                                  received_ms=now_ms, error=DisconnectError(reason)))
        self.metadata.request_update()

    def _fail_node(self, node_id: int, now_ms: int, reason: str) -> None:
        """A connect that failed outright: the requests waiting for this node fail too, so their
        owners can look up the leader again instead of waiting out the timeout."""
        self._close_channel(node_id, now_ms, reason)
        with self._unsent_lock:
            failed = self._unsent.pop(node_id, ())
        for request in failed:
            self._completed.append(ClientResponse(request, disconnected=True, received_ms=now_ms,
                                                  error=DisconnectError(reason)))

    # ------------------------------------------------------------------ conveniences
    def send_and_wait(self, node_id: int, api_key: int, body: dict[str, Any], timeout_ms: int,
                      max_version: int | None = None) -> ClientResponse:
        """Send one request and poll until it is answered: the admin client's and tools' way."""
        future = self.send(ClientRequest(node_id, api_key, body, max_version=max_version))
        self.poll_until(future.done, timeout_ms)
        if not future.done():
            api = APIS[api_key].name
            raise KafkaTimeoutError(f"{api} to node {node_id} took longer than {timeout_ms} ms")
        response = future.result()
        if response.error is not None:
            raise response.error
        return response

    def poll_until(self, done, timeout_ms: float) -> bool:
        """Poll until done() or the timeout; a timeout of 0 still does the socket work that is
        ready (one non-blocking poll), so a caller looping with poll(0) makes progress."""
        deadline = self.time.hi_res_clock_ms() + timeout_ms
        while not done():
            remaining = deadline - self.time.hi_res_clock_ms()
            self.poll(max(0, min(remaining, 100)))
            if remaining <= 0:
                return done()
        return True

    def await_metadata(self, timeout_ms: float) -> None:
        """Refresh the metadata now and wait for the answer."""
        version = self.metadata.request_update()
        if not self.poll_until(lambda: self.metadata.update_version > version, timeout_ms):
            raise KafkaTimeoutError(f"no metadata from {list(self._bootstrap_nodes.values())} within "
                                    f"{timeout_ms} ms")

    def has_pending(self) -> bool:
        with self._unsent_lock:
            return bool(self.in_flight_requests.count()) or any(self._unsent.values())

    def try_poll(self, timeout_ms: float) -> bool:
        """Poll only if no other thread is polling (that thread will complete our futures)."""
        if not self._lock.acquire(blocking=False):
            return False
        try:
            self.poll(timeout_ms)
        finally:
            self._lock.release()
        return True

    def wakeup(self) -> None:
        """Make a poll that is sleeping in select() return now (called from other threads)."""
        try:
            self._wakeup_w.send(b"\x00")
        except (BlockingIOError, OSError):
            pass

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            for node_id in list(self.channels):
                self._close_channel(node_id, self.time.hi_res_clock_ms(), "client closed")
            self.selector.close()
            self._wakeup_r.close()
            self._wakeup_w.close()
