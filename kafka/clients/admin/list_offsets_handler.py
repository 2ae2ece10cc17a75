"""ListOffsetsHandler: partitions' offsets at a time or at either end, asked of their leaders
(Kafka's org.apache.kafka.clients.admin.internals.ListOffsetsHandler).

Admin.listOffsets takes a spec per partition (Kafka's OffsetSpec): "earliest" (timestamp -2: the
log start), "latest" (-1: the high watermark, or with read_committed the last stable offset),
"max-timestamp" (-3: the record with the largest timestamp) or a timestamp in ms (the first
offset whose record is at least that late). Only a partition's leader answers for it (Kafka's
PartitionLeaderStrategy), so one request goes to each leader, naming the partitions it leads.

As Kafka's handlers do, this one only builds the requests and reads the answers; AdminClient
looks the leaders up, sends, and asks again while an answer says a leader is gone.
"""

from __future__ import annotations

from collections.abc import Mapping

from kafka.clients.admin.descriptions import TopicDescription
from kafka.clients.errors import KafkaError
from kafka.protocol.errors import Errors
from kafka.utils.topic_partition import TopicPartition

OFFSET_SPECS = {"earliest": -2, "latest": -1, "max-timestamp": -3}


class ListOffsetsHandler:
    def __init__(self, specs: Mapping[TopicPartition, str | int], isolation_level: int) -> None:
        self.specs = specs
        self.isolation_level = isolation_level  # 1: read_committed (Kafka's ListOffsetsOptions)

    def build_requests(self, described: Mapping[str, TopicDescription]) -> dict[int, dict]:
        """One ListOffsets body per leader (its node id), for the partitions it leads."""
        by_leader: dict[int, dict[str, list[dict]]] = {}
        for tp, spec in self.specs.items():
            parts = described[tp.topic].partitions
            if tp.partition >= len(parts):
                raise KafkaError(Errors.UNKNOWN_TOPIC_OR_PARTITION, str(tp))
            timestamp = OFFSET_SPECS[spec] if isinstance(spec, str) else int(spec)
            by_leader.setdefault(parts[tp.partition].leader, {}).setdefault(tp.topic, []).append(
                {"partition_index": tp.partition, "timestamp": timestamp})
        return {leader: {"replica_id": -1, "isolation_level": self.isolation_level,
                         "topics": [{"name": t, "partitions": ps} for t, ps in topics.items()]}
                for leader, topics in by_leader.items()}

    @staticmethod
    def handle_response(response) -> dict[TopicPartition, tuple[int, int]]:
        """{tp: (offset, timestamp)} from one leader; the first partition error raises."""
        result = {}
        for t in response.topics:
            for p in t.partitions:
                if p.error_code != Errors.NONE:
                    raise KafkaError(p.error_code, f"listing offsets of {t.name}-{p.partition_index}")
                result[TopicPartition(t.name, p.partition_index)] = (p.offset, p.timestamp)
        return result
