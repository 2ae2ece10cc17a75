"""DescribeTopicPartitionsHandler: Admin.describeTopics by name through DescribeTopicPartitions (KIP-966),
the paging half of Kafka's KafkaAdminClient (generateDescribeTopicsCallWithDescribeTopicPartitionsApi).

The request names every topic not yet described, sorted, and a partition limit; a response holds at most
that many partitions and a NextCursor where it stopped. The next request starts from the cursor: the
topic it names (partly described) is asked again from the partition after the last one received, and
its partitions are appended to those already in hand. A topic answered with an error is done (the
describe fails for it). As Kafka's admin handlers do, this one only builds the requests and reads their
answers; AdminClient sends them, and falls back to Metadata for a broker without this API.
"""

from __future__ import annotations

from kafka.clients.admin.descriptions import TopicDescription, TopicPartitionInfo
from kafka.clients.errors import KafkaError
from kafka.protocol.errors import Errors

DEFAULT_PARTITION_SIZE_LIMIT_PER_RESPONSE = 2000  # DescribeTopicsOptions.partitionSizeLimitPerResponse


class DescribeTopicPartitionsHandler:
    def __init__(self, names, partition_size_limit_per_response: int) -> None:
        self.pending = sorted(set(names))  # the topics a next request asks for
        self.limit = partition_size_limit_per_response
        self.described: dict[str, TopicDescription] = {}
        self.errors: dict[str, KafkaError] = {}
        self.partial: TopicDescription | None = None  # the cursor's topic, described in part

    @property
    def done(self) -> bool:
        return not self.pending

    def request(self) -> dict:
        cursor = None
        if self.partial is not None:
            cursor = dict(topic_name=self.partial.name, partition_index=len(self.partial.partitions))
        return dict(topics=[dict(name=name) for name in self.pending], response_partition_limit=self.limit,
                    cursor=cursor)

    def handle_response(self, response) -> None:
        before = (len(self.pending), self.request()["cursor"])
        self._handle_response(response)
        if (len(self.pending), self.request()["cursor"]) == before:  # a broker that pages nowhere
            raise KafkaError(Errors.UNKNOWN_SERVER_ERROR, "DescribeTopicPartitions answered without progress")

    def handle_metadata_response(self, response) -> None:
        """A broker without DescribeTopicPartitions: the topics left from Metadata, with no ELR."""
        for t in response.topics:
            if t.error_code != Errors.NONE:
                self.errors[t.name] = KafkaError(t.error_code, f"describing topic {t.name!r}")
                continue
            partitions = [TopicPartitionInfo(t.name, p.partition_index, p.leader_id, tuple(p.replica_nodes),
                                             tuple(p.isr_nodes))
                          for p in sorted(t.partitions, key=lambda p: p.partition_index)]
            self.described[t.name] = TopicDescription(t.name, t.get("is_internal", False), partitions,
                                                      t.get("topic_id"))
        self.pending = []

    def result(self) -> dict[str, TopicDescription]:
        """Every topic described, or the first one's error (Kafka's allTopicNames().get())."""
        if self.errors:
            raise next(iter(self.errors.values()))
        return self.described

    def _handle_response(self, response) -> None:
        cursor = response.next_cursor
        following = None  # the topic the new cursor names, as far as this response goes
        for topic in response.topics:
            if topic.error_code != Errors.NONE:
                self.errors[topic.name] = KafkaError(topic.error_code, f"describing topic {topic.name!r}")
                self._finish(topic.name)
                if cursor is not None and cursor.topic_name == topic.name:
                    cursor = None
                continue
            description = _description(topic)
            if self.partial is not None and self.partial.name == topic.name:
                self.partial.partitions.extend(description.partitions)
            elif cursor is not None and cursor.topic_name == topic.name:
                following = description
            else:
                self.described[topic.name] = description
                self._finish(topic.name)
        if self.partial is not None and (cursor is None or cursor.topic_name != self.partial.name):
            self.described[self.partial.name] = self.partial
            self._finish(self.partial.name)
            self.partial = None
        if following is not None:
            self.partial = following

    def _finish(self, name: str) -> None:
        if name in self.pending:
            self.pending.remove(name)


def _description(topic) -> TopicDescription:
    partitions = [TopicPartitionInfo(topic.name, p.partition_index, p.leader_id, tuple(p.replica_nodes),
                                     tuple(p.isr_nodes), _nodes(p.eligible_leader_replicas),
                                     _nodes(p.last_known_elr))
                  for p in topic.partitions]
    return TopicDescription(topic.name, topic.is_internal, partitions, topic.topic_id)


def _nodes(ids) -> tuple[int, ...] | None:
    return tuple(ids) if ids is not None else None
