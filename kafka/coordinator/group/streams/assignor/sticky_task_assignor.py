"""StickyTaskAssignor: the streams groups' broker-side assignor, "sticky" (Kafka's
org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor).

It balances tasks over processes by load (tasks per member) and keeps tasks where they are when it can:

* active tasks: first each task to the member that runs it now, while that member is under its quota
  (the tasks per member, rounded up); then to a member that keeps a standby of it (it has the state), the
  least-loaded among them; the rest, in subtopology order, each to the least-loaded process, and there to
  its least-loaded member;
* standby tasks (group.streams.num.standby.replicas of each stateful task, never two copies of a task on
  one process): first to the member that ran the task before, then to the members that kept it as a
  standby (the one whose copy is the most complete first), the rest to the least-loaded processes. A task
  that finds no process without a copy of it goes short, with a warning.

Warm-up tasks are not given out by Kafka 4.4's broker (its AssignmentRefiner hands the target through).
Where several choices are equal, Kafka's HashMaps and PriorityQueues decide; they are walked here in the
order Java's would give (``java_hash_map_order``, ``JavaPriorityQueue``), so the same group gets the same
assignment from both brokers.
"""

from __future__ import annotations

from dataclasses import dataclass

import structlog

from kafka.coordinator.group.streams.assignor.process_state import MAX_DOUBLE, ProcessState
from kafka.coordinator.group.streams.assignor.task_assignor import (
    GroupAssignment,
    GroupSpec,
    MemberAssignment,
    TaskAssignorException,
    TaskId,
    TopologyDescriber,
)
from kafka.utils.java_hash_map import java_hash_map_order
from kafka.utils.java_priority_queue import JavaPriorityQueue

log = structlog.get_logger("kafka.coordinator.group.streams.assignor.StickyTaskAssignor")


@dataclass(frozen=True)
class Member:
    process_id: str
    member_id: str


class LocalState:
    """One assignment's working state (Kafka's StickyTaskAssignor.LocalState)."""

    def __init__(self) -> None:
        self.active_task_to_prev_member: dict[TaskId, Member] = {}
        self.standby_task_to_prev_member: dict[TaskId, list[Member]] = {}
        self.process_id_to_state: dict[str, ProcessState] = {}
        self.num_standby_replicas = 0
        self.total_active_tasks = self.total_tasks = 0
        self.total_members_with_active_task_capacity = self.total_members_with_task_capacity = 0
        self.active_tasks_per_member = self.total_tasks_per_member = 0
        self.total_members_with_task_capacity_at_start = 0  # the size Kafka's map of the processes starts at

    def processes(self) -> list[ProcessState]:
        """The processes in the order Kafka's HashMap of them (sized for the members) gives them."""
        order = java_hash_map_order(list(self.process_id_to_state),
                                    self.total_members_with_task_capacity_at_start)
        return [self.process_id_to_state[p] for p in order]


class StickyTaskAssignor:
    def name(self) -> str:
        return "sticky"

    def __str__(self) -> str:
        return self.name()

    def assign(self, group_spec: GroupSpec, topology: TopologyDescriber) -> GroupAssignment:
        state = initialize(group_spec, topology)
        assign_active(state, task_ids(topology, True))
        if state.num_standby_replicas > 0:
            assign_standby(state, task_ids(topology, False))
        return build_group_assignment(state, group_spec.member_ids())


def task_ids(topology: TopologyDescriber, is_active: bool) -> list[TaskId]:
    """Every task (or, for standbys, every stateful subtopology's), in subtopology order."""
    return [TaskId(s, i) for s in topology.subtopologies() if is_active or topology.is_stateful(s)
            for i in range(topology.max_num_input_partitions(s))]


def compute_tasks_per_member(tasks: int, members: int) -> int:
    return 0 if members == 0 else -(-tasks // members)


def initialize(group_spec: GroupSpec, topology: TopologyDescriber) -> LocalState:
    state = LocalState()
    state.num_standby_replicas = group_spec.configs.num_standby_replicas
    for s in topology.subtopologies():
        partitions = topology.max_num_input_partitions(s)
        state.total_tasks += partitions
        state.total_active_tasks += partitions
        if topology.is_stateful(s):
            state.total_tasks += partitions * state.num_standby_replicas
    member_ids = group_spec.member_ids()
    state.total_members_with_active_task_capacity = state.total_members_with_task_capacity = len(member_ids)
    state.total_members_with_task_capacity_at_start = len(member_ids)
    state.active_tasks_per_member = compute_tasks_per_member(state.total_active_tasks, len(member_ids))
    state.total_tasks_per_member = compute_tasks_per_member(state.total_tasks, len(member_ids))
    candidates: dict[TaskId, list[tuple[Member, bool, int]]] = {}  # (member, was a standby, offset sum)
    for member_id in member_ids:
        spec = group_spec.members[member_id]
        member = Member(spec.process_id, member_id)
        state.process_id_to_state.setdefault(spec.process_id,
                                             ProcessState(spec.process_id)).add_member(member_id)
        for s, partitions in spec.active_tasks.items():
            for p in partitions:
                state.active_task_to_prev_member[TaskId(s, p)] = member
        for s, partitions in spec.standby_tasks.items():
            for p in partitions:
                offset = spec.task_offsets.get(s, {}).get(p, 0)
                candidates.setdefault(TaskId(s, p), []).append((member, True, offset))
        for s, offsets in spec.task_offsets.items():
            for p, offset in offsets.items():
                if p not in spec.standby_tasks.get(s, ()):
                    candidates.setdefault(TaskId(s, p), []).append((member, False, offset))
    for task, ranked in candidates.items():
        # Kafka's STANDBY_CANDIDATE_ORDER (a stable sort): former standbys first, then the most offsets
        ranked.sort(key=lambda c: (0 if c[1] else 1, -c[2]))
        state.standby_task_to_prev_member[task] = [c[0] for c in ranked]
    return state


def assign_active(state: LocalState, active_tasks: list[TaskId]) -> None:
    active_tasks.sort(key=lambda t: (t.partition, t.subtopology_id))
    remaining = []
    for task in active_tasks:  # where it runs now
        prev = state.active_task_to_prev_member.get(task)
        if prev is not None and try_assign_active(state, prev, task):
            continue
        remaining.append(task)
    rest = []
    for task in remaining:  # where its state is kept as a standby
        prev = find_prev_member_with_least_load(state, state.standby_task_to_prev_member.get(task), None)
        if prev is not None and try_assign_active(state, prev, task):
            continue
        rest.append(task)
    rest.sort(key=lambda t: (t.subtopology_id, t.partition))
    by_load = JavaPriorityQueue(lambda p: p.load, state.processes())
    for task in rest:
        process = by_load.poll()
        if process is None:
            raise TaskAssignorException(f"No process available to assign active task {task}.")
        count = process.add_task_to_least_loaded_member(task, True)
        if count == -1:
            raise TaskAssignorException(f"No member available to assign active task {task}.")
        maybe_update_active_tasks_per_member(state, count)
        maybe_update_total_tasks_per_member(state, count)
        by_load.add(process)


def try_assign_active(state: LocalState, member: Member, task: TaskId) -> bool:
    process = state.process_id_to_state[member.process_id]
    if process.member_to_task_counts[member.member_id] >= state.active_tasks_per_member:
        return False
    count = process.add_task(member.member_id, task, True)
    maybe_update_active_tasks_per_member(state, count)
    maybe_update_total_tasks_per_member(state, count)
    return True


def maybe_update_active_tasks_per_member(state: LocalState, active_tasks: int) -> None:
    """A member reached the quota: the quota of the others is recomputed over what is left."""
    if active_tasks == state.active_tasks_per_member:
        state.total_members_with_active_task_capacity -= 1
        state.total_active_tasks -= active_tasks
        state.active_tasks_per_member = compute_tasks_per_member(state.total_active_tasks,
                                                                 state.total_members_with_active_task_capacity)


def maybe_update_total_tasks_per_member(state: LocalState, tasks: int) -> None:
    if tasks == state.total_tasks_per_member:
        state.total_members_with_task_capacity -= 1
        state.total_tasks -= tasks
        state.total_tasks_per_member = compute_tasks_per_member(state.total_tasks,
                                                                state.total_members_with_task_capacity)


def find_prev_member_with_least_load(state: LocalState, members: list[Member] | None,
                                     standby_task: TaskId | None) -> Member | None:
    """The first member (in the candidates' order) whose process and own load are both below the best's."""
    candidate, candidate_process_load, candidate_member_load = None, MAX_DOUBLE, MAX_DOUBLE
    for member in members or ():
        process = state.process_id_to_state[member.process_id]
        if standby_task is not None and process.has_task(standby_task):
            continue
        process_load, member_load = process.load, process.member_to_task_counts[member.member_id]
        if candidate is None or (process_load < candidate_process_load
                                 and member_load < candidate_member_load):
            candidate, candidate_process_load, candidate_member_load = member, process_load, member_load
    return candidate


def has_unfulfilled_task_quota(state: LocalState, process: ProcessState, member: Member) -> bool:
    return process.member_to_task_counts[member.member_id] < state.total_tasks_per_member


def assign_standby(state: LocalState, standby_tasks: list[TaskId]) -> None:
    standby_tasks.sort(key=lambda t: (t.partition, t.subtopology_id), reverse=True)
    to_least_loaded: list[tuple[TaskId, int]] = []
    for task in standby_tasks:
        given = 0
        while given < state.num_standby_replicas and assign_standby_to_prev_member(state, task):
            given += 1
        to_least_loaded.append((task, state.num_standby_replicas - given))
    to_least_loaded.sort(key=lambda t: (t[0].subtopology_id, t[0].partition), reverse=True)
    by_load = JavaPriorityQueue(lambda p: p.load, state.processes())
    for task, remaining in to_least_loaded:
        for i in range(remaining):
            if not assign_standby_to_member_with_least_load(state, by_load, task):
                wanted = state.num_standby_replicas
                log.warning(f"Unable to assign {wanted - i} of {wanted} standby tasks for task [{task}]. "
                            "There is not enough available capacity. You should increase the number of "
                            "threads and/or application instances to maintain the requested number of "
                            "standby replicas.")
                break


def assign_standby_to_prev_member(state: LocalState, task: TaskId) -> bool:
    """One standby of the task to the member that ran it, else to its former standbys; False if none may."""
    prev_active = state.active_task_to_prev_member.get(task)
    if prev_active is not None:
        process = state.process_id_to_state[prev_active.process_id]
        if not process.has_task(task) and has_unfulfilled_task_quota(state, process, prev_active):
            maybe_update_total_tasks_per_member(state, process.add_task(prev_active.member_id, task, False))
            return True
    prev = find_prev_member_with_least_load(state, state.standby_task_to_prev_member.get(task), task)
    if prev is None:
        return False
    process = state.process_id_to_state[prev.process_id]
    if not has_unfulfilled_task_quota(state, process, prev):
        return False
    maybe_update_total_tasks_per_member(state, process.add_task(prev.member_id, task, False))
    return True


def assign_standby_to_member_with_least_load(state: LocalState, by_load: JavaPriorityQueue,
                                             task: TaskId) -> bool:
    """To the least-loaded process without a copy of the task (the next one if the first has one)."""
    process = by_load.poll()
    if process is None:
        return False
    found = False
    if not process.has_task(task):
        count = process.add_task_to_least_loaded_member(task, False)
        if count != -1:
            found = True
            maybe_update_total_tasks_per_member(state, count)
    elif not by_load.is_empty():
        found = assign_standby_to_member_with_least_load(state, by_load, task)
    by_load.add(process)
    return found


def build_group_assignment(state: LocalState, member_ids: list[str]) -> GroupAssignment:
    active: dict[str, set[TaskId]] = {}
    standby: dict[str, set[TaskId]] = {}
    for process in state.process_id_to_state.values():
        for member_id, tasks in process.assigned_active_tasks.items():
            active.setdefault(member_id, set()).update(tasks)
        for member_id, tasks in process.assigned_standby_tasks.items():
            standby.setdefault(member_id, set()).update(tasks)
    return GroupAssignment({m: MemberAssignment(compacted(active.get(m, set())),
                                                compacted(standby.get(m, set())))
                            for m in member_ids})


def compacted(tasks: set[TaskId]) -> dict[str, frozenset[int]]:
    out: dict[str, set[int]] = {}
    for task in tasks:
        out.setdefault(task.subtopology_id, set()).add(task.partition)
    return {s: frozenset(p) for s, p in out.items()}
