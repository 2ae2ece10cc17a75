"""ReplicaFetcherThread: a follower broker copying partitions from their leader (Kafka's
kafka.server.ReplicaFetcherThread).

The loop, the truncation rule and the error handling are AbstractFetcherThread's; this class says
what the follower's side of each step is, in terms of its ReplicaManager's Partitions:

    the local log      the Partition's end offsets, latest epoch and epoch end offsets (never
                       its log directly)
    truncate           Partition.truncate_to (the leader-epoch cache follows the log)
    process data       Partition.append_records_to_follower: the leader's batches with their
                       offsets and epochs, then the follower's HW follows the leader's; the log
                       start offset follows the leader's too (retention, DeleteRecords)
    tiered storage     the leader has our fetch offset only remotely: the TierStateMachine builds our
                       state from there and we fetch from its local log start (KIP-405)
"""

from __future__ import annotations

from kafka.server.abstract_fetcher_thread import AbstractFetcherThread
from kafka.server.remote_leader_end_point import RemoteLeaderEndPoint
from kafka.server.tier_state_machine import TierStateMachine
from kafka.utils.time import Time
from kafka.utils.topic_partition import TopicPartition


class ReplicaFetcherThread(AbstractFetcherThread):
    def __init__(self, name: str, leader: RemoteLeaderEndPoint, replica_manager, backoff_ms: int,
                 time: Time) -> None:
        super().__init__(name, leader, backoff_ms, time)
        self.replica_manager = replica_manager
        self.tier_state_machine = TierStateMachine(leader, replica_manager)

    def _partition(self, tp: TopicPartition):
        partition = self.replica_manager.get_partition(tp)
        if partition is None:
            raise KeyError(f"{tp} is no longer hosted here")
        return partition

    def latest_epoch(self, tp: TopicPartition) -> int:
        return self._partition(tp).latest_epoch

    def log_start_offset(self, tp: TopicPartition) -> int:
        return self._partition(tp).log_start_offset

    def log_end_offset(self, tp: TopicPartition) -> int:
        return self._partition(tp).log_end_offset

    def high_watermark(self, tp: TopicPartition) -> int:
        return self._partition(tp).high_watermark

    def end_offset_for_epoch(self, tp: TopicPartition, epoch: int) -> tuple[int, int]:
        return self._partition(tp).last_offset_for_leader_epoch(-1, epoch, fetch_only_from_leader=False)

    def truncate(self, tp: TopicPartition, offset: int) -> None:
        self._partition(tp).truncate_to(offset)

    def truncate_fully_and_start_at(self, tp: TopicPartition, offset: int) -> None:
        self._partition(tp).truncate_fully_and_start_at(offset)

    def process_partition_data(self, tp: TopicPartition, fetch_offset: int, data) -> int:
        records = data.records or b""
        next_offset = self._partition(tp).append_records_to_follower(records, data.high_watermark,
                                                                     data.log_start_offset)
        self.replica_manager.record_follower_append(tp, len(records))
        return next_offset
