"""LogOffsetMetadata and FetchDataInfo: what a read returns (Kafka's classes of the same names).

Seed 002: a fetch turns an offset into "the range of bytes that need to be read from the
corresponding .log file". LogOffsetMetadata is that translation (offset -> segment and byte position);
FetchDataInfo carries the bytes read from there, or for a fetch the range itself (a FileRecords).
The purgatory's DelayedFetch compares two LogOffsetMetadata (the fetch position and the high
watermark or log end) to count the bytes ready.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka.log.file_records import FileRecords
from kafka.log.transaction_index import AbortedTxn

UNKNOWN = -1


@dataclass(frozen=True, slots=True)
class LogOffsetMetadata:
    """An offset, and where it is on disk when known: the segment's base offset and byte position."""

    message_offset: int
    segment_base_offset: int = UNKNOWN
    relative_position_in_segment: int = UNKNOWN

    @property
    def message_offset_only(self) -> bool:
        return self.segment_base_offset == UNKNOWN

    def on_same_segment(self, that: LogOffsetMetadata) -> bool:
        return not self.message_offset_only and self.segment_base_offset == that.segment_base_offset

    def on_older_segment(self, that: LogOffsetMetadata) -> bool:
        """True if `self` lies in a segment before `that`'s (both positions must be known)."""
        return self.segment_base_offset < that.segment_base_offset

    def position_diff(self, that: LogOffsetMetadata) -> int:
        """Bytes between `that` and `self` in the same segment (DelayedFetch's "enough bytes yet?")."""
        if not self.on_same_segment(that):
            raise ValueError(f"{self} and {that} are not on the same segment")
        return self.relative_position_in_segment - that.relative_position_in_segment


@dataclass(frozen=True, slots=True)
class FetchDataInfo:
    """The result of a read: where it started and the whole record batches read from there."""

    fetch_offset_metadata: LogOffsetMetadata
    records: bytes | FileRecords = b""  # a FileRecords slice when read for the network (zero copy)
    # Kafka sets this when min_one_message was off and the first batch did not fit: the caller
    # (a follower fetch with a tiny size) learns that it must ask for more bytes.
    first_entry_incomplete: bool = False
    # A read_committed read of remote storage: the aborted transactions among its records (None otherwise).
    aborted_transactions: list[AbortedTxn] | None = None

    @property
    def size_in_bytes(self) -> int:
        return len(self.records)
