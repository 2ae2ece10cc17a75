"""ShareCoordinatorShard: the share coordinator of one ``__share_group_state`` partition (Kafka's
org.apache.kafka.coordinator.share.ShareCoordinatorShard).

The runtime builds one shard for each partition this broker leads and runs its events one at a time,
so nothing here takes a lock. It holds, in timeline maps keyed by SharePartitionKey:

    share_state_map        the ShareGroupOffset of each share partition (the latest snapshot with every
                           update since merged over it)
    leader_epoch_map       the highest leader epoch seen: a write or read from an older leader is fenced
    state_epoch_map        the highest state epoch: a write from before an offsets reset is fenced
    snapshot_update_count  updates written since the last snapshot

Each operation validates (Kafka's errors: INVALID_REQUEST, FENCED_LEADER_EPOCH, FENCED_STATE_EPOCH,
UNKNOWN_TOPIC_OR_PARTITION), then returns the record that says what changed and the answer, which the
runtime sends once the record commits. The record is a ShareUpdate, or a whole ShareSnapshot when
share.coordinator.snapshot.update.records.per.snapshot updates have been written since the last one, so
a new leader of this partition replays a bounded tail: a snapshot and fewer than that many updates.
"""

from __future__ import annotations

import uuid

import structlog

from kafka.coordinator.common.runtime.coordinator_result import CoordinatorResult
from kafka.coordinator.share import share_coordinator_record_helpers as helpers
from kafka.coordinator.share import share_group_state_responses as responses
from kafka.coordinator.share.persister_state_batch import PersisterStateBatch
from kafka.coordinator.share.persister_state_batch_combiner import PersisterStateBatchCombiner
from kafka.coordinator.share.share_coordinator_config import ShareCoordinatorConfig
from kafka.coordinator.share.share_coordinator_offsets_manager import ShareCoordinatorOffsetsManager
from kafka.coordinator.share.share_coordinator_records import ShareSnapshotKey, ShareUpdateKey
from kafka.coordinator.share.share_group_offset import UNINITIALIZED_START_OFFSET, ShareGroupOffset
from kafka.coordinator.share.share_partition_key import SharePartitionKey
from kafka.image.metadata_image import MetadataImage
from kafka.protocol.errors import Errors
from kafka.timeline import SnapshotRegistry, TimelineHashMap
from kafka.utils.time import Time

log = structlog.get_logger("kafka.coordinator.share.ShareCoordinatorShard")

# Kafka's messages for the requests the shard refuses as INVALID_REQUEST
NULL_TOPIC_ID = "The topic id cannot be null."
NEGATIVE_PARTITION_ID = "The partition id cannot be a negative number."
NEGATIVE_LEADER_EPOCH = "The leader epoch cannot be a negative number."
NEGATIVE_STATE_EPOCH = "The state epoch cannot be a negative number."
WRITE_UNINITIALIZED_SHARE_PARTITION = "Write operation on uninitialized share partition not allowed."
READ_UNINITIALIZED_SHARE_PARTITION = "Read operation on uninitialized share partition not allowed."


class ShareCoordinatorShard:
    def __init__(self, snapshot_registry: SnapshotRegistry, time: Time, config: ShareCoordinatorConfig,
                 log_context: str = "") -> None:
        self.time = time
        self.config = config
        self.log_context = log_context
        self.share_state_map: TimelineHashMap[SharePartitionKey, ShareGroupOffset]
        self.share_state_map = TimelineHashMap(snapshot_registry)
        self.leader_epoch_map: TimelineHashMap[SharePartitionKey, int] = TimelineHashMap(snapshot_registry)
        self.snapshot_update_count: TimelineHashMap[SharePartitionKey, int]
        self.snapshot_update_count = TimelineHashMap(snapshot_registry)
        self.state_epoch_map: TimelineHashMap[SharePartitionKey, int] = TimelineHashMap(snapshot_registry)
        self.offsets_manager = ShareCoordinatorOffsetsManager(snapshot_registry)
        self.metadata_image: MetadataImage | None = None

    @classmethod
    def builder(cls, config: ShareCoordinatorConfig):
        """The CoordinatorShardBuilder the runtime calls for each partition it loads."""
        def build(*, snapshot_registry: SnapshotRegistry, time: Time, timer, topic_partition,
                  log_context: str):
            return cls(snapshot_registry, time, config, log_context)
        return build

    # ------------------------------------------------------------------ CoordinatorShard
    def on_loaded(self, image: MetadataImage | None) -> None:
        self.metadata_image = image

    def on_new_metadata_image(self, image: MetadataImage, delta) -> None:
        self.metadata_image = image

    def on_unloaded(self) -> None:
        pass

    def replay(self, offset: int, producer_id: int, producer_epoch: int, record) -> None:
        """A record of this partition, written here or read at load."""
        if isinstance(record.key, ShareSnapshotKey):
            self.handle_share_snapshot(record.key, record.value, offset)
        elif isinstance(record.key, ShareUpdateKey):
            self.handle_share_update(record.key, record.value)

    def replay_end_transaction_marker(self, producer_id: int, producer_epoch: int, result) -> None:
        pass  # the share coordinator never writes transactionally

    def handle_share_snapshot(self, key: ShareSnapshotKey, value, offset: int) -> None:
        map_key = SharePartitionKey(key.group_id, key.topic_id, key.partition)
        if value is None:  # a tombstone: the share partition's state is deleted
            log.debug("tombstone for share partition", key=str(map_key))
            for timeline in (self.share_state_map, self.leader_epoch_map, self.state_epoch_map,
                             self.snapshot_update_count):
                timeline.pop(map_key, None)
        else:
            self.maybe_update_epoch(self.leader_epoch_map, map_key, value.leader_epoch)
            self.maybe_update_epoch(self.state_epoch_map, map_key, value.state_epoch)
            self.share_state_map[map_key] = ShareGroupOffset.from_snapshot_value(value)  # the whole state
            count = self.snapshot_update_count.get(map_key)
            if count is not None and count >= self.config.snapshot_update_records_per_snapshot:
                self.snapshot_update_count[map_key] = 0
        self.offsets_manager.update_state(map_key, offset, value is None)

    def handle_share_update(self, key: ShareUpdateKey, value) -> None:
        map_key = SharePartitionKey(key.group_id, key.topic_id, key.partition)
        self.maybe_update_epoch(self.leader_epoch_map, map_key, value.leader_epoch)
        # An update holds no state epoch: only a snapshot changes it.
        current = self.share_state_map.get(map_key)
        self.share_state_map[map_key] = ShareGroupOffset.from_update_value(value) if current is None \
            else self.merge(current, value)
        self.snapshot_update_count[map_key] = self.snapshot_update_count.get(map_key, 0) + 1

    @staticmethod
    def maybe_update_epoch(epochs: TimelineHashMap, key: SharePartitionKey, epoch: int) -> None:
        if key not in epochs or epochs[key] < epoch:
            epochs[key] = epoch

    @staticmethod
    def merge(so_far: ShareGroupOffset, update) -> ShareGroupOffset:
        """An update over the state: its batches combined with the state's, from its start offset on."""
        start_offset = so_far.start_offset if update.start_offset == -1 else update.start_offset
        leader_epoch = so_far.leader_epoch if update.leader_epoch == -1 else update.leader_epoch
        batches = PersisterStateBatchCombiner(list(so_far.state_batches), list(update.state_batches),
                                              start_offset).combine_state_batches()
        return ShareGroupOffset(so_far.snapshot_epoch, so_far.state_epoch, leader_epoch, start_offset,
                                update.delivery_complete_count, tuple(batches), so_far.create_timestamp,
                                so_far.write_timestamp)

    # ------------------------------------------------------------------ WriteShareGroupState
    def write_state(self, group_id: str, topic_id: uuid.UUID, partition_data) -> CoordinatorResult:
        """One partition of a WriteShareGroupState: its batches merged into a ShareUpdate (or a snapshot)."""
        error = self.write_state_error(group_id, topic_id, partition_data)
        if error is not None:
            return CoordinatorResult([], error)
        key = SharePartitionKey(group_id, topic_id, partition_data.partition)
        record = self.generate_share_state_record(partition_data, key, update_leader_epoch=False)
        return CoordinatorResult([record],
                                 responses.single(topic_id, responses.partition_result(key.partition)))

    def write_state_error(self, group_id: str, topic_id: uuid.UUID | None, data) -> dict | None:
        partition = data.partition
        invalid = self.invalid_request(topic_id, partition, data.leader_epoch, data.state_epoch)
        if invalid is not None:
            return responses.error_response(topic_id, partition, Errors.INVALID_REQUEST, invalid)
        key = SharePartitionKey(group_id, topic_id, partition)
        if key not in self.share_state_map:
            return responses.error_response(topic_id, partition, Errors.INVALID_REQUEST,
                                            WRITE_UNINITIALIZED_SHARE_PARTITION)
        if key in self.leader_epoch_map and self.leader_epoch_map[key] > data.leader_epoch:
            log.error("write request leader epoch is smaller than last recorded", key=str(key),
                      current=self.leader_epoch_map[key], requested=data.leader_epoch)
            return responses.error_response(topic_id, partition, Errors.FENCED_LEADER_EPOCH,
                                            Errors.FENCED_LEADER_EPOCH.message)
        if key in self.state_epoch_map and self.state_epoch_map[key] > data.state_epoch:
            log.info("write request state epoch is smaller than last recorded", key=str(key),
                     current=self.state_epoch_map[key], requested=data.state_epoch)
            return responses.error_response(topic_id, partition, Errors.FENCED_STATE_EPOCH,
                                            Errors.FENCED_STATE_EPOCH.message)
        return self.unknown_topic_or_partition(topic_id, partition, "writing")

    def generate_share_state_record(self, data, key: SharePartitionKey, update_leader_epoch: bool):
        """Kafka's generateShareStateRecord: a snapshot (the state merged whole, a new snapshot epoch) once
        enough updates have been written since the last one, else an update (the write's batches alone)."""
        now = self.time.milliseconds()
        current = self.share_state_map[key]  # a write needs an initialized state (checked above)
        leader_epoch = data.leader_epoch if update_leader_epoch else current.leader_epoch
        start_offset = max(data.start_offset, current.start_offset)
        delivery_complete_count = data.delivery_complete_count
        if data.start_offset == current.start_offset:
            delivery_complete_count = max(data.delivery_complete_count, current.delivery_complete_count)
        elif data.start_offset < current.start_offset:
            delivery_complete_count = current.delivery_complete_count
        new_batches = [PersisterStateBatch.from_record(b) for b in data.state_batches]
        if self.snapshot_update_count.get(key, 0) >= self.config.snapshot_update_records_per_snapshot:
            batches = PersisterStateBatchCombiner(list(current.state_batches), new_batches,
                                                  start_offset).combine_state_batches()
            return helpers.new_share_snapshot_record(key.group_id, key.topic_id, data.partition,
                                                     ShareGroupOffset(
                current.snapshot_epoch + 1, current.state_epoch, leader_epoch, start_offset,
                delivery_complete_count, tuple(batches), now, now))
        batches = PersisterStateBatchCombiner([], new_batches, start_offset).combine_state_batches()
        return helpers.new_share_update_record(key.group_id, key.topic_id, data.partition, ShareGroupOffset(
            current.snapshot_epoch, 0, leader_epoch, start_offset, delivery_complete_count, tuple(batches)))

    # ------------------------------------------------------------------ ReadShareGroupState
    def read_state_and_maybe_update_leader_epoch(self, group_id: str, topic_id: uuid.UUID,
                                                 partition_data) -> CoordinatorResult:
        """One partition of a ReadShareGroupState. Run as a write: a read from a new leader records its
        leader epoch (a ShareUpdate or snapshot with no batches), fencing the old leader's writes."""
        error = self.read_state_error(group_id, topic_id, partition_data)
        if error is not None:
            return CoordinatorResult([], error)
        partition, leader_epoch = partition_data.partition, partition_data.leader_epoch
        key = SharePartitionKey(group_id, topic_id, partition)
        offset = self.share_state_map[key]
        response = responses.read_response(topic_id, partition, offset.start_offset, offset.state_epoch,
                                           offset.state_batches)
        if self.leader_epoch_map.get(key) == leader_epoch:
            return CoordinatorResult([], response)
        log.info("read with a new leader epoch: recording it", key=str(key), leader_epoch=leader_epoch)
        epoch_only = _WriteData(partition, offset.state_epoch, leader_epoch, offset.start_offset,
                                offset.delivery_complete_count)
        return CoordinatorResult([self.generate_share_state_record(epoch_only, key,
                                                                   update_leader_epoch=True)],
                                 response)

    def read_state_error(self, group_id: str, topic_id: uuid.UUID | None, data) -> dict | None:
        partition = data.partition
        invalid = self.invalid_request(topic_id, partition, data.leader_epoch, 0)
        if invalid is not None:
            return responses.error_response(topic_id, partition, Errors.INVALID_REQUEST, invalid)
        key = SharePartitionKey(group_id, topic_id, partition)
        if key not in self.share_state_map:
            log.error("read on an uninitialized share partition", key=str(key))
            return responses.error_response(topic_id, partition, Errors.INVALID_REQUEST,
                                            READ_UNINITIALIZED_SHARE_PARTITION)
        if key in self.leader_epoch_map and self.leader_epoch_map[key] > data.leader_epoch:
            log.error("read request leader epoch is smaller than last recorded", key=str(key),
                      current=self.leader_epoch_map[key], requested=data.leader_epoch)
            return responses.error_response(topic_id, partition, Errors.FENCED_LEADER_EPOCH,
                                            Errors.FENCED_LEADER_EPOCH.message)
        return self.unknown_topic_or_partition(topic_id, partition, "reading")

    # ------------------------------------------------------------------ ReadShareGroupStateSummary
    def read_state_summary(self, group_id: str, topic_id: uuid.UUID, partition_data) -> CoordinatorResult:
        """One partition's state without its batches; fences nobody and writes nothing. A share partition
        with no state answers start offset -1 (the group has not read it yet)."""
        partition = partition_data.partition
        error = None
        if topic_id is None:
            error = responses.error_response(topic_id, partition, Errors.INVALID_REQUEST, NULL_TOPIC_ID)
        elif partition < 0:
            error = responses.error_response(topic_id, partition, Errors.INVALID_REQUEST,
                                             NEGATIVE_PARTITION_ID)
        else:
            error = self.unknown_topic_or_partition(topic_id, partition, "reading summary")
        if error is not None:
            return CoordinatorResult([], error)
        offset = self.share_state_map.get(SharePartitionKey(group_id, topic_id, partition))
        if offset is None:
            return CoordinatorResult([], responses.read_summary_response(
                topic_id, partition, UNINITIALIZED_START_OFFSET, -1, 0, 0))
        return CoordinatorResult([], responses.read_summary_response(
            topic_id, partition, offset.start_offset, offset.delivery_complete_count, offset.leader_epoch,
            offset.state_epoch))

    # ------------------------------------------------------------------ DeleteShareGroupState
    def delete_state(self, group_id: str, topic_id: uuid.UUID, partition_data) -> CoordinatorResult:
        """A tombstone for the share partition's state; nothing to write when there is none."""
        partition = partition_data.partition
        if topic_id is None:
            return CoordinatorResult([], responses.error_response(topic_id, partition, Errors.INVALID_REQUEST,
                                                                  NULL_TOPIC_ID))
        if partition < 0:
            return CoordinatorResult([], responses.error_response(topic_id, partition, Errors.INVALID_REQUEST,
                                                                  NEGATIVE_PARTITION_ID))
        error = self.unknown_topic_or_partition(topic_id, partition, "deleting")
        if error is not None:
            return CoordinatorResult([], error)
        key = SharePartitionKey(group_id, topic_id, partition)
        response = responses.single(topic_id, responses.partition_result(partition))
        if key not in self.share_state_map:
            log.warning("attempted to delete a non-existent share partition", key=str(key))
            return CoordinatorResult([], response)
        return CoordinatorResult([helpers.new_share_state_tombstone_record(group_id, topic_id, partition)],
                                 response)

    # ------------------------------------------------------------------ InitializeShareGroupState
    def initialize_state(self, group_id: str, topic_id: uuid.UUID, partition_data) -> CoordinatorResult:
        """A fresh snapshot: the new state epoch and start offset, no batches (an older state's follow)."""
        partition = partition_data.partition
        invalid = self.invalid_request(topic_id, partition, 0, partition_data.state_epoch)
        if invalid is not None:
            return CoordinatorResult([], responses.error_response(topic_id, partition, Errors.INVALID_REQUEST,
                                                                  invalid))
        key = SharePartitionKey(group_id, topic_id, partition)
        if key in self.state_epoch_map and self.state_epoch_map[key] > partition_data.state_epoch:
            log.info("initialize request state epoch is smaller than last recorded", key=str(key),
                     current=self.state_epoch_map[key], requested=partition_data.state_epoch)
            return CoordinatorResult([],
                                     responses.error_response(topic_id, partition, Errors.FENCED_STATE_EPOCH,
                                                                  Errors.FENCED_STATE_EPOCH.message))
        error = self.unknown_topic_or_partition(topic_id, partition, "initializing")
        if error is not None:
            return CoordinatorResult([], error)
        current = self.share_state_map.get(key)
        snapshot_epoch = current.snapshot_epoch + 1 if current is not None else 0
        offset = ShareGroupOffset.from_initialize_request(partition_data, snapshot_epoch,
                                                          self.time.milliseconds())
        return CoordinatorResult([helpers.new_share_snapshot_record(group_id, topic_id, partition, offset)],
                                 responses.single(topic_id, responses.partition_result(partition)))

    # ------------------------------------------------------------------ periodic jobs (the service's timers)
    def last_redundant_offset(self) -> CoordinatorResult:
        """Where __share_group_state may be cut (None: nowhere yet)."""
        return CoordinatorResult([], self.offsets_manager.last_redundant_offset())

    def snapshot_cold_partitions(self) -> CoordinatorResult:
        """A fresh snapshot of each share partition not snapshotted for cold.partition.snapshot.interval.ms,
        so the records behind it can be pruned even when nobody writes it."""
        values = list(self.share_state_map.values())
        if sum(1 for v in values if v.create_timestamp != v.write_timestamp) == len(values):
            return CoordinatorResult([])  # every one already cold-snapshotted
        now = self.time.milliseconds()
        records = []
        for key, offset in list(self.share_state_map.items()):
            if now - offset.write_timestamp >= self.config.cold_partition_snapshot_interval_ms:
                records.append(helpers.new_share_snapshot_record(key.group_id, key.topic_id, key.partition,
                                                                 offset.with_changes(
                                                                     snapshot_epoch=offset.snapshot_epoch + 1,
                                                                     write_timestamp=now)))
        return CoordinatorResult(records)

    def maybe_cleanup_share_state(self, deleted_topic_ids: set[uuid.UUID]) -> CoordinatorResult:
        """Tombstones for every share partition of the topics just deleted."""
        if not deleted_topic_ids:
            return CoordinatorResult([])
        keys = [key for key in self.share_state_map if key.topic_id in deleted_topic_ids]
        return CoordinatorResult([helpers.new_share_state_tombstone_record(k.group_id, k.topic_id,
                                                                           k.partition)
                                  for k in keys])

    # ------------------------------------------------------------------ validation
    @staticmethod
    def invalid_request(topic_id: uuid.UUID | None, partition: int, leader_epoch: int,
                        state_epoch: int) -> str | None:
        if topic_id is None:
            return NULL_TOPIC_ID
        if partition < 0:
            return NEGATIVE_PARTITION_ID
        if leader_epoch < 0:
            return NEGATIVE_LEADER_EPOCH
        if state_epoch < 0:
            return NEGATIVE_STATE_EPOCH
        return None

    def unknown_topic_or_partition(self, topic_id: uuid.UUID, partition: int, doing: str) -> dict | None:
        """UNKNOWN_TOPIC_OR_PARTITION unless the metadata image has the topic and that partition."""
        topic = None if self.metadata_image is None else self.metadata_image.topics.topics_by_id.get(topic_id)
        if topic is None or len(topic.partitions) <= partition:
            log.error(f"topic or partition not found in metadata image when {doing}", topic_id=str(topic_id),
                      partition=partition)
            return responses.error_response(topic_id, partition, Errors.UNKNOWN_TOPIC_OR_PARTITION,
                                            Errors.UNKNOWN_TOPIC_OR_PARTITION.message)
        return None


class _WriteData:
    """The part of a WriteShareGroupState partition a read's leader-epoch record is made of."""

    def __init__(self, partition: int, state_epoch: int, leader_epoch: int, start_offset: int,
                 delivery_complete_count: int) -> None:
        self.partition = partition
        self.state_epoch = state_epoch
        self.leader_epoch = leader_epoch
        self.start_offset = start_offset
        self.delivery_complete_count = delivery_complete_count
        self.state_batches: list = []
