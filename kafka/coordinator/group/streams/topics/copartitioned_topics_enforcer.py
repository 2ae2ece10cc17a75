"""CopartitionedTopicsEnforcer: topics a subtopology joins must have as many partitions as each other, so
that task n sees partition n of each (Kafka's org.apache.kafka.coordinator.group.streams.topics.
CopartitionedTopicsEnforcer).

For one co-partition group: the user's topics in it must already agree, and the repartition topics in it
whose count was not fixed get theirs; a repartition topic fixed to another count is
INCORRECTLY_PARTITIONED_TOPICS. A group of repartition topics only takes a fixed count if one is fixed,
else the largest.
"""

from __future__ import annotations

from kafka.coordinator.group.group import ApiError
from kafka.coordinator.group.streams.topics.repartition_topics import PartitionCountProvider
from kafka.coordinator.group.streams.topics.topic_configuration_exception import TopicConfigurationException
from kafka.protocol.errors import Errors
from kafka.utils.java_hash_map import java_hash_map_order


def java_map_string(counts: dict[str, int]) -> str:
    """A sorted map as Java prints a TreeMap: {a=1, b=2}."""
    return "{" + ", ".join(f"{k}={v}" for k, v in sorted(counts.items())) + "}"


class CopartitionedTopicsEnforcer:
    def __init__(self, topic_partition_count: PartitionCountProvider) -> None:
        self.topic_partition_count = topic_partition_count

    def enforce(self, copartitioned_topics: set[str], fixed_repartition_topics: set[str],
                flexible_repartition_topics: set[str]) -> dict[str, int]:
        """Repartition topic of the group -> the count it must have."""
        if not copartitioned_topics:
            return {}
        repartition = {t: self.partition_count(t) for t in copartitioned_topics
                       if t in fixed_repartition_topics or t in flexible_repartition_topics}
        others = {t: self.partition_count(t) for t in copartitioned_topics if t not in repartition}
        if set(copartitioned_topics) == set(repartition):
            if fixed_repartition_topics:
                count = self.validate_and_get_num_of_partitions(repartition, fixed_repartition_topics)
            else:
                count = self.get_max_partitions(repartition)
        else:
            count = self.get_same_partitions(others)
        for topic, current in repartition.items():
            if topic in fixed_repartition_topics and current != count:
                raise TopicConfigurationException.incorrectly_partitioned_topics(
                    f"Number of partitions [{current}] of repartition topic [{topic}] doesn't match number "
                    f"of partitions [{count}] of the source topic.")
        return dict.fromkeys(repartition, count)

    def partition_count(self, topic: str) -> int:
        count = self.topic_partition_count(topic)
        if count is None:
            raise RuntimeError(f"Number of partitions is not set for topic: {topic}")
        return count

    def validate_and_get_num_of_partitions(self, repartition: dict[str, int], fixed: set[str]) -> int:
        ordered = java_hash_map_order(list(fixed))  # Kafka takes its HashSet's first
        first = self.partition_count(ordered[0])
        if any(self.partition_count(t) != first for t in ordered):
            raise TopicConfigurationException.incorrectly_partitioned_topics(
                "Following topics do not have the same number of partitions: "
                f"[{java_map_string(repartition)}]")
        return first

    @staticmethod
    def get_same_partitions(others: dict[str, int]) -> int:
        counts = set(others.values())
        if len(counts) > 1:
            raise TopicConfigurationException.incorrectly_partitioned_topics(
                f"Following topics do not have the same number of partitions: [{java_map_string(others)}]")
        return counts.pop()

    @staticmethod
    def get_max_partitions(repartition: dict[str, int]) -> int:
        most = max(repartition.values(), default=0)
        if most == 0:
            raise ApiError(Errors.STREAMS_INVALID_TOPOLOGY,
                           "All topics in the copartition group had undefined partition number: "
                           f"[{', '.join(java_hash_map_order(list(repartition)))}]")
        return most
