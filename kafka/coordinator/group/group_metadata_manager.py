"""GroupMetadataManager: the groups of one ``__consumer_offsets`` partition, of every type (Kafka's
org.apache.kafka.coordinator.group.GroupMetadataManager).

Classic groups (JoinGroup/SyncGroup), KIP-848 consumer groups (ConsumerGroupHeartbeat), KIP-932
share groups (ShareGroupHeartbeat) and KIP-1071 streams groups (StreamsGroupHeartbeat) share one
namespace, so they share one map, a TimelineHashMap: a
group id names one group of one type at a time, and reverting the shard's snapshot reverts which
group a name points to. Kafka keeps all the protocols in this one class; here each protocol's
operations are a class of their own, given the map (``classic/classic_group_manager.py``,
``consumer_group_manager.py``, ``share_group_manager.py``, ``streams/streams_group_manager.py``), and
this class keeps what they share:
finding a group by id and type, the views across types (ListGroups, DescribeGroups), deleting
groups, and replaying their records. A share group never converts: a heartbeat of another protocol
to its id is GROUP_ID_NOT_FOUND, and so is a ShareGroupHeartbeat to a group of another type. Nor does
a streams group, but an empty one gives its id to a classic JoinGroup, as an empty classic group gives
its id to the first StreamsGroupHeartbeat.

A group id used by both protocols follows Kafka 4:

- an *empty* group of one type is deleted when a member of the other protocol arrives, and the id
  becomes a group of that protocol;
- a classic member may join a consumer group that has members: it speaks JoinGroup, SyncGroup and
  Heartbeat to it, and the coordinator assigns it like any other member
  (``classic_members_of_consumer_group.py``);
- with ``group.consumer.migration.policy`` allowing it (Kafka 4's default, ``bidirectional``), a classic
  group with members is *upgraded* when a ConsumerGroupHeartbeat joins it: every member keeps its
  partitions at the generation it had (maybe_convert_to_consumer_group); and a consumer group is *downgraded*
  when its last member of the new protocol leaves and only classic members remain: they become a
  classic group at the group epoch, and rebalance (maybe_convert_to_classic_group).

A conversion writes the old group's tombstones and the new group's records in one batch, so a failed
append reverts both, and a replay of the log on another coordinator finds the same group.
"""

from __future__ import annotations

import structlog

from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord
from kafka.coordinator.common.runtime.coordinator_result import CoordinatorResult
from kafka.coordinator.group.classic.classic_group import ClassicGroup
from kafka.coordinator.group.classic.classic_group_manager import ClassicGroupManager
from kafka.coordinator.group.classic.classic_group_results import JoinGroupResult, SyncGroupResult
from kafka.coordinator.group.classic_members_of_consumer_group import ClassicMembersOfConsumerGroup
from kafka.coordinator.group.consumer_group_manager import ConsumerGroupManager
from kafka.coordinator.group.group import ApiError, Group, GroupType
from kafka.coordinator.group.group_config_manager import GroupConfigManager
from kafka.coordinator.group.group_coordinator_config import GroupCoordinatorConfig
from kafka.coordinator.group.group_coordinator_records import GroupMetadataKey
from kafka.coordinator.group.modern.consumer.consumer_group import ConsumerGroup
from kafka.coordinator.group.share_group_manager import ShareGroupManager
from kafka.coordinator.group.streams.streams_group_manager import StreamsGroupManager
from kafka.protocol.errors import Errors
from kafka.timeline import LATEST_EPOCH, SnapshotRegistry, TimelineHashMap
from kafka.utils.time import Time

log = structlog.get_logger("kafka.coordinator.group.GroupMetadataManager")


class GroupMetadataManager:
    def __init__(self, snapshot_registry: SnapshotRegistry, time: Time, timer, config: GroupCoordinatorConfig,
                 topics_image, log_context: str,
                 group_config_manager: GroupConfigManager | None = None) -> None:
        self.time = time
        # the groups' own configs (consumer.session.timeout.ms, share.heartbeat.interval.ms...): the broker's
        self.group_config_manager = group_config_manager or GroupConfigManager(config)
        self.log_context = log_context
        self.groups: TimelineHashMap = TimelineHashMap(snapshot_registry)
        self.classic = ClassicGroupManager(self.groups, snapshot_registry, time, timer, config, log_context)
        self.consumer = ConsumerGroupManager(groups=self.groups, snapshot_registry=snapshot_registry,
                                             time=time,
                                             timer=timer, config=config, log_context=log_context,
                                             topics_image=topics_image,
                                             group_configs=self.group_config_manager.group_props)
        self.share = ShareGroupManager(groups=self.groups, snapshot_registry=snapshot_registry, time=time,
                                       timer=timer,
                                       config=config, log_context=log_context, topics_image=topics_image,
                                       group_configs=self.group_config_manager.group_props)
        self.streams = StreamsGroupManager(groups=self.groups, time=time, timer=timer, config=config,
                                           log_context=log_context, topics_image=topics_image,
                                           group_configs=self.group_config_manager.group_props)
        self.classic_members = ClassicMembersOfConsumerGroup(self.consumer)
        self.config = config
        self.topics_image = topics_image
        self.consumer.convert_classic_group = self.maybe_convert_to_consumer_group
        self.consumer.maybe_downgrade = self.maybe_convert_to_classic_group

    # ------------------------------------------------------------------ classic protocol, either group type
    def classic_group_join(self, context, request, response_callback) -> CoordinatorResult:
        """Kafka's classicGroupJoin: to a consumer group with members, as one of its classic members;
        an empty consumer group is deleted first (its tombstones lead the batch, not replayed: the
        group leaves the map here) and the id turns classic. A share group's id is refused
        (INCONSISTENT_GROUP_PROTOCOL, as Kafka answers)."""
        group = self.groups.get(request.group_id)
        if group is not None and (group.type() is GroupType.SHARE
                                  or (group.type() is GroupType.STREAMS and not group.is_empty())):
            response_callback(JoinGroupResult(Errors.INCONSISTENT_GROUP_PROTOCOL, ""))
            return CoordinatorResult([])
        if isinstance(group, ConsumerGroup) and not group.is_empty():
            return self.classic_members.classic_group_join_to_consumer_group(group, context, request,
                                                                             response_callback)
        records = []
        if group is not None and group.type() in (GroupType.CONSUMER, GroupType.STREAMS):
            records = group.create_group_tombstone_records()
            del self.groups[request.group_id]
        result = self.classic.classic_group_join(context, request, response_callback)
        return CoordinatorResult(records + list(result.records), result.response, result.append_future,
                                 replay_records=False)

    def classic_group_sync(self, context, request, response_callback) -> CoordinatorResult:
        group = self.groups.get(request.group_id)
        if isinstance(group, ConsumerGroup):
            if group.is_empty():
                response_callback(SyncGroupResult(Errors.UNKNOWN_MEMBER_ID))
                return CoordinatorResult([])
            return self.classic_members.classic_group_sync_to_consumer_group(group, context, request,
                                                                             response_callback)
        return self.classic.classic_group_sync(context, request, response_callback)

    def classic_group_heartbeat(self, context, request) -> CoordinatorResult:
        group = self.groups.get(request.group_id)
        if isinstance(group, ConsumerGroup):
            return self.classic_members.classic_group_heartbeat_to_consumer_group(group, context, request)
        return self.classic.classic_group_heartbeat(context, request)

    def classic_group_leave(self, context, request) -> CoordinatorResult:
        group = self.groups.get(request.group_id)
        if isinstance(group, ConsumerGroup):
            return self.classic_members.classic_group_leave_to_consumer_group(group, context, request)
        return self.classic.classic_group_leave(context, request)

    # ------------------------------------------------------------------ conversions between the types
    def maybe_convert_to_consumer_group(self, classic: Group, records: list) -> ConsumerGroup | None:
        """Kafka's validateOnlineUpgrade and convertToConsumerGroup: None when the policy, the
        group's protocol or its size forbid it (the heartbeat is then GROUP_ID_NOT_FOUND). Members
        parked in JoinGroup or SyncGroup hear REBALANCE_IN_PROGRESS: they rejoin the new group."""
        policy = self.config.consumer_group_migration_policy
        if not isinstance(classic, ClassicGroup):
            return None
        if not policy.is_upgrade_enabled():
            log.info("cannot upgrade the classic group: the online upgrade is disabled",
                     group=classic.group_id,
                     policy=str(policy))
            return None
        if not classic.uses_consumer_group_protocol() or classic.size() > self.config.consumer_group_max_size:
            log.info("cannot upgrade the classic group: it does not use the consumer embedded protocol or is "
                     "too large", group=classic.group_id, protocol_type=classic.protocol_type(),
                     size=classic.size())
            return None
        try:
            converted = ConsumerGroup.from_classic_group(classic, self.topics_image())
        except ValueError as e:
            log.warning("cannot upgrade the classic group: its embedded consumer protocol is malformed",
                        group=classic.group_id, error=str(e))
            return None
        for member in list(classic.members.values()):
            classic.complete_join_callback(member,
                                           JoinGroupResult(Errors.REBALANCE_IN_PROGRESS, member.member_id))
            classic.complete_sync_callback(member, SyncGroupResult(Errors.REBALANCE_IN_PROGRESS))
        records.extend(classic.create_group_tombstone_records())
        for member in converted.members.values():
            self.consumer.schedule_session_timeout(converted.group_id, member.member_id,
                                                   member.classic_protocol_session_timeout_ms())
        log.info("upgrading the classic group to a consumer group", group=classic.group_id,
                 generation=classic.generation_id, members=len(converted.members))
        return converted

    def maybe_convert_to_classic_group(self, group: ConsumerGroup,
                                       leaving_member_id: str) -> CoordinatorResult | None:
        """Kafka's validateOnlineDowngradeWithFencedMember and convertToClassicGroup: when the member
        leaving is the last of the new protocol and classic members remain, the group becomes a
        classic group at its epoch and starts a rebalance. The state is changed here, not replayed
        (the rebalance needs the group object), so the result says replay_records=False."""
        policy = self.config.consumer_group_migration_policy
        if not group.all_members_use_classic_protocol_except(leaving_member_id) or len(group.members) <= 1:
            return None
        if not policy.is_downgrade_enabled() or len(group.members) - 1 > self.config.classic_group_max_size:
            log.info("cannot downgrade the consumer group: the online downgrade is disabled or the group "
                     "is too large", group=group.group_id, policy=str(policy), size=len(group.members) - 1)
            return None
        classic = ClassicGroup.from_consumer_group(group, leaving_member_id, self.topics_image(), self.time)
        records = group.create_group_tombstone_records()
        records.append(CoordinatorRecord(GroupMetadataKey(group.group_id), classic.to_record_value(
            classic.group_assignment())))
        del self.groups[group.group_id]
        self.groups[group.group_id] = classic
        for member in classic.members.values():
            self.classic.reschedule_classic_group_member_heartbeat(classic, member)
        log.info("downgrading the consumer group to a classic group", group=group.group_id,
                 generation=classic.generation_id, members=len(classic.members), leaving=leaving_member_id)
        rebalance = self.classic.rebalance.prepare_rebalance(
            classic, f"Downgrade group {group.group_id} from consumer to classic.")
        return CoordinatorResult(records + list(rebalance.records), None, rebalance.append_future,
                                 replay_records=False)

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
        """A classic member's offset commit is a sign of life too (Kafka's
        rescheduleClassicGroupMemberHeartbeat)."""
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
            # a streams group's NotReady is filtered as not_ready (Kafka's toLowerCaseString)
            matches = (group.is_in_states(wanted_states) if hasattr(group, "is_in_states")
                       else state.lower() in wanted_states)
            if (wanted_states and not matches) or (types and group_type not in types):
                continue
            listed.append(dict(group_id=group.group_id, protocol_type=group.protocol_type() or "",
                               group_state=state, group_type=group_type))
        return listed

    def describe_group(self, group_id: str, committed_offset: int, api_version: int) -> dict | None:
        """DescribeGroups' view of a classic group. A group this shard does not know, or one of another
        protocol (ConsumerGroupDescribe, ShareGroupDescribe and StreamsGroupDescribe show those), is
        None before v6 (Kafka answers it as Dead, no error); from v6 it is Dead with GROUP_ID_NOT_FOUND
        and the message of Kafka's GroupIdNotFoundException."""
        group = self.groups.get_at(group_id, committed_offset)
        if group is not None and group.type() is GroupType.CLASSIC:
            return self.classic.describe(group)
        if api_version < 6:
            return None
        message = f"Group {group_id} {'not found' if group is None else 'is not a classic group'}."
        return dict(group_state="Dead", protocol_type="", protocol_data="", members=[],
                    error_code=Errors.GROUP_ID_NOT_FOUND, error_message=message)

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
        self.share.on_loaded()
        self.streams.on_loaded()
        log.info("loaded groups", partition=self.log_context, groups=len(self.groups))

    def on_unloaded(self) -> None:
        self.classic.on_unloaded()
