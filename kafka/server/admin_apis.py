"""The admin part of KafkaApis: CreatePartitions, DescribeCluster, DescribeLogDirs, DescribeProducers,
ElectLeaders, AlterPartitionReassignments, ListPartitionReassignments.

Kafka keeps these handlers in kafka.server.KafkaApis itself; here they sit beside it (as
GroupApis and StorageApis do) so each file stays readable, and KafkaApis' dispatch table includes
``AdminApis.handlers()``. CreatePartitions goes through the AdminManager, which records the new
count and has the ReplicaManager create the new partitions' logs; DescribeCluster reads the
MetadataCache; DescribeLogDirs the LogManager's directories (and their LogDirFailureChannel);
DescribeProducers the idempotent producers a partition's log remembers (its ProducerStateManager),
from any replica hosting it, as Kafka answers. ElectLeaders is the
controller's decision alone: it is forwarded as it came and answered when the controller answers,
without holding an I/O thread; so are the two reassignment requests.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable

from kafka.network.request_channel import Request
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.messages.describe_cluster import BROKERS_ENDPOINT_TYPE
from kafka.server.admin_manager import TopicError
from kafka.utils.topic_partition import TopicPartition


class AdminApis:
    def __init__(self, apis) -> None:
        self.apis = apis  # KafkaApis: send_response, admin_manager, metadata_cache

    def handlers(self) -> dict[int, Callable[[Request], None]]:
        return {
            ApiKey.CREATE_PARTITIONS: self.handle_create_partitions_request,
            ApiKey.DESCRIBE_CLUSTER: self.handle_describe_cluster_request,
            ApiKey.DESCRIBE_LOG_DIRS: self.handle_describe_log_dirs_request,
            ApiKey.DESCRIBE_PRODUCERS: self.handle_describe_producers_request,
            ApiKey.ELECT_LEADERS: self.handle_elect_leaders_request,
            ApiKey.ALTER_PARTITION_REASSIGNMENTS: self.handle_alter_partition_reassignments_request,
            ApiKey.LIST_PARTITION_REASSIGNMENTS: self.handle_list_partition_reassignments_request,
        }

    # ------------------------------------------------------------------ CreatePartitions
    def handle_create_partitions_request(self, request: Request) -> None:
        req = request.body
        try:  # the whole request's size first, as for CreateTopics
            self.apis.admin_manager.validate_create_partitions_batch(req.topics)
        except TopicError as e:
            self.apis.send_response(request, dict(throttle_time_ms=0, results=[
                dict(name=t.name, error_code=e.error, error_message=str(e)) for t in req.topics]))
            return
        names = Counter(t.name for t in req.topics)
        results = []
        for topic in req.topics:
            if names[topic.name] > 1:
                results.append(dict(name=topic.name, error_code=Errors.INVALID_REQUEST,
                                    error_message=f"topic '{topic.name}' appears more than once in the request"))
                continue
            assignments = None if topic.assignments is None else [list(a.broker_ids) for a in topic.assignments]
            try:
                self.apis.admin_manager.create_partitions(topic.name, topic.count, assignments, req.validate_only)
                results.append(dict(name=topic.name, error_code=Errors.NONE, error_message=None))
            except TopicError as e:
                results.append(dict(name=topic.name, error_code=e.error, error_message=str(e)))
        self.apis.send_response(request, dict(throttle_time_ms=0, results=results))

    # ------------------------------------------------------------------ the controller's decisions
    def handle_elect_leaders_request(self, request: Request) -> None:
        req = request.body
        self._forward_to_controller(request, req.timeout_ms, lambda error: dict(
            throttle_time_ms=0, error_code=error, replica_election_results=[
                dict(topic=t.topic, partition_result=[
                    dict(partition_id=p, error_code=error, error_message="the controller did not answer")
                    for p in t.partitions]) for t in req.topic_partitions or []]))

    def handle_alter_partition_reassignments_request(self, request: Request) -> None:
        self._forward_to_controller(request, request.body.timeout_ms, lambda error: dict(
            throttle_time_ms=0, error_code=error, error_message="the controller did not answer", responses=[]))

    def handle_list_partition_reassignments_request(self, request: Request) -> None:
        self._forward_to_controller(request, request.body.timeout_ms, lambda error: dict(
            throttle_time_ms=0, error_code=error, error_message="the controller did not answer", topics=[]))

    def _forward_to_controller(self, request: Request, timeout_ms: int, failed: Callable[[Errors], dict]) -> None:
        """Forward the request as it came; answer when the controller answers (on the controller
        channel's thread), so no I/O thread waits."""
        def on_response(response, error: Errors) -> None:
            if response is not None and error == Errors.NONE:
                self.apis.send_response(request, response.to_dict())
            else:
                self.apis.send_response(request, failed(error if error != Errors.NONE else Errors.UNKNOWN_SERVER_ERROR))

        self.apis.admin_manager.forwarding_manager.forward(request.header.api_key, request.body.to_dict(), timeout_ms,
                                                           on_response, max_version=request.header.api_version)

    # ------------------------------------------------------------------ DescribeCluster
    def handle_describe_cluster_request(self, request: Request) -> None:
        req = request.body
        cache = self.apis.metadata_cache
        if request.header.api_version >= 1 and req.endpoint_type != BROKERS_ENDPOINT_TYPE:
            # A combined broker has no separate controller listener to describe.
            self.apis.send_response(request, dict(
                throttle_time_ms=0, error_code=Errors.UNSUPPORTED_ENDPOINT_TYPE,
                error_message="this broker describes brokers only (endpoint type 1)",
                endpoint_type=req.endpoint_type, cluster_id=cache.cluster_id, controller_id=-1, brokers=[]))
            return
        brokers = []
        for broker in cache.alive_brokers():
            end_point = broker.end_point(request.listener)
            if end_point is not None:
                brokers.append(dict(broker_id=broker.node_id, host=end_point.host, port=end_point.port,
                                    rack=broker.rack))
        self.apis.send_response(request, dict(
            throttle_time_ms=0, error_code=Errors.NONE, error_message=None, endpoint_type=BROKERS_ENDPOINT_TYPE,
            cluster_id=cache.cluster_id, controller_id=cache.controller_id, brokers=brokers))

    # ------------------------------------------------------------------ DescribeLogDirs
    def handle_describe_log_dirs_request(self, request: Request) -> None:
        req = request.body
        wanted = None if req.topics is None else {(t.topic, p) for t in req.topics for p in t.partitions}
        log_manager = self.apis.replica_manager.log_manager
        failures = log_manager.log_dir_failure_channel
        results = []
        for log_dir in log_manager.log_dirs:
            by_topic: dict[str, list[dict]] = {}
            for log in sorted(log_manager.all_logs(), key=lambda lg: (lg.topic, lg.partition)):
                if log.parent_dir != log_dir or (wanted is not None and (log.topic, log.partition) not in wanted):
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
                total_bytes=total, usable_bytes=usable))
        self.apis.send_response(request, dict(throttle_time_ms=0, error_code=Errors.NONE, results=results))

    # ------------------------------------------------------------------ DescribeProducers
    def handle_describe_producers_request(self, request: Request) -> None:
        topics = []
        for topic in request.body.topics:
            partitions = [self._active_producer_state(TopicPartition(topic.name, index))
                          for index in topic.partition_indexes]
            topics.append(dict(name=topic.name, partitions=partitions))
        self.apis.send_response(request, dict(throttle_time_ms=0, topics=topics))

    def _active_producer_state(self, tp: TopicPartition) -> dict:
        """Kafka's ReplicaManager.activeProducerState: a partition hosted here answers, leader or
        follower; one that is not gets NOT_LEADER_OR_FOLLOWER, or UNKNOWN_TOPIC_OR_PARTITION if it
        exists nowhere."""
        replica_manager = self.apis.replica_manager
        partition = replica_manager.get_partition(tp)
        if partition is None:
            _, error = replica_manager.get_partition_or_error(tp)
            return dict(partition_index=tp.partition, error_code=error, active_producers=[],
                        error_message=f"{tp.topic}-{tp.partition} is not on this broker")
        return dict(partition_index=tp.partition, error_code=Errors.NONE, error_message=None,
                    active_producers=partition.active_producer_state())
