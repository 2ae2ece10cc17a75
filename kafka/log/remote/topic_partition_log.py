"""TopicPartitionLog: a partition this broker hosts, with its log, as the RemoteLogManager hears of it
(Kafka's org.apache.kafka.server.log.remote.TopicPartitionLog, which Kafka's Partition implements).

The ReplicaManager hands the RemoteLogManager the partitions whose leadership changed; the RemoteLogManager
sits below the server and knows no Partition, only these two things about one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from kafka.utils.topic_partition import TopicPartition

if TYPE_CHECKING:
    from kafka.log.unified_log import UnifiedLog


class TopicPartitionLog(NamedTuple):
    topic_partition: TopicPartition
    unified_log: UnifiedLog | None
