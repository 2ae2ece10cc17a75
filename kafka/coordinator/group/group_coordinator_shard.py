"""GroupCoordinatorShard: the group coordinator of one ``__consumer_offsets`` partition (Kafka's
org.apache.kafka.coordinator.group.GroupCoordinatorShard).

The runtime builds one shard for each partition this broker leads and runs its events one at a
time, so nothing here takes a lock. Each operation decides, and returns a CoordinatorResult: the
records that say what changed, and the answer, which the runtime sends once the records commit
(the controller's rule: decide, write records, answer on commit, revert on failure). The shard
holds two managers, as Kafka's does:

    GroupMetadataManager    the groups, classic, consumer, share and streams, in one TimelineHashMap
    OffsetMetadataManager   the committed offsets, and the transactional ones still pending

and routes each record it replays (on load, and for writes that replay) to the one that owns it.
"""

from __future__ import annotations

import structlog

from kafka.coordinator.common.runtime.coordinator_result import CoordinatorResult
from kafka.coordinator.common.runtime.coordinator_shard import TransactionResult
from kafka.coordinator.group.group import ApiError, GroupType
from kafka.coordinator.group.group_config_manager import GroupConfigManager
from kafka.coordinator.group.group_coordinator_config import GroupCoordinatorConfig
from kafka.coordinator.group.group_coordinator_records import (
    SHARE_GROUP_KEYS,
    GroupMetadataKey,
    OffsetCommitKey,
)
from kafka.coordinator.group.group_metadata_manager import GroupMetadataManager
from kafka.coordinator.group.offset_metadata_manager import OffsetMetadataManager
from kafka.coordinator.group.share_group_offsets_manager import ShareGroupOffsetsManager
from kafka.coordinator.group.streams.streams_group_records import STREAMS_GROUP_KEYS
from kafka.coordinator.group.streams.streams_group_replay import replay as replay_streams_group_record
from kafka.protocol.errors import Errors
from kafka.timeline import LATEST_EPOCH, SnapshotRegistry
from kafka.utils.time import Time

log = structlog.get_logger("kafka.coordinator.group.GroupCoordinatorShard")

GROUP_EXPIRATION_KEY = "expire-group-metadata"  # Kafka's GROUP_EXPIRATION_KEY


class GroupCoordinatorShard:
    def __init__(self, snapshot_registry: SnapshotRegistry, time: Time, timer, config: GroupCoordinatorConfig,
                 topics_image, log_context: str,
                 group_config_manager: GroupConfigManager | None = None) -> None:
        self.time = time
        self.timer = timer
        self.config = config
        self.log_context = log_context
        self.group_metadata_manager = GroupMetadataManager(snapshot_registry, time, timer, config,
                                                           topics_image,
                                                           log_context, group_config_manager)
        self.offset_metadata_manager = OffsetMetadataManager(
            snapshot_registry=snapshot_registry, time=time, config=config,
            group_lookup=self.group_metadata_manager.group_lookup,
            get_or_maybe_create_classic_group=self.group_metadata_manager.classic.get_or_maybe_create_classic_group,
            reschedule_classic_group_member_heartbeat=self.group_metadata_manager.reschedule_classic_group_member_heartbeat,
            log_context=log_context)
        # what an admin may do to a share group's offsets (alter, delete, delete the group's state)
        self.share_group_offsets = ShareGroupOffsetsManager(self.group_metadata_manager.share)

    @classmethod
    def builder(cls, config: GroupCoordinatorConfig, topics_image, on_assignment,
                group_config_manager: GroupConfigManager | None = None):
        """The CoordinatorShardBuilder the runtime calls for each partition it loads; ``on_assignment``
        records how long a consumer group's assignor took (ms), for the service's metrics; every shard
        reads the groups' own configs from the broker's one GroupConfigManager."""
        def build(*, snapshot_registry: SnapshotRegistry, time: Time, timer, topic_partition,
                  log_context: str):
            shard = cls(snapshot_registry, time, timer, config, topics_image, log_context,
                        group_config_manager)
            shard.group_metadata_manager.consumer.on_assignment = on_assignment
            return shard
        return build

    # ------------------------------------------------------------------ classic groups
    def classic_group_join(self, context, request, response_callback) -> CoordinatorResult:
        return self.group_metadata_manager.classic_group_join(context, request, response_callback)

    def classic_group_sync(self, context, request, response_callback) -> CoordinatorResult:
        return self.group_metadata_manager.classic_group_sync(context, request, response_callback)

    def classic_group_heartbeat(self, context, request) -> CoordinatorResult:
        return self.group_metadata_manager.classic_group_heartbeat(context, request)

    def classic_group_leave(self, context, request) -> CoordinatorResult:
        return self.group_metadata_manager.classic_group_leave(context, request)

    # ------------------------------------------------------------------ consumer groups (KIP-848)
    def consumer_group_heartbeat(self, context, request) -> CoordinatorResult:
        return self.group_metadata_manager.consumer.consumer_group_heartbeat(request, context.client_id,
                                                                             context.client_host)

    def consumer_group_describe(self, group_id: str, committed_offset: int) -> dict:
        """ConsumerGroupDescribe's entry for the group, GROUP_ID_NOT_FOUND in it when there is none."""
        return self.group_metadata_manager.consumer.consumer_group_describe([group_id], committed_offset)[0]

    # ------------------------------------------------------------------ share groups (KIP-932)
    def share_group_heartbeat(self, context, request) -> CoordinatorResult:
        """(the answer, the InitializeShareGroupStateParameters for the persister or None)."""
        return self.group_metadata_manager.share.share_group_heartbeat(request, context.client_id,
                                                                       context.client_host)

    def share_group_describe(self, group_ids: list[str], committed_offset: int) -> list[dict]:
        return self.group_metadata_manager.share.share_group_describe(group_ids, committed_offset)

    def initialize_share_group_state(self, group_id: str, topic_partitions) -> CoordinatorResult:
        return self.group_metadata_manager.share.initialize_share_group_state(group_id, topic_partitions)

    def uninitialize_share_group_state(self, group_id: str, topic_partitions) -> CoordinatorResult:
        return self.group_metadata_manager.share.uninitialize_share_group_state(group_id, topic_partitions)

    def initialized_share_group_partitions(self, group_id: str, committed_offset: int) -> dict:
        return self.group_metadata_manager.share.initialized_share_group_partitions(group_id,
                                                                                    committed_offset)

    def alter_share_group_offsets(self, group_id: str, topics: dict) -> CoordinatorResult:
        return self.share_group_offsets.alter_share_group_offsets(group_id, topics)

    def initiate_delete_share_group_offsets(self, group_id: str, topic_names: list[str]) -> CoordinatorResult:
        return self.share_group_offsets.initiate_delete_share_group_offsets(group_id, topic_names)

    def complete_delete_share_group_offsets(self, group_id: str, topics: dict,
                                            errors: list) -> CoordinatorResult:
        return self.share_group_offsets.complete_delete_share_group_offsets(group_id, topics, errors)

    def share_partition_delete_requests(self, group_ids: list[str]) -> CoordinatorResult:
        return self.share_group_offsets.share_partition_delete_requests(group_ids)

    # ------------------------------------------------------------------ streams groups (KIP-1071)
    def streams_group_heartbeat(self, context, request) -> CoordinatorResult:
        """A StreamsGroupHeartbeatResult: the answer, and the internal topics the broker should create."""
        return self.group_metadata_manager.streams.streams_group_heartbeat(
            request, context.client_id, context.client_host, context.api_version)

    def streams_group_describe(self, group_ids: list[str], committed_offset: int) -> list[dict]:
        return self.group_metadata_manager.streams.streams_group_describe(group_ids, committed_offset)

    # ------------------------------------------------------------------ views and deletes
    def describe_group(self, group_id: str, committed_offset: int, api_version: int) -> dict | None:
        return self.group_metadata_manager.describe_group(group_id, committed_offset, api_version)

    def list_groups(self, states: set[str], types: set[str], committed_offset: int) -> list[dict]:
        return self.group_metadata_manager.list_groups(states, types, committed_offset)

    def delete_groups(self, group_ids: list[str]) -> CoordinatorResult:
        """Kafka's GroupCoordinatorShard.deleteGroups: for each deletable group, its offsets' tombstones,
        then the group's; answered once they commit. A group that may not go says why."""
        records, errors = [], {}
        for group_id in group_ids:
            try:
                group = self.group_metadata_manager.validate_delete_group(group_id)
            except ApiError as e:
                errors[group_id] = e.error
                continue
            self.offset_metadata_manager.delete_all_offsets(group_id, records)
            records += group.create_group_tombstone_records()
            errors[group_id] = Errors.NONE
        if records:
            log.info("deleting groups", groups=[g for g, e in errors.items() if e == Errors.NONE],
                     partition=self.log_context)
        return CoordinatorResult(records, errors)

    # ------------------------------------------------------------------ offsets
    def commit_offset(self, context, request) -> CoordinatorResult:
        return self.offset_metadata_manager.commit_offset(
            request.group_id, request.member_id, request.group_instance_id,
            request.generation_id_or_member_epoch,
            request.offsets, context.api_version)

    def commit_transactional_offset(self, context, request) -> CoordinatorResult:
        return self.offset_metadata_manager.commit_transaction_offset(
            request.group_id, request.member_id, request.group_instance_id, request.generation_id,
            request.offsets,
            context.api_version)

    def fetch_offsets(self, group_id: str, partitions, member_id: str | None, member_epoch: int,
                      committed_offset: int, topic_ids: dict | None = None):
        """(error, {partition: PartitionOffset}) as of the committed offset."""
        return Errors.NONE, self.offset_metadata_manager.fetch_offsets(
            group_id, partitions, False, member_id, member_epoch, committed_offset, topic_ids)

    def fetch_offsets_stable(self, group_id: str, partitions, member_id: str | None,
                             member_epoch: int, topic_ids: dict | None = None) -> CoordinatorResult:
        """OffsetFetch with require_stable: run as a write, on the latest state (no records)."""
        return CoordinatorResult([], (Errors.NONE, self.offset_metadata_manager.fetch_offsets(
            group_id, partitions, True, member_id, member_epoch, LATEST_EPOCH, topic_ids)))

    def delete_offsets(self, group_id: str, partitions) -> CoordinatorResult:
        """(error, {partition: error}); answered once the tombstones commit."""
        result = self.offset_metadata_manager.delete_offsets(group_id, partitions)
        return CoordinatorResult(result.records, (Errors.NONE, result.response))

    # ------------------------------------------------------------------ expiry (offsets.retention.*)
    def cleanup_group_metadata(self) -> CoordinatorResult:
        """Kafka's cleanupGroupMetadata: expired offsets' tombstones, then the tombstones of the empty
        groups left with no offsets; re-armed every offsets.retention.check.interval.ms."""
        records: list = []
        now = self.time.milliseconds()
        for group in list(self.group_metadata_manager.groups.values()):
            all_expired = self.offset_metadata_manager.cleanup_group_expired_offsets(group.group_id, records,
                                                                                     now)
            # Kafka's shouldExpire: an empty share group stays until DeleteGroups removes it (its share
            # state lives on in the share coordinator).
            if all_expired and group.is_empty() and group.type() is not GroupType.SHARE:
                records += group.create_group_tombstone_records()
        if records:
            log.info("expired group metadata", records=len(records), partition=self.log_context)
        self.schedule_group_metadata_expiration()
        return CoordinatorResult(records)

    def schedule_group_metadata_expiration(self) -> None:
        self.timer.schedule(GROUP_EXPIRATION_KEY, self.config.offsets_retention_check_interval_ms, True,
                            self.cleanup_group_metadata)

    # ------------------------------------------------------------------ CoordinatorShard
    def on_loaded(self, image=None) -> None:
        self.group_metadata_manager.on_loaded()
        self.schedule_group_metadata_expiration()

    def on_new_metadata_image(self, image, delta) -> None:
        pass  # topics are read through topics_image when an assignment needs them

    def on_unloaded(self) -> None:
        self.timer.cancel(GROUP_EXPIRATION_KEY)
        self.group_metadata_manager.on_unloaded()

    def replay(self, offset: int, producer_id: int, producer_epoch: int, record) -> None:
        """A record of this partition, written here or read at load: to the manager that owns its key."""
        if isinstance(record.key, OffsetCommitKey):
            self.offset_metadata_manager.replay(offset, producer_id, record)
        elif isinstance(record.key, GroupMetadataKey):
            self.group_metadata_manager.classic.replay(record.key, record.value)
        elif type(record.key) in SHARE_GROUP_KEYS.values():
            self.group_metadata_manager.share.replay(record)
        elif type(record.key) in STREAMS_GROUP_KEYS.values():
            replay_streams_group_record(self.group_metadata_manager.groups, record)
        else:
            self.group_metadata_manager.consumer.replay(record)

    def replay_end_transaction_marker(self, producer_id: int, producer_epoch: int,
                                      result: TransactionResult) -> None:
        self.offset_metadata_manager.replay_end_transaction_marker(producer_id, result)
