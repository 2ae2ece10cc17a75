"""StopPartition: a partition this broker stops hosting, and what to delete with it (Kafka's
org.apache.kafka.server.common.StopPartition).

A deleted topic's partitions are stopped with `delete_local_log` and, when the topic was tiered,
`delete_remote_log`: the RemoteLogManager deletes their remote segments too. A replica moved away keeps its
remote data (another broker leads the partition) and only stops following its metadata.
"""

from __future__ import annotations

from typing import NamedTuple

from kafka.utils.topic_partition import TopicPartition


class StopPartition(NamedTuple):
    topic_partition: TopicPartition
    delete_local_log: bool
    delete_remote_log: bool = False
    stop_remote_log_metadata_manager: bool = False
