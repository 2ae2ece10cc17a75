"""RemoteIndexCache: the offset, time and transaction indexes of remote segments, fetched once and kept on
local disk (Kafka's org.apache.kafka.storage.internals.log.RemoteIndexCache and its Entry).

A read of a remote segment starts as a local read does: the sparse offset index says where in the segment
the fetch offset's batch begins, so only the bytes from there are streamed from remote storage. Fetching
the index from the store on every read would double the round trips, so the reader keeps the indexes of
the segments it has read under the log dir:

    <log dir>/remote-log-index-cache/<start offset>_<remote segment id>.index
                                                                      .timeindex
                                                                      .txnindex   (empty: no aborts)

An LRU over them, weighed in bytes, holds at most remote.log.index.file.cache.total.size.bytes (Kafka's
default 1 GiB): adding an entry past that evicts the least recently used ones, whose files are renamed
`.deleted` and removed. A restarted broker finds the files still there and starts warm; a `.tmp` (a fetch
cut short) or `.deleted` file left by a crash is removed, as is an entry missing one of its three files.

Kafka mmaps each index and so deletes evicted ones on a cleaner thread once no reader maps them; here an
Entry's indexes are read into memory when it is created (OffsetIndex and TimeIndex keep their entries in
arrays), so a reader holding an evicted Entry keeps working and its files can go at once.

Fetching an index blocks on the store: only the reader threads call get_index_entry. Two readers of a
segment not cached yet fetch it once: the second waits for the first.
"""

from __future__ import annotations

import base64
import os
import shutil
import threading
import uuid
from collections import OrderedDict
from concurrent.futures import Future
from typing import BinaryIO

import structlog

from kafka.log.errors import CorruptIndexError
from kafka.log.log_file_utils import (
    DELETED_FILE_SUFFIX,
    INDEX_FILE_SUFFIX,
    TIME_INDEX_FILE_SUFFIX,
    TXN_INDEX_FILE_SUFFIX,
)
from kafka.log.offset_index import OffsetIndex, OffsetPosition
from kafka.log.remote.remote_log_segment_metadata import RemoteLogSegmentMetadata
from kafka.log.remote.remote_storage_manager import (
    IndexType,
    RemoteResourceNotFoundException,
    RemoteStorageManager,
)
from kafka.log.time_index import TimeIndex
from kafka.log.transaction_index import TransactionIndex
from kafka.utils.uuid import uuid_to_string

log = structlog.get_logger("kafka.log.remote.RemoteIndexCache")

DIR_NAME = "remote-log-index-cache"
TMP_FILE_SUFFIX = ".tmp"
_INT_MAX = 2**31 - 1  # a remote index is never appended to: no entry limit


class Entry:
    """One remote segment's three indexes (Kafka's RemoteIndexCache.Entry)."""

    def __init__(self, offset_index: OffsetIndex, time_index: TimeIndex, txn_index: TransactionIndex) -> None:
        self.offset_index = offset_index
        self.time_index = time_index
        self.txn_index = txn_index
        self.marked_for_cleanup = False
        txn_size = os.path.getsize(txn_index.path) if os.path.exists(txn_index.path) else 0
        self.entry_size_bytes = offset_index.size_in_bytes + time_index.size_in_bytes + txn_size

    def lookup_offset(self, target_offset: int) -> OffsetPosition:
        """The largest indexed offset <= target_offset and its byte position in the remote segment."""
        return self.offset_index.lookup(target_offset)

    def lookup_timestamp(self, timestamp: int, starting_offset: int) -> OffsetPosition:
        """Where a search for the first record at or after `timestamp` (and starting_offset) may begin."""
        return self.offset_index.lookup(max(starting_offset, self.time_index.lookup(timestamp).offset))

    def mark_for_cleanup(self) -> None:
        """Evicted: rename the files `.deleted`, so a restart knows they are not part of the cache."""
        if not self.marked_for_cleanup:
            self.marked_for_cleanup = True
            for index in (self.offset_index, self.time_index, self.txn_index):
                if os.path.exists(index.path):
                    index.rename_to(index.path + DELETED_FILE_SUFFIX)

    def cleanup(self) -> None:
        self.mark_for_cleanup()
        for index in (self.offset_index, self.time_index, self.txn_index):
            index.delete()

    def __repr__(self) -> str:
        return f"Entry({os.path.basename(self.offset_index.path)}, {self.entry_size_bytes} bytes)"


class RemoteIndexCache:
    def __init__(self, max_size_bytes: int, remote_storage_manager: RemoteStorageManager,
                 log_dir: str) -> None:
        self.max_size_bytes = max_size_bytes
        self.remote_storage_manager = remote_storage_manager
        self.cache_dir = os.path.join(log_dir, DIR_NAME)
        self._lock = threading.Lock()
        self._entries: OrderedDict[uuid.UUID, Entry] = OrderedDict()  # least recently used first
        self._loading: dict[uuid.UUID, Future[Entry]] = {}
        self._size_bytes = 0
        self._closed = False
        self._init()

    # ------------------------------------------------------------------------------ lookups

    def lookup_offset(self, metadata: RemoteLogSegmentMetadata, offset: int) -> int:
        """The byte position in the remote segment to read from for `offset` (Kafka's lookupOffset)."""
        return self.get_index_entry(metadata).lookup_offset(offset).position

    def lookup_timestamp(self, metadata: RemoteLogSegmentMetadata, timestamp: int,
                         starting_offset: int) -> int:
        return self.get_index_entry(metadata).lookup_timestamp(timestamp, starting_offset).position

    def get_index_entry(self, metadata: RemoteLogSegmentMetadata) -> Entry:
        """The segment's indexes, from the cache or else fetched from remote storage into it."""
        key = metadata.remote_log_segment_id.id
        with self._lock:
            if self._closed:
                raise RuntimeError(f"the remote index cache is closed: cannot fetch the indexes of {key}")
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                return entry
            loading = self._loading.get(key)
            loader = loading is None
            if loader:
                loading = self._loading[key] = Future()
        if not loader:
            return loading.result()  # another reader is fetching the same segment's indexes
        try:
            entry = self._create_cache_entry(metadata)
        except BaseException as e:
            with self._lock:
                del self._loading[key]
            loading.set_exception(e)
            raise
        with self._lock:
            del self._loading[key]
            self._put(key, entry)
        loading.set_result(entry)
        return entry

    # ------------------------------------------------------------------------------ the cache

    def _put(self, key: uuid.UUID, entry: Entry) -> None:
        """Add an entry and evict the least recently used ones past the size (called under the lock)."""
        self._entries[key] = entry
        self._size_bytes += entry.entry_size_bytes
        self._evict()

    def _evict(self) -> None:
        while self._size_bytes > self.max_size_bytes and self._entries:
            key, evicted = self._entries.popitem(last=False)
            self._size_bytes -= evicted.entry_size_bytes
            log.debug("evicting remote indexes", segment=str(key), entry=repr(evicted))
            evicted.cleanup()

    def remove(self, key: uuid.UUID) -> None:
        """Forget a segment (its remote copy was deleted) and delete its files."""
        self.remove_all([key])

    def remove_all(self, keys) -> None:
        with self._lock:
            for key in keys:
                entry = self._entries.pop(key, None)
                if entry is not None:
                    self._size_bytes -= entry.entry_size_bytes
                    entry.cleanup()

    def resize_cache_size(self, max_size_bytes: int) -> None:
        """remote.log.index.file.cache.total.size.bytes changed (a dynamic broker config in Kafka)."""
        with self._lock:
            self.max_size_bytes = max_size_bytes
            self._evict()

    @property
    def size_bytes(self) -> int:
        return self._size_bytes

    def __contains__(self, key: uuid.UUID) -> bool:
        with self._lock:
            return key in self._entries

    def close(self) -> None:
        with self._lock:
            self._closed = True

    # ------------------------------------------------------------------------------ files

    def _create_cache_entry(self, metadata: RemoteLogSegmentMetadata) -> Entry:
        start_offset = metadata.start_offset
        prefix = _file_name_prefix(metadata)
        offset_index = self._load_index_file(prefix + INDEX_FILE_SUFFIX, metadata, IndexType.OFFSET,
                                             lambda path: OffsetIndex(path, start_offset, _INT_MAX))
        time_index = self._load_index_file(prefix + TIME_INDEX_FILE_SUFFIX, metadata, IndexType.TIMESTAMP,
                                           lambda path: TimeIndex(path, start_offset, _INT_MAX))
        txn_index = self._load_index_file(prefix + TXN_INDEX_FILE_SUFFIX, metadata, IndexType.TRANSACTION,
                                          lambda path: TransactionIndex(start_offset, path))
        return Entry(offset_index, time_index, txn_index)

    def _load_index_file(self, file_name: str, metadata: RemoteLogSegmentMetadata, index_type: IndexType,
                         open_index):
        """The index from the cache directory, or fetched into it first (Kafka's loadIndexFile): a
        damaged file is fetched again, and a fetch lands in a `.tmp` file renamed when whole."""
        path = os.path.join(self.cache_dir, file_name)
        if os.path.exists(path):
            try:
                return _checked(open_index(path))
            except CorruptIndexError as e:
                log.info("fetching a damaged cached remote index again", path=path, error=str(e))
        temporary = path + TMP_FILE_SUFFIX
        with self._fetch_index(metadata, index_type) as stream, open(temporary, "wb") as file:
            shutil.copyfileobj(stream, file)
        os.replace(temporary, path)
        return _checked(open_index(path))

    def _fetch_index(self, metadata: RemoteLogSegmentMetadata, index_type: IndexType) -> BinaryIO:
        try:
            return self.remote_storage_manager.fetch_index(metadata, index_type)
        except RemoteResourceNotFoundException:
            if index_type is not IndexType.TRANSACTION:
                raise
            return _EmptyStream()  # a segment without aborted transactions stores no .txnindex

    def _init(self) -> None:
        """Create the directory, drop what a crash left half done, and take in the entries on disk."""
        os.makedirs(self.cache_dir, exist_ok=True)
        names = set(os.listdir(self.cache_dir))
        for name in [n for n in names if n.endswith((DELETED_FILE_SUFFIX, TMP_FILE_SUFFIX))]:
            os.unlink(os.path.join(self.cache_dir, name))
            names.discard(name)
        for prefix in sorted({name.split(".", 1)[0] for name in names}):
            files = [os.path.join(self.cache_dir, prefix + suffix)
                     for suffix in (INDEX_FILE_SUFFIX, TIME_INDEX_FILE_SUFFIX, TXN_INDEX_FILE_SUFFIX)]
            parsed = _parse_file_name_prefix(prefix)
            try:
                if parsed is None or not all(os.path.exists(f) for f in files):
                    raise CorruptIndexError(f"incomplete remote index files {prefix}")
                start_offset, key = parsed
                entry = Entry(_checked(OffsetIndex(files[0], start_offset, _INT_MAX)),
                              _checked(TimeIndex(files[1], start_offset, _INT_MAX)),
                              _checked(TransactionIndex(start_offset, files[2])))
            except CorruptIndexError as e:
                log.info("removing cached remote indexes it cannot use", prefix=prefix, error=str(e))
                for f in files:
                    if os.path.exists(f):
                        os.unlink(f)
                continue
            self._put(key, entry)
        log.info("remote index cache started", dir=self.cache_dir, entries=len(self._entries),
                 size_bytes=self._size_bytes)


class _EmptyStream:
    """What an absent transaction index reads as: nothing."""

    def read(self, size: int = -1) -> bytes:
        return b""

    def __enter__(self) -> _EmptyStream:
        return self

    def __exit__(self, *exc) -> None:
        pass


def _checked(index):
    """Load the index into memory and check it (Kafka's sanityCheck), so an evicted file can go."""
    index.sanity_check()
    if isinstance(index, TransactionIndex):
        index.all_aborted_txns()
    return index


def _file_name_prefix(metadata: RemoteLogSegmentMetadata) -> str:
    """`<start offset>_<remote segment id>`, Kafka's generateFileNamePrefixForIndex."""
    return f"{metadata.start_offset}_{uuid_to_string(metadata.remote_log_segment_id.id)}"


def _parse_file_name_prefix(prefix: str) -> tuple[int, uuid.UUID] | None:
    offset, underscore, segment_id = prefix.partition("_")
    if not underscore or not offset.isdigit():
        return None
    try:
        return int(offset), uuid.UUID(bytes=base64.urlsafe_b64decode(segment_id + "=="))
    except ValueError:
        return None
