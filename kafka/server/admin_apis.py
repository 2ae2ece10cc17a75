"""The admin part of KafkaApis: CreatePartitions and DescribeCluster.

Kafka keeps these handlers in kafka.server.KafkaApis itself; here they sit beside it (as
GroupApis and StorageApis do) so each file stays readable, and KafkaApis' dispatch table includes
``AdminApis.handlers()``. CreatePartitions goes through the AdminManager, which records the new
count and has the ReplicaManager create the new partitions' logs; DescribeCluster reads the
MetadataCache.
"""

from __future__ import annotations

from collections.abc import Callable

from kafka.network.request_channel import Request
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.messages.describe_cluster import BROKERS_ENDPOINT_TYPE
from kafka.server.admin_manager import TopicError


class AdminApis:
    def __init__(self, apis) -> None:
        self.apis = apis  # KafkaApis: send_response, admin_manager, metadata_cache

    def handlers(self) -> dict[int, Callable[[Request], None]]:
        return {
            ApiKey.CREATE_PARTITIONS: self.handle_create_partitions_request,
            ApiKey.DESCRIBE_CLUSTER: self.handle_describe_cluster_request,
        }

    # ------------------------------------------------------------------ CreatePartitions
    def handle_create_partitions_request(self, request: Request) -> None:
        req = request.body
        names = [t.name for t in req.topics]
        results = []
        for topic in req.topics:
            if names.count(topic.name) > 1:
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
