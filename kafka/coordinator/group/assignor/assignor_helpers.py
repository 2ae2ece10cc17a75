"""AssignorHelpers: what SimpleAssignor's two builders share (Kafka's
org.apache.kafka.coordinator.group.assignor.AssignorHelpers, and the code both builders repeat): the
copy-on-write of a member's assignment, the number of partitions each member should read, and the walk
over the members still short of partitions."""

from __future__ import annotations

import math
import uuid

from kafka.coordinator.group.assignor.share_group_partition_assignor import GroupSpec, PartitionAssignorError

MutableAssignment = dict[uuid.UUID, set[int]]


def desired_sharing(num_members: int, num_partitions: int) -> int:
    """How many members should read each partition: ceil(members / partitions), 0 with no partitions."""
    return 0 if num_partitions == 0 else (num_members + num_partitions - 1) // num_partitions


def desired_assignment_counts(desired_sharing: int, num_partitions: int, num_members: int) -> list[int]:
    """How many partitions each member should read, in member order: desired_sharing * partitions in
    all, spread as evenly as whole numbers allow (Kafka computes it with doubles; so does Python)."""
    if num_members == 0:
        return []
    preferred = desired_sharing * num_partitions / num_members
    return [math.ceil(preferred * (i + 1)) - math.ceil(preferred * i) for i in range(num_members)]


def assignable_partitions(group_spec: GroupSpec, topic_id: uuid.UUID,
                          partitions_per_topic: dict[uuid.UUID, int]) -> list[int]:
    """Kafka's computeTargetPartitions for one topic: its partitions the group may be given."""
    count = partitions_per_topic.get(topic_id, -1)
    if count == -1:
        raise PartitionAssignorError(f"Members are subscribed to topic {topic_id} which doesn't exist in the "
                                     "topic metadata.")
    return [p for p in range(count) if group_spec.is_partition_assignable(topic_id, p)]


def deep_copy(assignment) -> MutableAssignment:
    """Kafka's AssignorHelpers.deepCopyAssignment: a member's assignment, made mutable."""
    return {topic_id: set(partitions) for topic_id, partitions in (assignment or {}).items()}


def frozen(assignment) -> dict[uuid.UUID, frozenset[int]]:
    return {topic_id: frozenset(partitions) for topic_id, partitions in assignment.items() if partitions}


class UnfilledMembers:
    """Kafka's iterator over the set of members still short of partitions: it walks them in index
    order (what Java's HashSet of small Integers gives), ``remove`` drops the one just returned, and
    ``restart`` begins a new pass over those left."""

    def __init__(self, members: set[int]) -> None:
        self.members = members
        self.restart()

    def restart(self) -> None:
        self._order = sorted(self.members)
        self._next = 0
        self._current: int | None = None

    def has_next(self) -> bool:
        return self._next < len(self._order)

    def next(self) -> int:
        self._current = self._order[self._next]
        self._next += 1
        return self._current

    def remove(self) -> None:
        self.members.discard(self._current)
