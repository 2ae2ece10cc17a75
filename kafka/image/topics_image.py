"""TopicsImage, TopicImage and PartitionRegistration: every topic and partition (Kafka's image.TopicsImage,
metadata.PartitionRegistration).

A PartitionRegistration is one partition as the controller last decided it: its replicas, the
in-sync replicas, the leader and the two epochs. The leader epoch goes up whenever the leader
changes (followers and clients use it to tell a stale leader from the current one); the partition
epoch goes up on any change at all (AlterPartition requests carry it, so two changes cannot race).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field, replace

from kafka.protocol.metadata_records import NO_LEADER_CHANGE


@dataclass(frozen=True)
class PartitionRegistration:
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    leader: int
    leader_epoch: int
    partition_epoch: int
    leader_recovery_state: int = 0
    # A reassignment in progress: `replicas` is the union of the old and the target replicas; the
    # target is replicas minus removing_replicas, and adding_replicas are catching up.
    removing_replicas: tuple[int, ...] = ()
    adding_replicas: tuple[int, ...] = ()
    # KIP-966: replicas out of the ISR known to hold every committed record (they may lead when the ISR
    # is empty), and the last ELR members before the ELR emptied
    elr: tuple[int, ...] = ()
    last_known_elr: tuple[int, ...] = ()

    @classmethod
    def from_record(cls, r) -> PartitionRegistration:
        return cls(tuple(r.replicas), tuple(r.isr), r.leader, r.leader_epoch, r.partition_epoch,
                   r.get("leader_recovery_state", 0), tuple(r.get("removing_replicas") or ()),
                   tuple(r.get("adding_replicas") or ()), tuple(r.get("eligible_leader_replicas") or ()),
                   tuple(r.get("last_known_elr") or ()))

    @property
    def is_reassigning(self) -> bool:
        return bool(self.removing_replicas or self.adding_replicas)

    @property
    def target_replicas(self) -> tuple[int, ...]:
        return tuple(r for r in self.replicas if r not in self.removing_replicas)

    def merge(self, change) -> PartitionRegistration:
        """Apply a PartitionChangeRecord (Kafka's PartitionRegistration.merge)."""
        leader, leader_epoch = self.leader, self.leader_epoch
        if change.leader != NO_LEADER_CHANGE:
            leader, leader_epoch = change.leader, self.leader_epoch + 1
        return replace(
            self,
            replicas=tuple(change.replicas) if change.replicas is not None else self.replicas,
            isr=tuple(change.isr) if change.isr is not None else self.isr,
            removing_replicas=tuple(change.removing_replicas) if change.get("removing_replicas") is not None
            else self.removing_replicas,
            adding_replicas=tuple(change.adding_replicas) if change.get("adding_replicas") is not None
            else self.adding_replicas,
            elr=tuple(change.eligible_leader_replicas) if change.get("eligible_leader_replicas") is not None
            else self.elr,
            last_known_elr=tuple(change.last_known_elr) if change.get("last_known_elr") is not None
            else self.last_known_elr,
            leader=leader, leader_epoch=leader_epoch, partition_epoch=self.partition_epoch + 1,
            leader_recovery_state=self.leader_recovery_state if change.leader_recovery_state < 0
            else change.leader_recovery_state)


@dataclass(frozen=True)
class TopicImage:
    name: str
    id: uuid.UUID
    partitions: dict[int, PartitionRegistration] = field(default_factory=dict)


@dataclass(frozen=True)
class TopicsImage:
    topics_by_id: dict[uuid.UUID, TopicImage] = field(default_factory=dict)
    topics_by_name: dict[str, TopicImage] = field(default_factory=dict)

    def get_topic(self, name: str) -> TopicImage | None:
        return self.topics_by_name.get(name)
