"""Partition: one topic-partition's replica on this broker, leader or follower (Kafka's
kafka.cluster.Partition).

It holds the local log, the replica set, the in-sync replicas (ISR) and the leader epoch, and it
owns the rule for the high watermark (seed 004): the HW is the smallest log end offset among the
in-sync replicas, so a record below it is on every ISR member and is "committed". Consumers read
only below the HW; an acks=all produce is answered once the HW passes its last offset.

Who leads is the controller's decision (seed 004, KRaft): the broker's metadata publisher calls
make_leader or make_follower with the partition's state from the metadata log (leader, leader
epoch, replicas, ISR, partition epoch).

As leader:
    append_records_to_leader   min.insync.replicas (the log's config) checked against the ISR,
                               then the local append
    fetch_records              consumers and followers read; a fetch that names the epoch of its
                               last fetched batch (last_fetched_epoch) is checked against this
                               log's epochs first, and one whose log has diverged gets only the
                               DivergingEpoch (where that epoch ends here); a follower's fetch
                               offset is its log end offset, so update_follower_fetch_state learns
                               how far it got -- from an agreeing fetch only
    maybe_increment_leader_hw  HW = min(LEO of every ISR member), frozen while the ISR is under min ISR
    maybe_expand_isr           a follower that reached the HW (and this epoch's start), in a fetch
                               that named this leader epoch, rejoins the ISR (isFollowerInSync)
    maybe_shrink_isr           one not caught up for replica.lag.time.max.ms leaves it
ISR changes are not the leader's to make: it proposes one with AlterPartition to the controller and
keeps counting the larger of the two ISRs toward the HW until the answer or the metadata log settles
it (Kafka's PendingExpandIsr / PendingShrinkIsr): a record is never called committed on fewer
replicas than the controller might still think are in sync.

As follower: append_records_to_follower copies the leader's batches (offsets and epochs kept); truncate_to
drops a tail the leader does not have (the ReplicaFetcherThread decides where, from a DivergingEpoch
answer or OffsetsForLeaderEpoch). The fetcher learns all it needs of the local log from here (its end
offsets, its latest epoch and where each epoch ends): nothing above the Partition touches the log.
"""

from __future__ import annotations

import threading

import structlog

from kafka.log.append_origin import AppendOrigin
from kafka.log.errors import OffsetOutOfRangeError, UnexpectedAppendOffsetError
from kafka.log.fetch_isolation import FetchIsolation
from kafka.log.leader_epoch_file_cache import UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
from kafka.log.log_append_info import LogAppendInfo
from kafka.log.unified_log import UnifiedLog
from kafka.protocol.errors import Errors
from kafka.protocol.messages.fetch import DEBUGGING_REPLICA_ID
from kafka.server.fetch_partition_data import EpochEndOffset
from kafka.server.log_read_info import LogReadInfo, next_offset_after
from kafka.server.partition_errors import NotEnoughReplicasError, PartitionError
from kafka.server.replica import Replica
from kafka.utils.time import Time
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.cluster.Partition")

NO_LEADER = -1


class Partition:
    def __init__(self, topic_partition: TopicPartition, log: UnifiedLog, local_broker_id: int,
                 time: Time, replica_lag_time_max_ms: int = 30000,
                 alter_partition_manager=None, listener=None) -> None:
        self.topic_partition = topic_partition
        self.log = log
        self.local_broker_id = local_broker_id
        self.time = time
        self.replica_lag_time_max_ms = replica_lag_time_max_ms
        self.alter_partition_manager = alter_partition_manager  # None (tests): ISR changes are local
        self.listener = listener  # ReplicaManager: ISR-change metrics, and HW moves outside a request
        self.assigned_replicas = [local_broker_id]
        self.isr: frozenset[int] = frozenset({local_broker_id})
        self.pending_isr: frozenset[int] | None = None  # proposed to the controller, not yet committed
        self.leader_id = NO_LEADER  # no leadership until the controller's state arrives
        self.leader_epoch = -1
        self.partition_epoch = -1
        self.leader_epoch_start_offset = -1
        self.remote_replicas: dict[int, Replica] = {}  # the followers, as this leader sees them
        self.leader_isr_update_lock = threading.RLock()
        # Kafka's PartitionListeners (the coordinator runtime's): told when the HW moves, and once when this
        # replica stops leading (on_failed) or is deleted (on_deleted), after which they are dropped.
        self.listeners: tuple = ()

    @property
    def topic(self) -> str:
        return self.topic_partition.topic

    @property
    def is_leader(self) -> bool:
        return self.leader_id == self.local_broker_id

    @property
    def maximal_isr(self) -> frozenset[int]:
        """The ISR that counts for the HW: the committed one and any proposed additions."""
        return self.isr | self.pending_isr if self.pending_isr is not None else self.isr

    @property
    def is_under_replicated(self) -> bool:
        return self.is_leader and len(self.isr) < len(self.assigned_replicas)

    @property
    def min_insync_replicas(self) -> int:
        """min.insync.replicas as the log's config has it now (a config change applies at once)."""
        return self.log.config.min_insync_replicas

    @property
    def effective_min_isr(self) -> int:
        """Kafka's effectiveMinIsr: min.insync.replicas, at most the replicas there are."""
        return min(self.min_insync_replicas, max(1, len(self.assigned_replicas)))

    @property
    def is_under_min_isr(self) -> bool:
        return self.is_leader and len(self.isr) < self.effective_min_isr

    @property
    def is_at_min_isr(self) -> bool:
        return self.is_leader and len(self.isr) == self.effective_min_isr

    # ------------------------------------------------------------------ leadership (from the controller)
    def make_leader(self, state) -> bool:
        """Become (or stay) leader with the controller's replicas, ISR and epochs (a PartitionState).
        True if this is a new leadership (a new leader epoch)."""
        with self.leader_isr_update_lock:
            if self._is_stale(state, "leader"):
                return False
            now = self.time.milliseconds()
            is_new_leader = not self.is_leader or state.leader_epoch != self.leader_epoch
            if is_new_leader:
                # Record where this epoch starts before anything is appended in it: a follower asking
                # where the previous epoch ended gets this offset (OffsetsForLeaderEpoch, DivergingEpoch).
                self.leader_epoch_start_offset = start_offset = self.log.log_end_offset
                if state.leader_epoch >= self.log.latest_epoch:
                    self.log.maybe_assign_epoch_start_offset(state.leader_epoch, start_offset)
                else:  # a stale leadership (a restart replaying old metadata): keep the newer epochs
                    log.warning("not recording an epoch older than the log's latest",
                                partition=str(self.topic_partition), leader_epoch=state.leader_epoch,
                                latest_epoch=self.log.latest_epoch)
                log.info("became leader", partition=str(self.topic_partition),
                         leader_epoch=state.leader_epoch, isr=sorted(state.isr),
                         log_end_offset=self.log.log_end_offset, high_watermark=self.log.high_watermark)
            previous_isr = self.isr
            self._update_assignment_and_isr(state, now, reset_followers=is_new_leader)
            self.leader_id = self.local_broker_id
            self.leader_epoch = state.leader_epoch
            if not is_new_leader and self.isr != previous_isr and self.listener is not None:
                # The metadata log brought the ISR change first (our AlterPartition's answer may follow).
                self.listener.on_isr_change(self.topic_partition, shrink=len(self.isr) < len(previous_isr))
            self.maybe_increment_leader_hw()
            return is_new_leader

    def make_follower(self, state) -> bool:
        """Follow state.leader. True if the leader or its epoch changed: the fetcher must start over
        (truncate, then fetch from the new leader)."""
        with self.leader_isr_update_lock:
            if self._is_stale(state, "follower"):
                return False
            changed = state.leader != self.leader_id or state.leader_epoch != self.leader_epoch
            if self.is_leader and state.leader != self.local_broker_id:
                self._drop_listeners(lambda listener: listener.on_failed(self.topic_partition))
            self._update_assignment_and_isr(state, self.time.milliseconds(), reset_followers=True)
            self.remote_replicas = {}
            self.leader_id = state.leader
            self.leader_epoch = state.leader_epoch
            return changed

    def _is_stale(self, state, role: str) -> bool:
        """Kafka's makeLeader/makeFollower check: a state older than our partition epoch (an AlterPartition
        answer gets here before the metadata log) would put back an ISR the controller has since grown,
        and the HW would be counted without it. The same epoch is applied: our own change, by the log."""
        if state.partition_epoch >= self.partition_epoch:
            return False
        log.info("skipped a state older than our partition epoch", partition=str(self.topic_partition),
                 become=role, state_partition_epoch=state.partition_epoch,
                 partition_epoch=self.partition_epoch)
        return True

    def _update_assignment_and_isr(self, state, now_ms: int, reset_followers: bool) -> None:
        self.assigned_replicas = list(state.replicas)
        if state.partition_epoch != self.partition_epoch:
            self.pending_isr = None  # whatever we proposed has been decided, one way or the other
        self.isr = frozenset(state.isr)
        self.partition_epoch = state.partition_epoch
        followers = {}
        for broker_id in self.assigned_replicas:
            if broker_id == self.local_broker_id:
                continue
            replica = self.remote_replicas.get(broker_id)
            if replica is None or reset_followers:
                replica = Replica(broker_id)
                replica.reset(now_ms, in_sync=broker_id in self.isr)
            followers[broker_id] = replica
        self.remote_replicas = followers

    @property
    def high_watermark(self) -> int:
        return self.log.high_watermark

    @property
    def log_start_offset(self) -> int:
        return self.log.log_start_offset

    @property
    def log_end_offset(self) -> int:
        return self.log.log_end_offset

    @property
    def latest_epoch(self) -> int:
        """The newest leader epoch in the local log's epoch cache (-1: none yet)."""
        return self.log.latest_epoch

    @property
    def last_stable_offset(self) -> int:
        """min(first unstable offset, HW): what read_committed consumers may read up to (KIP-98)."""
        return self.log.last_stable_offset

    @property
    def last_stable_offset_lag(self) -> int:
        """The LastStableOffsetLag gauge: HW - LSO, what an open transaction holds back."""
        return max(0, self.log.high_watermark - self.log.last_stable_offset)

    # ------------------------------------------------------------------ produce path
    def append_records_to_leader(self, records: bytes, required_acks: int,
                                 origin: AppendOrigin = AppendOrigin.CLIENT) -> tuple[LogAppendInfo, bool]:
        """Append to the local log; returns (LogAppendInfo, whether the high watermark moved)."""
        with self.leader_isr_update_lock:
            if not self.is_leader:  # became a follower after the caller looked (Kafka checks under this lock)
                raise PartitionError(Errors.NOT_LEADER_OR_FOLLOWER,
                                     f"broker {self.local_broker_id} no longer leads {self.topic_partition}")
            min_insync_replicas = self.effective_min_isr
            if required_acks == -1 and len(self.isr) < min_insync_replicas:
                raise NotEnoughReplicasError(
                    f"the ISR {sorted(self.isr)} of {self.topic_partition} is smaller than "
                    f"min.insync.replicas={min_insync_replicas}")
            info = self.log.append_as_leader(records, leader_epoch=self.leader_epoch, origin=origin)
            hw_moved = self.maybe_increment_leader_hw()
        return info, hw_moved

    def maybe_increment_leader_hw(self) -> bool:
        """Move the HW up to the smallest log end offset in the (maximal) ISR. True if it moved. A
        follower whose log end offset is unknown (no fetch since this leadership began) holds the HW
        where it is: it may be missing anything above it."""
        with self.leader_isr_update_lock:
            if not self.is_leader:
                return False
            if self.is_under_min_isr:  # Kafka 4 (KIP-966): what a shrunken ISR alone holds is not committed
                return False
            ends = [self.log.log_end_offset]
            for broker_id in self.maximal_isr:
                if broker_id != self.local_broker_id:
                    replica = self.remote_replicas.get(broker_id)
                    ends.append(replica.log_end_offset if replica is not None else -1)
            new_hw = min(ends)
            if new_hw > self.log.high_watermark:
                self._update_high_watermark(new_hw)
                return True
            return False

    def _update_high_watermark(self, offset: int) -> None:
        hw = self.log.update_high_watermark(offset)
        for listener in self.listeners:  # under the lock, as Kafka's are: they may only hand the news on
            listener.on_high_watermark_updated(self.topic_partition, hw)

    def maybe_add_listener(self, listener) -> bool:
        """Kafka's maybeAddListener: always taken here (the ReplicaManager checks the partition is hosted)."""
        with self.leader_isr_update_lock:
            self.listeners = (*self.listeners, listener)
            return True

    def remove_listener(self, listener) -> None:
        with self.leader_isr_update_lock:
            self.listeners = tuple(known for known in self.listeners if known != listener)

    def delete(self) -> None:
        """This broker no longer hosts the partition (Kafka's Partition.delete): listeners hear it once."""
        with self.leader_isr_update_lock:
            self._drop_listeners(lambda listener: listener.on_deleted(self.topic_partition))

    def _drop_listeners(self, notify) -> None:
        listeners, self.listeners = self.listeners, ()
        for listener in listeners:
            notify(listener)

    def check_enough_replicas_reach_offset(self, required_offset: int) -> tuple[bool, Errors]:
        """Has every in-sync replica got everything below required_offset? (DelayedProduce asks.)"""
        with self.leader_isr_update_lock:
            if not self.is_leader:  # leadership moved while the produce waited: the client retries there
                return True, Errors.NOT_LEADER_OR_FOLLOWER
            if self.log.high_watermark >= required_offset:
                # Committed; but if the ISR shrank below min.insync.replicas meanwhile, the records
                # are on fewer replicas than the producer asked for (Kafka answers the same way).
                if len(self.maximal_isr) < self.effective_min_isr:
                    return True, Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND
                return True, Errors.NONE
            return False, Errors.NONE

    # ------------------------------------------------------------------ fetch path
    def check_leader_epoch(self, current_leader_epoch: int, require_leader: bool = True) -> None:
        """Kafka's validateCurrentLeaderEpoch: a request that names a leader epoch must name ours."""
        if require_leader and not self.is_leader:
            raise PartitionError(Errors.NOT_LEADER_OR_FOLLOWER,
                                 f"broker {self.local_broker_id} does not lead {self.topic_partition}")
        if current_leader_epoch < 0:
            return
        if current_leader_epoch < self.leader_epoch:
            raise PartitionError(Errors.FENCED_LEADER_EPOCH, f"epoch {current_leader_epoch} is older than "
                                 f"{self.leader_epoch} of {self.topic_partition}")
        if current_leader_epoch > self.leader_epoch:
            raise PartitionError(Errors.UNKNOWN_LEADER_EPOCH, f"epoch {current_leader_epoch} is newer than "
                                 f"{self.leader_epoch} of {self.topic_partition}")

    def fetch_records(self, replica_id: int, fetch_offset: int, current_leader_epoch: int, max_bytes: int,
                      min_one_message: bool, zero_copy: bool = False, isolation: FetchIsolation | None = None,
                      last_fetched_epoch: int = -1) -> tuple[LogReadInfo, bool]:
        """Kafka's Partition.fetchRecords: validate, read, and for a follower's fetch record how far it
        has got. Returns (what was read, whether that moved the HW). A follower whose log diverged (the
        answer carries diverging_epoch) has told us nothing about how far it has got: its fetch offset
        is past the end of its last epoch here, so its fetch state, the ISR and the HW are left as they
        were until it has truncated and fetched again."""
        with self.leader_isr_update_lock:
            self.check_leader_epoch(current_leader_epoch, require_leader=replica_id != DEBUGGING_REPLICA_ID)
            is_follower = replica_id >= 0
            if is_follower and replica_id not in self.remote_replicas:
                # Kafka's followerReplicaOrThrow: a fetch naming this leader epoch from a broker we do not
                # know as a replica yet (a reassignment adding it, seen there first) is asked to retry.
                raise PartitionError(Errors.UNKNOWN_LEADER_EPOCH if current_leader_epoch >= 0
                                     else Errors.NOT_LEADER_OR_FOLLOWER,
                                     f"broker {replica_id} is not a replica of {self.topic_partition}")
            if isolation is None or is_follower:
                isolation = FetchIsolation.LOG_END if is_follower else FetchIsolation.HIGH_WATERMARK
            diverging = self.diverging_epoch(fetch_offset, last_fetched_epoch)
        if diverging is not None:
            return self._diverging_read(diverging), False
        read = self.read_records(fetch_offset, max_bytes, isolation, min_one_message=min_one_message,
                                 zero_copy=zero_copy)
        if not is_follower:
            return read, False
        return read, self.update_follower_fetch_state(replica_id, fetch_offset, read.log_end_offset,
                                                      current_leader_epoch)

    def diverging_epoch(self, fetch_offset: int, last_fetched_epoch: int) -> EpochEndOffset | None:
        """Kafka's readRecords check of lastFetchedEpoch (KIP-320, KIP-595): does the fetcher's log
        agree with this one up to fetch_offset? Its last batch was written in last_fetched_epoch, so
        this log must know that epoch, and the epoch must not end here before fetch_offset. If it
        does, None; if not, (the largest epoch <= last_fetched_epoch here, where it ends): the
        fetcher truncates to there (or further back, and asks again). -1: the fetcher does not say
        (an older client, or a follower with no epochs), and nothing is checked."""
        if last_fetched_epoch < 0:
            return None
        epoch, end_offset = self.log.end_offset_for_epoch(last_fetched_epoch)
        if epoch == UNDEFINED_EPOCH or end_offset == UNDEFINED_EPOCH_OFFSET:
            raise OffsetOutOfRangeError(f"{self.topic_partition}: cannot find where the last fetched epoch "
                                        f"{last_fetched_epoch} ends")
        if fetch_offset < self.log.log_start_offset:  # before the log, whether or not the epochs agree
            raise OffsetOutOfRangeError(f"{self.topic_partition}: offset {fetch_offset} is before the log "
                                        f"start offset {self.log.log_start_offset}")
        if epoch < last_fetched_epoch or end_offset < fetch_offset:
            return EpochEndOffset(epoch, end_offset)
        return None

    def _diverging_read(self, diverging: EpochEndOffset) -> LogReadInfo:
        """The answer to a diverged fetcher: no records, the offsets as they are, and where its epoch ends."""
        log = self.log
        return LogReadInfo(b"", log.high_watermark, log.log_start_offset, log.log_end_offset,
                           log.last_stable_offset, diverging_epoch=diverging)

    def read_records(self, fetch_offset: int, max_bytes: int, isolation: FetchIsolation,
                     min_one_message: bool, zero_copy: bool = False) -> LogReadInfo:
        """Read whole batches from fetch_offset: followers to the log end, consumers to the HW, and
        read_committed consumers to the last stable offset, with the aborted transactions among what
        they read (Kafka's collectAbortedTransactions: the consumer drops those records itself).
        With zero_copy the records are a FileRecords slice for the network thread to sendfile."""
        log = self.log
        # The LSO first: it can only grow, so taken before the HW it never passes the HW read after.
        last_stable_offset = log.last_stable_offset
        high_watermark = log.high_watermark
        log_end_offset = log.log_end_offset
        bound = (high_watermark if isolation is FetchIsolation.HIGH_WATERMARK
                 else last_stable_offset if isolation is FetchIsolation.TXN_COMMITTED
                 else None)  # LOG_END, a follower: up to the log end
        data = log.read(fetch_offset, max_bytes, isolation_max_offset=bound,
                        min_one_message=min_one_message, zero_copy=zero_copy)
        records = data.records if zero_copy else bytes(data.records)
        aborted = None
        if isolation is FetchIsolation.TXN_COMMITTED:
            # Only those overlapping what was read, as Kafka bounds them by the fetched bytes' end.
            end = next_offset_after(records)
            aborted = log.collect_aborted_transactions(fetch_offset, end) if end is not None else []
        return LogReadInfo(records, high_watermark, log.log_start_offset, log_end_offset, last_stable_offset,
                           aborted, data.fetch_offset_metadata)

    def update_follower_fetch_state(self, replica_id: int, fetch_offset: int, leader_end_offset: int,
                                    current_leader_epoch: int) -> bool:
        """A follower fetched from fetch_offset (so it has everything below). True if the HW moved."""
        with self.leader_isr_update_lock:
            replica = self.remote_replicas.get(replica_id)
            if replica is None or not self.is_leader:
                return False
            replica.update_fetch_state(fetch_offset, leader_end_offset, self.time.milliseconds())
            if current_leader_epoch == self.leader_epoch:  # only a fetch checked against this leadership
                self.maybe_expand_isr(replica)
            return self.maybe_increment_leader_hw()

    def last_offset_for_leader_epoch(self, current_leader_epoch: int, leader_epoch: int,
                                     fetch_only_from_leader: bool = True) -> tuple[int, int]:
        """OffsetsForLeaderEpoch: (epoch, end offset) of `leader_epoch` in this replica's log. A
        follower's fetcher asks its own replica (fetch_only_from_leader=False, no epoch to check)."""
        self.check_leader_epoch(current_leader_epoch, require_leader=fetch_only_from_leader)
        epoch, end_offset = self.log.end_offset_for_epoch(leader_epoch)
        return epoch, end_offset

    # ------------------------------------------------------------------ ISR changes
    def maybe_expand_isr(self, replica: Replica) -> None:
        """A follower outside the ISR that is in sync again rejoins it (Kafka's maybeExpandIsr)."""
        if self.pending_isr is not None or replica.broker_id in self.isr:
            return
        if self.is_follower_in_sync(replica):
            log.info("expanding ISR", partition=str(self.topic_partition), isr=sorted(self.isr),
                     adding=replica.broker_id, follower_log_end_offset=replica.log_end_offset,
                     high_watermark=self.log.high_watermark)
            self._alter_isr(self.isr | {replica.broker_id}, shrink=False)  # the caller recomputes the HW

    def is_follower_in_sync(self, replica: Replica) -> bool:
        """Kafka's isFollowerInSync: the follower's log reaches the HW and the start of this leader
        epoch. The second matters after a failover: a new leader's HW can lag its log, and a follower
        holding only what the HW covers may still miss records the previous leader committed."""
        return (self.leader_epoch_start_offset >= 0 and replica.log_end_offset >= self.log.high_watermark
                and replica.log_end_offset >= self.leader_epoch_start_offset)

    def maybe_shrink_isr(self) -> None:
        """Drop the followers that have not been caught up for replica.lag.time.max.ms (the leader
        runs this every half of that interval, Kafka's isr-expiration task)."""
        with self.leader_isr_update_lock:
            hw_moved = self._shrink_lagging_followers()
        if hw_moved and self.listener is not None:  # outside the lock, as Kafka completes delayed requests
            self.listener.on_high_watermark_moved(self.topic_partition)

    def _shrink_lagging_followers(self) -> bool:
        if not self.is_leader or self.pending_isr is not None:
            return False
        if self.isr == {self.local_broker_id}:  # alone in the ISR (one broker: always): nobody to drop
            return False
        now = self.time.milliseconds()
        lagging = self.out_of_sync_replicas(now)
        if not lagging:
            return False
        log.info("shrinking ISR", partition=str(self.topic_partition), isr=sorted(self.isr),
                 out_of_sync=sorted(lagging), high_watermark=self.log.high_watermark,
                 log_end_offset=self.log.log_end_offset,
                 followers={r.broker_id: dict(log_end_offset=r.log_end_offset,
                                              last_caught_up_ms_ago=now - r.last_caught_up_time_ms)
                            for r in self.remote_replicas.values() if r.broker_id in lagging})
        return self._alter_isr(self.isr - lagging, shrink=True)

    def out_of_sync_replicas(self, now_ms: int) -> set[int]:
        """Kafka's Partition.getOutOfSyncReplicas: the followers in the ISR that have not been caught up
        (Replica.last_caught_up_time_ms) for more than replica.lag.time.max.ms. Time, not records: a
        follower that stopped fetching and one that fetches but never reaches the end both qualify;
        one exactly replica.lag.time.max.ms behind does not yet. The leader itself never lags."""
        # BEGIN LAB 07 SOLUTION: ISR followers last caught up more than replica.lag.time.max.ms before now_ms
        followers = {broker_id: replica for broker_id, replica in self.remote_replicas.items()
                     if broker_id in self.isr and broker_id != self.local_broker_id}
        return {broker_id for broker_id, replica in followers.items()
                if now_ms - replica.last_caught_up_time_ms > self.replica_lag_time_max_ms}
        # END LAB 07 SOLUTION

    def _alter_isr(self, new_isr: frozenset[int], shrink: bool) -> bool:
        """Propose new_isr to the controller. True if the HW moved at once (no controller to ask)."""
        if self.alter_partition_manager is None:  # a Partition on its own (in-process tests)
            return self._commit_isr(frozenset(new_isr), self.partition_epoch, shrink)
        self.pending_isr = frozenset(new_isr)
        self._submit_alter_partition(self.pending_isr, shrink, self.leader_epoch, self.partition_epoch)
        return False

    def _submit_alter_partition(self, proposed: frozenset[int], shrink: bool, leader_epoch: int,
                                partition_epoch: int) -> None:
        self.alter_partition_manager.submit(
            self.topic_partition, leader_epoch, sorted(proposed), partition_epoch,
            lambda result, error: self._handle_alter_partition_response(proposed, shrink, leader_epoch,
                                                                        partition_epoch, result, error))

    def _handle_alter_partition_response(self, proposed: frozenset[int], shrink: bool, leader_epoch: int,
                                         partition_epoch: int, result, error: Errors) -> None:
        """The controller's answer (on the channel's thread), taken as Kafka's Partition takes it.
        Accepted: the ISR is the proposal. INELIGIBLE_REPLICA, OPERATION_NOT_ATTEMPTED (the controller
        changed nothing): the proposal is dropped. REQUEST_TIMED_OUT (no answer): asked again. Any other
        refusal (FENCED_LEADER_EPOCH, INVALID_UPDATE_VERSION: the controller has moved on): it stays,
        counted toward the HW, until the metadata log brings the controller's state. An expansion the
        controller committed but whose answer was lost is in its ISR: dropping it would count the HW
        without a follower the controller may elect."""
        retry = False
        with self.leader_isr_update_lock:
            if self.pending_isr != proposed:  # the metadata publisher decided in the meantime
                return
            accepted = error == Errors.NONE and result is not None
            if accepted and result.partition_epoch < self.partition_epoch:
                return  # an answer older than the state we hold: the metadata log got here first
            if accepted:
                self.pending_isr = None
                hw_moved = self._commit_isr(frozenset(result.isr), result.partition_epoch, shrink)
            else:
                if error in (Errors.INELIGIBLE_REPLICA, Errors.OPERATION_NOT_ATTEMPTED):
                    self.pending_isr = None
                retry = error == Errors.REQUEST_TIMED_OUT
                log.warning("ISR change refused", partition=str(self.topic_partition),
                            proposed=sorted(proposed), error=error.name, retrying=retry,
                            still_pending=self.pending_isr is not None)
        if retry:
            self._submit_alter_partition(proposed, shrink, leader_epoch, partition_epoch)
        if self.listener is None:
            return
        if not accepted:
            self.listener.on_failed_isr_update(self.topic_partition)
        elif hw_moved:
            self.listener.on_high_watermark_moved(self.topic_partition)

    def _commit_isr(self, isr: frozenset[int], partition_epoch: int, shrink: bool) -> bool:
        """The ISR change is decided. True if the HW moved (a shrink drops whoever held it back)."""
        self.isr = isr
        self.partition_epoch = partition_epoch
        log.info("ISR updated", partition=str(self.topic_partition), isr=sorted(self.isr),
                 partition_epoch=self.partition_epoch)
        if self.listener is not None:
            self.listener.on_isr_change(self.topic_partition, shrink)
        return self.maybe_increment_leader_hw()

    # ------------------------------------------------------------------ follower path
    def append_records_to_follower(self, records: bytes, leader_high_watermark: int,
                                   leader_log_start_offset: int) -> int:
        """Copy the batches the leader sent (offsets and epochs kept); returns the new log end offset,
        the next fetch offset. The HW and log start offset follow the leader's, never past our log end."""
        if records:
            try:
                self.log.append_as_follower(records)
            except UnexpectedAppendOffsetError as e:
                # The leader's log start offset is inside a batch (DeleteRecords), and this is our first
                # append there: start our log at that batch's base offset instead (as Kafka does).
                log_end_offset = self.log.log_end_offset
                empty = log_end_offset == self.log.log_start_offset
                if not (empty and e.first_offset < log_end_offset <= e.last_offset):
                    raise
                log.info("starting the log at the first batch's offset", partition=str(self.topic_partition),
                         log_start_offset=log_end_offset, batch_base_offset=e.first_offset)
                self.log.truncate_fully_and_start_at(e.first_offset)
                self.log.append_as_follower(records)
        if leader_high_watermark > self.log.high_watermark:
            self._update_high_watermark(leader_high_watermark)
        if leader_log_start_offset > self.log.log_start_offset:  # retention or DeleteRecords on the leader
            self.log.maybe_increment_log_start_offset(min(leader_log_start_offset, self.log.high_watermark))
        return self.log.log_end_offset

    def truncate_to(self, offset: int) -> None:
        """Cut the log at `offset` (UnifiedLog.truncate_to cuts its epoch cache even with nothing to cut)."""
        if offset < self.log.log_end_offset:
            log.info("truncating", partition=str(self.topic_partition),
                     log_end_offset=self.log.log_end_offset, to=offset)
        self.log.truncate_to(offset)

    def truncate_fully_and_start_at(self, offset: int, log_start_offset: int | None = None) -> None:
        """Empty the log and start it at `offset`: the leader's log starts past ours, or is remote below."""
        log.info("truncating fully", partition=str(self.topic_partition),
                 log_end_offset=self.log.log_end_offset, start_at=offset)
        self.log.truncate_fully_and_start_at(offset, log_start_offset)

    # ------------------------------------------------------------------ idempotent producers
    def active_producer_state(self) -> list[dict]:
        """DescribeProducers: the producers with state in this replica's log (Kafka's
        activeProducerState), as the response's ProducerState entries."""
        return [dict(producer_id=entry.producer_id, producer_epoch=entry.producer_epoch,
                     last_sequence=entry.last_seq, last_timestamp=entry.last_timestamp,
                     coordinator_epoch=entry.coordinator_epoch,
                     current_txn_start_offset=(-1 if entry.current_txn_first_offset is None
                                               else entry.current_txn_first_offset))
                for entry in self.log.active_producers()]

    @property
    def producer_id_count(self) -> int:
        return self.log.producer_id_count

    def last_fetchable_offset(self, isolation: FetchIsolation) -> int:
        """How far this reader may read: the log end, the HW or (read_committed) the LSO (Kafka's)."""
        return {FetchIsolation.LOG_END: self.log.log_end_offset, FetchIsolation.HIGH_WATERMARK:
                self.log.high_watermark, FetchIsolation.TXN_COMMITTED: self.log.last_stable_offset}[isolation]

    def fetch_offset_for_timestamp(self, timestamp: int, isolation: FetchIsolation, remote_reader=None):
        """ListOffsets: (timestamp, offset). -1: the last fetchable offset; -2 the earliest, -4 the earliest
        local, even of an empty log. A tiered log's lookup by time returns the future of its answer."""
        last_fetchable = self.last_fetchable_offset(isolation)
        if timestamp == -1:
            return -1, last_fetchable
        found = self.log.fetch_offset_by_timestamp(timestamp, remote_reader)
        if found is None or not isinstance(found, tuple):  # none, or a lookup on the remote reader pool
            return (-1, -1) if found is None else found
        found_timestamp, offset = found
        if offset >= last_fetchable and timestamp not in (-2, -4):
            return -1, -1
        return found_timestamp, offset
