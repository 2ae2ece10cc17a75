"""DelayedFetch: a fetch waiting for enough bytes (Kafka's kafka.server.DelayedFetch).

Seed 002: "a consumer can ... specify a minimum number of bytes it needs to wait for the response,
and a maximum amount of time it can afford to wait ... this fetch request will be first put into a
purgatory structure, and will wait for enough bytes to be accumulated."

The operation watches the partitions it reads. An append that moves a partition's high watermark
calls check_and_complete on that partition's key, and try_complete adds up what is now readable:

  A. a partition is gone, or the fetch offset is no longer in its log  -> complete now (with the error)
  B. the bytes readable below the HW reach fetch.min.bytes              -> complete now
     (below the last stable offset for a read_committed fetch, the log end for a follower's)
  otherwise wait; after fetch.max.wait.ms expire with whatever there is.

Bytes are counted as Kafka counts them, without reading: the difference between two file positions
(LogOffsetMetadata), the fetch offset's and the high watermark's, when both are in one segment.

on_complete reads the data afresh and hands it to the callback KafkaApis passed in.
"""

from __future__ import annotations

from collections.abc import Callable

from kafka.log.fetch_isolation import FetchIsolation
from kafka.purgatory.delayed_operation import DelayedOperation


class DelayedFetch(DelayedOperation):
    def __init__(self, delay_ms: int, params, fetch_infos: list, replica_manager,
                 response_callback: Callable[[list], None], fetch_positions: dict | None = None) -> None:
        super().__init__(delay_ms)
        self.params = params
        self.fetch_infos = fetch_infos  # [(TopicPartition, FetchPartitionInfo)] in request order
        self.replica_manager = replica_manager
        self.response_callback = response_callback
        # TopicPartition -> LogOffsetMetadata of the fetch offset, as the first read found it
        self._fetch_positions: dict = dict(fetch_positions or {})

    def try_complete(self) -> bool:
        """Complete now (force_complete) if a partition is gone or its offset left the log (case A), or if
        the bytes readable below each partition's end add up to params.min_bytes (case B); else False."""
        # BEGIN LAB 04 SOLUTION: case A (partition gone, offset outside the log), case B (bytes below the HW
        # >= min_bytes)
        accumulated = 0
        for tp, info in self.fetch_infos:
            partition = self.replica_manager.get_partition(tp)
            if partition is None:
                return self.force_complete()  # case A: the partition went away
            log = partition.log
            if not log.log_start_offset <= info.fetch_offset <= log.log_end_offset:
                return self.force_complete()  # case A: the offset fell out of the log
            isolation = self.params.isolation  # a follower to the log end, read_committed to the LSO
            end_offset = (log.log_end_offset if isolation == FetchIsolation.LOG_END
                          else partition.high_watermark if isolation == FetchIsolation.HIGH_WATERMARK
                          else partition.last_stable_offset)
            if end_offset <= info.fetch_offset:
                continue
            fetch_position = self._fetch_offset_metadata(tp, log, info.fetch_offset)
            end_position = (log.log_end_offset_metadata if end_offset == log.log_end_offset
                            else log.convert_to_offset_metadata(end_offset))
            if fetch_position.on_older_segment(end_position):
                return self.force_complete()  # a whole segment or more is waiting: plenty
            accumulated += min(end_position.position_diff(fetch_position), info.max_bytes)
        if accumulated >= self.params.min_bytes:
            return self.force_complete()  # case B
        return False
        # END LAB 04 SOLUTION

    def _fetch_offset_metadata(self, tp, log, fetch_offset: int):
        """Where the fetch starts in the log: as the first read found it (Kafka's startOffsetMetadata),
        or looked up once when that read could not say (it stopped at the high watermark, say)."""
        metadata = self._fetch_positions.get(tp)
        if metadata is None:
            metadata = self._fetch_positions[tp] = log.convert_to_offset_metadata(fetch_offset)
        return metadata

    def on_expiration(self) -> None:
        self.replica_manager.record_expired_fetch()

    def on_complete(self) -> None:
        results = self.replica_manager.read_from_local_log(self.params, self.fetch_infos, zero_copy=True)
        self.response_callback(results)
