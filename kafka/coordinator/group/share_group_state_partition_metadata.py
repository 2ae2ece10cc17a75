"""ShareGroupStatePartitionMetadata: which partitions of each share group have their share state in
the share coordinator -- Kafka's GroupMetadataManager.shareGroupStatePartitionMetadata and the methods
over it (maybeCreateInitializeShareGroupStateRequest, subscribedTopicsChangeMap,
addInitializingTopicsRecords, initializeShareGroupState, uninitializeShareGroupState).

A share partition keeps its state (where the group's reading starts, which records are acknowledged)
in the share coordinator, on ``__share_group_state``; the state must exist before any member reads
the partition. So the group coordinator keeps, per group, one ShareGroupStatePartitionMetadata record:

    initializing   partitions it asked the share coordinator to create state for, and when
    initialized    partitions whose state exists: the only ones the SimpleAssignor may hand out
    deleting       topics whose state is being deleted

A heartbeat that finds subscribed partitions in neither set (or initializing for longer than
group.share.initialize.retry.interval.ms) writes them as initializing and returns an
InitializeShareGroupStateParameters; the service asks the persister, then writes them as initialized
(or, if it failed, no longer initializing). The record is the state: replay rebuilds the map from it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord
from kafka.coordinator.common.runtime.coordinator_result import CoordinatorResult
from kafka.coordinator.group.group import Group
from kafka.coordinator.group.group_coordinator_records import (
    ShareGroupStatePartitionMetadataKey,
    ShareGroupStatePartitionMetadataValue,
    TopicPartitionsInfo,
)
from kafka.coordinator.group.modern.share.share_group import (
    InitMapValue,
    ShareGroup,
    ShareGroupStatePartitionMetadataInfo,
    combine_init_maps,
)
from kafka.timeline import LATEST_EPOCH, TimelineHashMap
from kafka.utils.time import Time

UNKNOWN_TOPIC_NAME = "<UNKNOWN>"


@dataclass(frozen=True)
class InitializeShareGroupStateParameters:
    """What the group coordinator asks the persister for (Kafka's InitializeShareGroupStateParameters):
    state for these partitions of the group, at the group epoch, each starting at its offset (-1:
    share.auto.offset.reset decides; 0: a partition added to a topic the group already reads, read
    from its start)."""

    group_id: str
    state_epoch: int
    start_offsets: dict[uuid.UUID, dict[int, int]]  # topic id -> partition -> start offset

    def topic_partitions(self) -> dict[uuid.UUID, set[int]]:
        return {topic_id: set(partitions) for topic_id, partitions in self.start_offsets.items()}


class ShareGroupStatePartitionMetadata:
    def __init__(self, *, groups: TimelineHashMap[str, Group], snapshot_registry, time: Time, config,
                 topics_image: Callable[[], dict[str, tuple[uuid.UUID, int]]], log) -> None:
        self.groups = groups
        self.infos: TimelineHashMap[str, ShareGroupStatePartitionMetadataInfo]
        self.infos = TimelineHashMap(snapshot_registry)
        self.time = time
        self.config = config
        self.topics_image = topics_image
        self.log = log

    def get(self, group_id: str) -> ShareGroupStatePartitionMetadataInfo | None:
        return self.infos.get(group_id)

    def initialize_retry_interval_ms(self) -> int:
        """group.share.initialize.retry.interval.ms, never below offsets.commit.timeout.ms (Kafka's rule)."""
        return max(self.config.share_group_initialize_retry_interval_ms, self.config.offset_commit_timeout_ms)

    def assignable_partitions(self, group_id: str) -> dict[uuid.UUID, frozenset[int]]:
        """Kafka's stripInitValue of the initialized topics: what the SimpleAssignor may hand out."""
        info = self.infos.get(group_id)
        return {} if info is None else {t: v.partitions for t, v in info.initialized_topics.items()}

    def initialized_share_group_partitions(self, group_id: str,
                                           committed_offset: int = LATEST_EPOCH) -> dict[uuid.UUID, set[int]]:
        """The partitions whose share state exists (what DeleteGroups must ask the persister to delete)."""
        info = self.infos.get_at(group_id, committed_offset)
        return {} if info is None else {t: set(v.partitions) for t, v in info.initialized_topics.items()}

    def partitions_to_delete(self, group_id: str,
                             committed_offset: int = LATEST_EPOCH) -> dict[uuid.UUID, set[int]]:
        """The partitions whose share state exists or is being created: what deleting the group asks the
        persister to delete first (Kafka's combineInitMaps of the initialized and initializing topics)."""
        info = self.infos.get_at(group_id, committed_offset)
        partitions: dict[uuid.UUID, set[int]] = {}
        for topics in (() if info is None else (info.initialized_topics, info.initializing_topics)):
            for topic_id, value in topics.items():
                partitions.setdefault(topic_id, set()).update(value.partitions)
        return partitions

    # ------------------------------------------------------------------ the heartbeat's part
    def maybe_create_initialize_share_group_state_request(
            self, group_id: str, group_epoch: int, subscribed_topic_names: set[str],
            records: list[CoordinatorRecord]) -> InitializeShareGroupStateParameters | None:
        """Kafka's maybeCreateInitializeShareGroupStateRequest: the subscribed partitions the share
        coordinator was not asked about (or was asked too long ago) are written as initializing and
        returned for the persister. A topic the group knew already starts its new partitions at 0."""
        if not subscribed_topic_names or not self.topics_image():
            return None
        change = self.subscribed_topics_change_map(group_id, subscribed_topic_names)
        if not change:
            return None
        self.add_initializing_topics_records(group_id, records, change)
        info = self.infos.get(group_id)
        known = set() if info is None else info.initialized_topics.keys() | info.initializing_topics.keys()
        return InitializeShareGroupStateParameters(
            group_id, group_epoch, {topic_id: {p: 0 if topic_id in known else -1 for p in value.partitions}
                                    for topic_id, value in change.items()})

    def subscribed_topics_change_map(self, group_id: str, subscribed_topic_names: Iterable[str]
                                     ) -> dict[uuid.UUID, InitMapValue]:
        """Kafka's subscribedTopicsChangeMap: for each subscribed topic, its partitions neither
        initialized nor being initialized since less than the retry interval."""
        info = self.infos.get(group_id)
        now = self.time.milliseconds()
        retry_ms = self.initialize_retry_interval_ms()
        already = {} if info is None else combine_init_maps(
            info.initialized_topics,
            {t: v for t, v in info.initializing_topics.items() if now - v.timestamp < retry_ms})
        topics = self.topics_image()
        change: dict[uuid.UUID, InitMapValue] = {}
        for name in subscribed_topic_names:
            if name not in topics:
                continue
            topic_id, count = topics[name]
            have = already[topic_id].partitions if topic_id in already else frozenset()
            if not have or len(have) < count:
                change.setdefault(topic_id, InitMapValue(name, frozenset(range(count)) - have, now))
        return change

    def add_initializing_topics_records(self, group_id: str, records: list[CoordinatorRecord],
                                        change: dict[uuid.UUID, InitMapValue]) -> None:
        info = self.infos.get(group_id)
        if info is None:
            records.append(new_share_group_state_partition_metadata_record(group_id, change, {}, {}))
            return
        initializing = combine_init_maps(info.initializing_topics, change)
        deleting = set(info.deleting_topics)
        for topic_id in initializing.keys() & deleting:
            deleting.discard(topic_id)
            self.log.warning("initializing topic was being deleted: no longer deleting", group_id=group_id,
                             topic_id=str(topic_id))
        records.append(new_share_group_state_partition_metadata_record(
            group_id, initializing, info.initialized_topics, self.attach_topic_name(deleting)))

    # ------------------------------------------------------------------ the persister's answer
    def initialize_share_group_state(self, group_id: str,
                                     topic_partitions: dict[uuid.UUID, set[int]]) -> CoordinatorResult[None]:
        """Kafka's initializeShareGroupState: the persister initialized these partitions; they move from
        initializing to initialized, so the next heartbeat may hand them out."""
        if not topic_partitions or not isinstance(self.groups.get(group_id), ShareGroup):
            return CoordinatorResult([])
        info = self.infos.get(group_id)
        attached = self.attach_init_value(topic_partitions)
        if info is None:
            return CoordinatorResult([new_share_group_state_partition_metadata_record(group_id, {}, attached,
                                                                                      {})])
        initializing = dict(info.initializing_topics)
        for topic_id, partitions in topic_partitions.items():
            if topic_id in initializing:
                value = initializing.pop(topic_id)
                left = value.partitions - frozenset(partitions)
                if left:
                    initializing[topic_id] = InitMapValue(value.name, left, value.timestamp)
        return CoordinatorResult([new_share_group_state_partition_metadata_record(
            group_id, initializing, combine_init_maps(info.initialized_topics, attached),
            self.attach_topic_name(info.deleting_topics))])

    def uninitialize_share_group_state(
            self, group_id: str, topic_partitions: dict[uuid.UUID, set[int]]) -> CoordinatorResult[None]:
        """Kafka's uninitializeShareGroupState: the persister failed for these partitions; they are no
        longer initializing, so a later heartbeat asks again."""
        info = self.infos.get(group_id)
        if info is None or not info.initializing_topics or not topic_partitions:
            return CoordinatorResult([])
        initializing = {}
        for topic_id, value in info.initializing_topics.items():
            left = value.partitions - frozenset(topic_partitions.get(topic_id, ()))
            if left:
                initializing[topic_id] = InitMapValue(value.name, left, value.timestamp)
        return CoordinatorResult([new_share_group_state_partition_metadata_record(
            group_id, initializing, info.initialized_topics, self.attach_topic_name(info.deleting_topics))])

    # ------------------------------------------------------------------ replay
    def replay(self, group_id: str, value: ShareGroupStatePartitionMetadataValue | None) -> None:
        """The record is the whole state of the group's partitions; a tombstone removes it."""
        if value is None:
            self.infos.pop(group_id, None)
            return
        group = self.groups.get(group_id)
        if group is None:
            self.groups[group_id] = ShareGroup(group_id)
        elif not isinstance(group, ShareGroup):
            raise RuntimeError(f"share group record for {group_id}, a {group.type()} group")
        now = self.time.milliseconds()  # Kafka stamps them at replay too: a retry counts from the load

        def init_map(topics: dict[uuid.UUID, TopicPartitionsInfo]) -> dict[uuid.UUID, InitMapValue]:
            return {t: InitMapValue(info.topic_name, frozenset(info.partitions), now)
                    for t, info in topics.items()}
        self.infos[group_id] = ShareGroupStatePartitionMetadataInfo(
            init_map(value.initializing_topics), init_map(value.initialized_topics),
            frozenset(value.deleting_topics))

    # ------------------------------------------------------------------ names
    def attach_init_value(self, topic_partitions: dict[uuid.UUID, set[int]]) -> dict[uuid.UUID, InitMapValue]:
        names, now = self.topic_names(), self.time.milliseconds()
        return {t: InitMapValue(names.get(t, UNKNOWN_TOPIC_NAME), frozenset(p), now)
                for t, p in topic_partitions.items()}

    def attach_topic_name(self, topic_ids: Iterable[uuid.UUID]) -> dict[uuid.UUID, str]:
        names = self.topic_names()
        return {t: names.get(t, UNKNOWN_TOPIC_NAME) for t in topic_ids}

    def topic_names(self) -> dict[uuid.UUID, str]:
        return {topic_id: name for name, (topic_id, _) in self.topics_image().items()}


def new_share_group_state_partition_metadata_record(group_id: str,
                                                    initializing: dict[uuid.UUID, InitMapValue],
                                                    initialized: dict[uuid.UUID, InitMapValue],
                                                    deleting: dict[uuid.UUID, str]) -> CoordinatorRecord:
    """Kafka's GroupCoordinatorRecordHelpers.newShareGroupStatePartitionMetadataRecord."""
    def infos(topics: dict[uuid.UUID, InitMapValue]) -> dict[uuid.UUID, TopicPartitionsInfo]:
        return {t: TopicPartitionsInfo(v.name, v.partitions) for t, v in topics.items()}
    return CoordinatorRecord(ShareGroupStatePartitionMetadataKey(group_id),
                             ShareGroupStatePartitionMetadataValue(
        infos(initializing), infos(initialized), dict(deleting)))
