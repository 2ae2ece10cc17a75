import os

import pytest

from kafka.log.errors import LogDirError
from kafka.log.log_config import LogConfig
from kafka.log.log_manager import LogManager, parse_topic_partition_name, read_properties
from kafka.protocol.record_batch import build_batch, iter_batches
from kafka.utils.time import MockTime


def batch(count=1, value=b"value"):
    return build_batch([(None, value)] * count, timestamp=1000)


def start(log_dirs, node_id=1, **config):
    manager = LogManager([str(d) for d in log_dirs], LogConfig(**config), MockTime(), node_id=node_id)
    manager.startup()
    return manager


def test_parse_topic_partition_name():
    assert parse_topic_partition_name("orders-3") == ("orders", 3)
    assert parse_topic_partition_name("my-topic-with-dashes-12") == ("my-topic-with-dashes", 12)
    for name in ("orders", "-3", "orders-", "orders-x", "orders-3.abc-delete", "orders-3.abc-future",
                 "lost+found"):
        assert parse_topic_partition_name(name) is None


def test_clean_restart_keeps_offsets_and_contents(tmp_path):
    manager = start([tmp_path], segment_bytes=500)
    log = manager.get_or_create_log("my-topic", 2)
    for i in range(40):
        log.append_as_leader(batch(i % 3 + 1, value=b"x" * i))
    end, segments = log.log_end_offset, log.num_segments
    before = log.read(0, 10**6).records
    assert segments > 1
    manager.shutdown()

    manager = start([tmp_path], segment_bytes=500)
    log = manager.get_log("my-topic", 2)
    assert log is not None and log.log_end_offset == end and log.num_segments == segments
    assert log.read(0, 10**6).records == before
    assert log.append_as_leader(batch(2)).first_offset == end
    assert [b.base_offset for b in iter_batches(log.read(end, 1000).records)] == [end]
    manager.shutdown()


def test_missing_index_is_rebuilt_on_load(tmp_path):
    manager = start([tmp_path], segment_bytes=2000, index_interval_bytes=100)
    log = manager.get_or_create_log("t", 0)
    for _ in range(60):
        log.append_as_leader(batch(2, value=b"y" * 30))
    expected = log.read(0, 10**6).records
    index_paths = [s.offset_index.path for s in log.segments]
    entries = [s.offset_index.entries for s in log.segments]
    manager.shutdown()
    for path in index_paths:
        os.unlink(path)

    manager = start([tmp_path], segment_bytes=2000, index_interval_bytes=100)
    log = manager.get_log("t", 0)
    assert all(os.path.exists(path) for path in index_paths)
    assert [s.offset_index.entries for s in log.segments] == entries
    assert log.read(0, 10**6).records == expected
    middle = log.read(61, 10**6).records
    assert next(iter_batches(middle)).base_offset == 60
    manager.shutdown()


def test_startup_ignores_strangers_and_removes_delete_dirs(tmp_path):
    (tmp_path / "not a partition").mkdir()
    (tmp_path / "recovery-point-offset-checkpoint").write_text("0\n0\n")
    (tmp_path / "orders-0.0123abcd-delete").mkdir()
    (tmp_path / "orders-0.0123abcd-delete" / f"{0:020d}.log").write_bytes(b"junk")
    (tmp_path / "__cluster_metadata-0").mkdir()
    manager = start([tmp_path])
    assert manager.all_logs() == []
    assert not (tmp_path / "orders-0.0123abcd-delete").exists()
    assert (tmp_path / "not a partition").exists()
    manager.shutdown()


def test_meta_properties_written_once_and_checked(tmp_path):
    manager = start([tmp_path], node_id=7)
    manager.shutdown()
    props = read_properties(str(tmp_path / "meta.properties"))
    assert props["version"] == "1" and props["node.id"] == "7" and len(props["directory.id"]) == 22
    manager = start([tmp_path], node_id=7)
    manager.shutdown()
    assert read_properties(str(tmp_path / "meta.properties")) == props
    with pytest.raises(LogDirError):
        start([tmp_path], node_id=8)


def test_a_log_dir_is_locked_while_in_use(tmp_path):
    manager = start([tmp_path])
    with pytest.raises(LogDirError):
        start([tmp_path])
    manager.shutdown()
    start([tmp_path]).shutdown()


def test_logs_spread_over_log_dirs_and_keep_their_config(tmp_path):
    dirs = [tmp_path / "a", tmp_path / "b"]
    manager = start(dirs)
    custom = LogConfig(segment_bytes=1000)
    logs = [manager.get_or_create_log("t", p, custom if p == 0 else None) for p in range(4)]
    assert sorted(os.path.basename(os.path.dirname(log.dir)) for log in logs) == ["a", "a", "b", "b"]
    assert logs[0].config.segment_bytes == 1000 and logs[1].config == LogConfig()
    assert manager.get_or_create_log("t", 0) is logs[0]
    manager.shutdown()
    manager = LogManager([str(d) for d in dirs], LogConfig(), MockTime())
    manager.startup(topic_configs={"t": custom})
    assert len(manager.all_logs()) == 4
    assert all(log.config is custom for log in manager.all_logs())
    manager.shutdown()


def test_delete_log(tmp_path):
    manager = start([tmp_path])
    log = manager.get_or_create_log("doomed", 0)
    log.append_as_leader(batch())
    assert manager.delete_log("doomed", 0) is log
    assert manager.get_log("doomed", 0) is None
    assert [name for name in os.listdir(tmp_path) if name.startswith("doomed")] == []
    assert manager.delete_log("doomed", 0) is None
    # Recreating starts from offset 0 again.
    assert manager.get_or_create_log("doomed", 0).log_end_offset == 0
    manager.shutdown()


def test_illegal_names_are_refused(tmp_path):
    manager = start([tmp_path])
    for topic in ("", "..", "a/b"):
        with pytest.raises(ValueError):
            manager.get_or_create_log(topic, 0)
    with pytest.raises(ValueError):
        manager.get_or_create_log("t", -1)
    manager.shutdown()


def test_a_new_log_past_three_quarters_of_the_descriptor_limit_is_refused_and_its_dir_reported(tmp_path,
                                                                                               monkeypatch):
    import resource

    from kafka.log.errors import KafkaStorageError
    monkeypatch.setattr(resource, "getrlimit", lambda _: (8, 8))  # `ulimit -n 8`: room for 6 resting logs
    manager = LogManager([str(tmp_path)], LogConfig(), MockTime())
    manager.startup()
    for partition in range(6):
        manager.get_or_create_log("t", partition)
    with pytest.raises(KafkaStorageError, match="open-file limit"):
        manager.get_or_create_log("t", 6)
    assert manager.log_dir_failure_channel.offline_log_dirs() == [str(tmp_path)]
    assert not (tmp_path / "t-6").exists()
    manager.shutdown()


def test_user_partitions_leave_the_internal_topics_their_reserve_of_the_descriptor_budget(tmp_path):
    """Issue 38: `ulimit -n 16` allows 12 resting logs; 3 are kept for __consumer_offsets and 2 for
    __transaction_state, so a client filling the budget gets 7, and the coordinators still get theirs."""
    from kafka.log.errors import KafkaStorageError
    manager = LogManager([str(tmp_path)], LogConfig(), MockTime(), open_files_limit=lambda: 16,
                         reserved_partitions={"__consumer_offsets": 3, "__transaction_state": 2})
    manager.startup()
    assert (manager.descriptor_headroom(), manager.unhosted_reserved_partitions()) == (12, 5)
    for partition in range(7):
        manager.get_or_create_log("wide", partition)
    with pytest.raises(KafkaStorageError,
                       match="kept for the partitions of __consumer_offsets, __transaction_state"):
        manager.get_or_create_log("wide", 7)
    assert not (tmp_path / "wide-7").exists()

    for partition in range(3):
        manager.get_or_create_log("__consumer_offsets", partition)
    # Beyond its configured count an internal topic is a user topic: no reserve for __consumer_offsets-3.
    with pytest.raises(KafkaStorageError, match="kept for the partitions"):
        manager.get_or_create_log("__consumer_offsets", 3)
    for partition in range(2):
        manager.get_or_create_log("__transaction_state", partition)
    assert (manager.descriptor_headroom(), manager.unhosted_reserved_partitions()) == (0, 0)
    with pytest.raises(KafkaStorageError, match="three quarters of the open-file limit"):
        manager.get_or_create_log("__transaction_state", 2)
    manager.shutdown()


def test_a_reserved_partition_takes_the_budget_to_its_last_descriptor_and_no_further(tmp_path):
    from kafka.log.errors import KafkaStorageError
    manager = LogManager([str(tmp_path)], LogConfig(), MockTime(), open_files_limit=lambda: 8,
                         reserved_partitions={"__consumer_offsets": 10})
    manager.startup()
    with pytest.raises(KafkaStorageError, match="kept for the partitions"):  # the reserve is above the budget
        manager.get_or_create_log("user", 0)
    for partition in range(6):
        manager.get_or_create_log("__consumer_offsets", partition)
    with pytest.raises(KafkaStorageError, match="three quarters of the open-file limit"):
        manager.get_or_create_log("__consumer_offsets", 6)
    manager.shutdown()


def test_the_reserve_holds_at_restart_under_a_lower_limit(tmp_path):
    """Logs already on disk are loaded by the same rule: under a lower limit the user logs beyond
    their share stay offline, the internal ones load, though "Orders-*" are listed before "__*"."""
    manager = LogManager([str(tmp_path)], LogConfig(), MockTime(), open_files_limit=lambda: 16,
                         reserved_partitions={"__consumer_offsets": 2})
    manager.startup()
    for partition in range(10):
        manager.get_or_create_log("Orders", partition)
    for partition in range(2):
        manager.get_or_create_log("__consumer_offsets", partition)
    manager.shutdown()

    restarted = LogManager([str(tmp_path)], LogConfig(), MockTime(), open_files_limit=lambda: 8,
                           reserved_partitions={"__consumer_offsets": 2})
    restarted.startup()
    assert restarted.get_log("__consumer_offsets", 0) is not None and restarted.get_log("__consumer_offsets",
                                                                                        1)
    assert sum(restarted.get_log("Orders", partition) is not None for partition in range(10)) == 4
    restarted.shutdown()
