"""ReplicationControlManager: topics, partitions, leaders and ISRs (Kafka's org.apache.kafka.controller.ReplicationControlManager).

Seed 004: the controller decides where replicas live and who leads. This manager does it:

    CreateTopics       validate like Kafka, place replicas with the StripedReplicaPlacer, the first
                       replica leads; TopicRecord + PartitionRecords (+ ConfigRecords)
    DeleteTopics       RemoveTopicRecord
    CreatePartitions   more PartitionRecords (a topic never shrinks)
    AlterPartition     a leader's new ISR, checked against the epochs it knows
    a broker fenced    every partition it led gets a new leader from the ISR (never from outside it:
    or shutting down   unclean.leader.election.enable=false), and it leaves the ISRs; with nobody
                       left in the ISR the partition is offline (leader -1) until a member returns

A change to a partition is one PartitionChangeRecord: only what changed (leader -2 means "kept").
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field

from kafka.controller.striped_replica_placer import InvalidReplicationFactorError, place
from kafka.image.topics_image import PartitionRegistration
from kafka.protocol.errors import Errors
from kafka.protocol.metadata_records import (
    NO_LEADER,
    NO_LEADER_CHANGE,
    ApiMessageAndVersion,
    MetadataRecordType,
    record,
)

T = MetadataRecordType
MAX_TOPIC_NAME_LENGTH = 249
_LEGAL_TOPIC_CHARS = re.compile(r"^[a-zA-Z0-9._-]+$")


class ReplicationError(Exception):
    def __init__(self, error: Errors, message: str) -> None:
        super().__init__(message)
        self.error = error


@dataclass
class TopicControlInfo:
    name: str
    topic_id: uuid.UUID
    partitions: dict[int, PartitionRegistration] = field(default_factory=dict)


def validate_topic_name(name: str) -> None:
    """Kafka's Topic.validate."""
    if not name or name in (".", ".."):
        raise ReplicationError(Errors.INVALID_TOPIC_EXCEPTION, f"topic name {name!r} is illegal")
    if len(name) > MAX_TOPIC_NAME_LENGTH:
        raise ReplicationError(Errors.INVALID_TOPIC_EXCEPTION,
                               f"topic name is longer than {MAX_TOPIC_NAME_LENGTH} characters")
    if not _LEGAL_TOPIC_CHARS.match(name):
        raise ReplicationError(Errors.INVALID_TOPIC_EXCEPTION,
                               f"topic name {name!r} may contain only ASCII letters, digits, '.', '_' and '-'")


def partition_change(topic_id: uuid.UUID, partition_id: int, current: PartitionRegistration,
                     isr: tuple[int, ...] | None = None, leader: int | None = None) -> ApiMessageAndVersion | None:
    """Kafka's PartitionChangeBuilder, reduced to what changed: None when nothing did."""
    new_isr = isr if isr is not None and isr != current.isr else None
    new_leader = leader if leader is not None and leader != current.leader else NO_LEADER_CHANGE
    if new_isr is None and new_leader == NO_LEADER_CHANGE:
        return None
    return record(T.PARTITION_CHANGE_RECORD, partition_id=partition_id, topic_id=topic_id,
                  isr=list(new_isr) if new_isr is not None else None, leader=new_leader)


class ReplicationControlManager:
    def __init__(self, cluster, configs, default_partitions: int, default_replication_factor: int) -> None:
        self.cluster = cluster  # ClusterControlManager
        self.configs = configs  # ConfigurationControlManager
        self.default_partitions = default_partitions
        self.default_replication_factor = default_replication_factor
        self.topics_by_id: dict[uuid.UUID, TopicControlInfo] = {}
        self.topic_ids_by_name: dict[str, uuid.UUID] = {}

    def reset(self) -> None:
        self.topics_by_id, self.topic_ids_by_name = {}, {}

    def topic(self, name: str) -> TopicControlInfo | None:
        topic_id = self.topic_ids_by_name.get(name)
        return self.topics_by_id.get(topic_id) if topic_id is not None else None

    # ------------------------------------------------------------------ CreateTopics
    def create_topic(self, t, pending: set[str]) -> tuple[list[ApiMessageAndVersion], dict]:
        """One topic of a CreateTopics request: (records, the topic's result entry)."""
        validate_topic_name(t.name)
        if t.name in self.topic_ids_by_name or t.name in pending:
            raise ReplicationError(Errors.TOPIC_ALREADY_EXISTS, f"Topic '{t.name}' already exists.")
        configs = {c.name: c.value for c in t.configs or []}
        self.configs.validate_topic_configs(configs)
        usable = self.cluster.usable_brokers()
        if t.assignments:
            if t.num_partitions != -1 or t.replication_factor != -1:
                raise ReplicationError(Errors.INVALID_REQUEST,
                                       "give either assignments or partitions and replication factor")
            placements = [list(a.broker_ids) for a in sorted(t.assignments, key=lambda a: a.partition_index)]
            unknown = sorted({b for p in placements for b in p} - set(usable))
            if unknown or any(not p for p in placements):
                raise ReplicationError(Errors.INVALID_REPLICA_ASSIGNMENT, f"unusable broker ids {unknown}")
        else:
            partitions = self.default_partitions if t.num_partitions == -1 else t.num_partitions
            replication = self.default_replication_factor if t.replication_factor == -1 else t.replication_factor
            if partitions <= 0:
                raise ReplicationError(Errors.INVALID_PARTITIONS, f"Number of partitions was set to an invalid "
                                       f"non-positive value ({partitions}).")
            if replication <= 0:
                raise ReplicationError(Errors.INVALID_REPLICATION_FACTOR, "Replication factor must be larger than 0.")
            try:
                placements = place(0, partitions, replication, usable, start_offset=len(self.topics_by_id))
            except InvalidReplicationFactorError as e:
                raise ReplicationError(Errors.INVALID_REPLICATION_FACTOR, str(e)) from None
        topic_id = uuid.uuid4()
        records = [record(T.TOPIC_RECORD, name=t.name, topic_id=topic_id)]
        records += [record(T.PARTITION_RECORD, partition_id=i, topic_id=topic_id, replicas=replicas,
                           isr=replicas, leader=replicas[0], leader_epoch=0, partition_epoch=0)
                    for i, replicas in enumerate(placements)]
        records += self.configs.topic_config_records(t.name, configs)
        result = dict(name=t.name, topic_id=topic_id, error_code=Errors.NONE, error_message=None,
                      num_partitions=len(placements), replication_factor=len(placements[0]),
                      configs=[dict(name=k, value=v, read_only=False, config_source=1, is_sensitive=False)
                               for k, v in sorted(configs.items())])
        return records, result

    # ------------------------------------------------------------------ DeleteTopics / CreatePartitions
    def delete_topic(self, name: str) -> tuple[list[ApiMessageAndVersion], uuid.UUID]:
        topic = self.topic(name)
        if topic is None:
            raise ReplicationError(Errors.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic-partition.")
        return [record(T.REMOVE_TOPIC_RECORD, topic_id=topic.topic_id)], topic.topic_id

    def create_partitions(self, t) -> list[ApiMessageAndVersion]:
        topic = self.topic(t.name)
        if topic is None:
            raise ReplicationError(Errors.UNKNOWN_TOPIC_OR_PARTITION, f"topic '{t.name}' does not exist")
        current = len(topic.partitions)
        if t.count <= current:
            raise ReplicationError(Errors.INVALID_PARTITIONS, f"Topic currently has {current} partitions, which is "
                                   f"higher than the requested {t.count}.")
        usable = self.cluster.usable_brokers()
        if t.assignments:
            placements = [list(a.broker_ids) for a in t.assignments]
            if len(placements) != t.count - current or any(set(p) - set(usable) or not p for p in placements):
                raise ReplicationError(Errors.INVALID_REPLICA_ASSIGNMENT, "invalid or unusable replica assignments")
        else:
            replication = len(next(iter(topic.partitions.values())).replicas)
            try:
                placements = place(current, t.count - current, replication, usable)
            except InvalidReplicationFactorError as e:
                raise ReplicationError(Errors.INVALID_REPLICATION_FACTOR, str(e)) from None
        return [record(T.PARTITION_RECORD, partition_id=current + i, topic_id=topic.topic_id, replicas=replicas,
                       isr=replicas, leader=replicas[0], leader_epoch=0, partition_epoch=0)
                for i, replicas in enumerate(placements)]

    # ------------------------------------------------------------------ AlterPartition
    def alter_partition(self, broker_id: int, topic_name: str, p) -> tuple[list[ApiMessageAndVersion], dict]:
        topic = self.topic(topic_name)
        current = topic.partitions.get(p.partition_index) if topic else None
        if current is None:
            return [], dict(partition_index=p.partition_index, error_code=Errors.UNKNOWN_TOPIC_OR_PARTITION)
        if current.leader != broker_id:
            return [], dict(partition_index=p.partition_index, error_code=Errors.NOT_LEADER_OR_FOLLOWER)
        if p.leader_epoch != current.leader_epoch:
            return [], dict(partition_index=p.partition_index, error_code=Errors.FENCED_LEADER_EPOCH)
        if p.partition_epoch != current.partition_epoch:
            return [], dict(partition_index=p.partition_index, error_code=Errors.INVALID_UPDATE_VERSION)
        new_isr = tuple(p.new_isr)
        if any(r not in current.replicas or not self.cluster.is_usable(r) for r in new_isr):
            return [], dict(partition_index=p.partition_index, error_code=Errors.INELIGIBLE_REPLICA)
        change = partition_change(topic.topic_id, p.partition_index, current, isr=new_isr)
        after = current.merge(change.data) if change else current
        return ([change] if change else []), dict(
            partition_index=p.partition_index, error_code=Errors.NONE, leader_id=after.leader,
            leader_epoch=after.leader_epoch, isr=list(after.isr), partition_epoch=after.partition_epoch)

    # ------------------------------------------------------------------ leadership when brokers come and go
    def handle_broker_unavailable(self, broker_id: int) -> list[ApiMessageAndVersion]:
        """A broker was fenced or is shutting down: elect new leaders from the ISR, drop it from ISRs."""
        records = []
        for topic in self.topics_by_id.values():
            for index, p in sorted(topic.partitions.items()):
                if broker_id not in p.isr and p.leader != broker_id:
                    continue
                isr = tuple(r for r in p.isr if r != broker_id) or p.isr  # Kafka keeps the last ISR member
                leader = p.leader
                if leader == broker_id or leader == NO_LEADER:
                    leader = next((r for r in p.replicas if r in isr and self.cluster.is_usable(r)), NO_LEADER)
                change = partition_change(topic.topic_id, index, p, isr=isr, leader=leader)
                if change is not None:
                    records.append(change)
        return records

    def handle_broker_available(self, broker_id: int) -> list[ApiMessageAndVersion]:
        """A broker was unfenced: an offline partition it is in the ISR of gets it as leader."""
        records = []
        for topic in self.topics_by_id.values():
            for index, p in sorted(topic.partitions.items()):
                if p.leader == NO_LEADER and broker_id in p.isr:
                    change = partition_change(topic.topic_id, index, p, leader=broker_id)
                    if change is not None:
                        records.append(change)
        return records

    def partitions_led_by(self, broker_id: int) -> int:
        return sum(1 for t in self.topics_by_id.values() for p in t.partitions.values() if p.leader == broker_id)

    def counts(self) -> tuple[int, int, int]:
        """(topics, partitions, offline partitions)."""
        partitions = [p for t in self.topics_by_id.values() for p in t.partitions.values()]
        return len(self.topics_by_id), len(partitions), sum(1 for p in partitions if p.leader == NO_LEADER)

    # ------------------------------------------------------------------ replay
    def replay_topic(self, r) -> None:
        self.topics_by_id[r.topic_id] = TopicControlInfo(r.name, r.topic_id)
        self.topic_ids_by_name[r.name] = r.topic_id

    def replay_partition(self, r) -> None:
        topic = self.topics_by_id.get(r.topic_id)
        if topic is not None:
            topic.partitions[r.partition_id] = PartitionRegistration.from_record(r)

    def replay_partition_change(self, r) -> None:
        topic = self.topics_by_id.get(r.topic_id)
        if topic is not None and r.partition_id in topic.partitions:
            topic.partitions[r.partition_id] = topic.partitions[r.partition_id].merge(r)

    def replay_remove_topic(self, r) -> str | None:
        topic = self.topics_by_id.pop(r.topic_id, None)
        if topic is None:
            return None
        self.topic_ids_by_name.pop(topic.name, None)
        return topic.name
