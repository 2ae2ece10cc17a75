"""DefaultStatePersister: the Persister that keeps share-partition state in the share coordinator
(Kafka's org.apache.kafka.server.share.persister.DefaultStatePersister).

A share partition's leader calls it (SharePartition, on initialise, after acknowledgements, on a
lock's expiry); each call becomes one handler of the PersisterStateManager, which finds the share
coordinator of the key group:topicId:partition and sends it the matching *ShareGroupState request,
retrying while the coordinator moves or loads. The returned Future completes on the send thread with
the partition's answer turned into the Persister's result: an error code, or the state read. Nothing
here blocks: the caller adds a callback.

    initialize_state  -> InitializeShareGroupState    write_state   -> WriteShareGroupState
    read_state        -> ReadShareGroupState          delete_state  -> DeleteShareGroupState
    read_summary      -> ReadShareGroupStateSummary
"""

from __future__ import annotations

from concurrent.futures import Future

import structlog

from kafka.coordinator.share.share_partition_key import SharePartitionKey
from kafka.protocol.errors import Errors
from kafka.server.share.persister.persister import (
    PartitionStateKey,
    Persister,
    PersisterStateBatch,
    ReadShareGroupStateResult,
    ReadShareGroupStateSummaryResult,
)
from kafka.server.share.persister.persister_state_manager import (
    DeleteStateHandler,
    InitializeStateHandler,
    PersisterStateManager,
    PersisterStateManagerHandler,
    ReadStateHandler,
    ReadStateSummaryHandler,
    WriteStateHandler,
)
from kafka.utils.future_utils import completed, handle

log = structlog.get_logger("kafka.server.share.persister.DefaultStatePersister")

NO_DELIVERY_COMPLETE_COUNT = -1


def _invalid(key: PartitionStateKey) -> str | None:
    """Kafka's validate(): a group id, a topic id and a partition are needed."""
    if not key.group_id:
        return "groupId cannot be null or empty"
    if key.topic_id is None:
        return "topic id cannot be null"
    if key.partition < 0:
        return "partition cannot be negative"
    return None


class DefaultStatePersister(Persister):
    def __init__(self, state_manager: PersisterStateManager) -> None:
        self.state_manager = state_manager

    @classmethod
    def instance(cls, channel, cache_helper, time, timer) -> DefaultStatePersister:
        """Kafka's DefaultStatePersister.instance, as the broker builds it: `channel` an InterBrokerSendThread
        on the inter-broker listener (started here, stopped by stop()), `cache_helper` a
        ShareCoordinatorMetadataCacheHelperImpl, `timer` a running timer (a SystemTimerReaper) for the
        retries' backoff, which its owner shuts down."""
        manager = PersisterStateManager(channel, cache_helper, time, timer)
        manager.start()
        return cls(manager)

    def stop(self) -> None:
        self.state_manager.stop()

    # ------------------------------------------------------------------ the five calls
    def initialize_state(self, key: PartitionStateKey, state_epoch: int, start_offset: int) -> Future[Errors]:
        return self._error_code(key,
                                lambda k: InitializeStateHandler(self.state_manager, k, state_epoch,
                                                                 start_offset))

    def write_state(self, key: PartitionStateKey, state_epoch: int, leader_epoch: int, start_offset: int,
                    state_batches: list[PersisterStateBatch],
                    delivery_complete_count: int = NO_DELIVERY_COMPLETE_COUNT) -> Future[Errors]:
        batches = [dict(first_offset=b.first_offset, last_offset=b.last_offset,
                        delivery_state=b.delivery_state,
                        delivery_count=b.delivery_count) for b in state_batches]
        return self._error_code(key,
                                lambda k: WriteStateHandler(self.state_manager, k, state_epoch, leader_epoch,
                                                                 start_offset, delivery_complete_count,
                                                                 batches))

    def delete_state(self, key: PartitionStateKey) -> Future[Errors]:
        return self._error_code(key, lambda k: DeleteStateHandler(self.state_manager, k))

    def read_state(self, key: PartitionStateKey, leader_epoch: int) -> Future[ReadShareGroupStateResult]:
        invalid = _invalid(key)
        if invalid is not None:
            return completed(ReadShareGroupStateResult(Errors.INVALID_REQUEST, invalid, 0, -1, []))

        def result(done: Future) -> ReadShareGroupStateResult:
            r = done.result()
            if r["error_code"] != Errors.NONE:
                return ReadShareGroupStateResult(Errors(r["error_code"]), r["error_message"], 0, -1, [])
            batches = [PersisterStateBatch(b["first_offset"], b["last_offset"], b["delivery_state"],
                                           b["delivery_count"]) for b in r["state_batches"]]
            return ReadShareGroupStateResult(Errors.NONE, None, r["state_epoch"], r["start_offset"], batches)
        return handle(self._send(ReadStateHandler(self.state_manager, self._share_key(key), leader_epoch)),
                      result)

    def read_summary(self, key: PartitionStateKey,
                     leader_epoch: int) -> Future[ReadShareGroupStateSummaryResult]:
        invalid = _invalid(key)
        if invalid is not None:
            return completed(ReadShareGroupStateSummaryResult(Errors.INVALID_REQUEST, invalid, 0, -1))

        def result(done: Future) -> ReadShareGroupStateSummaryResult:
            r = done.result()
            if r["error_code"] != Errors.NONE:
                return ReadShareGroupStateSummaryResult(Errors(r["error_code"]), r["error_message"], 0, -1)
            return ReadShareGroupStateSummaryResult(Errors.NONE, None, r["state_epoch"], r["start_offset"],
                                                    leader_epoch=r["leader_epoch"],
                                                    delivery_complete_count=r["delivery_complete_count"])
        return handle(self._send(ReadStateSummaryHandler(self.state_manager, self._share_key(key),
                                                         leader_epoch)),
                      result)

    # ------------------------------------------------------------------ plumbing
    @staticmethod
    def _share_key(key: PartitionStateKey) -> SharePartitionKey:
        return SharePartitionKey(key.group_id, key.topic_id, key.partition)

    def _send(self, handler: PersisterStateManagerHandler) -> Future:
        self.state_manager.enqueue(handler)
        return handler.result

    def _error_code(self, key: PartitionStateKey, new_handler) -> Future[Errors]:
        invalid = _invalid(key)
        if invalid is not None:
            log.error("invalid persister call", key=key, reason=invalid)
            return completed(Errors.INVALID_REQUEST)
        return handle(self._send(new_handler(self._share_key(key))),
                      lambda done: Errors(done.result()["error_code"]))
