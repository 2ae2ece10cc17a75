"""A group coordinator shard as the runtime drives it, small enough to read in a test: a real
SnapshotRegistry and timeline map of groups, MockTime, a timer whose pending operations the test
fires, and the runtime's write rule (snapshot at the last written offset, run the operation, replay
its records at their offsets, "append" them through the serde; a failed append reverts).

The log it keeps holds the serialized records, so a fresh shard replaying it is a coordinator
failover (the loader's replay: transactional records with their producer id, markers as markers).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord
from kafka.coordinator.common.runtime.coordinator_result import CoordinatorResult
from kafka.coordinator.common.runtime.coordinator_shard import TransactionResult
from kafka.coordinator.group.consumer_group_manager import ConsumerGroupManager
from kafka.coordinator.group.group import ApiError, GroupType
from kafka.coordinator.group.group_coordinator_record_serde import GroupCoordinatorRecordSerde
from kafka.coordinator.group.group_coordinator_records import (
    SHARE_GROUP_KEYS,
    GroupMetadataKey,
    OffsetCommitKey,
)
from kafka.coordinator.group.offset_expiration_condition import COMMIT_TIMESTAMP_EXPIRATION
from kafka.coordinator.group.offset_metadata_manager import NO_PRODUCER_ID, OffsetMetadataManager
from kafka.coordinator.group.share_group_manager import ShareGroupManager
from kafka.coordinator.group.streams.streams_group_manager import StreamsGroupManager
from kafka.coordinator.group.streams.streams_group_records import STREAMS_GROUP_KEYS
from kafka.coordinator.group.streams.streams_group_replay import replay as replay_streams_group_record
from kafka.protocol.errors import Errors
from kafka.timeline import LATEST_EPOCH, SnapshotRegistry, TimelineHashMap
from kafka.utils.time import MockTime

ORDERS, CLICKS = uuid.UUID(int=1), uuid.UUID(int=2)


@dataclass(frozen=True)
class Config:
    """The GroupCoordinatorConfig fields the two managers read."""

    consumer_group_session_timeout_ms: int = 45_000
    consumer_group_heartbeat_interval_ms: int = 5_000
    consumer_group_assignors: tuple[str, ...] = ("uniform", "range")
    consumer_group_max_size: int = 2**31 - 1
    offset_metadata_max_size: int = 4096
    offsets_retention_ms: int = 7 * 24 * 3600 * 1000
    offset_commit_timeout_ms: int = 5000
    share_group_session_timeout_ms: int = 45_000
    share_group_heartbeat_interval_ms: int = 5_000
    share_group_max_size: int = 200
    share_group_assignment_interval_ms: int = 1000
    share_group_initialize_retry_interval_ms: int = 30_000
    streams_group_session_timeout_ms: int = 45_000
    streams_group_heartbeat_interval_ms: int = 5_000
    streams_group_assignors: tuple[str, ...] = ("sticky",)
    streams_group_max_size: int = 2**31 - 1
    streams_group_num_standby_replicas: int = 0
    streams_group_initial_rebalance_delay_ms: int = 3000
    streams_group_assignment_interval_ms: int = 1000
    streams_group_rack_aware_assignment_tags: tuple[str, ...] = ()
    streams_group_task_offset_interval_ms: int = 60_000
    streams_group_acceptable_recovery_lag: int = 10_000


class SimpleGroup:
    """A classic group that only holds offsets (what get_or_maybe_create_classic_group makes): Empty,
    no protocol; a member-less group accepts only generation -1 commits (the classic helper's rules)."""

    def __init__(self, group_id: str) -> None:
        self.group_id = group_id

    def type(self) -> GroupType:
        return GroupType.CLASSIC

    def state_as_string(self) -> str:
        return "Empty"

    def protocol_type(self) -> str:
        return ""

    def is_empty(self) -> bool:
        return True

    def validate_offset_commit(self, member_id, group_instance_id, generation, is_transactional, api_version):
        if generation >= 0 or (not is_transactional and (member_id or group_instance_id)):
            raise ApiError(Errors.UNKNOWN_MEMBER_ID if generation < 0 else Errors.ILLEGAL_GENERATION)

    def validate_offset_fetch(self, member_id, member_epoch):
        pass

    def validate_offset_delete(self):
        pass

    def validate_delete_group(self):
        pass

    def is_subscribed_to_topic(self, topic):
        return False

    def create_group_tombstone_records(self):
        return []

    def offset_expiration_condition(self):
        return COMMIT_TIMESTAMP_EXPIRATION


class Timer:
    """The shard's CoordinatorTimer: pending operations by key, fired by the test."""

    def __init__(self, time: MockTime) -> None:
        self.time = time
        self.pending: dict[str, tuple[int, object]] = {}

    def schedule(self, key, delay_ms, retry, operation, retry_backoff_ms=500):
        self.pending[key] = (self.time.milliseconds() + delay_ms, operation)

    def schedule_if_absent(self, key, delay_ms, retry, operation):
        if key not in self.pending:
            self.schedule(key, delay_ms, retry, operation)

    def cancel(self, key):
        self.pending.pop(key, None)

    def is_scheduled(self, key):
        return key in self.pending


class Shard:
    """The GroupMetadataManager's part of the shard that these managers need, and the runtime's rules."""

    def __init__(self, time: MockTime | None = None, topics: dict | None = None,
                 config: Config | None = None) -> None:
        self.time = time or MockTime()
        self.registry = SnapshotRegistry("test ")
        self.timer = Timer(self.time)
        self.config = config or Config()
        self.groups: TimelineHashMap = TimelineHashMap(self.registry)
        self.topics = {"orders": (ORDERS, 12)} if topics is None else topics
        self.offsets = OffsetMetadataManager(
            snapshot_registry=self.registry, time=self.time, config=self.config, group_lookup=self.group,
            get_or_maybe_create_classic_group=self.get_or_maybe_create_classic_group)
        self.consumer_groups = ConsumerGroupManager(
            groups=self.groups, snapshot_registry=self.registry, time=self.time, timer=self.timer,
            config=self.config, topics_image=lambda: self.topics)
        self.share_groups = ShareGroupManager(
            groups=self.groups, snapshot_registry=self.registry, time=self.time, timer=self.timer,
            config=self.config, topics_image=lambda: self.topics)
        self.group_configs: dict[str, dict[str, str]] = {}  # a group's own configs, as the GroupConfigManager
        self.streams_groups = StreamsGroupManager(
            groups=self.groups, time=self.time, timer=self.timer, config=self.config,
            topics_image=lambda: self.topics, group_configs=lambda group_id: self.group_configs.get(group_id,
                                                                                                    {}))
        self.serde = GroupCoordinatorRecordSerde()
        # ("data", producer id, key bytes, value bytes) or ("marker", producer id, result)
        self.log: list[tuple] = []
        self.last_written = 0
        self.last_committed = 0
        self.registry.get_or_create_snapshot(0)

    # ------------------------------------------------------------------ the GroupMetadataManager's
    def group(self, group_id, committed_offset=LATEST_EPOCH):
        return self.groups.get_at(group_id, committed_offset)

    def get_or_maybe_create_classic_group(self, group_id, create):
        group = self.groups.get(group_id)
        if group is None:
            group = self.groups[group_id] = SimpleGroup(group_id)
        return group

    # ------------------------------------------------------------------ the runtime's
    def write(self, op, producer_id: int = NO_PRODUCER_ID, fail: bool = False):
        """Run a write operation; its response, or the ApiError it raised. ``fail``: the append fails."""
        self.registry.idempotent_create_snapshot(self.last_written)
        try:
            result: CoordinatorResult = op()
        except ApiError as e:
            return e
        for i, record in enumerate(result.records):
            self.replay(self.last_written + i, producer_id, record)
        if fail:
            self.registry.revert_to_snapshot(self.last_written)
            return Errors.NOT_LEADER_OR_FOLLOWER
        for record in result.records:
            self.log.append(("data", producer_id, self.serde.serialize_key(record),
                             self.serde.serialize_value(record)))
        self.last_written += len(result.records)
        return result.response

    def write_marker(self, producer_id: int, result: TransactionResult) -> None:
        self.registry.idempotent_create_snapshot(self.last_written)
        self.offsets.replay_end_transaction_marker(producer_id, result)
        self.log.append(("marker", producer_id, result))
        self.last_written += 1

    def commit(self) -> None:
        """The high watermark reaches the log end: reads see everything written."""
        self.last_committed = self.last_written
        self.registry.idempotent_create_snapshot(self.last_committed)
        self.registry.delete_snapshots_up_to(self.last_committed)

    def replay(self, offset: int, producer_id: int, record: CoordinatorRecord) -> None:
        """The shard's dispatch by key type."""
        if isinstance(record.key, OffsetCommitKey):
            self.offsets.replay(offset, producer_id, record)
        elif isinstance(record.key, GroupMetadataKey):
            if record.value is None:
                self.groups.pop(record.key.group, None)
        elif type(record.key) in SHARE_GROUP_KEYS.values():
            self.share_groups.replay(record)
        elif type(record.key) in STREAMS_GROUP_KEYS.values():
            replay_streams_group_record(self.groups, record)
        else:
            self.consumer_groups.replay(record)

    def fire_timers(self) -> list:
        """Run every timer that is due, as write events."""
        now = self.time.milliseconds()
        due = sorted((deadline, key) for key, (deadline, _) in self.timer.pending.items() if deadline <= now)
        results = []
        for _, key in due:
            _, operation = self.timer.pending.pop(key)
            results.append(self.write(operation))
        return results

    def reload(self) -> Shard:
        """A failover: a fresh shard replays this one's log through the serde, as the loader does."""
        fresh = Shard(self.time, self.topics, self.config)
        fresh.group_configs = self.group_configs
        offset = 0
        for entry in self.log:
            if entry[0] == "marker":
                fresh.offsets.replay_end_transaction_marker(entry[1], entry[2])
            else:
                record = fresh.serde.deserialize(entry[2], entry[3])
                if record is not None:
                    fresh.replay(offset, entry[1], record)
            offset += 1
        fresh.last_written = fresh.last_committed = offset
        fresh.registry.idempotent_create_snapshot(offset)
        fresh.consumer_groups.on_loaded()
        fresh.share_groups.on_loaded()
        fresh.streams_groups.on_loaded()
        return fresh
