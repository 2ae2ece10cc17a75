"""The consumer-group part of KafkaApis: FindCoordinator, JoinGroup, SyncGroup, Heartbeat,
LeaveGroup, OffsetCommit, TxnOffsetCommit, OffsetFetch, DescribeGroups, ListGroups, DeleteGroups,
OffsetDelete.

Kafka keeps these handlers in kafka.server.KafkaApis itself; here they sit beside it so each file
stays readable: KafkaServer builds the family with what it uses, and KafkaApis' dispatch table
includes ``GroupApis.handlers()``. The shape is KafkaApis' (seed 000): decode, ask the
GroupCoordinatorService, respond from the callback of the future it returns -- which for JoinGroup
and SyncGroup may complete much later, on whichever event thread completes the rebalance; for a
write, once its records are committed. FindCoordinator for a transactional id asks the
TransactionCoordinator the family is given, as Kafka's handler asks its txnCoordinator, and for a
share partition (key type 2, from v6) the ShareCoordinatorService: brokers' persisters ask that one.
The streams groups' APIs (KIP-1071) answer in this family too, from ``streams_group_apis.py``.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from concurrent.futures import Future

from kafka.coordinator.group.classic.classic_group_manager import JoinGroupResult, SyncGroupResult
from kafka.coordinator.group.group_coordinator_records import GROUP_METADATA_TOPIC_NAME
from kafka.coordinator.group.group_coordinator_requests import (
    HeartbeatRequest,
    JoinGroupRequest,
    LeaveGroupRequest,
    LeavingMember,
    OffsetCommitRequest,
    PartitionOffset,
    RequestContext,
    SyncGroupRequest,
    TxnOffsetCommitRequest,
)
from kafka.coordinator.group.group_coordinator_service import GroupCoordinatorService, answered, gather
from kafka.coordinator.group.offset_and_metadata import OffsetAndMetadata
from kafka.coordinator.share.share_coordinator_service import ShareCoordinatorService
from kafka.coordinator.share.share_partition_key import SHARE_GROUP_STATE_TOPIC_NAME, SharePartitionKey
from kafka.coordinator.transaction.transaction_coordinator import TransactionCoordinator
from kafka.coordinator.transaction.transaction_log import TRANSACTION_STATE_TOPIC_NAME
from kafka.network.request_channel import Request
from kafka.protocol.acl import CLUSTER_NAME
from kafka.protocol.acl import AclOperation as Op
from kafka.protocol.acl import ResourceType as Res
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.types import ZERO_UUID
from kafka.server.auth_helper import AuthHelper
from kafka.server.auto_topic_creation_manager import AutoTopicCreationManager
from kafka.server.metadata_cache import MetadataCache
from kafka.server.offset_commit_response_builder import OffsetCommitResponseBuilder
from kafka.server.request_handler_helper import RequestHandlerHelper
from kafka.server.streams_group_apis import StreamsGroupApis, streams_groups_enabled
from kafka.utils.topic_partition import TopicPartition

GROUP_KEY_TYPE, TRANSACTION_KEY_TYPE, SHARE_KEY_TYPE = 0, 1, 2
GROUP_OR_TXN_DENIED = (Errors.GROUP_AUTHORIZATION_FAILED, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
# Kafka's UNAUTHORIZED_PARTITION
_DENIED_OFFSET = PartitionOffset(-1, -1, "", Errors.TOPIC_AUTHORIZATION_FAILED)
CLASSIC_GROUP_TYPE = "classic"


class GroupApis:
    def __init__(self, request_helper: RequestHandlerHelper, auth_helper: AuthHelper,
                 group_coordinator: GroupCoordinatorService, metadata_cache: MetadataCache,
                 auto_topic_creation_manager: AutoTopicCreationManager, config,
                 transaction_coordinator: TransactionCoordinator | None = None,
                 share_coordinator: ShareCoordinatorService | None = None) -> None:
        self.request_helper = request_helper
        self.auth = auth_helper  # Kafka's rules: READ on the group to be in it, DESCRIBE to look at it
        self.coordinator = group_coordinator
        self.metadata_cache = metadata_cache  # which topics and partitions exist, who leads them
        # the coordinators' topics, on first use
        self.auto_topic_creation_manager = auto_topic_creation_manager
        self.config = config  # offsets.topic.* and transaction.state.log.*: how those topics are created
        self.transaction_coordinator = transaction_coordinator  # FindCoordinator for a transactional id
        self.share_coordinator = share_coordinator  # FindCoordinator for a share partition (KIP-932)
        self.streams = StreamsGroupApis(request_helper, auth_helper, group_coordinator,
                                        auto_topic_creation_manager,
                                        lambda: streams_groups_enabled(metadata_cache),
                                        group_coordinator.time)

    def handlers(self) -> dict[int, Callable[[Request], None]]:
        return {
            ApiKey.FIND_COORDINATOR: self.handle_find_coordinator_request,
            ApiKey.JOIN_GROUP: self.handle_join_group_request,
            ApiKey.SYNC_GROUP: self.handle_sync_group_request,
            ApiKey.HEARTBEAT: self.handle_heartbeat_request,
            ApiKey.LEAVE_GROUP: self.handle_leave_group_request,
            ApiKey.OFFSET_COMMIT: self.handle_offset_commit_request,
            ApiKey.TXN_OFFSET_COMMIT: self.handle_txn_offset_commit_request,
            ApiKey.OFFSET_FETCH: self.handle_offset_fetch_request,
            ApiKey.DESCRIBE_GROUPS: self.handle_describe_groups_request,
            ApiKey.LIST_GROUPS: self.handle_list_groups_request,
            ApiKey.DELETE_GROUPS: self.handle_delete_groups_request,
            ApiKey.OFFSET_DELETE: self.handle_offset_delete_request,
            **self.streams.handlers(),  # StreamsGroupHeartbeat, StreamsGroupDescribe (KIP-1071)
        }

    @staticmethod
    def context(request: Request) -> RequestContext:
        return RequestContext(request.header.client_id or "", f"/{request.client_address}",
                              request.header.api_version)

    @staticmethod
    def when_done(future: Future, respond) -> None:
        """Respond with the future's answer once it has one (the service maps every error into it)."""
        future.add_done_callback(lambda f: respond(f.result()))

    # ------------------------------------------------------------------ FindCoordinator
    def handle_find_coordinator_request(self, request: Request) -> None:
        req = request.body
        version = request.header.api_version
        keys = req.coordinator_keys if version >= 4 else [req.key]
        if req.key_type == SHARE_KEY_TYPE and version >= 6:  # brokers' persisters: CLUSTER_ACTION or nothing
            self.auth.authorize_cluster_operation(request, Op.CLUSTER_ACTION)
        results = [self.find_coordinator(key, req.key_type, request.listener, version)
                   if self._may_find_coordinator(request, key, req.key_type)
                   else _coordinator_error(key, GROUP_OR_TXN_DENIED[req.key_type == TRANSACTION_KEY_TYPE])
                   for key in keys]
        if version >= 4:
            self.request_helper.send_response_maybe_throttle(request,
                                                             dict(throttle_time_ms=0, coordinators=results))
        else:
            only = results[0]
            # before v4 Kafka names a success by the error's name, "NONE"
            message = "NONE" if only["error_code"] == Errors.NONE else only["error_message"]
            self.request_helper.send_response_maybe_throttle(request, dict(
                throttle_time_ms=0, error_code=only["error_code"], error_message=message,
                node_id=only["node_id"],
                host=only["host"], port=only["port"]))

    def _may_find_coordinator(self, request: Request, key: str, key_type: int) -> bool:
        resource = Res.TRANSACTIONAL_ID if key_type == TRANSACTION_KEY_TYPE else Res.GROUP
        return key_type not in (GROUP_KEY_TYPE, TRANSACTION_KEY_TYPE) or self.auth.authorize(
            request, Op.DESCRIBE, resource, key)

    def find_coordinator(self, key: str, key_type: int, listener: str, version: int = 6) -> dict:
        failed = dict(key=key, node_id=-1, host="", port=-1)
        if key_type == TRANSACTION_KEY_TYPE:
            return self._transaction_coordinator_of(key, listener)
        if key_type == SHARE_KEY_TYPE:
            return self._share_coordinator_of(key, listener, version)
        if key_type != GROUP_KEY_TYPE:
            return {**failed, "error_code": Errors.INVALID_REQUEST,
                    "error_message": f"unknown key type {key_type}"}
        config = self.config
        error = self._ensure_internal_topic(GROUP_METADATA_TOPIC_NAME, config.offsets_topic_num_partitions,
                                            config.offsets_topic_replication_factor,
                                            self.coordinator.offsets_topic_configs)
        if error is not None:
            return {**failed, "error_code": Errors.COORDINATOR_NOT_AVAILABLE, "error_message": error}
        # The group's coordinator is the leader of its __consumer_offsets partition (seed 004): the
        # controller spreads those leaderships over the brokers, and so the groups.
        return self._partition_leader(key, GROUP_METADATA_TOPIC_NAME, self.coordinator.partition_for(key),
                                      listener)

    def _transaction_coordinator_of(self, key: str, listener: str) -> dict:
        """The leader of the transactional id's __transaction_state partition, created on first need."""
        failed = dict(key=key, node_id=-1, host="", port=-1)
        coordinator = self.transaction_coordinator
        if coordinator is None or coordinator.txn_manager is None:
            return {**failed, "error_code": Errors.COORDINATOR_NOT_AVAILABLE,
                    "error_message": "this broker has no transaction coordinator"}
        if not key:
            return {**failed, "error_code": Errors.INVALID_REQUEST, "error_message": "empty transactional id"}
        config = self.config
        error = self._ensure_internal_topic(TRANSACTION_STATE_TOPIC_NAME,
                                            config.transaction_state_log_num_partitions,
                                            config.transaction_state_log_replication_factor,
                                            coordinator.transaction_topic_configs)
        if error is not None:
            return {**failed, "error_code": Errors.COORDINATOR_NOT_AVAILABLE, "error_message": error}
        return self._partition_leader(key, TRANSACTION_STATE_TOPIC_NAME, coordinator.partition_for(key),
                                      listener)

    def _share_coordinator_of(self, key: str, listener: str, version: int) -> dict:
        """Kafka's getCoordinator for key type SHARE (KIP-932): the leader of the __share_group_state
        partition the share partition key group:topicId:partition hashes to, created on first need. Kafka
        answers these errors without a message (v4 and later: the field's default, empty)."""
        coordinator = self.share_coordinator
        if version < 6:
            return _share_coordinator_error(key, Errors.INVALID_REQUEST, version)
        try:
            share_key = SharePartitionKey.parse(key)
        except ValueError:
            return _share_coordinator_error(key, Errors.INVALID_REQUEST, version)
        if coordinator is None or not coordinator.is_active.is_set():
            return _share_coordinator_error(key, Errors.COORDINATOR_NOT_AVAILABLE, version)
        config = self.config
        if self._ensure_internal_topic(SHARE_GROUP_STATE_TOPIC_NAME,
                                       config.share_coordinator_state_topic_num_partitions,
                                       config.share_coordinator_state_topic_replication_factor,
                                       coordinator.share_group_state_topic_configs) is not None:
            return _share_coordinator_error(key, Errors.COORDINATOR_NOT_AVAILABLE, version)
        found = self._partition_leader(key, SHARE_GROUP_STATE_TOPIC_NAME,
                                       coordinator.partition_for(share_key), listener)
        if found["error_code"] == Errors.NONE:
            return found
        return _share_coordinator_error(key, found["error_code"], version)

    def _partition_leader(self, key: str, topic: str, partition: int, listener: str) -> dict:
        leader, end_point = self.metadata_cache.partition_leader_end_point(topic, partition, listener)
        if end_point is None:
            return dict(key=key, node_id=-1, host="", port=-1, error_code=Errors.COORDINATOR_NOT_AVAILABLE,
                        error_message=f"{topic}-{partition} has no live leader yet")
        return dict(key=key, node_id=leader, host=end_point.host, port=end_point.port,
                    error_code=Errors.NONE, error_message="")  # Kafka: NONE's message, the empty string

    def _ensure_internal_topic(self, name: str, num_partitions: int, replication_factor: int,
                               configs: Callable[[], dict[str, str]]) -> str | None:
        """Create __consumer_offsets or __transaction_state on first use, as Kafka does: None if it
        exists, else why the coordinator is not available yet. The creation is not waited for (the
        client retries FindCoordinator on COORDINATOR_NOT_AVAILABLE); once this broker's metadata has
        the topic, the publisher makes the coordinator load the partitions it leads."""
        creator = self.auto_topic_creation_manager
        if self.metadata_cache.contains(name):
            return f"{name} is being created" if creator.is_inflight(name) else None
        creator.create_topic(name, num_partitions, replication_factor, configs())
        return f"{name} is being created"

    # -------------------------------------------------------- JoinGroup / SyncGroup / Heartbeat / LeaveGroup
    def handle_join_group_request(self, request: Request) -> None:
        req = request.body
        self.auth.require(request, Op.READ, Res.GROUP, req.group_id, Errors.GROUP_AUTHORIZATION_FAILED)
        version = request.header.api_version

        def send_response_callback(result: JoinGroupResult) -> None:
            protocol_name = result.protocol_name if version >= 7 else (result.protocol_name or "")
            self.request_helper.send_response_maybe_throttle(request, dict(
                throttle_time_ms=0, error_code=result.error, generation_id=result.generation_id,
                protocol_type=result.protocol_type, protocol_name=protocol_name, leader=result.leader_id,
                skip_assignment=result.skip_assignment, member_id=result.member_id, members=result.members))

        # v0 has no rebalance timeout: the session timeout doubles as one, as in Kafka.
        rebalance_timeout_ms = req.session_timeout_ms if version == 0 else req.rebalance_timeout_ms
        join = JoinGroupRequest(req.group_id, req.member_id, req.group_instance_id, version >= 4,
                                rebalance_timeout_ms, req.session_timeout_ms, req.protocol_type,
                                [(p.name, bytes(p.metadata)) for p in req.protocols], req.get("reason"))
        self.when_done(self.coordinator.join_group(join, self.context(request)), send_response_callback)

    def handle_sync_group_request(self, request: Request) -> None:
        req = request.body
        self.auth.require(request, Op.READ, Res.GROUP, req.group_id, Errors.GROUP_AUTHORIZATION_FAILED)

        def send_response_callback(result: SyncGroupResult) -> None:
            self.request_helper.send_response_maybe_throttle(request, dict(
                throttle_time_ms=0, error_code=result.error, protocol_type=result.protocol_type,
                protocol_name=result.protocol_name, assignment=result.assignment))

        sync = SyncGroupRequest(req.group_id, req.generation_id, req.member_id, req.group_instance_id,
                                req.protocol_type, req.protocol_name,
                                {a.member_id: bytes(a.assignment) for a in req.assignments})
        self.when_done(self.coordinator.sync_group(sync, self.context(request)), send_response_callback)

    def handle_heartbeat_request(self, request: Request) -> None:
        req = request.body
        self.auth.require(request, Op.READ, Res.GROUP, req.group_id, Errors.GROUP_AUTHORIZATION_FAILED)
        heartbeat = HeartbeatRequest(req.group_id, req.member_id, req.group_instance_id, req.generation_id)

        def send_response_callback(error: Errors) -> None:
            self.request_helper.send_response_maybe_throttle(request,
                                                             dict(throttle_time_ms=0, error_code=error))

        self.when_done(self.coordinator.heartbeat(heartbeat, self.context(request)), send_response_callback)

    def handle_leave_group_request(self, request: Request) -> None:
        req = request.body
        self.auth.require(request, Op.READ, Res.GROUP, req.group_id, Errors.GROUP_AUTHORIZATION_FAILED)
        version = request.header.api_version
        if version >= 3:
            leaving = [LeavingMember(m.member_id, m.group_instance_id, m.get("reason")) for m in req.members]
        else:
            leaving = [LeavingMember(req.member_id, None)]

        def send_response_callback(answer: tuple[Errors, list[tuple[LeavingMember, Errors]]]) -> None:
            error, results = answer
            if version < 3:  # one member, one error: at the top level before v3
                self.request_helper.send_response_maybe_throttle(request, dict(
                    throttle_time_ms=0, error_code=error if error else results[0][1]))
                return
            self.request_helper.send_response_maybe_throttle(request, dict(
                throttle_time_ms=0, error_code=error,
                members=[dict(member_id=m.member_id, group_instance_id=m.group_instance_id, error_code=e)
                         for m, e in results]))

        self.when_done(self.coordinator.leave_group(LeaveGroupRequest(req.group_id, leaving),
                                                    self.context(request)),
                       send_response_callback)

    # ------------------------------------------------------------------ OffsetCommit / OffsetFetch
    def handle_offset_commit_request(self, request: Request) -> None:
        req = request.body
        self.auth.require(request, Op.READ, Res.GROUP, req.group_id, Errors.GROUP_AUTHORIZATION_FAILED)
        now = self.coordinator.time.milliseconds()
        # v2-4 could ask for a retention of their own; later versions use offsets.retention.minutes.
        expire = now + req.retention_time_ms if req.retention_time_ms not in (-1, None) else -1
        offsets, send_response_callback = self._offsets_to_commit(request, now, expire,
                                                                  request.header.api_version >= 10)
        if offsets:
            commit = OffsetCommitRequest(req.group_id, req.member_id, req.group_instance_id,
                                         req.generation_id_or_member_epoch, offsets,
                                         request.header.api_version)
            self.when_done(self.coordinator.commit_offsets(commit, self.context(request)),
                           send_response_callback)

    def handle_txn_offset_commit_request(self, request: Request) -> None:
        """Kafka's handleTxnOffsetCommitRequest: a transactional producer's offsets, to the group's
        coordinator; pending until the transaction's marker reaches the group's partition."""
        req = request.body
        self.auth.require(request, Op.WRITE, Res.TRANSACTIONAL_ID, req.transactional_id,
                          Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
        self.auth.require(request, Op.READ, Res.GROUP, req.group_id, Errors.GROUP_AUTHORIZATION_FAILED)
        now, by_id = self.coordinator.time.milliseconds(), request.header.api_version >= 6  # KIP-1319
        offsets, send_response_callback = self._offsets_to_commit(request, now, use_topic_ids=by_id)
        if offsets:
            commit = TxnOffsetCommitRequest(req.transactional_id, req.group_id, req.producer_id,
                                            req.producer_epoch,
                                            req.member_id, req.group_instance_id, req.generation_id, offsets,
                                            request.header.api_version)
            self.when_done(self.coordinator.commit_transactional_offsets(commit, self.context(request)),
                           send_response_callback)

    def _offsets_to_commit(self, request: Request, now: int, expire: int = -1, use_topic_ids: bool = False):
        """OffsetCommit's and TxnOffsetCommit's common part, as Kafka's handlers: the offsets of known
        topics, and the callback that answers every partition asked about, errors first (Kafka's
        response Builder; the coordinator's answers merged in after). From OffsetCommit v10 and
        TxnOffsetCommit v6 topics come by id: an id the metadata cache does not know is
        UNKNOWN_TOPIC_ID. With nothing to commit, the answer goes at once and no offsets are returned."""
        topics = [self._topic_named(t, use_topic_ids) for t in request.body.topics]  # (id, name, topic)
        response = OffsetCommitResponseBuilder(use_topic_ids)
        offsets: dict[TopicPartition, OffsetAndMetadata] = {}
        topic_ids: dict[str, uuid.UUID] = {}
        readable = self.auth.filter_by_authorized(request, Op.READ, Res.TOPIC, (n for _, n, _ in topics))
        for topic_id, name, topic in topics:
            indexes = [p.partition_index for p in topic.partitions]
            if use_topic_ids and not name:
                response.add_partitions(topic_id, name, indexes, Errors.UNKNOWN_TOPIC_ID)
            elif name not in readable:
                response.add_partitions(topic_id, name, indexes, Errors.TOPIC_AUTHORIZATION_FAILED)
            elif topic_id == ZERO_UUID:  # no such topic
                response.add_partitions(topic_id, name, indexes, Errors.UNKNOWN_TOPIC_OR_PARTITION)
            else:
                partitions = self.metadata_cache.num_partitions(name) or 0
                topic_ids[name] = topic_id
                for p in topic.partitions:
                    if not 0 <= p.partition_index < partitions:  # Kafka checks the partition too
                        response.add_partition(topic_id, name, p.partition_index,
                                               Errors.UNKNOWN_TOPIC_OR_PARTITION)
                    else:
                        offsets[TopicPartition(name, p.partition_index)] = OffsetAndMetadata(
                            p.committed_offset, p.committed_leader_epoch, p.committed_metadata or "", now,
                            expire, topic_id=topic_id)

        def send_response_callback(statuses: dict[TopicPartition, Errors]) -> None:
            for tp in offsets:  # the coordinator's answers, in the order asked
                response.add_partition(topic_ids[tp.topic], tp.topic, tp.partition, statuses[tp])
            self.request_helper.send_response_maybe_throttle(request, dict(throttle_time_ms=0,
                                                                           topics=response.build()))

        if not offsets:
            send_response_callback({})
        return offsets, send_response_callback

    def _topic_named(self, topic, use_topic_ids: bool) -> tuple[uuid.UUID, str, object]:
        """(topic id, name, the request's topic): by id, the name from the metadata cache ("" for an id
        it does not know); by name, the id it has now (zero for a topic it does not know)."""
        if use_topic_ids:
            return topic.topic_id, self.metadata_cache.topic_name_for_id(topic.topic_id) or "", topic
        known = self.metadata_cache.get_topic(topic.name)
        return (known.topic_id if known else ZERO_UUID), topic.name, topic

    def handle_offset_fetch_request(self, request: Request) -> None:
        req = request.body
        version = request.header.api_version
        if version >= 8:
            futures = [self.fetch_group_offsets(g.group_id, g.topics, req.require_stable, version, request,
                                                g.get("member_id"), g.get("member_epoch", -1))
                       for g in req.groups]
            self.when_done(gather(futures, list),
                           lambda groups: self.request_helper.send_response_maybe_throttle(
                request, dict(throttle_time_ms=0, groups=groups)))
            return
        self.when_done(self.fetch_group_offsets(req.group_id, req.topics, req.require_stable, version,
                                                request),
                       lambda group: self.request_helper.send_response_maybe_throttle(
                           request,
                           dict(throttle_time_ms=0, topics=group["topics"], error_code=group["error_code"])))

    def fetch_group_offsets(self, group_id: str, topics, require_stable: bool, version: int,
                            request: Request | None = None, member_id: str | None = None,
                            member_epoch: int = -1) -> Future:
        """A future of one group's OffsetFetch answer (the dict of OffsetFetchResponseGroup)."""
        if request is not None and not self.auth.authorize(request, Op.DESCRIBE, Res.GROUP, group_id):
            return answered(dict(group_id=group_id, error_code=Errors.GROUP_AUTHORIZATION_FAILED, topics=[]))
        use_topic_ids = version >= 10  # KIP-848: topics by id, resolved through the metadata cache
        named = [self._topic_named(t, use_topic_ids) for t in topics] if topics is not None else None
        wanted = None
        if named is not None:
            wanted = [TopicPartition(name, i) for _, name, t in named if name or not use_topic_ids
                      for i in t.partition_indexes]
        answer: Future = Future()

        def respond(result: tuple[Errors, dict[TopicPartition, PartitionOffset]]) -> None:
            error, offsets = result
            if request is not None:  # offsets of topics the principal may not describe: refused, or left out
                describable = self.auth.filter_by_authorized(request, Op.DESCRIBE, Res.TOPIC,
                                                             (tp.topic for tp in offsets))
                offsets = {tp: po if tp.topic in describable else _DENIED_OFFSET for tp, po in offsets.items()
                           if tp.topic in describable or wanted is not None}
            group = self._offset_fetch_group(group_id, error, offsets, wanted, version)
            if use_topic_ids and error == Errors.NONE:
                self._with_topic_ids(group, named)
            answer.set_result(group)

        # by id (v10), an offset committed under another id of the name (a recreated topic) is none
        asked_ids = {name: topic_id for topic_id, name, _ in named or [] if name} if use_topic_ids else None
        self.when_done(self.coordinator.fetch_offsets(group_id, wanted, require_stable, member_id,
                                                      member_epoch, asked_ids),
                       respond)
        return answer

    def _with_topic_ids(self, group: dict, named: list | None) -> None:
        """OffsetFetch v10's answer by topic id, as Kafka's fetchOffsetsForGroup and
        fetchAllOffsetsForGroup: each topic gets the id it was asked by (or, asked for everything, its
        id now, and a topic that no longer exists is left out); an id nobody knows answers
        UNKNOWN_TOPIC_ID for each partition asked, after the rest."""
        if named is None:
            for topic in group["topics"]:
                known = self.metadata_cache.get_topic(topic["name"])
                topic["topic_id"] = known.topic_id if known else ZERO_UUID
            group["topics"] = [t for t in group["topics"] if t["topic_id"] != ZERO_UUID]
            return
        ids = {name: topic_id for topic_id, name, _ in named if name}
        for topic in group["topics"]:
            topic["topic_id"] = ids.get(topic["name"], ZERO_UUID)
        group["topics"] += [dict(topic_id=topic_id, name="", partitions=[
            dict(partition_index=i, committed_offset=-1, committed_leader_epoch=-1, metadata="",
                 error_code=Errors.UNKNOWN_TOPIC_ID) for i in t.partition_indexes])
            for topic_id, name, t in named if not name]

    @staticmethod
    def _offset_fetch_group(group_id: str, error: Errors, offsets: dict[TopicPartition, PartitionOffset],
                            wanted: list[TopicPartition] | None, version: int) -> dict:
        by_topic: dict[str, list[dict]] = {}
        if error != Errors.NONE and version < 2 and wanted:
            # v0-1 have no top-level error code: every partition carries it.
            for tp in wanted:
                by_topic.setdefault(tp.topic, []).append(dict(partition_index=tp.partition,
                                                              committed_offset=-1, metadata="",
                                                              error_code=error))
        for tp, po in offsets.items():
            by_topic.setdefault(tp.topic, []).append(dict(
                partition_index=tp.partition, committed_offset=po.offset,
                committed_leader_epoch=po.leader_epoch,
                metadata=po.metadata, error_code=po.error))
        return dict(group_id=group_id, error_code=error,
                    topics=[dict(name=name, partitions=parts) for name, parts in by_topic.items()])

    # ------------------------------------------------------------------ DescribeGroups / ListGroups
    def handle_describe_groups_request(self, request: Request) -> None:
        req = request.body
        include_operations = req.get("include_authorized_operations", False)

        def describe(group_id: str) -> Future:
            if not self.auth.authorize(request, Op.DESCRIBE, Res.GROUP, group_id):
                return answered(dict(error_code=Errors.GROUP_AUTHORIZATION_FAILED, group_id=group_id,
                                     group_state="",
                                     protocol_type="", protocol_data="", members=[]))
            answer: Future = Future()

            def respond(result: tuple[Errors, dict | None]) -> None:
                error, described = result
                if described is None:  # an error, or (before v6) a group nobody has heard of: "Dead"
                    described = dict(group_state="Dead" if error == Errors.NONE else "", protocol_type="",
                                     protocol_data="", members=[])
                group = {"error_code": error, "group_id": group_id, **described}  # v6: its own error
                if include_operations and group["error_code"] == Errors.NONE:
                    group["authorized_operations"] = self.auth.authorized_operations(request, Res.GROUP,
                                                                                     group_id)
                answer.set_result(group)

            self.when_done(self.coordinator.describe_group(group_id, request.header.api_version), respond)
            return answer

        def send_response_callback(groups: list[dict]) -> None:
            self.request_helper.send_response_maybe_throttle(request, dict(throttle_time_ms=0, groups=groups))

        self.when_done(gather([describe(group_id) for group_id in req.groups], list), send_response_callback)

    def handle_list_groups_request(self, request: Request) -> None:
        req = request.body
        version = request.header.api_version
        states = set(req.states_filter) if version >= 4 else set()
        types = {t.lower() for t in req.types_filter} if version >= 5 else set()

        def respond(result: tuple[Errors, list[dict]]) -> None:
            error, groups = result
            # only those it may see
            if not self.auth.authorize(request, Op.DESCRIBE, Res.CLUSTER, CLUSTER_NAME, False):
                groups = [g for g in groups
                          if self.auth.authorize(request, Op.DESCRIBE, Res.GROUP, g["group_id"], False)]
            self.request_helper.send_response_maybe_throttle(
                request, dict(throttle_time_ms=0, error_code=error, groups=groups))

        self.when_done(self.coordinator.list_groups(states, types), respond)

    # ------------------------------------------------------------------ DeleteGroups / OffsetDelete
    def handle_delete_groups_request(self, request: Request) -> None:
        names = list(request.body.groups_names)
        deletable = self.auth.filter_by_authorized(request, Op.DELETE, Res.GROUP, names)

        def respond(errors: dict[str, Errors]) -> None:
            errors = {g: errors[g] if g in deletable else Errors.GROUP_AUTHORIZATION_FAILED for g in names}
            self.request_helper.send_response_maybe_throttle(request, dict(throttle_time_ms=0, results=[
                dict(group_id=group_id, error_code=error) for group_id, error in errors.items()]))

        self.when_done(self.coordinator.delete_groups([g for g in names if g in deletable]), respond)

    def handle_offset_delete_request(self, request: Request) -> None:
        req = request.body
        self.auth.require(request, Op.DELETE, Res.GROUP, req.group_id, Errors.GROUP_AUTHORIZATION_FAILED)
        readable = self.auth.filter_by_authorized(request, Op.READ, Res.TOPIC, (t.name for t in req.topics))
        unknown = {TopicPartition(t.name, p.partition_index): Errors.UNKNOWN_TOPIC_OR_PARTITION
                   if t.name in readable
                   else Errors.TOPIC_AUTHORIZATION_FAILED for t in req.topics
                   if t.name not in readable or not self.metadata_cache.contains(t.name)
                   for p in t.partitions}
        wanted = [TopicPartition(t.name, p.partition_index) for t in req.topics for p in t.partitions]

        def respond(result: tuple[Errors, dict[TopicPartition, Errors]]) -> None:
            error, partition_errors = result
            partition_errors = {**partition_errors, **unknown}

            def error_of(topic: str, partition: int) -> Errors:
                return partition_errors.get(TopicPartition(topic, partition), Errors.NONE)

            topics = [] if error != Errors.NONE else [
                dict(name=t.name, partitions=[
                    dict(partition_index=p.partition_index, error_code=error_of(t.name, p.partition_index))
                    for p in t.partitions])
                for t in req.topics]
            self.request_helper.send_response_maybe_throttle(
                request, dict(error_code=error, throttle_time_ms=0, topics=topics))

        self.when_done(self.coordinator.delete_offsets(req.group_id,
                                                       [tp for tp in wanted if tp not in unknown]),
                       respond)


def _share_coordinator_error(key: str, error: Errors, version: int) -> dict:
    return {**_coordinator_error(key, error), "error_message": "" if version >= 4 else error.message}


def _coordinator_error(key: str, error: Errors) -> dict:
    return dict(key=key, node_id=-1, host="", port=-1, error_code=error, error_message=error.message)
