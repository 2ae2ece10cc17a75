"""DelayedShareFetch: a share fetch waiting for records to acquire (Kafka's
kafka.server.share.DelayedShareFetch).

A ShareFetch always passes through the purgatory, as a long poll: try_complete takes each share
partition's fetch lock (one fetch acquires for a share partition at a time), reads from each one's
next fetch offset, and completes when the bytes there reach the request's min bytes (counted as
DelayedFetch counts them, from log positions), when a read failed, or, at the latest, when max wait
runs out; otherwise it lets the locks go and waits. It waits under the partitions'
TopicPartitionOperationKey, which every append checks (new records), and under a
DelayedShareFetchGroupKey per share partition, which a release, a lock timeout or a moved start
offset checks (records available again). on_complete acquires records for the member from what was
read (ShareFetchUtils) and completes the request's future: the I/O thread is long gone by then.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

import structlog

from kafka.protocol.errors import Errors
from kafka.purgatory.delayed_operation import DelayedOperation
from kafka.server.fetch_partition_data import FetchPartitionData
from kafka.server.share.share_errors import ShareError
from kafka.server.share.share_fetch import ShareFetch
from kafka.server.share.share_fetch_utils import process_fetch_response
from kafka.server.share.share_group_metrics import ShareGroupMetrics
from kafka.utils.time import Time
from kafka.utils.topic_id_partition import TopicIdPartition

log = structlog.get_logger("kafka.server.share.DelayedShareFetch")


class DelayedShareFetch(DelayedOperation):
    def __init__(self, share_fetch: ShareFetch, log_reader, metadata_provider,
                 exception_handler: Callable, share_partitions: dict, metrics: ShareGroupMetrics, time: Time,
                 notify_released: Callable[[str, list], None]) -> None:
        super().__init__(share_fetch.fetch_params.max_wait_ms)
        self.share_fetch = share_fetch
        self.log_reader = log_reader
        self.metadata_provider = metadata_provider
        self.exception_handler = exception_handler  # (SharePartition, error): drops a fenced share partition
        self.share_partitions = share_partitions  # TopicIdPartition -> SharePartition, in request order
        self.metrics = metrics
        self.time = time
        self.notify_released = notify_released  # other fetches may take the fetch locks we let go
        self.fetch_id = uuid.uuid4()
        self.partitions_acquired: dict[TopicIdPartition, int] = {}  # fetch locks held -> fetch offset
        self.already_fetched: dict[TopicIdPartition, FetchPartitionData] = {}
        self._acquire_start_ms = time.hi_res_clock_ms()

    # ------------------------------------------------------------------ DelayedOperation
    def try_complete(self) -> bool:
        fetch_offsets = self.acquirable_partitions()
        if not fetch_offsets:
            return False
        self._record_acquire_time()
        try:
            read = self._read(self._without_known_position(fetch_offsets))
            for tip, data in read.items():
                if data.error == Errors.NONE:
                    self.share_partitions[tip].update_fetch_offset_metadata(fetch_offsets[tip],
                                                                            data.fetch_offset_metadata)
            if any(data.error != Errors.NONE
                   for data in read.values()) or self._min_bytes_satisfied(fetch_offsets):
                self.partitions_acquired, self.already_fetched = fetch_offsets, read
                if self.force_complete():
                    return True
                # The reaper completed it first; its on_complete waits for our lock and must not use
                # what we read: it takes the fetch locks again itself.
                self.partitions_acquired, self.already_fetched = {}, {}
        except Exception:  # noqa: BLE001  (a failed read answers the request with what it has)
            log.exception("error processing a delayed share fetch", group=self.share_fetch.group_id)
            self._release_partition_locks(fetch_offsets)
            return self.force_complete()
        self._release_partition_locks(fetch_offsets)
        return False

    def on_complete(self) -> None:
        """Under the operation's lock, as Kafka's: the reaper's expiry calls this while a try_complete on
        another thread may be holding fetch locks and setting partitions_acquired."""
        with self.lock:
            self._complete()

    def _complete(self) -> None:
        fetch_offsets = self.partitions_acquired or self.acquirable_partitions()
        if not fetch_offsets:
            self.metrics.record_topic_partitions_fetch_ratio(self.share_fetch.group_id, 0)
            self.share_fetch.maybe_complete({})
            return
        self.metrics.record_topic_partitions_fetch_ratio(
            self.share_fetch.group_id,
            int(100 * len(fetch_offsets) / len(self.share_fetch.topic_id_partitions)))
        try:
            missing = {tip: offset for tip, offset in fetch_offsets.items()
                       if tip not in self.already_fetched}
            read = {**self._read(missing), **self.already_fetched}
            ordered = [(tip, fetch_offsets[tip], read[tip]) for tip in fetch_offsets if tip in read]
            self.share_fetch.maybe_complete(process_fetch_response(self.share_fetch, ordered,
                                                                   self.share_partitions,
                                                                   self.metadata_provider,
                                                                   self.exception_handler))
        except Exception as e:  # noqa: BLE001
            log.exception("error completing a delayed share fetch", group=self.share_fetch.group_id)
            error = e if isinstance(e, ShareError) else ShareError(Errors.UNKNOWN_SERVER_ERROR, str(e))
            for tip in fetch_offsets:
                self.exception_handler(self.share_partitions[tip], error)
            self.share_fetch.maybe_complete_with_exception(list(fetch_offsets), error)
        finally:
            self._release_partition_locks(fetch_offsets)
            self.notify_released(self.share_fetch.group_id, list(fetch_offsets))

    def on_expiration(self) -> None:
        self.metrics.expired_share_fetches.inc()

    # ------------------------------------------------------------------ the fetch locks
    def acquirable_partitions(self) -> dict[TopicIdPartition, int]:
        """The partitions whose fetch lock this fetch took and that have records to give: their next
        fetch offsets."""
        result: dict[TopicIdPartition, int] = {}
        for tip, share_partition in self.share_partitions.items():
            if tip in self.share_fetch.erroneous:
                continue
            if not share_partition.maybe_acquire_fetch_lock(self.fetch_id):
                continue
            try:
                if share_partition.can_acquire_records():
                    result[tip] = share_partition.next_fetch_offset()
                    continue
            except Exception:  # noqa: BLE001
                log.exception("error checking a share partition", group=self.share_fetch.group_id,
                              partition=str(tip))
            share_partition.release_fetch_lock(self.fetch_id)
        return result

    def _release_partition_locks(self, fetch_offsets: dict[TopicIdPartition, int]) -> None:
        for tip in fetch_offsets:
            self.share_partitions[tip].release_fetch_lock(self.fetch_id)

    def _record_acquire_time(self) -> None:
        now = self.time.hi_res_clock_ms()
        self.metrics.record_topic_partitions_acquire_time_ms(self.share_fetch.group_id,
                                                             now - self._acquire_start_ms)
        self._acquire_start_ms = now

    # ------------------------------------------------------------------ reading and counting
    def _read(self, fetch_offsets: dict[TopicIdPartition, int]) -> dict[TopicIdPartition, FetchPartitionData]:
        """Each partition from its offset, the request's max bytes shared evenly (Kafka's UNIFORM
        strategy)."""
        tips = self.share_fetch.filter_erroneous(fetch_offsets)
        if not tips:
            return {}
        per_partition = max(1, self.share_fetch.fetch_params.max_bytes // len(tips))
        return self.log_reader.read(self.share_fetch.fetch_params,
                                    {tip: (fetch_offsets[tip], per_partition) for tip in tips})

    def _without_known_position(self,
                                fetch_offsets: dict[TopicIdPartition, int]) -> dict[TopicIdPartition, int]:
        """The partitions whose fetch offset's place in the log is not known yet: those must be read to
        count."""
        return {tip: offset for tip, offset in fetch_offsets.items()
                if self.share_partitions[tip].fetch_offset_metadata(offset) is None}

    def _min_bytes_satisfied(self, fetch_offsets: dict[TopicIdPartition, int]) -> bool:
        """Bytes between each fetch offset and the end a consumer may read to, as DelayedFetch counts them."""
        per_partition = max(1, self.share_fetch.fetch_params.max_bytes // len(fetch_offsets))
        accumulated = 0
        for tip, fetch_offset in fetch_offsets.items():
            share_partition = self.share_partitions[tip]
            try:
                end = self.metadata_provider.end_offset_metadata(tip, self.share_fetch.fetch_params.isolation)
            except Exception as e:  # noqa: BLE001  (no longer the leader: the partition answers the error)
                error = ShareError(getattr(e, "error", Errors.UNKNOWN_SERVER_ERROR), str(e))
                self.share_fetch.add_erroneous(tip, error)
                self.exception_handler(share_partition, error)
                continue
            start = share_partition.fetch_offset_metadata(fetch_offset)
            if start is None or start.message_offset_only or end.message_offset_only:
                continue
            if start.message_offset > end.message_offset:
                return True  # the log moved under the fetch (truncated): answer now
            if start.message_offset < end.message_offset:
                if start.on_older_segment(end):
                    return True
                if start.on_same_segment(end):
                    accumulated += min(end.position_diff(start), per_partition)
        return accumulated >= self.share_fetch.fetch_params.min_bytes
