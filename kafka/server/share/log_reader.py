"""LogReader and ReplicaManagerLogReader: how share fetches read the log (Kafka's
org.apache.kafka.server.share.LogReader and kafka.server.share.ReplicaManagerLogReader).

The share code reads through this one method and never sees a Partition or a Log, so a SharePartition
and a DelayedShareFetch can be driven in a test over a real ReplicaManager on a temporary directory.
A share fetch reads as a consumer does (replica id -1, below the high watermark, or below the last
stable offset with the aborted transactions for read_committed), in bytes rather than a zero-copy
slice: the broker parses the batch headers to decide what each member acquires.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from kafka.server.fetch_partition_data import FetchPartitionData, FetchPartitionInfo
from kafka.server.replica_manager import FetchParams
from kafka.utils.topic_id_partition import TopicIdPartition


class LogReader(ABC):
    @abstractmethod
    def read(self, params: FetchParams, fetch_offsets: dict[TopicIdPartition, tuple[int, int]]
             ) -> dict[TopicIdPartition, FetchPartitionData]:
        """Read each partition from its (fetch offset, max bytes), in order, within params.max_bytes."""


class ReplicaManagerLogReader(LogReader):
    def __init__(self, replica_manager) -> None:
        self.replica_manager = replica_manager

    def read(self, params: FetchParams, fetch_offsets: dict[TopicIdPartition, tuple[int, int]]
             ) -> dict[TopicIdPartition, FetchPartitionData]:
        if not fetch_offsets:
            return {}
        infos = [(tip.topic_partition, FetchPartitionInfo(offset, max_bytes))
                 for tip, (offset, max_bytes) in fetch_offsets.items()]
        results = self.replica_manager.read_from_local_log(params, infos, zero_copy=False)
        return dict(zip(fetch_offsets, (data for _, data in results), strict=True))
