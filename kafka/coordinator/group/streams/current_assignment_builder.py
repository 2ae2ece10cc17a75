"""CurrentAssignmentBuilder: one step of a streams group member towards its target tasks (Kafka's
org.apache.kafka.coordinator.group.streams.CurrentAssignmentBuilder).

The member state machine of KIP-1071, as KIP-848's for partitions, with three kinds of tasks:

    STABLE            at an older epoch than the target's: compute the next step
    UNREVOKED_TASKS   waits until the member's heartbeat no longer lists the tasks it must give up; then
                      the next step, at its epoch + 1
    UNRELEASED_TASKS  tasks of its target still run elsewhere: each heartbeat tries again
    UNKNOWN           (a record this broker cannot read) fenced, unless it owns nothing

A step keeps the tasks the member has that are still in its target (active ones keep the epoch they were
assigned at), revokes the others, and grants the new ones at the target's epoch -- unless one is still
held: an active task someone runs, a standby another thread of the same process keeps. A task may change
kind on the same member at once (an active task demoted to standby, a standby made a warm-up, ...), and a
standby promoted to active stays a standby until the active grant goes through, so its state is not lost.
Revocation comes first: while tasks wait to be revoked, nothing new is granted.
"""

from __future__ import annotations

from collections.abc import Callable

from kafka.coordinator.group.group import ApiError
from kafka.coordinator.group.streams.streams_group_member import MemberState, StreamsGroupMember
from kafka.coordinator.group.streams.tasks_tuple import TasksTuple
from kafka.coordinator.group.streams.tasks_tuple_with_epochs import EMPTY_WITH_EPOCHS, TasksTupleWithEpochs
from kafka.protocol.errors import Errors

TaskSets = dict[str, set[int]]
TaskEpochs = dict[str, dict[int, int]]


class CurrentAssignmentBuilder:
    def __init__(self, member: StreamsGroupMember) -> None:
        self.member = member
        self.target_assignment_epoch = 0
        self.target_assignment = TasksTuple()
        self.current_active_task_process_id: Callable[[str, int], str | None] = lambda s, p: None
        self.current_standby_task_process_ids: Callable[[str, int], set[str]] = lambda s, p: set()
        self.current_warmup_task_process_ids: Callable[[str, int], set[str]] = lambda s, p: set()
        self.owned_tasks: TasksTuple | None = None

    def with_target_assignment(self, epoch: int, target: TasksTuple) -> CurrentAssignmentBuilder:
        self.target_assignment_epoch, self.target_assignment = epoch, target
        return self

    def with_current_task_process_ids(self, active: Callable, standby: Callable,
                                      warmup: Callable) -> CurrentAssignmentBuilder:
        """Who runs each task now: the process id of its active, and of its standbys and warm-ups."""
        self.current_active_task_process_id = active
        self.current_standby_task_process_ids = standby
        self.current_warmup_task_process_ids = warmup
        return self

    def with_owned_assignment(self, owned: TasksTuple | None) -> CurrentAssignmentBuilder:
        """What the member's heartbeat says it runs (None: the heartbeat did not say)."""
        self.owned_tasks = owned
        return self

    def build(self) -> StreamsGroupMember:
        member = self.member
        if member.state is MemberState.STABLE:
            if member.member_epoch != self.target_assignment_epoch:
                return self.compute_next_assignment(member.member_epoch, member.assigned_tasks)
            return member
        if member.state is MemberState.UNREVOKED_TASKS:
            if self.has_not_released(member.tasks_pending_revocation):
                return member
            return self.compute_next_assignment(member.member_epoch + 1, member.assigned_tasks)
        if member.state is MemberState.UNRELEASED_TASKS:
            return self.compute_next_assignment(member.member_epoch, member.assigned_tasks)
        if self.owned_tasks is not None and self.owned_tasks.is_empty():
            return self.compute_next_assignment(self.target_assignment_epoch, member.assigned_tasks)
        raise ApiError(Errors.FENCED_MEMBER_EPOCH,
                       "The streams group member is in a unknown state. The member "
                       "must abandon all its tasks and rejoin.")

    # ------------------------------------------------------------------ the step
    def compute_next_assignment(self, member_epoch: int, current: TasksTupleWithEpochs) -> StreamsGroupMember:
        target = self.target_assignment
        active_assigned: TaskEpochs = {}
        active_revoking: TaskEpochs = {}
        active_granting: TaskEpochs = {}
        standby_assigned, standby_revoking, standby_granting = {}, {}, {}
        warmup_assigned, warmup_revoking, warmup_granting = {}, {}, {}
        unreleased = difference_with_epoch(
            current.active_tasks_with_epochs, target.active_tasks, self.target_assignment_epoch,
                                           active_assigned,
            active_revoking, active_granting, lambda s, p: self.is_unreleased_active_task(current, s, p))
        unreleased |= difference(current.standby_tasks, target.standby_tasks, standby_assigned,
                                 standby_revoking, standby_granting,
                                 lambda s, p: self.is_unreleased_standby_task(current, s, p))
        unreleased |= difference(current.warmup_tasks, target.warmup_tasks, warmup_assigned, warmup_revoking,
                                 warmup_granting, lambda s, p: self.is_unreleased_warmup_task(current, s, p))
        # A task may change kind on this member at once: it has the task's state already.
        for s, epochs in current.active_tasks_with_epochs.items():  # active -> standby
            for p in epochs:
                if p in standby_granting.get(s, ()):
                    grant_now(standby_granting, standby_assigned, s, p)
        convert_replica_role(current.standby_tasks, standby_revoking, warmup_granting, warmup_assigned)
        convert_replica_role(current.warmup_tasks, warmup_revoking, standby_granting, standby_assigned)
        pending = self.apply_promotions_to_active(current, active_revoking, standby_revoking, warmup_revoking,
                                                  active_granting, standby_assigned, warmup_assigned)
        return self.build_new_member(
            member_epoch, pending, TasksTupleWithEpochs(active_assigned, standby_assigned, warmup_assigned),
            TasksTupleWithEpochs(active_granting, standby_granting, warmup_granting), unreleased)

    def is_unreleased_active_task(self, current: TasksTupleWithEpochs, s: str, p: int) -> bool:
        return (self.current_active_task_process_id(s, p) is not None
                or self.held_by_another_member_on_this_process(self.current_standby_task_process_ids,
                                                               current.standby_tasks, s, p)
                or self.held_by_another_member_on_this_process(self.current_warmup_task_process_ids,
                                                               current.warmup_tasks, s, p))

    def is_unreleased_standby_task(self, current: TasksTupleWithEpochs, s: str, p: int) -> bool:
        return (self.run_by_another_member_on_this_process(current, s, p)
                or self.member.process_id in self.current_standby_task_process_ids(s, p)
                or self.held_by_another_member_on_this_process(self.current_warmup_task_process_ids,
                                                               current.warmup_tasks, s, p))

    def is_unreleased_warmup_task(self, current: TasksTupleWithEpochs, s: str, p: int) -> bool:
        return (self.current_active_task_process_id(s, p) == self.member.process_id
                or self.held_by_another_member_on_this_process(self.current_standby_task_process_ids,
                                                               current.standby_tasks, s, p)
                or self.member.process_id in self.current_warmup_task_process_ids(s, p))

    def run_by_another_member_on_this_process(self, current: TasksTupleWithEpochs, s: str, p: int) -> bool:
        return (self.current_active_task_process_id(s, p) == self.member.process_id
                and p not in current.active_tasks_with_epochs.get(s, {}))

    def held_by_another_member_on_this_process(self, process_ids: Callable, member_tasks, s: str,
                                               p: int) -> bool:
        return self.member.process_id in process_ids(s, p) and p not in member_tasks.get(s, ())

    def apply_promotions_to_active(self, current: TasksTupleWithEpochs, active_revoking: TaskEpochs,
                                   standby_revoking: TaskSets, warmup_revoking: TaskSets,
                                   active_granting: TaskEpochs, standby_assigned: TaskSets,
                                   warmup_assigned: TaskSets) -> TasksTupleWithEpochs:
        """A standby or warm-up to be made active is not revoked; it stays until the active grant goes
        through (if revocations hold grants back this step, it stays as it is)."""
        target_active = self.target_assignment.active_tasks
        for member_tasks, revoking in ((current.standby_tasks, standby_revoking),
                                       (current.warmup_tasks, warmup_revoking)):
            for s, partitions in member_tasks.items():
                for p in partitions:
                    if p in target_active.get(s, ()):
                        remove_from_task_set(revoking, s, p)
        pending = TasksTupleWithEpochs(active_revoking, standby_revoking, warmup_revoking)
        revoking_now = not pending.is_empty() and self.has_not_released(pending)
        for member_tasks, assigned in ((current.standby_tasks, standby_assigned),
                                       (current.warmup_tasks, warmup_assigned)):
            for s, partitions in member_tasks.items():
                granted = active_granting.get(s, {})
                for p in partitions:
                    promoted_this_step = not revoking_now and p in granted
                    if p in target_active.get(s, ()) and not promoted_this_step:
                        assigned.setdefault(s, set()).add(p)
        return pending

    def has_not_released(self, pending: TasksTupleWithEpochs) -> bool:
        """The member still runs some of these (or did not say what it runs)."""
        return self.owned_tasks is None or self.owned_tasks.contains_any(pending)

    def build_new_member(self, member_epoch: int, pending: TasksTupleWithEpochs,
                         assigned: TasksTupleWithEpochs,
                         granting: TasksTupleWithEpochs, unreleased: bool) -> StreamsGroupMember:
        if not pending.is_empty() and self.has_not_released(pending):
            return self.member.update_member_epoch(member_epoch, state=MemberState.UNREVOKED_TASKS,
                                                   assigned_tasks=assigned, tasks_pending_revocation=pending)
        state = MemberState.UNRELEASED_TASKS if unreleased else MemberState.STABLE
        return self.member.update_member_epoch(self.target_assignment_epoch, state=state,
                                               assigned_tasks=assigned.merge(granting),
                                               tasks_pending_revocation=EMPTY_WITH_EPOCHS)


def difference_with_epoch(current: dict, target: dict, target_epoch: int, assigned: TaskEpochs,
                          revoking: TaskEpochs, granting: TaskEpochs,
                          is_unreleased: Callable[[str, int], bool]) -> bool:
    """Kafka's computeAssignmentDifferenceWithEpoch, for active tasks: a kept task keeps the epoch it was
    assigned at, a granted one gets the target's."""
    unreleased = False
    for s in set(target) | set(current):
        had, wanted = current.get(s, {}), target.get(s, frozenset())
        kept = {p: e for p, e in had.items() if p in wanted}
        gone = {p: e for p, e in had.items() if p not in kept}
        new = {p: target_epoch for p in wanted if p not in kept and not is_unreleased(s, p)}
        unreleased |= len(new) != len(wanted) - len(kept)
        for out, part in ((assigned, kept), (revoking, gone), (granting, new)):
            if part:
                out[s] = part
    return unreleased


def difference(current: dict, target: dict, assigned: TaskSets, revoking: TaskSets, granting: TaskSets,
               is_unreleased: Callable[[str, int], bool]) -> bool:
    """Kafka's computeAssignmentDifference, for standby and warm-up tasks."""
    unreleased = False
    for s in set(target) | set(current):
        had, wanted = set(current.get(s, ())), set(target.get(s, ()))
        kept = had & wanted
        new = {p for p in wanted - kept if not is_unreleased(s, p)}
        unreleased |= len(new) != len(wanted - kept)
        for out, part in ((assigned, kept), (revoking, had - kept), (granting, new)):
            if part:
                out[s] = part
    return unreleased


def convert_replica_role(outgoing: dict, outgoing_revoking: TaskSets, incoming_granting: TaskSets,
                         incoming_assigned: TaskSets) -> None:
    """A standby made a warm-up (or the reverse) on this member: granted now, not revoked."""
    for s, partitions in outgoing.items():
        for p in partitions:
            if p in incoming_granting.get(s, ()):
                grant_now(incoming_granting, incoming_assigned, s, p)
                remove_from_task_set(outgoing_revoking, s, p)


def grant_now(granting: TaskSets, assigned: TaskSets, s: str, p: int) -> None:
    remove_from_task_set(granting, s, p)
    assigned.setdefault(s, set()).add(p)


def remove_from_task_set(tasks: TaskSets, s: str, p: int) -> None:
    partitions = tasks.get(s)
    if partitions is not None and p in partitions:
        partitions.discard(p)
        if not partitions:
            del tasks[s]
