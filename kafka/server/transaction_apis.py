"""The transaction part of KafkaApis: InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, EndTxn,
DescribeTransactions, ListTransactions, and FindCoordinator for a transactional id.

Kafka keeps these handlers in kafka.server.KafkaApis itself; here they sit beside it, as GroupApis
does, and KafkaApis' dispatch table includes ``TransactionApis.handlers()``. Seed 000's shape:
decode, call the TransactionCoordinator with a callback, respond from the callback -- which for
InitProducerId and EndTxn runs once the coordinator's record is committed in __transaction_state.
"""

from __future__ import annotations

from collections.abc import Callable

from kafka.coordinator.transaction.transaction_coordinator import (
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    InitProducerIdResult,
    TransactionCoordinator,
)
from kafka.coordinator.transaction.transaction_log import TRANSACTION_STATE_TOPIC_NAME
from kafka.network.request_channel import Request
from kafka.protocol.acl import CLUSTER_NAME
from kafka.protocol.acl import AclOperation as Op
from kafka.protocol.acl import ResourceType as Res
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import HEADER_SIZE, RecordBatch
from kafka.utils.topic_partition import TopicPartition


def fenced_for_version(error: Errors, version: int, fenced_from: int) -> Errors:
    """Clients older than the version that knows PRODUCER_FENCED (KIP-588) hear INVALID_PRODUCER_EPOCH:
    InitProducerId before v4; AddPartitionsToTxn, AddOffsetsToTxn and EndTxn before v2."""
    return Errors.INVALID_PRODUCER_EPOCH if error == Errors.PRODUCER_FENCED and version < fenced_from else error


class TransactionApis:
    def __init__(self, apis, transaction_coordinator: TransactionCoordinator) -> None:
        self.apis = apis  # KafkaApis: send_response, admin_manager, metadata_cache, config
        self.coordinator = transaction_coordinator
        self.auth = apis.auth_helper  # Kafka's rules: WRITE on the transactional id to use it

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

    def send_response(self, request: Request, body: dict) -> None:
        self.apis.send_response(request, body)

    # ------------------------------------------------------------------ Produce's verification (KIP-890 part 1)
    def refused_produce(self, transactional_id: str | None, entries: dict[TopicPartition, bytes]
                        ) -> dict[TopicPartition, tuple[Errors, str | None]]:
        """Kafka's checks of a Produce's transactional batches before any append: a transactional id
        must come with them (TRANSACTIONAL_ID_AUTHORIZATION_FAILED otherwise), and, unless
        transaction.partition.verification.enable is off, each partition without this producer's
        transaction open yet must have been added to the transaction."""
        first = {tp: RecordBatch(records) for tp, records in entries.items() if len(records) >= HEADER_SIZE}
        transactional = {tp: batch for tp, batch in first.items() if batch.is_transactional}
        if not transactional:
            return {}
        if transactional_id is None:
            return dict.fromkeys(entries, (Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, None))
        if not self.apis.config.transaction_partition_verification_enable:
            return {}
        batch = next(iter(transactional.values()))
        unverified = {tp for tp, b in transactional.items() if not self._has_ongoing_transaction(tp, b.producer_id)}
        if not unverified:
            return {}
        return self.verify_partitions(transactional_id, batch.producer_id, batch.producer_epoch, unverified)

    def _has_ongoing_transaction(self, tp: TopicPartition, producer_id: int) -> bool:
        partition = self.apis.replica_manager.get_partition(tp)
        log = partition.log if partition is not None else None
        entry = log.producer_state_manager.last_entry(producer_id) if log is not None else None
        return entry is not None and entry.current_txn_first_offset is not None

    def verify_partitions(self, transactional_id: str, producer_id: int, producer_epoch: int,
                          partitions: set[TopicPartition]) -> dict[TopicPartition, tuple[Errors, str | None]]:
        """The partitions a transactional Produce may not append to, with the error and message Kafka's
        ReplicaManager answers them with. Only when this broker is the transactional id's coordinator:
        another broker's coordinator would need AddPartitionsToTxn v4 (verify only), which this broker
        does not send, so then the batch is appended unverified."""
        if self.coordinator.txn_manager is None or not self.coordinator.is_active.is_set():
            return {}
        verdicts = self.coordinator.handle_verify_partitions_in_transaction(
            transactional_id, producer_id, producer_epoch, partitions)
        refused = {}
        for tp, error in verdicts.items():
            if error in (Errors.NONE, Errors.NOT_COORDINATOR):
                continue
            if error == Errors.INVALID_TXN_STATE:
                refused[tp] = (error, "Partition was not added to the transaction")
            elif error in (Errors.CONCURRENT_TRANSACTIONS, Errors.COORDINATOR_LOAD_IN_PROGRESS):
                # retriable, in a form older producers retry without refreshing their metadata
                refused[tp] = (Errors.NOT_ENOUGH_REPLICAS, "Unable to verify the partition has been added to "
                                                           f"the transaction. Underlying error: {error.name}")
            else:  # a fenced producer hears INVALID_PRODUCER_EPOCH from Produce, as from its log
                refused[tp] = (Errors.INVALID_PRODUCER_EPOCH if error == Errors.PRODUCER_FENCED else error, None)
        return refused

    # ------------------------------------------------------------------ FindCoordinator (key_type 1)
    def find_coordinator(self, key: str, listener: str) -> dict:
        """The leader of the transactional id's __transaction_state partition, created on first need."""
        failed = dict(key=key, node_id=-1, host="", port=-1)
        if self.coordinator.txn_manager is None:
            return {**failed, "error_code": Errors.COORDINATOR_NOT_AVAILABLE,
                    "error_message": "this broker has no transaction coordinator"}
        if not key:
            return {**failed, "error_code": Errors.INVALID_REQUEST, "error_message": "empty transactional id"}
        error = self.ensure_transaction_topic()
        if error is not None:
            return {**failed, "error_code": Errors.COORDINATOR_NOT_AVAILABLE, "error_message": error}
        partition = self.coordinator.partition_for(key)
        leader, end_point = self.apis.metadata_cache.partition_leader_end_point(
            TRANSACTION_STATE_TOPIC_NAME, partition, listener)
        if end_point is None:
            return {**failed, "error_code": Errors.COORDINATOR_NOT_AVAILABLE,
                    "error_message": f"{TRANSACTION_STATE_TOPIC_NAME}-{partition} has no live leader yet"}
        return dict(key=key, node_id=leader, host=end_point.host, port=end_point.port, error_code=Errors.NONE,
                    error_message="")  # Kafka: NONE's message, the empty string

    def ensure_transaction_topic(self) -> str | None:
        """Create __transaction_state on first use, as Kafka does: None if it exists, else why the
        coordinator is not available yet (the creation is not waited for; see ensure_offsets_topic)."""
        creator = self.apis.auto_topic_creation_manager
        if self.apis.metadata_cache.contains(TRANSACTION_STATE_TOPIC_NAME):
            return f"{TRANSACTION_STATE_TOPIC_NAME} is being created" if creator.is_inflight(TRANSACTION_STATE_TOPIC_NAME) else None
        config = self.apis.config
        creator.create_topic(
            TRANSACTION_STATE_TOPIC_NAME, config.transaction_state_log_num_partitions,
            config.transaction_state_log_replication_factor, self.coordinator.transaction_topic_configs())
        return f"{TRANSACTION_STATE_TOPIC_NAME} is being created"

    # ------------------------------------------------------------------ InitProducerId
    def handle_init_producer_id_request(self, request: Request) -> None:
        """A producer id (Kafka's handleInitProducerIdRequest). The coordinator answers through the
        callback, later if a block of ids is on its way or a record is being committed."""
        req = request.body
        version = request.header.api_version
        # v3+ (KIP-360): a producer bumping its epoch sends both its id and epoch, or neither.
        if (req.producer_id == NO_PRODUCER_ID) != (req.producer_epoch == NO_PRODUCER_EPOCH):
            self.send_response(request, dict(throttle_time_ms=0, error_code=Errors.INVALID_REQUEST,
                                             producer_id=NO_PRODUCER_ID, producer_epoch=NO_PRODUCER_EPOCH))
            return
        expected = None if req.producer_id == NO_PRODUCER_ID else (req.producer_id, req.producer_epoch)
        denied = self._init_producer_id_denied(request, req.transactional_id)
        if denied is not None:
            self.send_response(request, dict(throttle_time_ms=0, error_code=denied, producer_id=NO_PRODUCER_ID,
                                             producer_epoch=NO_PRODUCER_EPOCH))
            return

        def send_response_callback(result: InitProducerIdResult) -> None:
            self.send_response(request, dict(throttle_time_ms=0, error_code=fenced_for_version(result.error, version, 4),
                                             producer_id=result.producer_id, producer_epoch=result.producer_epoch))

        self.coordinator.handle_init_producer_id(req.transactional_id, req.transaction_timeout_ms, expected,
                                                 send_response_callback)

    def _init_producer_id_denied(self, request: Request, transactional_id: str | None) -> Errors | None:
        """A transactional producer needs WRITE on its transactional id; an idempotent one IDEMPOTENT_WRITE
        on the cluster, or WRITE on some topic (KIP-679)."""
        if transactional_id is not None:
            allowed = self.auth.authorize(request, Op.WRITE, Res.TRANSACTIONAL_ID, transactional_id)
            return None if allowed else Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
        if self.auth.authorize(request, Op.IDEMPOTENT_WRITE, Res.CLUSTER, CLUSTER_NAME, log_if_denied=False) \
                or self.auth.authorize_by_resource_type(request, Op.WRITE, Res.TOPIC):
            return None
        return Errors.CLUSTER_AUTHORIZATION_FAILED

    # ------------------------------------------------------------------ AddPartitionsToTxn / AddOffsetsToTxn
    def handle_add_partitions_to_txn_request(self, request: Request) -> None:
        req = request.body
        version = request.header.api_version
        wanted = [TopicPartition(t.name, p) for t in req.topics for p in t.partitions]
        unknown = {tp for tp in wanted if not self._partition_exists(tp)}

        def respond(errors: dict[TopicPartition, Errors]) -> None:
            by_topic: dict[str, list[dict]] = {}
            for tp in wanted:
                by_topic.setdefault(tp.topic, []).append(dict(
                    partition_index=tp.partition, partition_error_code=fenced_for_version(errors[tp], version, 2)))
            self.send_response(request, dict(throttle_time_ms=0, results_by_topic=[
                dict(name=name, results_by_partition=parts) for name, parts in by_topic.items()]))

        if not self.auth.authorize(request, Op.WRITE, Res.TRANSACTIONAL_ID, req.transactional_id):
            respond({tp: Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED for tp in wanted})
            return
        writable = self.auth.filter_by_authorized(request, Op.WRITE, Res.TOPIC,
                                                  (tp.topic for tp in wanted if not tp.topic.startswith("__")))
        failed = {tp: Errors.TOPIC_AUTHORIZATION_FAILED for tp in wanted
                  if tp.topic not in writable and not tp.topic.startswith("__")}
        failed.update({tp: Errors.UNKNOWN_TOPIC_OR_PARTITION for tp in unknown if tp not in failed})
        if failed:  # Kafka: the failing ones fail, the others are not added (OPERATION_NOT_ATTEMPTED)
            respond({tp: failed.get(tp, Errors.OPERATION_NOT_ATTEMPTED) for tp in wanted})
            return
        self.coordinator.handle_add_partitions_to_transaction(
            req.transactional_id, req.producer_id, req.producer_epoch, set(wanted),
            lambda error: respond({tp: error for tp in wanted}))

    def _partition_exists(self, tp: TopicPartition) -> bool:
        topic = self.apis.metadata_cache.get_topic(tp.topic)
        return topic is not None and topic.partition(tp.partition) is not None

    def handle_add_offsets_to_txn_request(self, request: Request) -> None:
        req = request.body
        version = request.header.api_version
        self.auth.require(request, Op.WRITE, Res.TRANSACTIONAL_ID, req.transactional_id,
                          Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
        self.auth.require(request, Op.READ, Res.GROUP, req.group_id, Errors.GROUP_AUTHORIZATION_FAILED)
        self.coordinator.handle_add_offsets_to_transaction(
            req.transactional_id, req.producer_id, req.producer_epoch, req.group_id,
            lambda error: self.send_response(request, dict(throttle_time_ms=0,
                                                           error_code=fenced_for_version(error, version, 2))))

    # ------------------------------------------------------------------ EndTxn
    def handle_end_txn_request(self, request: Request) -> None:
        req = request.body
        version = request.header.api_version
        self.auth.require(request, Op.WRITE, Res.TRANSACTIONAL_ID, req.transactional_id,
                          Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
        self.coordinator.handle_end_transaction(
            req.transactional_id, req.producer_id, req.producer_epoch, req.committed,
            lambda error, _pid, _epoch: self.send_response(request, dict(
                throttle_time_ms=0, error_code=fenced_for_version(error, version, 2))))

    # ------------------------------------------------------------------ DescribeTransactions / ListTransactions
    def handle_describe_transactions_request(self, request: Request) -> None:
        states = [self._describe_transaction(request, tid) for tid in request.body.transactional_ids]
        self.send_response(request, dict(throttle_time_ms=0, transaction_states=states))

    def _describe_transaction(self, request: Request, transactional_id: str) -> dict:
        """DESCRIBE on the transactional id, and only the topics the principal may describe (Kafka's rule)."""
        if not self.auth.authorize(request, Op.DESCRIBE, Res.TRANSACTIONAL_ID, transactional_id):
            return dict(transactional_id=transactional_id, error_code=Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
                        transaction_state="", transaction_timeout_ms=0, transaction_start_time_ms=-1,
                        producer_id=NO_PRODUCER_ID, producer_epoch=NO_PRODUCER_EPOCH, topics=[])
        state = self.coordinator.handle_describe_transactions(transactional_id)
        describable = self.auth.filter_by_authorized(request, Op.DESCRIBE, Res.TOPIC,
                                                     (t["topic"] for t in state["topics"]))
        return {**state, "topics": [t for t in state["topics"] if t["topic"] in describable]}

    def handle_list_transactions_request(self, request: Request) -> None:
        req = request.body
        duration = req.duration_filter if request.header.api_version >= 1 else -1
        body = self.coordinator.handle_list_transactions(set(req.producer_id_filters), set(req.state_filters),
                                                         duration)
        body["transaction_states"] = [t for t in body["transaction_states"] if self.auth.authorize(
            request, Op.DESCRIBE, Res.TRANSACTIONAL_ID, t["transactional_id"])]
        self.send_response(request, dict(throttle_time_ms=0, **body))
