"""GroupMetadata: one classic group and its state machine (Kafka's kafka.coordinator.group.GroupMetadata).

Seed 004: the coordinator "manages the group membership and initiates the rebalance activity";
the group leader assigns the partitions. A group moves through five states::

    Empty --join--> PreparingRebalance --all joined / rebalance timeout--> CompletingRebalance
    CompletingRebalance --leader's SyncGroup--> Stable --join, leave, member expiry--> PreparingRebalance
    PreparingRebalance --everyone left--> Empty;   any --deleted / offsets expired--> Dead

Each generation is one run through PreparingRebalance -> CompletingRebalance -> Stable; the
generation id goes up by one each time. The group also holds its committed offsets (the
GroupMetadataManager fills them from ``__consumer_offsets``), and a transactional producer's
offsets that wait for its transaction to end (KIP-98: pending until the COMMIT marker, dropped on
ABORT; OffsetFetch never returns them).

Every field is guarded by ``lock``. The coordinator takes it around each request, and the
DelayedJoin/DelayedHeartbeat of this group share it, as in Kafka (``group.inLock``).
"""

from __future__ import annotations

import threading
import uuid
from enum import Enum

from kafka.coordinator.commit_record_metadata_and_offset import CommitRecordMetadataAndOffset
from kafka.coordinator.member_metadata import JoinCallback, MemberMetadata
from kafka.coordinator.offset_and_metadata import OffsetAndMetadata
from kafka.protocol.consumer_protocol import PROTOCOL_TYPE as CONSUMER_PROTOCOL_TYPE
from kafka.protocol.consumer_protocol import deserialize_subscription
from kafka.protocol.errors import Errors
from kafka.utils.time import Time
from kafka.utils.topic_partition import TopicPartition


class GroupState(Enum):
    """The state names are Kafka's: DescribeGroups and ListGroups send them as strings."""

    EMPTY = "Empty"
    PREPARING_REBALANCE = "PreparingRebalance"
    COMPLETING_REBALANCE = "CompletingRebalance"
    STABLE = "Stable"
    DEAD = "Dead"

    def __str__(self) -> str:
        return self.value


# The states each state may be entered from (Kafka's GroupState.validPreviousStates).
VALID_PREVIOUS_STATES: dict[GroupState, set[GroupState]] = {
    GroupState.EMPTY: {GroupState.PREPARING_REBALANCE},
    GroupState.PREPARING_REBALANCE: {GroupState.STABLE, GroupState.COMPLETING_REBALANCE, GroupState.EMPTY},
    GroupState.COMPLETING_REBALANCE: {GroupState.PREPARING_REBALANCE},
    GroupState.STABLE: {GroupState.COMPLETING_REBALANCE},
    GroupState.DEAD: set(GroupState),
}


class GroupMetadata:
    def __init__(self, group_id: str, initial_state: GroupState, time: Time) -> None:
        self.group_id = group_id
        self.state = initial_state
        self.time = time
        self.current_state_timestamp_ms = time.milliseconds()
        self.lock = threading.RLock()
        self.generation_id = 0
        self.protocol_type: str | None = None
        self.protocol_name: str | None = None
        self.leader_id: str | None = None
        self.members: dict[str, MemberMetadata] = {}
        self.static_members: dict[str, str] = {}  # group.instance.id -> member id
        self.pending_members: set[str] = set()  # got MEMBER_ID_REQUIRED, not joined yet
        self.num_members_awaiting_join = 0
        self.supported_protocols: dict[str, int] = {}  # protocol name -> how many members support it
        # A member joined during the first rebalance: InitialDelayedJoin waits another delay for more.
        self.new_member_added = False
        self.subscribed_topics: set[str] | None = None
        self.offsets: dict[TopicPartition, OffsetAndMetadata] = {}
        self.pending_offset_commits: dict[TopicPartition, int] = {}  # appends in flight per partition
        # Where in __consumer_offsets each committed offset was written: a transaction that ends
        # later must not replace a commit written after its own (see CommitRecordMetadataAndOffset).
        self.offset_commit_positions: dict[TopicPartition, int] = {}
        # producer id -> the offsets its open transaction committed, invisible until it ends.
        self.pending_transactional_offset_commits: dict[int, dict[TopicPartition, CommitRecordMetadataAndOffset]] = {}

    # ------------------------------------------------------------------ state
    def is_state(self, state: GroupState) -> bool:
        return self.state is state

    def can_rebalance(self) -> bool:
        return self.state in VALID_PREVIOUS_STATES[GroupState.PREPARING_REBALANCE]

    def transition_to(self, target: GroupState) -> None:
        if self.state not in VALID_PREVIOUS_STATES[target]:
            raise RuntimeError(f"group {self.group_id} cannot move from {self.state} to {target}")
        self.state = target
        self.current_state_timestamp_ms = self.time.milliseconds()

    # ------------------------------------------------------------------ members
    def has(self, member_id: str) -> bool:
        return member_id in self.members

    def get(self, member_id: str) -> MemberMetadata:
        return self.members[member_id]

    def is_leader(self, member_id: str) -> bool:
        return self.leader_id == member_id

    def size(self) -> int:
        return len(self.members)

    def is_empty(self) -> bool:
        return not self.members

    def generate_member_id(self, client_id: str, group_instance_id: str | None) -> str:
        # Kafka's shape: "<client.id or group.instance.id>-<uuid>", which makes logs readable.
        return f"{group_instance_id or client_id}-{uuid.uuid4()}"

    def add(self, member: MemberMetadata, callback: JoinCallback | None = None) -> None:
        if member.group_instance_id is not None:
            self.static_members[member.group_instance_id] = member.member_id
        if not self.members:
            self.protocol_type = member.protocol_type
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

    def update_member(self, member: MemberMetadata, protocols: list[tuple[str, bytes]],
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

    def _count_protocols(self, member: MemberMetadata, delta: int) -> None:
        for name in member.protocols():
            self.supported_protocols[name] = self.supported_protocols.get(name, 0) + delta

    def maybe_invoke_join_callback(self, member: MemberMetadata, result) -> None:
        if member.is_awaiting_join:
            callback, member.awaiting_join_callback = member.awaiting_join_callback, None
            self.num_members_awaiting_join -= 1
            callback(result)

    def maybe_invoke_sync_callback(self, member: MemberMetadata, result) -> bool:
        if member.is_awaiting_sync:
            callback, member.awaiting_sync_callback = member.awaiting_sync_callback, None
            callback(result)
            return True
        return False

    def validate_member(self, member_id: str, group_instance_id: str | None) -> Errors | None:
        """The member exists, and if it claims a group.instance.id it is the current holder of it
        (Kafka's ClassicGroup.validateMember)."""
        if group_instance_id is not None:
            current = self.get_static_member_id(group_instance_id)
            if current is not None and current != member_id:
                return Errors.FENCED_INSTANCE_ID  # a newer instance with the same id replaced this one
        if not self.has(member_id):
            return Errors.UNKNOWN_MEMBER_ID
        return None

    # ------------------------------------------------------------------ static membership (KIP-345)
    def get_static_member_id(self, group_instance_id: str) -> str | None:
        return self.static_members.get(group_instance_id)

    def replace_static_member(self, group_instance_id: str, old_member_id: str, new_member_id: str,
                              fenced_result) -> MemberMetadata:
        """A restarted static member takes over its old entry -- and its assignment -- under a
        new member id. Anyone still waiting under the old id is fenced."""
        member = self.members.pop(old_member_id)
        self.maybe_invoke_join_callback(member, fenced_result("join"))
        self.maybe_invoke_sync_callback(member, fenced_result("sync"))
        member.member_id = new_member_id
        self.members[new_member_id] = member
        if self.is_leader(old_member_id):
            self.leader_id = new_member_id
        self.static_members[group_instance_id] = new_member_id
        return member

    # ------------------------------------------------------------------ rebalance
    def has_all_members_joined(self) -> bool:
        return len(self.members) == self.num_members_awaiting_join and not self.pending_members

    def not_yet_rejoined_members(self) -> list[MemberMetadata]:
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
        if self.is_state(GroupState.EMPTY):
            return bool(member_protocol_type) and bool(member_protocols)
        return (self.protocol_type == member_protocol_type
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
            self.transition_to(GroupState.COMPLETING_REBALANCE)
        else:
            self.protocol_name = None
            self.subscribed_topics = self.compute_subscribed_topics()
            self.transition_to(GroupState.EMPTY)

    def current_member_metadata(self) -> list[dict]:
        """What the leader's JoinGroup response carries: every member's chosen-protocol metadata."""
        return [dict(member_id=m.member_id, group_instance_id=m.group_instance_id,
                     metadata=m.metadata(self.protocol_name))
                for m in self.members.values()]

    def compute_subscribed_topics(self) -> set[str] | None:
        """The topics the members subscribe to, read from their ConsumerProtocolSubscription;
        None (unknown) for a non-consumer group or unreadable metadata."""
        if self.protocol_type != CONSUMER_PROTOCOL_TYPE or self.protocol_name is None:
            return None if self.members else set()
        topics: set[str] = set()
        try:
            for member in self.members.values():
                topics.update(deserialize_subscription(member.metadata(self.protocol_name)).topics)
        except Exception:  # a client's metadata we cannot parse: be safe, assume "everything"
            return None
        return topics

    def is_subscribed_to_topic(self, topic: str) -> bool:
        return self.subscribed_topics is None or topic in self.subscribed_topics

    # ------------------------------------------------------------------ offsets
    def prepare_offset_commit(self, offsets: dict[TopicPartition, OffsetAndMetadata]) -> None:
        for tp in offsets:
            self.pending_offset_commits[tp] = self.pending_offset_commits.get(tp, 0) + 1

    def complete_offset_commit(self, tp: TopicPartition, offset: OffsetAndMetadata | None,
                               appended_batch_offset: int | None = None) -> None:
        """The append of one commit finished: store it (None: it failed) and stop counting it."""
        if offset is not None:
            self._put_committed(tp, CommitRecordMetadataAndOffset(appended_batch_offset, offset))
        remaining = self.pending_offset_commits.get(tp, 0) - 1
        if remaining > 0:
            self.pending_offset_commits[tp] = remaining
        else:
            self.pending_offset_commits.pop(tp, None)

    def _put_committed(self, tp: TopicPartition, commit: CommitRecordMetadataAndOffset) -> None:
        """Kafka's invariant: the committed offset is the one written last to the log."""
        position = self.offset_commit_positions.get(tp)
        if tp in self.offsets and position is not None and commit.appended_batch_offset is not None:
            if not CommitRecordMetadataAndOffset(position, self.offsets[tp]).older_than(commit):
                return  # a commit written after this one is already in place
        self.offsets[tp] = commit.offset_and_metadata
        if commit.appended_batch_offset is None:
            self.offset_commit_positions.pop(tp, None)
        else:
            self.offset_commit_positions[tp] = commit.appended_batch_offset

    def initialize_offsets(self, committed: dict[TopicPartition, CommitRecordMetadataAndOffset],
                           pending_txn: dict[int, dict[TopicPartition, CommitRecordMetadataAndOffset]]) -> None:
        """What a load found: the committed offsets and, per producer, those of unfinished transactions."""
        for tp, commit in committed.items():
            self._put_committed(tp, commit)
        for producer_id, offsets in pending_txn.items():
            self.pending_transactional_offset_commits.setdefault(producer_id, {}).update(offsets)

    # ------------------------------------------------------------------ transactional offsets (KIP-98)
    def prepare_txn_offset_commit(self, producer_id: int, offsets: dict[TopicPartition, OffsetAndMetadata]) -> None:
        """TxnOffsetCommit: the offsets are pending for this producer from now, before the append ends,
        so a require_stable OffsetFetch already answers UNSTABLE_OFFSET_COMMIT."""
        pending = self.pending_transactional_offset_commits.setdefault(producer_id, {})
        for tp, offset in offsets.items():
            pending[tp] = CommitRecordMetadataAndOffset(None, offset)

    def on_txn_offset_commit_append(self, producer_id: int, tp: TopicPartition,
                                    commit: CommitRecordMetadataAndOffset) -> None:
        """The transactional batch is in the log: remember where, unless a later commit of the same
        transaction replaced it meanwhile."""
        pending = self.pending_transactional_offset_commits.get(producer_id)
        if pending is not None and tp in pending and pending[tp].offset_and_metadata == commit.offset_and_metadata:
            pending[tp] = commit

    def fail_pending_txn_offset_commit(self, producer_id: int, tp: TopicPartition) -> None:
        pending = self.pending_transactional_offset_commits.get(producer_id)
        if pending is None:
            return  # the partition moved to another broker meanwhile
        pending.pop(tp, None)
        if not pending:
            del self.pending_transactional_offset_commits[producer_id]

    def complete_pending_txn_offset_commit(self, producer_id: int, is_commit: bool) -> None:
        """The producer's marker reached our partition: its offsets become committed, or go."""
        pending = self.pending_transactional_offset_commits.pop(producer_id, {})
        if not is_commit:
            return
        for tp, commit in pending.items():
            if commit.appended_batch_offset is None:
                # The producer waits for TxnOffsetCommit's answer before it sends EndTxn.
                raise RuntimeError(f"transactional offset for {tp} of producer {producer_id} committed "
                                   "before its append completed")
            self._put_committed(tp, commit)

    def has_pending_offset_commits_for_topic_partition(self, tp: TopicPartition) -> bool:
        """What makes a require_stable OffsetFetch answer UNSTABLE_OFFSET_COMMIT for this partition."""
        return tp in self.pending_offset_commits or any(
            tp in pending for pending in self.pending_transactional_offset_commits.values())

    def has_offsets(self) -> bool:
        return bool(self.offsets) or bool(self.pending_offset_commits) or bool(
            self.pending_transactional_offset_commits)

    def remove_offsets(self, partitions) -> dict[TopicPartition, OffsetAndMetadata]:
        partitions = list(partitions)
        for tp in partitions:
            self.pending_offset_commits.pop(tp, None)
            self.offset_commit_positions.pop(tp, None)
            for pending in self.pending_transactional_offset_commits.values():
                pending.pop(tp, None)
        return {tp: self.offsets.pop(tp) for tp in partitions if tp in self.offsets}

    def remove_expired_offsets(self, now_ms: int, retention_ms: int) -> dict[TopicPartition, OffsetAndMetadata]:
        """offsets.retention.minutes: an Empty group's offsets expire that long after it became
        empty; a Stable consumer group's offsets of topics it no longer subscribes to expire that
        long after their last commit; a group that only commits (no protocol) counts from each commit."""
        if self.protocol_type is not None and self.is_state(GroupState.EMPTY):
            return self._expire(now_ms, retention_ms, lambda o: self.current_state_timestamp_ms, set())
        if (self.protocol_type == CONSUMER_PROTOCOL_TYPE and self.subscribed_topics is not None
                and self.is_state(GroupState.STABLE)):
            return self._expire(now_ms, retention_ms, lambda o: o.commit_timestamp_ms, self.subscribed_topics)
        if self.protocol_type is None:
            return self._expire(now_ms, retention_ms, lambda o: o.commit_timestamp_ms, set())
        return {}

    def _expire(self, now_ms: int, retention_ms: int, base, subscribed: set[str]) -> dict:
        expired = {}
        for tp, offset in self.offsets.items():
            if tp.topic in subscribed or tp in self.pending_offset_commits:
                continue
            if offset.expire_timestamp_ms >= 0:
                due = now_ms >= offset.expire_timestamp_ms
            else:
                due = now_ms - base(offset) >= retention_ms
            if due:
                expired[tp] = offset
        for tp in expired:
            del self.offsets[tp]
            self.offset_commit_positions.pop(tp, None)
        return expired

    # ------------------------------------------------------------------ persistence
    def to_record_value(self, assignment: dict[str, bytes]) -> dict:
        """GroupMetadataValue's fields for this generation, with the given assignment."""
        return dict(
            protocol_type=self.protocol_type or "",
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
    def load_group(cls, group_id: str, value, offsets: dict[TopicPartition, OffsetAndMetadata],
                   time: Time) -> GroupMetadata:
        """Rebuild a group from its last GroupMetadataValue (Kafka's GroupMetadata.loadGroup):
        Stable with its members if it had any, else Empty."""
        state = GroupState.STABLE if value.members else GroupState.EMPTY
        group = cls(group_id, state, time)
        group.generation_id = value.generation
        group.protocol_type = value.protocol_type or None
        group.protocol_name = value.protocol
        group.leader_id = value.leader
        if value.current_state_timestamp >= 0:
            group.current_state_timestamp_ms = value.current_state_timestamp
        for m in value.members:
            member = MemberMetadata(m.member_id, m.group_instance_id, m.client_id, m.client_host,
                                    m.rebalance_timeout if m.rebalance_timeout >= 0 else m.session_timeout,
                                    m.session_timeout, value.protocol_type,
                                    [(value.protocol, bytes(m.subscription))], bytes(m.assignment))
            group.add(member)
        group.subscribed_topics = group.compute_subscribed_topics()
        group.offsets = dict(offsets)
        return group

    def __repr__(self) -> str:
        return (f"GroupMetadata(group_id={self.group_id}, generation={self.generation_id}, "
                f"protocol_type={self.protocol_type}, state={self.state}, members={list(self.members)})")
