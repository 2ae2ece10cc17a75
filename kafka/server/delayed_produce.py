"""DelayedProduce: an acks=all produce waiting for its records to be committed (Kafka's
kafka.server.DelayedProduce).

Seed 002: "While waiting for the data to be fully replicated, we don't want to tie up this I/O
thread ... we'll stash those pending produce requests into a data structure called purgatory."
The operation watches every partition it appended to. Whenever a partition's high watermark moves,
ReplicaManager calls check_and_complete on that partition's key; try_complete asks each partition
whether the HW has passed the batch's last offset. When all have (or after the request's timeout,
with REQUEST_TIMED_OUT for those that have not), on_complete hands the statuses to the callback
that KafkaApis passed down (seed 000's nested callbacks).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kafka.protocol.errors import Errors
from kafka.purgatory.delayed_operation import DelayedOperation
from kafka.utils.topic_partition import TopicPartition


@dataclass
class PartitionResponse:
    """One partition's answer to a produce (Kafka's ProduceResponse.PartitionResponse)."""

    error: Errors = Errors.NONE
    base_offset: int = -1
    log_append_time: int = -1
    log_start_offset: int = -1
    error_message: str | None = None
    record_errors: tuple[tuple[int, str], ...] = ()  # KIP-467: (index of the record in its batch, why)


@dataclass
class ProducePartitionStatus:
    required_offset: int  # the HW must reach this: the last appended offset + 1
    response: PartitionResponse
    acks_pending: bool = True


class DelayedProduce(DelayedOperation):
    def __init__(self, delay_ms: int, statuses: dict[TopicPartition, ProducePartitionStatus],
                 replica_manager,
                 response_callback: Callable[[dict[TopicPartition, PartitionResponse]], None],
                 ) -> None:
        super().__init__(delay_ms)
        self.statuses = statuses
        self.replica_manager = replica_manager
        self.response_callback = response_callback

    def try_complete(self) -> bool:
        for tp, status in self.statuses.items():
            if not status.acks_pending:
                continue
            partition = self.replica_manager.get_partition(tp)
            if partition is None:
                status.response.error = Errors.UNKNOWN_TOPIC_OR_PARTITION
                status.acks_pending = False
                continue
            has_enough, error = partition.check_enough_replicas_reach_offset(status.required_offset)
            if error != Errors.NONE:
                status.response.error = error
                status.acks_pending = False
            elif has_enough:
                status.acks_pending = False
        if any(status.acks_pending for status in self.statuses.values()):
            return False
        return self.force_complete()

    def on_expiration(self) -> None:
        self.replica_manager.record_expired_produce(
            [tp for tp, status in self.statuses.items() if status.acks_pending])

    def on_complete(self) -> None:
        for status in self.statuses.values():
            if status.acks_pending:  # only an expiry gets here with acks still pending
                status.response.error = Errors.REQUEST_TIMED_OUT
        self.response_callback({tp: status.response for tp, status in self.statuses.items()})
