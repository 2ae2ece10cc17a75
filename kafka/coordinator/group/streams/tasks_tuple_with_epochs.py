"""TasksTupleWithEpochs: a member's current tasks, each active one with the member epoch it was assigned at
(Kafka's org.apache.kafka.coordinator.group.streams.TasksTupleWithEpochs, KIP-1251).

The epoch of an active task fences a zombie: an offset commit with an older member epoch is accepted only
for a task the member held at that epoch already (StreamsGroup.validate_offset_commit).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from kafka.coordinator.group.streams.tasks_tuple import Tasks, compact, task_assignment_to_string

TasksWithEpochs = Mapping[str, Mapping[int, int]]  # subtopology id -> task number -> assignment epoch


@dataclass(frozen=True)
class TasksTupleWithEpochs:
    active_tasks_with_epochs: TasksWithEpochs = field(default_factory=dict)
    standby_tasks: Tasks = field(default_factory=dict)
    warmup_tasks: Tasks = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "active_tasks_with_epochs",
                           {s: dict(e) for s, e in self.active_tasks_with_epochs.items() if e})
        object.__setattr__(self, "standby_tasks", compact(self.standby_tasks))
        object.__setattr__(self, "warmup_tasks", compact(self.warmup_tasks))

    def is_empty(self) -> bool:
        return not (self.active_tasks_with_epochs or self.standby_tasks or self.warmup_tasks)

    @property
    def active_tasks(self) -> dict[str, frozenset[int]]:
        return {s: frozenset(e) for s, e in self.active_tasks_with_epochs.items()}

    def standby_and_warmup_tasks(self) -> dict[str, frozenset[int]]:
        return merge_tasks(self.standby_tasks, self.warmup_tasks)

    def merge(self, other: TasksTupleWithEpochs) -> TasksTupleWithEpochs:
        active = {s: dict(e) for s, e in self.active_tasks_with_epochs.items()}
        for s, e in other.active_tasks_with_epochs.items():
            active.setdefault(s, {}).update(e)
        return TasksTupleWithEpochs(active, merge_tasks(self.standby_tasks, other.standby_tasks),
                                    merge_tasks(self.warmup_tasks, other.warmup_tasks))

    def with_active_epochs_reset(self) -> TasksTupleWithEpochs:
        """Every active task at epoch 0 (Kafka's resetAssignedTasksEpochsToZero: a static member that left
        to come back)."""
        reset = {s: dict.fromkeys(epochs, 0) for s, epochs in self.active_tasks_with_epochs.items()}
        return TasksTupleWithEpochs(reset, self.standby_tasks, self.warmup_tasks)

    def __str__(self) -> str:
        return (f"(active={task_assignment_to_string(self.active_tasks_with_epochs)}, "
                f"standby={task_assignment_to_string(self.standby_tasks)}, "
                f"warmup={task_assignment_to_string(self.warmup_tasks)})")


def merge_tasks(a: Tasks, b: Tasks) -> dict[str, frozenset[int]]:
    return {s: a.get(s, frozenset()) | b.get(s, frozenset()) for s in a.keys() | b.keys()}


EMPTY_WITH_EPOCHS = TasksTupleWithEpochs()
