"""The requests of the TransactionManager and what each answer does (the inner handler classes of
Kafka's producer.internals.TransactionManager: TxnRequestHandler, InitProducerIdHandler,
FindCoordinatorHandler, AddPartitionsToTxnHandler, AddOffsetsToTxnHandler, TxnOffsetCommitHandler,
EndTxnHandler), with the order they go out in (Priority) and the coordinator types they ask for.
The TransactionManager imports them; they call back only through the manager they are given.

KIP-98's transaction, from the producer's side::

    FindCoordinator(key_type=1, transactional.id) -> the transaction coordinator
    InitProducerId(transactional.id)               -> producer id, epoch (older instances fenced)
    AddPartitionsToTxn(new partitions)             -> before the first batch to each partition
    AddOffsetsToTxn(group) + TxnOffsetCommit        -> consumer offsets, to the group's coordinator
    EndTxn(commit or abort)                        -> once every batch is answered

Errors are classed as the Java client does: PRODUCER_FENCED, INVALID_PRODUCER_EPOCH and the
authorization errors end the producer (fatal); a refused member or generation in TxnOffsetCommit
only ends the transaction (abortable); coordinator moves and loads are retried.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

import structlog

from kafka.clients.client_request import ClientResponse
from kafka.clients.errors import KafkaError
from kafka.clients.metadata import Node
from kafka.clients.producer.producer_id_and_epoch import NONE, ProducerIdAndEpoch
from kafka.clients.producer.transactional_request_result import TransactionalRequestResult
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.clients.producer.TransactionManager")

GROUP, TRANSACTION = 0, 1  # FindCoordinator key types (CoordinatorType)

COORDINATOR_ERRORS = frozenset({Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR})
# Answered by every transactional request once a newer instance has the transactional id.
FENCED_ERRORS = frozenset({Errors.INVALID_PRODUCER_EPOCH, Errors.PRODUCER_FENCED})


class Priority(IntEnum):
    """The order pending requests go out in: a coordinator first, then a producer id, ..."""

    FIND_COORDINATOR = 0
    INIT_PRODUCER_ID = 1
    ADD_PARTITIONS_OR_OFFSETS = 2
    END_TXN = 3
    EPOCH_BUMP = 4


class TxnRequestHandler:
    """One request of the TransactionManager and what its answer does (a RequestCompletionHandler).
    ``manager`` is the TransactionManager that enqueued it, which imports this module (so the type
    is not named here)."""

    api_key: int
    coordinator_type: int | None = None  # None: any broker (the least loaded node)
    is_end_txn = False
    max_version: int | None = None

    def __init__(self, manager) -> None:
        self.manager = manager
        self.is_retry = False
        self.retry_at_ms = 0

    def coordinator_key(self) -> str | None:
        return self.manager.transactional_id

    def priority(self) -> int:
        raise NotImplementedError

    def request_body(self) -> dict[str, Any]:
        raise NotImplementedError

    def handle_response(self, body: Any, now_ms: int) -> None:
        raise NotImplementedError

    def fail(self, error: KafkaError | None) -> None:
        """The request will not be sent (the manager is in an error state)."""

    def fatal_error(self, error: KafkaError) -> None:
        self.fail(error)
        self.manager.transition_to_fatal_error(error)

    def reenqueue(self, now_ms: int) -> None:
        self.manager.retry(self, now_ms)

    def on_complete(self, response: ClientResponse) -> None:
        manager = self.manager
        if response.request is not manager.in_flight_request():
            self.fatal_error(KafkaError(Errors.UNKNOWN_SERVER_ERROR, "detected more than one in-flight "
                                                                     "transactional request"))
            return
        manager.set_in_flight_request(None)
        now_ms = response.received_ms
        if response.disconnected or response.timed_out:
            log.debug("no answer, will retry", api=self.__class__.__name__, node=response.request.node_id,
                      error=str(response.error))
            self.reenqueue(now_ms)
        elif isinstance(response.error, KafkaError) and response.error.error == Errors.UNSUPPORTED_VERSION:
            self.fatal_error(self.unsupported_version_error(response.error))
        elif response.error is not None:
            error = response.error if isinstance(response.error,
                                                 KafkaError) else KafkaError(message=str(response.error))
            if error.retriable:
                self.reenqueue(now_ms)
            else:
                self.fatal_error(error)
        elif response.body is not None:
            self.handle_response(response.body, now_ms)
        else:
            self.fatal_error(KafkaError(Errors.UNKNOWN_SERVER_ERROR,
                                        "could not execute transactional request for unknown reasons"))

    def unsupported_version_error(self, error: KafkaError) -> KafkaError:
        return error


class InitProducerIdHandler(TxnRequestHandler):
    """InitProducerId (key 22): a producer id and epoch for a producer without one."""

    api_key = ApiKey.INIT_PRODUCER_ID

    def __init__(self, manager, is_epoch_bump: bool,
                 result: TransactionalRequestResult | None = None) -> None:
        super().__init__(manager)
        self.is_epoch_bump = is_epoch_bump
        self.producer_id_and_epoch = manager.producer_id_and_epoch if is_epoch_bump else NONE
        self.result = result
        # A transactional id is known to its transaction coordinator only.
        self.coordinator_type = TRANSACTION if manager.is_transactional() else None

    def fail(self, error: KafkaError | None) -> None:
        if self.result is not None:
            self.result.done(error)

    def priority(self) -> int:
        return Priority.EPOCH_BUMP if self.is_epoch_bump else Priority.INIT_PRODUCER_ID

    def request_body(self) -> dict[str, Any]:
        manager = self.manager
        # An idempotent producer has no transaction, so no transaction timeout (Java sends MAX_VALUE).
        timeout = manager.transaction_timeout_ms if manager.is_transactional() else 2**31 - 1
        return {"transactional_id": manager.transactional_id, "transaction_timeout_ms": timeout,
                "producer_id": self.producer_id_and_epoch.producer_id,
                "producer_epoch": self.producer_id_and_epoch.epoch}

    def handle_response(self, body: Any, now_ms: int) -> None:
        manager = self.manager
        error = Errors.for_code(body.error_code)
        if error == Errors.NONE:
            manager.complete_init_producer_id(ProducerIdAndEpoch(body.producer_id, body.producer_epoch),
                                              reset_sequence_numbers=self.is_epoch_bump
                                              or manager.is_transactional())
            if self.result is not None:
                self.result.done()
        elif manager.is_transactional() and error in (Errors.NOT_COORDINATOR,
                                                      Errors.COORDINATOR_NOT_AVAILABLE):
            manager.lookup_coordinator(TRANSACTION, manager.transactional_id)
            self.reenqueue(now_ms)
        elif error in (Errors.INVALID_PRODUCER_EPOCH, Errors.PRODUCER_FENCED):
            self.fatal_error(KafkaError(Errors.PRODUCER_FENCED,
                                        "a newer producer with the same transactional.id "
                                        "fences this one"))
        elif error.retriable:
            # COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR, ... A
            # transactional producer would look its coordinator up again first.
            log.info("InitProducerId failed, will retry", error=error.name,
                     backoff_ms=manager.retry_backoff_ms)
            self.reenqueue(now_ms)
        else:
            self.fatal_error(KafkaError(error, f"InitProducerId failed: {error.message}"))

    def unsupported_version_error(self, error: KafkaError) -> KafkaError:
        return KafkaError(Errors.UNSUPPORTED_VERSION,
                          f"the broker does not support INIT_PRODUCER_ID, which an idempotent producer needs "
                          f"({error}); set enable.idempotence=false to produce to it without idempotence")


def _fenced() -> KafkaError:
    return KafkaError(Errors.PRODUCER_FENCED, "there is a newer producer with the same transactional.id "
                                              "which fences the current one")


class FindCoordinatorHandler(TxnRequestHandler):
    api_key = ApiKey.FIND_COORDINATOR
    max_version = 3  # one key per request is all we ask

    # coordinator_type stays None: FindCoordinator goes to any broker; ``key_type`` is whose it asks for.
    def __init__(self, manager, coordinator_type: int, key: str) -> None:
        super().__init__(manager)
        self.key_type, self.key = coordinator_type, key

    def priority(self) -> int:
        return Priority.FIND_COORDINATOR

    def request_body(self) -> dict[str, Any]:
        return {"key": self.key, "key_type": self.key_type}

    def handle_response(self, body: Any, now_ms: int) -> None:
        coordinators = body.get("coordinators")
        answer = coordinators[0] if coordinators else body
        error = Errors.for_code(answer.error_code)
        if error == Errors.NONE:
            self.manager.set_coordinator(self.key_type, Node(answer.node_id, answer.host, answer.port))
        elif error.retriable:
            self.reenqueue(now_ms)
        elif error == Errors.GROUP_AUTHORIZATION_FAILED:
            self.manager.transition_to_abortable_error(KafkaError(error, f"group {self.key}"))
        else:
            self.fatal_error(KafkaError(error, f"could not find a coordinator with type {self.key_type} "
                                               f"for key {self.key}"))


class AddPartitionsToTxnHandler(TxnRequestHandler):
    api_key = ApiKey.ADD_PARTITIONS_TO_TXN
    max_version = 3  # the clients' versions; 4+ are brokers' (KIP-890)
    coordinator_type = TRANSACTION

    def __init__(self, manager, partitions: set[TopicPartition]) -> None:
        super().__init__(manager)
        self.partitions = partitions

    def priority(self) -> int:
        return Priority.ADD_PARTITIONS_OR_OFFSETS

    def request_body(self) -> dict[str, Any]:
        by_topic: dict[str, list[int]] = {}
        for tp in sorted(self.partitions):
            by_topic.setdefault(tp.topic, []).append(tp.partition)
        pid, epoch = self.manager.producer_id_and_epoch
        return {"transactional_id": self.manager.transactional_id, "producer_id": pid,
                "producer_epoch": epoch,
                "topics": [{"name": t, "partitions": ps} for t, ps in by_topic.items()]}

    def handle_response(self, body: Any, now_ms: int) -> None:
        manager = self.manager
        errors = {TopicPartition(t.name, p.partition_index): Errors.for_code(p.partition_error_code)
                  for t in body.results_by_topic for p in t.results_by_partition}
        failed = {tp: e for tp, e in errors.items() if e != Errors.NONE}
        for tp, error in failed.items():
            if error in COORDINATOR_ERRORS:
                manager.lookup_coordinator(TRANSACTION, manager.transactional_id)
                self.reenqueue(now_ms)
                return
            if error in (Errors.CONCURRENT_TRANSACTIONS, Errors.COORDINATOR_LOAD_IN_PROGRESS,
                         Errors.UNKNOWN_TOPIC_OR_PARTITION,
                         Errors.OPERATION_NOT_ATTEMPTED) or error.retriable:
                self.reenqueue(now_ms)  # the previous transaction is still completing, or the like
                return
            if error in FENCED_ERRORS:
                self.fatal_error(_fenced())
                return
            if error in (Errors.TOPIC_AUTHORIZATION_FAILED, Errors.UNKNOWN_PRODUCER_ID,
                         Errors.INVALID_PRODUCER_ID_MAPPING):
                manager.transition_to_abortable_error(KafkaError(error, f"AddPartitionsToTxn for {tp}"))
                return
            self.fatal_error(KafkaError(error, f"AddPartitionsToTxn for {tp}"))
            return
        manager.partitions_added(set(errors))


class AddOffsetsToTxnHandler(TxnRequestHandler):
    api_key = ApiKey.ADD_OFFSETS_TO_TXN
    coordinator_type = TRANSACTION

    def __init__(self, manager, offsets: dict, group_metadata,
                 result: TransactionalRequestResult) -> None:
        super().__init__(manager)
        self.offsets, self.group_metadata, self.result = offsets, group_metadata, result

    def priority(self) -> int:
        return Priority.ADD_PARTITIONS_OR_OFFSETS

    def request_body(self) -> dict[str, Any]:
        pid, epoch = self.manager.producer_id_and_epoch
        return {"transactional_id": self.manager.transactional_id, "producer_id": pid,
                "producer_epoch": epoch,
                "group_id": self.group_metadata.group_id}

    def fail(self, error: KafkaError | None) -> None:
        self.result.done(error)

    def handle_response(self, body: Any, now_ms: int) -> None:
        manager = self.manager
        error = Errors.for_code(body.error_code)
        if error == Errors.NONE:
            # The group's partition is in the transaction: now the offsets, to the group's coordinator.
            manager.enqueue(TxnOffsetCommitHandler(manager, self.offsets, self.group_metadata, self.result))
        elif error in COORDINATOR_ERRORS:
            manager.lookup_coordinator(TRANSACTION, manager.transactional_id)
            self.reenqueue(now_ms)
        elif error in (Errors.COORDINATOR_LOAD_IN_PROGRESS,
                       Errors.CONCURRENT_TRANSACTIONS) or error.retriable:
            self.reenqueue(now_ms)
        elif error in FENCED_ERRORS:
            self.fatal_error(_fenced())
        elif error == Errors.GROUP_AUTHORIZATION_FAILED:
            self.abortable_error(KafkaError(error, f"group {self.group_metadata.group_id}"))
        else:
            self.fatal_error(KafkaError(error, "AddOffsetsToTxn"))

    def abortable_error(self, error: KafkaError) -> None:
        self.result.done(error)
        self.manager.transition_to_abortable_error(error)


class TxnOffsetCommitHandler(AddOffsetsToTxnHandler):
    api_key = ApiKey.TXN_OFFSET_COMMIT
    max_version = 4  # transaction.version 1: v5 would ask the broker to add the offsets partition itself
    coordinator_type = GROUP

    def coordinator_key(self) -> str:
        return self.group_metadata.group_id

    def request_body(self) -> dict[str, Any]:
        pid, epoch = self.manager.producer_id_and_epoch
        g = self.group_metadata
        by_topic: dict[str, list[dict]] = {}
        for tp, offset in sorted(self.offsets.items()):
            by_topic.setdefault(tp.topic, []).append({
                "partition_index": tp.partition, "committed_offset": offset.offset,
                "committed_leader_epoch": getattr(offset, "leader_epoch", None) or -1,
                "committed_metadata": getattr(offset, "metadata", None) or ""})
        return {"transactional_id": self.manager.transactional_id, "group_id": g.group_id, "producer_id": pid,
                "producer_epoch": epoch, "generation_id": g.generation_id, "member_id": g.member_id,
                "group_instance_id": g.group_instance_id,
                "topics": [{"name": t, "partitions": ps} for t, ps in by_topic.items()]}

    def handle_response(self, body: Any, now_ms: int) -> None:
        manager = self.manager
        errors = [Errors.for_code(p.error_code) for t in body.topics for p in t.partitions]
        failed = [e for e in errors if e != Errors.NONE]
        if not failed:
            self.result.done()
            return
        error = failed[0]
        if error in COORDINATOR_ERRORS:
            manager.lookup_coordinator(GROUP, self.group_metadata.group_id)
            self.reenqueue(now_ms)
        elif error in (Errors.COORDINATOR_LOAD_IN_PROGRESS, Errors.UNKNOWN_TOPIC_OR_PARTITION,
                       Errors.REQUEST_TIMED_OUT, Errors.CONCURRENT_TRANSACTIONS) or error.retriable:
            self.reenqueue(now_ms)
        elif error in FENCED_ERRORS:
            self.fatal_error(_fenced())
        elif error in (Errors.UNKNOWN_MEMBER_ID, Errors.ILLEGAL_GENERATION, Errors.FENCED_INSTANCE_ID,
                       Errors.GROUP_AUTHORIZATION_FAILED, Errors.INVALID_TXN_STATE):
            # The consumer lost its partitions (KIP-447): this transaction cannot commit, the producer lives.
            self.abortable_error(KafkaError(error,
                                            "TxnOffsetCommit: the consumer's group membership was refused"))
        else:
            self.fatal_error(KafkaError(error, "TxnOffsetCommit"))


class EndTxnHandler(TxnRequestHandler):
    api_key = ApiKey.END_TXN
    max_version = 4  # transaction.version 1: v5 bumps the epoch at every commit (KIP-890 part 2)
    coordinator_type = TRANSACTION
    is_end_txn = True

    def __init__(self, manager, committed: bool, result: TransactionalRequestResult) -> None:
        super().__init__(manager)
        self.committed, self.result = committed, result

    def priority(self) -> int:
        return Priority.END_TXN

    def request_body(self) -> dict[str, Any]:
        pid, epoch = self.manager.producer_id_and_epoch
        return {"transactional_id": self.manager.transactional_id, "producer_id": pid,
                "producer_epoch": epoch,
                "committed": self.committed}

    def fail(self, error: KafkaError | None) -> None:
        self.result.done(error)

    def handle_response(self, body: Any, now_ms: int) -> None:
        manager = self.manager
        error = Errors.for_code(body.error_code)
        if error == Errors.NONE:
            manager.complete_transaction()
            self.result.done()
        elif error in COORDINATOR_ERRORS:
            manager.lookup_coordinator(TRANSACTION, manager.transactional_id)
            self.reenqueue(now_ms)
        elif error in (Errors.COORDINATOR_LOAD_IN_PROGRESS,
                       Errors.CONCURRENT_TRANSACTIONS) or error.retriable:
            self.reenqueue(now_ms)
        elif error in FENCED_ERRORS:
            self.fatal_error(_fenced())
        else:
            self.fatal_error(KafkaError(error, f"EndTxn({'commit' if self.committed else 'abort'}) "
                                               f"in state {manager.current_state.name}"))
