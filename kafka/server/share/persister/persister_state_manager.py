"""PersisterStateManager: the share-group state RPCs sent to the share coordinator, retried until they
land (Kafka's org.apache.kafka.server.share.persister.PersisterStateManager and its handlers).

One handler per call, for one share partition (Kafka's InitializeStateHandler, ReadStateHandler,
WriteStateHandler, DeleteStateHandler, ReadStateSummaryHandler). A handler lives through these steps,
each a callback on the inter-broker send thread or the timer, so no caller ever waits:

    find the coordinator   the metadata cache names the leader of the key's __share_group_state
                           partition, or FindCoordinator (key type 2, SHARE, key group:topicId:partition)
                           goes to a random live broker
    send the RPC           to that coordinator; its answer for this partition completes the handler
    retry                  COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR and
                           UNKNOWN_TOPIC_OR_PARTITION (the topic is being created), or a lost connection:
                           forget the coordinator, wait (exponential backoff from 1 s to 30 s, jitter 0.2)
                           and start again; after 5 attempts the error is the answer

Kafka also coalesces the calls of one group bound for one coordinator into one request; here each call
is its own request (the persister interface is one partition per call).
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Protocol

import structlog

from kafka.clients.metadata import Node
from kafka.coordinator.share import share_group_state_responses as responses
from kafka.coordinator.share.share_partition_key import SHARE_GROUP_STATE_TOPIC_NAME, SharePartitionKey
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.utils.exponential_backoff import ExponentialBackoff
from kafka.utils.time import Time
from kafka.utils.timer.timer import Timer
from kafka.utils.timer.timer_task import TimerTask

log = structlog.get_logger("kafka.server.share.persister.PersisterStateManager")

REQUEST_BACKOFF_MS = 1000
REQUEST_BACKOFF_MAX_MS = 30_000
MAX_FIND_COORD_ATTEMPTS = 5
RETRY_BACKOFF_EXP_BASE = 2
RETRY_BACKOFF_JITTER = 0.2
SHARE_KEY_TYPE = 2  # FindCoordinatorRequest.CoordinatorType.SHARE
RETRIABLE = frozenset({Errors.COORDINATOR_NOT_AVAILABLE, Errors.COORDINATOR_LOAD_IN_PROGRESS,
                       Errors.NOT_COORDINATOR,
                       Errors.UNKNOWN_TOPIC_OR_PARTITION})
RETRIABLE_CLIENT_ERRORS = frozenset({Errors.NETWORK_EXCEPTION, Errors.REQUEST_TIMED_OUT})


class InterBrokerChannel(Protocol):
    """What sends the requests: an InterBrokerSendThread (callback(body or None, error) on its thread),
    which the manager starts and shuts down, as Kafka's PersisterStateManager does its SendThread."""

    def send(self, destination, api_key: int, body: dict,
             callback: Callable[[Any, Errors], None]) -> None: ...

    def start(self) -> None: ...

    def shutdown(self) -> None: ...


class ShareCoordinatorMetadataCacheHelper(Protocol):
    """What the broker's metadata says about the share coordinators (Kafka's
    ShareCoordinatorMetadataCacheHelper)."""

    def contains_topic(self, topic: str) -> bool: ...

    def get_share_coordinator(self, key: SharePartitionKey, internal_topic: str) -> Node | None: ...

    def get_cluster_nodes(self) -> list[Node]: ...


class ExponentialBackoffManager:
    """Attempts counted against a limit, with the backoff each next attempt waits (Kafka's
    org.apache.kafka.common.utils.internals.ExponentialBackoffManager)."""

    def __init__(self, max_attempts: int, initial_ms: int, multiplier: int, max_ms: int,
                 jitter: float) -> None:
        self.max_attempts = max_attempts
        self.backoff = ExponentialBackoff(initial_ms, multiplier, max_ms, jitter)
        self.attempts = 0

    def increment_attempt(self) -> None:
        self.attempts += 1

    def reset_attempts(self) -> None:
        self.attempts = 0

    def can_attempt(self) -> bool:
        return self.attempts < self.max_attempts

    def back_off(self) -> int:
        return self.backoff.backoff(self.attempts)


class PersisterTimerTask(TimerTask):
    """A handler put back on the queue once its backoff has passed."""

    def __init__(self, delay_ms: int, manager: PersisterStateManager,
                 handler: PersisterStateManagerHandler) -> None:
        super().__init__(delay_ms)
        self.manager = manager
        self.handler = handler

    def run(self) -> None:
        self.manager.enqueue(self.handler)


class PersisterStateManager:
    def __init__(self, channel: InterBrokerChannel, cache_helper: ShareCoordinatorMetadataCacheHelper,
                 time: Time,
                 timer: Timer, backoff_ms: int = REQUEST_BACKOFF_MS,
                 backoff_max_ms: int = REQUEST_BACKOFF_MAX_MS,
                 max_attempts: int = MAX_FIND_COORD_ATTEMPTS, rng: random.Random | None = None) -> None:
        self.channel = channel
        self.cache_helper = cache_helper
        self.time = time
        self.timer = timer
        self.backoff_ms = backoff_ms
        self.backoff_max_ms = backoff_max_ms
        self.max_attempts = max_attempts
        self.random = rng or random.Random()
        self._running = True

    def new_backoff(self) -> ExponentialBackoffManager:
        return ExponentialBackoffManager(self.max_attempts, self.backoff_ms, RETRY_BACKOFF_EXP_BASE,
                                         self.backoff_max_ms, RETRY_BACKOFF_JITTER)

    def start(self) -> None:
        self.channel.start()

    def stop(self) -> None:
        """Refuse what comes next and stop the channel. The timer is its owner's to shut down."""
        self._running = False
        self.channel.shutdown()

    # ------------------------------------------------------------------ Kafka's SendThread.generateRequests
    def enqueue(self, handler: PersisterStateManagerHandler) -> None:
        """The handler's next step: a FindCoordinator when its coordinator is unknown, else its RPC."""
        if not self._running:
            handler.request_error_response(Errors.COORDINATOR_NOT_AVAILABLE, "the persister is stopped")
            return
        if handler.lookup_needed():
            nodes = self.cache_helper.get_cluster_nodes()
            if not nodes:
                log.error("unable to find node to use for coordinator lookup")
                handler.find_coordinator_error_response(Errors.COORDINATOR_NOT_AVAILABLE,
                                                        Errors.COORDINATOR_NOT_AVAILABLE.message)
                return
            node = nodes[self.random.randrange(len(nodes))]
            log.debug("sending find coordinator", key=str(handler.partition_key), node=node.node_id)
            self.channel.send(node, ApiKey.FIND_COORDINATOR, handler.find_share_coordinator_body(),
                              handler.handle_find_coordinator_response)
            return
        self.channel.send(handler.coordinator_node, handler.api_key, handler.request_body(),
                          handler.handle_request_response)

    def retry_later(self, handler: PersisterStateManagerHandler, backoff: ExponentialBackoffManager) -> None:
        handler.coordinator_node = None  # look it up again: leadership may have moved
        self.timer.add(PersisterTimerTask(backoff.back_off(), self, handler))


class PersisterStateManagerHandler(ABC):
    """One share partition's RPC, from coordinator lookup to answer; `result` gets the partition's result
    (a dict or a decoded Record with error_code, error_message and the RPC's own fields)."""

    api_key: ApiKey
    name: str

    def __init__(self, manager: PersisterStateManager, key: SharePartitionKey) -> None:
        self.manager = manager
        self.partition_key = key
        self.coordinator_node: Node | None = None
        self.find_coord_backoff = manager.new_backoff()
        self.rpc_backoff = manager.new_backoff()
        self.result: Future = Future()

    @abstractmethod
    def partition_request(self) -> dict:
        """This partition's entry in the request's topics[].partitions[]."""

    def request_body(self) -> dict:
        key = self.partition_key
        return dict(group_id=key.group_id,
                    topics=[dict(topic_id=key.topic_id, partitions=[self.partition_request()])])

    def find_share_coordinator_body(self) -> dict:
        """FindCoordinator v4+ (batched keys; key type SHARE needs v6 of Apache Kafka's brokers)."""
        return dict(key_type=SHARE_KEY_TYPE, coordinator_keys=[self.partition_key.as_coordinator_key()])

    def lookup_needed(self) -> bool:
        """Kafka's lookupNeeded: no coordinator known, unless the metadata cache names the leader."""
        if self.coordinator_node is not None:
            return False
        cache = self.manager.cache_helper
        if cache.contains_topic(SHARE_GROUP_STATE_TOPIC_NAME):
            node = cache.get_share_coordinator(self.partition_key, SHARE_GROUP_STATE_TOPIC_NAME)
            if node is not None:
                log.debug("found coordinator node in cache", key=str(self.partition_key), node=node.node_id)
                self.coordinator_node = node
                return False
        return True

    # ------------------------------------------------------------------ answers (on the channel's thread)
    def handle_find_coordinator_response(self, body, error: Errors) -> None:
        self.find_coord_backoff.increment_attempt()
        if error != Errors.NONE:
            self._retry_or_fail(self.find_coord_backoff, error, error in RETRIABLE_CLIENT_ERRORS,
                                self.find_coordinator_error_response)
            return
        coordinators = body["coordinators"] or []
        if len(coordinators) != 1:
            log.error("invalid find coordinator response", key=str(self.partition_key),
                      coordinators=len(coordinators))
            self.find_coordinator_error_response(Errors.UNKNOWN_SERVER_ERROR,
                                                 "Invalid response with multiple coordinators.")
            return
        found = coordinators[0]
        found_error = Errors(found["error_code"])
        if found_error == Errors.NONE:
            self.find_coord_backoff.reset_attempts()
            self.coordinator_node = Node(found["node_id"], found["host"], found["port"])
            self.manager.enqueue(self)
            return
        self._retry_or_fail(self.find_coord_backoff, found_error, found_error in RETRIABLE,
                            self.find_coordinator_error_response, found["error_message"])

    def handle_request_response(self, body, error: Errors) -> None:
        self.rpc_backoff.increment_attempt()
        if error != Errors.NONE:
            self._retry_or_fail(self.rpc_backoff, error, error in RETRIABLE_CLIENT_ERRORS,
                                self.request_error_response)
            return
        result = self.find_partition_result(body)
        if result is None:
            self.request_error_response(Errors.UNKNOWN_SERVER_ERROR,
                                        f"Failed to {self.name} for share partition: {self.partition_key}")
            return
        result_error = Errors(result["error_code"])
        if result_error in RETRIABLE:
            self._retry_or_fail(self.rpc_backoff, result_error, True, self.request_error_response,
                                result["error_message"])
            return
        self.rpc_backoff.reset_attempts()
        self.complete(result)

    def _retry_or_fail(self, backoff: ExponentialBackoffManager, error: Errors, retriable: bool,
                       fail: Callable[[Errors, str], None], message: str | None = None) -> None:
        if not retriable:
            log.error(f"unable to {self.name}", key=str(self.partition_key), error=error.name)
            fail(error, message or error.message)
            return
        if not backoff.can_attempt():
            log.error(f"exhausted max retries to {self.name}", key=str(self.partition_key), error=error.name)
            fail(error, "Exhausted max retries without success.")
            return
        log.debug(f"retriable error in {self.name}", key=str(self.partition_key), error=error.name)
        self.manager.retry_later(self, backoff)

    def find_partition_result(self, body):
        key = self.partition_key
        for topic in body["results"]:
            if topic["topic_id"] == key.topic_id:
                for partition in topic["partitions"]:
                    if partition["partition"] == key.partition:
                        return partition
        return None

    # ------------------------------------------------------------------ completing
    def complete(self, result) -> None:
        if not self.result.done():
            self.result.set_result(result)

    def request_error_response(self, error: Errors, message: str) -> None:
        self.complete(responses.partition_result(self.partition_key.partition, error,
                                                 f"Error in {self.name} RPC. {message}"))

    def find_coordinator_error_response(self, error: Errors, message: str) -> None:
        self.complete(responses.partition_result(self.partition_key.partition, error,
                                                 f"Error in find coordinator. {message}"))


class InitializeStateHandler(PersisterStateManagerHandler):
    api_key, name = ApiKey.INITIALIZE_SHARE_GROUP_STATE, "initialize state"

    def __init__(self, manager: PersisterStateManager, key: SharePartitionKey, state_epoch: int,
                 start_offset: int) -> None:
        super().__init__(manager, key)
        self.state_epoch = state_epoch
        self.start_offset = start_offset

    def partition_request(self) -> dict:
        return dict(partition=self.partition_key.partition, state_epoch=self.state_epoch,
                    start_offset=self.start_offset)


class ReadStateHandler(PersisterStateManagerHandler):
    api_key, name = ApiKey.READ_SHARE_GROUP_STATE, "read state"

    def __init__(self, manager: PersisterStateManager, key: SharePartitionKey, leader_epoch: int) -> None:
        super().__init__(manager, key)
        self.leader_epoch = leader_epoch

    def partition_request(self) -> dict:
        return dict(partition=self.partition_key.partition, leader_epoch=self.leader_epoch)


class WriteStateHandler(PersisterStateManagerHandler):
    api_key, name = ApiKey.WRITE_SHARE_GROUP_STATE, "write state"

    def __init__(self, manager: PersisterStateManager, key: SharePartitionKey, state_epoch: int,
                 leader_epoch: int,
                 start_offset: int, delivery_complete_count: int, state_batches: list[dict]) -> None:
        super().__init__(manager, key)
        self.state_epoch = state_epoch
        self.leader_epoch = leader_epoch
        self.start_offset = start_offset
        self.delivery_complete_count = delivery_complete_count
        self.state_batches = state_batches

    def partition_request(self) -> dict:
        return dict(partition=self.partition_key.partition, state_epoch=self.state_epoch,
                    leader_epoch=self.leader_epoch, start_offset=self.start_offset,
                    delivery_complete_count=self.delivery_complete_count, state_batches=self.state_batches)


class DeleteStateHandler(PersisterStateManagerHandler):
    api_key, name = ApiKey.DELETE_SHARE_GROUP_STATE, "delete state"

    def partition_request(self) -> dict:
        return dict(partition=self.partition_key.partition)


class ReadStateSummaryHandler(PersisterStateManagerHandler):
    api_key, name = ApiKey.READ_SHARE_GROUP_STATE_SUMMARY, "read state summary"

    def __init__(self, manager: PersisterStateManager, key: SharePartitionKey, leader_epoch: int) -> None:
        super().__init__(manager, key)
        self.leader_epoch = leader_epoch

    def partition_request(self) -> dict:
        return dict(partition=self.partition_key.partition, leader_epoch=self.leader_epoch)
