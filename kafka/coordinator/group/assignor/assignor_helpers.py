"""AssignorHelpers: what SimpleAssignor's two builders share (Kafka's
org.apache.kafka.coordinator.group.assignor.AssignorHelpers, and the code both builders repeat): the
copy-on-write of a member's assignment, the number of partitions each member should read, and the walk
over the members still short of partitions."""

from __future__ import annotations

import math
import uuid

MutableAssignment = dict[uuid.UUID, set[int]]


def desired_assignment_counts(desired_sharing: int, num_partitions: int, num_members: int) -> list[int]:
    """How many partitions each member should read, in member order: desired_sharing * partitions in
    all, spread as evenly as whole numbers allow (Kafka computes it with doubles; so does Python)."""
    if num_members == 0:
        return []
    preferred = desired_sharing * num_partitions / num_members
    return [math.ceil(preferred * (i + 1)) - math.ceil(preferred * i) for i in range(num_members)]


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
