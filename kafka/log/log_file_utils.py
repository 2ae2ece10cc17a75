"""LogFileUtils: the names of a partition directory's segment files (Kafka's
org.apache.kafka.storage.internals.log.LogFileUtils).

A segment's files are named after its base offset, zero-padded to 20 digits so that a directory
listing sorts them in log order: `00000000000000000042.log` with its `.index`, `.timeindex` and
`.txnindex`. A suffix after that one says what is happening to the segment: `.deleted` (waiting for
file.delete.delay.ms before it is unlinked), `.cleaned` (the LogCleaner is writing it), `.swap` (a
cleaned segment complete on disk, about to replace the original). The producer-state `.snapshot`
files are named the same way, by ProducerStateManager.
"""

from __future__ import annotations

import os

LOG_FILE_SUFFIX = ".log"
INDEX_FILE_SUFFIX = ".index"
TIME_INDEX_FILE_SUFFIX = ".timeindex"
TXN_INDEX_FILE_SUFFIX = ".txnindex"
DELETED_FILE_SUFFIX = ".deleted"  # a segment waiting for file.delete.delay.ms before it is unlinked
CLEANED_FILE_SUFFIX = ".cleaned"  # a segment the LogCleaner is writing
SWAP_FILE_SUFFIX = ".swap"  # a cleaned segment complete on disk, about to replace the original


def filename_prefix_from_offset(offset: int) -> str:
    """Kafka's LogFileUtils.filenamePrefixFromOffset: 20 digits, so names sort like offsets."""
    return f"{offset:020d}"


def log_file(dir: str, base_offset: int) -> str:
    return os.path.join(dir, filename_prefix_from_offset(base_offset) + LOG_FILE_SUFFIX)


def offset_index_file(dir: str, base_offset: int) -> str:
    return os.path.join(dir, filename_prefix_from_offset(base_offset) + INDEX_FILE_SUFFIX)


def time_index_file(dir: str, base_offset: int) -> str:
    return os.path.join(dir, filename_prefix_from_offset(base_offset) + TIME_INDEX_FILE_SUFFIX)


def txn_index_file(dir: str, base_offset: int) -> str:
    return os.path.join(dir, filename_prefix_from_offset(base_offset) + TXN_INDEX_FILE_SUFFIX)


def offset_from_file_name(name: str) -> int:
    """The base offset a segment file's name starts with (Kafka's offsetFromFileName)."""
    return int(os.path.basename(name).split(".", 1)[0])
