"""SharePartition's dead-letter-queue steps (Kafka's SharePartition.initiateDLQAndArchive,
maybeResumeDlqArchiving and its PersisterBatch record; KIP-1191, share.version 2).

A group with a DLQ topic archives in two steps. The SharePartition writes the records as ARCHIVING (a
PersisterBatch with a cause: the member rejected them, or their last delivery ended); once written,
`initiate_dlq_and_archive` hands them to the ShareGroupDLQManager. When the manager is done -- written,
or given up on -- they become ARCHIVED, written again, and the start offset may move past them. A new
leader that reads ARCHIVING records back starts the second step again (`resume_dlq_archiving`).

Each function takes the SharePartition (`share_partition`) and works under its lock, as its own methods
would (this module is imported by share_partition.py, so it names no type from there).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from typing import NamedTuple

import structlog

from kafka.server.share.dlq.share_group_dlq_manager import CLIENT_REJECT, DELIVERY_COUNT_EXCEEDED
from kafka.server.share.dlq.share_group_dlq_record_parameter import ShareGroupDLQRecordParameter
from kafka.server.share.in_flight_state import InFlightState
from kafka.server.share.persister.persister import PersisterStateBatch
from kafka.server.share.record_state import RecordState
from kafka.server.share.share_acknowledgement_batch import AcknowledgeType

ACK_TYPE_TO_RECORD_STATE = {AcknowledgeType.GAP: RecordState.ARCHIVED,
                            AcknowledgeType.ACCEPT: RecordState.ACKNOWLEDGED,
                            AcknowledgeType.RELEASE: RecordState.AVAILABLE,
                            AcknowledgeType.REJECT: RecordState.ARCHIVED}

log = structlog.get_logger("kafka.server.share.SharePartition")


class PersisterBatch(NamedTuple):
    """Kafka's SharePartition.PersisterBatch: a change under way, what is written for it, and why its
    records go to the dead-letter queue (None: they do not)."""

    updated_state: InFlightState
    state_batch: PersisterStateBatch
    dlq_cause: BaseException | None = None


def is_dlq_enabled_for_group(share_partition) -> bool:
    """share.version 2 is finalized and the group names a DLQ topic (Kafka's isDLQEnabledForGroup)."""
    sp = share_partition
    return sp.dlq_enabled() and sp.config_provider.errors_dlq_topic_name(sp.group_id) is not None


def record_state_with_dlq(ack_type: AcknowledgeType, dlq_enabled: bool) -> RecordState:
    """Kafka's recordStateWithDlq: the state an acknowledgement asks for; a REJECT (not a GAP, which names
    no record) archives through the DLQ when the group has one."""
    if dlq_enabled and ack_type == AcknowledgeType.REJECT:
        return RecordState.ARCHIVING
    return ACK_TYPE_TO_RECORD_STATE[ack_type]


def persister_batch(updated: InFlightState, first: int, last: int, asked: RecordState) -> PersisterBatch:
    """What to write for a change, and why its records go to the DLQ if they are ARCHIVING now: the
    member rejected them (`asked` ARCHIVING), or their last delivery was released."""
    cause = None
    if updated.state is RecordState.ARCHIVING:
        cause = CLIENT_REJECT if asked is RecordState.ARCHIVING else DELIVERY_COUNT_EXCEEDED
    batch = PersisterStateBatch(first, last, updated.state, updated.delivery_count)
    return PersisterBatch(updated, batch, cause)


def initiate_for_changes(share_partition, changes: list[PersisterBatch]) -> None:
    """The changes are written: send those going to the DLQ on their way."""
    for state, batch, cause in changes:
        if cause is not None:
            initiate_dlq_and_archive(share_partition, state.archive, batch.first_offset, batch.last_offset,
                                     batch.delivery_count, cause)


def initiate_dlq_and_archive(share_partition, archive_action: Callable[[], None], first: int,
                             last: int, delivery_count: int, cause: BaseException) -> None:
    """Hand the ARCHIVING records first..last to the DLQ manager; when it is done they become ARCHIVED."""
    sp = share_partition
    param = ShareGroupDLQRecordParameter(sp.group_id, sp.tip, first, last, delivery_count, cause)

    def dlq_done(write: Future) -> None:
        if write.exception() is not None:
            log.error("Failed to write to DLQ, proceeding to ARCHIVED regardless.", group=sp.group_id,
                      partition=str(sp.tip), error=str(write.exception()))
        with sp.lock:
            archive_action()
        archived = PersisterStateBatch(first, last, RecordState.ARCHIVED, delivery_count)
        sp._write_share_group_state([archived]).add_done_callback(archived_written)

    def archived_written(write: Future) -> None:
        if write.exception() is not None:
            log.error("Could not persist ARCHIVED state", group=sp.group_id, partition=str(sp.tip),
                      error=str(write.exception()))
        with sp.lock:
            moved = sp._maybe_update_cached_state_and_offsets()
        if moved:
            sp.delayed_request_notifier(sp)

    sp.dlq_manager.enqueue(param).add_done_callback(dlq_done)


def resume_dlq_archiving(share_partition) -> None:
    """ARCHIVING records in the state read back: the last leader did not finish them."""
    max_delivery_count = share_partition.max_delivery_count()
    for batch in share_partition.cached:
        for first, state in batch.states():
            if state.state is RecordState.ARCHIVING:
                last = batch.last_offset if batch.offset_state is None else first
                over = state.delivery_count >= max_delivery_count
                cause = DELIVERY_COUNT_EXCEEDED if over else CLIENT_REJECT
                initiate_dlq_and_archive(share_partition, state.archive, first, last, state.delivery_count,
                                         cause)
