"""DelayedFetch: a fetch waiting for enough bytes (Kafka's kafka.server.DelayedFetch).

Seed 002: "a consumer can ... specify a minimum number of bytes it needs to wait for the response,
and a maximum amount of time it can afford to wait ... this fetch request will be first put into a
purgatory structure, and will wait for enough bytes to be accumulated."

The operation watches the partitions it reads. An append that moves a partition's high watermark
calls check_and_complete on that partition's key, and try_complete adds up what is now readable:

  A. a partition is gone, or the fetch offset is no longer in its log  -> complete now (with the error)
  B. the bytes readable below the HW reach fetch.min.bytes              -> complete now
  otherwise wait; after fetch.max.wait.ms expire with whatever there is.

on_complete reads the data afresh and hands it to the callback KafkaApis passed in.
"""

from __future__ import annotations

from collections.abc import Callable

from kafka.log.errors import OffsetOutOfRangeError
from kafka.purgatory.delayed_operation import DelayedOperation


class DelayedFetch(DelayedOperation):
    def __init__(self, delay_ms: int, params, fetch_infos: list, replica_manager,
                 response_callback: Callable[[list], None]) -> None:
        super().__init__(delay_ms)
        self.params = params
        self.fetch_infos = fetch_infos  # [(TopicPartition, FetchPartitionInfo)] in request order
        self.replica_manager = replica_manager
        self.response_callback = response_callback

    def try_complete(self) -> bool:
        accumulated = 0
        for tp, info in self.fetch_infos:
            partition = self.replica_manager.get_partition(tp)
            if partition is None:
                return self.force_complete()  # case A: the partition went away
            log = partition.log
            bound = partition.high_watermark if self.params.fetch_only_committed else log.log_end_offset
            if info.fetch_offset < log.log_start_offset or info.fetch_offset > log.log_end_offset:
                return self.force_complete()  # case A: the offset fell out of the log
            if bound <= info.fetch_offset:
                continue
            accumulated += self._readable_bytes(partition, info, self.params.min_bytes - accumulated)
            if accumulated >= self.params.min_bytes:
                return self.force_complete()  # case B
        return False

    def _readable_bytes(self, partition, info, wanted: int) -> int:
        # Kafka subtracts two file positions; we read up to what is still wanted, whole batches only.
        try:
            read = partition.read_records(info.fetch_offset, max(1, min(wanted, info.max_bytes)),
                                          fetch_only_committed=self.params.fetch_only_committed,
                                          min_one_message=True)
        except OffsetOutOfRangeError:
            return wanted
        return len(read.records)

    def on_expiration(self) -> None:
        self.replica_manager.record_expired_fetch()

    def on_complete(self) -> None:
        results = self.replica_manager.read_from_local_log(self.params, self.fetch_infos)
        self.response_callback(results)
