"""AbstractCoordinator: finding the group coordinator and joining the group
(Kafka's consumer.internals.AbstractCoordinator).

The group protocol from a member's side, as seed 004 tells it ("consumer groups: coordinator,
group leader assigns"):

1. FindCoordinator: which broker coordinates this group? (any broker knows)
2. JoinGroup: "I am here, I can use these assignors, this is my subscription." The coordinator
   waits for every member, picks an assignor all of them support and names one member leader.
3. SyncGroup: the leader sends everyone's assignment; every member receives its own.
4. Heartbeat, until the coordinator says REBALANCE_IN_PROGRESS: then back to 2.
5. LeaveGroup on close, so the others rebalance at once instead of after session.timeout.ms.

Group requests travel on their own connection to the coordinator (node id ``MAX_INT - id``, as
in the Java client), so a heartbeat never queues behind a long-polling fetch on the same socket.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from enum import Enum

import structlog

from kafka.clients.client_request import ClientRequest, ClientResponse
from kafka.clients.consumer.heartbeat_thread import HeartbeatThread
from kafka.clients.errors import KafkaError
from kafka.clients.metadata import Node
from kafka.clients.network_client import NetworkClient
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.utils.time import Time

log = structlog.get_logger("kafka.clients.consumer.AbstractCoordinator")

COORDINATOR_ERRORS = frozenset({Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR})
UNKNOWN_MEMBER_ID = ""
NO_GENERATION = -1


class MemberState(Enum):
    UNJOINED = "UNJOINED"
    PREPARING_REBALANCE = "PREPARING_REBALANCE"
    COMPLETING_REBALANCE = "COMPLETING_REBALANCE"
    STABLE = "STABLE"


class AbstractCoordinator:
    protocol_type = "consumer"

    def __init__(self, client: NetworkClient, group_id: str, group_instance_id: str | None,
                 session_timeout_ms: int, rebalance_timeout_ms: int, heartbeat_interval_ms: int,
                 max_poll_interval_ms: int, retry_backoff_ms: int, time: Time) -> None:
        self.client = client
        self.group_id = group_id
        self.group_instance_id = group_instance_id
        self.session_timeout_ms = session_timeout_ms
        self.rebalance_timeout_ms = rebalance_timeout_ms
        self.retry_backoff_ms = retry_backoff_ms
        self.time = time
        self.coordinator: Node | None = None
        self.generation_id = NO_GENERATION
        self.member_id = UNKNOWN_MEMBER_ID
        self.protocol_name: str | None = None
        self.leader_id: str | None = None
        self.state = MemberState.UNJOINED
        self.rejoin_needed = True
        self.needs_join_prepare = True
        self._join_future: Future | None = None  # a JoinGroup or SyncGroup still in flight
        self._sync_future: Future | None = None
        self._find_coordinator_future: Future | None = None
        self._lock = threading.RLock()
        self.heartbeat = HeartbeatThread(self, heartbeat_interval_ms, session_timeout_ms,
                                         max_poll_interval_ms, time)

    # ------------------------------------------------------------------ for subclasses
    def join_metadata(self) -> list[tuple[str, bytes]]:
        raise NotImplementedError

    def on_join_prepare(self, generation_id: int, member_id: str) -> None:
        raise NotImplementedError

    def perform_assignment(self, leader_id: str, protocol: str, members: list) -> dict[str, bytes]:
        raise NotImplementedError

    def on_join_complete(self, generation_id: int, member_id: str, protocol: str, assignment: bytes) -> None:
        raise NotImplementedError

    # ------------------------------------------------------------------ 1. find the coordinator
    def coordinator_unknown(self) -> bool:
        return self.coordinator is None

    def mark_coordinator_unknown(self, reason: str) -> None:
        with self._lock:
            if self.coordinator is not None:
                log.info("group coordinator is unavailable", group=self.group_id, reason=reason)
                self.coordinator = None

    def ensure_coordinator_ready(self, timeout_ms: float) -> bool:
        deadline = self.time.hi_res_clock_ms() + timeout_ms
        while self.coordinator_unknown():
            remaining = deadline - self.time.hi_res_clock_ms()
            if remaining <= 0:
                return False
            node = self.client.least_loaded_node(self.time.hi_res_clock_ms())
            if node is None:
                self.client.poll(min(remaining, self.retry_backoff_ms))
                continue
            # One FindCoordinator at a time, waited for across polls (Kafka's findCoordinatorFuture):
            # the first one creates __consumer_offsets and can take longer than a poll's timeout.
            if self._find_coordinator_future is None:
                self._find_coordinator_future = self.client.send(ClientRequest(
                    node.node_id, ApiKey.FIND_COORDINATOR, {"key": self.group_id, "key_type": 0},
                    max_version=3))
            response = self._wait(self._find_coordinator_future, deadline)
            if response is None:
                return False
            self._find_coordinator_future = None
            if response.error is not None:
                if isinstance(response.error, KafkaError) and not response.error.retriable:
                    raise response.error
                self._backoff(deadline)
                continue
            body = response.body
            if body.error_code == Errors.NONE:
                # A connection of its own: group traffic must not wait behind fetches.
                node = Node(2**31 - 1 - body.node_id, body.host, body.port)
                self.client.register_node(node)
                self.coordinator = node
                log.info("discovered group coordinator", group=self.group_id,
                         coordinator=f"{body.host}:{body.port}")
            elif Errors.for_code(body.error_code).retriable:
                self._backoff(deadline)
            else:
                raise KafkaError(body.error_code, f"FindCoordinator for group {self.group_id!r}")
        return True

    def _backoff(self, deadline: int) -> None:
        self.client.poll(max(0, min(self.retry_backoff_ms, deadline - self.time.hi_res_clock_ms())))

    def _send_to_coordinator(self, api_key: int, body: dict, timeout_ms: int | None = None,
                             max_version: int | None = None) -> Future:
        node = self.coordinator
        if node is None:
            future: Future = Future()
            future.set_result(ClientResponse(ClientRequest(-1, api_key, body),
                                             error=KafkaError(Errors.COORDINATOR_NOT_AVAILABLE)))
            return future
        return self.client.send(ClientRequest(node.node_id, api_key, body, timeout_ms=timeout_ms or 0,
                                              max_version=max_version))

    def _wait(self, future: Future, deadline: int) -> ClientResponse | None:
        self.client.poll_until(future.done, max(0, deadline - self.time.hi_res_clock_ms()))
        return future.result() if future.done() else None

    # ------------------------------------------------------------------ 2 and 3. join and sync
    def request_rejoin(self, reason: str) -> None:
        with self._lock:
            if not self.rejoin_needed:
                log.info("rejoining group", group=self.group_id, reason=reason)
            self.rejoin_needed = True

    def ensure_active_group(self, timeout_ms: float) -> bool:
        deadline = self.time.hi_res_clock_ms() + timeout_ms
        if not self.heartbeat.is_alive():
            self.heartbeat.start()
        while self.rejoin_needed:
            if not self.ensure_coordinator_ready(max(0, deadline - self.time.hi_res_clock_ms())):
                return False
            if self.needs_join_prepare:
                self.heartbeat.disable()
                self.on_join_prepare(self.generation_id, self.member_id)
                self.needs_join_prepare = False
            if not self._join_group(deadline):
                if self.time.hi_res_clock_ms() >= deadline:
                    return False
        return True

    def _join_group(self, deadline: int) -> bool:
        """One JoinGroup + SyncGroup round; False if it is not finished (yet) or must be tried again.
        A request still in flight when ``deadline`` passes is kept, and the next call waits for it:
        sending a fresh JoinGroup would start the whole rebalance over."""
        if self._sync_future is None:
            if self._join_future is None:
                self.state = MemberState.PREPARING_REBALANCE
                self._join_future = self._send_join_group()
            response = self._wait(self._join_future, deadline)
            if response is None:
                return False
            self._join_future = None
            if not self._on_join_response(response):
                return False
        response = self._wait(self._sync_future, deadline)
        if response is None:
            return False
        self._sync_future = None
        error = self._response_error(response)
        if error != Errors.NONE:
            self._handle_group_error(error, "SyncGroup")
            return False
        with self._lock:
            self.state = MemberState.STABLE
            self.rejoin_needed = False
            self.needs_join_prepare = True
        log.info("joined group", group=self.group_id, generation=self.generation_id, member_id=self.member_id,
                 leader=self.leader_id == self.member_id, protocol=self.protocol_name)
        self.on_join_complete(self.generation_id, self.member_id, self.protocol_name,
                              response.body.assignment)
        self.heartbeat.enable()
        return True

    def _send_join_group(self) -> Future:
        body = {"group_id": self.group_id, "session_timeout_ms": self.session_timeout_ms,
                "rebalance_timeout_ms": self.rebalance_timeout_ms, "member_id": self.member_id,
                "group_instance_id": self.group_instance_id, "protocol_type": self.protocol_type,
                "protocols": [{"name": n, "metadata": m} for n, m in self.join_metadata()]}
        # The coordinator holds a JoinGroup until every member has joined: up to the rebalance timeout.
        return self._send_to_coordinator(ApiKey.JOIN_GROUP, body,
                                         self.rebalance_timeout_ms + self.client.request_timeout_ms)

    def _on_join_response(self, response: ClientResponse) -> bool:
        """Take in the JoinGroup answer; the leader assigns; either way, send SyncGroup."""
        error = self._response_error(response)
        join = response.body
        if error == Errors.MEMBER_ID_REQUIRED:  # KIP-394: join again with the id we were given
            self.member_id = join.member_id
            return False
        if error != Errors.NONE:
            self._handle_group_error(error, "JoinGroup")
            return False
        self.generation_id, self.member_id = join.generation_id, join.member_id
        self.protocol_name, self.leader_id = join.protocol_name, join.leader
        self.state = MemberState.COMPLETING_REBALANCE
        assignments = []
        if join.leader == join.member_id:
            assigned = self.perform_assignment(join.leader, join.protocol_name, join.members)
            assignments = [{"member_id": m, "assignment": a} for m, a in assigned.items()]
        self._sync_future = self._send_to_coordinator(ApiKey.SYNC_GROUP, {
            "group_id": self.group_id, "generation_id": self.generation_id, "member_id": self.member_id,
            "group_instance_id": self.group_instance_id, "protocol_type": self.protocol_type,
            "protocol_name": self.protocol_name, "assignments": assignments})
        return True

    def _response_error(self, response: ClientResponse) -> Errors:
        if response.error is not None or response.body is None:
            self.mark_coordinator_unknown(str(response.error))
            return Errors.COORDINATOR_NOT_AVAILABLE
        return Errors.for_code(response.body.get("error_code", Errors.NONE))

    def _handle_group_error(self, error: Errors, what: str) -> None:
        log.info(f"{what} failed", group=self.group_id, error=error.name)
        if error in COORDINATOR_ERRORS:
            self.mark_coordinator_unknown(error.name)
        elif error in (Errors.UNKNOWN_MEMBER_ID, Errors.ILLEGAL_GENERATION, Errors.FENCED_INSTANCE_ID):
            self.reset_generation()
        elif error in (Errors.REBALANCE_IN_PROGRESS, Errors.COORDINATOR_LOAD_IN_PROGRESS):
            pass  # just join again
        else:
            raise KafkaError(error, f"{what} for group {self.group_id!r}")

    def reset_generation(self) -> None:
        with self._lock:
            self.generation_id, self.member_id = NO_GENERATION, UNKNOWN_MEMBER_ID
            self.state = MemberState.UNJOINED
            self.rejoin_needed = True
            self._join_future = self._sync_future = None

    # ------------------------------------------------------------------ 4. heartbeat
    def send_heartbeat_request(self) -> Future:
        return self._send_to_coordinator(ApiKey.HEARTBEAT, {
            "group_id": self.group_id, "generation_id": self.generation_id, "member_id": self.member_id,
            "group_instance_id": self.group_instance_id})

    def handle_heartbeat_response(self, response: ClientResponse) -> bool:
        """True if the coordinator answered (whatever it said)."""
        error = self._response_error(response)
        if error == Errors.NONE:
            return True
        if error == Errors.REBALANCE_IN_PROGRESS:
            self.request_rejoin("the group is rebalancing")
        elif error in (Errors.UNKNOWN_MEMBER_ID, Errors.ILLEGAL_GENERATION, Errors.FENCED_INSTANCE_ID):
            self.reset_generation()
        elif error in COORDINATOR_ERRORS:
            self.mark_coordinator_unknown(error.name)
            return False
        return True

    # ------------------------------------------------------------------ 5. leave
    def maybe_leave_group(self, reason: str) -> None:
        if self.coordinator is not None and self.member_id and self.group_instance_id is None:
            # v3+ (KIP-345) names the leaving members in an array; brokers from Kafka 2.4 on speak it.
            future = self._send_to_coordinator(ApiKey.LEAVE_GROUP, {
                "group_id": self.group_id,
                "members": [{"member_id": self.member_id, "group_instance_id": None, "reason": reason}]})
            self.client.poll_until(future.done, 5000)
            if future.done() and future.result().error is not None:
                log.warning("LeaveGroup failed", group=self.group_id, error=str(future.result().error))
        self.reset_generation()

    def close(self, timeout_ms: int = 30000) -> None:
        self.heartbeat.close()
        if self.heartbeat.is_alive():
            self.heartbeat.join(timeout_ms / 1000)
        self.maybe_leave_group("the consumer is being closed")

    def generation_is_stable(self) -> bool:
        return self.state == MemberState.STABLE

