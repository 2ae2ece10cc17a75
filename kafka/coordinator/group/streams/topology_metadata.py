"""TopologyMetadata: a configured topology as the task assignor sees it (Kafka's
org.apache.kafka.coordinator.group.streams.TopologyMetadata, a TopologyDescriber): the subtopologies in id
order, each one's number of tasks, and whether it keeps state (has a changelog topic, so standby tasks of it
are worth keeping).
"""

from __future__ import annotations

from kafka.coordinator.group.streams.topics.configured_topology import ConfiguredSubtopology


class TopologyMetadata:
    def __init__(self, subtopologies: dict[str, ConfiguredSubtopology]) -> None:
        self.subtopology_map = dict(sorted(subtopologies.items()))

    def subtopologies(self) -> list[str]:
        return list(self.subtopology_map)

    def is_stateful(self, subtopology_id: str) -> bool:
        return bool(self.subtopology(subtopology_id).state_changelog_topics)

    def max_num_input_partitions(self, subtopology_id: str) -> int:
        return self.subtopology(subtopology_id).number_of_tasks

    def subtopology(self, subtopology_id: str) -> ConfiguredSubtopology:
        if subtopology_id not in self.subtopology_map:
            raise KeyError(f"Topology does not contain subtopology {subtopology_id}")
        return self.subtopology_map[subtopology_id]
