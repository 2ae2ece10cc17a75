"""A partition reassignment's replica sets (Kafka's controller.PartitionReassignmentReplicas and
PartitionReassignmentRevert, KIP-455).

Moving a partition from replicas R to target replicas T is done in three steps, each one
PartitionChangeRecord in the metadata log:

    start       replicas = T then the rest of R, adding = T - R, removing = R - T
                (the adding replicas become followers and start fetching; nothing is lost yet)
    catch up    the leader adds each adding replica to the ISR once it has caught up (AlterPartition)
    complete    once every replica of T is in the ISR: replicas = T, ISR = ISR & T, the lists are
                cleared, and if the leader is being removed the first in-sync replica of T leads;
                the removed replicas stop hosting the partition and delete their logs

Cancelling (AlterPartitionReassignments with null replicas) reverts to R: the adding replicas go.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kafka.protocol.metadata_records import NO_LEADER


@dataclass(frozen=True)
class PartitionReassignmentReplicas:
    replicas: tuple[int, ...]  # what the partition has while moving: T first, then the rest of R
    adding: tuple[int, ...]
    removing: tuple[int, ...]

    @classmethod
    def start(cls, current: tuple[int, ...], target: tuple[int, ...]) -> PartitionReassignmentReplicas:
        merged = tuple(target) + tuple(r for r in current if r not in target)
        return cls(merged, tuple(r for r in target if r not in current),
                   tuple(r for r in current if r not in target))

    @property
    def target(self) -> tuple[int, ...]:
        return tuple(r for r in self.replicas if r not in self.removing)


@dataclass(frozen=True)
class CompletedState:
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    leader: int


def maybe_complete(target: tuple[int, ...], isr: tuple[int, ...], leader: int,
                   is_usable: Callable[[int], bool]) -> CompletedState | None:
    """The partition's state once the reassignment completes, or None while a target replica is
    still outside the ISR."""
    if not all(r in isr for r in target):
        return None
    new_isr = tuple(r for r in isr if r in target)
    if leader not in target:
        leader = next((r for r in target if r in new_isr and is_usable(r)), NO_LEADER)
    return CompletedState(tuple(target), new_isr, leader)


def revert(replicas: tuple[int, ...], isr: tuple[int, ...], adding: tuple[int, ...], leader: int,
           is_usable: Callable[[int], bool]) -> CompletedState:
    """Cancel: back to the replicas the partition had before (Kafka's PartitionReassignmentRevert)."""
    original = tuple(r for r in replicas if r not in adding)
    # Only adding replicas in sync (all the old ones died): the old replicas are all there is.
    new_isr = tuple(r for r in isr if r not in adding) or original
    if leader in adding:
        leader = next((r for r in original if r in new_isr and is_usable(r)), NO_LEADER)
    return CompletedState(original, new_isr, leader)
