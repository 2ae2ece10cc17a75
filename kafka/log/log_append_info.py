"""LogAppendInfo: what an append tells its caller (Kafka's LogAppendInfo).

The produce response is built from it: the base offset of the first batch the broker assigned, the
log append time (-1 while the topic uses CreateTime) and the log start offset.

An idempotent producer's retry of a batch already in the log (KIP-98) is not appended again: its
LogAppendInfo carries the offsets and log append time of the first append, `is_duplicate` set, and
counts no records or bytes.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LogAppendInfo:
    first_offset: int  # the offset assigned to the first record: the ProduceResponse's base_offset
    last_offset: int
    max_timestamp: int
    log_append_time: int = -1
    log_start_offset: int = 0
    num_messages: int = 0  # records, summed over the batches' recordsCount (no per-record work)
    valid_bytes: int = 0
    is_duplicate: bool = False  # a retry answered with its first append's offsets; nothing was written
