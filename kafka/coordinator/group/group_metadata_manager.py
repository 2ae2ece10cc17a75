"""GroupMetadataManager: the groups of one ``__consumer_offsets`` partition, of every type (Kafka's
org.apache.kafka.coordinator.group.GroupMetadataManager).

Classic groups (JoinGroup/SyncGroup) and KIP-848 consumer groups (ConsumerGroupHeartbeat) share one
namespace, so they share one map, a TimelineHashMap: a group id names one group of one type at a
time, and reverting the shard's snapshot reverts which group a name points to. Kafka keeps both
protocols in this one class; here each protocol's operations are a class of their own, given the
map (``classic/classic_group_manager.py``, ``consumer_group_manager.py``), and this class keeps what
they share: finding a group by id and type, the views across types (ListGroups, DescribeGroups),
deleting groups, and replaying their records.

A group id used by both protocols follows Kafka 4 with ``group.consumer.migration.policy=disabled``:
a classic member may not join a consumer group that has members (INCONSISTENT_GROUP_PROTOCOL), an
empty one is deleted and the id becomes a classic group again, and the same the other way round.
"""

from __future__ import annotations

import structlog

from kafka.coordinator.group.classic.classic_group_manager import ClassicGroupManager
from kafka.coordinator.group.consumer_group_manager import ConsumerGroupManager
from kafka.coordinator.group.group import ApiError, Group, GroupType
from kafka.coordinator.group.group_coordinator_config import GroupCoordinatorConfig
from kafka.protocol.errors import Errors
from kafka.timeline import LATEST_EPOCH, SnapshotRegistry, TimelineHashMap
from kafka.utils.time import Time

log = structlog.get_logger("kafka.coordinator.group.GroupMetadataManager")


class GroupMetadataManager:
    def __init__(self, snapshot_registry: SnapshotRegistry, time: Time, timer, config: GroupCoordinatorConfig,
                 topics_image, log_context: str) -> None:
        self.time = time
        self.log_context = log_context
        self.groups: TimelineHashMap = TimelineHashMap(snapshot_registry)
        self.classic = ClassicGroupManager(self.groups, snapshot_registry, time, timer, config, log_context)
        self.consumer = ConsumerGroupManager(groups=self.groups, snapshot_registry=snapshot_registry, time=time,
                                             timer=timer, config=config, log_context=log_context,
                                             topics_image=topics_image)

    # ------------------------------------------------------------------ finding groups
    def group(self, group_id: str, committed_offset: int = LATEST_EPOCH) -> Group:
        """The group, as of that offset; GROUP_ID_NOT_FOUND when there is none."""
        group = self.groups.get_at(group_id, committed_offset)
        if group is None:
            raise ApiError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} not found.")
        return group

    def group_lookup(self, group_id: str, committed_offset: int = LATEST_EPOCH) -> Group | None:
        return self.groups.get_at(group_id, committed_offset)

    def reschedule_classic_group_member_heartbeat(self, group, member_id: str) -> None:
        """A classic member's offset commit is a sign of life too (Kafka's rescheduleClassicGroupMemberHeartbeat)."""
        if group.has(member_id):
            self.classic.reschedule_classic_group_member_heartbeat(group, group.get(member_id))

    # ------------------------------------------------------------------ views across types
    def list_groups(self, states: set[str], types: set[str], committed_offset: int) -> list[dict]:
        """ListGroups' entries of this shard, as of the committed offset (Kafka's listGroups)."""
        wanted_states = {s.lower() for s in states}
        listed = []
        for group in self.groups.values_at(committed_offset):
            group_type = str(group.type())
            state = group.state_as_string()
            if (wanted_states and state.lower() not in wanted_states) or (types and group_type not in types):
                continue
            listed.append(dict(group_id=group.group_id, protocol_type=group.protocol_type() or "",
                               group_state=state, group_type=group_type))
        return listed

    def describe_group(self, group_id: str, committed_offset: int) -> dict | None:
        """DescribeGroups' view of a classic group; None for a group this shard does not know, or one
        of the consumer protocol (Kafka describes both as Dead; ConsumerGroupDescribe shows the latter)."""
        group = self.groups.get_at(group_id, committed_offset)
        if group is None or group.type() is not GroupType.CLASSIC:
            return None
        return self.classic.describe(group)

    # ------------------------------------------------------------------ deleting groups
    def validate_delete_group(self, group_id: str) -> Group:
        group = self.group(group_id)
        group.validate_delete_group()
        return group

    def delete_group_records(self, group: Group) -> list:
        """The tombstones that delete the group itself (its offsets are the OffsetMetadataManager's)."""
        return group.create_group_tombstone_records()

    # ------------------------------------------------------------------ load and unload
    def on_loaded(self) -> None:
        self.classic.on_loaded()
        self.consumer.on_loaded()
        log.info("loaded groups", partition=self.log_context, groups=len(self.groups))

    def on_unloaded(self) -> None:
        self.classic.on_unloaded()
