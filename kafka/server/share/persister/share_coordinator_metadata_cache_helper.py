"""ShareCoordinatorMetadataCacheHelperImpl: what the broker's metadata cache says about the share
coordinators (Kafka's kafka.server.share.ShareCoordinatorMetadataCacheHelperImpl).

The persister asks it whether __share_group_state exists, which broker leads the partition a share
partition key hashes to (its share coordinator: no FindCoordinator needed), and which brokers are alive
(one of them answers a FindCoordinator when the cache cannot). Addresses are on the inter-broker listener.
"""

from __future__ import annotations

from collections.abc import Callable

from kafka.clients.metadata import Node
from kafka.coordinator.share.share_partition_key import SharePartitionKey


class ShareCoordinatorMetadataCacheHelperImpl:
    def __init__(self, metadata_cache, partition_for: Callable[[SharePartitionKey], int],
                 listener_name: str) -> None:
        """`partition_for`: the share coordinator's (ShareCoordinatorService.partition_for)."""
        self.metadata_cache = metadata_cache
        self.partition_for = partition_for
        self.listener_name = listener_name

    def contains_topic(self, topic: str) -> bool:
        return self.metadata_cache.contains(topic)

    def get_share_coordinator(self, key: SharePartitionKey, internal_topic: str) -> Node | None:
        if not self.metadata_cache.contains(internal_topic):
            return None
        leader, end_point = self.metadata_cache.partition_leader_end_point(
            internal_topic, self.partition_for(key), self.listener_name)
        return Node(leader, end_point.host, end_point.port) if end_point is not None else None

    def get_cluster_nodes(self) -> list[Node]:
        nodes = []
        for broker in self.metadata_cache.alive_brokers():
            end_point = broker.end_point(self.listener_name)
            if end_point is not None:
                nodes.append(Node(broker.node_id, end_point.host, end_point.port))
        return nodes
