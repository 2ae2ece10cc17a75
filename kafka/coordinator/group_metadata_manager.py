"""GroupMetadataManager: groups and committed offsets, kept in ``__consumer_offsets`` (Kafka's
kafka.coordinator.group.GroupMetadataManager, the seed's "offset manager").

Seed 000 point 3: "Offset Manager (Coordinator) only needs to talk to the Replica Manager for
handling offset commits". So a commit is a record appended to this broker's partition of the
internal, compacted ``__consumer_offsets`` topic through ``ReplicaManager.append_records`` with
acks=-1 -- the same road a producer's batch takes -- and the in-memory cache is updated in the
append's callback, once the record is committed. The log is the truth; the cache is rebuilt from
it at start-up (``COORDINATOR_LOAD_IN_PROGRESS`` until then). Which partition holds a group is
``abs(java_hash(group_id)) % offsets.topic.num.partitions``; its leader is the group's coordinator.

Records are OffsetCommitKey/Value (one per group, topic, partition) and GroupMetadataKey/Value (one
per group, rewritten each generation); see ``coordinator_records.py``. A tombstone (null value)
deletes: compaction keeps only the latest record per key, so the topic stays small.

A transactional producer's TxnOffsetCommit (KIP-98) is one transactional batch stamped with its
producer id and epoch, appended with ``AppendOrigin.COORDINATOR``; its offsets stay pending for that
producer until the transaction's marker reaches the partition (``handle_txn_completion``), and a
load replays them the same way: pending until the producer's COMMIT or ABORT marker is met.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import structlog

from kafka.coordinator import consumer_group_records
from kafka.coordinator import coordinator_records as records
from kafka.coordinator.commit_record_metadata_and_offset import CommitRecordMetadataAndOffset
from kafka.coordinator.coordinator_records import GROUP_METADATA_TOPIC_NAME, GroupMetadataKey, OffsetKey
from kafka.coordinator.group_metadata import GroupMetadata, GroupState
from kafka.coordinator.offset_and_metadata import OffsetAndMetadata
from kafka.log.append_origin import AppendOrigin
from kafka.protocol.control_records import COMMIT, read_end_txn_marker
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import (
    NO_PRODUCER_ID,
    TRANSACTIONAL_MASK,
    DefaultRecord,
    RecordBatch,
    build_batch,
    encode_records,
    iter_batches,
    seal_batch,
)
from kafka.utils.kafka_scheduler import KafkaScheduler
from kafka.utils.time import Time
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.coordinator.GroupMetadataManager")

INVALID_OFFSET = -1
LOAD_READ_BYTES = 5 * 1024 * 1024  # offsets.load.buffer.size in Kafka


def java_string_hash(s: str) -> int:
    """Java's String.hashCode (over UTF-16 code units), so a group lands on the partition it would
    on a JVM broker -- tools that compute it themselves agree with us."""
    h = 0
    data = s.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def kafka_abs(n: int) -> int:
    """Kafka's Utils.abs: like abs, but Integer.MIN_VALUE maps to 0 rather than overflowing."""
    return 0 if n == -(1 << 31) else abs(n)


@dataclass(frozen=True)
class OffsetConfig:
    """The offsets.* broker settings (Kafka's OffsetConfig)."""

    offsets_topic_num_partitions: int = 50
    offsets_topic_segment_bytes: int = 100 * 1024 * 1024
    offsets_retention_ms: int = 7 * 24 * 3600 * 1000
    offsets_retention_check_interval_ms: int = 600_000
    offsets_commit_timeout_ms: int = 5000
    max_metadata_size: int = 4096  # offset.metadata.max.bytes


@dataclass(frozen=True)
class PartitionOffset:
    """One partition of an OffsetFetch answer."""

    offset: int
    leader_epoch: int
    metadata: str | None
    error: Errors


def append_error_to_coordinator_error(error: Errors) -> Errors:
    """What a group client should hear when the append to __consumer_offsets failed (Kafka maps
    log errors to coordinator errors, so the client retries or rediscovers the coordinator)."""
    if error in (Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.NOT_ENOUGH_REPLICAS,
                 Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND, Errors.REQUEST_TIMED_OUT):
        return Errors.COORDINATOR_NOT_AVAILABLE
    if error in (Errors.NOT_LEADER_OR_FOLLOWER, Errors.KAFKA_STORAGE_ERROR):
        return Errors.NOT_COORDINATOR
    if error in (Errors.MESSAGE_TOO_LARGE, Errors.RECORD_LIST_TOO_LARGE, Errors.INVALID_FETCH_SIZE):
        return Errors.INVALID_COMMIT_OFFSET_SIZE
    return error


class GroupMetadataManager:
    """The cache of groups for the partitions this broker leads, and their persistence.

    ``replica_manager`` is the broker's ReplicaManager; only ``append_records`` and
    ``read_partition_log`` are used (the import-linter contract keeps kafka.log out of reach).
    """

    def __init__(self, broker_id: int, config: OffsetConfig, replica_manager, time: Time) -> None:
        self.broker_id = broker_id
        self.config = config
        self.replica_manager = replica_manager
        self.time = time
        self.groups: dict[str, GroupMetadata] = {}
        self._lock = threading.Lock()  # guards the two dicts and the partition sets
        self.loading_partitions: set[int] = set()
        self.owned_partitions: set[int] = set()
        # the ConsumerGroupManager's, given the KIP-848 groups a partition's records describe
        self.on_consumer_groups_loaded: Callable[[dict], None] | None = None
        # producer id -> groups holding its pending transactional offsets (Kafka's openGroupsForProducer)
        self.open_groups_for_producer: dict[int, set[str]] = {}
        self.scheduler = KafkaScheduler(time, thread_name=f"group-metadata-manager-{broker_id}")
        self.is_active = threading.Event()  # the coordinator answers only between startup and shutdown

    def startup(self) -> None:
        self.scheduler.startup()
        self.scheduler.schedule("delete-expired-group-metadata", self.cleanup_group_metadata_expired_offsets,
                                delay_ms=self.config.offsets_retention_check_interval_ms,
                                period_ms=self.config.offsets_retention_check_interval_ms)
        self.is_active.set()

    def shutdown(self) -> None:
        self.is_active.clear()
        self.scheduler.shutdown()
        with self._lock:
            self.groups.clear()
            self.owned_partitions.clear()
            self.loading_partitions.clear()
            self.open_groups_for_producer.clear()

    # ------------------------------------------------------------------ which partition, which groups
    def partition_for(self, group_id: str) -> int:
        return kafka_abs(java_string_hash(group_id)) % self.config.offsets_topic_num_partitions

    def is_group_local(self, group_id: str) -> bool:
        return self.partition_for(group_id) in self.owned_partitions

    def is_group_loading(self, group_id: str) -> bool:
        return self.partition_for(group_id) in self.loading_partitions

    def validate_group_status(self, group_id: str | None, allow_empty_id: bool) -> Errors | None:
        """Is the id valid, are we this group's coordinator, and is its partition loaded? (Kafka's
        GroupCoordinator.validateGroupStatus, asked of every group request.)"""
        if group_id is None or (not group_id and not allow_empty_id):
            return Errors.INVALID_GROUP_ID
        if not self.is_active.is_set():
            return Errors.COORDINATOR_NOT_AVAILABLE
        if self.is_group_loading(group_id):
            return Errors.COORDINATOR_LOAD_IN_PROGRESS
        if not self.is_group_local(group_id):
            return Errors.NOT_COORDINATOR
        return None

    def get_group(self, group_id: str) -> GroupMetadata | None:
        return self.groups.get(group_id)

    def add_group(self, group: GroupMetadata) -> GroupMetadata:
        """Add unless present; returns whichever group is cached (two joins may race to create it)."""
        with self._lock:
            return self.groups.setdefault(group.group_id, group)

    def remove_group(self, group: GroupMetadata) -> None:
        with self._lock:
            if self.groups.get(group.group_id) is group:
                del self.groups[group.group_id]

    def current_groups(self) -> list[GroupMetadata]:
        return list(self.groups.values())

    # ------------------------------------------------------------------ loading at start-up
    def schedule_load_group_and_offsets(self, partition: int, on_group_loaded: Callable[[GroupMetadata], None],
                                        now: bool = False) -> None:
        """Become coordinator for one partition: read it in the background (or `now`); until done, its
        groups answer COORDINATOR_LOAD_IN_PROGRESS (Kafka's onElection)."""
        with self._lock:
            if partition in self.owned_partitions or partition in self.loading_partitions:
                return
            self.loading_partitions.add(partition)
        if now:
            self.load_group_and_offsets(partition, on_group_loaded)
        else:
            self.scheduler.schedule_once(f"load-group-metadata-{partition}",
                                         lambda: self.load_group_and_offsets(partition, on_group_loaded))

    def remove_groups_for_partition(self, partition: int) -> list[GroupMetadata]:
        """This broker no longer leads the partition (Kafka's removeGroupsForPartition, onResignation):
        forget its groups; their members will find the new coordinator through FindCoordinator."""
        with self._lock:
            self.owned_partitions.discard(partition)
            self.loading_partitions.discard(partition)
            gone = [g for g in self.groups.values() if self.partition_for(g.group_id) == partition]
            for group in gone:
                del self.groups[group.group_id]
                for producer_id, groups in list(self.open_groups_for_producer.items()):
                    groups.discard(group.group_id)
                    if not groups:
                        del self.open_groups_for_producer[producer_id]
        return gone

    def load_group_and_offsets(self, partition: int, on_group_loaded: Callable[[GroupMetadata], None]) -> None:
        """Read one partition's groups and offsets; the caller marked it loading (schedule_load_...)."""
        started = self.time.hi_res_clock_ms()
        tp = TopicPartition(GROUP_METADATA_TOPIC_NAME, partition)
        loaded: list[GroupMetadata] = []
        try:
            offsets, pending, group_values, removed, consumer_records = self._read_partition(tp)
            with self._lock:
                # Leadership may have moved on while we read (a broker replaying the metadata log at
                # start-up leads, loses and regains partitions in quick succession): a load for a
                # partition we no longer lead installs nothing and claims nothing.
                still_ours = partition in self.loading_partitions
            if still_ours:
                loaded = self._install_groups(offsets, pending, group_values, removed)
                for group in loaded:
                    on_group_loaded(group)
                if consumer_records and self.on_consumer_groups_loaded is not None:  # KIP-848 groups
                    self.on_consumer_groups_loaded(consumer_group_records.replay(
                        {k: v for k, v in consumer_records.items() if v is not None}))
        except Exception:
            log.exception("failed to load __consumer_offsets partition", partition=partition)
        finally:
            with self._lock:
                if partition in self.loading_partitions:
                    self.loading_partitions.discard(partition)
                    self.owned_partitions.add(partition)
        if loaded:
            log.info("loaded groups and offsets", partition=partition, groups=[g.group_id for g in loaded],
                     took_ms=self.time.hi_res_clock_ms() - started)

    def _read_partition(self, tp: TopicPartition):
        """Replay the partition from its log start: the latest record per key wins, tombstones delete.
        A transactional batch's offsets wait for their producer's marker (Kafka's doLoadGroupsAndOffsets):
        COMMIT puts them in the committed map unless a later write is there, ABORT drops them, and
        those still waiting at the end are pending."""
        offsets: dict[tuple[str, TopicPartition], CommitRecordMetadataAndOffset] = {}
        pending: dict[int, dict[tuple[str, TopicPartition], CommitRecordMetadataAndOffset]] = {}
        group_values: dict[str, object] = {}
        removed: set[str] = set()
        consumer_records: dict = {}  # KIP-848 groups' records, by key: the latest value, None if deleted
        position = 0
        while True:
            data = self.replica_manager.read_partition_log(tp, position, LOAD_READ_BYTES)
            if data.error == Errors.OFFSET_OUT_OF_RANGE and position < data.log_start_offset:
                position = data.log_start_offset  # retention or compaction moved the start
                continue
            if data.error != Errors.NONE or not data.records:
                break
            for batch in iter_batches(data.records):
                if batch.is_control_batch:
                    self._replay_marker(batch, offsets, pending)
                elif batch.is_transactional:
                    producer_offsets = pending.setdefault(batch.producer_id, {})
                    for record in batch:
                        self._replay(record, batch.base_offset, producer_offsets, group_values, removed)
                else:
                    for record in batch:
                        self._replay(record, batch.base_offset, offsets, group_values, removed, consumer_records)
                position = batch.next_offset
        return offsets, pending, group_values, removed, consumer_records

    @staticmethod
    def _replay_marker(batch: RecordBatch, offsets: dict, pending: dict) -> None:
        if not batch.is_transactional:
            return  # not a transaction marker
        marker_type, _ = read_end_txn_marker(batch)
        for where, commit in pending.pop(batch.producer_id, {}).items():
            if marker_type == COMMIT and (where not in offsets or offsets[where].older_than(commit)):
                offsets[where] = commit

    @staticmethod
    def _replay(record: DefaultRecord, batch_offset: int, offsets: dict, group_values: dict, removed: set,
                consumer_records: dict | None = None) -> None:
        if record.key is None:
            return
        consumer_key = consumer_group_records.decode_key(record.key)
        if consumer_key is not None:
            if consumer_records is not None:
                consumer_records[consumer_key] = None if record.value is None else bytes(record.value)
            return
        key = records.read_message_key(record.key)
        if isinstance(key, OffsetKey):
            where = (key.group_id, TopicPartition(key.topic, key.partition))
            value = records.read_offset_message_value(record.value)
            if value is None:
                offsets.pop(where, None)
            else:
                offsets[where] = CommitRecordMetadataAndOffset(batch_offset, value)
        elif isinstance(key, GroupMetadataKey):
            value = records.read_group_message_value(record.value)
            if value is None:
                group_values.pop(key.group_id, None)
                removed.add(key.group_id)
            else:
                group_values[key.group_id] = value
                removed.discard(key.group_id)

    def _install_groups(self, offsets: dict, pending: dict, group_values: dict, removed: set) -> list[GroupMetadata]:
        by_group: dict[str, dict[TopicPartition, CommitRecordMetadataAndOffset]] = {}
        for (group_id, tp), commit in offsets.items():
            by_group.setdefault(group_id, {})[tp] = commit
        pending_by_group: dict[str, dict[int, dict[TopicPartition, CommitRecordMetadataAndOffset]]] = {}
        for producer_id, producer_offsets in pending.items():
            for (group_id, tp), commit in producer_offsets.items():
                pending_by_group.setdefault(group_id, {}).setdefault(producer_id, {})[tp] = commit
        loaded = []
        for group_id in set(by_group) | set(group_values) | set(pending_by_group):
            value = group_values.get(group_id)
            if value is not None:
                group = GroupMetadata.load_group(group_id, value, {}, self.time)
            else:  # only offsets: a "simple" group that commits without group management
                group = GroupMetadata(group_id, GroupState.EMPTY, self.time)
            group.initialize_offsets(by_group.get(group_id, {}), pending_by_group.get(group_id, {}))
            for producer_id in pending_by_group.get(group_id, {}):
                self.add_producer_group(producer_id, group_id)
            loaded.append(self.add_group(group))
        log.debug("groups loaded", groups=len(loaded), removed=len(removed))
        return loaded

    # ------------------------------------------------------------------ writing
    def _append(self, group_id: str, entries: list[tuple[bytes, bytes | None]],
                callback: Callable[[Errors], None],
                map_error: Callable[[Errors], Errors] = append_error_to_coordinator_error) -> None:
        """Append records to the group's partition (acks=-1, internal topic) and call back with
        the coordinator-flavoured error once they are committed, or failed, or timed out."""
        now = self.time.milliseconds()
        batch = build_batch([DefaultRecord(i, now, key, value) for i, (key, value) in enumerate(entries)],
                            timestamp=now)
        self._append_batch(group_id, batch, lambda error, _offset: callback(error), map_error=map_error)

    def _append_batch(self, group_id: str, batch: bytes, callback: Callable[[Errors, int], None],
                      origin: AppendOrigin | None = None,
                      map_error: Callable[[Errors], Errors] = append_error_to_coordinator_error) -> None:
        """Append one batch; call back with the coordinator-flavoured error and its base offset."""
        tp = TopicPartition(GROUP_METADATA_TOPIC_NAME, self.partition_for(group_id))

        def on_append(statuses: dict) -> None:
            status = statuses.get(tp)
            error = Errors.UNKNOWN_TOPIC_OR_PARTITION if status is None else status.error
            callback(map_error(error), -1 if status is None else status.base_offset)

        extra = {} if origin is None else {"origin": origin}
        self.replica_manager.append_records(self.config.offsets_commit_timeout_ms, -1, True, {tp: batch},
                                            on_append, **extra)

    @staticmethod
    def transactional_batch(entries: list[tuple[bytes, bytes | None]], producer_id: int, producer_epoch: int,
                            now: int) -> bytes:
        """The offsets of a TxnOffsetCommit as one transactional batch of the producer (Kafka's
        MemoryRecords.builder with isTransactional): its marker later commits or aborts them."""
        payload = encode_records([DefaultRecord(i, now, key, value) for i, (key, value) in enumerate(entries)], 0, now)
        # The coordinator's append is not sequence-checked (AppendOrigin.COORDINATOR); 0 as Kafka writes.
        return seal_batch(base_offset=0, attributes=TRANSACTIONAL_MASK, last_offset_delta=len(entries) - 1,
                          base_timestamp=now, max_timestamp=now, producer_id=producer_id,
                          producer_epoch=producer_epoch, base_sequence=0, records_count=len(entries),
                          payload=payload)

    def append_group_records(self, group_id: str, entries: list[tuple[bytes, bytes | None]],
                             callback: Callable[[Errors], None]) -> None:
        """A KIP-848 group's records (consumer_group_records.py), to the group's partition. The
        callback gets the append's own error: the new coordinator maps it its own way
        (consumer_group_writes.coordinator_operation_error)."""
        self._append(group_id, entries, callback, map_error=lambda error: error)

    def store_group(self, group: GroupMetadata, assignment: dict[str, bytes],
                    callback: Callable[[Errors], None]) -> None:
        """Persist this generation: members, protocol, leader and the leader's assignment."""
        value = records.group_metadata_value(group.to_record_value(assignment))
        self._append(group.group_id, [(records.group_metadata_key(group.group_id), value)], callback)

    def store_offsets(self, group: GroupMetadata, offsets: dict[TopicPartition, OffsetAndMetadata],
                      response_callback: Callable[[dict[TopicPartition, Errors]], None],
                      producer_id: int = NO_PRODUCER_ID, producer_epoch: int = -1) -> None:
        """OffsetCommit, or with a producer id TxnOffsetCommit: append one record per partition; the
        cache changes only once they are committed (a transaction's, only once it commits). Takes the
        group's lock to mark the offsets pending; the append itself needs no lock, and a caller that
        holds none (a consumer group's commit) appends without one."""
        too_large = {tp for tp, o in offsets.items()
                     if o.metadata is not None and len(o.metadata) > self.config.max_metadata_size}
        valid = {tp: o for tp, o in offsets.items() if tp not in too_large}
        if not self.is_group_local(group.group_id):
            response_callback({tp: Errors.NOT_COORDINATOR for tp in offsets})
            return
        if not valid:
            response_callback({tp: Errors.OFFSET_METADATA_TOO_LARGE for tp in offsets})
            return
        entries = [(records.offset_commit_key(group.group_id, tp.topic, tp.partition),
                    records.offset_commit_value(o)) for tp, o in valid.items()]
        is_txn_offset_commit = producer_id != NO_PRODUCER_ID
        with group.lock:
            if is_txn_offset_commit:
                self.add_producer_group(producer_id, group.group_id)
                group.prepare_txn_offset_commit(producer_id, valid)
            else:
                group.prepare_offset_commit(valid)

        def put_cache_callback(error: Errors, batch_offset: int) -> None:
            with group.lock:
                committed = error == Errors.NONE and not group.is_state(GroupState.DEAD)
                for tp, offset in valid.items():
                    if not is_txn_offset_commit:
                        group.complete_offset_commit(tp, offset if committed else None, batch_offset)
                    elif committed:
                        group.on_txn_offset_commit_append(producer_id, tp,
                                                          CommitRecordMetadataAndOffset(batch_offset, offset))
                    else:
                        group.fail_pending_txn_offset_commit(producer_id, tp)
            if error != Errors.NONE:
                log.warning("offset commit failed", group=group.group_id, error=error.name,
                            producer_id=producer_id)
            statuses = {tp: (Errors.OFFSET_METADATA_TOO_LARGE if tp in too_large else error) for tp in offsets}
            response_callback(statuses)

        if is_txn_offset_commit:
            batch = self.transactional_batch(entries, producer_id, producer_epoch, self.time.milliseconds())
            self._append_batch(group.group_id, batch, put_cache_callback, AppendOrigin.COORDINATOR)
        else:
            now = self.time.milliseconds()
            batch = build_batch([DefaultRecord(i, now, key, value) for i, (key, value) in enumerate(entries)],
                                timestamp=now)
            self._append_batch(group.group_id, batch, put_cache_callback)

    # ------------------------------------------------------------------ transactions (KIP-98)
    def add_producer_group(self, producer_id: int, group_id: str) -> None:
        with self._lock:
            self.open_groups_for_producer.setdefault(producer_id, set()).add(group_id)

    def remove_producer_group(self, producer_id: int, group_id: str) -> None:
        with self._lock:
            groups = self.open_groups_for_producer.get(producer_id)
            if groups is not None:
                groups.discard(group_id)
                if not groups:
                    del self.open_groups_for_producer[producer_id]

    def groups_belonging_to_partitions(self, producer_id: int, partitions: set[int]) -> list[str]:
        with self._lock:
            return [g for g in self.open_groups_for_producer.get(producer_id, ())
                    if self.partition_for(g) in partitions]

    def handle_txn_completion(self, producer_id: int, completed_partitions: set[int], is_commit: bool) -> None:
        """The producer's marker is in these partitions: its offsets there commit or go (Kafka's
        GroupMetadataManager.handleTxnCompletion)."""
        for group_id in self.groups_belonging_to_partitions(producer_id, completed_partitions):
            group = self.get_group(group_id)
            if group is None:
                # The partition moved away after the marker was written; its new leader replays it.
                log.info("group moved before its transaction completed", group=group_id, producer_id=producer_id)
                continue
            with group.lock:
                if not group.is_state(GroupState.DEAD):
                    group.complete_pending_txn_offset_commit(producer_id, is_commit)
                    self.remove_producer_group(producer_id, group_id)

    # ------------------------------------------------------------------ reading offsets
    def get_offsets(self, group_id: str, require_stable: bool,
                    partitions: list[TopicPartition] | None) -> dict[TopicPartition, PartitionOffset]:
        """OffsetFetch for one group; ``partitions`` None means every partition it committed."""
        group = self.get_group(group_id)
        if group is None:
            return {tp: PartitionOffset(INVALID_OFFSET, -1, "", Errors.NONE) for tp in partitions or []}
        with group.lock:
            if group.is_state(GroupState.DEAD):
                return {tp: PartitionOffset(INVALID_OFFSET, -1, "", Errors.NONE) for tp in partitions or []}
            wanted = list(group.offsets) if partitions is None else partitions
            result = {}
            for tp in wanted:
                if require_stable and group.has_pending_offset_commits_for_topic_partition(tp):
                    result[tp] = PartitionOffset(INVALID_OFFSET, -1, "", Errors.UNSTABLE_OFFSET_COMMIT)
                    continue
                offset = group.offsets.get(tp)
                result[tp] = (PartitionOffset(offset.offset, offset.leader_epoch, offset.metadata, Errors.NONE)
                              if offset is not None else PartitionOffset(INVALID_OFFSET, -1, "", Errors.NONE))
            return result

    # ------------------------------------------------------------------ deleting and expiring
    def cleanup_group_metadata(self, groups: list[GroupMetadata],
                               selector: Callable[[GroupMetadata], dict[TopicPartition, OffsetAndMetadata]]) -> int:
        """Remove what ``selector`` picks from each group; a group left Empty with no offsets dies,
        and a dead group leaves the cache. Writes a tombstone for each removed offset and each dead
        group (none for a group that never had a generation: it only stored offsets). Returns the
        number of offsets removed."""
        removed_total = 0
        for group in groups:
            with group.lock:
                removed = selector(group)
                if group.is_state(GroupState.EMPTY) and not group.has_offsets():
                    log.info("group is dead", group=group.group_id, generation=group.generation_id)
                    group.transition_to(GroupState.DEAD)
                is_dead, generation = group.is_state(GroupState.DEAD), group.generation_id
            tombstones: list[tuple[bytes, bytes | None]] = [
                (records.offset_commit_key(group.group_id, tp.topic, tp.partition), None) for tp in removed]
            if is_dead:
                self.remove_group(group)
                if generation > 0:
                    tombstones.append((records.group_metadata_key(group.group_id), None))
            if tombstones and self.is_group_local(group.group_id):
                self._append(group.group_id, tombstones, lambda error, g=group.group_id: self._log_cleanup(g, error))
            removed_total += len(removed)
        return removed_total

    @staticmethod
    def _log_cleanup(group_id: str, error: Errors) -> None:
        if error != Errors.NONE:
            log.warning("failed to write tombstones", group=group_id, error=error.name)

    def cleanup_group_metadata_expired_offsets(self) -> None:
        """offsets.retention.minutes, checked every offsets.retention.check.interval.ms."""
        now = self.time.milliseconds()
        removed = self.cleanup_group_metadata(
            self.current_groups(),
            lambda group: group.remove_expired_offsets(now, self.config.offsets_retention_ms))
        if removed:
            log.info("removed expired offsets", count=removed)
