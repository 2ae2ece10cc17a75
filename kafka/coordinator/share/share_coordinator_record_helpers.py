"""ShareCoordinatorRecordHelpers: the records the share coordinator writes (Kafka's
org.apache.kafka.coordinator.share.ShareCoordinatorRecordHelpers).

A snapshot carries a ShareGroupOffset whole; an update the part of it a write changed; a tombstone
(a ShareSnapshotKey with no value) deletes the state.
"""

from __future__ import annotations

import uuid

from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord
from kafka.coordinator.share.share_coordinator_records import (
    ShareSnapshotKey,
    ShareSnapshotValue,
    ShareUpdateKey,
    ShareUpdateValue,
)
from kafka.coordinator.share.share_group_offset import ShareGroupOffset


def new_share_snapshot_record(group_id: str, topic_id: uuid.UUID, partition: int,
                              offset: ShareGroupOffset) -> CoordinatorRecord:
    return CoordinatorRecord(ShareSnapshotKey(group_id, topic_id, partition), ShareSnapshotValue(
        offset.snapshot_epoch, offset.state_epoch, offset.leader_epoch, offset.start_offset,
        offset.delivery_complete_count, offset.create_timestamp, offset.write_timestamp,
        tuple(offset.state_batches)))


def new_share_update_record(group_id: str, topic_id: uuid.UUID, partition: int,
                            offset: ShareGroupOffset) -> CoordinatorRecord:
    return CoordinatorRecord(ShareUpdateKey(group_id, topic_id, partition), ShareUpdateValue(
        offset.snapshot_epoch, offset.leader_epoch, offset.start_offset, offset.delivery_complete_count,
        tuple(offset.state_batches)))


def new_share_state_tombstone_record(group_id: str, topic_id: uuid.UUID, partition: int) -> CoordinatorRecord:
    return CoordinatorRecord(ShareSnapshotKey(group_id, topic_id, partition), None)
