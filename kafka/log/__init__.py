"""The commit log (seed 002, "Kafka Physical Storage"): partition directories of segments, each a
.log file of record batches and a sparse .index from offsets to byte positions.

Mirrors Kafka's storage.internals.log package: LogManager -> UnifiedLog -> LogSegment -> OffsetIndex.
See docs/storage.md.
"""

from kafka.log.errors import (
    CorruptIndexError,
    CorruptRecordError,
    InvalidRecordError,
    LogDirError,
    OffsetOutOfRangeError,
    RecordBatchTooLargeError,
    RecordTooLargeError,
)
from kafka.log.fetch_data_info import FetchDataInfo, LogOffsetMetadata
from kafka.log.log_append_info import LogAppendInfo
from kafka.log.log_config import LogConfig
from kafka.log.log_manager import LogManager
from kafka.log.log_segment import LogSegment, TimestampAndOffset
from kafka.log.offset_index import OffsetIndex, OffsetPosition
from kafka.log.unified_log import UnifiedLog

__all__ = [
    "CorruptIndexError", "CorruptRecordError", "FetchDataInfo", "InvalidRecordError", "LogAppendInfo",
    "LogConfig", "LogDirError", "LogManager", "LogOffsetMetadata", "LogSegment", "OffsetIndex",
    "OffsetOutOfRangeError", "OffsetPosition", "RecordBatchTooLargeError", "RecordTooLargeError",
    "TimestampAndOffset", "UnifiedLog",
]
