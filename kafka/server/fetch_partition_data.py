"""FetchPartitionInfo and FetchPartitionData: what a fetch asks of one partition and what it gets
back (Kafka's FetchRequest.PartitionData and FetchPartitionData). Both ReplicaManager and the
fetch-session cache speak them, so they live below both: a session remembers the partitions a client
reads without knowing the ReplicaManager that answers them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from kafka.log.fetch_data_info import LogOffsetMetadata
from kafka.log.file_records import FileRecords
from kafka.log.remote.remote_storage_fetch_info import RemoteStorageFetchInfo
from kafka.log.transaction_index import AbortedTxn
from kafka.protocol.errors import Errors


class EpochEndOffset(NamedTuple):
    """A Fetch answer's DivergingEpoch (Kafka's FetchResponseData.EpochEndOffset): the fetcher's last
    fetched epoch, or the largest epoch below it that the leader knows, and where it ends in the
    leader's log."""

    epoch: int
    end_offset: int


@dataclass(frozen=True)
class FetchPartitionInfo:
    fetch_offset: int
    max_bytes: int  # partition_max_bytes
    current_leader_epoch: int = -1  # -1: the client does not say which epoch it expects
    last_fetched_epoch: int = -1  # the epoch of the fetcher's last batch (Fetch v12+); -1: not checked


@dataclass
class FetchPartitionData:
    """One partition's fetch result (Kafka's FetchPartitionData)."""

    error: Errors
    high_watermark: int = -1
    log_start_offset: int = -1
    last_stable_offset: int = -1
    records: bytes | FileRecords = b""
    # read_committed only: the aborted transactions overlapping the records (None otherwise).
    aborted_transactions: list[AbortedTxn] | None = None
    # Where the read started in the log (Kafka's LogReadResult.info.fetchOffsetMetadata): a fetch that
    # has to wait counts the bytes arriving after it from here, without looking the offset up again.
    fetch_offset_metadata: LogOffsetMetadata | None = None
    # The fetcher's log diverged from the leader's: where its last fetched epoch ends here (no records).
    diverging_epoch: EpochEndOffset | None = None
    # The records are only in remote storage (Kafka's FetchDataInfo.delayedRemoteStorageFetch): a reader
    # thread reads them, and the fetch waits in the remote-fetch purgatory meanwhile.
    delayed_remote_storage_fetch: RemoteStorageFetchInfo | None = None
