"""The transaction part of KafkaApis: InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, EndTxn,
DescribeTransactions, ListTransactions.

Kafka keeps these handlers in kafka.server.KafkaApis itself; here they sit beside it, as GroupApis
does: KafkaServer builds the family with what it uses (the TransactionCoordinator, the
MetadataCache, the AuthHelper and the RequestHandlerHelper that answers), and KafkaApis' dispatch
table includes ``TransactionApis.handlers()``. Seed 000's shape: decode, call the
TransactionCoordinator with a callback, respond from the callback -- which for InitProducerId and
EndTxn runs once the coordinator's record is committed in __transaction_state. FindCoordinator for
a transactional id is GroupApis' (it asks the TransactionCoordinator), and a transactional Produce
is checked against the transaction by the AddPartitionsToTxnManager.
"""

from __future__ import annotations

from collections.abc import Callable

from kafka.coordinator.transaction.transaction_coordinator import (
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    InitProducerIdResult,
    TransactionCoordinator,
)
from kafka.coordinator.transaction.transaction_version import for_add_partitions_to_txn, for_end_txn
from kafka.network.request_channel import Request
from kafka.protocol.acl import CLUSTER_NAME
from kafka.protocol.acl import AclOperation as Op
from kafka.protocol.acl import ResourceType as Res
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.server.auth_helper import AuthHelper
from kafka.server.metadata_cache import MetadataCache
from kafka.server.request_handler_helper import RequestHandlerHelper
from kafka.utils.topic_partition import TopicPartition


def fenced_for_version(error: Errors, version: int, fenced_from: int) -> Errors:
    """Clients older than the version that knows PRODUCER_FENCED (KIP-588) hear INVALID_PRODUCER_EPOCH:
    InitProducerId before v4; AddPartitionsToTxn, AddOffsetsToTxn and EndTxn before v2."""
    if error == Errors.PRODUCER_FENCED and version < fenced_from:
        return Errors.INVALID_PRODUCER_EPOCH
    return error


class TransactionApis:
    def __init__(self, request_helper: RequestHandlerHelper, auth_helper: AuthHelper,
                 transaction_coordinator: TransactionCoordinator, metadata_cache: MetadataCache) -> None:
        self.request_helper = request_helper
        self.auth = auth_helper  # Kafka's rules: WRITE on the transactional id to use it
        self.coordinator = transaction_coordinator
        self.metadata_cache = metadata_cache  # AddPartitionsToTxn: which partitions exist

    def handlers(self) -> dict[int, Callable[[Request], None]]:
        handlers = {ApiKey.INIT_PRODUCER_ID: self.handle_init_producer_id_request}
        if self.coordinator.txn_manager is not None:  # in the table, so ApiVersions advertises them
            handlers.update({
                ApiKey.ADD_PARTITIONS_TO_TXN: self.handle_add_partitions_to_txn_request,
                ApiKey.ADD_OFFSETS_TO_TXN: self.handle_add_offsets_to_txn_request,
                ApiKey.END_TXN: self.handle_end_txn_request,
                ApiKey.DESCRIBE_TRANSACTIONS: self.handle_describe_transactions_request,
                ApiKey.LIST_TRANSACTIONS: self.handle_list_transactions_request,
            })
        return handlers

    # ------------------------------------------------------------------ InitProducerId
    def handle_init_producer_id_request(self, request: Request) -> None:
        """A producer id (Kafka's handleInitProducerIdRequest). The coordinator answers through the
        callback, later if a block of ids is on its way or a record is being committed."""
        req = request.body
        version = request.header.api_version
        # v3+ (KIP-360): a producer bumping its epoch sends both its id and epoch, or neither.
        if (req.producer_id == NO_PRODUCER_ID) != (req.producer_epoch == NO_PRODUCER_EPOCH):
            self.request_helper.send_response_maybe_throttle(request, dict(
                throttle_time_ms=0, error_code=Errors.INVALID_REQUEST, producer_id=NO_PRODUCER_ID,
                producer_epoch=NO_PRODUCER_EPOCH))
            return
        expected = None if req.producer_id == NO_PRODUCER_ID else (req.producer_id, req.producer_epoch)
        denied = self._init_producer_id_denied(request, req.transactional_id)
        if denied is not None:
            self.request_helper.send_response_maybe_throttle(request, dict(
                throttle_time_ms=0, error_code=denied, producer_id=NO_PRODUCER_ID,
                producer_epoch=NO_PRODUCER_EPOCH))
            return

        def send_response_callback(result: InitProducerIdResult) -> None:
            self.request_helper.send_response_maybe_throttle(request, dict(
                throttle_time_ms=0, error_code=fenced_for_version(result.error, version, 4),
                producer_id=result.producer_id, producer_epoch=result.producer_epoch))

        self.coordinator.handle_init_producer_id(req.transactional_id, req.transaction_timeout_ms, expected,
                                                 send_response_callback)

    def _init_producer_id_denied(self, request: Request, transactional_id: str | None) -> Errors | None:
        """A transactional producer needs WRITE on its transactional id; an idempotent one IDEMPOTENT_WRITE
        on the cluster, or WRITE on some topic (KIP-679)."""
        if transactional_id is not None:
            allowed = self.auth.authorize(request, Op.WRITE, Res.TRANSACTIONAL_ID, transactional_id)
            return None if allowed else Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
        if (self.auth.authorize(request, Op.IDEMPOTENT_WRITE, Res.CLUSTER, CLUSTER_NAME, log_if_denied=False)
                or self.auth.authorize_by_resource_type(request, Op.WRITE, Res.TOPIC)):
            return None
        return Errors.CLUSTER_AUTHORIZATION_FAILED

    # ------------------------------------------------------------------ AddPartitionsToTxn / AddOffsetsToTxn
    def handle_add_partitions_to_txn_request(self, request: Request) -> None:
        req = request.body
        version = request.header.api_version
        if version >= 4:
            self._handle_add_partitions_from_broker(request)
            return
        wanted = [TopicPartition(t.name, p) for t in req.topics for p in t.partitions]
        unknown = {tp for tp in wanted if not self._partition_exists(tp)}

        def respond(errors: dict[TopicPartition, Errors]) -> None:
            by_topic: dict[str, list[dict]] = {}
            for tp in wanted:
                by_topic.setdefault(tp.topic, []).append(dict(
                    partition_index=tp.partition,
                    partition_error_code=fenced_for_version(errors[tp], version, 2)))
            self.request_helper.send_response_maybe_throttle(request,
                                                             dict(throttle_time_ms=0, results_by_topic=[
                dict(name=name, results_by_partition=parts) for name, parts in by_topic.items()]))

        if not self.auth.authorize(request, Op.WRITE, Res.TRANSACTIONAL_ID, req.transactional_id):
            respond({tp: Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED for tp in wanted})
            return
        writable = self.auth.filter_by_authorized(request, Op.WRITE, Res.TOPIC,
                                                  (tp.topic for tp in wanted
                                                   if not tp.topic.startswith("__")))
        failed = {tp: Errors.TOPIC_AUTHORIZATION_FAILED for tp in wanted
                  if tp.topic not in writable and not tp.topic.startswith("__")}
        failed.update({tp: Errors.UNKNOWN_TOPIC_OR_PARTITION for tp in unknown if tp not in failed})
        if failed:  # Kafka: the failing ones fail, the others are not added (OPERATION_NOT_ATTEMPTED)
            respond({tp: failed.get(tp, Errors.OPERATION_NOT_ATTEMPTED) for tp in wanted})
            return
        self.coordinator.handle_add_partitions_to_transaction(
            req.transactional_id, req.producer_id, req.producer_epoch, set(wanted),
            lambda error: respond({tp: error for tp in wanted}))

    def _handle_add_partitions_from_broker(self, request: Request) -> None:
        """AddPartitionsToTxn v4+ (KIP-890): a partition leader asks for several transactions at once, each
        verify-only or (v5, transaction.version 2) add. Only a broker may (CLUSTER_ACTION on the cluster);
        the answer goes once every transaction's is in."""
        transactions = request.body.transactions
        version = request.header.api_version
        if not self.auth.authorize(request, Op.CLUSTER_ACTION, Res.CLUSTER, CLUSTER_NAME):
            self.request_helper.send_response_maybe_throttle(request, dict(
                throttle_time_ms=0, error_code=Errors.CLUSTER_AUTHORIZATION_FAILED,
                results_by_transaction=[]))
            return
        results: dict[str, dict[TopicPartition, Errors]] = {}

        def add_result_and_maybe_send_response(transactional_id: str,
                                               errors: dict[TopicPartition, Errors]) -> None:
            results[transactional_id] = errors
            if len(results) < len(transactions):
                return
            self.request_helper.send_response_maybe_throttle(request, dict(
                throttle_time_ms=0, error_code=Errors.NONE, results_by_transaction=[
                    dict(transactional_id=t.transactional_id,
                         topic_results=_topic_results(results[t.transactional_id])) for t in transactions]))

        if not transactions:
            add_result_and_maybe_send_response("", {})
        for txn in transactions:
            wanted = {TopicPartition(t.name, p) for t in txn.topics for p in t.partitions}
            unknown = {tp for tp in wanted if not self._partition_exists(tp)}
            tid = txn.transactional_id
            if unknown:  # the others are not added
                add_result_and_maybe_send_response(tid, {
                    tp: Errors.UNKNOWN_TOPIC_OR_PARTITION if tp in unknown else Errors.OPERATION_NOT_ATTEMPTED
                    for tp in wanted})
            elif txn.verify_only:
                verify = self.coordinator.handle_verify_partitions_in_transaction
                verified = verify(tid, txn.producer_id, txn.producer_epoch, wanted)
                add_result_and_maybe_send_response(tid, verified)
            else:
                self.coordinator.handle_add_partitions_to_transaction(
                    tid, txn.producer_id, txn.producer_epoch, wanted,
                    lambda error, tid=tid, wanted=wanted: add_result_and_maybe_send_response(
                        tid, dict.fromkeys(wanted, error)), for_add_partitions_to_txn(version))

    def _partition_exists(self, tp: TopicPartition) -> bool:
        topic = self.metadata_cache.get_topic(tp.topic)
        return topic is not None and topic.partition(tp.partition) is not None

    def handle_add_offsets_to_txn_request(self, request: Request) -> None:
        req = request.body
        version = request.header.api_version
        self.auth.require(request, Op.WRITE, Res.TRANSACTIONAL_ID, req.transactional_id,
                          Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
        self.auth.require(request, Op.READ, Res.GROUP, req.group_id, Errors.GROUP_AUTHORIZATION_FAILED)
        self.coordinator.handle_add_offsets_to_transaction(
            req.transactional_id, req.producer_id, req.producer_epoch, req.group_id,
            lambda error: self.request_helper.send_response_maybe_throttle(request, dict(
                throttle_time_ms=0, error_code=fenced_for_version(error, version, 2))))

    # ------------------------------------------------------------------ EndTxn
    def handle_end_txn_request(self, request: Request) -> None:
        req = request.body
        version = request.header.api_version
        self.auth.require(request, Op.WRITE, Res.TRANSACTIONAL_ID, req.transactional_id,
                          Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
        self.coordinator.handle_end_transaction(
            req.transactional_id, req.producer_id, req.producer_epoch, req.committed,
            lambda error, pid, epoch: self.request_helper.send_response_maybe_throttle(request, dict(
                throttle_time_ms=0, error_code=fenced_for_version(error, version, 2),
                producer_id=pid, producer_epoch=epoch)),  # v5: what the producer goes on with
            for_end_txn(version))

    # ------------------------------------------------------------ DescribeTransactions / ListTransactions
    def handle_describe_transactions_request(self, request: Request) -> None:
        states = [self._describe_transaction(request, tid) for tid in request.body.transactional_ids]
        self.request_helper.send_response_maybe_throttle(request, dict(throttle_time_ms=0,
                                                                       transaction_states=states))

    def _describe_transaction(self, request: Request, transactional_id: str) -> dict:
        """DESCRIBE on the transactional id, and only the topics the principal may describe (Kafka's rule)."""
        if not self.auth.authorize(request, Op.DESCRIBE, Res.TRANSACTIONAL_ID, transactional_id):
            return dict(transactional_id=transactional_id,
                        error_code=Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
                        transaction_state="", transaction_timeout_ms=0, transaction_start_time_ms=-1,
                        producer_id=NO_PRODUCER_ID, producer_epoch=NO_PRODUCER_EPOCH, topics=[])
        state = self.coordinator.handle_describe_transactions(transactional_id)
        describable = self.auth.filter_by_authorized(request, Op.DESCRIBE, Res.TOPIC,
                                                     (t["topic"] for t in state["topics"]))
        return {**state, "topics": [t for t in state["topics"] if t["topic"] in describable]}

    def handle_list_transactions_request(self, request: Request) -> None:
        req = request.body
        duration = req.duration_filter if request.header.api_version >= 1 else -1
        pattern = req.transactional_id_pattern if request.header.api_version >= 2 else None  # KIP-1152
        body = self.coordinator.handle_list_transactions(set(req.producer_id_filters), set(req.state_filters),
                                                         duration, pattern)
        body["transaction_states"] = [t for t in body["transaction_states"] if self.auth.authorize(
            request, Op.DESCRIBE, Res.TRANSACTIONAL_ID, t["transactional_id"])]
        self.request_helper.send_response_maybe_throttle(request, dict(throttle_time_ms=0, **body))


def _topic_results(errors: dict[TopicPartition, Errors]) -> list[dict]:
    by_topic: dict[str, list[dict]] = {}
    for tp, error in sorted(errors.items()):
        by_topic.setdefault(tp.topic, []).append(dict(partition_index=tp.partition,
                                                      partition_error_code=error))
    return [dict(name=name, results_by_partition=parts) for name, parts in by_topic.items()]
