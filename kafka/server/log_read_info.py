"""LogReadInfo: what a Partition read hands back to the ReplicaManager (Kafka's LogReadInfo), and
next_offset_after, where the records of such a read end (a read_committed fetch bounds its aborted
transactions by it).
"""

from __future__ import annotations

import collections
from dataclasses import dataclass

from kafka.log.fetch_data_info import LogOffsetMetadata
from kafka.log.file_records import LOOKUP_CHUNK, FileRecords
from kafka.log.transaction_index import AbortedTxn
from kafka.protocol.record_batch import iter_batches
from kafka.server.fetch_partition_data import EpochEndOffset


@dataclass
class LogReadInfo:
    records: bytes | FileRecords
    high_watermark: int
    log_start_offset: int
    log_end_offset: int
    last_stable_offset: int = -1
    aborted_transactions: list[AbortedTxn] | None = None  # read_committed only
    fetch_offset_metadata: LogOffsetMetadata | None = None  # where the read started, when the log knows
    # The fetcher's log diverged from this one: its last fetched epoch ends here (no records are read).
    diverging_epoch: EpochEndOffset | None = None


def next_offset_after(records: bytes | FileRecords) -> int | None:
    """The offset after the last whole batch of a read (None when it holds none), from the headers
    alone."""
    if isinstance(records, FileRecords):
        headers = (h for _, h in records.batches_from(records.position, LOOKUP_CHUNK))
    else:
        headers = iter_batches(records)
    last = collections.deque(headers, maxlen=1)
    return last[0].last_offset + 1 if last else None
