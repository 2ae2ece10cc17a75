"""RemoteStorageFetchInfo: one partition of a consumer's fetch that must be read from remote storage
(Kafka's org.apache.kafka.storage.internals.log.RemoteStorageFetchInfo, KIP-405).

The ReplicaManager's local read finds the fetch offset below the leader's local log start offset (but at
or above its log start offset): the records are only in remote storage. Instead of reading them on the
request thread, it hands this description to the RemoteLogManager's reader pool and parks the fetch in
the remote-fetch purgatory (DelayedRemoteFetch) until a reader thread has done it.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka.log.fetch_isolation import FetchIsolation
from kafka.utils.topic_partition import TopicPartition


@dataclass(frozen=True)
class RemoteStorageFetchInfo:
    fetch_max_bytes: int  # what the fetch may still take, partition and response limits applied
    min_one_message: bool  # the first partition with data gets at least one whole batch
    topic_partition: TopicPartition
    fetch_offset: int  # Kafka's fetchInfo: the partition's part of the request
    partition_max_bytes: int
    fetch_isolation: FetchIsolation  # TXN_COMMITTED: the aborted transactions come back too
