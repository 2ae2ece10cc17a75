"""TransactionIndex: a segment's `%020d.txnindex`, the aborted transactions whose markers it holds
(Kafka's org.apache.kafka.storage.internals.log.TransactionIndex, AbortedTxn and TxnIndexSearchResult,
KIP-98).

Seed 004 made a retried batch harmless; transactions go further: a producer's writes to several
partitions are all committed or all aborted, and a `read_committed` consumer must never see the
aborted ones. The broker does not rewrite or filter records for it: it tells the consumer, in each
FetchResponse, which producers aborted which offset ranges in the data it returns, and the consumer
drops those records itself. This file is where the broker finds them without reading the log: one
entry per aborted transaction, appended when its ABORT marker is written to the segment.

An entry is 34 bytes, big-endian: version int16 (0) | producer id int64 | first offset int64 (the
transaction's first record in this partition) | last offset int64 (its ABORT marker) | last stable
offset int64 (the LSO once the marker was written: how far a search must go to be complete).
Entries are in the order of their markers, so their last offsets increase.

Like Kafka's, the file is created on the first entry (most segments have no aborted transaction).
The entries are also kept in memory, read on first use and replaced whole on truncation, so a fetch
may read them without the log's lock. No descriptor is held between uses: an append opens the file,
writes its 34 bytes and closes it (aborts are rare), as the offset and time indexes do.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass

from kafka.log.errors import CorruptIndexError

CURRENT_VERSION = 0
_ENTRY = struct.Struct(">hqqqq")
ENTRY_SIZE = _ENTRY.size  # 34


@dataclass(frozen=True, slots=True)
class AbortedTxn:
    """One aborted transaction of one producer in one partition (Kafka's AbortedTxn)."""

    producer_id: int
    first_offset: int
    last_offset: int
    last_stable_offset: int
    version: int = CURRENT_VERSION

    def as_aborted_transaction(self) -> dict:
        """The FetchResponse's AbortedTransaction: who aborted, and from where."""
        return dict(producer_id=self.producer_id, first_offset=self.first_offset)

    def __str__(self) -> str:
        return (f"AbortedTxn(version={self.version}, producerId={self.producer_id}, "
                f"firstOffset={self.first_offset}, lastOffset={self.last_offset}, "
                f"lastStableOffset={self.last_stable_offset})")


@dataclass(frozen=True, slots=True)
class TxnIndexSearchResult:
    """The aborted transactions found in one segment, and whether the search may stop there."""

    aborted_transactions: list[AbortedTxn]
    is_complete: bool


class TransactionIndex:
    def __init__(self, start_offset: int, path: str) -> None:
        self.start_offset = start_offset  # the segment's base offset
        self.path = path
        self._entries: list[AbortedTxn] | None = None  # read from the file on first use

    # ------------------------------------------------------------------------------ file

    @property
    def exists(self) -> bool:
        return os.path.exists(self.path)

    def _load(self) -> list[AbortedTxn]:
        entries = self._entries
        if entries is None:
            entries = self._entries = self._read_file()
        return entries

    def _read_file(self) -> list[AbortedTxn]:
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return []
        try:
            return read_entries(os.pread(fd, os.fstat(fd).st_size, 0))
        finally:
            os.close(fd)

    # ------------------------------------------------------------------------------ writing

    def append(self, aborted_txn: AbortedTxn) -> None:
        entries = self._load()
        if entries and entries[-1].last_offset >= aborted_txn.last_offset:
            raise ValueError(f"The last offset of appended transactions must increase sequentially, but "
                             f"{aborted_txn.last_offset} is not greater than current last offset "
                             f"{entries[-1].last_offset} of index {self.path}")
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            os.write(fd, _ENTRY.pack(aborted_txn.version, aborted_txn.producer_id, aborted_txn.first_offset,
                                     aborted_txn.last_offset, aborted_txn.last_stable_offset))
        finally:
            os.close(fd)
        entries.append(aborted_txn)

    def flush(self) -> None:
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return  # no aborted transaction in this segment: no file
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def truncate_to(self, offset: int) -> None:
        """Drop the entries whose marker is at or after `offset` (the log was cut there)."""
        entries = self._load()
        keep = len(entries)
        while keep and entries[keep - 1].last_offset >= offset:
            keep -= 1
        if keep < len(entries):
            self._entries = entries[:keep]
            os.truncate(self.path, keep * ENTRY_SIZE)

    def reset(self) -> None:
        """Empty the index (a segment being recovered gets its entries again from the replay)."""
        self._entries = []
        if os.path.exists(self.path):
            os.truncate(self.path, 0)

    def close(self) -> None:
        """Nothing to close: no descriptor is held between uses."""

    def rename_to(self, path: str) -> None:
        """Follow the segment's rename (.deleted, .swap, .cleaned): an open descriptor follows too."""
        if os.path.exists(self.path):
            os.rename(self.path, path)
        self.path = path

    def delete(self) -> bool:
        self.close()
        try:
            os.unlink(self.path)
            return True
        except FileNotFoundError:
            return False

    # ------------------------------------------------------------------------------ reading

    def all_aborted_txns(self) -> list[AbortedTxn]:
        return list(self._load())

    @property
    def last_offset(self) -> int | None:
        """The last marker offset indexed, or None for an empty index."""
        entries = self._load()
        return entries[-1].last_offset if entries else None

    def collect_aborted_txns(self, fetch_offset: int, upper_bound_offset: int) -> TxnIndexSearchResult:
        """The aborted transactions overlapping [fetch_offset, upper_bound_offset) (Kafka's
        collectAbortedTxns). Complete once an entry's last stable offset reaches the upper bound: every
        transaction that could overlap the range was open before that LSO, so it ended by then."""
        found = []
        for aborted_txn in self._load():
            if aborted_txn.last_offset >= fetch_offset and aborted_txn.first_offset < upper_bound_offset:
                found.append(aborted_txn)
            if aborted_txn.last_stable_offset >= upper_bound_offset:
                return TxnIndexSearchResult(found, True)
        return TxnIndexSearchResult(found, False)

    def sanity_check(self) -> None:
        """Kafka's sanityCheck: every entry belongs to this segment and is whole."""
        try:
            size = os.stat(self.path).st_size
        except FileNotFoundError:
            return
        if size % ENTRY_SIZE:
            raise CorruptIndexError(f"Transaction index file {self.path} has a size of {size}, "
                                    f"not a multiple of the entry size {ENTRY_SIZE}")
        self._entries = None
        for aborted_txn in self._load():
            if aborted_txn.version != CURRENT_VERSION:
                raise CorruptIndexError(f"Unexpected aborted transaction version {aborted_txn.version} "
                                        f"in transaction index {self.path}, "
                                        f"current version is {CURRENT_VERSION}")
            if aborted_txn.last_offset < self.start_offset:
                raise CorruptIndexError(f"Last offset of aborted transaction {aborted_txn} in index "
                                        f"{self.path} is less than start offset {self.start_offset}")

    def __repr__(self) -> str:
        return f"TransactionIndex(start_offset={self.start_offset}, path={self.path!r})"


def read_entries(data: bytes) -> list[AbortedTxn]:
    """The entries of a `.txnindex` file's bytes. A torn last entry (a crash in the middle of a
    write) is left out; sanity_check reports it."""
    return [AbortedTxn(producer_id, first_offset, last_offset, last_stable_offset, version)
            for version, producer_id, first_offset, last_offset, last_stable_offset
            in _ENTRY.iter_unpack(data[: len(data) - len(data) % ENTRY_SIZE])]
