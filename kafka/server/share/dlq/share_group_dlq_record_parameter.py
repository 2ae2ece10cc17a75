"""ShareGroupDLQRecordParameter: what one write to a share group's dead-letter queue is about (Kafka's
org.apache.kafka.server.share.dlq.ShareGroupDLQRecordParameter).

A SharePartition hands the ShareGroupDLQManager one of these per run of records it archives for the DLQ:
the group, the partition the records came from, their first and last offset, how many times they were
delivered, and why (ShareGroupDLQManager.CLIENT_REJECT or DELIVERY_COUNT_EXCEEDED). Each offset of the run
becomes one record on the DLQ topic.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka.utils.topic_id_partition import TopicIdPartition


@dataclass(frozen=True)
class ShareGroupDLQRecordParameter:
    group_id: str
    topic_id_partition: TopicIdPartition
    first_offset: int
    last_offset: int
    delivery_count: int | None = None
    cause: BaseException | None = None
