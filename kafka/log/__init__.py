"""The commit log (seed 002, "Kafka Physical Storage"): partition directories of segments, each a
.log file of record batches, a sparse .index from offsets to byte positions and a sparse .timeindex
from timestamps to offsets; checkpoints, crash recovery, retention and compaction.

Mirrors Kafka's storage.internals.log package: LogManager -> UnifiedLog -> LocalLog -> LogSegment (->
FileRecords) -> OffsetIndex, TimeIndex; LogLoader for recovery, LogCleaner for compaction;
ProducerStateManager for idempotent producers (KIP-98). See docs/storage.md.
"""

from kafka.log.append_origin import AppendOrigin
from kafka.log.errors import (
    CorruptIndexError,
    CorruptRecordError,
    CorruptSnapshotError,
    InvalidProducerEpochError,
    InvalidRecordError,
    LogDirError,
    OffsetOutOfRangeError,
    OutOfOrderSequenceError,
    RecordBatchTooLargeError,
    RecordTooLargeError,
)
from kafka.log.fetch_data_info import FetchDataInfo, LogOffsetMetadata
from kafka.log.file_records import TimestampAndOffset
from kafka.log.local_log import LocalLog
from kafka.log.log_append_info import LogAppendInfo
from kafka.log.log_cleaner import CleanerConfig, LogCleaner
from kafka.log.log_config import LogConfig
from kafka.log.log_loader import LogLoader
from kafka.log.log_manager import LogManager
from kafka.log.log_segment import LogSegment
from kafka.log.offset_checkpoint_file import OffsetCheckpointFile
from kafka.log.offset_index import OffsetIndex, OffsetPosition
from kafka.log.producer_append_info import ProducerAppendInfo
from kafka.log.producer_state_entry import BatchMetadata, ProducerStateEntry
from kafka.log.producer_state_manager import ProducerStateManager, ProducerStateManagerConfig
from kafka.log.time_index import TimeIndex
from kafka.log.unified_log import UnifiedLog

__all__ = [
    "AppendOrigin", "BatchMetadata", "CleanerConfig", "CorruptIndexError", "CorruptRecordError",
    "CorruptSnapshotError", "FetchDataInfo", "InvalidProducerEpochError", "InvalidRecordError",
    "LogAppendInfo",
    "LocalLog", "LogCleaner", "LogConfig", "LogDirError", "LogLoader", "LogManager", "LogOffsetMetadata",
    "LogSegment",
    "OffsetCheckpointFile", "OffsetIndex", "OffsetOutOfRangeError", "OffsetPosition",
    "OutOfOrderSequenceError",
    "ProducerAppendInfo", "ProducerStateEntry", "ProducerStateManager", "ProducerStateManagerConfig",
    "RecordBatchTooLargeError", "RecordTooLargeError", "TimeIndex", "TimestampAndOffset", "UnifiedLog",
]
