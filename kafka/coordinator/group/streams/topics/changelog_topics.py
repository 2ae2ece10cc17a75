"""ChangelogTopics: how many partitions each changelog topic of a streams topology gets (Kafka's
org.apache.kafka.coordinator.group.streams.topics.ChangelogTopics): one per task of its subtopology, that
is the most partitions among the topics the subtopology reads (task n's state is partition n).
"""

from __future__ import annotations

from collections.abc import Iterable

from kafka.coordinator.group.group import ApiError
from kafka.coordinator.group.streams.streams_group_records import Subtopology
from kafka.coordinator.group.streams.topics.repartition_topics import PartitionCountProvider
from kafka.protocol.errors import Errors


class ChangelogTopics:
    def __init__(self, subtopologies: Iterable[Subtopology],
                 topic_partition_count: PartitionCountProvider) -> None:
        self.subtopologies = list(subtopologies)
        self.topic_partition_count = topic_partition_count

    def setup(self) -> dict[str, int]:
        counts = {}
        for subtopology in self.subtopologies:
            read = [*subtopology.source_topics, *(t.name for t in subtopology.repartition_source_topics)]
            if not read:
                raise ApiError(Errors.STREAMS_INVALID_TOPOLOGY,
                               f"No source topics found for subtopology {subtopology.subtopology_id}")
            most = max(self.partition_count_or_fail(t) for t in read)
            for changelog in subtopology.state_changelog_topics:
                counts[changelog.name] = most
        return counts

    def partition_count_or_fail(self, topic: str) -> int:
        count = self.topic_partition_count(topic)
        if count is None:
            raise RuntimeError(f"No partition count for source topic {topic}")
        return count
