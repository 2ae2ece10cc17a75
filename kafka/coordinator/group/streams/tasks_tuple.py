"""TasksTuple: a member's tasks by kind, active, standby and warm-up (Kafka's
org.apache.kafka.coordinator.group.streams.TasksTuple).

A task is a subtopology and a partition number: task 1_3 processes partition 3 of every topic subtopology
1 reads. A member's *active* tasks it processes; a *standby* task keeps a copy of another member's task's
state (its changelog) warm for a failover; a *warm-up* task catches up on state before it becomes active.
Each kind maps a subtopology id to the task numbers (a subtopology with none is left out). This is a
target: the assignor's, with no epochs (``tasks_tuple_with_epochs.py`` is a member's current tasks).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

Tasks = Mapping[str, frozenset[int]]  # subtopology id -> task (partition) numbers


def compact(tasks: Mapping[str, object]) -> dict[str, frozenset[int]]:
    """Subtopology -> frozenset of its tasks, subtopologies without tasks left out."""
    return {s: frozenset(p) for s, p in tasks.items() if p}


@dataclass(frozen=True)
class TasksTuple:
    active_tasks: Tasks = field(default_factory=dict)
    standby_tasks: Tasks = field(default_factory=dict)
    warmup_tasks: Tasks = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("active_tasks", "standby_tasks", "warmup_tasks"):
            object.__setattr__(self, name, compact(getattr(self, name)))

    def is_empty(self) -> bool:
        return not (self.active_tasks or self.standby_tasks or self.warmup_tasks)

    def contains_any(self, other) -> bool:
        """Does this (what a member says it owns) hold any of ``other``'s tasks (a TasksTupleWithEpochs),
        kind by kind?"""
        return (any(p & set(other.active_tasks_with_epochs.get(s, {})) for s, p in self.active_tasks.items())
                or any(p & other.standby_tasks.get(s, frozenset()) for s, p in self.standby_tasks.items())
                or any(p & other.warmup_tasks.get(s, frozenset()) for s, p in self.warmup_tasks.items()))

    def same_tasks(self, other) -> bool:
        """The same tasks of each kind, whatever epochs ``other``'s active tasks were assigned at."""
        return (self.standby_tasks == other.standby_tasks and self.warmup_tasks == other.warmup_tasks
                and self.active_tasks == {s: frozenset(e) for s, e in other.active_tasks_with_epochs.items()})

    @classmethod
    def from_heartbeat_request(cls, active, standby, warmup) -> TasksTuple:
        """What a member owns, as its heartbeat's three lists of TaskIds say."""
        def tasks(task_ids) -> dict:
            return {t.subtopology_id: frozenset(t.partitions) for t in task_ids}
        return cls(tasks(active), tasks(standby), tasks(warmup))

    def __str__(self) -> str:
        return (f"(active={task_assignment_to_string(self.active_tasks)}, "
                f"standby={task_assignment_to_string(self.standby_tasks)}, "
                f"warmup={task_assignment_to_string(self.warmup_tasks)})")


def task_assignment_to_string(tasks: Mapping[str, object]) -> str:
    """[0-1, 0-2, 1-0]: Kafka's taskAssignmentToString, for the log."""
    return "[" + ", ".join(f"{s}-{p}" for s in sorted(tasks) for p in sorted(tasks[s])) + "]"


EMPTY = TasksTuple()
