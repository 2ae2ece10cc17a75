"""OffsetMetadataManager: a shard's committed offsets, and the transactional ones not yet committed
(Kafka's org.apache.kafka.coordinator.group.OffsetMetadataManager).

Seed 000: the offset manager "only needs to talk to the Replica Manager for handling offset
commits". On the coordinator runtime it does not even do that: each request is an operation that
returns records, and the runtime appends them, replays them here (``replay``) and answers when they
commit. So the maps below change only by replay, on a write and on a load alike:

    OffsetCommit    -> commit_offset: one OffsetCommit record per partition
    TxnOffsetCommit -> commit_transaction_offset: the same records in the producer's transactional
                       batch; pending for that producer until its marker (replay_end_transaction_marker)
                       commits them into the offsets, or drops them
    OffsetFetch     -> fetch_offsets: the committed offsets at the last committed offset; with
                       require_stable, UNSTABLE_OFFSET_COMMIT for a partition a transaction still holds
    OffsetDelete    -> delete_offsets, DeleteGroups -> delete_all_offsets, retention ->
                       cleanup_group_expired_offsets (per group, from the shard's timer): tombstones

Who may commit is the group's business: the GroupMetadataManager looks the group up (classic or
consumer, one namespace) and the group validates the member (Group.validate_offset_commit).
A refused request raises ApiError, as Kafka's operations throw; the service answers it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import structlog

from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord
from kafka.coordinator.common.runtime.coordinator_result import CoordinatorResult
from kafka.coordinator.common.runtime.coordinator_shard import TransactionResult
from kafka.coordinator.group.group import ApiError, CommitPartitionValidator, Group, GroupType
from kafka.coordinator.group.group_coordinator_records import (
    OffsetCommitKey,
    new_offset_commit_record,
    new_offset_commit_tombstone_record,
)
from kafka.coordinator.group.group_coordinator_requests import PartitionOffset
from kafka.coordinator.group.offset_and_metadata import NO_EXPIRE_TIMESTAMP, OffsetAndMetadata
from kafka.coordinator.group.offset_expiration_condition import (
    COMMIT_TIMESTAMP_EXPIRATION,
    OffsetExpirationCondition,
)
from kafka.protocol.errors import Errors
from kafka.protocol.types import ZERO_UUID
from kafka.timeline import LATEST_EPOCH, SnapshotRegistry, TimelineHashMap, TimelineHashSet
from kafka.utils.time import Time
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.coordinator.group.OffsetMetadataManager")

INVALID_OFFSET = -1
NO_PRODUCER_ID = -1
DEFAULT_RETENTION_TIME = -1  # OffsetCommit v2-4's retention_time_ms when the client asks for none


NO_OFFSET = PartitionOffset(INVALID_OFFSET, -1, "", Errors.NONE)
UNSTABLE = PartitionOffset(INVALID_OFFSET, -1, "", Errors.UNSTABLE_OFFSET_COMMIT)

# One group's levels below the group: topic -> partition -> ...
TopicOffsets = TimelineHashMap[str, TimelineHashMap[int, OffsetAndMetadata]]
TopicProducerIds = TimelineHashMap[str, TimelineHashMap[int, TimelineHashSet[int]]]


class Offsets:
    """group -> topic -> partition -> OffsetAndMetadata, every level a TimelineHashMap (Kafka's
    OffsetMetadataManager.Offsets), so a read can see any snapshot and a revert undoes a level added."""

    def __init__(self, registry: SnapshotRegistry) -> None:
        self.registry = registry
        self.offsets_by_group: TimelineHashMap[str, TopicOffsets] = TimelineHashMap(registry)

    def get(self, group_id: str, topic: str, partition: int,
            epoch: int = LATEST_EPOCH) -> OffsetAndMetadata | None:
        topics = self.offsets_by_group.get_at(group_id, epoch)
        partitions = None if topics is None else topics.get_at(topic, epoch)
        return None if partitions is None else partitions.get_at(partition, epoch)

    def put(self, group_id: str, topic: str, partition: int,
            offset: OffsetAndMetadata) -> OffsetAndMetadata | None:
        topics = self.offsets_by_group.get(group_id)
        if topics is None:
            topics = self.offsets_by_group[group_id] = TimelineHashMap(self.registry)
        partitions = topics.get(topic)
        if partitions is None:
            partitions = topics[topic] = TimelineHashMap(self.registry)
        previous = partitions.get(partition)
        partitions[partition] = offset
        return previous

    def remove(self, group_id: str, topic: str, partition: int) -> OffsetAndMetadata | None:
        """Empty levels go too, so a group without offsets is not in the map at all."""
        topics = self.offsets_by_group.get(group_id)
        partitions = None if topics is None else topics.get(topic)
        if partitions is None or partition not in partitions:
            return None
        removed = partitions.pop(partition)
        if not partitions:
            del topics[topic]
        if not topics:
            del self.offsets_by_group[group_id]
        return removed

    def items(self, epoch: int = LATEST_EPOCH):
        """(group, topic, partition, offset) of every offset, as of the epoch."""
        for group_id, topics in self.offsets_by_group.items_at(epoch):
            for topic, partitions in topics.items_at(epoch):
                for partition, offset in partitions.items_at(epoch):
                    yield group_id, topic, partition, offset

    def group_items(self, group_id: str,
                    epoch: int = LATEST_EPOCH) -> list[tuple[TopicPartition, OffsetAndMetadata]]:
        topics = self.offsets_by_group.get_at(group_id, epoch)
        if topics is None:
            return []
        return [(TopicPartition(topic, partition), offset)
                for topic, partitions in topics.items_at(epoch)
                for partition, offset in partitions.items_at(epoch)]


class OpenTransactions:
    """group -> topic -> partition -> the producer ids with a pending offset there (Kafka's
    OffsetMetadataManager.OpenTransactions): what makes OffsetFetch with require_stable say unstable."""

    def __init__(self, registry: SnapshotRegistry) -> None:
        self.registry = registry
        self.by_group: TimelineHashMap[str, TopicProducerIds] = TimelineHashMap(registry)

    def add(self, group_id: str, topic: str, partition: int, producer_id: int) -> None:
        topics = self.by_group.get(group_id)
        if topics is None:
            topics = self.by_group[group_id] = TimelineHashMap(self.registry)
        partitions = topics.get(topic)
        if partitions is None:
            partitions = topics[topic] = TimelineHashMap(self.registry)
        producers = partitions.get(partition)
        if producers is None:
            producers = partitions[partition] = TimelineHashSet(self.registry)
        producers.add(producer_id)

    def remove(self, group_id: str, topic: str, partition: int, producer_id: int) -> None:
        topics = self.by_group.get(group_id)
        partitions = None if topics is None else topics.get(topic)
        producers = None if partitions is None else partitions.get(partition)
        if producers is None:
            return
        producers.discard(producer_id)
        if not producers:
            del partitions[partition]
        if not partitions:
            del topics[topic]
        if not topics:
            del self.by_group[group_id]

    def get(self, group_id: str, topic: str, partition: int, epoch: int = LATEST_EPOCH) -> list[int]:
        topics = self.by_group.get_at(group_id, epoch)
        partitions = None if topics is None else topics.get_at(topic, epoch)
        producers = None if partitions is None else partitions.get_at(partition, epoch)
        return [] if producers is None else producers.items_at(epoch)

    def contains_group(self, group_id: str, epoch: int = LATEST_EPOCH) -> bool:
        return self.by_group.contains_at(group_id, epoch)

    def partitions(self, group_id: str) -> list[TopicPartition]:
        topics = self.by_group.get(group_id)
        if topics is None:
            return []
        return [TopicPartition(topic, partition)
                for topic, partitions in topics.items() for partition in partitions]


class OffsetMetadataManager:
    """``config`` holds Kafka's GroupCoordinatorConfig fields offset_metadata_max_size
    (offset.metadata.max.bytes) and offsets_retention_ms (offsets.retention.minutes)."""

    def __init__(self, *, snapshot_registry: SnapshotRegistry, time: Time, config,
                 group_lookup: Callable[..., Group | None],
                 get_or_maybe_create_classic_group: Callable[[str, bool], Group],
                 reschedule_classic_group_member_heartbeat: Callable[[Group, str], None] | None = None,
                 log_context: str = "") -> None:
        self.snapshot_registry = snapshot_registry
        self.time = time
        self.config = config
        # group_lookup(group_id) -> the group now; group_lookup(group_id, committed_offset) -> as of then
        self.group_lookup = group_lookup
        self.get_or_maybe_create_classic_group = get_or_maybe_create_classic_group
        # A classic member's commit is a sign of life too (Kafka's rescheduleClassicGroupMemberHeartbeat).
        self.reschedule_classic_group_member_heartbeat = reschedule_classic_group_member_heartbeat
        self.log = log.bind(log_context=log_context) if log_context else log
        self.offsets = Offsets(snapshot_registry)
        # producer id -> the offsets of its open transaction, invisible until its marker commits them
        self.pending_transactional_offsets: TimelineHashMap[int, Offsets] = TimelineHashMap(snapshot_registry)
        self.open_transactions = OpenTransactions(snapshot_registry)

    # ------------------------------------------------------------------ OffsetCommit
    def commit_offset(self, group_id: str, member_id: str, group_instance_id: str | None,
                      generation_id_or_member_epoch: int, offsets: dict[TopicPartition, OffsetAndMetadata],
                      api_version: int = 9, retention_time_ms: int = DEFAULT_RETENTION_TIME
                      ) -> CoordinatorResult[dict[TopicPartition, Errors]]:
        """Kafka's commitOffset: the records and each partition's answer. The commit is stamped here
        (Kafka's OffsetAndMetadata.fromRequest); an expiry comes from retention_time_ms (v2-4) when it
        is given, else from the offset given."""
        group, validator = self.validate_offset_commit(group_id, member_id, group_instance_id,
                                                       generation_id_or_member_epoch, False, api_version)
        if group.type() is GroupType.CLASSIC and self.reschedule_classic_group_member_heartbeat is not None:
            self.reschedule_classic_group_member_heartbeat(group, member_id)
        now = self.time.milliseconds()
        expire = None if retention_time_ms == DEFAULT_RETENTION_TIME else now + retention_time_ms
        stamped = {tp: dataclasses.replace(o, commit_timestamp_ms=now,
                                           expire_timestamp_ms=o.expire_timestamp_ms if expire is None
                                           else expire)
                   for tp, o in offsets.items()}
        return self.offset_commit_records(group_id, stamped, validator)

    # ------------------------------------------------------------------ TxnOffsetCommit
    def commit_transaction_offset(self, group_id: str, member_id: str, group_instance_id: str | None,
                                  generation_id: int, offsets: dict[TopicPartition, OffsetAndMetadata],
                                  api_version: int = 3) -> CoordinatorResult[dict[TopicPartition, Errors]]:
        """Kafka's commitTransactionalOffset: the same records, which the runtime writes in the
        producer's transactional batch (schedule_transactional_write_operation) and replays with its
        producer id, so they wait for the transaction's marker."""
        _, validator = self.validate_offset_commit(group_id, member_id, group_instance_id, generation_id,
                                                   True,
                                                   api_version)
        now = self.time.milliseconds()
        stamped = {tp: dataclasses.replace(o, commit_timestamp_ms=now,
                                           expire_timestamp_ms=NO_EXPIRE_TIMESTAMP)
                   for tp, o in offsets.items()}
        if validator is not None and api_version < 6:
            validator = self.with_txn_errors_before_v6(validator)
        return self.offset_commit_records(group_id, stamped, validator)

    @staticmethod
    def with_txn_errors_before_v6(validator: CommitPartitionValidator) -> CommitPartitionValidator:
        """TxnOffsetCommit knows STALE_MEMBER_EPOCH from v6 only: older versions hear ILLEGAL_GENERATION."""
        def validate(topic: str, partition: int) -> None:
            try:
                validator(topic, partition)
            except ApiError as e:
                if e.error == Errors.STALE_MEMBER_EPOCH:
                    raise ApiError(Errors.ILLEGAL_GENERATION, e.message) from e
                raise
        return validate

    def validate_offset_commit(self, group_id: str, member_id: str, group_instance_id: str | None,
                               generation_id_or_member_epoch: int, is_transactional: bool,
                               api_version: int) -> tuple[Group, CommitPartitionValidator | None]:
        """Kafka's validateOffsetCommit / validateTransactionalOffsetCommit: the group and the check
        each partition still needs (None: none), or ApiError for the whole request."""
        group = self.group_lookup(group_id)
        if group is None:
            if generation_id_or_member_epoch >= 0:  # a member of a group we do not know
                # GROUP_ID_NOT_FOUND from OffsetCommit v9 and TxnOffsetCommit v6; before, an old generation
                says_not_found = api_version >= (6 if is_transactional else 9)
                raise ApiError(Errors.GROUP_ID_NOT_FOUND if says_not_found else Errors.ILLEGAL_GENERATION)
            # Not using group management (the admin tool's reset, a manual assign): a "simple" group.
            self.log.info("creating a simple consumer group via manual offset commit", group_id=group_id)
            group = self.get_or_maybe_create_classic_group(group_id, True)
        try:
            validator = group.validate_offset_commit(member_id, group_instance_id,
                                                     generation_id_or_member_epoch,
                                                     is_transactional, api_version)
        except ApiError as e:
            if is_transactional and e.error == Errors.STALE_MEMBER_EPOCH and api_version < 6:
                raise ApiError(Errors.ILLEGAL_GENERATION) from e  # TxnOffsetCommit knows it from v6 only
            raise
        return group, validator

    def offset_commit_records(self, group_id: str, offsets: dict[TopicPartition, OffsetAndMetadata],
                              validator: CommitPartitionValidator | None = None) -> CoordinatorResult[dict]:
        """One record per partition whose metadata fits offset.metadata.max.bytes. Each of those is
        first put to the validator: one it refuses refuses the whole request (ApiError), as Apache
        Kafka 4.4's commitOffset lets the validator's exception fail the write."""
        records: list[CoordinatorRecord] = []
        response: dict[TopicPartition, Errors] = {}
        for tp, offset in offsets.items():
            if offset.metadata is not None and len(offset.metadata) > self.config.offset_metadata_max_size:
                continue
            if validator is not None:
                validator(tp.topic, tp.partition)
        for tp, offset in offsets.items():
            if offset.metadata is not None and len(offset.metadata) > self.config.offset_metadata_max_size:
                response[tp] = Errors.OFFSET_METADATA_TOO_LARGE
            else:
                response[tp] = Errors.NONE
                records.append(new_offset_commit_record(group_id, tp.topic, tp.partition, offset))
        return CoordinatorResult(records, response)

    # ------------------------------------------------------------------ OffsetFetch
    def fetch_offsets(self, group_id: str, partitions: list[TopicPartition] | None,
                      require_stable: bool = False,
                      member_id: str | None = None, member_epoch: int = -1,
                      last_committed_offset: int = LATEST_EPOCH,
                      topic_ids: dict | None = None) -> dict[TopicPartition, PartitionOffset]:
        """Kafka's fetchOffsets / fetchAllOffsets (``partitions`` None: every partition the group has).
        A read at the last committed offset; with require_stable the service runs it as a write at the
        latest state (LATEST_EPOCH), so the answer waits for what it saw to commit, and a partition a
        producer's transaction holds answers UNSTABLE_OFFSET_COMMIT until the marker. ``topic_ids``
        (OffsetFetch v10: topic name -> the id asked by): an offset committed under another id of that
        name is none (Kafka's isOffsetInvalid: the topic was deleted and made again)."""
        topic_ids = topic_ids or {}
        epoch = last_committed_offset
        group = self.group_lookup(group_id) if epoch == LATEST_EPOCH else self.group_lookup(group_id, epoch)
        if group is not None:
            try:
                group.validate_offset_fetch(member_id, member_epoch)
            except ApiError as e:
                if e.error != Errors.GROUP_ID_NOT_FOUND:
                    raise
                group = None
        if group is None:  # answered whatever: a group nobody knows has no offsets
            return {tp: NO_OFFSET for tp in partitions or []}
        wanted = [tp
                  for tp, _ in self.offsets.group_items(group_id,
                                                        epoch)] if partitions is None else partitions
        result = {}
        for tp in wanted:
            if require_stable and self.open_transactions.get(group_id, tp.topic, tp.partition, epoch):
                result[tp] = UNSTABLE
                continue
            offset = self.offsets.get(group_id, tp.topic, tp.partition, epoch)
            if offset is None or offset.topic_id_mismatch(topic_ids.get(tp.topic, ZERO_UUID)):
                result[tp] = NO_OFFSET
            else:
                result[tp] = PartitionOffset(offset.offset, offset.leader_epoch, offset.metadata, Errors.NONE)
        return result

    def has_pending_transactional_offsets(self, group_id: str, topic: str, partition: int) -> bool:
        return bool(self.open_transactions.get(group_id, topic, partition))

    # ------------------------------------------------------------------ OffsetDelete / DeleteGroups
    def delete_offsets(self, group_id: str,
                       partitions: list[TopicPartition]) -> CoordinatorResult[dict[TopicPartition, Errors]]:
        """Kafka's deleteOffsets: not for topics the group still reads (a live consumer would commit
        them again at once, or lose its place)."""
        group = self.group_lookup(group_id)
        if group is None:
            raise ApiError(Errors.GROUP_ID_NOT_FOUND)
        group.validate_offset_delete()
        records: list[CoordinatorRecord] = []
        response: dict[TopicPartition, Errors] = {}
        for tp in partitions:
            if group.is_subscribed_to_topic(tp.topic):
                response[tp] = Errors.GROUP_SUBSCRIBED_TO_TOPIC
                continue
            response[tp] = Errors.NONE
            if (self.offsets.get(group_id, tp.topic, tp.partition) is not None
                    or self.has_pending_transactional_offsets(group_id, tp.topic, tp.partition)):
                records.append(new_offset_commit_tombstone_record(group_id, tp.topic, tp.partition))
        return CoordinatorResult(records, response)

    def delete_all_offsets(self, group_id: str, records: list[CoordinatorRecord]) -> int:
        """Kafka's deleteAllOffsets, for DeleteGroups: a tombstone for every committed offset and every
        partition a transaction holds (one tombstone per partition); returns how many."""
        deleted = {tp for tp, _ in self.offsets.group_items(group_id)}
        deleted |= set(self.open_transactions.partitions(group_id))
        records.extend(new_offset_commit_tombstone_record(group_id, tp.topic, tp.partition)
                       for tp in sorted(deleted, key=lambda tp: (tp.topic, tp.partition)))
        return len(deleted)

    # ------------------------------------------------------------------ retention
    def cleanup_group_expired_offsets(self, group_id: str, records: list[CoordinatorRecord],
                                      now: int) -> bool:
        """Kafka's cleanupExpiredOffsets for one group: tombstones for its expired offsets added to
        ``records``; True when none is left (nor a pending one), so the group may go if empty. The
        group says from when retention counts; the topics it reads never expire, nor a partition a
        transaction holds."""
        entries = self.offsets.group_items(group_id)
        if not entries:  # only an open transaction's offsets, if any: the group stays for its marker
            return not self.open_transactions.contains_group(group_id)
        group = self.group_lookup(group_id)
        condition = self.offset_expiration_condition(group)
        if condition is None:
            return False
        all_expired = True
        for tp, offset in entries:
            if group is not None and group.is_subscribed_to_topic(tp.topic):
                all_expired = False
            elif (condition.is_offset_expired(offset, now, self.config.offsets_retention_ms)
                  and not self.has_pending_transactional_offsets(group_id, tp.topic, tp.partition)):
                records.append(new_offset_commit_tombstone_record(group_id, tp.topic, tp.partition))
                self.log.debug("offset expired", group_id=group_id, topic=tp.topic, partition=tp.partition)
            else:
                all_expired = False
        return all_expired and not self.open_transactions.contains_group(group_id)

    @staticmethod
    def offset_expiration_condition(group: Group | None) -> OffsetExpirationCondition | None:
        """The group's own rule (Kafka's Group.offsetExpirationCondition) when it has one; else from the
        commit time for a simple or Empty group, and nothing expires while a classic group rebalances."""
        own = getattr(group, "offset_expiration_condition", None)
        if own is not None:
            return own()
        if group is None or group.type() is GroupType.CONSUMER:
            return COMMIT_TIMESTAMP_EXPIRATION
        if not group.protocol_type() or group.is_empty():  # a simple group, or an Empty classic one
            return COMMIT_TIMESTAMP_EXPIRATION
        return COMMIT_TIMESTAMP_EXPIRATION if group.state_as_string() == "Stable" else None

    # ------------------------------------------------------------------ replay
    def replay(self, offset: int, producer_id: int, record: CoordinatorRecord) -> None:
        """Kafka's replay(OffsetCommitKey, OffsetCommitValue): a plain commit is committed at once; a
        transactional one waits for its producer's marker; a tombstone deletes both."""
        key: OffsetCommitKey = record.key
        group_id, topic, partition = key.group, key.topic, key.partition
        if record.value is not None:
            # Offsets need a group: a consumer that commits without group management gets a simple one.
            if self.group_lookup(group_id) is None:
                self.get_or_maybe_create_classic_group(group_id, True)
            value = record.value.with_record_offset(offset)
            if producer_id == NO_PRODUCER_ID:
                self.offsets.put(group_id, topic, partition, value)
            else:
                pending = self.pending_transactional_offsets.get(producer_id)
                if pending is None:
                    pending = Offsets(self.snapshot_registry)
                    self.pending_transactional_offsets[producer_id] = pending
                pending.put(group_id, topic, partition, value)
                self.open_transactions.add(group_id, topic, partition, producer_id)
        else:
            self.offsets.remove(group_id, topic, partition)
            for open_producer_id in self.open_transactions.get(group_id, topic, partition):
                pending = self.pending_transactional_offsets.get(open_producer_id)
                if pending is not None:
                    pending.remove(group_id, topic, partition)
                self.open_transactions.remove(group_id, topic, partition, open_producer_id)

    def replay_end_transaction_marker(self, producer_id: int, result: TransactionResult) -> None:
        """The producer's marker: on COMMIT its offsets become committed, unless a commit written later
        in the log is there already (the log order decides, as a reload would); on ABORT they go."""
        pending = self.pending_transactional_offsets.pop(producer_id, None)
        if pending is None:
            return  # no offsets of this producer here: a marker for other partitions' data
        entries = list(pending.items())
        for group_id, topic, partition, _ in entries:
            self.open_transactions.remove(group_id, topic, partition, producer_id)
        if result is not TransactionResult.COMMIT:
            self.log.debug("aborted transactional offset commits", producer_id=producer_id,
                           count=len(entries))
            return
        for group_id, topic, partition, value in entries:
            existing = self.offsets.get(group_id, topic, partition)
            if existing is None or value.record_offset > existing.record_offset:
                self.offsets.put(group_id, topic, partition, value)

    # ------------------------------------------------------------------ metrics
    def num_offsets(self, epoch: int = LATEST_EPOCH) -> int:
        """Kafka's NumOffsets gauge: committed offsets in this shard."""
        return sum(1 for _ in self.offsets.items(epoch))

    def num_pending_transactional_offsets(self) -> int:
        return sum(1 for pending in self.pending_transactional_offsets.values() for _ in pending.items())
