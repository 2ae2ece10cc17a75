"""ClassicGroup: one group of the classic protocol and its state machine (Kafka's
org.apache.kafka.coordinator.group.classic.ClassicGroup, formerly GroupMetadata).

Seed 004: "The Group Coordinator elects a leader from one of the consumers. The group leader assigns
partitions to the consumers." The group holds its members, the generation, the protocol they chose
and who leads; the rebalance that moves it through its states (``classic_group_state.py``) is the
ClassicGroupManager's. Each generation is one run through PreparingRebalance -> CompletingRebalance
-> Stable, and the generation id goes up by one each time.

It is also a ``Group`` (``group.py``): the OffsetMetadataManager asks it whether a member may commit,
fetch or delete offsets without knowing the group's type. Its committed offsets are not here but in
the OffsetMetadataManager's timeline maps.

No lock: the shard runs one event at a time, and every change happens inside one.
"""

from __future__ import annotations

import uuid

from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord
from kafka.coordinator.group.classic.classic_group_member import ClassicGroupMember
from kafka.coordinator.group.classic.classic_group_results import (
    UNKNOWN_MEMBER_ID,
    JoinCallback,
    JoinGroupResult,
    SyncGroupResult,
)
from kafka.coordinator.group.classic.classic_group_state import VALID_PREVIOUS_STATES, ClassicGroupState
from kafka.coordinator.group.group import ApiError, GroupType
from kafka.coordinator.group.group_coordinator_records import GroupMetadataKey
from kafka.coordinator.group.utils import serialize_assignment_for
from kafka.protocol.consumer_protocol import PROTOCOL_TYPE as CONSUMER_PROTOCOL_TYPE
from kafka.protocol.consumer_protocol import deserialize_subscription
from kafka.protocol.errors import Errors
from kafka.utils.time import Time

EMPTY, PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE, DEAD = (
    ClassicGroupState.EMPTY, ClassicGroupState.PREPARING_REBALANCE, ClassicGroupState.COMPLETING_REBALANCE,
    ClassicGroupState.STABLE, ClassicGroupState.DEAD)


class ClassicGroup:
    def __init__(self, group_id: str, initial_state: ClassicGroupState, time: Time, generation_id: int = 0,
                 protocol_type: str | None = None, protocol_name: str | None = None,
                 leader_id: str | None = None, current_state_timestamp_ms: int | None = None) -> None:
        self.group_id = group_id
        self.state = initial_state
        self.previous_state = DEAD  # Kafka's starting value: a new or loaded group came from nowhere
        self.time = time
        self.current_state_timestamp_ms = (time.milliseconds() if current_state_timestamp_ms is None
                                           else current_state_timestamp_ms)
        self.generation_id = generation_id
        self._protocol_type = protocol_type
        self.protocol_name = protocol_name
        self.leader_id = leader_id
        self.members: dict[str, ClassicGroupMember] = {}
        self.static_members: dict[str, str] = {}  # group.instance.id -> member id
        self.pending_members: set[str] = set()  # got MEMBER_ID_REQUIRED, not joined yet (KIP-394)
        self.pending_sync_members: set[str] = set()  # got their JoinGroup answer, no SyncGroup yet
        self.num_members_awaiting_join = 0
        self.supported_protocols: dict[str, int] = {}  # protocol name -> how many members support it
        # A member joined during the first rebalance: the initial delay is extended once more (KIP-134).
        self.new_member_added = False
        self.subscribed_topics: set[str] | None = None

    # ------------------------------------------------------------------ the Group protocol
    def type(self) -> GroupType:
        return GroupType.CLASSIC

    def state_as_string(self) -> str:
        return str(self.state)

    def protocol_type(self) -> str:
        """"consumer" for consumers, "connect" for Connect workers...; "" for a group that has none
        (a simple consumer's, which only commits offsets)."""
        return self._protocol_type or ""

    def is_empty(self) -> bool:
        return self.is_state(EMPTY)

    def uses_consumer_group_protocol(self) -> bool:
        return self._protocol_type == CONSUMER_PROTOCOL_TYPE

    def validate_offset_commit(self, member_id: str, group_instance_id: str | None,
                               generation_id_or_member_epoch: int, is_transactional: bool,
                               api_version: int) -> None:
        """Generation -1 in an Empty group is a "simple" commit (the admin client, a consumer
        without group management). Otherwise the member must be current. A plain commit during
        CompletingRebalance is refused: SyncGroup may be about to give that partition to someone
        else. A TxnOffsetCommit before v3 names no member, so a group with members accepts it."""
        generation_id = generation_id_or_member_epoch
        if self.is_state(DEAD):
            raise ApiError(Errors.COORDINATOR_NOT_AVAILABLE)
        if generation_id < 0 and self.is_state(EMPTY):
            return
        if generation_id >= 0 or member_id != UNKNOWN_MEMBER_ID or group_instance_id is not None:
            error = self.validate_member(member_id, group_instance_id)
            if error is None and generation_id != self.generation_id:
                error = Errors.ILLEGAL_GENERATION
            if error is not None:
                raise ApiError(error)
        elif not is_transactional:
            raise ApiError(Errors.UNKNOWN_MEMBER_ID)  # only members may commit for a group with members
        if not is_transactional and self.is_state(COMPLETING_REBALANCE):
            raise ApiError(Errors.REBALANCE_IN_PROGRESS)

    def validate_offset_fetch(self, member_id: str | None, member_epoch: int) -> None:
        # Answered in any other state: a group may use Kafka for offsets alone.
        if self.is_state(DEAD):
            raise ApiError(Errors.GROUP_ID_NOT_FOUND, f"Group {self.group_id} is in dead state.")

    def validate_offset_delete(self) -> None:
        if self.is_state(DEAD):
            raise ApiError(Errors.GROUP_ID_NOT_FOUND, f"Group {self.group_id} is in dead state.")
        if not self.is_state(EMPTY) and not self.uses_consumer_group_protocol():
            raise ApiError(Errors.NON_EMPTY_GROUP)

    def validate_delete_group(self) -> None:
        if self.is_state(DEAD):
            raise ApiError(Errors.GROUP_ID_NOT_FOUND, f"Group {self.group_id} is in dead state.")
        if not self.is_state(EMPTY):
            raise ApiError(Errors.NON_EMPTY_GROUP)

    def is_subscribed_to_topic(self, topic: str) -> bool:
        """Unknown subscriptions (metadata we could not read) count as "everything" for a
        consumer group, so its offsets are not deleted under a live consumer."""
        if self.subscribed_topics is None:
            return self.uses_consumer_group_protocol()
        return topic in self.subscribed_topics

    def create_group_tombstone_records(self) -> list[CoordinatorRecord]:
        return [CoordinatorRecord(GroupMetadataKey(self.group_id), None)]

    # ------------------------------------------------------------------ state
    def is_state(self, state: ClassicGroupState) -> bool:
        return self.state is state

    def can_rebalance(self) -> bool:
        return self.state in VALID_PREVIOUS_STATES[PREPARING_REBALANCE]

    def transition_to(self, target: ClassicGroupState) -> None:
        if self.state not in VALID_PREVIOUS_STATES[target]:
            raise RuntimeError(f"group {self.group_id} cannot move from {self.state} to {target}")
        self.previous_state = self.state
        self.state = target
        self.current_state_timestamp_ms = self.time.milliseconds()

    # ------------------------------------------------------------------ members
    def has(self, member_id: str) -> bool:
        return member_id in self.members

    def get(self, member_id: str) -> ClassicGroupMember:
        return self.members[member_id]

    def is_leader(self, member_id: str) -> bool:
        return self.leader_id == member_id

    def size(self) -> int:
        return len(self.members)

    def generate_member_id(self, client_id: str, group_instance_id: str | None) -> str:
        # Kafka's shape: "<client.id or group.instance.id>-<uuid>", which makes logs readable.
        return f"{group_instance_id or client_id}-{uuid.uuid4()}"

    def add(self, member: ClassicGroupMember, callback: JoinCallback | None = None) -> None:
        if member.group_instance_id is not None:
            self.static_members[member.group_instance_id] = member.member_id
        if not self.members:
            self._protocol_type = member.protocol_type
        if self.leader_id is None:
            self.leader_id = member.member_id  # the first to join leads, until it leaves
        self.members[member.member_id] = member
        self._count_protocols(member, +1)
        member.awaiting_join_callback = callback
        if member.is_awaiting_join:
            self.num_members_awaiting_join += 1
        self.pending_members.discard(member.member_id)

    def remove(self, member_id: str) -> None:
        member = self.members.pop(member_id, None)
        if member is not None:
            self._count_protocols(member, -1)
            if member.is_awaiting_join:
                self.num_members_awaiting_join -= 1
            if member.group_instance_id is not None:
                self.static_members.pop(member.group_instance_id, None)
        if self.is_leader(member_id):
            self.leader_id = next(iter(self.members), None)
        self.pending_members.discard(member_id)
        self.pending_sync_members.discard(member_id)

    def update_member(self, member: ClassicGroupMember, protocols: list[tuple[str, bytes]],
                      rebalance_timeout_ms: int, session_timeout_ms: int,
                      callback: JoinCallback | None) -> None:
        self._count_protocols(member, -1)
        member.supported_protocols = protocols
        self._count_protocols(member, +1)
        member.rebalance_timeout_ms = rebalance_timeout_ms
        member.session_timeout_ms = session_timeout_ms
        if callback is not None and not member.is_awaiting_join:
            self.num_members_awaiting_join += 1
        elif callback is None and member.is_awaiting_join:
            self.num_members_awaiting_join -= 1
        member.awaiting_join_callback = callback

    def _count_protocols(self, member: ClassicGroupMember, delta: int) -> None:
        for name in member.protocols():
            self.supported_protocols[name] = self.supported_protocols.get(name, 0) + delta

    def complete_join_callback(self, member: ClassicGroupMember, result: JoinGroupResult) -> bool:
        """Answer the member's parked JoinGroup, if it has one (Kafka's completeJoinFuture)."""
        if not member.is_awaiting_join:
            return False
        callback, member.awaiting_join_callback = member.awaiting_join_callback, None
        self.num_members_awaiting_join -= 1
        callback(result)
        return True

    def complete_sync_callback(self, member: ClassicGroupMember, result: SyncGroupResult) -> bool:
        """Answer the member's parked SyncGroup, if it has one (Kafka's completeSyncFuture)."""
        if not member.is_awaiting_sync:
            return False
        callback, member.awaiting_sync_callback = member.awaiting_sync_callback, None
        callback(result)
        return True

    def validate_member(self, member_id: str, group_instance_id: str | None) -> Errors | None:
        """The member exists, and if it claims a group.instance.id it is the current holder of it
        (Kafka's ClassicGroup.validateMember)."""
        if group_instance_id is not None:
            current = self.static_members.get(group_instance_id)
            if current is not None and current != member_id:
                return Errors.FENCED_INSTANCE_ID  # a newer instance with the same id replaced this one
        if not self.has(member_id):
            return Errors.UNKNOWN_MEMBER_ID
        return None

    # ------------------------------------------------------------------ pending members
    def add_pending_member(self, member_id: str) -> None:
        """KIP-394: the member got its id (MEMBER_ID_REQUIRED) and must join again with it."""
        self.pending_members.add(member_id)

    def is_pending_member(self, member_id: str) -> bool:
        return member_id in self.pending_members

    def add_pending_sync_member(self, member_id: str) -> None:
        self.pending_sync_members.add(member_id)

    def remove_pending_sync_member(self, member_id: str) -> None:
        self.pending_sync_members.discard(member_id)

    def has_received_sync_from_all_members(self) -> bool:
        return not self.pending_sync_members

    # ------------------------------------------------------------------ static membership (KIP-345)
    def get_static_member_id(self, group_instance_id: str) -> str | None:
        return self.static_members.get(group_instance_id)

    def replace_static_member(self, group_instance_id: str, old_member_id: str, new_member_id: str,
                              fenced_error: Errors = Errors.FENCED_INSTANCE_ID) -> ClassicGroupMember:
        """A restarted static member takes over its old entry -- and its assignment -- under a
        new member id. Anyone still waiting under the old id is fenced."""
        member = self.members.pop(old_member_id)
        self.complete_join_callback(member, JoinGroupResult(fenced_error, old_member_id))
        self.complete_sync_callback(member, SyncGroupResult(fenced_error))
        member.member_id = new_member_id
        self.members[new_member_id] = member
        if self.is_leader(old_member_id):
            self.leader_id = new_member_id
        self.static_members[group_instance_id] = new_member_id
        return member

    # ------------------------------------------------------------------ rebalance
    def has_all_members_joined(self) -> bool:
        return len(self.members) == self.num_members_awaiting_join and not self.pending_members

    def not_yet_rejoined_members(self) -> list[ClassicGroupMember]:
        return [m for m in self.members.values() if not m.is_awaiting_join]

    def rebalance_timeout_ms(self) -> int:
        return max((m.rebalance_timeout_ms for m in self.members.values()), default=0)

    def maybe_elect_new_joined_leader(self) -> bool:
        """Keep the leader if it rejoined, else promote any member that did. False if none did."""
        if self.leader_id is None:
            return False
        if self.members[self.leader_id].is_awaiting_join:
            return True
        for member_id, member in self.members.items():
            if member.is_awaiting_join:
                self.leader_id = member_id
                return True
        return False

    def candidate_protocols(self) -> set[str]:
        return {name for name, count in self.supported_protocols.items() if count == len(self.members)}

    def supports_protocols(self, member_protocol_type: str, member_protocols: set[str]) -> bool:
        if self.is_state(EMPTY):
            return bool(member_protocol_type) and bool(member_protocols)
        return (self._protocol_type == member_protocol_type
                and any(self.supported_protocols.get(p, 0) == len(self.members) for p in member_protocols))

    def select_protocol(self) -> str:
        """Every member votes for its favourite protocol that all members support; most votes wins
        (ties go to the protocol voted for first, as Kafka's groupBy/maxBy happens to do)."""
        candidates = self.candidate_protocols()
        votes: dict[str, int] = {}
        for member in self.members.values():
            choice = member.vote(candidates)
            votes[choice] = votes.get(choice, 0) + 1
        return max(votes, key=votes.__getitem__)

    def init_next_generation(self) -> None:
        self.generation_id += 1
        if self.members:
            self.protocol_name = self.select_protocol()
            self.subscribed_topics = self.compute_subscribed_topics()
            self.transition_to(COMPLETING_REBALANCE)
        else:
            self.protocol_name = None
            self.subscribed_topics = self.compute_subscribed_topics()
            self.transition_to(EMPTY)
        self.pending_sync_members.clear()

    def current_member_metadata(self) -> list[dict]:
        """What the leader's JoinGroup response carries: every member's chosen-protocol metadata."""
        return [dict(member_id=m.member_id, group_instance_id=m.group_instance_id,
                     metadata=m.metadata(self.protocol_name))
                for m in self.members.values()]

    def group_assignment(self) -> dict[str, bytes]:
        return {member_id: member.assignment for member_id, member in self.members.items()}

    def compute_subscribed_topics(self) -> set[str] | None:
        """The topics the members subscribe to, read from their ConsumerProtocolSubscription;
        None (unknown) for a non-consumer group or unreadable metadata."""
        if self._protocol_type != CONSUMER_PROTOCOL_TYPE or self.protocol_name is None:
            return None if self.members else set()
        topics: set[str] = set()
        try:
            for member in self.members.values():
                topics.update(deserialize_subscription(member.metadata(self.protocol_name)).topics)
        except Exception:  # a client's metadata we cannot parse: be safe, assume "everything"
            return None
        return topics

    # ------------------------------------------------------------------ the GroupMetadata record
    def to_record_value(self, assignment: dict[str, bytes]) -> dict:
        """GroupMetadataValue's fields for this generation, with the given assignment."""
        return dict(
            protocol_type=self._protocol_type or "",
            generation=self.generation_id,
            protocol=self.protocol_name,
            leader=self.leader_id,
            current_state_timestamp=self.current_state_timestamp_ms,
            members=[dict(member_id=m.member_id, group_instance_id=m.group_instance_id, client_id=m.client_id,
                          client_host=m.client_host, rebalance_timeout=m.rebalance_timeout_ms,
                          session_timeout=m.session_timeout_ms,
                          subscription=m.metadata(self.protocol_name) if self.protocol_name else b"",
                          assignment=assignment.get(m.member_id, b""))
                     for m in self.members.values()],
        )

    @classmethod
    def from_record_value(cls, group_id: str, value, time: Time) -> ClassicGroup:
        """Rebuild a group from its last GroupMetadataValue (a dict, or the Record the serde read):
        Stable with its members if it had any, else Empty (Kafka's replay of GroupMetadataValue)."""
        members = value["members"]
        timestamp = value.get("current_state_timestamp", -1)
        group = cls(group_id, STABLE if members else EMPTY, time, value["generation"],
                    value["protocol_type"] or None, value["protocol"], value["leader"],
                    None if timestamp is None or timestamp < 0 else timestamp)
        for m in members:
            rebalance_timeout = m.get("rebalance_timeout", -1)
            group.add(ClassicGroupMember(
                m["member_id"], m.get("group_instance_id"), m["client_id"], m["client_host"],
                rebalance_timeout if rebalance_timeout >= 0 else m["session_timeout"], m["session_timeout"],
                value["protocol_type"], [(value["protocol"], bytes(m["subscription"]))],
                bytes(m["assignment"])))
        group.subscribed_topics = group.compute_subscribed_topics()
        return group

    @classmethod
    def from_consumer_group(cls, consumer_group, leaving_member_id: str, topics: dict,
                            time: Time) -> ClassicGroup:
        """Kafka's ClassicGroup.fromConsumerGroup, for an online downgrade: a Stable group at the
        consumer group's epoch with every member but the one leaving (all of them classic members),
        each given its target assignment in the ConsumerProtocol version it joined with. The caller
        then starts a rebalance, so the members rejoin a group of the classic protocol."""
        group = cls(consumer_group.group_id, STABLE, time, consumer_group.group_epoch, CONSUMER_PROTOCOL_TYPE)
        for member_id, m in consumer_group.members.items():
            if member_id == leaving_member_id:
                continue
            classic = m.classic_member_metadata
            group.add(ClassicGroupMember(member_id, m.instance_id, m.client_id, m.client_host,
                                         m.rebalance_timeout_ms,
                                         classic.session_timeout_ms, CONSUMER_PROTOCOL_TYPE,
                                         list(classic.supported_protocols)))
        group.protocol_name = group.select_protocol()
        group.subscribed_topics = group.compute_subscribed_topics()
        for member in group.members.values():
            target = consumer_group.target_assignment.get(member.member_id, {})
            member.assignment = serialize_assignment_for(target, topics, member.metadata(group.protocol_name))
        return group

    def __repr__(self) -> str:
        return (f"ClassicGroup(group_id={self.group_id}, generation={self.generation_id}, "
                f"protocol_type={self._protocol_type}, state={self.state}, members={list(self.members)})")
