"""OffsetMetadataManager: who may commit a group's offsets, and what a fetch or a delete answers
(Kafka's org.apache.kafka.coordinator.group.OffsetMetadataManager, the offsets half of the
GroupCoordinator that Kafka split out of it).

Seed 000: the offset manager "only needs to talk to the Replica Manager for handling offset
commits". The talking is the GroupMetadataManager's (``group_metadata_manager.py``: the records in
__consumer_offsets and the group cache); this class holds the request handlers on top of it:

    OffsetCommit  -> commit_offset: a member of the current generation, or a "simple" commit
                     (generation -1) while the group is Empty -> GroupMetadataManager.store_offsets
    TxnOffsetCommit -> txn_commit_offsets: the same checks (KIP-447: generation and member id when
                     given; a KIP-848 group's member epoch), written as the producer's transactional
                     batch, pending until its marker
    OffsetFetch   -> fetch_offsets: answered in any group state
    OffsetDelete  -> delete_offsets: not for topics a live consumer group still reads
    DeleteGroups  -> delete_all_offsets: the GroupCoordinator decides which groups may go

Membership stays the GroupCoordinator's: a commit is validated against the group's members
(GroupMetadata.validate_member) and counts as their heartbeat (the HeartbeatScheduler it is given).
"""

from __future__ import annotations

from collections.abc import Callable

from kafka.coordinator.group_metadata import GroupMetadata, GroupState
from kafka.coordinator.group_metadata_manager import GroupMetadataManager, PartitionOffset
from kafka.coordinator.heartbeat_scheduler import HeartbeatScheduler
from kafka.coordinator.member_metadata import UNKNOWN_MEMBER_ID
from kafka.coordinator.offset_and_metadata import OffsetAndMetadata
from kafka.protocol.errors import Errors
from kafka.utils.time import Time
from kafka.utils.topic_partition import TopicPartition


class OffsetMetadataManager:
    def __init__(self, group_manager: GroupMetadataManager, heartbeats: HeartbeatScheduler, time: Time) -> None:
        self.group_manager = group_manager
        self.heartbeats = heartbeats
        self.time = time
        # (transactional_id, producer_id, producer_epoch, offsets partition) -> None if that partition
        # of __consumer_offsets is in the producer's ongoing transaction, else the error to answer
        # TxnOffsetCommit with (INVALID_TXN_STATE, PRODUCER_FENCED...). Set by the broker's wiring from
        # the transaction coordinator; None: not checked (Kafka before KIP-890 did not check either).
        self.transaction_verifier: Callable[[str, int, int, int], Errors | None] | None = None
        # KIP-848 groups (the ConsumerGroupManager): their members commit with member epochs
        self.consumer_groups = None

    # ------------------------------------------------------------------ OffsetCommit
    def commit_offset(self, group_id: str, member_id: str, group_instance_id: str | None,
                      generation_id: int, offsets: dict[TopicPartition, OffsetAndMetadata],
                      response_callback: Callable[[dict[TopicPartition, Errors]], None], api_version: int = 9) -> None:
        error = self.group_manager.validate_group_status(group_id, allow_empty_id=True)
        if error is not None:
            response_callback({tp: error for tp in offsets})
            return
        consumer_group = self.consumer_groups.consumer_group(group_id) if self.consumer_groups else None
        if consumer_group is not None:
            self.commit_consumer_group_offset(consumer_group, member_id, generation_id, offsets, response_callback,
                                              api_version)
            return
        group = self.group_manager.get_group(group_id)
        if group is None:
            if generation_id >= 0:  # a member of a group we do not know: an old generation
                response_callback({tp: Errors.ILLEGAL_GENERATION for tp in offsets})
                return
            # Not using group management (the admin tool's reset, a manual assign): a "simple" group.
            group = self.group_manager.add_group(GroupMetadata(group_id, GroupState.EMPTY, self.time))
        with group.lock:
            error = self.validate_offset_commit(group, generation_id, member_id, group_instance_id)
            if error is None and group.is_state(GroupState.COMPLETING_REBALANCE):
                # Valid member and generation, but the assignment is not out yet: retry after SyncGroup.
                error = Errors.REBALANCE_IN_PROGRESS
            if error is not None:
                response_callback({tp: error for tp in offsets})
                return
            if group.has(member_id):  # a commit is a sign of life too
                self.heartbeats.complete_and_schedule_next_heartbeat_expiration(group, group.get(member_id))
            self.group_manager.store_offsets(group, offsets, response_callback)

    def commit_consumer_group_offset(self, consumer_group, member_id: str, member_epoch: int,
                                     offsets: dict[TopicPartition, OffsetAndMetadata],
                                     response_callback: Callable[[dict[TopicPartition, Errors]], None],
                                     api_version: int) -> None:
        """A KIP-848 group's commit: checked against the member's epoch (ConsumerGroup.validate_offset_commit),
        stored through the classic group that holds the group's offsets."""
        with self.consumer_groups.lock:
            error = consumer_group.validate_offset_commit(member_id, member_epoch, False, api_version)
        if error is not None:
            response_callback({tp: error for tp in offsets})
            return
        self.group_manager.store_offsets(self.offsets_holder(consumer_group.group_id), offsets, response_callback)

    def offsets_holder(self, group_id: str) -> GroupMetadata:
        """The classic GroupMetadata, with no members, that holds a consumer group's committed and
        pending offsets: what OffsetFetch reads and a transaction's marker completes."""
        return self.group_manager.get_group(group_id) or self.group_manager.add_group(
            GroupMetadata(group_id, GroupState.EMPTY, self.time))

    def validate_offset_commit(self, group: GroupMetadata, generation_id: int, member_id: str,
                               group_instance_id: str | None) -> Errors | None:
        if group.is_state(GroupState.DEAD):
            return Errors.COORDINATOR_NOT_AVAILABLE
        if generation_id < 0 and group.is_state(GroupState.EMPTY):
            return None  # the admin client, or a consumer without group management
        if generation_id >= 0 or member_id != UNKNOWN_MEMBER_ID or group_instance_id is not None:
            error = group.validate_member(member_id, group_instance_id)
            if error is None and generation_id != group.generation_id:
                error = Errors.ILLEGAL_GENERATION
            if error is None and group.is_state(GroupState.COMPLETING_REBALANCE):
                # The member has its new generation but not yet its assignment: whatever it commits
                # now may be a partition that SyncGroup is about to give someone else (as Kafka does).
                error = Errors.REBALANCE_IN_PROGRESS
            return error
        return Errors.UNKNOWN_MEMBER_ID  # only members may commit for a group that has members

    # ------------------------------------------------------------------ TxnOffsetCommit
    def txn_commit_offsets(self, group_id: str, transactional_id: str, producer_id: int, producer_epoch: int,
                           member_id: str, group_instance_id: str | None, generation_id: int,
                           offsets: dict[TopicPartition, OffsetAndMetadata],
                           response_callback: Callable[[dict[TopicPartition, Errors]], None],
                           api_version: int = 3) -> None:
        """Kafka's GroupCoordinator.handleTxnCommitOffsets: the offsets a transactional producer sends
        with its transaction (consume-transform-produce), answered once they are in the log."""
        error = self.group_manager.validate_group_status(group_id, allow_empty_id=True)
        if error is None and self.transaction_verifier is not None:
            # The group's partition must be in the producer's transaction (AddOffsetsToTxn), or its
            # batch would open a transaction no marker will ever close.
            error = self.transaction_verifier(transactional_id, producer_id, producer_epoch,
                                                          self.group_manager.partition_for(group_id))
        if error is not None:
            response_callback({tp: error for tp in offsets})
            return
        consumer_group = self.consumer_groups.consumer_group(group_id) if self.consumer_groups else None
        if consumer_group is not None:
            self.txn_commit_consumer_group_offsets(consumer_group, producer_id, producer_epoch, member_id,
                                                   group_instance_id, generation_id, offsets, response_callback,
                                                   api_version)
            return
        group = self.group_manager.get_group(group_id)
        if group is None:
            if generation_id >= 0:  # a member of a group we do not know (GROUP_ID_NOT_FOUND from v6)
                response_callback({tp: Errors.ILLEGAL_GENERATION for tp in offsets})
                return
            group = self.group_manager.add_group(GroupMetadata(group_id, GroupState.EMPTY, self.time))
        with group.lock:
            error = self.validate_txn_offset_commit(group, generation_id, member_id, group_instance_id)
            if error is not None:
                response_callback({tp: error for tp in offsets})
                return
            self.group_manager.store_offsets(group, offsets, response_callback, producer_id, producer_epoch)

    def txn_commit_consumer_group_offsets(self, consumer_group, producer_id: int, producer_epoch: int,
                                          member_id: str, group_instance_id: str | None, member_epoch: int,
                                          offsets: dict[TopicPartition, OffsetAndMetadata],
                                          response_callback: Callable[[dict[TopicPartition, Errors]], None],
                                          api_version: int) -> None:
        """A KIP-848 group's TxnOffsetCommit (Kafka's validateTransactionalOffsetCommit): the member id
        and the member epoch its consumer last heard from ConsumerGroupHeartbeat, in the request's
        generation id. Then the offsets go the way of every transactional commit, pending in the
        classic group that holds the group's offsets until the transaction's marker commits them."""
        with self.consumer_groups.lock:
            error = consumer_group.validate_offset_commit(member_id, member_epoch, True, api_version,
                                                          group_instance_id)
        if error == Errors.STALE_MEMBER_EPOCH and api_version < 6:
            error = Errors.ILLEGAL_GENERATION  # TxnOffsetCommit knows STALE_MEMBER_EPOCH from v6 only
        if error is not None:
            response_callback({tp: error for tp in offsets})
            return
        self.group_manager.store_offsets(self.offsets_holder(consumer_group.group_id), offsets, response_callback,
                                         producer_id, producer_epoch)

    def validate_txn_offset_commit(self, group: GroupMetadata, generation_id: int, member_id: str,
                                   group_instance_id: str | None) -> Errors | None:
        """Kafka's validateOffsetCommit with isTransactional: before v3 the request names no member,
        so a group with members accepts it; a member that names itself must be current. Generation -1
        while the group is Empty is a simple commit, whatever member id it names (as OffsetCommit's)."""
        if group.is_state(GroupState.DEAD):
            return Errors.COORDINATOR_NOT_AVAILABLE
        if generation_id < 0 and group.is_state(GroupState.EMPTY):
            return None
        if generation_id >= 0 or member_id != UNKNOWN_MEMBER_ID or group_instance_id is not None:
            error = group.validate_member(member_id, group_instance_id)
            if error is None and generation_id != group.generation_id:
                error = Errors.ILLEGAL_GENERATION
            return error
        return None

    # ------------------------------------------------------------------ OffsetFetch
    def fetch_offsets(self, group_id: str, require_stable: bool, partitions: list[TopicPartition] | None,
                      member_id: str | None = None, member_epoch: int = -1,
                      ) -> tuple[Errors, dict[TopicPartition, PartitionOffset]]:
        error = self.group_manager.validate_group_status(group_id, allow_empty_id=True)
        consumer_group = self.consumer_groups.consumer_group(group_id) if self.consumer_groups else None
        if error is None and consumer_group is not None:  # v9: a member names itself and its epoch
            with self.consumer_groups.lock:
                error = consumer_group.validate_offset_fetch(member_id, member_epoch)
        if error is not None:
            return error, {}
        # Answered whatever the group's state: a group may use Kafka for offsets alone.
        return Errors.NONE, self.group_manager.get_offsets(group_id, require_stable, partitions)

    # ------------------------------------------------------------------ OffsetDelete / DeleteGroups
    def delete_offsets(self, group_id: str, partitions: list[TopicPartition],
                       ) -> tuple[Errors, dict[TopicPartition, Errors]]:
        error = self.group_manager.validate_group_status(group_id, allow_empty_id=True)
        if error is not None:
            return error, {}
        group = self.group_manager.get_group(group_id)
        if group is None:
            return Errors.GROUP_ID_NOT_FOUND, {}
        partition_errors: dict[TopicPartition, Errors] = {}
        with group.lock:
            if group.is_state(GroupState.DEAD):
                return Errors.GROUP_ID_NOT_FOUND, {}
            if group.is_state(GroupState.EMPTY):
                eligible = list(partitions)
            elif group.protocol_type == "consumer":
                # A live consumer would commit these again at once, or lose its place: refuse.
                eligible = [tp for tp in partitions if not group.is_subscribed_to_topic(tp.topic)]
                partition_errors = {tp: Errors.GROUP_SUBSCRIBED_TO_TOPIC for tp in partitions
                                    if group.is_subscribed_to_topic(tp.topic)}
            else:
                return Errors.NON_EMPTY_GROUP, {}
        if eligible:
            self.group_manager.cleanup_group_metadata([group], lambda g: g.remove_offsets(eligible))
            partition_errors.update({tp: Errors.NONE for tp in eligible})
        return Errors.NONE, partition_errors

    def delete_all_offsets(self, groups: list[GroupMetadata]) -> int:
        """Every offset of these groups, already Dead (DeleteGroups); returns how many went."""
        return self.group_manager.cleanup_group_metadata(groups, lambda g: g.remove_offsets(list(g.offsets)))
