"""RepartitionTopics: how many partitions each repartition topic of a streams topology gets (Kafka's
org.apache.kafka.coordinator.group.streams.topics.RepartitionTopics).

A repartition topic whose count the application fixed keeps it. Any other gets the most partitions among
the topics the subtopology writing to it reads -- which may be repartition topics themselves, so the
counts are decided round after round until none is left; a round that decides nothing means a loop.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from kafka.coordinator.group.group import ApiError
from kafka.coordinator.group.streams.streams_group_records import Subtopology
from kafka.protocol.errors import Errors

PartitionCountProvider = Callable[[str], int | None]  # a topic's partition count, None if not known yet


class RepartitionTopics:
    def __init__(self, subtopologies: Iterable[Subtopology],
                 topic_partition_count: PartitionCountProvider) -> None:
        self.subtopologies = list(subtopologies)
        self.topic_partition_count = topic_partition_count

    def setup(self) -> dict[str, int]:
        """Repartition topic -> its partition count."""
        missing = {t for s in self.subtopologies for t in self.compute_missing_external_source_topics(s)}
        if missing:
            raise RuntimeError(f"Missing source topics: {', '.join(sorted(missing))}")
        counts = self.compute_repartition_topic_partition_count()
        for subtopology in self.subtopologies:
            if any(t.name not in counts for t in subtopology.repartition_source_topics):
                raise ApiError(Errors.STREAMS_INVALID_TOPOLOGY,
                               "Failed to compute number of partitions for all repartition topics, because a "
                               "repartition source topic is never used as a sink topic.")
        return counts

    def compute_missing_external_source_topics(self, subtopology: Subtopology) -> set[str]:
        missing = set(subtopology.source_topics) - {t.name for t in subtopology.repartition_source_topics}
        return {t for t in missing if self.topic_partition_count(t) is None}

    def compute_repartition_topic_partition_count(self) -> dict[str, int]:
        counts = {t.name: t.partitions for s in self.subtopologies for t in s.repartition_source_topics
                  if t.partitions != 0}
        while True:
            needed = progress = False
            for subtopology in self.subtopologies:
                for sink in subtopology.repartition_sink_topics:
                    if sink in counts:
                        continue
                    count = self.compute_partition_count(counts, subtopology)
                    if count is None:
                        needed = True
                    else:
                        counts[sink] = count
                        progress = True
            if needed and not progress:
                raise ApiError(Errors.STREAMS_INVALID_TOPOLOGY,
                               "Failed to compute number of partitions for all repartition topics. There may "
                               "be loops in the topology that cannot be resolved.")
            if not needed:
                return counts

    def compute_partition_count(self, counts: dict[str, int], subtopology: Subtopology) -> int | None:
        """The most partitions among the topics the subtopology reads whose count is known."""
        known = [counts[t.name] for t in subtopology.repartition_source_topics if t.name in counts]
        known += [c for t in subtopology.source_topics if (c := self.topic_partition_count(t)) is not None]
        return max(known) if known else None
