"""SharePartition: one share group's records in flight on one partition (Kafka's
kafka.server.share.SharePartition).

The leader keeps, per (group, partition), the window of records the group is working on:

    start offset (SPSO)                                       end offset (SPEO)
        |  ACKED  | ACQUIRED by m1 | AVAILABLE | ARCHIVED | ACQUIRED by m2 |   -> not fetched yet

`cached_state` holds that window as InFlightBatches keyed by their first offset. A fetch acquires
AVAILABLE records (re-deliveries first: next_fetch_offset points at the first AVAILABLE one) and new
ones past the end offset, at most max_fetch_records and group.share.partition.max.record.locks in
flight; each acquired batch gets a lock on the timer. Members acknowledge (accept, release, reject)
what they hold; a released or timed-out record becomes AVAILABLE again unless it has been delivered
group.share.delivery.count.limit times, in which case it is ARCHIVED. When the records at the start
are all ACKNOWLEDGED or ARCHIVED, the start offset moves past them and they leave the cache.
A group with a dead-letter queue archives through ARCHIVING instead (share_partition_dlq.py).

Every change that must survive a new leader is written through the Persister first and only then
kept (InFlightState's two-step transitions); the state is read back from it on first use, and a
partition with no state starts where share.auto.offset.reset says. A leadership change fences the
SharePartition (SharePartitionState): the SharePartitionManager drops it, and the new leader's copy
starts from the persister.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from concurrent.futures import Future

import structlog

from kafka.log.fetch_isolation import FetchIsolation
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import RecordBatch, iter_batches
from kafka.server.fetch_partition_data import FetchPartitionData
from kafka.server.share import share_partition_dlq as dlq
from kafka.server.share.acquisition_lock_timer_task import AcquisitionLockTimerTask
from kafka.server.share.dlq.share_group_dlq_manager import NoOpShareGroupDLQManager, ShareGroupDLQManager
from kafka.server.share.fetch_lock import FetchLock
from kafka.server.share.gap_window import GapWindow
from kafka.server.share.in_flight_batch import InFlightBatch
from kafka.server.share.in_flight_batches import InFlightBatches
from kafka.server.share.in_flight_state import EMPTY_MEMBER_ID, DeliveryCountOps, InFlightState
from kafka.server.share.persister.persister import PartitionStateKey, Persister, PersisterStateBatch
from kafka.server.share.record_state import RecordState
from kafka.server.share.share_acknowledgement_batch import AcknowledgeType, ShareAcknowledgementBatch
from kafka.server.share.share_acquired_records import (
    AcquiredRecords,
    ShareAcquiredRecords,
    accumulate_acquired_records,
)
from kafka.server.share.share_errors import ShareError, persisted, persister_error
from kafka.server.share.share_fetch_utils import filter_aborted_transactional_acquired_records
from kafka.server.share.share_group_metrics import SharePartitionMetrics
from kafka.server.share.share_partition_state import SharePartitionState
from kafka.utils.time import Time
from kafka.utils.timer.timer import Timer
from kafka.utils.topic_id_partition import TopicIdPartition

log = structlog.get_logger("kafka.server.share.SharePartition")

RECORD_LIMIT = 1  # ShareFetch v2's share_acquire_mode: 0 batch_optimized (the default), 1 record_limit


class SharePartition:
    def __init__(self, group_id: str, tip: TopicIdPartition, leader_epoch: int, *,
                 max_in_flight_records: int, max_delivery_count: int, record_lock_duration_ms: int,
                 timer: Timer, time: Time, persister: Persister, metadata_provider, config_provider,
                 metrics: SharePartitionMetrics, delayed_request_notifier: Callable[[SharePartition], None],
                 listener=None, dlq_enabled: Callable[[], bool] = lambda: False,
                 dlq_manager: ShareGroupDLQManager | None = None) -> None:
        self.group_id = group_id
        self.tip = tip
        self.leader_epoch = leader_epoch
        self.default_max_in_flight_records = max_in_flight_records
        self.default_max_delivery_count = max_delivery_count
        self.default_record_lock_duration_ms = record_lock_duration_ms
        self.timer = timer
        self.time = time
        self.persister = persister
        self.metadata_provider = metadata_provider
        self.config_provider = config_provider
        self.metrics = metrics
        self.delayed_request_notifier = delayed_request_notifier  # a change may complete a waiting fetch
        self.listener = listener  # the SharePartitionListener the manager registered with the partition
        self.dlq_enabled = dlq_enabled  # share.version >= 2 finalized (Kafka's shareGroupDlqEnableSupplier)
        self.dlq_manager = dlq_manager or NoOpShareGroupDLQManager()
        self.lock = threading.RLock()
        self.cached = InFlightBatches()  # Kafka's cachedState
        self.start_offset = 0
        self.end_offset = 0
        self.state_epoch = 0
        self.partition_state = SharePartitionState.EMPTY
        self._find_next_fetch_offset = False
        self._gap_window: GapWindow | None = None  # Kafka's persisterReadResultGapWindow
        self.fetch_lock = FetchLock(time, metrics)
        # Kafka's OffsetMetadata: (the next fetch offset, its LogOffsetMetadata), once a read found it.
        self._fetch_offset_metadata: tuple[int, object] | None = None
        self.load_start_time_ms = time.hi_res_clock_ms()

    # ------------------------------------------------------------------ the cached state
    def cached_state(self) -> list[InFlightBatch]:
        with self.lock:
            return list(self.cached)

    def _put(self, batch: InFlightBatch) -> None:
        self.cached.put(batch)
        self.metrics.record_in_flight_batch_message_count(batch.last_offset - batch.first_offset + 1)

    # ------------------------------------------------------------------ group configs
    def max_delivery_count(self) -> int:
        return self.config_provider.delivery_count_limit_or_default(
            self.group_id, self.default_max_delivery_count)

    def max_in_flight_records(self) -> int:
        return self.config_provider.partition_max_record_locks_or_default(
            self.group_id, self.default_max_in_flight_records)

    def record_lock_duration_ms(self) -> int:
        return self.config_provider.record_lock_duration_ms_or_default(
            self.group_id, self.default_record_lock_duration_ms)

    @property
    def persister_key(self) -> PartitionStateKey:
        return PartitionStateKey(self.group_id, self.tip.topic_id, self.tip.partition)

    # ------------------------------------------------------------------ loading the state
    def maybe_initialize(self) -> Future:
        """Done at once if the state is loaded; else read it from the persister (first caller) and
        finish when it answers. Raises LEADER_NOT_AVAILABLE while another caller's read is under way
        or once fenced."""
        future: Future = Future()
        with self.lock:
            state = self.partition_state
            if state is SharePartitionState.ACTIVE:
                future.set_result(None)
                return future
            if state is not SharePartitionState.EMPTY:
                failed = state is SharePartitionState.FAILED
                error = Errors.UNKNOWN_SERVER_ERROR if failed else Errors.LEADER_NOT_AVAILABLE
                message = f"Share partition is {state.value} {self.group_id}-{self.tip}"
                future.set_exception(ShareError(error, message))
                return future
            self.partition_state = SharePartitionState.INITIALIZING
        self.persister.read_state(self.persister_key, self.leader_epoch).add_done_callback(
            lambda read: self._complete_initialization(read, future))
        return future

    def _complete_initialization(self, read: Future, future: Future) -> None:
        error: BaseException | None = None
        with self.lock:
            try:
                result = read.result()
                if result.error_code != Errors.NONE:
                    raise persister_error(result.error_code, result.error_message)
                self._load(result)
                self.partition_state = SharePartitionState.ACTIVE
            except Exception as e:  # noqa: BLE001  (an answer, not a crash: the fetch gets the error)
                log.error("failed to initialize the share partition", group=self.group_id,
                          partition=str(self.tip), error=str(e))
                self.partition_state = SharePartitionState.FAILED
                # A ShareError, or the metadata provider's PartitionNotLeaderError, says its error code.
                code = getattr(e, "error", None)
                error = ShareError(code if isinstance(code, Errors) else Errors.UNKNOWN_SERVER_ERROR, str(e))
        if error is None:
            future.set_result(None)
        else:
            future.set_exception(error)

    def _load(self, result) -> None:
        self.start_offset = self._start_offset_during_initialization(result.start_offset)
        self.state_epoch = result.state_epoch
        for batch in result.state_batches:
            if batch.first_offset < self.start_offset or batch.last_offset < batch.first_offset:
                raise ShareError(Errors.UNKNOWN_SERVER_ERROR,
                                 f"invalid state batch {batch} (start {self.start_offset})")
            state = RecordState(batch.delivery_state)
            self._put(InFlightBatch(self.timer, self.time, EMPTY_MEMBER_ID, batch.first_offset,
                                    batch.last_offset, state, batch.delivery_count, None, self._lock_task))
        if self.cached:
            self._find_next_fetch_offset = True  # AVAILABLE records in the persisted state come first
            self.end_offset = self.cached.last().last_offset
            # holes: records someone held when the state was written
            self._gap_window = GapWindow.read_back(self.start_offset, result.state_batches, self.end_offset)
            self._maybe_update_cached_state_and_offsets()
            dlq.resume_dlq_archiving(self)
        else:
            self.end_offset = self.start_offset

    def _start_offset_during_initialization(self, persisted: int) -> int:
        """The persisted start offset, or where share.auto.offset.reset says (default latest)."""
        if persisted != -1:
            return persisted
        reset = self.config_provider.auto_offset_reset(self.group_id)
        provider = self.metadata_provider
        if reset.type == "latest":
            return provider.offset_for_latest_timestamp(self.tip, self.leader_epoch)
        if reset.type == "earliest":
            return provider.offset_for_earliest_timestamp(self.tip, self.leader_epoch)
        return provider.offset_for_timestamp(self.tip, reset.timestamp(self.time), self.leader_epoch)

    # ------------------------------------------------------------------ where to fetch
    def next_fetch_offset(self) -> int:
        """The first AVAILABLE record in the window if a release or timeout made one, else the end
        offset's next."""
        with self.lock:
            last = self.cached.last()
            fresh = last is None or self.start_offset > last.last_offset
            if not self._find_next_fetch_offset:
                return self.end_offset if fresh else self.end_offset + 1
            if fresh:
                self._find_next_fetch_offset = False
                return self.end_offset
            available = self.cached.first_available_offset(self._gap_start())
            if available is not None:
                return available
            self._find_next_fetch_offset = False
            return self.end_offset + 1

    def num_in_flight_records(self) -> int:
        with self.lock:
            return self.end_offset - self.start_offset + 1 if self.cached else 0

    def can_acquire_records(self) -> bool:
        """Something to re-deliver, or room under the record-lock limit for new records."""
        if self.next_fetch_offset() != self.end_offset + 1:
            return True
        return self.num_in_flight_records() < self.max_in_flight_records()

    # ------------------------------------------------------------------ the fetch lock
    def maybe_acquire_fetch_lock(self, fetch_id: uuid.UUID) -> bool:
        """Only an ACTIVE share partition can be fetched, by one fetch at a time."""
        with self.lock:
            active = self.partition_state is SharePartitionState.ACTIVE
            return active and self.fetch_lock.try_acquire(fetch_id)

    def release_fetch_lock(self, fetch_id: uuid.UUID) -> None:
        self.fetch_lock.release(fetch_id)

    def update_fetch_offset_metadata(self, next_fetch_offset: int, offset_metadata) -> None:
        with self.lock:
            self._fetch_offset_metadata = (next_fetch_offset, offset_metadata)

    def fetch_offset_metadata(self, next_fetch_offset: int):
        """Where next_fetch_offset is in the log, if the last read found it (DelayedShareFetch counts
        bytes from it)."""
        with self.lock:
            known = self._fetch_offset_metadata
            return known[1] if known is not None and known[0] == next_fetch_offset else None

    def mark_fenced(self) -> None:
        with self.lock:
            self.partition_state = SharePartitionState.FENCED

    # ------------------------------------------------------------------ acquire
    def acquire(self, member_id: str, acquire_mode: int, batch_size: int, max_fetch_records: int,
                fetch_offset: int, data: FetchPartitionData,
                isolation: FetchIsolation) -> ShareAcquiredRecords:
        """Acquire for member_id what it may have of the fetched batches: AVAILABLE records already in
        the window and new records past it, at most max_fetch_records (a soft limit: whole fetched
        batches, unless acquire_mode is record_limit) and within the partition's record-lock limit."""
        batches = list(iter_batches(bytes(data.records))) if data.records else []
        with self.lock:
            if self.partition_state is not SharePartitionState.ACTIVE or max_fetch_records <= 0:
                return ShareAcquiredRecords()
            if not batches or batches[-1].last_offset < self.start_offset:
                return ShareAcquiredRecords()
            last_to_acquire, max_records = self._last_offset_and_max_records(fetch_offset, max_fetch_records,
                                                                             batches[-1].last_offset)
            if max_records <= 0:
                return ShareAcquiredRecords()
            record_limit = acquire_mode == RECORD_LIMIT
            base = batches[0].base_offset
            self._maybe_archive_stale_batches(fetch_offset, base)
            floor = self.cached.floor(base)
            cursor = (max(base, self.start_offset) if floor is None
                      else floor.first_offset if floor.last_offset >= base else base)
            result: list[AcquiredRecords] = []
            count = 0
            for batch in self.cached.sub_map(min(base, cursor), last_to_acquire):
                if count >= max_records:
                    break
                if cursor < batch.first_offset:  # a gap (state read back with holes): new records
                    acquired = self._acquire_new_batch_records(member_id, batches, record_limit, cursor,
                                                               batch.first_offset - 1, batch_size,
                                                               max_records - count)
                    result += acquired.acquired_records
                    count += acquired.count
                    if count >= max_records:
                        break
                cursor = max(cursor, batch.last_offset + 1)
                count += self._acquire_cached_batch(member_id, batch, base, last_to_acquire, record_limit,
                                                    max_records - count, result)
            next_new = max(cursor, self.cached.last().last_offset + 1 if self.cached else cursor)
            if count < max_records and next_new <= last_to_acquire:  # past the window: never delivered
                acquired = self._acquire_new_batch_records(member_id, batches, record_limit, next_new,
                                                           last_to_acquire, batch_size, max_records - count)
                result += acquired.acquired_records
                count += acquired.count
            if result:
                self._acquired_up_to(result[-1].last_offset + 1)
            acquired = ShareAcquiredRecords(result, count)
            if isolation is FetchIsolation.TXN_COMMITTED and data.aborted_transactions:
                acquired = filter_aborted_transactional_acquired_records(self.cached, batches, acquired,
                                                                         data.aborted_transactions)
            return acquired

    def _last_offset_and_max_records(self, fetch_offset: int, max_fetch_records: int, last_offset: int
                                     ) -> tuple[int, int]:
        """How far and how many: at the record-lock limit, only re-deliveries inside the window."""
        max_records = min(max_fetch_records, self.max_in_flight_records() - self.num_in_flight_records())
        if max_records > 0:
            return last_offset, max_records
        if fetch_offset <= self.end_offset:
            redeliverable = self.end_offset - fetch_offset + 1
            return min(last_offset, self.end_offset), min(max_fetch_records, redeliverable)
        return last_offset, 0

    def _acquire_cached_batch(self, member_id: str, batch: InFlightBatch, request_first: int,
                              request_last: int, record_limit: bool, remaining: int,
                              result: list[AcquiredRecords]) -> int:
        """Acquire the AVAILABLE records of one batch already in the window; returns how many."""
        acquired = batch.acquire_available(member_id, request_first, request_last,
                                           remaining if record_limit else None, self.max_delivery_count(),
                                           self._schedule_lock)
        if batch.offset_state is None:
            result += acquired
        else:
            accumulate_acquired_records(result, acquired)
        return sum(r.last_offset - r.first_offset + 1 for r in acquired)

    def _acquire_new_batch_records(self, member_id: str, batches: list[RecordBatch], record_limit: bool,
                                   first_offset: int, last_offset: int, batch_size: int, max_records: int
                                   ) -> ShareAcquiredRecords:
        """Records never delivered: a new InFlightBatch (or several, of about batch_size), ACQUIRED."""
        if not self.cached and self.end_offset > first_offset:
            first_offset = self.end_offset
        if first_offset > last_offset:
            return ShareAcquiredRecords()
        last_acquired = last_offset
        if max_records < last_offset - first_offset + 1:
            # A soft limit: to the end of the fetched batch holding the max_records-th record.
            wanted = first_offset + max_records - 1
            holder = next((b for b in reversed(batches) if b.base_offset <= wanted), None)
            in_holder = holder is not None and wanted <= holder.last_offset
            last_acquired = min(holder.last_offset, last_offset) if in_holder else wanted
        runs = self._create_batches(member_id, batches, record_limit, max_records, first_offset,
                                    last_acquired, batch_size)
        if self.cached.first_key() == first_offset:
            self.start_offset = first_offset
        self.end_offset = max(self.end_offset, last_acquired)
        self._acquired_up_to(runs[-1].last_offset + 1)
        count = sum(r.last_offset - r.first_offset + 1 for r in runs)
        return ShareAcquiredRecords(runs, count)

    def _create_batches(self, member_id: str, batches: list[RecordBatch], record_limit: bool,
                        max_records: int, first: int, last: int, batch_size: int) -> list[AcquiredRecords]:
        runs: list[AcquiredRecords] = []
        current = first
        if not record_limit and last - first + 1 > batch_size > 0:
            for fetched in batches:  # cut at fetched-batch boundaries every batch_size records or so
                if fetched.base_offset > last:
                    break
                if fetched.base_offset - current >= batch_size:
                    runs.append(AcquiredRecords(current, fetched.base_offset - 1, 1))
                    current = fetched.base_offset
        runs.append(AcquiredRecords(current, last, 1))
        if record_limit and last - first + 1 > max_records:
            # Only max_records of them are the member's; the rest of the batch stays AVAILABLE.
            batch = InFlightBatch(self.timer, self.time, member_id, first, last, RecordState.ACQUIRED, 1,
                                  None, self._lock_task)
            batch.initialize_offset_state_up_to(first + max_records - 1, self.record_lock_duration_ms())
            self._find_next_fetch_offset = True
            self._put(batch)
            return [AcquiredRecords(first, first + max_records - 1, 1)]
        for run in runs:
            task = self._schedule_lock(member_id, run.first_offset, run.last_offset)
            self._put(InFlightBatch(self.timer, self.time, member_id, run.first_offset, run.last_offset,
                                    RecordState.ACQUIRED, 1, task, self._lock_task))
        return runs

    # ------------------------------------------------------------------ what can never be delivered
    def _maybe_archive_stale_batches(self, fetch_offset: int, base_offset: int) -> None:
        """The fetch found no records between fetch_offset and the first batch read (compaction, a deleted
        range): the AVAILABLE records the window holds there can never be delivered."""
        if fetch_offset < base_offset and self.cached.archive_range(fetch_offset, base_offset - 1,
                                                                    RecordState.AVAILABLE):
            self._find_next_fetch_offset = True

    def update_cache_and_offsets(self, log_start_offset: int) -> None:
        """The log start moved past the start offset (retention, DeleteRecords): archive what is AVAILABLE
        below it and start there."""
        with self.lock:
            if log_start_offset <= self.start_offset:
                return
            if not self.cached:
                self.start_offset = self.end_offset = log_start_offset
                return
            if self.cached.archive_range(self.start_offset, log_start_offset - 1, RecordState.AVAILABLE):
                self._find_next_fetch_offset = True
            self.start_offset = log_start_offset
            self.end_offset = max(self.end_offset, self.start_offset)

    # ------------------------------------------------------------------ acknowledge and release
    def acknowledge(self, member_id: str, batches: list[ShareAcknowledgementBatch]) -> Future:
        """Apply a member's acknowledgements; the future completes once the persister has written them
        (or fails with INVALID_RECORD_STATE / INVALID_REQUEST, nothing changed)."""
        future: Future = Future()
        error: ShareError | None = None
        changes: list[dlq.PersisterBatch] = []
        with self.lock:
            for ack in batches:
                if any(t not in AcknowledgeType._value2member_map_ for t in ack.acknowledge_types):
                    error = ShareError(Errors.INVALID_REQUEST,
                                       f"Invalid acknowledge type: {ack.acknowledge_types}")
                    break
                if ack.last_offset < self.start_offset:
                    continue  # already archived past
                try:
                    for batch in self.cached.sub_map_for_acknowledgement(ack, self.start_offset):
                        self._acknowledge_batch(member_id, ack, batch, changes)
                except ShareError as e:
                    error = e
                    break
        self._rollback_or_process_state_updates(future, error, changes)
        return future

    def _acknowledge_batch(self, member_id: str, ack: ShareAcknowledgementBatch, batch: InFlightBatch,
                           changes: list[dlq.PersisterBatch]) -> None:
        types = ack.acknowledge_types
        per_offset = len(types) > 1  # one type per offset, else one for the whole range
        for first, last, state in batch.acknowledgeable_states(member_id, ack.first_offset, ack.last_offset,
                                                               per_offset, self.start_offset):
            ack_type = types[first - ack.first_offset] if per_offset else types[0]
            self._apply_ack(member_id, ack_type, state, first, last, changes)

    def _apply_ack(self, member_id: str, ack_type: int, state: InFlightState, first: int, last: int,
                   changes: list[dlq.PersisterBatch]) -> None:
        if ack_type == AcknowledgeType.RENEW:  # KIP-1222: the same member keeps the records, on a new lock
            if not self.config_provider.is_renew_acknowledge_enabled(self.group_id):
                raise ShareError(Errors.INVALID_RECORD_STATE,
                                 "Renewing acquisition locks is not enabled for the group.")
            state.cancel_and_clear_acquisition_lock_timeout_task()
            state.update_acquisition_lock_timeout_task(self._schedule_lock(member_id, first, last))
            return
        dlq_on = dlq.is_dlq_enabled_for_group(self)
        new_state = dlq.record_state_with_dlq(AcknowledgeType(ack_type), dlq_on)
        updated = state.start_state_transition(new_state, DeliveryCountOps.NO_OP, self.max_delivery_count(),
                                               EMPTY_MEMBER_ID, dlq_on)
        if updated is None:
            raise ShareError(Errors.INVALID_RECORD_STATE, "Unable to acknowledge records for the batch")
        changes.append(dlq.persister_batch(updated, first, last, new_state))

    def release_acquired_records(self, member_id: str) -> Future:
        """The member left (its share session closed): what it holds goes back to AVAILABLE."""
        future: Future = Future()
        changes: list[dlq.PersisterBatch] = []
        with self.lock:
            dlq_on = dlq.is_dlq_enabled_for_group(self)
            for batch in self.cached_state():
                acquired = batch.acquired_states(self.start_offset, batch.first_offset, batch.last_offset)
                for first, last, state in acquired:
                    if state.member_id != member_id:
                        continue
                    new_state = RecordState.ARCHIVED if last < self.start_offset else RecordState.AVAILABLE
                    updated = state.start_state_transition(new_state, DeliveryCountOps.NO_OP,
                                                           self.max_delivery_count(), EMPTY_MEMBER_ID, dlq_on)
                    if updated is not None:
                        changes.append(dlq.persister_batch(updated, first, last, new_state))
        self._rollback_or_process_state_updates(future, None, changes)
        return future

    def _rollback_or_process_state_updates(self, future: Future, error: ShareError | None,
                                           changes: list[dlq.PersisterBatch]) -> None:
        """Undo on a refusal; else write the changes and keep them once written (or undo if the write
        fails)."""
        if error is not None:
            with self.lock:
                for state, _, _ in changes:
                    state.complete_state_transition(False)
                    if state.state is RecordState.AVAILABLE:
                        self._find_next_fetch_offset = True
            future.set_exception(error)
            return
        if not changes:
            future.set_result(None)
            return

        def written(write: Future) -> None:
            failure = write.exception()
            with self.lock:
                for state, _, _ in changes:
                    state.complete_state_transition(failure is None)
                    if state.state is RecordState.AVAILABLE:
                        self._find_next_fetch_offset = True
                moved = failure is None and self._maybe_update_cached_state_and_offsets()
            if failure is None:
                future.set_result(None)
            else:
                future.set_exception(failure)
            if moved or failure is None:
                # Released records or a moved window: a waiting fetch may go.
                self.delayed_request_notifier(self)
            if failure is None:
                dlq.initiate_for_changes(self, changes)

        self._write_share_group_state([batch for _, batch, _ in changes]).add_done_callback(written)

    # ------------------------------------------------------------------ moving the start offset
    def _maybe_update_cached_state_and_offsets(self) -> bool:
        """Move the start offset past the ACKNOWLEDGED/ARCHIVED records at the front; drop whole batches
        behind it (a batch stays while any of its records is still in flight)."""
        moved = self.cached.move_start_offset(self.start_offset, self._gap_start())  # not past a hole
        if moved is None:
            return False
        self.start_offset, emptied = moved
        if emptied:
            self.end_offset = self.start_offset
        return True

    # ------------------------------------------------------------------ the holes of the state read back
    def _gap_start(self) -> int | None:
        return self._gap_window.gap_start(self.end_offset) if self._gap_window is not None else None

    def _acquired_up_to(self, offset: int) -> None:
        if self._gap_window is not None and not self._gap_window.acquired_up_to(offset, self.end_offset):
            self._gap_window = None

    # ------------------------------------------------------------------ acquisition locks
    def _lock_task(self, member_id: str, first: int, last: int, delay_ms: int) -> AcquisitionLockTimerTask:
        return AcquisitionLockTimerTask(self.time, delay_ms, member_id, first, last,
                                        self._release_acquisition_lock_on_timeout,
                                        self.metrics.record_acquisition_lock_timeout)

    def _schedule_lock(self, member_id: str, first: int, last: int) -> AcquisitionLockTimerTask:
        task = self._lock_task(member_id, first, last, self.record_lock_duration_ms())
        self.timer.add(task)
        return task

    def _release_acquisition_lock_on_timeout(self, member_id: str, first: int, last: int,
                                             task: AcquisitionLockTimerTask) -> None:
        """The member held the records too long: they become AVAILABLE (ARCHIVED on their last delivery)."""
        # BEGIN LAB 14 SOLUTION: the member's ACQUIRED runs of first..last go back to AVAILABLE, written
        written: list[PersisterStateBatch] = []
        dlq_batches: list[dlq.PersisterBatch] = []  # Kafka's DlqBatch
        with self.lock:
            if task.is_cancelled():  # acknowledged or released meanwhile
                return
            dlq_on = dlq.is_dlq_enabled_for_group(self)
            floor = self.cached.floor(first)
            if floor is None:
                return
            for batch in self.cached.sub_map(floor.first_offset, last):
                for first_offset, last_offset, state in batch.acquired_states(self.start_offset, first, last):
                    archive = last_offset < self.start_offset
                    new_state = RecordState.ARCHIVED if archive else RecordState.AVAILABLE
                    updated = state.try_update_state(new_state, DeliveryCountOps.NO_OP,
                                                     self.max_delivery_count(), EMPTY_MEMBER_ID, dlq_on)
                    if updated is None:
                        continue
                    updated.cancel_and_clear_acquisition_lock_timeout_task()
                    written.append(PersisterStateBatch(first_offset, last_offset, updated.state,
                                                       updated.delivery_count))
                    if updated.state is RecordState.ARCHIVING:
                        dlq_batches.append(dlq.persister_batch(updated, first_offset, last_offset, new_state))
                    elif updated.state is not RecordState.ARCHIVED:
                        self._find_next_fetch_offset = True
        if not written:
            return

        def after_write(write: Future) -> None:
            if write.exception() is not None:  # the state change stands: the records are free either way
                log.debug("writing the state after a lock timeout failed", group=self.group_id,
                          partition=str(self.tip), error=str(write.exception()))
            with self.lock:
                self._maybe_update_cached_state_and_offsets()
            self.delayed_request_notifier(self)
            dlq.initiate_for_changes(self, dlq_batches)

        self._write_share_group_state(written).add_done_callback(after_write)
        # END LAB 14 SOLUTION

    # ------------------------------------------------------------------ the persister
    def _write_share_group_state(self, state_batches: list[PersisterStateBatch]) -> Future:
        """Write the changed batches with the current start offset and how many records past it are done
        with; a future of None, or of a ShareError."""
        with self.lock:
            start_offset = self.start_offset
            complete = self.cached.delivery_complete_count(start_offset)
        return persisted(self.persister.write_state(self.persister_key, self.state_epoch, self.leader_epoch,
                                                    start_offset, state_batches, complete))

    def __repr__(self) -> str:
        return f"SharePartition({self.group_id}, {self.tip}, {self.start_offset}..{self.end_offset})"
