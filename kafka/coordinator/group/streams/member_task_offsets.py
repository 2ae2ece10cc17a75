"""MemberTaskOffsets: the changelog offsets a member last reported for its tasks, and their end offsets
(Kafka's org.apache.kafka.coordinator.group.streams.MemberTaskOffsets).

A member sends them every group.streams.task.offset.interval.ms (and when a warm-up task caught up). They
are not written to the log: the coordinator keeps them in memory, for StreamsGroupDescribe and for the
assignor, which gives a standby task to the member whose copy of the state is the most complete.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafka.coordinator.group.group import ApiError
from kafka.protocol.errors import Errors

Offsets = dict[str, dict[int, int]]  # subtopology id -> task number -> offset


@dataclass(frozen=True)
class MemberTaskOffsets:
    task_offsets: Offsets = field(default_factory=dict)
    task_end_offsets: Offsets = field(default_factory=dict)

    def update(self, reported_offsets, reported_end_offsets) -> MemberTaskOffsets:
        """The lists a heartbeat carried replace the ones kept; a list it left out (null) keeps them."""
        return MemberTaskOffsets(
            self.task_offsets if reported_offsets is None else to_nested_map(reported_offsets),
            self.task_end_offsets if reported_end_offsets is None else to_nested_map(reported_end_offsets))


def to_nested_map(task_offsets) -> Offsets:
    out: Offsets = {}
    for t in task_offsets:
        by_partition = out.setdefault(t.subtopology_id, {})
        if t.partition in by_partition:
            raise ApiError(Errors.INVALID_REQUEST, "Task offsets contain a duplicate entry for subtopology "
                                                   f"{t.subtopology_id} and partition {t.partition}.")
        by_partition[t.partition] = t.offset
    return out
