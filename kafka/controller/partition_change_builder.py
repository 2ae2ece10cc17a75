"""PartitionChangeBuilder: one partition's change, and the leader it elects
(Kafka's org.apache.kafka.controller.PartitionChangeBuilder).

A change to a partition is one PartitionChangeRecord that carries only what changed: a list left
out is kept, and leader -2 (NO_LEADER_CHANGE) keeps the leader. Nothing changed, no record.

Kafka's builder also elects the leader the change needs, from the target replicas in their order,
taking only a broker that is an acceptable leader (registered, unfenced, not shutting down, and not
the broker being taken away):

    ONLINE     the first replica that is in the ISR
    UNCLEAN    if none is, any acceptable replica, which becomes the whole ISR: the records only
               the old ISR had are lost, which is why unclean.leader.election.enable is off by default

A reassignment (KIP-455, partition_reassignment.py) completes in a change built here too, once
every target replica is in the ISR. ReplicationControlManager decides which change a partition
needs (a broker fenced, a broker back, an AlterPartition, an ElectLeaders request) and builds its
record here.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

from kafka.controller.partition_reassignment import maybe_complete
from kafka.image.topics_image import PartitionRegistration
from kafka.protocol.metadata_records import (
    NO_LEADER,
    NO_LEADER_CHANGE,
    ApiMessageAndVersion,
    MetadataRecordType,
    record,
)


def partition_change(topic_id: uuid.UUID, partition_id: int, current: PartitionRegistration,
                     isr: tuple[int, ...] | None = None, leader: int | None = None,
                     replicas: tuple[int, ...] | None = None, adding: tuple[int, ...] | None = None,
                     removing: tuple[int, ...] | None = None) -> ApiMessageAndVersion | None:
    """The PartitionChangeRecord that moves `current` to what is given, reduced to what changed:
    None when nothing did."""
    def changed(new, old):
        return list(new) if new is not None and tuple(new) != tuple(old) else None
    fields = dict(isr=changed(isr, current.isr), replicas=changed(replicas, current.replicas),
                  adding_replicas=changed(adding, current.adding_replicas),
                  removing_replicas=changed(removing, current.removing_replicas))
    new_leader = leader if leader is not None and leader != current.leader else NO_LEADER_CHANGE
    if all(v is None for v in fields.values()) and new_leader == NO_LEADER_CHANGE:
        return None
    return record(MetadataRecordType.PARTITION_CHANGE_RECORD, partition_id=partition_id, topic_id=topic_id,
                  leader=new_leader, **fields)


def complete_reassignment_if_needed(topic_id: uuid.UUID, partition_id: int, current: PartitionRegistration,
                                    is_acceptable: Callable[[int], bool]) -> ApiMessageAndVersion | None:
    """Kafka's completeReassignmentIfNeeded: the change that completes the reassignment of
    `current` once every target replica is in its ISR; None while one is not, or if none is under
    way."""
    if not current.is_reassigning:
        return None
    done = maybe_complete(current.target_replicas, current.isr, current.leader, is_acceptable)
    if done is None:
        return None
    return partition_change(topic_id, partition_id, current, isr=done.isr, leader=done.leader,
                            replicas=done.replicas, adding=(), removing=())


def elect_online_leader(replicas: tuple[int, ...], isr: tuple[int, ...],
                        is_acceptable: Callable[[int], bool]) -> int:
    """Election.ONLINE: the first replica in the ISR that may lead, else NO_LEADER."""
    return next((r for r in replicas if r in isr and is_acceptable(r)), NO_LEADER)


def elect_unclean_leader(replicas: tuple[int, ...], isr: tuple[int, ...],
                         is_acceptable: Callable[[int], bool]) -> tuple[int, tuple[int, ...]]:
    """Election.UNCLEAN: (leader, ISR) with any replica that may lead, even outside the ISR, as
    leader and whole ISR; (NO_LEADER, the ISR unchanged) when no replica may."""
    live = next((r for r in replicas if is_acceptable(r)), NO_LEADER)
    return (live, (live,)) if live != NO_LEADER else (NO_LEADER, isr)
