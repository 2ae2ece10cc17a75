"""KafkaRaftClientDriver: the one thread that runs the Raft core (Kafka's org.apache.kafka.raft.KafkaRaftClientDriver).

KafkaRaftClient is written without sockets, threads or sleeps (KIP-595's state machine, stepped by
messages and time), so that a seeded simulation can drive it. This thread is its edge to the real
world. Each turn of the loop:

    1. hands the core every message that arrived: requests from peers (ControllerApis puts them
       here from an I/O thread) and responses to the core's own requests (the network channel);
    2. calls poll(), which fires timers (elections, fetch timeouts, linger) and moves the state machine;
    3. sends what the core wants sent: requests through the KafkaNetworkChannel, responses back to
       the connection the request came from;
    4. waits in the network channel's poll until a socket is ready, a message is queued, or the
       core's next timer is due.

Every other thread (the controller appending records, the broker asking who leads) goes through
the methods below, which take the same lock the loop holds while it steps the core.
"""

from __future__ import annotations

import itertools
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

import structlog

from kafka.protocol.api_keys import ApiKey
from kafka.raft.raft_message import RaftRequest, RaftResponse, RaftTransportFailure
from kafka.utils.time import Time

log = structlog.get_logger("kafka.raft.KafkaRaftClientDriver")

_MAX_WAIT_MS = 500


def source_of(api_key: int, body: Any) -> int:
    """Which node sent a raft request, read from its body as Kafka's handlers do."""
    try:
        if api_key == ApiKey.FETCH:
            state = body.get("replica_state")
            replica = state.replica_id if state is not None and state.replica_id >= 0 else body.replica_id
            return replica
        if api_key == ApiKey.FETCH_SNAPSHOT:
            return body.replica_id
        partition = body.topics[0].partitions[0]
        if api_key == ApiKey.VOTE:
            return partition.get("replica_id", partition.get("candidate_id", -1))
        if api_key in (ApiKey.BEGIN_QUORUM_EPOCH, ApiKey.END_QUORUM_EPOCH):
            return partition.leader_id
    except (AttributeError, IndexError, KeyError, TypeError):
        pass
    return -1


class KafkaRaftClientDriver(threading.Thread):
    def __init__(self, client, channel, time: Time, node_id: int) -> None:
        super().__init__(name=f"kafka-{node_id}-raft-io-thread", daemon=True)
        self.client = client
        self.channel = channel
        self.time = time
        self.node_id = node_id
        self.lock = threading.RLock()  # the core is single-threaded: everyone steps it under this lock
        self._inbound: deque[RaftRequest | RaftResponse | RaftTransportFailure] = deque()
        self._responders: dict[int, Callable[[Any], None]] = {}
        self._inbound_ids = itertools.count(1)
        self._running = threading.Event()
        self._stopped = threading.Event()
        self._endpoints_of = None  # the voter set whose endpoints the channel has
        channel.on_response = self._deliver

    # ------------------------------------------------------------------ from other threads
    def handle_request(self, api_key: int, body: Any, respond: Callable[[Any], None]) -> None:
        """A raft request that arrived on the controller listener; `respond(body)` answers it."""
        correlation_id = next(self._inbound_ids)
        request = RaftRequest(correlation_id=correlation_id, source_id=source_of(api_key, body),
                              destination_id=self.node_id, api_key=ApiKey(api_key), body=body,
                              created_ms=self.time.milliseconds())
        with self.lock:
            self._responders[correlation_id] = respond
            self._inbound.append(request)
        self.channel.wakeup()

    def schedule_append(self, epoch: int, records: list[bytes]) -> int:
        with self.lock:
            offset = self.client.schedule_append(epoch, records)
        self.channel.wakeup()
        return offset

    def resign(self, epoch: int) -> None:
        with self.lock:
            self.client.resign(epoch)
        self.channel.wakeup()

    def log_end_offset(self) -> int:
        with self.lock:
            return self.client.log_end_offset()

    def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run `fn(client, *args)` under the lock: reads of the core's state from other threads."""
        with self.lock:
            return fn(self.client, *args)

    def _deliver(self, response: RaftResponse | RaftTransportFailure) -> None:
        with self.lock:
            self._inbound.append(response)

    # ------------------------------------------------------------------ the loop
    def run(self) -> None:
        self._running.set()
        try:
            while self._running.is_set():
                try:
                    timeout_ms = self.step()
                except Exception:  # a bug in one step must not silently stop this node's quorum membership
                    log.exception("raft step failed")
                    timeout_ms = _MAX_WAIT_MS
                self.channel.poll(min(timeout_ms, _MAX_WAIT_MS))
        finally:
            self._stopped.set()

    def step(self) -> int:
        """One turn: inbound messages in, poll, outbound messages out; ms until the next turn."""
        with self.lock:
            while self._inbound:
                self.client.handle_inbound(self._inbound.popleft())
            timeout_ms = self.client.poll()
            outbound = self.client.drain_outbound()
            self._update_endpoints()
            responders = [(m, self._responders.pop(m.correlation_id, None)) for m in outbound
                          if isinstance(m, RaftResponse)]
        for message in outbound:
            if isinstance(message, RaftRequest):
                self.channel.send(message)
        for message, respond in responders:
            if respond is not None:
                respond(message.body)
        return 0 if self._inbound else max(0, timeout_ms)

    def _update_endpoints(self) -> None:
        """KIP-853: the channel reaches the voters of the latest voter set in the log."""
        voters = self.client.partition_state.last_voter_set()
        if voters is not self._endpoints_of and hasattr(self.channel, "update_endpoints"):
            self._endpoints_of = voters
            self.channel.update_endpoints(voters.endpoints(getattr(self.channel, "listener_name", "CONTROLLER")))

    def shutdown(self, timeout_ms: int = 5000) -> None:
        """A leader resigns first (EndQuorumEpoch), so the others elect without waiting for a timeout."""
        if self.is_alive():
            with self.lock:
                self.client.shutdown(timeout_ms)
            deadline = self.time.milliseconds() + min(timeout_ms, 1000)
            while self.time.milliseconds() < deadline and self.client_wants_more_time():
                self.channel.wakeup()
                self._stopped.wait(0.02)
            self._running.clear()
            self.channel.wakeup()
            self.join(timeout=5)
        self.channel.close()

    def client_wants_more_time(self) -> bool:
        with self.lock:
            return bool(getattr(self.client, "is_shutting_down", lambda: False)())
