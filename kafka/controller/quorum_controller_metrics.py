"""QuorumControllerMetrics: the controller's gauges
(Kafka's QuorumControllerMetrics and ControllerMetadataMetrics).

kafka.controller:type=KafkaController: whether this node is the active controller, what the
cluster holds as the controller sees it (topics, partitions, offline partitions, fenced and active
brokers), and MetadataErrorCount, the events that failed with a fault. The counts are read from the
managers when the gauges are read, as Kafka's publisher reads them from the image; the fault count
is the one figure only the controller's event handling knows, so it is kept here.
"""

from __future__ import annotations

from kafka.controller.cluster_control_manager import ClusterControlManager
from kafka.controller.replication_control_manager import ReplicationControlManager


class QuorumControllerMetrics:
    def __init__(self) -> None:
        self.metadata_error_count = 0  # Kafka's MetadataErrorCount: events that failed with a fault

    def increment_metadata_error_count(self) -> None:
        self.metadata_error_count += 1

    def values(self, active: bool, replication: ReplicationControlManager,
               cluster: ClusterControlManager) -> dict[str, int]:
        topics, partitions, offline = replication.counts()
        active_brokers, fenced_brokers = cluster.counts()
        return {"ActiveControllerCount": int(active), "OfflinePartitionsCount": offline,
                "GlobalTopicCount": topics, "GlobalPartitionCount": partitions,
                "FencedBrokerCount": fenced_brokers, "ActiveBrokerCount": active_brokers,
                "MetadataErrorCount": self.metadata_error_count}
