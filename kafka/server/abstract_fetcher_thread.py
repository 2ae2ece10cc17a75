"""AbstractFetcherThread: a thread that copies partitions from one leader, truncating first (Kafka's
kafka.server.AbstractFetcherThread).

Seed 004, the write path: "followers pull". One thread per source broker loops over two steps:

    maybe_truncate   partitions that must truncate before they fetch (state Truncating) ask the
                     leader where their latest leader epoch ends (OffsetForLeaderEpoch) and cut
                     their log there (KIP-101, KIP-279). Then the partition is Fetching.
    maybe_fetch      one Fetch for every Fetching partition; the leader holds it until there is
                     something new (replica.fetch.wait.max.ms); what comes back is appended with
                     the leader's offsets, and the next fetch offset (the new log end) tells the
                     leader how far this follower has got.

Truncation on the fetch path (KIP-595's rule, in Kafka since 2.7): each partition's Fetch also names
the epoch of the last batch in its log (last_fetched_epoch). The leader checks that its own log
agrees up to the fetch offset; where it does not -- the tail a deposed leader wrote that nobody
else has -- it answers with no records and a DivergingEpoch (that epoch, and where it ends in the
leader's log), and counts nothing of this fetch. The follower truncates there and fetches on. So a
partition whose log has epochs starts Fetching at once, and the first answer does the truncating;
only a log without epochs, or a leader too old to check (Fetch below v12), takes the
OffsetForLeaderEpoch road first.

Errors are per partition and never kill the thread: a leader that cannot be reached, or that
answers from another epoch, puts the partitions it serves on hold for replica.fetch.backoff.ms
(logged), and the loop carries on. The metadata publisher removes partitions or moves them to
another fetcher when leadership changes.

Subclasses (ReplicaFetcherThread) say what "the local log" is: its end offset, latest epoch,
how to truncate it and how to append to it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace

import structlog

from kafka.log.leader_epoch_file_cache import UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
from kafka.protocol.errors import Errors
from kafka.server.remote_leader_end_point import (
    LeaderUnreachableError,
    RemoteLeaderEndPoint,
    ReplicaFetchPosition,
)
from kafka.utils.time import Time
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.server.ReplicaFetcherThread")

TRUNCATING = "Truncating"
FETCHING = "Fetching"


@dataclass
class PartitionFetchState:
    fetch_offset: int
    current_leader_epoch: int
    state: str
    delayed_until_ms: int = 0
    lag: int = 0  # the leader's high watermark minus our fetch offset, from the last response
    # The epoch of the last batch in our log (UNDEFINED_EPOCH: none), named in each Fetch when the
    # leader can check it against its own log (Fetch v12+).
    last_fetched_epoch: int = UNDEFINED_EPOCH

    def is_ready(self, now_ms: int, state: str) -> bool:
        return self.state == state and self.delayed_until_ms <= now_ms


@dataclass(frozen=True)
class OffsetTruncationState:
    offset: int
    truncation_completed: bool


class AbstractFetcherThread(threading.Thread):
    def __init__(self, name: str, leader: RemoteLeaderEndPoint, backoff_ms: int, time: Time) -> None:
        super().__init__(name=name, daemon=True)
        self.leader = leader
        self.backoff_ms = backoff_ms
        self.time = time
        self.partition_states: dict[TopicPartition, PartitionFetchState] = {}
        self._lock = threading.Condition()
        self._running = True
        # Kafka's fetchTierStateMachine: how a follower starts from a leader's tiered log (the subclass's)
        self.tier_state_machine = None

    # ------------------------------------------------------------------ the set of partitions
    def add_partitions(self, initial: dict[TopicPartition, tuple[int, int]]) -> None:
        """tp -> (initial fetch offset, current leader epoch)."""
        with self._lock:
            for tp, (offset, leader_epoch) in initial.items():
                self.partition_states[tp] = self.initial_fetch_state(tp, offset, leader_epoch)
            self._lock.notify_all()

    def initial_fetch_state(self, tp: TopicPartition, offset: int, leader_epoch: int) -> PartitionFetchState:
        """Kafka's partitionFetchState for a partition that starts following. A log with no epochs
        has nothing that could diverge: it fetches from its end. One with epochs fetches at once
        naming its latest epoch, and the leader's answer says whether to truncate; with a leader
        that cannot check (no truncation on the fetch path) it asks OffsetForLeaderEpoch first."""
        latest_epoch = self.latest_epoch(tp)
        if latest_epoch == UNDEFINED_EPOCH or self.leader.is_truncation_on_fetch_supported():
            return PartitionFetchState(offset, leader_epoch, FETCHING, last_fetched_epoch=latest_epoch)
        return PartitionFetchState(offset, leader_epoch, TRUNCATING, last_fetched_epoch=latest_epoch)

    def remove_partitions(self, tps) -> dict[TopicPartition, PartitionFetchState]:
        """Stop fetching tps; the states they had (Kafka's removePartitions), taken under the lock the
        processing of a fetch response holds, so an offset is never read halfway through an append."""
        with self._lock:
            removed = {tp: self.partition_states.pop(tp) for tp in tps if tp in self.partition_states}
        return removed

    def partition_count(self) -> int:
        with self._lock:
            return len(self.partition_states)

    def max_lag(self) -> int:
        with self._lock:
            return max((s.lag for s in self.partition_states.values()), default=0)

    # ------------------------------------------------------------------ the loop
    def run(self) -> None:
        log.info("fetcher starting", fetcher=self.name, leader=self.leader.describe())
        try:
            while self._running:
                try:
                    self.do_work()
                except Exception as e:  # never let one bad partition or answer stop the thread
                    log.exception("fetcher error; pausing its partitions", fetcher=self.name, error=repr(e))
                    with self._lock:
                        tps = list(self.partition_states)
                    self._back_off(tps, repr(e))
                    self._idle()
        finally:
            self.leader.release()
            log.info("fetcher stopped", fetcher=self.name)

    def do_work(self) -> None:
        self.maybe_truncate()
        self.maybe_fetch()

    def _ready(self, state: str) -> dict[TopicPartition, PartitionFetchState]:
        now = self.time.milliseconds()
        with self._lock:
            # copies
            return {tp: replace(s) for tp, s in self.partition_states.items() if s.is_ready(now, state)}

    def _still_current(self, tp: TopicPartition, asked: PartitionFetchState) -> PartitionFetchState | None:
        """The partition's state if nobody changed it while our request was out (else drop the answer)."""
        state = self.partition_states.get(tp)
        if (state is None or state.current_leader_epoch != asked.current_leader_epoch
                or state.fetch_offset != asked.fetch_offset or state.state != asked.state):
            return None
        return state

    def _back_off(self, tps, reason: str) -> None:
        with self._lock:
            until = self.time.milliseconds() + self.backoff_ms
            for tp in tps:
                if tp in self.partition_states:
                    self.partition_states[tp].delayed_until_ms = until
        log.warning("fetcher backing off", fetcher=self.name, leader=self.leader.describe(),
                    partitions=sorted(str(tp) for tp in tps), backoff_ms=self.backoff_ms, reason=reason)

    def _idle(self) -> None:
        """Nothing to fetch now: wait for new partitions or the end of a backoff."""
        with self._lock:
            if self._running:
                now = self.time.milliseconds()
                due = min((s.delayed_until_ms for s in self.partition_states.values()),
                          default=now + self.backoff_ms)
                self._lock.wait(max(0.01, min(due - now, self.backoff_ms) / 1000))

    # ------------------------------------------------------------------ truncation (KIP-279)
    def maybe_truncate(self) -> None:
        with self._lock:  # the request is built under the lock a removal takes (Kafka's partitionMapLock)
            truncating = self._ready(TRUNCATING)
            if not truncating:
                return
            asks = {tp: (s.current_leader_epoch, self.latest_epoch(tp)) for tp, s in truncating.items()}
        try:
            answers = self.leader.fetch_epoch_end_offsets(asks)
        except LeaderUnreachableError as e:
            self._back_off(truncating, str(e))
            return
        failed = []
        with self._lock:
            for tp, asked in truncating.items():
                state = self._still_current(tp, asked)
                error, leader_epoch, end_offset = answers.get(tp, (Errors.UNKNOWN_SERVER_ERROR, -1, -1))
                if state is None:
                    continue
                if error != Errors.NONE:
                    failed.append((tp, f"OffsetForLeaderEpoch: {error.name}"))
                    continue
                try:
                    truncation = self.get_offset_truncation_state(tp, leader_epoch, end_offset)
                    self.truncate(tp, truncation.offset)
                except (KeyError, OSError) as e:  # removed meanwhile, or our log dir failed
                    failed.append((tp, f"truncation failed: {e}"))
                    continue
                state.fetch_offset = truncation.offset
                if truncation.truncation_completed:
                    state.state = FETCHING
                state.last_fetched_epoch = self.latest_epoch(tp)
        for tp, reason in failed:
            self._back_off([tp], reason)

    def get_offset_truncation_state(self, tp: TopicPartition, leader_epoch: int, leader_end_offset: int
                                    ) -> OffsetTruncationState:
        """Where to cut the local log, given where the leader says our latest epoch ends (Kafka's
        getOffsetTruncationState). Three cases:

        - the leader knows no such epoch: keep what is committed (truncate to our high watermark)
        - we have the leader's epoch too: cut at the smaller of the two ends of that epoch: done
        - we do not have the leader's epoch (the leader answered with an older one): cut at where
          *our* copy of that older epoch ends, and ask again with the epoch that is now our latest
        """
        log_end_offset = self.log_end_offset(tp)
        if leader_end_offset == UNDEFINED_EPOCH_OFFSET or leader_epoch == UNDEFINED_EPOCH:
            return OffsetTruncationState(min(self.high_watermark(tp), log_end_offset), True)
        follower_epoch, follower_end_offset = self.end_offset_for_epoch(tp, leader_epoch)
        if follower_epoch == UNDEFINED_EPOCH:
            return OffsetTruncationState(min(leader_end_offset, log_end_offset), True)
        if follower_epoch != leader_epoch:
            return OffsetTruncationState(min(follower_end_offset, log_end_offset), False)
        return OffsetTruncationState(min(leader_end_offset, follower_end_offset, log_end_offset), True)

    # ------------------------------------------------------------------ fetching
    def maybe_fetch(self) -> None:
        checked = self.leader.is_truncation_on_fetch_supported()
        with self._lock:  # built under the lock a removal takes: a partition removed is never asked for
            fetching = self._ready(FETCHING)
            request = {tp: ReplicaFetchPosition(s.fetch_offset, s.current_leader_epoch,
                                                self.log_start_offset(tp),
                                                s.last_fetched_epoch if checked else UNDEFINED_EPOCH)
                       for tp, s in fetching.items()}
        if not fetching:
            self._idle()
            return
        try:
            responses = self.leader.fetch(request)
        except LeaderUnreachableError as e:
            self._back_off(fetching, str(e))
            return
        self.process_fetch_response(fetching, responses)

    def process_fetch_response(self, fetching: dict[TopicPartition, PartitionFetchState],
                               responses: dict) -> None:
        failed = []
        with self._lock:
            for tp, asked in fetching.items():
                state = self._still_current(tp, asked)
                data = responses.get(tp)
                if state is None or data is None:
                    continue
                error = Errors.for_code(data.error_code)
                diverging = diverging_epoch(data)
                if error == Errors.NONE and diverging is not None:
                    failed.extend(self.truncate_on_fetch_response(tp, state, *diverging))
                elif error == Errors.NONE:
                    try:
                        next_offset = self.process_partition_data(tp, state.fetch_offset, data)
                    except Exception as e:  # our own log failed (a full disk): this partition waits
                        failed.append((tp, f"appending failed: {e}"))
                        continue
                    # records appended: the last one's epoch is ours now
                    if next_offset != state.fetch_offset:
                        state.last_fetched_epoch = self.latest_epoch(tp)
                    state.fetch_offset = next_offset
                    state.lag = max(0, data.high_watermark - next_offset)
                elif error == Errors.OFFSET_OUT_OF_RANGE:
                    failed.extend(self._handle_out_of_range(tp, state))
                elif error == Errors.OFFSET_MOVED_TO_TIERED_STORAGE:
                    failed.extend(self._handle_offsets_moved_to_tiered_storage(tp, state,
                                                                               data.log_start_offset))
                # FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH, NOT_LEADER_OR_FOLLOWER, ...: metadata will tell
                else:
                    failed.append((tp, f"leader answered {error.name}"))
        for tp, reason in failed:
            self._back_off([tp], reason)

    def truncate_on_fetch_response(self, tp: TopicPartition, state: PartitionFetchState, leader_epoch: int,
                                   leader_end_offset: int) -> list:
        """The leader answered DivergingEpoch: our epoch `state.last_fetched_epoch` (or the largest
        below it the leader knows, `leader_epoch`) ends at leader_end_offset in its log. Cut our log
        by the same rule as an OffsetForLeaderEpoch answer and fetch on from the new end, naming
        the epoch that is now our latest: if we are still astray (the leader named an epoch we do
        not have), its next answer cuts further (Kafka's truncateOnFetchResponse)."""
        try:
            truncation = self.get_offset_truncation_state(tp, leader_epoch, leader_end_offset)
            log.info("truncating on a diverging epoch", fetcher=self.name, partition=str(tp),
                     last_fetched_epoch=state.last_fetched_epoch, diverging_epoch=leader_epoch,
                     leader_end_offset=leader_end_offset, log_end_offset=self.log_end_offset(tp),
                     truncate_to=truncation.offset)
            self.truncate(tp, truncation.offset)
        except (KeyError, OSError) as e:  # removed meanwhile, or our log dir failed
            return [(tp, f"truncation failed: {e}")]
        state.fetch_offset = truncation.offset
        state.last_fetched_epoch = self.latest_epoch(tp)
        state.state = FETCHING
        return []

    def _handle_out_of_range(self, tp: TopicPartition, state: PartitionFetchState) -> list:
        """Our fetch offset is outside the leader's log (Kafka's fetchOffsetAndTruncate): past its
        end, we truncate to it; before its start (retention removed it), we start over there."""
        try:
            leader_end = self.leader.fetch_latest_offset(tp, state.current_leader_epoch)
            if leader_end < self.log_end_offset(tp):
                self.truncate(tp, leader_end)
                state.fetch_offset = leader_end
                state.last_fetched_epoch = self.latest_epoch(tp)
                return []
            leader_start = self.leader.fetch_earliest_offset(tp, state.current_leader_epoch)
        except LeaderUnreachableError as e:
            return [(tp, str(e))]
        if leader_start > self.log_end_offset(tp) or leader_start > state.fetch_offset:
            self.truncate_fully_and_start_at(tp, leader_start)
            state.fetch_offset = leader_start
            state.last_fetched_epoch = UNDEFINED_EPOCH  # an empty log: nothing to check
        return []

    def _handle_offsets_moved_to_tiered_storage(self, tp: TopicPartition, state: PartitionFetchState,
                                                leader_log_start_offset: int) -> list:
        """Our fetch offset is only in the leader's remote storage (KIP-405, Kafka's
        handleOffsetsMovedToTieredStorage): the tier state machine rebuilds our leader-epoch cache and
        producer state from there, and we fetch on from the leader's local log start."""
        if self.tier_state_machine is None:
            return [(tp, "the leader's records are in tiered storage, which this fetcher cannot read")]
        try:
            fetch_offset, lag = self.tier_state_machine.start(tp, state.current_leader_epoch,
                                                              leader_log_start_offset)
        except Exception as e:  # a leader that did not answer, a store that failed: back off and ask again
            return [(tp, f"building the remote log auxiliary state failed: {e!r}")]
        log.info("follower state built from tiered storage", fetcher=self.name, partition=str(tp),
                 fetch_offset=fetch_offset, lag=lag)
        state.fetch_offset, state.lag, state.state = fetch_offset, lag, FETCHING
        state.last_fetched_epoch = self.latest_epoch(tp)
        return []

    # ------------------------------------------------------------------ shutdown
    def initiate_shutdown(self) -> None:
        self._running = False
        with self._lock:
            self._lock.notify_all()
        self.leader.close()

    def shutdown(self) -> None:
        self.initiate_shutdown()
        if self.is_alive() and threading.current_thread() is not self:
            self.join(timeout=10)

    # ------------------------------------------------------------------ the local log (subclasses)
    def latest_epoch(self, tp: TopicPartition) -> int:
        raise NotImplementedError

    def log_start_offset(self, tp: TopicPartition) -> int:
        raise NotImplementedError

    def log_end_offset(self, tp: TopicPartition) -> int:
        raise NotImplementedError

    def high_watermark(self, tp: TopicPartition) -> int:
        raise NotImplementedError

    def end_offset_for_epoch(self, tp: TopicPartition, epoch: int) -> tuple[int, int]:
        raise NotImplementedError

    def truncate(self, tp: TopicPartition, offset: int) -> None:
        raise NotImplementedError

    def truncate_fully_and_start_at(self, tp: TopicPartition, offset: int) -> None:
        raise NotImplementedError

    def process_partition_data(self, tp: TopicPartition, fetch_offset: int, data) -> int:
        """Append the leader's records; return the next fetch offset."""
        raise NotImplementedError


def diverging_epoch(data) -> tuple[int, int] | None:
    """A Fetch answer's DivergingEpoch as (epoch, end offset), or None when the leader found our log
    in agreement (the tagged field absent, or its epoch -1)."""
    diverging = data.get("diverging_epoch")
    if diverging is None or diverging.get("epoch", -1) < 0:
        return None
    return diverging["epoch"], diverging["end_offset"]
