"""KafkaRaftClientDriver: the one thread that runs the Raft core
(Kafka's org.apache.kafka.raft.KafkaRaftClientDriver).

KafkaRaftClient is written without sockets, threads or sleeps (KIP-595's state machine, stepped by
messages and time), so that a seeded simulation can drive it. This thread is its edge to the real
world. Each turn of the loop:

    1. runs what other threads queued for it (submit), then hands the core every message that
       arrived: requests from peers (ControllerApis puts them here from an I/O thread) and
       responses to the core's own requests (the network channel);
    2. calls poll(), which fires timers (elections, fetch timeouts, linger) and moves the state machine;
    3. sends what the core wants sent: requests through the KafkaNetworkChannel, responses back to
       the connection the request came from;
    4. waits in the network channel's poll until a socket is ready, a message is queued, or the
       core's next timer is due.

This thread alone touches the core's state, and it holds no lock while it steps it: the writes and
fsyncs of the metadata log, the quorum-state file and the snapshots happen here with nothing held,
so a slow disk delays the quorum, never another thread. The others reach the core as Kafka's do:

    a raft request        handle_request queues it (a deque under a small lock that guards nothing
                          else), wakes the thread, and the answer comes back through `respond`
    the controller        schedule_append puts records into the leader's BatchAccumulator and gets
                          their offset at once (the accumulator's own lock covers memory only);
                          log_end_offset asks the same accumulator; resign leaves a note for the
                          next poll; register queues the listener for the thread's next turn
    who leads, the        `published`: the PublishedQuorumState the core swapped in at the end of
    voters, raft-metrics  its last poll, read without waiting for anything
    anything else         submit(fn) queues `fn(client)` for the thread's next turn and returns a
                          Future (a snapshot to write, the shutdown)
"""

from __future__ import annotations

import itertools
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

import structlog

from kafka.protocol.api_keys import ApiKey
from kafka.raft.published_quorum_state import PublishedQuorumState
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
        self._queue_lock = threading.Lock()  # guards the three queues below and nothing else: no I/O under it
        self._inbound: deque[RaftRequest | RaftResponse | RaftTransportFailure] = deque()
        self._responders: dict[int, Callable[[Any], None]] = {}
        self._commands: deque[tuple[Callable[[Any], Any], Future]] = deque()
        self._inbound_ids = itertools.count(1)
        self._running = threading.Event()
        self._stopped = threading.Event()
        self._endpoints_of = None  # the voter set whose endpoints the channel has
        channel.on_response = self._deliver

    def start(self) -> None:
        """Initialize the client (it reads the quorum-state file and the log), then start the thread that
        alone steps it from here on (Kafka's KafkaRaftManager.startup)."""
        self.client.initialize()
        super().start()

    # ------------------------------------------------------------------ from other threads
    @property
    def published(self) -> PublishedQuorumState:
        """The quorum as the raft thread last saw it: who leads, the epoch, the voters, raft-metrics."""
        return self.client.published

    def handle_request(self, api_key: int, body: Any, respond: Callable[[Any], None]) -> None:
        """A raft request that arrived on the controller listener; `respond(body)` answers it."""
        correlation_id = next(self._inbound_ids)
        request = RaftRequest(correlation_id=correlation_id, source_id=source_of(api_key, body),
                              destination_id=self.node_id, api_key=ApiKey(api_key), body=body,
                              created_ms=self.time.milliseconds())
        with self._queue_lock:
            self._responders[correlation_id] = respond
            self._inbound.append(request)
        self.channel.wakeup()

    def schedule_append(self, epoch: int, records: list[bytes]) -> int:
        """The controller's records, into the leader's BatchAccumulator: their offset, without waiting."""
        offset = self.client.schedule_append(epoch, records)
        self.channel.wakeup()  # the thread may be waiting with no linger deadline to wake it
        return offset

    def log_end_offset(self) -> int:
        return self.client.log_end_offset()

    def resign(self, epoch: int) -> None:
        self.client.resign(epoch)
        self.channel.wakeup()

    def register(self, listener) -> None:
        """A RaftListener joins on the raft thread, at its next turn (Kafka's pendingRegistrations)."""
        self.submit(lambda client: client.register(listener))

    def submit(self, fn: Callable[[Any], Any]) -> Future:
        """Run `fn(client)` on the raft thread at its next turn; the Future completes once that turn has
        sent what it produced."""
        future: Future = Future()
        with self._queue_lock:
            self._commands.append((fn, future))
        self.channel.wakeup()
        return future

    def _deliver(self, response: RaftResponse | RaftTransportFailure) -> None:
        with self._queue_lock:
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
        """One turn: queued work and inbound messages in, poll, outbound messages out; ms until the next
        turn. No lock is held while the core runs: only this thread touches it."""
        commands, inbound = self._take_queued()
        done = [(future, self._run_command(fn, future)) for fn, future in commands]
        for message in inbound:
            self.client.handle_inbound(message)
        timeout_ms = self.client.poll()
        outbound = self.client.drain_outbound()
        self._update_endpoints()
        with self._queue_lock:
            responders = [(m, self._responders.pop(m.correlation_id, None)) for m in outbound
                          if isinstance(m, RaftResponse)]
        for message in outbound:
            if isinstance(message, RaftRequest):
                self.channel.send(message)
        for message, respond in responders:
            if respond is not None:
                respond(message.body)
        for future, (result, error) in done:
            future.set_exception(error) if error is not None else future.set_result(result)
        with self._queue_lock:
            more = bool(self._inbound or self._commands)
        return 0 if more else max(0, timeout_ms)

    def _take_queued(self) -> tuple[list, list]:
        with self._queue_lock:
            commands, inbound = list(self._commands), list(self._inbound)
            self._commands.clear()
            self._inbound.clear()
        return commands, inbound

    def _run_command(self, fn: Callable[[Any], Any], future: Future) -> tuple[Any, BaseException | None]:
        if not future.set_running_or_notify_cancel():
            return None, None
        try:
            return fn(self.client), None
        except Exception as e:  # the submitter learns of it from its Future
            return None, e

    def _update_endpoints(self) -> None:
        """KIP-853: the channel reaches the voters of the latest voter set in the log."""
        voters = self.client.partition_state.last_voter_set()
        if voters is not self._endpoints_of and hasattr(self.channel, "update_endpoints"):
            self._endpoints_of = voters
            self.channel.update_endpoints(voters.endpoints(getattr(self.channel, "listener_name",
                                                                   "CONTROLLER")))

    def shutdown(self, timeout_ms: int = 5000) -> None:
        """A leader resigns first (EndQuorumEpoch), so the others elect without waiting for a timeout: the
        raft thread resigns at its next turn, sends, and is then stopped."""
        if self.is_alive():
            resigned = self.submit(lambda client: client.shutdown(timeout_ms))
            try:
                resigned.result(timeout=min(timeout_ms, 1000) / 1000)
            except Exception as e:  # a thread stuck (in a slow fsync) or a failed resignation: stop anyway
                log.warning("raft shutdown did not resign in time", error=repr(e))
            self._running.clear()
            self.channel.wakeup()
            self.join(timeout=5)
        self.channel.close()
