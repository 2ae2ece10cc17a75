"""KafkaApis: what each request means (Kafka's kafka.server.KafkaApis).

Seed 000: "Kafka API becomes thinner, only handling request-level application logic and talk to
Request Channel." `handle` decodes the body and looks the handler up in a table keyed by API key.
Each handler turns the request into calls on a manager (ReplicaManager, MetadataCache,
FetchManager) and passes a response callback down; the callback encodes the response and puts it
on the RequestChannel through the RequestHandlerHelper, now or later, from whichever thread
completes the work.

The data-plane APIs of seed 002 (Produce, Fetch, ListOffsets, Metadata) live here, with
OffsetForLeaderEpoch, WriteTxnMarkers, ApiVersions, and the quorum requests and UpdateFeatures forwarded
to the controller. The other families sit beside it in files of their own, each built by KafkaServer
with exactly the collaborators it uses, and merged into the same table: StorageApis (storage_apis.py),
GroupApis and ConsumerGroupApis (group_apis.py, consumer_group_apis.py: the GroupCoordinator's door),
TransactionApis (transaction_apis.py: the TransactionCoordinator's), AdminApis (admin_apis.py),
ClientQuotaApis, AclApis and SaslApis. No family knows KafkaApis: each answers through the same
RequestHandlerHelper and asks the same AuthHelper.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Protocol

import structlog

from kafka.controller.feature_control_manager import api_versions_features
from kafka.coordinator.group.group_coordinator_service import GroupCoordinatorService
from kafka.log.append_origin import AppendOrigin
from kafka.network.request_channel import Request
from kafka.protocol.acl import CLUSTER_NAME
from kafka.protocol.acl import AclOperation as Op
from kafka.protocol.acl import ResourceType as Res
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.control_records import end_txn_marker_batch
from kafka.protocol.errors import Errors, InvalidRequestError
from kafka.protocol.messages.produce import validate_records
from kafka.server import fetch_request
from kafka.server.add_partitions_to_txn_manager import AddPartitionsToTxnManager
from kafka.server.api_request_handler import ApiRequestHandler
from kafka.server.auth_helper import AuthHelper
from kafka.server.auto_topic_creation_manager import AutoTopicCreationManager
from kafka.server.delayed_remote_list_offsets import partition_response
from kafka.server.describe_topic_partitions_request_handler import DescribeTopicPartitionsRequestHandler
from kafka.server.fetch_manager import FetchManager, SessionlessFetchContext
from kafka.server.fetch_partition_data import FetchPartitionData
from kafka.server.fetch_request import replica_id_and_epoch, uses_topic_ids
from kafka.server.fetch_response import add_leader_hints, topic_responses
from kafka.server.forwarding_manager import ForwardingManager
from kafka.server.metadata_cache import MetadataCache, unknown_topic_error
from kafka.server.replica_manager import FetchParams, ReplicaManager, release_records
from kafka.server.request_handler_helper import RequestHandlerHelper
from kafka.utils.topic_id_partition import TopicIdPartition
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.server.KafkaApis")

INT32_MAX = 2**31 - 1
GROUP_METADATA_TOPIC_NAME = "__consumer_offsets"
WRITE_TXN_MARKERS_TIMEOUT_MS = 30_000  # Kafka appends markers with request.timeout.ms (default 30 s)


class HandlerFamily(Protocol):
    """StorageApis, GroupApis, AdminApis, ...: a table of the handlers of their APIs."""

    def handlers(self) -> dict[int, Callable[[Request], None]]: ...


class KafkaApis(ApiRequestHandler):
    def __init__(self, request_helper: RequestHandlerHelper, auth_helper: AuthHelper,
                 replica_manager: ReplicaManager, metadata_cache: MetadataCache, fetch_manager: FetchManager,
                 auto_topic_creation_manager: AutoTopicCreationManager, forwarding_manager: ForwardingManager,
                 config, families: Iterable[HandlerFamily] = (),
                 group_coordinator: GroupCoordinatorService | None = None,
                 add_partitions_to_txn_manager: AddPartitionsToTxnManager | None = None) -> None:
        self.request_helper = request_helper  # answers: encode, the Request quota, the RequestChannel
        self.auth_helper = auth_helper  # authorisation (docs/acls.md); no authoriser: everything allowed
        self.replica_manager = replica_manager
        self.metadata_cache = metadata_cache
        self.fetch_manager = fetch_manager  # fetch sessions (KIP-227)
        self.auto_topic_creation_manager = auto_topic_creation_manager  # Metadata for a missing topic
        self.forwarding_manager = forwarding_manager  # DescribeQuorum, Add/RemoveRaftVoter: the controller's
        self.config = config  # auto.create.topics.enable
        self.group_coordinator = group_coordinator  # WriteTxnMarkers completes transactional offsets there
        self.add_partitions_to_txn_manager = add_partitions_to_txn_manager  # a transactional Produce's check
        self.describe_topic_partitions_request_handler = DescribeTopicPartitionsRequestHandler(
            metadata_cache, auth_helper, config)
        self.handlers: dict[int, Callable[[Request], None]] = {
            ApiKey.PRODUCE: self.handle_produce_request,
            ApiKey.FETCH: self.handle_fetch_request,
            ApiKey.LIST_OFFSETS: self.handle_list_offsets_request,
            ApiKey.METADATA: self.handle_topic_metadata_request,
            ApiKey.DESCRIBE_TOPIC_PARTITIONS: self.handle_describe_topic_partitions_request,  # KIP-966
            ApiKey.API_VERSIONS: self.handle_api_versions_request,
            ApiKey.DESCRIBE_QUORUM: self.handle_describe_quorum_request,
            ApiKey.ADD_RAFT_VOTER: self.handle_raft_voter_request,  # KIP-853, forwarded like DescribeQuorum
            ApiKey.REMOVE_RAFT_VOTER: self.handle_raft_voter_request,
            ApiKey.UPDATE_FEATURES: self.handle_update_features_request,  # KIP-584, forwarded as well
            ApiKey.UNREGISTER_CONTROLLER: self.handle_unregister_controller_request,  # 4.4-IV2, forwarded
            ApiKey.OFFSET_FOR_LEADER_EPOCH: self.handle_offset_for_leader_epoch_request,
            ApiKey.WRITE_TXN_MARKERS: self.handle_write_txn_markers_request,
        }
        for family in families:  # storage, groups, transactions, admin, quotas, ACLs, SASL
            self.handlers.update(family.handlers())

    def handle(self, request: Request) -> None:
        """Dispatch; then, holding no lock, run the checks completing operations left in the
        ReplicaManager's action queue (Kafka's KafkaApis.handle, its finally clause)."""
        try:
            super().handle(request)
        finally:
            self.replica_manager.try_complete_actions()

    # ------------------------------------------------------------------ ApiVersions
    def api_versions_error(self, request: Request) -> Errors:
        """KIP-1242 (v5): a client that names the cluster and node it meant to reach, and reached another
        broker (its address reused after a restart), must rebootstrap (Kafka's clusterIdOrNodeIdIsInvalid),
        once the request is valid (one of the two without the other is not)."""
        body = request.body
        if (invalid := super().api_versions_error(request)) != Errors.NONE:
            return invalid
        if request.header.api_version < 5 or body.cluster_id is None:
            return Errors.NONE
        if body.cluster_id != self.metadata_cache.cluster_id or body.node_id != self.config.node_id:
            return Errors.REBOOTSTRAP_REQUIRED
        return Errors.NONE

    def api_versions_features(self, version: int) -> dict:
        """What Admin.describeFeatures and kafka-features read (Kafka's ApiVersionsResponse from a broker):
        the features this broker supports, and the finalized levels as of the metadata it has applied,
        kraft.version among them once above 0. Before version 4 a supported range starting at 0 is left
        out (KIP-1022: older clients refuse one), which leaves metadata.version alone."""
        levels = dict(self.metadata_cache.finalized_features)
        if (kraft := self.metadata_cache.kraft_version()) > 0:
            levels["kraft.version"] = kraft
        return api_versions_features(version, levels, self.metadata_cache.metadata_offset)

    # ------------------------------------------------------------------ Metadata
    def handle_topic_metadata_request(self, request: Request) -> None:
        req = request.body
        version = request.header.api_version
        allow_auto_create = (version < 4
                             or req.allow_auto_topic_creation) and self.config.auto_create_topics_enable
        all_topics = req.topics is None or (version == 0 and not req.topics)
        if all_topics:
            names = self.metadata_cache.topic_names()
        else:
            names = [t.name if t.name is not None else self.metadata_cache.topic_name_for_id(t.topic_id)
                     for t in req.topics]
        # authorisation: topics the principal may not describe are hidden (all topics) or refused
        describable = self.auth_helper.filter_by_authorized(request, Op.DESCRIBE, Res.TOPIC,
                                                            filter(None, names),
                                                            log_if_denied=not all_topics)
        uncreatable = self._uncreatable_topics(request, describable) if allow_auto_create else set()
        topics = [_unauthorized_topic(name) if name is not None
                  and (name not in describable or name in uncreatable)
                  else self._topic_metadata(name, allow_auto_create)
                  for name in names if not all_topics or name in describable]
        for topic in topics:  # Kafka's: every topic but those refused and ids it does not know
            if req.get("include_topic_authorized_operations", False) and topic["name"] is not None \
                    and topic["error_code"] != Errors.TOPIC_AUTHORIZATION_FAILED:
                topic["topic_authorized_operations"] = self.auth_helper.authorized_operations(
                    request, Res.TOPIC, topic["name"])
        self.request_helper.send_response_maybe_throttle(request, dict(
            throttle_time_ms=0,
            brokers=self._brokers(request.listener),
            cluster_id=self.metadata_cache.cluster_id,
            controller_id=self.metadata_cache.controller_id,
            topics=topics,
            cluster_authorized_operations=self.auth_helper.cluster_authorized_operations(
                request, req.get("include_cluster_authorized_operations", False)),
        ))

    def _uncreatable_topics(self, request: Request, describable: set[str]) -> set[str]:
        """Missing topics Metadata may not auto-create: it needs CREATE on the cluster or the topic."""
        missing = {n for n in describable if not self.metadata_cache.contains(n) and not n.startswith("__")}
        if not missing or self.auth_helper.authorize(request, Op.CREATE, Res.CLUSTER, CLUSTER_NAME, False):
            return set()
        return missing - self.auth_helper.filter_by_authorized(request, Op.CREATE, Res.TOPIC, missing)

    def _brokers(self, listener: str) -> list[dict]:
        brokers = []
        for broker in self.metadata_cache.alive_brokers():
            end_point = broker.end_point(listener)
            if end_point is not None:
                brokers.append(dict(node_id=broker.node_id, host=end_point.host, port=end_point.port,
                                    rack=broker.rack))
        return brokers

    def _topic_metadata(self, name: str | None, allow_auto_create: bool) -> dict:
        if name is None:
            return dict(error_code=Errors.UNKNOWN_TOPIC_ID, name=None, partitions=[])
        topic = self.metadata_cache.get_topic(name)
        if topic is None:
            # Internal topics are created by their coordinators, with the configs they need, never here.
            if allow_auto_create and not name.startswith("__"):
                error = self.auto_topic_creation_manager.create_topic(name)
            else:
                error = unknown_topic_error(name)
            return dict(error_code=error, name=name, partitions=[])
        alive = {b.node_id for b in self.metadata_cache.alive_brokers()}
        partitions = [dict(error_code=Errors.NONE if p.leader >= 0 else Errors.LEADER_NOT_AVAILABLE,
                           partition_index=p.partition, leader_id=p.leader, leader_epoch=p.leader_epoch,
                           replica_nodes=list(p.replicas), isr_nodes=list(p.isr),
                           offline_replicas=[r for r in p.replicas if r not in alive])
                      for p in topic.partitions]
        return dict(error_code=Errors.NONE, name=name, topic_id=topic.topic_id, is_internal=topic.is_internal,
                    partitions=partitions)

    # ------------------------------------------------------------------ DescribeTopicPartitions
    def handle_describe_topic_partitions_request(self, request: Request) -> None:
        """KIP-966: Metadata's topics with their ELR, in pages (DescribeTopicPartitionsRequestHandler)."""
        try:
            handler = self.describe_topic_partitions_request_handler
            body = handler.handle_describe_topic_partitions_request(request)
        except InvalidRequestError:
            self.request_helper.send_error_response_maybe_throttle(request, Errors.INVALID_REQUEST)
            return
        self.request_helper.send_response_maybe_throttle(request, body)

    # ------------------------------------------------------------------ Produce
    def handle_produce_request(self, request: Request) -> None:
        req = request.body
        if req.transactional_id is not None and not self.auth_helper.authorize(
                request, Op.WRITE, Res.TRANSACTIONAL_ID, req.transactional_id):
            self.request_helper.send_error_response_maybe_throttle(
                request, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
            return
        writable = self.auth_helper.filter_by_authorized(request, Op.WRITE, Res.TOPIC,
                                                         (t.name for t in req.topic_data))
        errors: dict[TopicPartition, tuple[Errors, str | None]] = {}
        entries: dict[TopicPartition, bytes] = {}
        for topic in req.topic_data:
            known = self.metadata_cache.contains(topic.name)  # never created here: Metadata does that
            for p in topic.partition_data:
                tp = TopicPartition(topic.name, p.index)
                records = p.records if p.records is not None else b""
                if topic.name not in writable:
                    errors[tp] = Errors.TOPIC_AUTHORIZATION_FAILED, None
                elif req.acks not in (0, 1, -1):
                    errors[tp] = Errors.INVALID_REQUIRED_ACKS, None
                elif not known:
                    errors[tp] = Errors.UNKNOWN_TOPIC_OR_PARTITION, None
                elif (invalid := validate_records(records)) is not None:
                    errors[tp] = invalid
                else:
                    entries[tp] = records
        def send_response_callback(statuses: dict) -> None:
            throttle_time_ms = self.request_helper.produce_throttle_time_ms(request, req.acks)
            if req.acks == 0:
                # No response. But a failed append closes the connection, as in Kafka: the
                # producer cannot see an error code, a reconnect makes it refresh its metadata.
                failed = errors or any(s.error != Errors.NONE for s in statuses.values())
                if failed:
                    self.request_helper.close_connection(request)
                else:
                    self.request_helper.send_no_op_response_exempt_throttle(request)
                return
            responses: dict[str, list[dict]] = {}
            for topic in req.topic_data:
                for p in topic.partition_data:
                    tp = TopicPartition(topic.name, p.index)
                    status = statuses.get(tp)
                    if status is None:
                        entry = dict(index=p.index, error_code=errors[tp][0], error_message=errors[tp][1],
                                     base_offset=-1)
                    else:
                        entry = dict(index=p.index, error_code=status.error, base_offset=status.base_offset,
                                     log_append_time_ms=status.log_append_time,
                                     log_start_offset=status.log_start_offset,
                                     error_message=status.error_message,
                                     record_errors=[dict(batch_index=i, batch_index_error_message=m)
                                                    for i, m in status.record_errors])
                    responses.setdefault(topic.name, []).append(entry)
            self.request_helper.send_response_exempt_throttle(request, dict(
                responses=[dict(name=name, partition_responses=parts) for name, parts in responses.items()],
                throttle_time_ms=throttle_time_ms))

        def append(refused: dict) -> None:
            """KIP-890: the transaction coordinator's answer (maybe later, from its callback) first."""
            for tp, refusal in refused.items():
                errors[tp] = refusal
                del entries[tp]
            if not entries:
                send_response_callback({})
                return
            self.replica_manager.append_records(req.timeout_ms, req.acks, False, entries,
                                                send_response_callback)
            self.replica_manager.try_complete_actions()

        verifier = self.add_partitions_to_txn_manager
        if verifier is None:
            append({})
        else:
            verifier.verify_produce(req.transactional_id, entries, request.header.api_version, append)

    # ------------------------------------------------------------------ Fetch
    def handle_fetch_request(self, request: Request) -> None:
        """Kafka's handleFetchRequest. From v13 topics are named by id (fetch_request.py): an id unknown
        here is UNKNOWN_TOPIC_ID, one that names another incarnation of the topic INCONSISTENT_TOPIC_ID."""
        req = request.body
        version = request.header.api_version
        replica_id, replica_epoch = replica_id_and_epoch(req, version)
        is_from_follower = replica_id >= 0
        max_bytes = req.max_bytes if version >= 3 else INT32_MAX
        if not is_from_follower:  # one response never takes more than the quota's windows allow
            max_bytes = int(min(max_bytes, self.request_helper.max_fetch_bytes_in_quota_window(request)))
        params = FetchParams(replica_id, req.max_wait_ms, req.min_bytes, max_bytes, req.isolation_level,
                             replica_epoch=replica_epoch)
        topic_names = self.metadata_cache.topic_ids_to_names() if uses_topic_ids(version) else {}
        fetch_data = fetch_request.fetch_data(req, version, topic_names)
        if version >= 7:  # fetch sessions (KIP-227): which partitions to read, and to answer
            to_forget = fetch_request.forgotten_topics(req, version, topic_names)
            context = self.fetch_manager.new_context(req.session_id, req.session_epoch, fetch_data, to_forget,
                                                     is_from_follower, uses_topic_ids(version), topic_names)
        else:
            context = SessionlessFetchContext(fetch_data)

        to_read = context.fetch_data()
        refused = self._fetch_refused(request, is_from_follower, to_read)
        keys = {(tp.topic_partition if isinstance(tp, TopicIdPartition) else tp): tp for tp, _ in to_read}

        def process_response_callback(results: list) -> None:
            results = [(keys[tp], data) for tp, data in results]
            throttle_time_ms = 0 if is_from_follower else self.request_helper.fetch_throttle_time_ms(
                request, sum(len(data.records) for _, data in results if data.records is not None))
            if throttle_time_ms > 0:  # over a quota: answered empty, the records stay unread
                answer = context.get_throttled_response_data()
            else:
                answer = context.update_and_generate_response_data([*results, *refused.items()])
            partitions = []
            for tp, data in answer.partitions:
                aborted = data.aborted_transactions
                if aborted is not None:
                    aborted = [txn.as_aborted_transaction() for txn in aborted]
                partition = dict(
                    partition_index=tp.partition, error_code=data.error, high_watermark=data.high_watermark,
                    last_stable_offset=data.last_stable_offset, log_start_offset=data.log_start_offset,
                    aborted_transactions=aborted, preferred_read_replica=-1, records=data.records)
                # a tagged field: absent unless the fetcher's log diverged
                if data.diverging_epoch is not None:
                    partition["diverging_epoch"] = data.diverging_epoch._asdict()
                partitions.append((tp, partition))
                self.replica_manager.broker_topic_stats.update_bytes_out(
                    tp.topic, params.replica_id >= 0, len(data.records))
            sent = {id(data) for _, data in answer.partitions}
            release_records([(tp, data) for tp, data in results if id(data) not in sent])
            node_endpoints = add_leader_hints(version, partitions, self.replica_manager, self.metadata_cache,
                                              request.listener)
            if is_from_follower:  # Kafka 4.4 tells a follower the leader, but lists no endpoints
                node_endpoints = []
            self.request_helper.send_response_exempt_throttle(request, dict(
                throttle_time_ms=throttle_time_ms, error_code=answer.error, session_id=answer.session_id,
                responses=topic_responses(partitions), node_endpoints=node_endpoints))

        self.replica_manager.fetch_messages(
            params, [(tp.topic_partition if isinstance(tp, TopicIdPartition) else tp, info)
                     for tp, info in to_read if tp not in refused], process_response_callback)

    def _fetch_refused(self, request: Request, is_from_follower: bool, to_read) -> dict:
        """The partitions answered without a read (Kafka's erroneous list): a topic id unknown here, or
        naming a topic since deleted and created again; then authorisation: a follower needs
        CLUSTER_ACTION, a consumer READ on each topic."""
        refused = {}
        for tp, _ in to_read:
            if isinstance(tp, TopicIdPartition):
                topic = self.metadata_cache.get_topic(tp.topic) if tp.topic is not None else None
                if tp.topic is None:
                    refused[tp] = FetchPartitionData(Errors.UNKNOWN_TOPIC_ID, aborted_transactions=[])
                elif topic is not None and topic.topic_id != tp.topic_id:  # Kafka: the log's id differs
                    refused[tp] = FetchPartitionData(Errors.INCONSISTENT_TOPIC_ID, aborted_transactions=[])
        if self.auth_helper.authorizer is None:
            return refused
        denied = FetchPartitionData(Errors.TOPIC_AUTHORIZATION_FAILED)
        if is_from_follower:
            if not self.auth_helper.authorize(request, Op.CLUSTER_ACTION, Res.CLUSTER, CLUSTER_NAME):
                return {tp: denied for tp, _ in to_read}
            return refused
        readable = self.auth_helper.filter_by_authorized(request, Op.READ, Res.TOPIC,
                                                         (tp.topic for tp, _ in to_read if tp not in refused))
        refused.update({tp: denied for tp, _ in to_read if tp not in refused and tp.topic not in readable})
        return refused

    # ------------------------------------------------------------------ ListOffsets
    def handle_list_offsets_request(self, request: Request) -> None:
        """ListOffsets (Kafka's handleListOffsetRequest): DESCRIBE on each topic, then the ReplicaManager
        answers every partition, some maybe later (a tiered partition's lookup by time, KIP-1075), through
        the callback. A partition asked twice in one request is INVALID_REQUEST, as in Kafka."""
        req = request.body
        describable = self.auth_helper.filter_by_authorized(request, Op.DESCRIBE, Res.TOPIC,
                                                            (t.name for t in req.topics))
        asked = [TopicPartition(t.name, p.partition_index) for t in req.topics for p in t.partitions]
        duplicates = {tp for tp in asked if asked.count(tp) > 1} if len(set(asked)) != len(asked) else set()
        refused = {tp: partition_response(tp.partition, Errors.TOPIC_AUTHORIZATION_FAILED) for tp in asked
                   if tp.topic not in describable}
        refused.update({tp: partition_response(tp.partition, Errors.INVALID_REQUEST) for tp in duplicates})
        timestamps = {TopicPartition(t.name, p.partition_index): p.timestamp for t in req.topics
                      for p in t.partitions if TopicPartition(t.name, p.partition_index) not in refused}

        def send_response(answered: dict) -> None:
            answers = {**answered, **refused}
            topics: dict[str, list[dict]] = {}
            for tp in dict.fromkeys(asked):
                topics.setdefault(tp.topic, []).append(answers[tp])
            self.request_helper.send_response_maybe_throttle(request, dict(
                throttle_time_ms=0, topics=[dict(name=name, partitions=ps) for name, ps in topics.items()]))

        self.replica_manager.fetch_offset(timestamps, req.isolation_level, req.replica_id,
                                          request.header.api_version, req.get("timeout_ms", 0), send_response)

    # ------------------------------------------------------------------ WriteTxnMarkers
    def handle_write_txn_markers_request(self, request: Request) -> None:
        """The transaction coordinator ends a transaction here (Kafka's handleWriteTxnMarkersRequest).

        For each marker (one producer's COMMIT or ABORT), every partition this broker hosts gets an
        EndTransactionMarker control batch, appended as the coordinator (origin COORDINATOR: no
        sequence, control batches allowed) with acks=-1, so the coordinator hears back only once the
        marker is on every in-sync replica. One append per marker, answered through the produce
        purgatory's callbacks; the response goes when the last one has answered, on whichever thread
        that is. A __consumer_offsets partition's marker is the group coordinator's to write (Kafka 4:
        GroupCoordinator.completeTransaction): its shard appends and replays it, so the producer's
        pending offsets become committed (or go) in the same event, answered once the marker commits;
        a shard not here or still loading says NOT_LEADER_OR_FOLLOWER, and the transaction
        coordinator retries."""
        if not self.auth_helper.authorize(request, Op.ALTER, Res.CLUSTER, CLUSTER_NAME, log_if_denied=False):
            self.auth_helper.authorize_cluster_operation(request, Op.CLUSTER_ACTION)
        markers = request.body.markers
        errors: dict[int, dict[TopicPartition, Errors]] = {}
        lock = threading.Lock()
        pending = [len(markers)]

        def update_errors(producer_id: int, current: dict[TopicPartition, Errors]) -> None:
            with lock:
                errors.setdefault(producer_id, {}).update(current)

        def marker_done() -> None:
            with lock:
                pending[0] -= 1
                if pending[0]:
                    return
                body = dict(markers=[dict(producer_id=producer_id,
                                          topics=_txn_marker_topic_results(by_partition))
                                     for producer_id, by_partition in errors.items()])
            self.request_helper.send_response_exempt_throttle(request, body)

        def on_appended(marker, responses: dict) -> None:
            update_errors(marker.producer_id, {tp: response.error for tp, response in responses.items()})
            marker_done()

        if not markers:
            self.request_helper.send_response_exempt_throttle(request, dict(markers=[]))
            return
        now = self.replica_manager.time.milliseconds()
        pending[0] += sum(len(t.partition_indexes) for m in markers for t in m.topics
                          if t.name == GROUP_METADATA_TOPIC_NAME)
        for marker in markers:
            entries: dict[TopicPartition, bytes] = {}
            unknown: dict[TopicPartition, Errors] = {}
            for topic in marker.topics:
                for partition in topic.partition_indexes:
                    tp = TopicPartition(topic.name, partition)
                    if tp.topic == GROUP_METADATA_TOPIC_NAME:
                        self._complete_group_transaction(marker, partition, update_errors, marker_done)
                    elif self.replica_manager.get_partition(tp) is None:
                        # not hosted here (Kafka's onlinePartition)
                        unknown[tp] = Errors.UNKNOWN_TOPIC_OR_PARTITION
                    else:
                        entries[tp] = end_txn_marker_batch(marker.producer_id, marker.producer_epoch,
                                                           marker.transaction_result,
                                                           marker.coordinator_epoch, now)
            if unknown:
                update_errors(marker.producer_id, unknown)
            if not entries:
                marker_done()
                continue
            self.replica_manager.append_records(
                WRITE_TXN_MARKERS_TIMEOUT_MS, -1, True, entries,
                lambda responses, marker=marker: on_appended(marker, responses),
                origin=AppendOrigin.COORDINATOR)

    def _complete_group_transaction(self, marker, partition: int, update_errors, marker_done) -> None:
        tp = TopicPartition(GROUP_METADATA_TOPIC_NAME, partition)

        def done(error: Errors) -> None:
            if error in (Errors.COORDINATOR_NOT_AVAILABLE, Errors.COORDINATOR_LOAD_IN_PROGRESS,
                         Errors.NOT_COORDINATOR):
                # retriable for the transaction coordinator, as Kafka answers
                error = Errors.NOT_LEADER_OR_FOLLOWER
            update_errors(marker.producer_id, {tp: error})
            marker_done()

        if self.group_coordinator is None:
            done(Errors.UNKNOWN_TOPIC_OR_PARTITION)
            return
        self.group_coordinator.complete_transaction(
            partition, marker.producer_id, marker.producer_epoch, marker.coordinator_epoch,
            marker.transaction_result,
            WRITE_TXN_MARKERS_TIMEOUT_MS).add_done_callback(lambda f: done(f.result()))

    # ------------------------------------------------------------------ OffsetForLeaderEpoch
    def handle_offset_for_leader_epoch_request(self, request: Request) -> None:
        """A follower asks where its latest leader epoch ends in the leader's log (KIP-101/KIP-279).
        A follower holds CLUSTER_ACTION; a consumer (KIP-320) needs DESCRIBE on the topic."""
        topics = []
        names = [t.topic for t in request.body.topics]
        if self.auth_helper.authorize(request, Op.CLUSTER_ACTION, Res.CLUSTER, CLUSTER_NAME, False):
            allowed = set(names)
        else:
            allowed = self.auth_helper.filter_by_authorized(request, Op.DESCRIBE, Res.TOPIC, names)
        for topic in request.body.topics:
            partitions = []
            for p in topic.partitions:
                if topic.topic not in allowed:
                    partitions.append(dict(error_code=Errors.TOPIC_AUTHORIZATION_FAILED,
                                           partition=p.partition,
                                           leader_epoch=-1, end_offset=-1))
                    continue
                error, epoch, end_offset = self.replica_manager.last_offset_for_leader_epoch(
                    TopicPartition(topic.topic, p.partition), p.current_leader_epoch, p.leader_epoch)
                partitions.append(dict(error_code=error, partition=p.partition, leader_epoch=epoch,
                                       end_offset=end_offset))
            topics.append(dict(topic=topic.topic, partitions=partitions))
        self.request_helper.send_response_maybe_throttle(request, dict(throttle_time_ms=0, topics=topics))

    # ------------------------------------------------------------------ DescribeQuorum
    def handle_describe_quorum_request(self, request: Request) -> None:
        """Only the quorum's leader can describe it: forward to the active controller (KIP-836)."""
        self.auth_helper.authorize_cluster_operation(request, Op.DESCRIBE)
        def on_response(body, error: Errors) -> None:
            if body is None:
                body = dict(error_code=error, error_message="the active controller did not answer", topics=[])
            self.request_helper.send_response_maybe_throttle(request, body)

        self.forwarding_manager.forward_request(ApiKey.DESCRIBE_QUORUM, request.body, 30_000, on_response,
                                                max_version=request.header.api_version)

    def handle_raft_voter_request(self, request: Request) -> None:
        """AddRaftVoter, RemoveRaftVoter (KIP-853): ALTER on the cluster, then to the active controller."""
        self.auth_helper.authorize_cluster_operation(request, Op.ALTER)
        def on_response(body, error: Errors) -> None:
            self.request_helper.send_response_maybe_throttle(request, body if body is not None else dict(
                throttle_time_ms=0, error_code=error, error_message="the active controller did not answer"))

        self.forwarding_manager.forward_request(request.header.api_key, request.body, 30_000,
                                                on_response, max_version=request.header.api_version)

    def handle_unregister_controller_request(self, request: Request) -> None:
        """UnregisterController: ALTER on the cluster, then the active controller decides (Kafka's KafkaApis
        forwards it; ControllerRegistrations)."""
        self.auth_helper.authorize_cluster_operation(request, Op.ALTER)
        def on_response(body, error: Errors) -> None:
            self.request_helper.send_response_maybe_throttle(request, body if body is not None else dict(
                throttle_time_ms=0, error_code=error, error_message="the active controller did not answer"))

        self.forwarding_manager.forward_request(ApiKey.UNREGISTER_CONTROLLER, request.body, 30_000,
                                                on_response, max_version=request.header.api_version)

    def handle_update_features_request(self, request: Request) -> None:
        """UpdateFeatures: ALTER on the cluster, then the active controller decides (FeatureControlManager);
        the answer comes back at the client's version, per-feature results and all."""
        self.auth_helper.authorize_cluster_operation(request, Op.ALTER)
        def on_response(body, error: Errors) -> None:
            self.request_helper.send_response_maybe_throttle(request, body if body is not None else dict(
                throttle_time_ms=0, error_code=error, error_message="the active controller did not answer",
                results=[]))

        self.forwarding_manager.forward_request(ApiKey.UPDATE_FEATURES, request.body, 60_000, on_response,
                                                max_version=request.header.api_version)


def _unauthorized_topic(name: str) -> dict:
    return dict(error_code=Errors.TOPIC_AUTHORIZATION_FAILED, name=name, partitions=[])


def _txn_marker_topic_results(by_partition: dict[TopicPartition, Errors]) -> list[dict]:
    """One producer's per-partition errors, grouped by topic as WritableTxnMarkerTopicResult."""
    topics: dict[str, list[dict]] = {}
    for tp, error in by_partition.items():
        topics.setdefault(tp.topic, []).append(dict(partition_index=tp.partition, error_code=error))
    return [dict(name=name, partitions=partitions) for name, partitions in topics.items()]
