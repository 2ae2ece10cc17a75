"""PartitionChangeBuilder: one partition's change, and the leader it elects
(Kafka's org.apache.kafka.controller.PartitionChangeBuilder).

A change to a partition is one PartitionChangeRecord that carries only what changed: a list left
out is kept, and leader -2 (NO_LEADER_CHANGE) keeps the leader. Nothing changed, no record.

Kafka's builder also elects the leader the change needs, from the target replicas in their order,
taking only a broker that is an acceptable leader (registered, unfenced, not shutting down, and not
the broker being taken away):

    ONLINE     the first replica that is in the ISR (the ISR empty, in the ELR: below)
    UNCLEAN    if none is, any acceptable replica, which becomes the whole ISR: the records only
               the old ISR had are lost, which is why unclean.leader.election.enable is off by default

A reassignment (KIP-455, partition_reassignment.py) completes in a change built here too, once
every target replica is in the ISR. ReplicationControlManager decides which change a partition
needs (a broker fenced, a broker back, an AlterPartition, an ElectLeaders request) and builds its
record here.

Eligible leader replicas (KIP-966, with eligible.leader.replicas.version 1): when the ISR shrinks
below min.insync.replicas, the members it loses still hold every committed record, because the
high watermark stops moving while a partition is under its min ISR. They become the ELR, and when the
ISR empties (with ELR on, it may), the first live ELR member is elected as a clean leader and is the
new ISR alone. A broker that comes back after an unclean shutdown (kill -9) may have lost its
unflushed tail, so it leaves the ELR. Once the ISR is back at min.insync.replicas, the ELR is emptied.
LastKnownElr holds the leader a partition had when its ISR emptied: with no ISR and no ELR left,
that replica is elected (uncleanly: it alone becomes the ISR), as Kafka 4.4 does by default.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from enum import Enum

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
                     removing: tuple[int, ...] | None = None, elr: tuple[int, ...] | None = None,
                     last_known_elr: tuple[int, ...] | None = None) -> ApiMessageAndVersion | None:
    """The PartitionChangeRecord that moves `current` to what is given, reduced to what changed:
    None when nothing did."""
    def changed(new, old):
        return list(new) if new is not None and tuple(new) != tuple(old) else None
    fields = dict(isr=changed(isr, current.isr), replicas=changed(replicas, current.replicas),
                  adding_replicas=changed(adding, current.adding_replicas),
                  removing_replicas=changed(removing, current.removing_replicas),
                  eligible_leader_replicas=changed(elr, current.elr),
                  last_known_elr=changed(last_known_elr, current.last_known_elr))
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


class Election(Enum):
    PREFERRED = "preferred"  # the first replica, if it may lead
    ONLINE = "online"        # a replica in the ISR (or, the ISR empty, in the ELR)
    UNCLEAN = "unclean"      # failing that, any live replica (unclean.leader.election.enable)


class PartitionChangeBuilder:
    """Kafka's PartitionChangeBuilder for a partition whose ISR may change and whose leader may have to
    move: set the target ISR (by default the current one), build, get the record or None."""

    def __init__(self, topic_id: uuid.UUID, partition_id: int, partition: PartitionRegistration,
                 is_acceptable_leader: Callable[[int], bool], min_isr: int, elr_enabled: bool) -> None:
        self.topic_id, self.partition_id, self.partition = topic_id, partition_id, partition
        self.is_acceptable_leader = is_acceptable_leader
        self.min_isr = min_isr
        self.elr_enabled = elr_enabled
        self.election = Election.ONLINE
        self.target_isr: tuple[int, ...] = partition.isr
        self.target_elr: tuple[int, ...] = partition.elr
        self.unclean_shutdown_replicas: tuple[int, ...] = ()

    def set_target_isr(self, isr) -> PartitionChangeBuilder:
        self.target_isr = tuple(isr)
        return self

    def set_election(self, election: Election) -> PartitionChangeBuilder:
        self.election = election
        return self

    def set_unclean_shutdown_replicas(self, replicas) -> PartitionChangeBuilder:
        self.unclean_shutdown_replicas = tuple(replicas)
        return self

    def build(self) -> ApiMessageAndVersion | None:
        """The change, or None when nothing changes."""
        self._maybe_populate_target_elr()
        leader, unclean = self._elect_leader()
        isr = None
        if leader != self.partition.leader:
            if leader in self.target_elr:  # a clean leader from the ELR: it alone is the ISR now
                self.target_isr = (leader,)
                self.target_elr = tuple(r for r in self.target_elr if r != leader)
            elif unclean:  # whatever only the old ISR had is lost: it alone is the ISR
                isr = (leader,)
        if unclean or not self.elr_enabled:
            self.target_elr = ()
        # Without ELR an ISR never empties: its last member stays, to be the leader when it returns.
        if isr is None and (self.target_isr or self.elr_enabled):
            isr = self.target_isr
        return partition_change(self.topic_id, self.partition_id, self.partition, isr=isr, leader=leader,
                                elr=self.target_elr, last_known_elr=self._last_known_leader(isr, leader))

    def _maybe_populate_target_elr(self) -> None:
        """Kafka's maybePopulateTargetElr: at or above min ISR, no ELR; below it, the members the ISR
        loses join the ELR, unless they shut down uncleanly."""
        if not self.elr_enabled:
            return
        if len(self.target_isr) >= self.min_isr:
            self.target_elr = ()
            return
        candidates = set(self.target_elr) | set(self.partition.isr)
        self.target_elr = tuple(sorted(r for r in candidates if r not in self.target_isr
                                       and r not in self.unclean_shutdown_replicas))

    def _last_known_leader(self, isr: tuple[int, ...] | None, leader: int) -> tuple[int, ...] | None:
        """Kafka's maybeUpdateLastKnownLeader (its default, useLastKnownLeaderInBalancedRecovery): the
        leader of a partition whose ISR empties is kept in LastKnownElr, the replica a partition left with
        no ISR and no ELR elects, so a lone broker back from a kill -9 leads its partitions again. Cleared
        once there is a leader; None: unchanged."""
        p = self.partition
        if not self.elr_enabled:
            return None
        if isr is not None and not isr and p.isr and p.last_known_elr != (p.leader,):
            return (p.leader,)
        if leader != NO_LEADER and p.last_known_elr:
            return ()
        return None

    def _is_valid_new_leader(self, replica: int) -> bool:
        """In the ISR, or (the ISR empty) in the ELR, and acceptable."""
        eligible = replica in self.target_isr or (not self.target_isr and replica in self.target_elr)
        return eligible and self.is_acceptable_leader(replica)

    def _elect_leader(self) -> tuple[int, bool]:
        """(leader, unclean): Kafka's electPreferredLeader or electAnyLeader."""
        replicas = self.partition.target_replicas
        if self.election == Election.PREFERRED and replicas and self._is_valid_new_leader(replicas[0]):
            return replicas[0], False
        if self._is_valid_new_leader(self.partition.leader):
            return self.partition.leader, False
        online = next((r for r in replicas if self._is_valid_new_leader(r)), NO_LEADER)
        if online != NO_LEADER:
            return online, False
        if self._can_elect_last_known_leader():
            return self.partition.last_known_elr[0], True
        if self.election == Election.UNCLEAN:
            unclean = next((r for r in replicas if self.is_acceptable_leader(r)), NO_LEADER)
            if unclean != NO_LEADER:
                return unclean, True
        return NO_LEADER, False

    def _can_elect_last_known_leader(self) -> bool:
        """Kafka's canElectLastKnownLeader: no ISR, no ELR, and one last known leader to fall back on."""
        return (self.elr_enabled and not self.target_isr and not self.target_elr
                and len(self.partition.last_known_elr) == 1)
