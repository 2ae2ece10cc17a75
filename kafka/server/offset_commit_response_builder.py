"""OffsetCommitResponseBuilder: Kafka's OffsetCommitResponse.Builder (and TxnOffsetCommitResponse's,
the same): a commit's answer assembled topic by topic, partition by partition.

KafkaApis first adds the partitions it refuses itself (an unknown topic id, a topic the principal may
not read, a topic or partition that does not exist), then merges in what the group coordinator
answered for the rest. A topic is one entry however its partitions were answered, keyed by its id
from OffsetCommit v10 and TxnOffsetCommit v6 (KIP-848, KIP-1319), by its name before; each entry
carries both, and the wire writes the one its version has.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from kafka.protocol.errors import Errors


class OffsetCommitResponseBuilder:
    def __init__(self, use_topic_ids: bool) -> None:
        self.use_topic_ids = use_topic_ids
        self.topics: dict[object, dict] = {}  # topic id or name -> the response's topic, in first-added order

    def add_partition(self, topic_id: uuid.UUID, name: str, partition: int, error: Errors) -> None:
        key = topic_id if self.use_topic_ids else name
        topic = self.topics.get(key)
        if topic is None:
            topic = self.topics[key] = dict(topic_id=topic_id, name=name, partitions=[])
        topic["partitions"].append(dict(partition_index=partition, error_code=error))

    def add_partitions(self, topic_id: uuid.UUID, name: str, partitions: Iterable[int],
                       error: Errors) -> None:
        for partition in partitions:
            self.add_partition(topic_id, name, partition, error)

    def build(self) -> list[dict]:
        return list(self.topics.values())
