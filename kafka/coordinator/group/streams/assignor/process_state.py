"""ProcessState: what the StickyTaskAssignor has given one Kafka Streams process so far (Kafka's
org.apache.kafka.coordinator.group.streams.assignor.ProcessState).

A process's *capacity* is its number of members (stream threads) and its *load* its tasks per member, so
that a process of four threads gets about twice the tasks of one with two. Inside a process, a task goes to
the member with the fewest.
"""

from __future__ import annotations

from kafka.coordinator.group.streams.assignor.task_assignor import TaskAssignorException, TaskId
from kafka.utils.java_hash_map import java_hash_map_order
from kafka.utils.java_priority_queue import JavaPriorityQueue

MAX_DOUBLE = 1.7976931348623157e308  # Java's Double.MAX_VALUE: a process with no member yet


class ProcessState:
    def __init__(self, process_id: str) -> None:
        self.process_id = process_id
        self.capacity = 0
        self.load = MAX_DOUBLE
        self.task_count = 0
        self.member_to_task_counts: dict[str, int] = {}
        self.assigned_active_tasks: dict[str, set[TaskId]] = {}
        self.assigned_standby_tasks: dict[str, set[TaskId]] = {}
        self.assigned_tasks: set[TaskId] = set()
        self.members_by_load: JavaPriorityQueue[list] | None = None  # [member id, task count] entries

    def add_member(self, member_id: str) -> None:
        self.member_to_task_counts[member_id] = 0
        self.capacity += 1
        self.compute_load()

    def compute_load(self) -> None:
        self.load = -1.0 if self.capacity <= 0 else self.task_count / self.capacity

    def has_task(self, task: TaskId) -> bool:
        return task in self.assigned_tasks

    def add_task(self, member_id: str, task: TaskId, is_active: bool) -> int:
        """To this member; its new task count."""
        count = self.add_task_internal(member_id, task, is_active)
        self.members_by_load = None
        return count

    def add_task_internal(self, member_id: str, task: TaskId, is_active: bool) -> int:
        self.task_count += 1
        self.assigned_tasks.add(task)
        by_member = self.assigned_active_tasks if is_active else self.assigned_standby_tasks
        by_member.setdefault(member_id, set()).add(task)
        self.member_to_task_counts[member_id] += 1
        self.compute_load()
        return self.member_to_task_counts[member_id]

    def add_task_to_least_loaded_member(self, task: TaskId, is_active: bool) -> int:
        """To the member with the fewest tasks; its new count, or -1 for a process without members."""
        if not self.member_to_task_counts:
            return -1
        if len(self.member_to_task_counts) == 1:
            return self.add_task_internal(next(iter(self.member_to_task_counts)), task, is_active)
        if self.members_by_load is None:  # Kafka's queue of its HashMap's entries
            counts = self.member_to_task_counts
            entries = ([m, counts[m]] for m in java_hash_map_order(list(counts)))
            self.members_by_load = JavaPriorityQueue(lambda entry: entry[1], entries)
        entry = self.members_by_load.poll()
        if entry is None:
            raise TaskAssignorException(f"No members available to assign task {task}")
        entry[1] = self.add_task_internal(entry[0], task, is_active)
        self.members_by_load.add(entry)
        return entry[1]
