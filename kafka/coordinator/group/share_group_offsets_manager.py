"""ShareGroupOffsetsManager: what an admin may do to a share group's offsets, in one shard -- the part of
Kafka's GroupMetadataManager behind AlterShareGroupOffsets, DeleteShareGroupOffsets and the deletion of
a share group (alterShareGroupOffsets, sharePartitionsEligibleForOffsetDeletion,
completeDeleteShareGroupOffsets, shareGroupBuildPartitionDeleteRequest), with the GroupCoordinatorShard
methods around them (initiateDeleteShareGroupOffsets, sharePartitionDeleteRequests).

A share group commits no offsets. Where each of its share partitions starts is kept by the share
coordinator; this coordinator keeps only, in the group's ShareGroupStatePartitionMetadata record, which
partitions have that state (initialized), are getting it (initializing) or are losing it (deleting).
So each change is made as Kafka makes it, in steps: a write here records what is about to change and
returns what to ask the persister; the service asks it (ShareGroupOffsetsService); a last write records
the outcome:

    alter         the partitions become initializing; the persister initializes them at the new
                  start offsets; then they are initialized, as a heartbeat's would be
    delete        the topics move from initialized to deleting; the persister deletes their state;
                  then they are forgotten (complete_delete_share_group_offsets)
    delete group  everything becomes deleting; the persister deletes it; then DeleteGroups' usual
                  tombstones remove the group and its record

Only an empty share group may be changed (NON_EMPTY_GROUP): a member's share partitions would
otherwise read from state moving under them. A refused request writes nothing.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord
from kafka.coordinator.common.runtime.coordinator_result import CoordinatorResult
from kafka.coordinator.group.group import ApiError
from kafka.coordinator.group.modern.share.share_group import InitMapValue, ShareGroup, combine_init_maps
from kafka.coordinator.group.share_group_manager import ShareGroupManager
from kafka.coordinator.group.share_group_state_partition_metadata import (
    InitializeShareGroupStateParameters,
    new_share_group_state_partition_metadata_record,
)
from kafka.protocol.errors import Errors

ZERO_UUID = uuid.UUID(int=0)  # Kafka's Uuid.ZERO_UUID: the id of a topic nobody knows
NO_OFFSET_INFORMATION = "There is no offset information to delete."


@dataclass(frozen=True)
class DeleteShareGroupStateParameters:
    """Kafka's DeleteShareGroupStateParameters: the partitions whose share state the persister deletes."""

    group_id: str
    topic_partitions: dict[uuid.UUID, list[int]]


@dataclass(frozen=True)
class DeleteShareGroupOffsetsResultHolder:
    """Kafka's GroupCoordinatorShard.DeleteShareGroupOffsetsResultHolder: a group-level refusal, or the
    topics refused already and what to ask the persister to delete (None: nothing)."""

    error: Errors = Errors.NONE
    error_message: str | None = None
    error_topic_responses: list[dict] = field(default_factory=list)
    delete_state: DeleteShareGroupStateParameters | None = None


def partition_response(partition: int, error: Errors = Errors.NONE) -> dict:
    """An AlterShareGroupOffsetsResponsePartition."""
    return dict(partition_index=partition, error_code=error,
                error_message=None if error == Errors.NONE else error.message)


def topic_response(name: str, topic_id: uuid.UUID, error: Errors = Errors.NONE,
                   message: str | None = None) -> dict:
    """A DeleteShareGroupOffsetsResponseTopic."""
    return dict(topic_name=name, topic_id=topic_id, error_code=error,
                error_message=message if message is not None or error == Errors.NONE else error.message)


class ShareGroupOffsetsManager:
    def __init__(self, share: ShareGroupManager) -> None:
        self.share = share  # the share groups of this shard, and their ShareGroupStatePartitionMetadata
        self.state = share.state

    def share_group(self, group_id: str) -> ShareGroup:
        """Kafka's GroupMetadataManager.shareGroup: GROUP_ID_NOT_FOUND for none or another type."""
        group = self.share.groups.get(group_id)
        if group is None:
            raise ApiError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} not found.")
        if not isinstance(group, ShareGroup):
            raise ApiError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a share group.")
        return group

    # ------------------------------------------------------------------ AlterShareGroupOffsets
    def alter_share_group_offsets(self, group_id: str,
                                  topics: dict[str, dict[int, int]]) -> CoordinatorResult:
        """Kafka's alterShareGroupOffsets: ``topics`` maps a topic name to {partition: new start offset}.
        The partitions of known topics become initializing; the answer is the response's topics and
        what to ask the persister to initialize, at the group's epoch. A group that does not exist yet
        is created by the record (an admin may set where a group starts before it ever runs)."""
        group = self.share.get_or_maybe_create_share_group(group_id, create=True)
        if group.members:  # Kafka's throwIfShareGroupIsNotEmpty
            raise ApiError(Errors.NON_EMPTY_GROUP)
        now = self.share.time.milliseconds()
        image = self.share.topics_image()
        responses: list[dict] = []
        initializing: dict[uuid.UUID, InitMapValue] = {}
        offsets: dict[uuid.UUID, dict[int, int]] = {}
        for name, partitions in topics.items():
            if name not in image:
                responses.append(dict(topic_name=name, topic_id=ZERO_UUID, partitions=[
                    partition_response(p, Errors.UNKNOWN_TOPIC_OR_PARTITION) for p in partitions]))
                continue
            topic_id, count = image[name]
            known = {p: start for p, start in partitions.items() if 0 <= p < count}
            offsets.setdefault(topic_id, {}).update(known)
            initializing[topic_id] = InitMapValue(name, frozenset(known), now)
            responses.append(dict(topic_name=name, topic_id=topic_id, partitions=[
                partition_response(p, Errors.NONE if p in known else Errors.UNKNOWN_TOPIC_OR_PARTITION)
                for p in partitions]))
        records: list[CoordinatorRecord] = []
        self.state.add_initializing_topics_records(group_id, records, initializing)
        return CoordinatorResult(records, (responses, InitializeShareGroupStateParameters(
            group_id, group.group_epoch, {t: o for t, o in offsets.items() if o})))

    # ------------------------------------------------------------------ DeleteShareGroupOffsets
    def initiate_delete_share_group_offsets(self, group_id: str, topic_names: list[str]
                                            ) -> CoordinatorResult[DeleteShareGroupOffsetsResultHolder]:
        """Kafka's GroupCoordinatorShard.initiateDeleteShareGroupOffsets: the topics with share state
        become deleting; the answer says what to ask the persister to delete."""
        try:
            self.share_group(group_id).validate_delete_group()
        except ApiError as e:
            return CoordinatorResult([], DeleteShareGroupOffsetsResultHolder(e.error, e.message))
        records: list[CoordinatorRecord] = []
        errors: list[dict] = []
        to_delete = self.share_partitions_eligible_for_offset_deletion(group_id, topic_names, errors, records)
        return CoordinatorResult(records, DeleteShareGroupOffsetsResultHolder(
            Errors.NONE, None, errors, DeleteShareGroupStateParameters(group_id, to_delete) if to_delete
            else None))

    def share_partitions_eligible_for_offset_deletion(self, group_id: str, topic_names: list[str],
                                                      errors: list[dict], records: list[CoordinatorRecord]
                                                      ) -> dict[uuid.UUID, list[int]]:
        """Kafka's sharePartitionsEligibleForOffsetDeletion: an initialized topic's partitions are to be
        deleted and it moves to deleting; a topic deleting already is asked again, every partition; any
        other topic is UNKNOWN_TOPIC_OR_PARTITION. A group without the record deletes nothing."""
        info = self.state.get(group_id)
        if info is None:
            return {}
        initialized = dict(info.initialized_topics)
        deleting = set(info.deleting_topics)
        image = self.share.topics_image()
        to_delete: dict[uuid.UUID, list[int]] = {}
        for name in topic_names:
            if name not in image:
                errors.append(topic_response(name, ZERO_UUID, Errors.UNKNOWN_TOPIC_OR_PARTITION))
            elif (topic_id := image[name][0]) in initialized:
                to_delete[topic_id] = sorted(initialized.pop(topic_id).partitions)
                deleting.add(topic_id)
            elif topic_id in deleting:
                to_delete[topic_id] = list(range(image[name][1]))
            else:
                errors.append(topic_response(name, ZERO_UUID, Errors.UNKNOWN_TOPIC_OR_PARTITION,
                                             NO_OFFSET_INFORMATION))
        records.append(new_share_group_state_partition_metadata_record(
            group_id, info.initializing_topics, initialized, self.state.attach_topic_name(deleting)))
        return to_delete

    def complete_delete_share_group_offsets(self, group_id: str, topics: dict[uuid.UUID, str],
                                            error_topic_responses: list[dict]) -> CoordinatorResult:
        """Kafka's completeDeleteShareGroupOffsets: the persister deleted these topics' state, so they
        are no longer deleting; the answer is their responses, then the topics refused before."""
        info = self.state.get(group_id)
        if info is None:
            return CoordinatorResult([], list(error_topic_responses))
        deleting = set(info.deleting_topics) - topics.keys()
        record = new_share_group_state_partition_metadata_record(
            group_id, info.initializing_topics, info.initialized_topics,
            self.state.attach_topic_name(deleting))
        return CoordinatorResult([record],
                                 [topic_response(name, topic_id) for topic_id, name in topics.items()]
                                 + list(error_topic_responses))

    # ------------------------------------------------------------------ DeleteGroups of share groups
    def share_partition_delete_requests(self, group_ids: list[str]) -> CoordinatorResult:
        """Kafka's GroupCoordinatorShard.sharePartitionDeleteRequests: for each empty share group, its
        share state's partitions become deleting and are returned for the persister; a share group with
        members is NON_EMPTY_GROUP; any other id is left to DeleteGroups' usual path."""
        records: list[CoordinatorRecord] = []
        requests: dict[str, tuple[DeleteShareGroupStateParameters | None, Errors]] = {}
        for group_id in group_ids:
            try:
                self.share_group(group_id).validate_delete_group()
            except ApiError as e:
                if e.error == Errors.NON_EMPTY_GROUP:
                    requests[group_id] = (None, Errors.NON_EMPTY_GROUP)
                continue
            parameters = self.share_group_build_partition_delete_request(group_id, records)
            if parameters is not None:
                requests[group_id] = (parameters, Errors.NONE)
        return CoordinatorResult(records, requests)

    def share_group_build_partition_delete_request(self, group_id: str, records: list[CoordinatorRecord]
                                                   ) -> DeleteShareGroupStateParameters | None:
        """Kafka's shareGroupBuildPartitionDeleteRequest: every initialized and initializing partition,
        and every partition of a topic still deleting from an earlier attempt, is written as deleting."""
        info = self.state.get(group_id)
        if info is None:
            return None
        candidates = combine_init_maps(info.initialized_topics, info.initializing_topics)
        by_id = {topic_id: (name, count) for name, (topic_id, count) in self.share.topics_image().items()}
        retry = {t: InitMapValue(by_id[t][0], frozenset(range(by_id[t][1]))) for t in info.deleting_topics
                 if t in by_id}
        if len(retry) < len(info.deleting_topics):
            self.share.log.warning("deleting topics of a share group not in the metadata image",
                                   group_id=group_id,
                                   topics=sorted(str(t) for t in info.deleting_topics if t not in by_id))
        candidates = combine_init_maps(candidates, retry)
        records.append(new_share_group_state_partition_metadata_record(
            group_id, {}, {}, {t: v.name for t, v in candidates.items()}))
        if not candidates:
            return None
        return DeleteShareGroupStateParameters(group_id,
                                               {t: sorted(v.partitions) for t, v in candidates.items()})
