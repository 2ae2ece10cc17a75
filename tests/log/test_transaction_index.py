"""TransactionIndex (`.txnindex`, KIP-98): Kafka's 34-byte entries, the search a read_committed fetch
makes, truncation, renaming and the sanity check on load."""

from __future__ import annotations

import os
import struct

import pytest

from kafka.log.errors import CorruptIndexError
from kafka.log.transaction_index import ENTRY_SIZE, AbortedTxn, TransactionIndex


def index_at(tmp_path, start_offset: int = 0) -> TransactionIndex:
    return TransactionIndex(start_offset, str(tmp_path / f"{start_offset:020d}.txnindex"))


def test_entries_are_kafkas_34_bytes_and_read_back(tmp_path):
    index = index_at(tmp_path)
    assert not os.path.exists(index.path), "created on the first entry only"
    entries = [AbortedTxn(5, 0, 10, 11), AbortedTxn(6, 3, 20, 21), AbortedTxn(5, 25, 30, 31)]
    for entry in entries:
        index.append(entry)
    index.flush()
    index.close()
    with open(index.path, "rb") as file:
        data = file.read()
    assert len(data) == 3 * ENTRY_SIZE == 102
    # version 0, pid, first, last, LSO
    assert struct.unpack_from(">hqqqq", data, ENTRY_SIZE) == (0, 6, 3, 20, 21)
    reopened = index_at(tmp_path)
    reopened.sanity_check()
    assert reopened.all_aborted_txns() == entries


def test_last_offsets_must_increase(tmp_path):
    index = index_at(tmp_path)
    index.append(AbortedTxn(1, 0, 10, 11))
    with pytest.raises(ValueError, match="must increase sequentially"):
        index.append(AbortedTxn(2, 5, 10, 11))


def test_collect_returns_the_transactions_overlapping_the_range_and_says_when_it_is_complete(tmp_path):
    index = index_at(tmp_path)
    index.append(AbortedTxn(1, 0, 10, 11))  # ends before the range
    index.append(AbortedTxn(2, 12, 20, 15))  # overlaps; another transaction was open at 15
    index.append(AbortedTxn(3, 15, 25, 26))  # overlaps; nothing open after: the LSO reached 26
    index.append(AbortedTxn(4, 40, 41, 42))  # after the range
    result = index.collect_aborted_txns(fetch_offset=11, upper_bound_offset=24)
    assert [t.producer_id for t in result.aborted_transactions] == [2, 3]
    assert result.is_complete, "an entry's LSO reached the upper bound: later ones begin after it"
    result = index.collect_aborted_txns(fetch_offset=11, upper_bound_offset=100)
    assert [t.producer_id for t in result.aborted_transactions] == [2, 3, 4]
    assert not result.is_complete, "a transaction begun below 100 may end in a later segment"
    assert result.aborted_transactions[0].as_aborted_transaction() == dict(producer_id=2, first_offset=12)


def test_truncate_drops_the_entries_whose_marker_is_cut_off(tmp_path):
    index = index_at(tmp_path)
    for producer_id, (first, last) in enumerate([(0, 5), (6, 10), (11, 15)]):
        index.append(AbortedTxn(producer_id, first, last, last + 1))
    index.truncate_to(10)
    assert [t.last_offset for t in index.all_aborted_txns()] == [5]
    assert os.path.getsize(index.path) == ENTRY_SIZE
    index.append(AbortedTxn(7, 6, 12, 13))  # appending goes on after the cut
    index.close()
    assert [t.last_offset for t in index_at(tmp_path).all_aborted_txns()] == [5, 12]


def test_rename_and_delete_follow_the_segment(tmp_path):
    index = index_at(tmp_path)
    index.append(AbortedTxn(1, 0, 1, 2))
    deleted = index.path + ".deleted"
    index.rename_to(deleted)
    assert os.path.exists(deleted) and not os.path.exists(str(tmp_path / f"{0:020d}.txnindex"))
    index.append(AbortedTxn(1, 2, 3, 4))  # the open descriptor followed the rename
    assert index.delete()
    assert not os.path.exists(deleted)


def test_sanity_check_refuses_a_torn_entry_and_one_before_the_segment(tmp_path):
    index = index_at(tmp_path, start_offset=100)
    index.append(AbortedTxn(1, 100, 105, 106))
    index.close()
    with open(index.path, "ab") as file:
        file.write(b"\x00" * 10)  # a write cut short
    with pytest.raises(CorruptIndexError, match="not a multiple"):
        index_at(tmp_path, start_offset=100).sanity_check()
    os.truncate(index.path, 0)
    with open(index.path, "ab") as file:
        file.write(struct.pack(">hqqqq", 0, 1, 10, 50, 51))  # its marker is before the segment's base
    with pytest.raises(CorruptIndexError, match="less than start offset 100"):
        index_at(tmp_path, start_offset=100).sanity_check()
