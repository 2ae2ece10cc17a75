"""The transactional requests of the TransactionManager and what each answer does (the inner
handler classes of Kafka's producer.internals.TransactionManager: FindCoordinatorHandler,
AddPartitionsToTxnHandler, AddOffsetsToTxnHandler, TxnOffsetCommitHandler, EndTxnHandler).

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

from typing import Any

import structlog

from kafka.clients.errors import KafkaError
from kafka.clients.metadata import Node
from kafka.clients.producer.transaction_manager import (
    GROUP,
    TRANSACTION,
    Priority,
    State,
    TransactionManager,
    TxnRequestHandler,
)
from kafka.clients.producer.transactional_request_result import TransactionalRequestResult
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.clients.producer.TransactionManager")

COORDINATOR_ERRORS = frozenset({Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR})
# Answered by every transactional request once a newer instance has the transactional id.
FENCED_ERRORS = frozenset({Errors.INVALID_PRODUCER_EPOCH, Errors.PRODUCER_FENCED})


def _fenced() -> KafkaError:
    return KafkaError(Errors.PRODUCER_FENCED, "there is a newer producer with the same transactional.id "
                                              "which fences the current one")


class FindCoordinatorHandler(TxnRequestHandler):
    api_key = ApiKey.FIND_COORDINATOR
    max_version = 3  # one key per request is all we ask

    # coordinator_type stays None: FindCoordinator goes to any broker; ``key_type`` is whose it asks for.
    def __init__(self, manager: TransactionManager, coordinator_type: int, key: str) -> None:
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
    coordinator_type = TRANSACTION

    def __init__(self, manager: TransactionManager, partitions: set[TopicPartition]) -> None:
        super().__init__(manager)
        self.partitions = partitions

    def priority(self) -> int:
        return Priority.ADD_PARTITIONS_OR_OFFSETS

    def request_body(self) -> dict[str, Any]:
        by_topic: dict[str, list[int]] = {}
        for tp in sorted(self.partitions):
            by_topic.setdefault(tp.topic, []).append(tp.partition)
        pid, epoch = self.manager.producer_id_and_epoch
        return {"transactional_id": self.manager.transactional_id, "producer_id": pid, "producer_epoch": epoch,
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
                         Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.OPERATION_NOT_ATTEMPTED) or error.retriable:
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

    def __init__(self, manager: TransactionManager, offsets: dict, group_metadata,
                 result: TransactionalRequestResult) -> None:
        super().__init__(manager)
        self.offsets, self.group_metadata, self.result = offsets, group_metadata, result

    def priority(self) -> int:
        return Priority.ADD_PARTITIONS_OR_OFFSETS

    def request_body(self) -> dict[str, Any]:
        pid, epoch = self.manager.producer_id_and_epoch
        return {"transactional_id": self.manager.transactional_id, "producer_id": pid, "producer_epoch": epoch,
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
        elif error in (Errors.COORDINATOR_LOAD_IN_PROGRESS, Errors.CONCURRENT_TRANSACTIONS) or error.retriable:
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
            self.abortable_error(KafkaError(error, "TxnOffsetCommit: the consumer's group membership was refused"))
        else:
            self.fatal_error(KafkaError(error, "TxnOffsetCommit"))


class EndTxnHandler(TxnRequestHandler):
    api_key = ApiKey.END_TXN
    coordinator_type = TRANSACTION
    is_end_txn = True

    def __init__(self, manager: TransactionManager, committed: bool, result: TransactionalRequestResult) -> None:
        super().__init__(manager)
        self.committed, self.result = committed, result

    def priority(self) -> int:
        return Priority.END_TXN

    def request_body(self) -> dict[str, Any]:
        pid, epoch = self.manager.producer_id_and_epoch
        return {"transactional_id": self.manager.transactional_id, "producer_id": pid, "producer_epoch": epoch,
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
        elif error in (Errors.COORDINATOR_LOAD_IN_PROGRESS, Errors.CONCURRENT_TRANSACTIONS) or error.retriable:
            self.reenqueue(now_ms)
        elif error in FENCED_ERRORS:
            self.fatal_error(_fenced())
        else:
            self.fatal_error(KafkaError(error, f"EndTxn({'commit' if self.committed else 'abort'}) "
                                               f"in state {manager.current_state.name}"))


__all__ = ["AddOffsetsToTxnHandler", "AddPartitionsToTxnHandler", "EndTxnHandler", "FindCoordinatorHandler",
           "TxnOffsetCommitHandler", "State"]
