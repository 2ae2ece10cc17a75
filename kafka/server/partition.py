"""Partition: one topic-partition's leader state on this broker (Kafka's kafka.cluster.Partition).

It holds the local log, the replica set, the in-sync replicas (ISR) and the leader epoch, and it
owns the rule for the high watermark (seed 004): the HW is the smallest log end offset among the
in-sync replicas, so a record below it is on every ISR member and is "committed". Consumers read
only below the HW; an acks=all produce is answered once the HW passes its last offset.

Seed 004 (KRaft): the controller decides who leads. The broker's metadata publisher calls
make_leader or make_follower with the partition's state from the metadata log (leader, leader
epoch, replicas, ISR); a follower's partition keeps its log but answers produce and fetch with
NOT_LEADER_OR_FOLLOWER, which sends clients to the leader. Followers report their log end offsets
through update_follower_fetch_state (a test plays the follower now; the replica fetchers of the
replication issue will), and maybe_increment_leader_hw recomputes the minimum.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from kafka.log.unified_log import UnifiedLog
from kafka.protocol.errors import Errors
from kafka.utils.topic_partition import TopicPartition


class NotEnoughReplicasError(Exception):
    """acks=all but the ISR is smaller than min.insync.replicas (Kafka's NotEnoughReplicasException)."""


@dataclass
class LogReadInfo:
    records: bytes
    high_watermark: int
    log_start_offset: int
    log_end_offset: int


class Partition:
    def __init__(self, topic_partition: TopicPartition, log: UnifiedLog, local_broker_id: int) -> None:
        self.topic_partition = topic_partition
        self.log = log
        self.local_broker_id = local_broker_id
        self.assigned_replicas = [local_broker_id]
        self.isr = {local_broker_id}
        self.leader_id = -1  # no leadership until the controller's state arrives
        self.leader_epoch = -1
        self.partition_epoch = -1
        # Followers' log end offsets as they last reported them in their fetches.
        self.remote_log_end_offsets: dict[int, int] = {}
        self.leader_isr_update_lock = threading.RLock()

    @property
    def topic(self) -> str:
        return self.topic_partition.topic

    @property
    def is_leader(self) -> bool:
        return self.leader_id == self.local_broker_id

    # ------------------------------------------------------------------ leadership (from the controller)
    def make_leader(self, state) -> None:
        """Become (or stay) leader with the controller's replicas, ISR and epochs (a PartitionState)."""
        with self.leader_isr_update_lock:
            self.assigned_replicas = list(state.replicas)
            self.isr = set(state.isr)
            if self.leader_id != self.local_broker_id or state.leader_epoch != self.leader_epoch:
                # A new leadership: what followers reported to an earlier leader says nothing now.
                self.remote_log_end_offsets = {r: 0 for r in self.assigned_replicas if r != self.local_broker_id}
            self.leader_id = self.local_broker_id
            self.leader_epoch = state.leader_epoch
            self.partition_epoch = state.partition_epoch
            self.maybe_increment_leader_hw()

    def make_follower(self, state) -> None:
        with self.leader_isr_update_lock:
            self.assigned_replicas = list(state.replicas)
            self.isr = set(state.isr)
            self.leader_id = state.leader
            self.leader_epoch = state.leader_epoch
            self.partition_epoch = state.partition_epoch
            self.remote_log_end_offsets = {}

    @property
    def high_watermark(self) -> int:
        return self.log.high_watermark

    # ------------------------------------------------------------------ produce path
    def append_records_to_leader(self, records: bytes, required_acks: int, min_insync_replicas: int):
        """Append to the local log; returns (LogAppendInfo, whether the high watermark moved)."""
        with self.leader_isr_update_lock:
            if required_acks == -1 and len(self.isr) < min_insync_replicas:
                raise NotEnoughReplicasError(
                    f"ISR {sorted(self.isr)} is smaller than min.insync.replicas={min_insync_replicas}")
            info = self.log.append_as_leader(records, leader_epoch=self.leader_epoch)
            hw_moved = self.maybe_increment_leader_hw()
        return info, hw_moved

    def maybe_increment_leader_hw(self) -> bool:
        """Move the HW up to the smallest log end offset in the ISR. True if it moved."""
        with self.leader_isr_update_lock:
            ends = [self.log.log_end_offset]
            ends += [self.remote_log_end_offsets.get(r, 0) for r in self.isr if r != self.local_broker_id]
            new_hw = min(ends)
            if new_hw > self.log.high_watermark:
                self.log.update_high_watermark(new_hw)
                return True
            return False

    def update_follower_fetch_state(self, replica_id: int, log_end_offset: int) -> bool:
        """A follower fetched up to log_end_offset; True if that moved the HW."""
        with self.leader_isr_update_lock:
            self.remote_log_end_offsets[replica_id] = log_end_offset
            return self.maybe_increment_leader_hw()

    def check_enough_replicas_reach_offset(self, required_offset: int) -> tuple[bool, Errors]:
        """Has every in-sync replica got everything below required_offset? (DelayedProduce asks.)"""
        with self.leader_isr_update_lock:
            if not self.is_leader:  # leadership moved while the produce waited: the client retries there
                return True, Errors.NOT_LEADER_OR_FOLLOWER
            if self.log.high_watermark >= required_offset:
                return True, Errors.NONE
            return False, Errors.NONE

    # ------------------------------------------------------------------ fetch path
    def read_records(self, fetch_offset: int, max_bytes: int, fetch_only_committed: bool,
                     min_one_message: bool) -> LogReadInfo:
        """Read whole batches from fetch_offset; consumers (fetch_only_committed) stop at the HW."""
        high_watermark = self.log.high_watermark
        bound = high_watermark if fetch_only_committed else None
        data = self.log.read(fetch_offset, max_bytes, isolation_max_offset=bound,
                             min_one_message=min_one_message)
        return LogReadInfo(bytes(data.records), high_watermark, self.log.log_start_offset,
                           self.log.log_end_offset)

    def fetch_offset_for_timestamp(self, timestamp: int, fetch_only_committed: bool) -> tuple[int, int]:
        """ListOffsets: (timestamp, offset). -1 is the latest offset a consumer may read, -2 the earliest."""
        if timestamp == -1:
            end = self.log.high_watermark if fetch_only_committed else self.log.log_end_offset
            return -1, end
        found = self.log.fetch_offset_by_timestamp(timestamp)
        if found is None:
            return -1, -1
        found_timestamp, offset = found
        if fetch_only_committed and offset >= self.log.high_watermark and timestamp != -2:
            return -1, -1
        return found_timestamp, offset
