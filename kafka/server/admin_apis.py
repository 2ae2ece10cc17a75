"""The admin part of KafkaApis: CreateTopics, DeleteTopics, CreatePartitions, DescribeCluster,
DescribeLogDirs, DescribeProducers, ElectLeaders, AlterPartitionReassignments, ListPartitionReassignments.

Kafka keeps these handlers in kafka.server.KafkaApis itself; here they sit beside it (as
GroupApis and StorageApis do) so each file stays readable: KafkaServer builds the family with what
it uses, and KafkaApis' dispatch table includes ``AdminApis.handlers()``.

CreateTopics, DeleteTopics and CreatePartitions go through the AdminManager, which forwards each
topic to the controller and hands back a Future; the handler gathers one Future per topic
(`future_utils.all_of`) and answers when the last one completes, on whichever thread completes it.
No I/O thread waits for the controller: a paused controller leaves these requests waiting (until
their timeout answers them REQUEST_TIMED_OUT) while produce and fetch go on. ElectLeaders and the
two reassignment requests are the controller's decision alone: forwarded as they came and answered
when the controller answers.

DescribeCluster reads the MetadataCache; DescribeLogDirs the LogManager's directories (and their
LogDirFailureChannel); DescribeProducers the idempotent producers a partition's log remembers (its
ProducerStateManager), from any replica hosting it, as Kafka answers.
"""

from __future__ import annotations

import os
import uuid
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future

from kafka.image.metadata_version import is_cordoned_log_dirs_supported
from kafka.network.request_channel import Request
from kafka.protocol.acl import CLUSTER_NAME
from kafka.protocol.acl import AclOperation as Op
from kafka.protocol.acl import ResourceType as Res
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.messages.describe_cluster import BROKERS_ENDPOINT_TYPE, CONTROLLERS_ENDPOINT_TYPE
from kafka.server.admin_manager import AdminManager, CreatedTopic, TopicError
from kafka.server.auth_helper import AuthHelper
from kafka.server.config_helper import ConfigHelper
from kafka.server.forwarding_manager import ForwardingManager
from kafka.server.metadata_cache import MetadataCache
from kafka.server.replica_manager import ReplicaManager
from kafka.server.request_handler_helper import RequestHandlerHelper
from kafka.utils import future_utils
from kafka.utils.topic_partition import TopicPartition

DUPLICATE_TOPIC_NAME = "Duplicate topic name."  # INVALID_REQUEST, answered once for the name


def _first_of_each(topics: list) -> list:
    """The topics of a request, a name named twice kept once: Kafka's answers are keyed by name."""
    seen: set[str] = set()
    return [t for t in topics if not (t.name in seen or seen.add(t.name))]


def _configs_hidden(created: dict) -> dict:
    return {**created, "configs": [], "num_partitions": -1, "replication_factor": -1,
            "topic_config_error_code": Errors.TOPIC_AUTHORIZATION_FAILED}


def _topic_denied(name: str, **extra) -> dict:
    return dict(name=name, error_code=Errors.TOPIC_AUTHORIZATION_FAILED,
                error_message="Authorization failed.", **extra)


def _topic_error(future: Future) -> TopicError | None:
    """The TopicError a finished admin Future failed with, or None; any other exception is a bug and
    raised."""
    error = future.exception()
    if error is None or isinstance(error, TopicError):
        return error
    raise error


class AdminApis:
    def __init__(self, request_helper: RequestHandlerHelper, auth_helper: AuthHelper,
                 admin_manager: AdminManager,
                 forwarding_manager: ForwardingManager, metadata_cache: MetadataCache,
                 replica_manager: ReplicaManager,
                 config_helper: ConfigHelper, config) -> None:
        self.request_helper = request_helper
        self.auth = auth_helper
        self.admin_manager = admin_manager  # CreateTopics, DeleteTopics, CreatePartitions: to the controller
        # ElectLeaders and the reassignments, forwarded as they came
        self.forwarding_manager = forwarding_manager
        self.metadata_cache = metadata_cache  # DescribeCluster, DescribeProducers
        self.replica_manager = replica_manager  # DescribeLogDirs (its LogManager), DescribeProducers
        self.config_helper = config_helper  # a created topic's configs
        self.config = config  # default.replication.factor, for a validate-only CreateTopics

    def handlers(self) -> dict[int, Callable[[Request], None]]:
        return {
            ApiKey.CREATE_TOPICS: self.handle_create_topics_request,
            ApiKey.DELETE_TOPICS: self.handle_delete_topics_request,
            ApiKey.CREATE_PARTITIONS: self.handle_create_partitions_request,
            ApiKey.DESCRIBE_CLUSTER: self.handle_describe_cluster_request,
            ApiKey.DESCRIBE_LOG_DIRS: self.handle_describe_log_dirs_request,
            ApiKey.DESCRIBE_PRODUCERS: self.handle_describe_producers_request,
            ApiKey.ELECT_LEADERS: self.handle_elect_leaders_request,
            ApiKey.ALTER_PARTITION_REASSIGNMENTS: self.handle_alter_partition_reassignments_request,
            ApiKey.LIST_PARTITION_REASSIGNMENTS: self.handle_list_partition_reassignments_request,
        }

    # ------------------------------------------------------------------ CreateTopics
    def handle_create_topics_request(self, request: Request) -> None:
        req = request.body
        try:  # the whole request's size first: one request may not keep the controller busy for long
            self.admin_manager.validate_create_topics_batch(req.topics)
        except TopicError as e:
            topics = [dict(name=t.name, error_code=e.error, error_message=str(e), num_partitions=-1,
                           replication_factor=-1, configs=[]) for t in req.topics]
            self.request_helper.send_response_maybe_throttle(request, dict(throttle_time_ms=0, topics=topics))
            return
        names = Counter(t.name for t in req.topics)
        validate_only = getattr(req, "validate_only", False)
        # CREATE on the cluster, or on each topic (Kafka's rule)
        creatable = (set(names) if self.auth.authorize(request, Op.CREATE, Res.CLUSTER, CLUSTER_NAME, False)
                     else self.auth.filter_by_authorized(request, Op.CREATE, Res.TOPIC, names))
        results = [self._create_topic(topic, names[topic.name] > 1, validate_only) if topic.name in creatable
                   else future_utils.completed(_topic_denied(topic.name, num_partitions=-1,
                                                             replication_factor=-1))
                   for topic in _first_of_each(req.topics)]
        # a created topic's configs are shown only to a principal that may describe them (Kafka's rule)
        describable = self.auth.filter_by_authorized(request, Op.DESCRIBE_CONFIGS, Res.TOPIC, creatable,
                                                     False)

        def response(topics: list[dict]) -> dict:
            shown = [t if t["error_code"] or t["name"] in describable else _configs_hidden(t) for t in topics]
            return dict(throttle_time_ms=0, topics=shown)

        self.request_helper.send_response_when_done(request, future_utils.all_of(results), response)

    def _create_topic(self, topic, duplicate: bool, validate_only: bool) -> Future[dict]:
        """One topic's entry of the CreateTopics response, once the controller (and this broker) are done."""
        failed = dict(name=topic.name, error_code=Errors.NONE, error_message=None, num_partitions=-1,
                      replication_factor=-1, configs=[])
        if duplicate:
            return future_utils.completed({**failed, "error_code": Errors.INVALID_REQUEST,
                                           "error_message": DUPLICATE_TOPIC_NAME})
        assignments = None
        if topic.assignments:
            if topic.num_partitions != -1 or topic.replication_factor != -1:
                return future_utils.completed({**failed, "error_code": Errors.INVALID_REQUEST,
                                               "error_message": "give either assignments or partitions "
                                                                "and replication factor"})
            assignments = {a.partition_index: list(a.broker_ids) for a in topic.assignments}
        created = self.admin_manager.create_topic(topic.name, topic.num_partitions, topic.replication_factor,
                                                  {c.name: c.value for c in topic.configs}, validate_only,
                                                  assignments=assignments)

        def entry(done: Future[CreatedTopic]) -> dict:
            error = _topic_error(done)
            if error is not None:
                return {**failed, "error_code": error.error, "error_message": str(error)}
            return self._created_topic_entry(done.result(), topic.replication_factor)

        return future_utils.handle(created, entry)

    def _created_topic_entry(self, created: CreatedTopic, replication_factor: int) -> dict:
        meta = created.metadata
        if meta.partitions:
            replication_factor = len(meta.partitions[0].replicas)
        elif replication_factor == -1:  # validate_only: the default the controller would have used
            replication_factor = self.config.default_replication_factor
        return dict(name=meta.name, topic_id=meta.topic_id, error_code=Errors.NONE, error_message=None,
                    num_partitions=meta.num_partitions, replication_factor=replication_factor,
                    configs=self.config_helper.created_topic_configs(
                        meta.configs, created.log_config))

    # ------------------------------------------------------------------ DeleteTopics
    def handle_delete_topics_request(self, request: Request) -> None:
        req = request.body
        if request.header.api_version >= 6:
            wanted = [(t.name if t.name is not None else self.admin_manager.topic_name_for_id(t.topic_id),
                       t.topic_id) for t in req.topics]
        else:
            wanted = [(name, None) for name in req.topic_names]
        # DELETE on the cluster, or on each topic (Kafka's controller: the cluster grant wins over a topic
        # DENY)
        names = [n for n, _ in wanted if n]
        deletable = (set(names) if self.auth.authorize(request, Op.DELETE, Res.CLUSTER, CLUSTER_NAME, False)
                     else self.auth.filter_by_authorized(request, Op.DELETE, Res.TOPIC, names))
        results = [self._delete_topic(name, topic_id) if name is None or name in deletable
                   else future_utils.completed(_topic_denied(name, topic_id=topic_id or uuid.UUID(int=0)))
                   for name, topic_id in wanted]
        self.request_helper.send_response_when_done(request, future_utils.all_of(results),
                                                    lambda responses: dict(throttle_time_ms=0,
                                                                           responses=responses))

    def _delete_topic(self, name: str | None, topic_id: uuid.UUID | None) -> Future[dict]:
        if name is None:
            return future_utils.completed(dict(name=None, topic_id=topic_id,
                                               error_code=Errors.UNKNOWN_TOPIC_ID,
                                               error_message="This server does not host this topic ID."))

        def entry(done: Future) -> dict:
            error = _topic_error(done)
            if error is not None:
                return dict(name=name, topic_id=topic_id or uuid.UUID(int=0), error_code=error.error,
                            error_message=str(error))
            return dict(name=name, topic_id=done.result().topic_id, error_code=Errors.NONE)

        return future_utils.handle(self.admin_manager.delete_topic(name), entry)

    # ------------------------------------------------------------------ CreatePartitions
    def handle_create_partitions_request(self, request: Request) -> None:
        req = request.body
        try:  # the whole request's size first, as for CreateTopics
            self.admin_manager.validate_create_partitions_batch(req.topics)
        except TopicError as e:
            self.request_helper.send_response_maybe_throttle(request, dict(throttle_time_ms=0, results=[
                dict(name=t.name, error_code=e.error, error_message=str(e)) for t in req.topics]))
            return
        names = Counter(t.name for t in req.topics)
        alterable = self.auth.filter_by_authorized(request, Op.ALTER, Res.TOPIC, names)
        results = [self._create_partitions(topic, names[topic.name] > 1, req.validate_only)
                   if topic.name in alterable else future_utils.completed(_topic_denied(topic.name))
                   for topic in _first_of_each(req.topics)]
        self.request_helper.send_response_when_done(request, future_utils.all_of(results),
                                                    lambda entries: dict(throttle_time_ms=0, results=entries))

    def _create_partitions(self, topic, duplicate: bool, validate_only: bool) -> Future[dict]:
        if duplicate:
            return future_utils.completed(dict(
                name=topic.name, error_code=Errors.INVALID_REQUEST,
                error_message=DUPLICATE_TOPIC_NAME))
        assignments = None if topic.assignments is None else [list(a.broker_ids) for a in topic.assignments]

        def entry(done: Future) -> dict:
            error = _topic_error(done)
            if error is not None:
                return dict(name=topic.name, error_code=error.error, error_message=str(error) or None)
            return dict(name=topic.name, error_code=Errors.NONE, error_message=None)

        return future_utils.handle(
            self.admin_manager.create_partitions(topic.name, topic.count, assignments, validate_only), entry)

    # ------------------------------------------------------------------ the controller's decisions
    def handle_elect_leaders_request(self, request: Request) -> None:
        req = request.body

        def failed(error: Errors) -> dict:
            unanswered = error != Errors.CLUSTER_AUTHORIZATION_FAILED
            message = "the controller did not answer" if unanswered else None
            return dict(throttle_time_ms=0, error_code=error, replica_election_results=[
                dict(topic=t.topic, partition_result=[
                    dict(partition_id=p, error_code=error, error_message=message) for p in t.partitions])
                for t in req.topic_partitions or []])

        if not self.auth.authorize(request, Op.ALTER, Res.CLUSTER, CLUSTER_NAME):
            self.request_helper.send_response_maybe_throttle(request,
                                                             failed(Errors.CLUSTER_AUTHORIZATION_FAILED))
            return
        self._forward_to_controller(request, req.timeout_ms, failed)

    def handle_alter_partition_reassignments_request(self, request: Request) -> None:
        self.auth.authorize_cluster_operation(request, Op.ALTER)
        self._forward_to_controller(request, request.body.timeout_ms, lambda error: dict(
            throttle_time_ms=0, error_code=error, error_message="the controller did not answer",
            responses=[]))

    def handle_list_partition_reassignments_request(self, request: Request) -> None:
        self.auth.authorize_cluster_operation(request, Op.DESCRIBE)
        self._forward_to_controller(request, request.body.timeout_ms, lambda error: dict(
            throttle_time_ms=0, error_code=error, error_message="the controller did not answer", topics=[]))

    def _forward_to_controller(self, request: Request, timeout_ms: int,
                               failed: Callable[[Errors], dict]) -> None:
        """Forward the request as it came; answer when the controller answers (on the controller
        channel's thread), so no I/O thread waits."""
        def on_response(response, error: Errors) -> None:
            if response is not None and error == Errors.NONE:
                self.request_helper.send_response_maybe_throttle(request, response.to_dict())
            else:
                error = error if error != Errors.NONE else Errors.UNKNOWN_SERVER_ERROR
                self.request_helper.send_response_maybe_throttle(request, failed(error))

        self.forwarding_manager.forward_request(request.header.api_key, request.body.to_dict(), timeout_ms,
                                                on_response, max_version=request.header.api_version)

    # ------------------------------------------------------------------ DescribeCluster
    def handle_describe_cluster_request(self, request: Request) -> None:
        req = request.body
        cache = self.metadata_cache
        if request.header.api_version >= 1 and req.endpoint_type != BROKERS_ENDPOINT_TYPE:
            # Controllers are described on a controller listener, not here; a type no one knows is not
            # supported (Kafka's AuthHelper.computeDescribeClusterResponse). Either way, nothing else is said.
            error = (Errors.MISMATCHED_ENDPOINT_TYPE if req.endpoint_type == CONTROLLERS_ENDPOINT_TYPE
                     else Errors.UNSUPPORTED_ENDPOINT_TYPE)
            self.request_helper.send_response_maybe_throttle(request, dict(
                throttle_time_ms=0, error_code=error, error_message="this broker describes brokers only "
                f"(endpoint type 1), not endpoint type {req.endpoint_type}", cluster_id="", brokers=[]))
            return
        # v2 (KIP-1073) may ask for the fenced brokers too, each marked as fenced or not
        brokers, include_fenced = [], req.get("include_fenced_brokers", False)
        for broker in cache.get_brokers() if include_fenced else cache.alive_brokers():
            end_point = broker.end_point(request.listener)
            if end_point is not None:
                brokers.append(dict(broker_id=broker.node_id, host=end_point.host, port=end_point.port,
                                    rack=broker.rack, is_fenced=broker.fenced))
        self.request_helper.send_response_maybe_throttle(request, dict(
            throttle_time_ms=0, error_code=Errors.NONE, error_message=None,
            endpoint_type=BROKERS_ENDPOINT_TYPE,
            cluster_id=cache.cluster_id, controller_id=cache.controller_id, brokers=brokers,
            cluster_authorized_operations=self.auth.cluster_authorized_operations(
                request, req.include_cluster_authorized_operations)))

    # ------------------------------------------------------------------ DescribeLogDirs
    def handle_describe_log_dirs_request(self, request: Request) -> None:
        req = request.body
        if not self.auth.authorize(request, Op.DESCRIBE, Res.CLUSTER, CLUSTER_NAME):
            self.request_helper.send_response_maybe_throttle(request, dict(
                throttle_time_ms=0, error_code=Errors.CLUSTER_AUTHORIZATION_FAILED, results=[]))
            return
        wanted = None if req.topics is None else {(t.topic, p) for t in req.topics for p in t.partitions}
        log_manager = self.replica_manager.log_manager
        failures = log_manager.log_dir_failure_channel
        # KIP-1066: a cordoned directory says so once metadata.version 4.3-IV0 is finalized (Kafka's)
        cordoned = log_manager.cordoned_log_dirs if is_cordoned_log_dirs_supported(
            self.metadata_cache.finalized_features.get("metadata.version", 0)) else frozenset()
        results = []
        for log_dir in log_manager.log_dirs:
            by_topic: dict[str, list[dict]] = {}
            for log in sorted(log_manager.all_logs(), key=lambda lg: (lg.topic, lg.partition)):
                if log.parent_dir != log_dir or (wanted is not None
                                                 and (log.topic, log.partition) not in wanted):
                    continue
                by_topic.setdefault(log.topic, []).append(dict(
                    partition_index=log.partition, partition_size=log.size_in_bytes, offset_lag=0,
                    is_future_key=False))
            try:
                stat = os.statvfs(log_dir)
                total, usable = stat.f_blocks * stat.f_frsize, stat.f_bavail * stat.f_frsize
            except OSError:
                total = usable = -1
            results.append(dict(
                error_code=Errors.KAFKA_STORAGE_ERROR if failures.is_offline(log_dir) else Errors.NONE,
                log_dir=log_dir, topics=[dict(name=t, partitions=ps) for t, ps in by_topic.items()],
                total_bytes=total, usable_bytes=usable, is_cordoned=log_dir in cordoned))
        self.request_helper.send_response_maybe_throttle(
            request, dict(throttle_time_ms=0, error_code=Errors.NONE, results=results))

    # ------------------------------------------------------------------ DescribeProducers
    def handle_describe_producers_request(self, request: Request) -> None:
        topics = []
        readable = self.auth.filter_by_authorized(request, Op.READ, Res.TOPIC,
                                                  (t.name for t in request.body.topics))
        for topic in request.body.topics:
            partitions = [self._active_producer_state(TopicPartition(topic.name, index))
                          if topic.name in readable
                          else dict(partition_index=index, error_code=Errors.TOPIC_AUTHORIZATION_FAILED,
                                    error_message=None, active_producers=[])
                          for index in topic.partition_indexes]
            topics.append(dict(name=topic.name, partitions=partitions))
        self.request_helper.send_response_maybe_throttle(request, dict(throttle_time_ms=0, topics=topics))

    def _active_producer_state(self, tp: TopicPartition) -> dict:
        """Kafka's ReplicaManager.activeProducerState: a partition hosted here answers, leader or
        follower; one that is not gets NOT_LEADER_OR_FOLLOWER, or UNKNOWN_TOPIC_OR_PARTITION if it
        exists nowhere."""
        replica_manager = self.replica_manager
        if not self.metadata_cache.contains(tp.topic):  # Kafka: the error's own text, only here
            error = Errors.UNKNOWN_TOPIC_OR_PARTITION
            return dict(partition_index=tp.partition, error_code=error, active_producers=[],
                        error_message=error.message)
        partition = replica_manager.get_partition(tp)
        if partition is None:
            _, error = replica_manager.get_partition_or_error(tp)
            return dict(partition_index=tp.partition, error_code=error, active_producers=[],
                        error_message=None)
        return dict(partition_index=tp.partition, error_code=Errors.NONE, error_message=None,
                    active_producers=partition.active_producer_state())
