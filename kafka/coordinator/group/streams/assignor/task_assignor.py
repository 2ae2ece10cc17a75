"""TaskAssignor and what it is given and returns: the streams group's assignor interface (Kafka's
org.apache.kafka.coordinator.group.api.streams.assignor: TaskAssignor, GroupSpec, MemberAssignmentState,
MemberAssignment, GroupAssignment, TopologyDescriber, AssignmentConfigs, TaskAssignorException; and the
implementations GroupSpecImpl, MemberMetadataAndStateImpl, AssignmentConfigsImpl and TaskId).

The group coordinator computes a streams group's target assignment itself (KIP-1071), as it does a
consumer group's: the assignor sees each member (its process, rack, tags and the tasks it runs now, with
its changelog offsets) and the topology (each subtopology's number of tasks, whether it keeps state), and
says which active and standby tasks each member should run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from kafka.utils.java_hash_map import java_hash_map_order


@dataclass(frozen=True, order=True)
class TaskId:
    subtopology_id: str
    partition: int

    def __str__(self) -> str:
        return f"{self.subtopology_id}_{self.partition}"


class TaskAssignorException(Exception):
    """The assignor could not assign (the heartbeat is UNKNOWN_SERVER_ERROR, as Kafka answers)."""


@dataclass(frozen=True)
class AssignmentConfigs:
    """Kafka's AssignmentConfigsImpl.fromMap: the group's assignment configs, as the group's metadata
    record keeps the last ones used (num.standby.replicas, rack.aware.assignment.tags)."""

    num_standby_replicas: int = 0
    rack_aware_assignment_tags: tuple[str, ...] = ()

    @classmethod
    def from_map(cls, configs: Mapping[str, str]) -> AssignmentConfigs:
        if not configs:
            return cls()
        tags = configs.get("rack.aware.assignment.tags", "")
        return cls(int(configs["num.standby.replicas"]), tuple(tags.split(",")) if tags else ())


@dataclass(frozen=True)
class MemberMetadataAndState:
    """What the assignor knows of one member (Kafka's MemberMetadataAndStateImpl)."""

    instance_id: str | None
    rack_id: str | None
    process_id: str
    client_tags: Mapping[str, str]
    active_tasks: Mapping[str, frozenset[int]]
    standby_tasks: Mapping[str, frozenset[int]]
    warmup_tasks: Mapping[str, frozenset[int]]
    task_offsets: Mapping[str, Mapping[int, int]] = field(default_factory=dict)
    task_end_offsets: Mapping[str, Mapping[int, int]] = field(default_factory=dict)


@dataclass(frozen=True)
class GroupSpec:
    members: Mapping[str, MemberMetadataAndState]
    configs: AssignmentConfigs

    def member_ids(self) -> list[str]:
        """In the order Kafka's HashMap of the members gives them (ties in the assignor follow it)."""
        return java_hash_map_order(list(self.members))


@dataclass(frozen=True)
class MemberAssignment:
    active_tasks: Mapping[str, frozenset[int]]
    standby_tasks: Mapping[str, frozenset[int]]


@dataclass(frozen=True)
class GroupAssignment:
    members: Mapping[str, MemberAssignment]


class TopologyDescriber(Protocol):
    def subtopologies(self) -> list[str]: ...

    def max_num_input_partitions(self, subtopology_id: str) -> int: ...

    def is_stateful(self, subtopology_id: str) -> bool: ...


class TaskAssignor(Protocol):
    def name(self) -> str: ...

    def assign(self, group_spec: GroupSpec, topology: TopologyDescriber) -> GroupAssignment: ...
