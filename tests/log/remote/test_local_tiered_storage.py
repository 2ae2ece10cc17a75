"""LocalTieredStorage: a segment and its indexes copied into a directory, named as Kafka's test storage
names them, fetched back by byte range and index type, and deleted."""

import uuid

import pytest

from kafka.log.remote.local_tiered_storage import LocalTieredStorage
from kafka.log.remote.remote_log_segment_metadata import RemoteLogSegmentId, RemoteLogSegmentMetadata
from kafka.log.remote.remote_storage_manager import (
    IndexType,
    LogSegmentData,
    RemoteResourceNotFoundException,
    RemoteStorageException,
)
from kafka.utils.topic_id_partition import TopicIdPartition
from kafka.utils.uuid import uuid_to_string

TOPIC_ID = uuid.UUID("7b1e1d6e-2b4a-4a39-9f1e-0c1d2e3f4a5b")
PARTITION = TopicIdPartition(TOPIC_ID, "orders", 3)


def segment_files(tmp_path, with_txn=True):
    src = tmp_path / "src"
    src.mkdir()
    files = {}
    for name, body in (("log", b"L" * 100), ("index", b"I" * 8), ("timeindex", b"T" * 12),
                       ("txnindex", b"X" * 34), ("snapshot", b"S" * 5)):
        path = src / f"00000000000000000042.{name}"
        path.write_bytes(body)
        files[name] = path
    return LogSegmentData(files["log"], files["index"], files["timeindex"],
                          files["txnindex"] if with_txn else None, files["snapshot"], b"0\n1\n0 42\n")


def metadata(start=42, end=51, size=100):
    return RemoteLogSegmentMetadata(RemoteLogSegmentId.generate_new(PARTITION), start, end, 1000, 1, 1000,
                                    size, {0: start})


def storage(tmp_path, **extra):
    rsm = LocalTieredStorage()
    rsm.configure({"dir": str(tmp_path / "remote"), "broker.id": "1", **extra})
    return rsm


def test_copy_writes_one_file_per_segment_and_index_named_as_kafka_names_them(tmp_path):
    rsm = storage(tmp_path)
    md = metadata()
    assert rsm.copy_log_segment_data(md, segment_files(tmp_path)) is None
    partition_dir = tmp_path / "remote" / "kafka-tiered-storage" / f"orders-3-{uuid_to_string(TOPIC_ID)}"
    prefix = f"00000000000000000042-{uuid_to_string(md.remote_log_segment_id.id)}"
    assert sorted(p.name for p in partition_dir.iterdir()) == sorted(
        prefix + suffix for suffix in (".log", ".index", ".timeindex", ".txnindex", ".snapshot",
                                       ".leader_epoch_checkpoint"))
    assert (partition_dir / (prefix + ".leader_epoch_checkpoint")).read_bytes() == b"0\n1\n0 42\n"


def test_fetch_reads_the_byte_range_inclusive_and_each_index(tmp_path):
    rsm = storage(tmp_path)
    md = metadata()
    rsm.copy_log_segment_data(md, segment_files(tmp_path))
    assert rsm.fetch_log_segment(md, 0).read() == b"L" * 100
    assert rsm.fetch_log_segment(md, 10, 19).read() == b"L" * 10
    assert rsm.fetch_index(md, IndexType.OFFSET).read() == b"I" * 8
    assert rsm.fetch_index(md, IndexType.TIMESTAMP).read() == b"T" * 12
    assert rsm.fetch_index(md, IndexType.TRANSACTION).read() == b"X" * 34
    assert rsm.fetch_index(md, IndexType.PRODUCER_SNAPSHOT).read() == b"S" * 5
    assert rsm.fetch_index(md, IndexType.LEADER_EPOCH).read() == b"0\n1\n0 42\n"
    with pytest.raises(ValueError):
        rsm.fetch_log_segment(md, 50, 100)  # past the segment's size
    with pytest.raises(ValueError):
        rsm.fetch_log_segment(md, 20, 10)


def test_a_segment_without_aborted_transactions_has_no_transaction_index(tmp_path):
    rsm = storage(tmp_path)
    md = metadata()
    rsm.copy_log_segment_data(md, segment_files(tmp_path, with_txn=False))
    with pytest.raises(RemoteResourceNotFoundException):
        rsm.fetch_index(md, IndexType.TRANSACTION)


def test_a_segment_never_copied_is_not_found_and_delete_is_idempotent(tmp_path):
    rsm = storage(tmp_path)
    md = metadata()
    with pytest.raises(RemoteResourceNotFoundException):
        rsm.fetch_log_segment(md, 0)
    with pytest.raises(RemoteResourceNotFoundException):
        rsm.fetch_index(md, IndexType.OFFSET)
    rsm.delete_log_segment_data(md)  # not there: not an error
    rsm.copy_log_segment_data(md, segment_files(tmp_path))
    rsm.delete_log_segment_data(md)
    rsm.delete_log_segment_data(md)
    with pytest.raises(RemoteResourceNotFoundException):
        rsm.fetch_log_segment(md, 0)


def test_the_same_segment_copied_twice_is_two_filesets(tmp_path):
    rsm = storage(tmp_path)
    first, second = metadata(), metadata()
    data = segment_files(tmp_path)
    rsm.copy_log_segment_data(first, data)
    rsm.copy_log_segment_data(second, data)
    rsm.delete_log_segment_data(first)
    assert rsm.fetch_log_segment(second, 0).read() == b"L" * 100


def test_a_failed_copy_leaves_nothing_behind(tmp_path):
    rsm = storage(tmp_path)
    md = metadata()
    data = segment_files(tmp_path)
    data.producer_snapshot_index.unlink()  # the last file copied is missing
    with pytest.raises(RemoteResourceNotFoundException):
        rsm.copy_log_segment_data(md, data)
    partition_dir = rsm.storage_directory / f"orders-3-{uuid_to_string(TOPIC_ID)}"
    assert list(partition_dir.iterdir()) == []


def test_delete_enable_false_keeps_the_data_and_delete_on_close_removes_the_store(tmp_path):
    rsm = storage(tmp_path, **{"delete.enable": "false"})
    md = metadata()
    rsm.copy_log_segment_data(md, segment_files(tmp_path))
    rsm.delete_log_segment_data(md)
    assert rsm.fetch_log_segment(md, 0).read() == b"L" * 100
    closing = LocalTieredStorage()
    closing.configure({"dir": str(tmp_path / "other"), "broker.id": "2", "delete.on.close": "true"})
    closing.close()
    assert not (tmp_path / "other" / "kafka-tiered-storage").exists()


def test_configuration_is_required_and_happens_once(tmp_path):
    rsm = LocalTieredStorage()
    with pytest.raises(RemoteStorageException):
        rsm.fetch_log_segment(metadata(), 0)
    with pytest.raises(ValueError):
        rsm.configure({"dir": str(tmp_path)})  # no broker.id
    rsm.configure({"dir": str(tmp_path), "broker.id": "0"})
    with pytest.raises(RemoteStorageException):
        rsm.configure({"dir": str(tmp_path), "broker.id": "0"})
